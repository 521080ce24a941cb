"""Tests that kill issue 32's surviving mutants in the LP and QP solvers, each against something
independent of the code under test: the dual point of the 2-norm QP (ordercore/lp/two_norm_qp.py)
checked against its constraints written out and against the optimum of scipy's SLSQP on the primal
of a tiny problem; the working set's anti-cycling guard (ordercore/lp/working_set.py) against its
documented rule, counted by hand."""

import numpy as np
import pytest
from scipy.optimize import minimize

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.lp import working_set
from ordercore.lp.two_norm_qp import HingeQP, solve_hinge_qp
from ordercore.lp.working_set import OUT, WorkingSet
from tests.test_lp import REL, random_problem, reference_objective


def tiny_qp(regularization=0.5) -> HingeQP:
    """lambda v^2 + sum_k c_k max(t_k - z_k v - e_k b, 0) over (v, b) in R^2: three hinges, two of
    alpha_0's sign +1 and one of -1, so that e^T beta = 0 binds."""
    Z = np.array([[1.0], [0.5], [-1.0]])
    e = np.array([1.0, 1.0, -1.0])
    t = np.array([1.0, 0.5, 0.2])
    c = np.array([1.0, 0.6, 0.8])
    return HingeQP(Z, e, t, c, regularization)


def slsqp_optimum(qp: HingeQP) -> float:
    """The primal optimum by scipy's SLSQP on the smooth form: min lambda |v|^2 + c^T xi subject to
    xi >= t - Z v - e b, xi >= 0 (no code shared with the interior point)."""
    n, r = qp.Z.shape

    def objective(x):
        return qp.regularization * x[:r] @ x[:r] + qp.c @ x[r + 1 :]

    constraints = [
        {"type": "ineq", "fun": lambda x: x[r + 1 :] - (qp.t - qp.Z @ x[:r] - qp.e * x[r])},
        {"type": "ineq", "fun": lambda x: x[r + 1 :]},
    ]
    start = np.concatenate([np.zeros(r + 1), np.maximum(qp.t, 0) + 1])
    result = minimize(objective, start, constraints=constraints, method="SLSQP", options={"ftol": 1e-14})
    assert result.success
    return float(result.fun)


def assert_dual_feasible(qp: HingeQP, beta: np.ndarray) -> None:
    """The dual's constraints written out: 0 <= beta <= c and e^T beta = 0."""
    assert beta is not None
    assert np.all(beta >= -1e-12), f"beta below 0: {beta}"
    assert np.all(beta <= qp.c + 1e-12), f"beta above c = {qp.c}: {beta}"
    assert abs(qp.e @ beta) <= 1e-12, f"e^T beta = {qp.e @ beta}"


def test_feasible_dual_by_hand():
    """beta = (0.9, 0.1, 0.2): e^T beta = 0.8 > 0, so the rows with e = +1 give up beta_k in
    proportion to their room beta_k (0.9, 0.1) and the row with e = -1 takes up c - beta = 0.6; the
    rooms total 1.6, each moves by room * 0.8 / 1.6 = room / 2: (0.45, 0.05, 0.5)."""
    qp = tiny_qp()
    np.testing.assert_allclose(qp.feasible_dual(np.array([0.9, 0.1, 0.2])), [0.45, 0.05, 0.5], atol=1e-15)
    # e^T beta = 0.15 - 0.75 = -0.6 < 0: the e = +1 rows take up (0.9, 0.55), the e = -1 row gives up
    # 0.75; rooms 2.2, each moves by room * 0.6 / 2.2 = 3 room / 11
    np.testing.assert_allclose(
        qp.feasible_dual(np.array([0.1, 0.05, 0.75])),
        [0.1 + 2.7 / 11, 0.05 + 1.65 / 11, 0.75 - 2.25 / 11],
        atol=1e-15,
    )


@pytest.mark.parametrize("seed", range(20))
def test_feasible_dual_is_feasible_and_its_objective_a_lower_bound_on_slsqp_optimum(seed):
    """Any beta (inside the box or not) is turned into a point of the dual's feasible set, whose
    objective by weak duality cannot exceed the primal optimum found by SLSQP."""
    qp = tiny_qp()
    optimum = slsqp_optimum(qp)
    rng = np.random.default_rng(seed)
    beta = qp.feasible_dual(rng.uniform(-0.3, 1.3, 3) * qp.c)
    if beta is None:  # allowed only when the rows cannot absorb the imbalance: never here
        pytest.fail("no feasible dual point, though beta = 0 is one")
    assert_dual_feasible(qp, beta)
    assert qp.dual_objective(beta) <= optimum + 1e-9


