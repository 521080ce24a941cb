"""The order-preference LP against an independent solver, its special cases, and warm re-solves."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics.pairwise import pairwise_kernels

from ordercore import (
    ZERO,
    OrderPreferenceRegressor,
    PreferenceSet,
    SolverError,
    SolverNumericalError,
    solve_order_preference_lp,
)
from ordercore.lp import engine as engine_module
from ordercore.lp import highs as highs_module
from ordercore.lp.engine import IncrementalOrderPreferenceLP
from ordercore.lp.problem import KERNEL_ENTRY_FLOOR
from tests.reference_lp import solve_paper_lp

REL = 1e-7  # the tolerance on objectives


def random_problem(seed, n=40, n_labeled=8, n_preferences=30, unary=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    truth = scale * (np.sin(X[:, 0]) + X[:, 1] ** 2 - 0.5 * X[:, 2])
    y = np.full(n, np.nan)
    labeled = rng.choice(n, n_labeled, replace=False)
    y[labeled] = truth[labeled]
    i = rng.integers(0, n, n_preferences)
    j = (i + rng.integers(1, n, n_preferences)) % n
    margin = rng.uniform(-0.3, 0.6, n_preferences) * scale
    weight = rng.uniform(0.2, 2.0, n_preferences)
    preferences = PreferenceSet(i, j, margin, weight)
    if unary:
        rows = rng.integers(0, n, unary)
        preferences = preferences + PreferenceSet.at_least(rows, truth[rows] - 0.2 * scale)
        preferences = preferences + PreferenceSet.at_most(rows[::-1], truth[rows[::-1]] + 0.1 * scale, 0.5)
    return X, y, truth, preferences


def center_rows(centers, y, preferences):
    """The rows f is expanded over, from the definition: the labeled ones, and with centers='all'
    also every row a preference compares (the ZERO point of a unary preference is no row)."""
    rows = np.flatnonzero(~np.isnan(y))
    if centers == "all":
        rows = np.union1d(rows, np.concatenate([preferences.i, preferences.j]))
    return rows[rows >= 0]


def paper_arrays(X, y, preferences, centers_rows, gamma):
    """The seeds' problem as the independent references take it: (K(centers, centers) (m, m),
    K(x_L, centers) (l, m), y_L (l,), K(x_i, centers), K(x_j, centers) (p, m) with rows of zeros for
    ZERO, margins (p,), weights (p,), alpha_0's coefficient in f_i - f_j (p,)), RBF kernel."""
    kernel = pairwise_kernels(X, X[centers_rows], metric="rbf", gamma=gamma)
    labeled = np.flatnonzero(~np.isnan(y))
    padded = np.vstack([kernel, np.zeros((1, len(centers_rows)))])  # index -1 (ZERO) picks the zero row
    unary = (preferences.i != ZERO).astype(float) - (preferences.j != ZERO)
    return (
        kernel[centers_rows],
        kernel[labeled],
        y[labeled],
        padded[preferences.i],
        padded[preferences.j],
        preferences.margin,
        preferences.weight,
        unary,
    )


def reference_objective(X, y, preferences, centers_rows, lambda1, lambda2, epsilon, gamma):
    """Objective of LP (13) solved by linprog on the same data."""
    _, *data, unary = paper_arrays(X, y, preferences, centers_rows, gamma)
    objective, *_ = solve_paper_lp(*data, lambda1, lambda2, epsilon, unary)
    return objective


def objective_from_predictions(model, X, y, preferences):
    """Objective (9) of the model's own function f, evaluated from its predictions."""
    f = model.predict(X)
    labeled = ~np.isnan(y)
    loss = np.mean(np.maximum(np.abs(y[labeled] - f[labeled]) - model.epsilon, 0))
    hinge = model.lambda2 / max(len(preferences), 1) * preferences.weight @ preferences.violation(f)
    return loss + model.lambda1 * np.abs(model.dual_coef_).sum() + hinge


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("centers", ["labeled", "all"])
def test_optimum_matches_linprog_on_the_paper_lp(seed, centers):
    X, y, _, preferences = random_problem(seed, unary=3 if seed % 2 else 0)
    lambda1, lambda2, epsilon, gamma = [1e-3, 0.05, 0.5][seed % 3], [1.0, 3.0][seed % 2], [0.0, 0.1][seed % 2], 0.4
    model = OrderPreferenceRegressor(
        gamma=gamma, lambda1=lambda1, lambda2=lambda2, epsilon=epsilon, centers=centers
    ).fit(X, y, preferences)
    expected = reference_objective(
        X, y, preferences, center_rows(centers, y, preferences), lambda1, lambda2, epsilon, gamma
    )
    assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
    assert objective_from_predictions(model, X, y, preferences) == pytest.approx(model.objective_, rel=1e-6)


