"""The GP models' linear kernel K(x, x') = σ_k² x·x' (seed 002 Figs. 2 and 3) against independent
checks: the kernel and a three-point MAP and evidence worked by hand, the evidence gradient against
finite differences, and the MAP, evidence and predictive variance against the same model written in
weight space (f = X w, w ~ N(0, σ_k² I)) and minimised by scipy.optimize."""

import numpy as np
import pytest
import scipy.optimize
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm
from sklearn.utils._param_validation import InvalidParameterError

from ordercore import GPPreferenceModel, PreferenceSet
from ordercore.gp.covariance import Linear
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.labels import GPLabelPreferenceModel, ranking_preference_graph
from ordercore.gp.laplace import PairData, evidence_gradient
from ordercore.models.files import load
from ordercore.numerics.cholesky import JITTER
from tests.gp_problems import central_differences, three_point_chain


def test_linear_kernel_by_hand():
    """x = (1, 0), (0, 2), (1, 1), σ_k² = 1.5: K = 1.5 [[1, 0, 1], [0, 4, 2], [1, 2, 2]]."""
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    kernel = Linear(1.5)
    assert np.allclose(kernel(X, X), 1.5 * np.array([[1, 0, 1], [0, 4, 2], [1, 2, 2]]))
    assert np.allclose(kernel.diagonal(X), [1.5, 6.0, 3.0])
    # Var(f(a) - f(b)) = 1.5 |a - b|²: (1,0)-(0,2) → 5, (0,2)-(1,1) → 2.
    assert np.allclose(kernel.difference_variance(X[:2], X[1:]), [7.5, 3.0])
    assert kernel.length_scale.shape == (0,)


def test_three_orthogonal_points_by_hand():
    """Unit vectors e1, e2, e3 under the linear kernel with σ_k² = 1 have K = I: preferences 0 ≻ 1 ≻ 2
    give f̂ = (a, 0, -a) with a = c r(c a), c = 1/(√2 σ), r = N/Φ, and ln|I + Λ| = ln(1 + c² h) +
    ln(1 + 3 c² h), h = ℓ''(c a).  A new point x = (2, 0, -1) has mean x·f̂ = 3a."""
    X = np.eye(3)
    model = GPPreferenceModel(kernel="linear", optimizer=None, noise=0.7, normalize=False)
    model.fit(X, PreferenceSet.order([0, 1], [1, 2]))
    a, _, evidence = three_point_chain(0.7)
    assert np.allclose(model.latent_, [a, 0, -a], atol=1e-6)
    assert model.log_evidence_ == pytest.approx(evidence, rel=1e-6)
    assert model.predict(np.array([[2.0, 0.0, -1.0]]))[0] == pytest.approx(3 * a, rel=1e-6)
    assert model.length_scale_.shape == (0,)


@pytest.mark.parametrize("n_features", [3, 40])
def test_linear_evidence_gradient_matches_finite_differences(small_problem, n_features):
    """θ = (ln σ) alone; 3 features make K (25 × 25) singular (rank 3, held by the jitter), 40 make it
    full rank.  Only σ_k / σ matters: scaling both leaves the evidence unchanged, so the derivative in
    ln σ_k² (Σ G ⊙ ∂K/∂ln σ_k² = Σ G ⊙ K) is minus half the derivative in ln σ."""
    X, _, pairs = small_problem
    X = X if n_features == 3 else np.random.default_rng(7).normal(size=(len(X), n_features))
    problem = EvidenceProblem(X, pairs, signal_variance=1.3, linear=True)
    theta = np.array([-0.4])
    kernel, K, fit = problem.laplace(theta)
    gradient, tangent = problem.gradient(theta, kernel, K, fit)
    assert gradient.shape == (1,) and tangent.shape == (len(X), 1)
    ((numeric, latent),) = central_differences(problem, theta)
    assert gradient[0] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
    assert np.allclose(tangent[:, 0], latent, rtol=1e-3, atol=2e-4)
    G, d_log_noise, _ = evidence_gradient(fit, pairs, np.exp(theta[0]))
    # The prior factored is K + jitter, the jitter a fixed fraction of K's mean diagonal: it scales with σ_k².
    jittered = K + JITTER * np.mean(np.diag(K)) * np.eye(len(K))
    assert d_log_noise == pytest.approx(-2 * np.sum(G * jittered), rel=1e-8)
    scaled = EvidenceProblem(X, pairs, signal_variance=1.3 * 9.0, linear=True).laplace(theta + np.log(3.0))[2]
    assert scaled.log_evidence == pytest.approx(fit.log_evidence, rel=1e-8)


def test_linear_label_evidence_gradient_matches_finite_differences():
    """The same for the label model's block prior: 3 labels' GPs sharing the linear kernel."""
    rng = np.random.default_rng(4)
    X = rng.dirichlet(np.ones(4), size=12)
    rankings = np.argsort(-(X @ rng.uniform(size=(3, 4)).T), axis=1)
    winner, loser, sample = ranking_preference_graph(rankings)
    pairs = PairData(winner * 12 + sample, loser * 12 + sample, np.ones(winner.size), 36)
    problem = EvidenceProblem(X, pairs, signal_variance=2.0, n_blocks=3, linear=True)
    theta = np.array([-1.2])
    gradient, _ = problem.gradient(theta, *problem.laplace(theta))
    ((numeric, _),) = central_differences(problem, theta)
    assert gradient[0] == pytest.approx(numeric, rel=1e-5, abs=1e-7)


