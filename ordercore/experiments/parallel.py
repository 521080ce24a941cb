"""Where experiment trials run: joblib's local worker processes, or an existing Dask cluster.

``trial_backend`` is the one place that imports ``dask.distributed`` (the optional ``dask`` extra),
and only when a scheduler address is given.  On a cluster, joblib's Dask backend sends each batch
of trials to the workers and scatters large arguments (the data set) once per run; the workers
need the same ``ordercore`` installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from joblib import Parallel, parallel_config

from ordercore.exceptions import ClusterUnavailableError

SCHEDULER_TIMEOUT_SECONDS = 10.0
"""How long to try to reach a Dask scheduler before giving up (Dask's own default is 30 s)."""

MISSING_DASK = "the dask extra is not installed: pip install 'ordercore[dask]'"


def workers(jobs: int, tasks: int | None) -> int:
    """``jobs`` local worker processes, at most one per task (more would only idle, and tens of thousands
    exhaust the machine's semaphores so that loky hangs); -1 (all cores) kept."""
    if jobs < 1 or tasks is None:
        return jobs
    return max(1, min(jobs, tasks))


CLIENT_STARTS = 2
"""Tries to start a Dask client: its event-loop thread is given 10 s, which a machine under heavy
load can miss (distributed then fails an internal ``assert loop is not None``)."""


def connect(client_class, scheduler: str, timeout: float):
    """A ``dask.distributed.Client`` on ``scheduler``, started again once if its event-loop thread
    did not start in time; ``ClusterUnavailableError`` if it never does."""
    for _ in range(CLIENT_STARTS):
        try:
            # set_as_default=False: the caller's own default Dask client, if any, stays the default
            return client_class(scheduler, timeout=timeout, set_as_default=False)
        except AssertionError:  # distributed's LoopRunner: the loop thread did not start within 10 s
            continue
    raise ClusterUnavailableError(
        f"the Dask client's event loop did not start ({CLIENT_STARTS} tries of 10 s): is this machine overloaded?"
    )


@contextmanager
def trial_backend(
    jobs: int = 1, scheduler: str | None = None, timeout: float = SCHEDULER_TIMEOUT_SECONDS, tasks: int | None = None
) -> Iterator[Parallel]:
    """A ``joblib.Parallel`` yielding results as they finish (``return_as='generator_unordered'``).

    scheduler None: joblib's default (loky) backend on this machine, ``jobs`` processes (-1: all
    cores), at most ``tasks`` (``workers``).  scheduler an address such as ``tcp://HOST:8786``: a
    ``dask.distributed.Client`` connected to that scheduler within ``timeout`` seconds runs the calls
    on the cluster's workers under ``joblib.parallel_config(backend='dask')``; ``jobs`` is then ignored (the
    cluster's worker threads set the parallelism), and the client is closed on exit.  Consume
    the Parallel's output inside the ``with`` block.

    Raises ``ClusterUnavailableError`` when the dask extra is not installed or the scheduler cannot
    be reached, ``ValueError`` when ``scheduler`` is not an address."""
    if scheduler is None:
        yield Parallel(n_jobs=workers(jobs, tasks), return_as="generator_unordered")
        return
    try:
        from dask.distributed import Client
    except ImportError as error:
        raise ClusterUnavailableError(MISSING_DASK) from error
    try:
        client = connect(Client, scheduler, timeout)
    except OSError as error:  # distributed: OSError("Timed out trying to connect to ... after 10 s")
        raise ClusterUnavailableError(
            f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s: is it running, is the address right?"
        ) from error
    except (TypeError, ValueError) as error:
        raise ValueError(f"scheduler must be an address such as tcp://HOST:8786, got {scheduler!r}") from error
    try:
        with parallel_config(backend="dask", client=client):
            yield Parallel(n_jobs=-1, return_as="generator_unordered")
    finally:
        client.close()
