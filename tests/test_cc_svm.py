"""CC-SVM (seed 002's comparator) against independent solutions (its two solvers, libsvm's SMO and
HiGHS's QP, against SLSQP, a hinge SVM and each other), and seed 002's instance-preference commands
(``experiments gp-table1``, ``gp-figure2``) end to end on small runs."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC, LinearSVC
from sklearn.utils._param_validation import InvalidParameterError

from ordercore.cli.main import main
from ordercore.exceptions import SolverError
from ordercore.experiments import cc_svm
from ordercore.experiments.cc_svm import ConstraintClassificationSVM, doubled_pairs, pairwise_kernel, qp_dual
from ordercore.experiments.gp_instance import _compare, _share_seen, split_pairs
from ordercore.experiments.gp_scaling import time_exponent
from ordercore.lp.highs import solve_qp
from ordercore.preferences import ZERO, PreferenceSet


def gaussian(a, b, kappa):
    return np.exp(-0.5 * kappa * np.sum((a - b) ** 2))


def dual_scores(X, winner, loser, C, kappa, points):
    """f at points from the dual of the doubled pair problem, solved by SLSQP: min ½ αᵀQα − Σα,
    0 ≤ α ≤ C, Σ α_m y_m = 0, with Q_mn = y_m y_n K((a_m, b_m), (a_n, b_n)) written out term by term."""
    a, b = np.concatenate([winner, loser]), np.concatenate([loser, winner])
    y = np.concatenate([np.ones(winner.size), -np.ones(winner.size)])
    m = y.size
    Q = np.array([[y[r] * y[s] * (gaussian(X[a[r]], X[a[s]], kappa) - gaussian(X[a[r]], X[b[s]], kappa)
                   - gaussian(X[b[r]], X[a[s]], kappa) + gaussian(X[b[r]], X[b[s]], kappa))
                   for s in range(m)] for r in range(m)])  # fmt: skip
    solution = minimize(
        lambda alpha: 0.5 * alpha @ Q @ alpha - alpha.sum(), np.full(m, C / 2), jac=lambda alpha: Q @ alpha - 1,
        bounds=[(0, C)] * m, constraints=[{"type": "eq", "fun": lambda alpha: alpha @ y, "jac": lambda alpha: y}],
        method="SLSQP", options={"ftol": 1e-14, "maxiter": 1000},
    )  # fmt: skip
    assert solution.success, solution.message
    coefficients = solution.x * y
    return np.array([sum(coefficients[r] * (gaussian(x, X[a[r]], kappa) - gaussian(x, X[b[r]], kappa))
                         for r in range(m)) for x in points])  # fmt: skip


@pytest.mark.parametrize("solver", ["libsvm", "qp"])
@pytest.mark.parametrize("C", [0.5, 100.0])
def test_scores_are_those_of_the_pair_svms_dual_solved_directly(C, solver):
    """Contradictory preferences (0 over 1 and 1 over 0) keep some α at the bound C when C is small."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 2))
    winner, loser = np.array([0, 1, 2, 3, 1]), np.array([1, 2, 3, 4, 0])
    model = ConstraintClassificationSVM(C=C, kappa=0.7, normalize=False, solver=solver)
    model.fit(X, PreferenceSet(winner, loser))
    points = rng.normal(size=(8, 2))
    expected = dual_scores(X, winner, loser, C, 0.7, points)
    np.testing.assert_allclose(model.decision_function(points), expected, atol=2e-3 * np.abs(expected).max())


def test_a_linear_kernel_learns_the_weights_of_a_hinge_svm_on_the_pair_differences():
    """The pair data are symmetric, so SVC's bias is 0 and w is that of LinearSVC without intercept."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 3))
    score = X @ np.array([1.0, -2.0, 0.5]) + 0.8 * rng.normal(size=12)  # noisy: not separable
    first, second = rng.integers(12, size=(2, 30))
    keep = first != second
    winner = np.where(score[first] > score[second], first, second)[keep]
    loser = np.where(score[first] > score[second], second, first)[keep]
    model = ConstraintClassificationSVM(kernel="linear", C=0.3, normalize=False).fit(X, PreferenceSet(winner, loser))
    differences = np.vstack([X[winner] - X[loser], X[loser] - X[winner]])
    labels = np.concatenate([np.ones(winner.size), -np.ones(winner.size)])
    reference = LinearSVC(C=0.3, loss="hinge", fit_intercept=False, tol=1e-10, max_iter=1_000_000).fit(
        differences, labels
    )
    np.testing.assert_allclose(model.decision_function(X), X @ reference.coef_[0], atol=2e-3)


def noisy_pairs(seed: int, n: int = 15, pairs: int = 40):
    """X (n, 3) and pairs winner ≻ loser (< pairs,) of a noisy linear score: some pairs contradict it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    score = X @ np.array([1.0, -2.0, 0.5]) + 0.8 * rng.normal(size=n)
    first, second = rng.integers(n, size=(2, pairs))
    keep = first != second
    winner = np.where(score[first] > score[second], first, second)[keep]
    loser = np.where(score[first] > score[second], second, first)[keep]
    return X, winner, loser