def weight_space_map(X, winner, loser, signal_variance, noise):
    """ŵ minimising Σ -ln Φ((x_winner - x_loser)·w / (√2 σ)) + |w|² / (2 σ_k²) by BFGS, with the
    Laplace evidence there: -S(ŵ) - ½ ln|I + σ_k² Dᵀ H D|, and the posterior covariance of w."""
    D = (X[winner] - X[loser]) / (np.sqrt(2) * noise)

    def functional(w):
        return -np.sum(log_ndtr(D @ w)) + 0.5 * w @ w / signal_variance

    w = scipy.optimize.minimize(functional, np.zeros(X.shape[1]), method="BFGS", options={"gtol": 1e-10}).x
    z = D @ w
    r = norm.pdf(z) / ndtr(z)
    H = D.T @ ((r * (z + r))[:, None] * D)
    evidence = -functional(w) - 0.5 * np.linalg.slogdet(np.eye(len(w)) + signal_variance * H)[1]
    return w, evidence, np.linalg.inv(np.eye(len(w)) / signal_variance + H)


def test_linear_map_matches_weight_space_model_minimised_by_scipy():
    """10 instances in 2 features (K of rank 2), inconsistent preferences among them: the function-space
    Newton MAP f̂ = X ŵ, its evidence and the predictive mean and standard deviation at new points equal
    the weight-space model's, minimised by scipy.optimize."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(10, 2))
    winner, loser = rng.integers(10, size=(2, 30))
    keep = winner != loser
    winner, loser = winner[keep], loser[keep]
    signal_variance, noise = 2.0, 0.6
    model = GPPreferenceModel(
        kernel="linear", optimizer=None, noise=noise, signal_variance=signal_variance, normalize=False
    )
    model.fit(X, PreferenceSet(winner, loser))
    w, evidence, covariance = weight_space_map(X, winner, loser, signal_variance, noise)
    assert np.allclose(model.latent_, X[model.instances_] @ w, atol=1e-5)
    assert model.log_evidence_ == pytest.approx(evidence, abs=1e-5)
    new = rng.normal(size=(4, 2))
    mean, std = model.predict(new, return_std=True)
    assert np.allclose(mean, new @ w, atol=1e-5)
    assert np.allclose(std, np.sqrt(np.einsum("ij,jk,ik->i", new, covariance, new)), atol=1e-4)


def test_linear_label_map_matches_per_label_weights_by_scipy():
    """Label ranking with 3 labels: f_a(x) = x·w_a, the chain of each ranking; the label model's MAP
    latent values equal X ŵ_a from scipy.optimize on the stacked weights."""
    rng = np.random.default_rng(5)
    X = rng.dirichlet(np.ones(4), size=15)
    rankings = np.argsort(-(X @ rng.uniform(size=(3, 4)).T + 0.05 * rng.normal(size=(15, 3))), axis=1)
    noise = 0.3
    model = GPLabelPreferenceModel(graph="ranking", kernel="linear", optimizer=None, noise=noise, normalize=False)
    model.fit(X, rankings)
    winner, loser, sample = ranking_preference_graph(rankings)

    def functional(flat):
        W = flat.reshape(3, 4)
        z = np.einsum("kd,kd->k", X[sample], W[winner] - W[loser]) / (np.sqrt(2) * noise)
        return -np.sum(log_ndtr(z)) + 0.5 * flat @ flat

    W = scipy.optimize.minimize(functional, np.zeros(12), method="BFGS", options={"gtol": 1e-10}).x.reshape(3, 4)
    assert np.allclose(model.latent_, X @ W.T, atol=1e-5)
    assert np.allclose(model.decision_function(X[:3]), X[:3] @ W.T, atol=1e-5)


def test_linear_fit_by_evidence_saves_and_loads(tmp_path):
    """The evidence search over σ alone, and a model file that predicts as the fitted model."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 3))
    model = GPPreferenceModel(kernel="linear", random_state=0).fit(X, X @ [1.0, -2.0, 0.5])
    assert model.length_scale_.shape == (0,) and 1e-3 <= model.noise_ <= 1e2
    assert model.score(X, X @ [1.0, -2.0, 0.5]) > 0.95
    model.save(tmp_path / "linear.npz")
    loaded = load(tmp_path / "linear.npz")
    assert loaded.kernel == "linear" and np.array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("estimator", [GPPreferenceModel, GPLabelPreferenceModel])
def test_an_unknown_kernel_is_refused_by_name(estimator):
    X, y = np.eye(3), np.array([0, 1, 2])
    with pytest.raises(InvalidParameterError, match="'kernel' parameter.*'linear'.*Got 'gaussian'"):
        estimator(kernel="gaussian").fit(X, y)
