"""Seed 004's Figure 4: the traced solve against the dual objectives (6) and (20) written out by hand at
the duals it returns, against minus the primal optimum from a general QP solver (strong duality), and
against the untraced solve; eq. (39) and the timing helpers by hand; the command on tiny Treebank files."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from ordercore.cli.main import main
from ordercore.experiments.npsvor_figure4 import least_sweep_seconds, relative_difference, seconds_to_reach
from ordercore.npsvor.solver import solve_npsvor, trace_rank
from tests.test_npsvor import primal_by_qp

C1, C2, EPSILON, K = 0.8, 1.2, 0.2, 1


def sparse_ordinal(n=40, d=6, seed=0):
    """X (n, d) CSR with about half its entries zero, ranks 0 … 2 cut from a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.5)
    score = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n)
    return sp.csr_matrix(X), np.searchsorted(np.quantile(score, [1 / 3, 2 / 3]), score)


def traced(X, ranks, solver, epsilon_s, seed=4):
    return trace_rank(
        X, ranks, K, C1=C1, C2=C2, epsilon=EPSILON, solver=solver, epsilon_s=epsilon_s, max_iter=100_000,
        bias=1.0, seed=seed,
    )  # fmt: skip


def dual_by_hand(X, ranks, solver, variables):
    """Eq. (20) (DCD-2: one α per row) or eq. (6) (DCD-1: α⁺ on the rank's rows in row order, then their
    α⁻ after the n row variables), with w from eq. (19) or (7), X augmented by the constant 1."""
    augmented = np.hstack([X.toarray(), np.ones((X.shape[0], 1))])
    inside, outside = ranks == K, ranks != K
    signs = np.where(ranks > K, 1.0, -1.0)
    n = len(ranks)
    if solver == "dcd2":
        alpha = variables
        w = augmented.T @ (signs * alpha)
        return 0.5 * w @ w + EPSILON * np.abs(alpha[inside]).sum() - alpha[outside].sum()
    plus, minus, beta = variables[:n][inside], variables[n:], variables[:n][outside]
    w = -augmented[inside].T @ (plus - minus) + augmented[outside].T @ (signs[outside] * beta)
    return 0.5 * w @ w + EPSILON * (plus + minus).sum() - beta.sum()


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
@pytest.mark.parametrize("epsilon_s", [0.3, 1e-10])
def test_the_last_traced_value_is_the_dual_objective_of_the_returned_duals(solver, epsilon_s):
    X, ranks = sparse_ordinal()
    trace = traced(X, ranks, solver, epsilon_s)
    assert trace.objective.shape == trace.seconds.shape
    assert trace.objective[-1] == pytest.approx(dual_by_hand(X, ranks, solver, trace.variables), rel=1e-12)


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_the_traced_dual_never_increases_and_ends_at_minus_the_primal_optimum(solver):
    X, ranks = sparse_ordinal(seed=1)
    trace = traced(X, ranks, solver, 1e-10)
    assert len(trace.objective) > 5
    # coordinate descent minimises the dual exactly along each coordinate: never up, but by rounding
    assert np.all(np.diff(trace.objective) <= 1e-12 * abs(trace.objective[-1]))
    assert trace.objective[0] < 0.0  # below its value 0 at α = 0 after the first sweep
    assert np.all(np.diff(trace.seconds) >= 0.0) and trace.seconds[0] >= 0.0
    augmented = np.hstack([X.toarray(), np.ones((X.shape[0], 1))])
    optimum = primal_by_qp(augmented, ranks, K, C1, C2, EPSILON)
    assert trace.objective[-1] == pytest.approx(-optimum, rel=1e-7)


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_tracing_changes_no_value(solver):
    X, ranks = sparse_ordinal(seed=2)
    trace = traced(X, ranks, solver, 1e-3, seed=7)
    solution = solve_npsvor(  # rank k is solved with seed + k
        X, ranks, 3, C1=C1, C2=C2, epsilon=EPSILON, solver=solver, epsilon_s=1e-3, max_iter=100_000, bias=1.0,
        seed=7 - K,
    )  # fmt: skip
    np.testing.assert_array_equal(trace.dual, solution.dual[K])
    np.testing.assert_array_equal(trace.weights, solution.weights[K])
    assert len(trace.objective) == solution.n_iter[K]