@pytest.mark.parametrize(("kernel", "C"), [("linear", 0.05), ("linear", 10.0), ("rbf", 0.3), ("rbf", 30.0)])
def test_highs_qp_and_libsvm_reach_the_same_dual_optimum(kernel, C):
    """Two independent solvers of the doubled pair dual min ½ αᵀQα − 1ᵀα, 0 ≤ α ≤ C, yᵀα = 0: HiGHS's
    feasible point and libsvm's have the same objective (each to its own tolerance)."""
    X, winner, loser = noisy_pairs(4)
    first, second, y = doubled_pairs(winner, loser)
    instance_kernel = X @ X.T if kernel == "linear" else np.exp(-0.5 * np.sum((X[:, None] - X[None]) ** 2, axis=2))
    K = pairwise_kernel(instance_kernel, first, second)
    Q = y[:, None] * K * y[None, :]
    alpha, attempts = qp_dual(K, y, C)
    svc = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    reference = np.zeros(y.size)
    reference[svc.support_] = np.abs(svc.dual_coef_[0])
    assert np.all((alpha >= 0) & (alpha <= C)) and abs(alpha @ y) < 1e-9 * C * y.size
    objective = 0.5 * alpha @ Q @ alpha - alpha.sum()
    assert objective == pytest.approx(0.5 * reference @ Q @ reference - reference.sum(), rel=1e-6)
    if C < 1:  # a small C holds some α at its bound
        assert np.any(alpha == C)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_the_two_solvers_order_pairs_alike(kernel, monkeypatch):
    """CC-SVM with HiGHS's QP and with libsvm: the same scores and the same order of new points."""
    X, winner, loser = noisy_pairs(7)
    train = PreferenceSet(winner, loser)
    libsvm = ConstraintClassificationSVM(kernel=kernel, C=2.0, kappa=0.5, normalize=False).fit(X, train)
    calls = []
    monkeypatch.setattr(cc_svm, "solve_qp", lambda *args, **kwargs: calls.append(1) or solve_qp(*args, **kwargs))
    qp = ConstraintClassificationSVM(kernel=kernel, C=2.0, kappa=0.5, normalize=False, solver="qp").fit(X, train)
    assert calls == [1]  # HiGHS solved it, not libsvm
    points = np.random.default_rng(8).normal(size=(12, 3))
    f_libsvm, f_qp = libsvm.decision_function(points), qp.decision_function(points)
    np.testing.assert_allclose(f_qp, f_libsvm, atol=1e-3 * np.abs(f_libsvm).max())
    assert list(np.argsort(f_qp)) == list(np.argsort(f_libsvm))
    assert qp.solve_seconds_ >= 0 and 0 < qp.n_support_ <= 2 * len(train)


