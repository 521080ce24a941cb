"""GPLabelPreferenceModel, one latent GP per label (seed 002 §3; ordercore/gp/labels.py) against
independent checks: classes and rankings learnt, the label graphs by hand, finite differences of the
evidence (24) and its stationary point."""

import numpy as np
import pytest

from ordercore import GPLabelPreferenceModel
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.laplace import PairData
from tests.gp_problems import central_differences


def test_label_preferences_classify_and_rank():
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    labels = rng.integers(3, size=90)
    X = centers[labels] + 0.6 * rng.normal(size=(90, 2))
    model = GPLabelPreferenceModel(random_state=0).fit(X, np.array(["a", "b", "c"])[labels])
    X_test_labels = rng.integers(3, size=200)
    X_test = centers[X_test_labels] + 0.6 * rng.normal(size=(200, 2))
    assert np.mean(model.predict(X_test) == np.array(["a", "b", "c"])[X_test_labels]) > 0.9
    ranking = model.predict_ranking(X_test[:5])
    assert ranking.shape == (5, 3) and np.array_equal(ranking[:, 0], model.predict(X_test[:5]))


def test_ordinal_graph_is_a_chain_away_from_the_true_label():
    from ordercore.gp.labels import label_preference_graph

    winner, loser, _ = label_preference_graph(np.array([2]), 5, "ordinal")
    assert sorted(zip(winner.tolist(), loser.tolist(), strict=True)) == [(1, 0), (2, 1), (2, 3), (3, 4)]
    winner, loser, _ = label_preference_graph(np.array([0]), 3, "multiclass")
    assert sorted(zip(winner.tolist(), loser.tolist(), strict=True)) == [(0, 1), (0, 2)]
    X = np.linspace(0, 4, 50)[:, None]
    y = np.round(X[:, 0]).astype(int)
    model = GPLabelPreferenceModel(graph="ordinal", random_state=0).fit(X, y)
    assert np.mean(model.predict(X) == y) > 0.85


def graded_labels(n_labels, rng, n=15):
    """X (n, 2) and noisy labels 0..n_labels-1 (n,) graded by a linear score, each label present."""
    X = rng.normal(size=(n, 2))
    score = X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n)
    labels = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_labels + 1)[1:-1]))
    assert np.all(np.bincount(labels, minlength=n_labels) >= 3)
    return X, labels


def label_pairs(labels, n_labels, graph, weight=None) -> PairData:
    """The preferences of every sample's graph over the n_labels · n latent values (label a's value at
    sample t at a · n + t)."""
    from ordercore.gp.labels import label_preference_graph

    winner, loser, sample = label_preference_graph(labels, n_labels, graph)
    n = labels.size
    weight = np.ones(winner.size) if weight is None else weight(winner.size)
    return PairData(winner * n + sample, loser * n + sample, weight, n_labels * n)


@pytest.mark.parametrize("kernel", ["rbf", "ard"])
@pytest.mark.parametrize(("graph", "n_labels"), [("multiclass", 3), ("ordinal", 4)])
def test_label_evidence_gradient_matches_finite_differences(graph, n_labels, kernel):
    """One latent GP per label (seed 002 §3, eq. (24)): the analytic gradient of the evidence, whose
    kernel part sums over the blocks, and ∂f̂/∂θ, against central differences of cold Laplace fits."""
    rng = np.random.default_rng(5)
    X, labels = graded_labels(n_labels, rng)
    pairs = label_pairs(labels, n_labels, graph, weight=lambda size: rng.uniform(0.5, 2.0, size))
    problem = EvidenceProblem(X, pairs, signal_variance=1.3, n_blocks=n_labels)
    theta = np.array([0.2, -0.4, -0.6]) if kernel == "ard" else np.array([0.3, -0.4])
    kernel_, K, fit = problem.laplace(theta)
    gradient, tangent = problem.gradient(theta, kernel_, K, fit)
    assert tangent.shape == (n_labels * len(X), theta.size)
    for index, (numeric, latent) in enumerate(central_differences(problem, theta)):
        assert gradient[index] == pytest.approx(numeric, rel=1e-6, abs=1e-8)
        for block in range(n_labels):  # each label's f̂ moves as its own finite difference says
            rows = slice(block * len(X), (block + 1) * len(X))
            assert np.allclose(tangent[rows, index], latent[rows], rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize(("graph", "n_labels"), [("multiclass", 3), ("ordinal", 4)])
def test_label_model_maximises_the_evidence_over_every_label(graph, n_labels):
    """GPLabelPreferenceModel's hyperparameters are a stationary point of the evidence (24) over all
    n_labels blocks, by finite differences of cold Laplace fits, and log_evidence_ is that evidence."""
    X, labels = graded_labels(n_labels, np.random.default_rng(5), n=24)
    model = GPLabelPreferenceModel(graph=graph, kernel="ard", random_state=0).fit(X, labels)
    pairs = label_pairs(labels, n_labels, graph)
    problem = EvidenceProblem((X - X.mean(axis=0)) / X.std(axis=0), pairs, 1.0, n_blocks=n_labels)
    theta = np.log(np.append(model.length_scale_, model.noise_))
    # Inside the search bounds, where the gradient vanishes at a maximum.
    assert np.all(np.abs(theta) < 3)
    assert model.log_evidence_ == pytest.approx(problem.laplace(theta)[2].log_evidence, rel=1e-9)
    step = 1e-4

    def evidence(theta):
        return problem.laplace(theta)[2].log_evidence

    gradient = [(evidence(theta + step * e) - evidence(theta - step * e)) / (2 * step) for e in np.eye(theta.size)]
    # L-BFGS-B stops below 1e-4 nats per unit weight (OPTIMIZER_GRADIENT_TOLERANCE).
    assert np.max(np.abs(gradient)) < 2e-4 * pairs.weight.sum()