@pytest.mark.parametrize("method", ["dual", "primal"])
def test_the_functional_form_and_both_simplex_methods_reach_the_paper_optimum(method):
    X, y, _, preferences = random_problem(12, unary=2)
    labeled = np.flatnonzero(~np.isnan(y))
    solution = solve_order_preference_lp(
        X,
        labeled,
        y[labeled],
        preferences,
        lambda A, B: pairwise_kernels(A, B, metric="rbf", gamma=0.4),
        lambda1=1e-2,
        lambda2=2.0,
        method=method,
    )
    expected = reference_objective(X, y, preferences, labeled, 1e-2, 2.0, 0.0, 0.4)
    assert solution.objective == pytest.approx(expected, rel=REL)
    assert solution.start == "cold" and solution.center_rows.tolist() == labeled.tolist()


def test_lambda2_zero_is_the_svr_baseline():
    X, y, _, preferences = random_problem(1)
    with_preferences = OrderPreferenceRegressor(gamma=0.4, lambda2=0.0).fit(X, y, preferences)
    without = OrderPreferenceRegressor(gamma=0.4, lambda2=1.0).fit(X, y)
    assert with_preferences.objective_ == pytest.approx(without.objective_, rel=REL)
    labeled = np.flatnonzero(~np.isnan(y))
    kernel = pairwise_kernels(X[labeled], X[labeled], metric="rbf", gamma=0.4)
    expected, *_ = solve_paper_lp(kernel, y[labeled], np.zeros((0, 8)), np.zeros((0, 8)), [], [], 1e-3, 0.0)
    assert without.objective_ == pytest.approx(expected, rel=REL)


def test_svr_interpolates_with_small_lambda1_and_recovers_a_linear_target():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, 2))
    y = 2.0 * X[:, 0] - X[:, 1] + 0.5
    model = OrderPreferenceRegressor(kernel="linear", lambda1=1e-6).fit(X, y)
    assert model.objective_ < 1e-4
    X_new = rng.normal(size=(5, 2))
    np.testing.assert_allclose(model.predict(X_new), 2.0 * X_new[:, 0] - X_new[:, 1] + 0.5, atol=1e-3)


def hard(preferences):
    """The preferences with weight high enough that the optimum satisfies them."""
    return PreferenceSet(preferences.i, preferences.j, preferences.margin, 1e4)


ENCODINGS = [
    (lambda: PreferenceSet.order(5, 6, 0.7), lambda f: f[5] - f[6] >= 0.7 - 1e-6),
    (lambda: PreferenceSet.equal(5, 6), lambda f: abs(f[5] - f[6]) <= 1e-6),
    (lambda: PreferenceSet.close(5, 6, 0.05), lambda f: abs(f[5] - f[6]) <= 0.05 + 1e-6),
    (lambda: PreferenceSet.between(5, 6, 0.3, 0.4), lambda f: 0.3 - 1e-6 <= f[5] - f[6] <= 0.4 + 1e-6),
    (lambda: PreferenceSet.at_least(5, 3.0), lambda f: f[5] >= 3.0 - 1e-6),
    (lambda: PreferenceSet.at_most(5, -2.0), lambda f: f[5] <= -2.0 + 1e-6),
    (lambda: PreferenceSet.exactly(5, 1.25), lambda f: abs(f[5] - 1.25) <= 1e-6),
]
"""Each encoding of PreferenceSet between rows 5 and 6 (or row 5 and ZERO), and what holding it means."""


@pytest.mark.parametrize("encoding, holds", ENCODINGS)
def test_each_encoding_holds_at_the_optimum(encoding, holds):
    X, y, _, _ = random_problem(7, n_labeled=5)
    y[5] = y[6] = np.nan
    plain = OrderPreferenceRegressor(gamma=0.4, lambda1=1e-4, centers="all").fit(X, y)
    assert not holds(plain.predict(X))  # the encoding has work to do
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=1e-4, centers="all").fit(X, y, hard(encoding()))
    assert holds(model.predict(X))
    assert model.n_violated_ == 0


