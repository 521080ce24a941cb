"""The block-diagonal prior of the label-preference GP (ordercore/gp/laplace.py ``BlockFactor``) against
the dense computation it replaces: the same MAP, evidence and posterior on the prior I ⊗ K₀ written out."""

import numpy as np
import pytest

from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.labels import label_preference_graph
from ordercore.gp.laplace import PairData, evidence_gradient, laplace_fit
from tests.gp_problems import central_differences


def label_problem(graph: str, n_labels: int, n: int = 12, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = rng.integers(n_labels, size=n)
    winner, loser, sample = label_preference_graph(labels, n_labels, graph)
    return X, PairData(winner * n + sample, loser * n + sample, rng.uniform(0.5, 2.0, winner.size), n_labels * n)


@pytest.mark.parametrize(("graph", "n_labels"), [("multiclass", 3), ("multiclass", 4), ("ordinal", 4)])
def test_block_prior_gives_the_dense_fit(graph, n_labels):
    X, pairs = label_problem(graph, n_labels)
    K = SquaredExponential(np.array([0.9]), 1.3)(X, X)
    dense = laplace_fit(np.kron(np.eye(n_labels), K), pairs, 0.5)
    block = laplace_fit(K, pairs, 0.5, n_blocks=n_labels)
    assert block.log_evidence == pytest.approx(dense.log_evidence, rel=1e-10)
    for name in ("latent", "alpha", "posterior_factor"):
        assert np.allclose(getattr(block, name), getattr(dense, name), rtol=1e-9, atol=1e-11), name
    n = len(K)
    diagonal = [slice(b * n, (b + 1) * n) for b in range(n_labels)]
    assert np.allclose(block.predictive_matrix, [dense.predictive_matrix[d, d] for d in diagonal], atol=1e-11)
    # The prior of each label is K: alpha = K⁻¹ f̂ block by block.
    latent = np.kron(np.eye(n_labels), K + 1e-8 * np.eye(len(K))) @ block.alpha
    assert np.allclose(latent, block.latent, atol=1e-8)
    G, d_noise, _ = evidence_gradient(block, pairs, 0.5)
    G_dense, d_noise_dense, _ = evidence_gradient(dense, pairs, 0.5)
    assert np.allclose(G, [G_dense[d, d] for d in diagonal], atol=1e-10)
    assert d_noise == pytest.approx(d_noise_dense, rel=1e-9)


def test_block_evidence_gradient_matches_finite_differences():
    X, pairs = label_problem("multiclass", 3, n=10, seed=1)
    problem = EvidenceProblem(X, pairs, 1.0, n_blocks=3)
    theta = np.log([1.1, 0.6])
    kernel, K, fit = problem.laplace(theta)
    gradient, tangent = problem.gradient(theta, kernel, K, fit)
    for index, (d_evidence, d_latent) in enumerate(central_differences(problem, theta)):
        assert gradient[index] == pytest.approx(d_evidence, rel=1e-5, abs=1e-7)
        assert np.allclose(tangent[:, index], d_latent, rtol=1e-4, atol=1e-6)
