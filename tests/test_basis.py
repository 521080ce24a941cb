"""The kept-basis shortcut (ordercore/lp/basis.py) against HiGHS on the same edits."""

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.lp import engine as engine_module
from ordercore.lp.basis import Basis, basic_solution
from ordercore.lp.highs import HighsDualLP
from tests.test_lp import objective_from_predictions, random_problem


def fitted(seed=21, n_preferences=60):
    X, y, truth, preferences = random_problem(seed, n=50, n_preferences=n_preferences)
    return X, y, truth, preferences, OrderPreferenceRegressor(gamma=0.3).fit(X, y, preferences)


def test_the_kept_basis_reproduces_highs_point_on_the_unchanged_problem():
    *_, model = fitted()
    basis = model._lp._basis
    x, row_value = basic_solution(model._lp.problem, basis)
    np.testing.assert_allclose(x, basis.column_value, atol=1e-12)
    np.testing.assert_allclose(row_value, basis.row_value, atol=1e-12)


def test_whenever_the_shortcut_answers_it_is_feasible_and_optimal():
    *_, model = fitted()
    problem, basis = model._lp.problem, model._lp._basis
    original = problem.preference_upper.copy()
    answered = []
    for factor in [0.5, 0.9, 0.98, 0.995, 1.0, 1.005, 1.02, 1.1, 2.0, 5.0]:
        problem.preference_upper = factor * original
        kept = basic_solution(problem, basis)
        answered.append(kept is not None)
        if kept is None:
            continue
        x = kept[0]
        lower, upper = problem.column_bounds()
        row_lower, row_upper = problem.row_bounds()
        activity = np.hstack([problem.labeled, problem.preference]) @ x
        assert np.all(x >= lower) and np.all(x <= upper)
        assert np.all(activity >= row_lower - 1e-9) and np.all(activity <= row_upper + 1e-9)
        optimum = HighsDualLP(problem).solve().objective  # independent cold solve of the changed LP
        assert problem.cost() @ x == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert any(answered) and not all(answered)


def test_a_preference_that_changes_nothing_keeps_the_basis_and_the_function():
    X, y, _, preferences, model = fitted(n_preferences=400)  # large p: the boxes shrink by only 0.25%
    f_before = model.predict(X)
    slack = f_before[3] - f_before[4]
    extra = PreferenceSet.order(3, 4, slack - 5.0)  # satisfied with room to spare
    model.add_preferences(extra)
    assert model.solve_start_ == "kept" and model.n_iter_ == 0
    np.testing.assert_allclose(model.predict(X), f_before, atol=1e-10)  # same basis, same alpha
    cold = OrderPreferenceRegressor(gamma=0.3).fit(X, y, preferences + extra)
    assert model.objective_ == pytest.approx(cold.objective_, rel=1e-9)


def test_a_strongly_violated_heavy_preference_makes_highs_pivot():
    X, y, truth, preferences, model = fitted()
    model.add_preferences(PreferenceSet.order(3, 4, 50.0, 200.0))
    assert model.solve_start_ == "hot" and model.n_iter_ > 0
    cold = OrderPreferenceRegressor(gamma=0.3).fit(X, y, model.preferences_)
    assert model.objective_ == pytest.approx(cold.objective_, rel=1e-7)


def test_a_wrong_candidate_cannot_pass_the_certificate(monkeypatch):
    X, y, _, preferences, model = fitted()
    monkeypatch.setattr(
        engine_module,
        "basic_solution",
        lambda problem, basis: (np.zeros(problem.cost().size), np.zeros(problem.labeled.shape[0])),
    )
    model.add_preferences(PreferenceSet.order(1, 2, -10.0))
    assert model.solve_start_ == "hot"
    cold = OrderPreferenceRegressor(gamma=0.3).fit(X, y, model.preferences_)
    assert model.objective_ == pytest.approx(cold.objective_, rel=1e-7)


@pytest.mark.parametrize("seed", range(5))
def test_random_edit_sequences_take_both_paths_and_stay_optimal(seed):
    X, y, truth, preferences = random_problem(300 + seed, n=70, n_preferences=120)
    rng = np.random.default_rng(seed)
    model = OrderPreferenceRegressor(gamma=0.3).fit(X, y, preferences[:60])
    starts = []
    for step in range(25):
        if step % 4 == 3:
            model.remove_preferences(rng.integers(len(model.preferences_)))
        else:
            model.add_preferences(preferences[60 + step : 61 + step])
        starts.append(model.solve_start_)
        cold = OrderPreferenceRegressor(gamma=0.3).fit(X, y, model.preferences_)
        assert model.objective_ == pytest.approx(cold.objective_, rel=1e-7)
        assert objective_from_predictions(model, X, y, model.preferences_) == pytest.approx(cold.objective_, rel=1e-6)
    assert "kept" in starts and "hot" in starts


def test_removing_columns_remaps_the_basis_and_refuses_basic_ones():
    basis = Basis(
        basic=np.array([5, -1, 2]),
        column_value=np.arange(7.0),
        column_upper=np.full(7, 9.0),
        row_value=np.zeros(3),
        row_dual=np.zeros(3),
    )
    smaller = basis.without_columns(np.array([0, 3]))
    np.testing.assert_array_equal(smaller.basic, [3, -1, 1])
    np.testing.assert_array_equal(smaller.column_value, [1.0, 2.0, 4.0, 5.0, 6.0])
    assert basis.without_columns(np.array([2])) is None