def test_violation_counts_match_predictions():
    X, y, _, preferences = random_problem(2, n_preferences=60)
    model = OrderPreferenceRegressor(gamma=0.4, lambda2=0.0).fit(X, y, preferences)
    shortfall = preferences.violation(model.predict(X))
    np.testing.assert_allclose(model.violation_, shortfall, atol=1e-8)
    assert model.n_violated_ == np.count_nonzero(shortfall > 1e-6 * np.std(y[~np.isnan(y)]))
    assert 0 < model.n_violated_ < len(preferences)
    # the same test for preferences not in force, e.g. SVR fitted without them
    plain = OrderPreferenceRegressor(gamma=0.4, lambda2=0.0).fit(X, y)
    np.testing.assert_array_equal(plain.violated(preferences), model.violated(preferences))
    assert plain.violated(preferences).sum() == model.n_violated_


@pytest.mark.parametrize("scale", [1e-3, 1.0, 3e5])
def test_target_scale_does_not_change_the_solution(scale):
    X, y, _, preferences = random_problem(4, unary=2)
    base = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)
    scaled_preferences = PreferenceSet(preferences.i, preferences.j, scale * preferences.margin, preferences.weight)
    scaled = OrderPreferenceRegressor(gamma=0.4, lambda1=1e-3).fit(X, scale * y, scaled_preferences)
    assert scaled.objective_ == pytest.approx(scale * base.objective_, rel=1e-7)
    np.testing.assert_allclose(scaled.predict(X), scale * base.predict(X), rtol=1e-5, atol=1e-6 * scale)


def warm_edits(model, preferences, first, batch, removed, rng):
    """Six warm edits of ``model``, fitted on preferences[:first]: steps 2 and 5 remove ``removed``
    random preferences, the others add the next ``batch`` (step 4 re-adds three earlier ones).
    Yields the preferences in force after each edit."""
    current = preferences[:first]
    for step in range(6):
        if step % 3 == 2:
            positions = rng.choice(len(current), removed, replace=False)
            model.remove_preferences(positions)
            keep = np.ones(len(current), bool)
            keep[positions] = False
            current = current[keep]
        else:
            new = (
                preferences[first + batch * step : first + batch * (step + 1)] if step < 4 else preferences[[3, 5, 70]]
            )
            model.add_preferences(new)
            current = current + new
        yield current


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("centers", ["labeled", "all"])
def test_warm_re_solves_reach_the_cold_optimum(seed, centers):
    X, y, _, preferences = random_problem(100 + seed, n=60, n_preferences=80, unary=2 * (seed % 2))
    rng = np.random.default_rng(seed)
    model = OrderPreferenceRegressor(gamma=0.3, centers=centers).fit(X, y, preferences[:40])
    for current in warm_edits(model, preferences, 40, 10, 3, rng):
        cold = OrderPreferenceRegressor(gamma=0.3, centers=centers).fit(X, y, current)
        assert model.preferences_ == current
        assert model.objective_ == pytest.approx(cold.objective_, rel=REL)
        # the LP's optimum may be a face, so compare what the warm function achieves, not f itself
        assert objective_from_predictions(model, X, y, current) == pytest.approx(cold.objective_, rel=1e-6)
    assert model.solve_start_ in ("hot", "kept")


def test_undo_of_the_last_preference_restores_the_previous_fit():
    X, y, _, preferences = random_problem(9)
    model = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)
    before = model.objective_, model.predict(X)
    model.add_preferences(PreferenceSet.order(0, 1, 2.0))
    assert model.objective_ > before[0]
    model.remove_preferences(-1)
    assert model.objective_ == pytest.approx(before[0], rel=REL)
    np.testing.assert_allclose(model.predict(X), before[1], atol=1e-6)


def test_a_failed_certificate_falls_back_to_a_cold_solve(monkeypatch):
    monkeypatch.setattr(engine_module, "basic_solution", lambda problem, basis: None)  # make HiGHS pivot
    X, y, _, preferences = random_problem(11)
    model = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences[:20])
    cold = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)
    original = highs_module.HighsDualLP.solve
    calls = []

    def wrong_first_hot_start(self, iteration_limit=None, time_limit=None):
        """The first solve claims optimality with a wrong objective; later ones are honest."""
        result = original(self, iteration_limit, time_limit)
        calls.append(result)
        if len(calls) > 1:
            return result
        return highs_module.HighsResult(
            result.column_value,
            result.row_value,
            result.row_dual,
            result.objective * 0.9,
            result.iterations,
            result.seconds,
        )

    monkeypatch.setattr(highs_module.HighsDualLP, "solve", wrong_first_hot_start)
    model.add_preferences(preferences[20:])
    assert len(calls) == 2 and model.solve_start_ == "cold"
    assert model.objective_ == pytest.approx(cold.objective_, rel=REL)


