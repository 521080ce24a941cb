"""The lambda path warm-started member to member (``OrderPreferenceRegressor.branch``,
``lp.average.fit_lambda_path``) against cold fits of each setting and linprog's optimum, through the
working set (OUT and FIXED preferences, unary ones) and with lambda1 and lambda2 moving both ways."""

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_limits

from ordercore import OrderPreferenceRegressor
from ordercore.lp import AveragedOrderPreferenceRegressor, working_set
from ordercore.lp.average import fit_lambda_path, one_blas_thread
from ordercore.lp.working_set import FIXED, OUT
from tests.test_lp import REL, center_rows, reference_objective
from tests.test_lp_working_set import problem_with

PATH = ((0.1, 2.0), (0.1, 0.5), (0.1, 6.0), (0.05, 6.0), (0.1, 1.0), (0.1, 30.0))
"""lambda2 down, up, lambda1 down, both changed (lambda1 up, lambda2 down), lambda2 up thirtyfold.  None puts
alpha at 0, where the intercept (a median of an even number of labels) is not unique."""


@pytest.fixture
def tiny_working_set(monkeypatch):
    """Pricing from the first preference, batches of 7 columns, set-asides above 10 columns."""
    monkeypatch.setattr(working_set, "WORKING_SET_MIN", 0)
    monkeypatch.setattr(working_set, "ENTRY_BATCH", 7)
    monkeypatch.setattr(working_set, "EVICTION_SIZE", 10)


def cold(X, y, preferences, lambda1, lambda2, centers):
    return OrderPreferenceRegressor(gamma=0.4, lambda1=lambda1, lambda2=lambda2, centers=centers).fit(X, y, preferences)


def assert_same_fit(model, expected, X):
    assert model.objective_ == pytest.approx(expected.objective_, rel=REL, abs=1e-9)
    scale = np.abs(expected.predict(X)).max()
    np.testing.assert_allclose(model.predict(X), expected.predict(X), rtol=0, atol=1e-8 * scale)


@pytest.mark.parametrize(("seed", "margins", "unary"), [(0, "mixed", 0), (1, "mixed", 15), (2, "violated", 0)])
@pytest.mark.parametrize("centers", ["labeled", "all"])
def test_each_member_branched_from_the_last_is_its_cold_fit(seed, margins, unary, centers, tiny_working_set):
    X, y, preferences = problem_with(seed, margins, unary=unary)
    model = cold(X, y, preferences, *PATH[0], centers)
    state = model._lp.working.state
    assert (state == FIXED).any() and (margins == "violated" or (state == OUT).any())  # the working set ran
    starts = []
    for lambda1, lambda2 in PATH[1:]:
        before = model.predict(X)
        branched = model.branch(lambda1, lambda2)
        np.testing.assert_array_equal(model.predict(X), before)  # the one branched from is left as it was
        assert (branched.lambda1, branched.lambda2) == (lambda1, lambda2)
        expected = cold(X, y, preferences, lambda1, lambda2, centers)
        assert_same_fit(branched, expected, X)
        rows = center_rows(centers, y, preferences)
        linprog = reference_objective(X, y, preferences, rows, lambda1, lambda2, 0.0, 0.4)
        assert branched.objective_ == pytest.approx(linprog, rel=REL, abs=1e-9)
        starts.append(branched.solve_start_)
        model = branched
    assert "cold" not in starts  # every member started from the one before