def test_relative_difference_and_the_time_to_reach_a_level_by_hand():
    difference = relative_difference(np.array([-1.0, -3.0, -3.9, -3.999]), -4.0)
    np.testing.assert_allclose(difference, [0.75, 0.25, 0.025, 0.00025])
    seconds = np.array([0.1, 0.2, 0.3, 0.4])
    assert seconds_to_reach(seconds, difference, 0.25) == 0.2
    assert seconds_to_reach(seconds, difference, 0.01) == 0.4
    assert seconds_to_reach(seconds, difference, 1e-6) is None


def test_each_sweep_is_timed_by_its_fastest_repeat():
    # sweeps of 1, 2, 1 s and of 3, 1, 1 s: the fastest are 1, 1, 1
    seconds = least_sweep_seconds([np.array([1.0, 3.0, 4.0]), np.array([3.0, 4.0, 5.0])])
    np.testing.assert_allclose(seconds, [1.0, 2.0, 3.0])


@pytest.fixture
def treebank_directory(tmp_path, monkeypatch):
    """Tiny Treebank files in ORDERCORE_DATA: 50 training rows (10 per label 1 … 5), 20 sparse features."""
    rng = np.random.default_rng(3)
    X = sp.random(60, 20, density=0.3, format="csr", random_state=3)
    labels = 1.0 + np.argsort(np.argsort(X @ rng.normal(size=20))) * 5 // 60
    (tmp_path / "treebank").mkdir()
    dump_svmlight_file(X[:50], labels[:50], str(tmp_path / "treebank" / "Treebank.train"))
    dump_svmlight_file(X[50:], labels[50:], str(tmp_path / "treebank" / "Treebank.test"))
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    return tmp_path, X[:50], labels[:50]


def test_the_command_writes_both_traces_and_the_figure(tmp_path, treebank_directory):
    _, X, labels = treebank_directory
    out, figure = tmp_path / "figure4.json", tmp_path / "figure4.html"
    argv = ["experiments", "npsvor-figure4", "--dataset", "treebank", "--quick", "--trials", "2", "--repeats", "2"]
    assert main([*argv, "--out", str(out), "--figure", str(figure)]) == 0
    result = json.loads(out.read_text())
    assert (result["rank"], result["n_train"]) == (3, 50)
    assert (result["protocol"]["C1"], result["protocol"]["C2"], result["protocol"]["epsilon"]) == (1, 1, 0.1)
    ranks = np.searchsorted(np.unique(labels), labels)
    augmented = np.hstack([X.toarray(), np.ones((50, 1))])
    assert result["optimum"] == pytest.approx(-primal_by_qp(augmented, ranks, 2, 1.0, 1.0, 0.1), rel=1e-4)
    for row in result["trials"]:
        for solver in ("dcd1", "dcd2"):
            trace = row[solver]
            assert len(trace["seconds"]) == len(trace["objective"]) == len(trace["relative_difference"]) > 0
            assert min(trace["relative_difference"]) >= -1e-12
    assert set(result["summary"]) == {"0.01", "0.0001", "1e-06", "1e-08"}
    assert figure.read_text().count("DCD-") >= 2
    assert result["command"].startswith("python -m ordercore experiments npsvor-figure4")


def test_a_rank_beyond_the_data_is_refused(tmp_path, treebank_directory):
    with pytest.raises(SystemExit, match="rank must be 1 … 5"):
        main(["experiments", "npsvor-figure4", "--rank", "6", "--out", str(tmp_path / "f.json")])