def test_kernel_entries_below_highs_default_are_kept():
    """Two nearby points: their kernel differences lie between 1e-12 and HiGHS's default 1e-9."""
    X = np.array([[0.0], [1.0], [2.0], [1.5], [1.5 + 1e-9]])
    y = np.array([0.0, 1.0, 0.0, np.nan, np.nan])
    lp = IncrementalOrderPreferenceLP(
        X, np.arange(3), y[:3], lambda A, B: pairwise_kernels(A, B, metric="rbf", gamma=0.5), lambda1=1e-3, lambda2=1.0
    )
    lp.solve_cold(PreferenceSet.order(3, 4, 0.0))
    difference = lp._highs.matrix()[1:, -1].toarray().ravel()
    assert np.all((np.abs(difference) > KERNEL_ENTRY_FLOOR) & (np.abs(difference) < 1e-9))


def test_time_limit_raises_a_clear_error():
    from ordercore import SolverTimeLimitError

    X, y, _, preferences = random_problem(5, n=300, n_labeled=150, n_preferences=3000)
    with pytest.raises(SolverTimeLimitError, match="time_limit"):
        OrderPreferenceRegressor(gamma=0.3, time_limit=1e-9).fit(X, y, preferences)


class SteppingClock:
    """A perf_counter that moves ``step`` seconds on every reading."""

    def __init__(self, step):
        self.now, self.step = 0.0, step

    def perf_counter(self):
        self.now += self.step
        return self.now


def test_time_limit_bounds_the_whole_solve_and_keeps_the_last_fit(monkeypatch):
    """The limit covers every round of pricing, not only each HiGHS run: with a clock that moves
    10 s per reading and time_limit=15, the edit stops at a round's check (HiGHS never sees its own
    limit pass), the last fit stays in force, and the next edit reaches the cold optimum."""
    from ordercore import SolverTimeLimitError
    from ordercore.lp import deadline as deadline_module

    X, y, _, preferences = random_problem(5, n=300, n_labeled=30, n_preferences=3000)
    model = OrderPreferenceRegressor(gamma=0.3, time_limit=15.0).fit(X, y, preferences[:50])
    before = model.predict(X)
    given = []
    original = highs_module.HighsDualLP.solve

    def solve(self, iteration_limit=None, time_limit=None):
        given.append(time_limit)
        return original(self, iteration_limit, time_limit)

    monkeypatch.setattr(highs_module.HighsDualLP, "solve", solve)
    monkeypatch.setattr(deadline_module, "time", SteppingClock(10.0))
    with pytest.raises(SolverTimeLimitError, match="time_limit=15"):
        model.add_preferences(preferences[50:])
    assert model.preferences_ == preferences[:50]
    np.testing.assert_array_equal(model.predict(X), before)
    assert given and all(0 < seconds <= 15.0 for seconds in given)  # HiGHS gets what is left
    monkeypatch.undo()
    model.add_preferences(preferences[50:])
    cold = OrderPreferenceRegressor(gamma=0.3).fit(X, y, preferences)
    assert model.objective_ == pytest.approx(cold.objective_, rel=REL)


def failing_solves(monkeypatch, n_failures):
    """Make the first ``n_failures`` HiGHS solves report a status that is not optimal."""
    original = highs_module.HighsDualLP.solve
    calls = []

    def solve(self, iteration_limit=None, time_limit=None):
        calls.append(self)
        if len(calls) <= n_failures:
            raise SolverError("HiGHS did not reach the optimum (status: Unknown)")
        return original(self, iteration_limit, time_limit)

    monkeypatch.setattr(highs_module.HighsDualLP, "solve", solve)
    return calls


def test_a_cold_solve_that_fails_is_retried_with_other_settings(monkeypatch):
    X, y, _, preferences = random_problem(13)
    expected = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences).objective_
    calls = failing_solves(monkeypatch, 2)
    model = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)
    assert len(calls) == 3 and model.objective_ == pytest.approx(expected, rel=REL)


def test_when_every_attempt_fails_the_error_says_so(monkeypatch):
    X, y, _, preferences = random_problem(13)
    failing_solves(monkeypatch, 99)
    with pytest.raises(SolverNumericalError, match="no certified optimum after 3 attempts"):
        OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)


@pytest.mark.parametrize("centers", ["labeled", "all"])
def test_warm_start_over_lambda1_and_lambda2_reaches_the_cold_optimum(centers):
    X, y, _, preferences = random_problem(14, n_preferences=60)
    model = OrderPreferenceRegressor(gamma=0.3, centers=centers, warm_start=True)
    starts = []
    for lambda1 in (1e-1, 1e-2, 1e-3):
        for lambda2 in (0.3, 1.0, 3.0):
            model.set_params(lambda1=lambda1, lambda2=lambda2).fit(X, y, preferences)
            starts.append(model.solve_start_)
            cold = OrderPreferenceRegressor(gamma=0.3, centers=centers, lambda1=lambda1, lambda2=lambda2)
            assert model.objective_ == pytest.approx(cold.fit(X, y, preferences).objective_, rel=REL)
    assert starts[0] == "cold" and set(starts[1:]) <= {"hot", "kept"}


