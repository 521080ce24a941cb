"""The LP's working set (ordercore/lp/working_set.py) against all-at-once solves and linprog.

The working set only starts above 2,000 preferences; here its thresholds are shrunk so that small
problems, which linprog solves independently, go through every branch: preferences left out,
folded in at their upper bound, let back in, and set aside again.
"""

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.lp import highs as highs_module
from ordercore.lp import working_set
from ordercore.lp.working_set import FIXED, OUT, WORKING
from tests.test_lp import REL, center_rows, objective_from_predictions, random_problem, reference_objective, warm_edits


@pytest.fixture
def tiny_working_set(monkeypatch):
    """Pricing from the first preference, batches of 7 columns, set-asides above 10 columns."""
    monkeypatch.setattr(working_set, "WORKING_SET_MIN", 0)
    monkeypatch.setattr(working_set, "ENTRY_BATCH", 7)
    monkeypatch.setattr(working_set, "EVICTION_SIZE", 10)


def problem_with(seed, margins: str, n_preferences=120, unary=0):
    """A random problem whose margins leave most preferences inactive ('slack': d < 0 by far) or
    violated at the optimum ('violated': d far above any fit), or a mix; ``unary``: also that many
    f(x) >= g and f(x) <= g pairs against the constant 0."""
    X, y, truth, preferences = random_problem(seed, n=50, n_preferences=n_preferences, unary=unary)
    rng = np.random.default_rng(seed)
    low, high = {"slack": (-6.0, -2.0), "violated": (3.0, 8.0), "mixed": (-1.0, 1.5)}[margins]
    margin = rng.uniform(low, high, len(preferences))
    return X, y, PreferenceSet(preferences.i, preferences.j, margin, preferences.weight)


def fit(X, y, preferences, centers="labeled", lambda1=0.1):
    return OrderPreferenceRegressor(gamma=0.4, lambda1=lambda1, lambda2=2.0, centers=centers).fit(X, y, preferences)


@pytest.mark.parametrize("margins", ["slack", "violated", "mixed"])
@pytest.mark.parametrize(("seed", "unary"), [(0, 0), (1, 0), (2, 0), (3, 15)])
def test_the_working_set_reaches_the_optimum_of_linprog_and_of_all_at_once(margins, seed, unary, monkeypatch):
    X, y, preferences = problem_with(seed, margins, unary=unary)
    whole = fit(X, y, preferences)  # 120 <= WORKING_SET_MIN: every preference a column
    monkeypatch.setattr(working_set, "WORKING_SET_MIN", 0)
    monkeypatch.setattr(working_set, "ENTRY_BATCH", 7)
    monkeypatch.setattr(working_set, "EVICTION_SIZE", 10)
    model = fit(X, y, preferences)
    state = model._lp.working.state
    # the machinery ran: preferences stayed out or were folded in at their upper bound
    assert {"slack": [OUT], "violated": [FIXED], "mixed": [OUT, FIXED]}[margins] == sorted(set(state) - {WORKING})
    labeled = np.flatnonzero(~np.isnan(y))
    expected = reference_objective(X, y, preferences, labeled, 0.1, 2.0, 0.0, 0.4)
    assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
    assert model.objective_ == pytest.approx(whole.objective_, rel=REL, abs=1e-9)
    assert objective_from_predictions(model, X, y, preferences) == pytest.approx(expected, rel=1e-6, abs=1e-9)
    np.testing.assert_array_equal(model.violated_, whole.violated_)


@pytest.mark.parametrize(("centers", "lambda1"), [("labeled", 0.1), ("all", 0.1), ("all", 0.02)])
def test_warm_edits_through_the_working_set_reach_the_cold_optimum(centers, lambda1, tiny_working_set):
    """Adds and removes (with centers='all' they add and delete rows too) against linprog; with
    lambda1 = 0.02 the new centers' alpha is nonzero, so the fixed preferences' share of their rows
    matters."""
    X, y, preferences = problem_with(7, "mixed", n_preferences=160)
    rng = np.random.default_rng(7)
    model = fit(X, y, preferences[:60], centers, lambda1)
    fixed_seen = False
    for current in warm_edits(model, preferences, 60, 25, 15, rng):
        expected = reference_objective(X, y, current, center_rows(centers, y, current), lambda1, 2.0, 0.0, 0.4)
        assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
        assert model.preferences_ == current
        fixed_seen |= (model._lp.working.state == FIXED).any()
    assert model.solve_start_ in ("hot", "kept") and fixed_seen


def test_fixing_that_fails_lets_the_preferences_in_as_columns(tiny_working_set, monkeypatch):
    """If the LP with newly fixed preferences fails (it could be infeasible), they come in as columns
    and the optimum is still linprog's."""
    X, y, preferences = problem_with(3, "violated")
    real_solve = highs_module.HighsDualLP.solve
    calls = {"failed": 0}

    def solve_failing_after_a_fix(self, iteration_limit=None, time_limit=None):
        lp = self_engine[0]
        if lp.working is not None and (lp.working.state == FIXED).any() and not calls["failed"]:
            calls["failed"] += 1
            raise highs_module.InfeasibleLPError("HiGHS called the dual LP infeasible (injected)")
        return real_solve(self, iteration_limit, time_limit)

    self_engine = []
    monkeypatch.setattr(highs_module.HighsDualLP, "solve", solve_failing_after_a_fix)
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=0.1, lambda2=2.0)
    original_new_lp = model._new_lp

    def new_lp(X_, y_):
        lp = original_new_lp(X_, y_)
        self_engine.append(lp)
        return lp

    monkeypatch.setattr(model, "_new_lp", new_lp)
    model.fit(X, y, preferences)
    assert calls["failed"] == 1 and model._lp.working.comebacks.any()
    labeled = np.flatnonzero(~np.isnan(y))
    expected = reference_objective(X, y, preferences, labeled, 0.1, 2.0, 0.0, 0.4)
    assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)


def test_a_column_that_came_back_k_times_waits_2_to_the_k_pricings_at_its_bound(monkeypatch):
    """Hand-counted: above the size threshold, a never-returned column at a bound leaves at its
    first pricing there, one that came back once at its second, twice at its fourth."""
    monkeypatch.setattr(working_set, "EVICTION_SIZE", 0)
    working = working_set.WorkingSet.start(3, 1)
    working.state[:], working.working = WORKING, np.arange(3)
    working.comebacks[:] = [0, 1, 2]
    value, upper, shortfall = np.zeros(3), np.ones(3), np.full(3, -1.0)  # all at 0, priced there
    left = []
    for _ in range(4):
        to_out, to_fixed = working.at_bounds(value, upper, shortfall, 1)
        left.append(to_out.tolist())
        assert not to_fixed.size
    assert left == [[0], [0, 1], [0, 1], [0, 1, 2]]
    working.at_bounds(np.array([0.0, 0.5, 0.0]), upper, shortfall, 1)  # column 1 left its bound
    assert working.rounds_at_bound.tolist() == [5, 0, 5]
