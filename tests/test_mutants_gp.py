"""Tests that kill issue 32's surviving mutants in the GP's memory budget (ordercore/gp/budget.py):
the estimate for the label model, whose n_blocks GPs share one dense feature matrix Φ of
(n_blocks·N) × (n_blocks·M) entries, checked against a hand count of Φ's size and against the peak
tracemalloc measures over a whole sparse fit with several blocks (tests/test_gp_sparse.py measures
one block only)."""

import tracemalloc

import numpy as np

from ordercore.gp.budget import fit_memory
from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.evidence import maximize_evidence
from ordercore.gp.labels import label_preference_graph
from ordercore.gp.laplace import PairData
from ordercore.gp.sparse import InducingFeatures, SparseEvidenceProblem, inducing_inputs


def label_problem(n, n_labels, seed=0):
    """X (n, 6) and the ordinal label graph's preferences over the n_labels · n latent values."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    score = X @ rng.normal(size=6)
    labels = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_labels + 1)[1:-1]))
    winner, loser, sample = label_preference_graph(labels, n_labels, "ordinal")
    return X, PairData(winner * n + sample, loser * n + sample, np.ones(winner.size), n_labels * n), rng


def test_the_estimate_holds_phi_and_its_scaled_copy_for_every_block_by_hand():
    """Hand count: with K blocks of N instances and M inducing inputs, Φ is dense (K N) × (K M), so
    Φ and Λ Φ (which the fit holds together, per the module's measurement) are 2 K² N M doubles.
    N = 500, M = 100, K = 6 labels: 2 · 36 · 5 · 10^4 · 8 bytes = 28.8 MB, which the estimate must
    exceed (an estimate with one block's width, 6 K N M + ..., would be 22.9 MB here).
    Φ's shape is read off the built features, not taken from the budget's formula."""
    n, n_basis, n_blocks = 500, 100, 6
    rng = np.random.default_rng(1)
    features = InducingFeatures.build(
        SquaredExponential(np.ones(2), 1.0), rng.normal(size=(n, 2)), rng.normal(size=(n_basis, 2)), n_blocks
    )
    assert features.phi.shape == (n_blocks * n, n_blocks * n_basis)
    assert 2 * features.phi.nbytes == 28_800_000
    assert fit_memory("sparse", n_blocks * n, 3 * n, n_basis, n_blocks) > 28_800_000


def test_memory_estimate_bounds_the_measured_peak_with_several_blocks():
    """A sparse label fit (4 blocks, N = 300, M = 50, evidence search from two starts) measured by
    tracemalloc: the estimate must bound its peak, and not by more than the factor 3 the one-block
    test allows."""
    n, n_labels, n_basis = 300, 4, 50
    X, pairs, rng = label_problem(n, n_labels)
    tracemalloc.start()
    try:
        problem = SparseEvidenceProblem(X, inducing_inputs(X, n_basis, 0), pairs, 1.0, n_blocks=n_labels)
        maximize_evidence(problem, np.zeros(7), 1, rng)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = fit_memory("sparse", n_labels * n, pairs.winner.size, n_basis, n_labels)
    assert peak <= estimate <= 3 * peak, f"peak {peak / 1e6:.1f} MB, estimate {estimate / 1e6:.1f} MB"