def test_warm_start_solves_cold_when_anything_but_the_lambdas_changed():
    X, y, _, preferences = random_problem(15)
    model = OrderPreferenceRegressor(gamma=0.3, warm_start=True).fit(X, y, preferences)
    assert model.set_params(lambda2=2.0).fit(X, y, preferences).solve_start_ != "cold"
    assert model.fit(X, y, preferences[:-1]).solve_start_ == "cold"  # other preferences
    model.add_preferences(preferences[-1:])  # now the set in force equals `preferences` again
    assert model.set_params(lambda2=1.0).fit(X, y, preferences).solve_start_ != "cold"
    X_changed = X.copy()
    X_changed[0, 0] += 1.0
    assert model.fit(X_changed, y, preferences).solve_start_ == "cold"
    assert model.set_params(gamma=0.5).fit(X_changed, y, preferences).solve_start_ == "cold"
    X_changed[0, 0] += 1.0  # mutating the caller's array after fit must not pass as the same data
    assert model.fit(X_changed, y, preferences).solve_start_ == "cold"


def test_a_hot_start_that_fails_falls_back_to_a_cold_solve(monkeypatch):
    monkeypatch.setattr(engine_module, "basic_solution", lambda problem, basis: None)  # make HiGHS pivot
    X, y, _, preferences = random_problem(16)
    model = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences[:20])
    calls = failing_solves(monkeypatch, 1)  # the hot start reports status Unknown
    model.add_preferences(preferences[20:])
    assert len(calls) == 2 and model.solve_start_ == "cold"
    cold = OrderPreferenceRegressor(gamma=0.4).fit(X, y, preferences)
    assert model.objective_ == pytest.approx(cold.objective_, rel=REL)


def test_fits_after_the_users_own_highs_started_the_thread_scheduler(tmp_path):
    """HiGHS has one thread scheduler per process, started by its first run.  A program that ran
    highspy with its default threads before fitting got 'HiGHS refused run' from every fit; in a
    fresh interpreter where that happens first, the fit now gives the predictions it gives here."""
    import subprocess
    import sys

    X, y, _, preferences = random_problem(1, n=30, n_labeled=10, n_preferences=20)
    expected = OrderPreferenceRegressor(gamma=0.5).fit(X, y, preferences).predict(X)
    script = (
        "import highspy, sys, numpy as np\n"
        "h = highspy.Highs(); h.setOptionValue('output_flag', False)\n"
        "h.addVar(0, 1); h.changeColCost(0, 1.0); assert h.run() == highspy.HighsStatus.kOk\n"
        "from tests.test_lp import random_problem\n"
        "from ordercore import OrderPreferenceRegressor\n"
        "X, y, _, p = random_problem(1, n=30, n_labeled=10, n_preferences=20)\n"
        "np.save(sys.argv[1], OrderPreferenceRegressor(gamma=0.5).fit(X, y, p).predict(X))\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    out = tmp_path / "predictions.npy"
    done = subprocess.run(
        [sys.executable, "-c", script, str(out)], capture_output=True, text=True, cwd=root, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    np.testing.assert_allclose(np.load(out), expected, atol=1e-6)


def test_text_labels_are_refused_naming_y():
    """A second corpus' UC4: numpy's 'could not convert string to float' did not say it was y."""
    X = np.arange(60.0).reshape(30, 2)
    with pytest.raises(ValueError, match="^y must hold numbers \\(labels; NaN marks an unlabeled row\\): could not"):
        OrderPreferenceRegressor().fit(X, ["a"] * 30)


def test_a_gamma_that_overflows_the_rbf_exponent_is_refused_without_a_warning():
    """The first corpus' U7 at the library: gamma = 1e308 let scikit-learn print 'overflow encountered in
    multiply'; 1e308 times a squared distance of about 43 overflows (float64 ends near 1.8e308)."""
    X = np.random.default_rng(0).normal(size=(30, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="^gamma = 1e\\+308 is too large for the 'rbf' kernel over X"):
            OrderPreferenceRegressor(gamma=1e308).fit(X, X[:, 0])
        OrderPreferenceRegressor(gamma=1e3).fit(X, X[:, 0])  # large, and fine