def test_a_failed_highs_attempt_is_tried_again_with_the_next_ridge(monkeypatch):
    """HiGHS's active set may cycle on the degenerate pair dual: after a failed attempt, the next ridge;
    after the last, the failure."""
    X, winner, loser = noisy_pairs(7)
    train = PreferenceSet(winner, loser)
    limits = []

    def failing(*args, **kwargs):
        limits.append(kwargs["iteration_limit"])
        if len(limits) < attempts_to_fail + 1:
            raise SolverError("HiGHS's QP solver stopped short of the optimum (status: Iteration limit reached)")
        return solve_qp(*args, **kwargs)

    monkeypatch.setattr(cc_svm, "solve_qp", failing)
    attempts_to_fail = 1
    qp = ConstraintClassificationSVM(kernel="linear", C=2.0, normalize=False, solver="qp").fit(X, train)
    libsvm = ConstraintClassificationSVM(kernel="linear", C=2.0, normalize=False).fit(X, train)
    assert qp.solve_attempts_ == 2 and libsvm.solve_attempts_ == 1 and limits == [5 * 2 * len(train) + 1000] * 2
    np.testing.assert_allclose(qp.decision_function(X), libsvm.decision_function(X), atol=1e-3)
    limits.clear()
    attempts_to_fail = len(cc_svm.QP_RIDGES)
    with pytest.raises(SolverError, match="stopped short"):
        ConstraintClassificationSVM(kernel="linear", C=2.0, normalize=False, solver="qp").fit(X, train)


def test_an_unknown_solver_is_refused():
    with pytest.raises(InvalidParameterError, match="solver"):
        ConstraintClassificationSVM(solver="cvxopt").fit(np.eye(2), PreferenceSet([0], [1]))


def test_a_separable_one_dimensional_order_is_learned_exactly():
    x = np.linspace(0.0, 1.0, 30)[:, None]
    y = x[:, 0] ** 3
    rng = np.random.default_rng(0)
    train, test = split_pairs(y, 25, 1000, rng)
    model = ConstraintClassificationSVM(C=1000.0, kappa=1.0).fit(x, train)
    f = model.decision_function(x)
    assert len(test) == 30 * 29 // 2 - 25
    assert np.all(f[test.i] > f[test.j])


def test_scores_y_mean_every_pair_of_different_scores():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 2.0, 1.0, 3.0])
    f = ConstraintClassificationSVM(C=100.0, kappa=1.0).fit(X, y).decision_function(X)
    assert list(np.argsort(f)) == [0, 2, 1, 3]


def test_unary_or_no_preferences_are_refused():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match="unary bounds"):
        ConstraintClassificationSVM().fit(X, PreferenceSet([0], [ZERO]))
    with pytest.raises(ValueError, match="none given"):
        ConstraintClassificationSVM().fit(X, PreferenceSet([], []))


def test_pairs_are_drawn_without_ties_or_repeats_and_read_higher_over_lower():
    y = np.array([1.0, 1.0, 2.0, 3.0, 5.0])  # 10 pairs, one tied (rows 0 and 1): 9 to draw from
    train, test = split_pairs(y, 4, 100, np.random.default_rng(0))
    assert (len(train), len(test)) == (4, 5)
    drawn = {frozenset(pair) for pair in zip(np.r_[train.i, test.i], np.r_[train.j, test.j], strict=True)}
    assert len(drawn) == 9 and frozenset((0, 1)) not in drawn
    assert np.all(y[np.r_[train.i, test.i]] > y[np.r_[train.j, test.j]])
    with pytest.raises(ValueError, match="9 pairs"):
        split_pairs(y, 9, 10, np.random.default_rng(0))


def test_table1_pairs_the_trials_in_its_signed_rank_test():
    """Six trials, the first model worse in each: the signed-rank statistic is the smallest possible,
    and its exact two-sided p is 2 / 2^6 (two of the 2^6 equally likely sign patterns are as extreme)."""
    better = np.array([10.0, 11.0, 12.0, 13.0, 14.0, 15.0])
    compared = _compare(list(better + [0.5, 0.1, 0.3, 0.2, 0.4, 0.6]), list(better))
    assert compared["p_paired"] == pytest.approx(2 / 2**6)
    assert _compare(list(better), list(better))["p_paired"] == 1.0  # no difference at all


def test_table1_counts_test_pairs_between_training_instances():
    train = PreferenceSet([0, 2], [1, 3])
    test = PreferenceSet([0, 0, 5, 3], [2, 4, 6, 1])  # (0, 2) and (3, 1) seen in training; (0, 4), (5, 6) not
    assert _share_seen(train, test) == 0.5


def test_the_time_exponent_of_a_power_law_is_its_power():
    p = np.array([100, 200, 400, 800])
    assert time_exponent(p, 3e-6 * p**2.0) == pytest.approx(2.0)
    assert time_exponent(p, np.full(4, 0.05)) == pytest.approx(0.0, abs=1e-12)