def test_a_branched_member_re_solves_warm_on_its_own(tiny_working_set):
    X, y, preferences = problem_with(4, "mixed", n_preferences=160)
    first = cold(X, y, preferences[:120], 0.1, 2.0, "labeled")
    second = first.branch(0.1, 8.0)
    second.add_preferences(preferences[120:])
    first.add_preferences(preferences[120:140])
    assert second.solve_start_ != "cold" and first.solve_start_ != "cold"
    assert_same_fit(second, cold(X, y, preferences, 0.1, 8.0, "labeled"), X)
    assert_same_fit(first, cold(X, y, preferences[:140], 0.1, 2.0, "labeled"), X)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_path_is_the_cold_fits_of_its_settings(workers, tiny_working_set):
    """workers=2 starts from the middle setting and walks both ways in two threads."""
    X, y, preferences = problem_with(5, "mixed", unary=10)
    members = fit_lambda_path(X, y, preferences, PATH, gamma=0.4, workers=workers)
    assert [(m.lambda1, m.lambda2) for m in members] == list(PATH)
    for member, setting in zip(members, PATH, strict=True):
        assert_same_fit(member, cold(X, y, preferences, *setting, "labeled"), X)


SETTINGS, WEIGHTS = ((0.03, 0.0), (0.01, 3.0), (0.01, 0.3), (0.01, 1.0)), (0.1, 0.3, 0.3, 0.3)


def cold_blend(X, y, preferences) -> np.ndarray:
    """The blend's predictions (n,) from cold fits of each member, SVR's without preferences."""
    expected = WEIGHTS[0] * cold(X, y, None, *SETTINGS[0], "labeled").predict(X)
    for weight, setting in zip(WEIGHTS[1:], SETTINGS[1:], strict=True):
        expected += weight * cold(X, y, preferences, *setting, "labeled").predict(X)
    return expected


def test_a_click_and_an_undo_on_the_blend_are_cold_fits_of_the_blend(tiny_working_set):
    """The members fitted along the path (in an order other than the settings'), then one preference
    added, then three taken back: each time the blend of cold fits of its members."""
    X, y, preferences = problem_with(6, "mixed", n_preferences=121, unary=6)
    blend = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=WEIGHTS, gamma=0.4)
    blend.fit(X, y, preferences[:-1]).update_preferences(preferences)
    assert [(m.lambda1, m.lambda2) for m in blend.members_] == list(SETTINGS)
    for current in (preferences, preferences[:-3]):
        blend.update_preferences(current)
        assert all(member.preferences_ == current for member in blend.members_[1:])
        expected = cold_blend(X, y, current)
        np.testing.assert_allclose(blend.predict(X), expected, rtol=0, atol=1e-8 * np.abs(expected).max())


def blas_threads() -> set[int]:
    """The threads each BLAS library loaded in this process would use now (threadpoolctl's own reading)."""
    return {library["num_threads"] for library in ThreadpoolController().select(user_api="blas").info()}


def test_the_path_and_a_click_run_blas_on_one_thread_and_give_it_back(monkeypatch, tiny_working_set):
    """Every member with preferences is solved (fitted, branched, re-solved on a click) with BLAS on one
    thread; afterwards BLAS has its threads again, also when two such calls overlap: the first to leave
    does not give them back under the other."""
    X, y, preferences = problem_with(7, "mixed", n_preferences=121)
    seen, set_solution = [], OrderPreferenceRegressor._set_solution

    def recording(self, solution):
        if self.lambda2 > 0:
            seen.append(blas_threads())
        set_solution(self, solution)

    monkeypatch.setattr(OrderPreferenceRegressor, "_set_solution", recording)
    with threadpool_limits(2, user_api="blas"):
        if blas_threads() != {2}:
            pytest.skip("BLAS does not take two threads here")
        fit_lambda_path(X, y, preferences[:-1], SETTINGS[1:], gamma=0.4, workers=2)
        assert len(seen) == 3 and blas_threads() == {2}
        blend = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=WEIGHTS, gamma=0.4)
        blend.fit(X, y, preferences[:-1]).update_preferences(preferences)
        assert len(seen) == 9 and all(threads == {1} for threads in seen) and blas_threads() == {2}
        first, second = one_blas_thread(), one_blas_thread()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert blas_threads() == {1}
        second.__exit__(None, None, None)
        assert blas_threads() == {2}
