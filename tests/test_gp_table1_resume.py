"""``experiments gp-table1 --out run.json`` writes each trial to ``run.trials.jsonl`` as it finishes, and
``--resume`` runs only the missing ones (issue 34: a stopped 2-hour Abalone run lost every trial).  The check
of a resumed run is an uninterrupted run of the same trials; progress files of other runs are refused and left
as they were."""

from __future__ import annotations

import io
import json

import pytest

from ordercore.cli.main import main
from ordercore.cli.trial_progress import TrialProgress
from ordercore.experiments import gp_instance
from ordercore.experiments.trial_log import progress_path

CPU_TIMES = ("trial_seconds", "fit_seconds", "cv_seconds")
"""CPU seconds differ between any two runs of the same trial; every other number must not."""


def without_times(value):
    """A result with its CPU times and command line left out."""
    if isinstance(value, dict):
        return {key: without_times(item) for key, item in value.items() if key not in (*CPU_TIMES, "command")}
    if isinstance(value, list):
        return [without_times(item) for item in value]
    return value


def gp_table1(out, *options):
    main(["experiments", "gp-table1", "--dataset", "pyrimidines", "--quick", *options, "--out", str(out)])
    return json.loads(out.read_text())


def records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_run_stopped_after_two_trials_and_resumed_writes_the_uninterrupted_runs_result(
    tmp_path, data_directory, monkeypatch
):
    stopped = tmp_path / "stopped.json"
    gp_table1(stopped, "--trials", "2")
    progress = tmp_path / "stopped.trials.jsonl"
    before = records(progress)
    with progress.open("a") as file:  # stopped while writing trial 2: half its line on disk
        file.write(json.dumps(before[1] | {"trial": 2})[:40])
    ran = []

    def counted(X, y, spec, trial, seed, quick=False):
        ran.append(trial)
        return run_trial(X, y, spec, trial, seed, quick)

    run_trial = gp_instance.run_trial
    monkeypatch.setattr(gp_instance, "run_trial", counted)
    resumed = gp_table1(stopped, "--trials", "3", "--resume")
    assert ran == [2]  # trials 0 and 1 taken from the progress file
    assert resumed["trials"][:2] == before[1:]  # as the stopped run wrote them, CPU times included
    after = records(progress)  # the cut-short line gone: every line whole
    assert after[:3] == before and [record["trial"] for record in after[1:]] == [0, 1, 2]
    monkeypatch.setattr(gp_instance, "run_trial", run_trial)
    whole = gp_table1(tmp_path / "whole.json", "--trials", "3")
    assert without_times(resumed) == without_times(whole)


def test_trials_finishing_in_any_order_on_two_workers_give_the_one_worker_result(tmp_path, data_directory):
    parallel = gp_table1(tmp_path / "parallel.json", "--trials", "3", "--jobs", "2")
    assert sorted(record["trial"] for record in records(tmp_path / "parallel.trials.jsonl")[1:]) == [0, 1, 2]
    serial = gp_table1(tmp_path / "serial.json", "--trials", "3", "--jobs", "1")
    assert without_times(parallel) == without_times(serial)


@pytest.mark.parametrize(
    "options, refusal",
    [
        (["--seed", "1", "--resume"], "its seed 0 (this run: 1)"),
        (["--dataset", "triazines", "--resume"], "its dataset 'pyrimidines' (this run: 'triazines')"),
        ([], "already holds 1 finished trial(s) of this run: give --resume"),
    ],
)
def test_a_progress_file_of_another_run_or_without_resume_is_refused_and_nothing_is_overwritten(
    tmp_path, data_directory, capsys, options, refusal
):
    out = tmp_path / "run.json"
    gp_table1(out, "--trials", "1")
    progress = tmp_path / "run.trials.jsonl"
    stored = out.read_bytes(), progress.read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        gp_table1(out, "--trials", "2", *options)  # a later --dataset overrides the first
    assert "progress file" in str(stop.value) and refusal in str(stop.value)
    assert (out.read_bytes(), progress.read_bytes()) == stored


def test_a_progress_file_of_another_protocol_or_no_progress_file_is_refused(tmp_path, data_directory):
    out = tmp_path / "run.json"
    progress = tmp_path / "run.trials.jsonl"
    run = {"experiment": "gp-table1", "dataset": "pyrimidines", "seed": 0}
    protocol = {"n_train_pairs": 100, "n_test_pairs": 20_000, "rows_per_trial": None, "n_features": 27}
    header = {"run": run | {"protocol": protocol | {"quick": False, "significance": 0.01}}}
    progress.write_text(json.dumps(header) + "\n")
    with pytest.raises(SystemExit, match=r"its protocol .*'quick': False"):
        gp_table1(out, "--trials", "1", "--resume")
    progress.write_text("trial,error\n0,17.9\n")
    with pytest.raises(SystemExit, match="is not a progress file"):
        gp_table1(out, "--trials", "1", "--resume")
    assert progress.read_text() == "trial,error\n0,17.9\n" and not out.exists()


def test_each_finished_trial_prints_the_time_left_at_this_runs_pace():
    stream, times = io.StringIO(), iter([0.0, 100.0, 310.0, 400.0])
    progress = TrialProgress("gp-table1 abalone", stream, clock=lambda: next(times))
    progress(11, 312.4, 12, 20)  # resumed from 11: 1 trial in 100 s here, 8 left -> 800 s
    progress(13, 95.0, 13, 20)  # 2 in 310 s, 7 left -> 1085 s, 18 min
    progress(19, 40.0, 20, 20)
    assert stream.getvalue().splitlines() == [
        "gp-table1 abalone: trial 11 done in 312 s CPU; 12 of 20 trials done, about 13 min left",
        "gp-table1 abalone: trial 13 done in 95 s CPU; 13 of 20 trials done, about 18 min left",
        "gp-table1 abalone: trial 19 done in 40 s CPU; 20 of 20 trials done",
    ]


def test_the_progress_file_is_named_after_the_result_file_in_its_folder(tmp_path):
    assert progress_path(tmp_path / "gp_table1_abalone.json") == tmp_path / "gp_table1_abalone.trials.jsonl"
    assert progress_path(tmp_path / "run.JSON") == tmp_path / "run.trials.jsonl"
    assert progress_path(tmp_path / "run") == tmp_path / "run.trials.jsonl"
    assert progress_path(tmp_path / "run.v2") == tmp_path / "run.v2.trials.jsonl"  # not run.trials.jsonl as run.v1's