@pytest.mark.parametrize("regularization", [0.05, 0.5, 5.0])
def test_the_interior_point_certificate_brackets_slsqp_optimum(regularization):
    """solve_hinge_qp's answer: its dual point is feasible, and primal objective and certified gap
    bracket SLSQP's optimum (primal - gap * max(1, |primal|) <= optimum <= primal)."""
    qp = tiny_qp(regularization)
    optimum = slsqp_optimum(qp)
    solution = solve_hinge_qp(qp)
    assert_dual_feasible(qp, solution.beta)
    assert qp.dual_objective(solution.beta) <= optimum + 1e-9
    assert solution.objective == pytest.approx(optimum, rel=1e-7, abs=1e-9)


def test_a_preference_that_came_back_is_not_fixed_again_by_hand(monkeypatch):
    """The working set's rule (its module docstring): violated OUT preferences beyond the entry batch
    are fixed at their upper bound, except one that came back (was fixed wrongly before), which stays
    OUT until a batch lets it in as a column.  Four OUT preferences, batch of 1: the nearest to its
    margin (shortfall 0.5) becomes a column; of the three far ones only the two that never came
    back are fixed."""
    monkeypatch.setattr(working_set, "ENTRY_BATCH", 1)
    working = WorkingSet.start(4, 1)
    working.state[:], working.working = OUT, np.zeros(0, np.int64)
    working.comebacks[:] = [0, 1, 0, 0]
    columns, to_fix = working.priced_wrong(np.array([3.0, 4.0, 0.5, 5.0]), n_rows=1)
    assert columns.tolist() == [2]
    assert sorted(to_fix.tolist()) == [0, 3]


def degenerate_problem(seed):
    """Every preference twice, unit weights and integer margins: many ties, a degenerate LP, and most
    preferences violated at the optimum (margins up to 3)."""
    rng = np.random.default_rng(seed)
    X, y, _, preferences = random_problem(seed, n=40, n_preferences=100)
    margin = np.round(rng.uniform(-1, 3, len(preferences)))
    once = PreferenceSet(preferences.i, preferences.j, margin, np.ones(len(preferences)))
    return X, y, once + once


@pytest.mark.parametrize("seed", [1, 3, 9])
def test_no_preference_is_fixed_twice_on_a_degenerate_lp_and_the_optimum_is_linprogs(seed, monkeypatch):
    """Anti-cycling, counted: with batches of one column and set-asides from the first column (the
    thresholds shrunk as in tests/test_lp_working_set.py), a preference fixed straight from pricing,
    then found satisfied and let back in, must not be fixed straight from pricing again, so within a
    solve each preference is fixed by pricing at most once.  Without the guard some were fixed 3 to 5
    times on these problems (seed 9: 185 pricing rounds instead of 142); the solve still ended, as
    the 2^k wait of a column that came back k times bounds the back and forth too.  The cap is on
    counts, not wall time; the optimum is checked against linprog on LP (13)."""
    monkeypatch.setattr(working_set, "WORKING_SET_MIN", 0)
    monkeypatch.setattr(working_set, "ENTRY_BATCH", 1)
    monkeypatch.setattr(working_set, "EVICTION_SIZE", 0)
    X, y, preferences = degenerate_problem(seed)
    fixed_by_pricing = np.zeros(len(preferences), int)
    rounds = [0]
    priced_wrong = WorkingSet.priced_wrong

    def counting(self, shortfall, n_rows, first=0):
        rounds[0] += 1
        columns, to_fix = priced_wrong(self, shortfall, n_rows, first)
        np.add.at(fixed_by_pricing, to_fix, 1)
        return columns, to_fix

    monkeypatch.setattr(WorkingSet, "priced_wrong", counting)
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=0.1, lambda2=2.0).fit(X, y, preferences)
    assert fixed_by_pricing.sum() > 0  # the branch under test ran
    assert fixed_by_pricing.max() <= 1, f"fixed by pricing {fixed_by_pricing.max()} times, {rounds[0]} rounds"
    labeled = np.flatnonzero(~np.isnan(y))
    expected = reference_objective(X, y, preferences, labeled, 0.1, 2.0, 0.0, 0.4)
    assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
