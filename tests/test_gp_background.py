"""The GP fit in a background process: progress while it runs, a cancel that ends the process, and
failures reported with their message (the Studio's Model page drives it)."""

import time

import numpy as np
import pytest

from ordercore import PreferenceSet
from ordercore.gp.evidence import MAX_EVALUATIONS
from ordercore.studio.jobs.gp import BackgroundFit


def chain(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 4))
    order = np.argsort(X @ np.array([1.0, -0.5, 0.3, 0.0]))
    return X, PreferenceSet.order(order[1:], order[:-1])


def test_a_running_fit_reports_progress_and_is_cancelled_at_once():
    X, preferences = chain(1500)  # about 20 s of work: still running when cancelled
    job = BackgroundFit(X, preferences, method="exact", random_state=0)
    deadline = time.monotonic() + 60
    while job.status().evaluations < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    status = job.status()
    assert status.state == "running" and status.evaluations >= 1 and np.isfinite(status.log_evidence)
    assert status.progress["most_evaluations"] == MAX_EVALUATIONS  # the page shows "k of at most ..."
    job.cancel()
    assert job.status().state == "cancelled" and job.process.poll() is not None and not job.directory.exists()
    with pytest.raises(RuntimeError, match="has not finished"):
        job.model()


def test_a_failed_fit_reports_its_error():
    X, preferences = chain(30)
    job = BackgroundFit(X, preferences, method="exact", memory_limit=1e-9)
    status = job.wait(60)
    assert status.state == "failed" and status.message.startswith("MemoryBudgetError: this exact GP fit")


def test_an_ended_fit_keeps_its_time_and_evaluations():
    """The page shows "fitted in N s" on every rerun: N is the fit's time, not the time since it started."""
    X, preferences = chain(30)
    job = BackgroundFit(X, preferences, method="exact", random_state=0)
    done = job.wait(120)
    assert done.state == "done" and done.evaluations >= 1
    time.sleep(0.3)
    job.model()  # reads the model and removes the job's files
    assert job.status() == done
    job.cancel()  # nothing left to cancel: it stays done
    assert job.status() == done
