"""Trials on a Dask cluster (the optional ``dask`` extra): the same results as one local process.

A two-worker LocalCluster in separate processes stands in for a real cluster: the trials are
pickled, sent over TCP and run in other interpreters, as they would be on other machines.
"""

import json
import re
import socket
import time

import pytest

import ordercore

distributed = pytest.importorskip("dask.distributed")

from ordercore import ClusterUnavailableError  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402
from ordercore.experiments.parallel import trial_backend  # noqa: E402
from ordercore.experiments.protocol import Protocol, trial_seeds  # noqa: E402
from ordercore.experiments.table1 import table1  # noqa: E402

TIMING_FIELDS = {"tune_seconds", "svr_seconds", "ssl_seconds"}
"""Wall-clock fields of a trial's results, the only ones allowed to differ between runs."""


@pytest.fixture(scope="module")
def cluster():
    """Two single-threaded worker processes (CI has two cores)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local_cluster:
        yield local_cluster


def ordercore_source() -> str:
    import ordercore

    return ordercore.__file__


def clients_from_outside(dask_scheduler) -> set[str]:
    """The scheduler's clients other than its own and those the workers open (joblib's backend
    opens one per worker when it unpickles a batch)."""
    return {name for name in dask_scheduler.clients if name != "fire-and-forget" and "-worker-" not in name}


def without_timing(trials: list[dict]) -> list[dict]:
    return [{key: value for key, value in trial.items() if key not in TIMING_FIELDS} for trial in trials]


def test_table1_on_the_cluster_matches_one_local_process(data_directory, cluster):
    data = load_dataset("boston")
    protocol = Protocol.for_benchmark("boston", quick=True)
    local = table1(data, "boston", protocol, 3, 7, jobs=1)
    calls = []
    with distributed.Client(cluster.scheduler_address) as observer, distributed.get_task_stream(observer) as stream:
        # the workers run this checkout's code (a worktree beside an editable install could differ)
        assert set(observer.run(ordercore_source).values()) == {ordercore.__file__}
        clients_before = observer.run_on_scheduler(clients_from_outside)
        remote = table1(
            data,
            "boston",
            protocol,
            3,
            7,
            progress=lambda done, total: calls.append((done, total)),
            scheduler=cluster.scheduler_address,
        )
        deadline = time.monotonic() + 5  # the scheduler hears of a closed client a moment later
        while observer.run_on_scheduler(clients_from_outside) != clients_before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert observer.run_on_scheduler(clients_from_outside) == clients_before  # table1 closed its client
    # the trials ran on the cluster's workers, not in this process
    assert len(stream.data) >= 3 and {task["worker"] for task in stream.data} <= set(cluster.scheduler_info["workers"])
    assert calls == [(1, 3), (2, 3), (3, 3)]
    assert [trial["seed"] for trial in remote["trials"]] == trial_seeds(7, 3)
    assert [trial["trial"] for trial in remote["trials"]] == [0, 1, 2]
    assert without_timing(remote["trials"]) == without_timing(local["trials"])
    assert remote["summary"] == local["summary"]


def test_an_unreachable_scheduler_is_one_clear_error():
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(
        ClusterUnavailableError, match=re.escape(f"cannot reach the Dask scheduler at {address} within 1 s")
    ) as error:
        with trial_backend(scheduler=address, timeout=1.0):
            pass
    assert "\n" not in str(error.value)


def test_a_scheduler_that_is_not_an_address_is_a_value_error():
    with pytest.raises(ValueError, match="scheduler must be an address such as tcp://HOST:8786"):
        with trial_backend(scheduler="no port here", timeout=1.0):
            pass


def test_the_command_line_on_the_cluster_writes_what_jobs_1_writes(data_directory, cluster, tmp_path):
    from ordercore.cli.main import main

    arguments = ["experiments", "table1", "--dataset", "boston", "--quick", "--trials", "2", "--seed", "3"]
    main([*arguments, "--jobs", "1", "--out", str(tmp_path / "local.json")])
    dask = ["--backend", "dask", "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask.json")]
    with distributed.Client(cluster.scheduler_address) as observer, distributed.get_task_stream(observer) as stream:
        main([*arguments, *dask])
    assert len(stream.data) >= 2  # the trials ran on the cluster's workers, not in this process
    local, remote = (json.loads((tmp_path / name).read_text()) for name in ("local.json", "dask.json"))
    assert without_timing(remote["trials"]) == without_timing(local["trials"]) and len(local["trials"]) == 2
