"""Automatic trust in a background process (ordercore/studio/jobs/trust.py): its result read back equals
``assess_sources`` called in this process, a cancel ends the process and leaves no result, and bad
input fails with its message on one line."""

import io
import time

import numpy as np
import pytest

from ordercore.knowledge.expert_accuracy import answered_pairs, is_audit_pair
from ordercore.knowledge.label_cv import FOLDS, REPEATS, Blend
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.knowledge.trust import SourceTrust, Trust, assess_sources
from ordercore.studio.jobs.trust import BackgroundAssessment, InlineAssessment, read_assessment, write_assessment
from tests.test_lp import random_problem

NAMES = ["rule #1: a", "clicks: ann", "imported"]


def problem(n=40, n_labeled=15, n_preferences=30):
    """A small problem with three sources of preferences (each a third of them); the rule checked on
    four labeled pairs, the clicks' check None (their 10 random answers, no better than a coin against
    SVR's order, weigh 0: ``expert_accuracy``), the import's missing."""
    X, y, _, preferences = random_problem(7, n=n, n_labeled=n_labeled, n_preferences=n_preferences)
    names = np.repeat(np.array(NAMES, dtype=object), n_preferences // 3)
    labeled = np.flatnonzero(~np.isnan(y))
    checks = {NAMES[0]: SourceCheck.of(labeled[:4], labeled[4:8], [True, False, True, True]), NAMES[1]: None}
    return X, y, preferences, names, checks


def assert_same(restored: SourceTrust, direct: SourceTrust):
    assert restored.names == direct.names
    for mine, theirs in zip(restored.checks, direct.checks, strict=True):
        assert (mine is None) == (theirs is None)
        if theirs is not None:
            for name in ("winner", "loser", "right"):
                np.testing.assert_array_equal(getattr(mine, name), getattr(theirs, name))
    mine, theirs = restored.trust, direct.trust
    assert mine.blend.settings == theirs.blend.settings
    np.testing.assert_array_equal(mine.blend.weights, theirs.blend.weights)
    np.testing.assert_array_equal(mine.weights, theirs.weights)
    assert (mine.reference is None) == (theirs.reference is None)
    if theirs.reference is not None:
        np.testing.assert_array_equal(mine.reference, theirs.reference)
    assert (mine.cv is None) == (theirs.cv is None) and (restored.effects is None) == (direct.effects is None)
    if theirs.cv is not None:
        assert mine.cv.grid == theirs.cv.grid
        for name in ("predictions", "folds", "truth"):
            np.testing.assert_array_equal(getattr(mine.cv, name), getattr(theirs.cv, name))
    if direct.effects is not None:
        np.testing.assert_array_equal(restored.effects, direct.effects)
        np.testing.assert_array_equal(restored.effect_errors, direct.effect_errors)
    assert (restored.agreement is None) == (direct.agreement is None)
    if direct.agreement is not None:
        np.testing.assert_array_equal(restored.agreement, direct.agreement)
    assert (restored.basis is None) == (direct.basis is None)
    if direct.basis is not None:  # what a re-assessment starts from
        mine, theirs = restored.basis, direct.basis
        assert (mine.inputs, mine.names, mine.steps) == (theirs.inputs, theirs.names, theirs.steps)
        np.testing.assert_array_equal(mine.mass, theirs.mass)
        np.testing.assert_array_equal(mine.size, theirs.size)


def test_the_jobs_result_is_assess_sources_in_this_process():
    X, y, preferences, names, checks = problem()
    job = BackgroundAssessment(X, y, preferences, names, checks, 0.01, 3, gamma=0.4)
    status = job.wait(120)
    assert status.state == "done", status.message
    direct = assess_sources(X, y, preferences, names, checks, np.random.default_rng(3), 0.01, gamma=0.4)
    assert direct.trust.cv is not None and direct.effects is not None
    assert direct.checks[2] is not None  # the names sorted: the rule's check last
    assert_same(job.result(), direct)
    # every fold of the cross-validation and of the effects of the 2 sources that weigh
    assert direct.trust.weights[0] == 0 and np.all(direct.trust.weights[1:] > 0)  # clicks, imported, rule
    # the clicks' accuracy rests on their 10 answers, or on those of audit pairs (``of_annotator``)
    winner, loser, labeled = answered_pairs(preferences[names == NAMES[1]], y)
    assert winner.size + labeled.a.size == 10  # those on labeled pairs are checked by the labels, in either look
    audited = is_audit_pair(winner, loser).sum() + labeled.a.size
    assert direct.agreement[0, 2] in (10, audited) and np.isnan(direct.agreement[1:]).all()
    assert status.done == status.total == FOLDS * REPEATS * (1 + 2)
    assert not job.directory.exists()


def test_the_inline_job_is_assess_sources_done_when_made():
    X, y, preferences, names, checks = problem()
    job = InlineAssessment(X, y, preferences, names, checks, 0.01, 3, gamma=0.4)
    assert job.status().state == job.wait(0).state == "done"
    direct = assess_sources(X, y, preferences, names, checks, np.random.default_rng(3), 0.01, gamma=0.4)
    by_name = [preferences.weight[names == name].sum() for name in sorted(NAMES)]
    np.testing.assert_allclose(direct.basis.size, by_name)  # each source's preferences' w summed
    restored = read_assessment(io.BytesIO(job.result_bytes()))
    assert_same(restored, direct)
    # the job records when the assessment was made (the Model page says how old its figures are); the
    # library's own function, and an assessment written without the time (stored before), have none
    assert direct.basis.made_at is None and 0 <= time.time() - restored.basis.made_at < 60
    unstamped = io.BytesIO()
    write_assessment(unstamped, direct)
    assert read_assessment(io.BytesIO(unstamped.getvalue())).basis.made_at is None


def test_an_assessment_without_cross_validation_reads_back_as_written(tmp_path):
    """Nothing left to trust: no cross-validation, no effects, and too few labels for a reference."""
    check = SourceCheck.of([0, 2], [1, 3], [False, False])
    assessed = SourceTrust(("a", "b"), (check, None), Trust(np.array([0.0, 0.0]), Blend.svr(0.01), None), None)
    write_assessment(tmp_path / "a.npz", assessed)
    assert_same(read_assessment(tmp_path / "a.npz"), assessed)


def test_a_running_assessment_reports_folds_and_is_cancelled_at_once():
    X, y, preferences, names, checks = problem(n=300, n_labeled=60, n_preferences=1200)  # several seconds
    job = BackgroundAssessment(X, y, preferences, names, checks, 0.01, 0, gamma=0.4)
    deadline = time.monotonic() + 60
    while job.status().done < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    status = job.status()  # the clicks, random, weigh 0: the cross-validation and two effects
    assert status.state == "running" and 1 <= status.done < status.total == FOLDS * REPEATS * 3
    job.cancel()
    assert job.status().state == "cancelled" and not job.directory.exists()
    assert job.process.poll() is not None and job.process.returncode < 0  # ended by a signal, not finished
    with pytest.raises(RuntimeError, match="has not finished"):
        job.result()


def test_bad_input_fails_with_its_message_on_one_line():
    X, y, preferences, names, checks = problem()
    X[0, 0] = np.nan
    job = BackgroundAssessment(X, y, preferences, names, checks, 0.01, 0, gamma=0.4)
    status = job.wait(120)
    assert status.state == "failed" and status.message.startswith("ValueError: Input X contains NaN")
    assert "\n" not in status.message and not job.directory.exists()


def test_a_job_killed_from_outside_says_so_in_words():
    """The process killed by the system (as the out-of-memory killer does): failed, saying it was killed
    and what that often means, not an exit code alone."""
    import os
    import signal

    X, y, preferences, names, checks = problem(n=300, n_labeled=60, n_preferences=1200)  # several seconds
    job = BackgroundAssessment(X, y, preferences, names, checks, 0.01, 0, gamma=0.4)
    os.kill(job.process.pid, signal.SIGKILL)
    status = job.wait(60)
    assert status.state == "failed"
    assert status.message == (
        "the background process ended without a result (it was killed (signal 9): the machine may have run "
        "out of memory); Run again to retry"
    )