def test_gp_table1_writes_every_models_errors_and_the_rank_sum_tests(tmp_path, data_directory):
    out = tmp_path / "t1.json"
    main(["experiments", "gp-table1", "--dataset", "pyrimidines", "--quick", "--trials", "2", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["protocol"]["n_train_pairs"] == 100
    y = pd.read_csv(data_directory / "pyrim.csv")["y"].to_numpy()
    untied = int(np.sum(y[:, None] != y[None, :])) // 2  # fewer than 20,000 pairs: every other one is tested
    assert [trial["n_test"] for trial in result["trials"]] == [untied - 100] * 2
    for model in ("cc_svm", "gp", "gp_ard", "gp_ard_prior", "gp_ard_isotropic", "gp_ard_evidence"):
        errors = [trial["results"][model]["error"] for trial in result["trials"]]
        assert all(0 <= error < 50 for error in errors)  # better than chance on every trial
        assert result["summary"][model]["error_mean"] == pytest.approx(np.mean(errors))
    for trial in result["trials"]:  # the seed's rule among ARD's two starts: the higher evidence wins
        starts = [trial["results"][start] for start in ("gp_ard", "gp_ard_isotropic")]
        assert trial["results"]["gp_ard_evidence"]["log_evidence"] == max(fit["log_evidence"] for fit in starts)
        assert trial["results"]["gp_ard_evidence"]["error"] in [fit["error"] for fit in starts]
    assert 0 < result["tests"]["cc_svm_worse_than_gp"]["p_value"] <= 1
    assert result["command"].startswith("python -m ordercore experiments gp-table1")


def test_gp_figure2_writes_errors_times_and_exponents(tmp_path, data_directory):
    out = tmp_path / "f2.json"
    main(["experiments", "gp-figure2", "--quick", "--trials", "2", "--pairs", "40", "80", "--instances", "30",
          "--out", str(out)])  # fmt: skip
    result = json.loads(out.read_text())
    assert [row["p"] for row in result["summary"]] == [40, 80]
    for row in result["summary"]:
        assert row["n_distinct_instances_mean"] <= 30
        for model in ("cc_svm", "gp"):
            assert 0 <= row[model]["error_mean"] < 50 and row[model]["seconds_median"] >= 0
    assert set(result["time_exponents"]) == {"cc_svm", "gp", "cc_svm_whole_fit"}


def test_gp_figure2_takes_the_seeds_linear_gp(tmp_path, data_directory):
    out = tmp_path / "f2.json"
    main(["experiments", "gp-figure2", "--quick", "--trials", "1", "--pairs", "40", "--instances", "20",
          "--gp-kernel", "linear", "--out", str(out)])  # fmt: skip
    result = json.loads(out.read_text())
    assert result["protocol"]["kernels"]["gp"].startswith("linear")
    assert result["trials"][0][0]["gp"]["length_scale"] is None


def test_gp_figure2_times_highs_qp_on_libsvms_trials(tmp_path, data_directory, monkeypatch):
    """``--cc-svm-solver qp`` times HiGHS's QP on the same trials and C as libsvm's run: the same errors."""
    calls = []
    monkeypatch.setattr(cc_svm, "solve_qp", lambda *args, **kwargs: calls.append(1) or solve_qp(*args, **kwargs))
    results = {}
    for solver in ("libsvm", "qp"):
        out = tmp_path / f"{solver}.json"
        main(["experiments", "gp-figure2", "--quick", "--trials", "1", "--pairs", "30", "60", "--instances", "20",
              "--cc-svm-solver", solver, "--out", str(out)])  # fmt: skip
        results[solver] = json.loads(out.read_text())
        assert len(calls) == {"libsvm": 0, "qp": 2 * 3}[solver]  # per p, the timed fit's 3 repeats (one process)
    assert results["qp"]["protocol"]["cc_svm_solver"] == "qp"
    assert results["qp"]["protocol"]["cc_svm_solver_name"].startswith("HiGHS")
    for libsvm, qp in zip(results["libsvm"]["trials"][0], results["qp"]["trials"][0], strict=True):
        assert qp["cc_svm"]["C"] == libsvm["cc_svm"]["C"] and qp["n_test"] == libsvm["n_test"]
        assert qp["cc_svm"]["error"] == pytest.approx(libsvm["cc_svm"]["error"], abs=100 / qp["n_test"])
        assert qp["cc_svm"]["seconds"] > 0
