"""The sparse GP preference model (subset-of-regressors prior, issue 15) against independent checks:
the exact model when every instance is an inducing input, finite differences of the evidence, a
quasi-Newton solver and dense linear algebra for the posterior, tracemalloc for the memory estimate."""

import tracemalloc

import numpy as np
import pytest
import scipy.optimize
from scipy.special import log_ndtr
from sklearn.cluster import KMeans

from ordercore import GPLabelPreferenceModel, GPPreferenceModel, MemoryBudgetError, PreferenceSet
from ordercore.gp import estimator as gp_estimator
from ordercore.gp import sparse as gp_sparse
from ordercore.gp.budget import fit_memory
from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.evidence import EvidenceProblem, maximize_evidence
from ordercore.gp.labels import label_preference_graph
from ordercore.gp.laplace import PairData
from ordercore.gp.sparse import InducingFeatures, SparseEvidenceProblem, inducing_inputs, sparse_laplace_fit
from ordercore.models.files import read_model
from tests.gp_problems import central_differences, ranked_pairs


@pytest.fixture
def problem_data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2
    winner, loser = ranked_pairs(y, 150, rng)
    pairs = PairData(winner, loser, rng.uniform(0.5, 2.0, winner.size), len(X))
    return X, y, pairs, rng.normal(size=(12, 3))


def label_problem(n=30, n_labels=3, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = rng.integers(n_labels, size=n)
    winner, loser, sample = label_preference_graph(labels, n_labels, "ordinal")
    return X, PairData(winner * n + sample, loser * n + sample, np.ones(winner.size), n_labels * n)


@pytest.mark.parametrize("theta", [np.array([0.3, -0.4]), np.array([0.2, -0.1, 0.4, -0.6])])
def test_evidence_gradient_matches_finite_differences(problem_data, theta):
    X, _, pairs, Z = problem_data
    problem = SparseEvidenceProblem(X, Z, pairs, signal_variance=1.3)
    gradient, _ = problem.gradient(theta, *problem.laplace(theta))
    assert gradient == pytest.approx(np.array([d for d, _ in central_differences(problem, theta)]), rel=1e-5, abs=1e-7)


def test_label_blocks_gradient_matches_finite_differences():
    X, pairs = label_problem()
    problem = SparseEvidenceProblem(X, X[:8] + 0.1, pairs, 1.0, n_blocks=3)
    theta = np.array([0.1, 0.3, -0.2])
    gradient, _ = problem.gradient(theta, *problem.laplace(theta))
    assert gradient == pytest.approx(np.array([d for d, _ in central_differences(problem, theta)]), rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("theta", [np.array([0.3, -0.4]), np.array([0.2, -0.1, 0.4, -0.6])])
def test_inducing_inputs_at_every_instance_give_the_exact_model(problem_data, theta):
    """With Z = the instances, Q = K: the evidence, f̂ and the gradient are the exact model's."""
    X, _, pairs, _ = problem_data
    exact, sparse = EvidenceProblem(X, pairs, 1.3), SparseEvidenceProblem(X, X, pairs, 1.3)
    exact_fit, sparse_fit = exact.laplace(theta), sparse.laplace(theta)
    assert sparse_fit[2].log_evidence == pytest.approx(exact_fit[2].log_evidence, abs=1e-6)
    assert np.allclose(sparse_fit[2].instance_latent, exact_fit[2].latent, atol=1e-6)
    assert np.allclose(sparse.gradient(theta, *sparse_fit)[0], exact.gradient(theta, *exact_fit)[0], rtol=1e-6)


@pytest.mark.parametrize("laplacian_route", [1e9, 0.0])
def test_hessian_and_pair_variances_match_dense_algebra_block_by_block(problem_data, monkeypatch, laplacian_route):
    """At a small σ most preferences sit far in the probit's tail and are left out of B, the rest enter
    a few at a time (or all through Λ): B = I + Dᵀ diag(c) D and v = diag(D B⁻¹ Dᵀ) (D = A Φ) formed
    densely agree."""
    monkeypatch.setattr(gp_sparse, "PAIR_BLOCK", 7)
    monkeypatch.setattr(gp_sparse, "LAPLACIAN_ROUTE", laplacian_route)
    X, _, pairs, Z = problem_data
    noise = 1e-3
    features = InducingFeatures.build(SquaredExponential(np.array([2.0]), 1.0), X, Z, 1)
    fit = sparse_laplace_fit(features, pairs, noise)
    ratio = np.exp(-0.5 * fit.z**2 - 0.5 * np.log(2 * np.pi) - log_ndtr(fit.z))
    curvature = pairs.weight * ratio * (fit.z + ratio) / (2 * noise**2)
    D = features.phi[pairs.winner] - features.phi[pairs.loser]
    B = np.eye(len(Z)) + D.T @ (curvature[:, None] * D)
    assert np.mean(curvature * np.sum(D**2, axis=1) < np.finfo(float).eps / curvature.size) > 0.3  # left out
    R = features.hessian_factor(pairs, curvature)
    assert np.allclose(R.T @ R, B, rtol=0, atol=1e-12 * np.abs(B).max())
    assert np.allclose(features.pair_variances(pairs, R), np.einsum("ij,ji->i", D, np.linalg.solve(B, D.T)))


@pytest.mark.parametrize("theta", [np.array([0.7, np.log(1e-3)]), np.array([0.7, 0.1, -0.2, np.log(0.05)])])
def test_fit_and_gradient_from_the_active_preferences_match_every_preference(problem_data, monkeypatch, theta):
    """Leaving the tail's preferences out of B, and forming it a few preferences at a time, changes
    neither the evidence, ŵ nor the gradient beyond rounding: against B from every preference at once."""
    X, _, pairs, Z = problem_data
    problem = SparseEvidenceProblem(X, Z, pairs, 1.0)
    kernel, features, fast = problem.laplace(theta)
    fast_gradient = problem.gradient(theta, kernel, features, fast)[0]
    monkeypatch.setattr(gp_sparse, "NEGLIGIBLE_HESSIAN", 0.0)
    monkeypatch.setattr(gp_sparse, "PAIR_BLOCK", pairs.winner.size)
    kernel, features, slow = problem.laplace(theta)
    assert fast.log_evidence == pytest.approx(slow.log_evidence, rel=1e-12)
    assert np.allclose(fast.weights, slow.weights, rtol=1e-9, atol=1e-12)
    assert np.allclose(fast_gradient, problem.gradient(theta, kernel, features, slow)[0], rtol=1e-8, atol=1e-10)


def test_inducing_inputs_are_the_k_means_centres_on_every_thread():
    """One thread places the centres that k-means with its default threads places, to rounding."""
    rng = np.random.default_rng(0)
    inputs = rng.normal(size=(3000, 4))
    reference = KMeans(40, n_init=1, max_iter=gp_sparse.KMEANS_MAX_ITER, random_state=0).fit(np.unique(inputs, axis=0))
    assert np.allclose(inducing_inputs(inputs, 40, 0), reference.cluster_centers_, rtol=0, atol=1e-12)


def test_label_blocks_at_every_instance_give_the_exact_model():
    X, pairs = label_problem()
    theta = np.array([0.1, 0.3, -0.2])
    exact, sparse = EvidenceProblem(X, pairs, 1.0, n_blocks=3), SparseEvidenceProblem(X, X, pairs, 1.0, n_blocks=3)
    exact_fit, sparse_fit = exact.laplace(theta), sparse.laplace(theta)
    assert sparse_fit[2].log_evidence == pytest.approx(exact_fit[2].log_evidence, abs=1e-6)
    assert np.allclose(sparse.gradient(theta, *sparse_fit)[0], exact.gradient(theta, *exact_fit)[0], rtol=1e-6)


def test_map_and_predictive_distribution_match_dense_algebra(problem_data):
    """ŵ against BFGS on S(w) written out by hand; the predictive mean and covariance of f at new
    points against the DTC formulas k** - Q** + φᵀ Σ φ with Σ = (I + ΦᵀΛΦ)⁻¹ formed densely."""
    X, _, pairs, Z = problem_data
    theta = np.array([0.2, -0.3])
    problem = SparseEvidenceProblem(X, Z, pairs, 1.0)
    kernel, features, fit = problem.laplace(theta)
    noise = np.exp(theta[-1])

    K_zz = kernel(Z, Z) + 1e-8 * np.eye(len(Z))
    L = np.linalg.cholesky(K_zz)
    Phi = kernel(X, Z) @ np.linalg.inv(L).T
    D = Phi[pairs.winner] - Phi[pairs.loser]

    def S(w):
        z = D @ w / (np.sqrt(2) * noise)
        return -np.sum(pairs.weight * log_ndtr(z)) + 0.5 * w @ w

    reference = scipy.optimize.minimize(S, np.zeros(len(Z)), method="BFGS", options={"gtol": 1e-10})
    assert np.allclose(fit.weights, reference.x, atol=1e-5)

    z = D @ fit.weights / (np.sqrt(2) * noise)
    ratio = np.exp(-0.5 * z**2 - 0.5 * np.log(2 * np.pi) - log_ndtr(z))
    curvature = pairs.weight * ratio * (z + ratio) / (2 * noise**2)
    Sigma = np.linalg.inv(np.eye(len(Z)) + D.T @ (curvature[:, None] * D))
    assert fit.log_evidence == pytest.approx(-S(fit.weights) - 0.5 * np.linalg.slogdet(np.linalg.inv(Sigma))[1])

    new = np.random.default_rng(0).normal(size=(5, 3))
    phi_new = kernel(new, Z) @ np.linalg.inv(L).T
    covariance = kernel(new, new) - phi_new @ phi_new.T + phi_new @ Sigma @ phi_new.T
    cross = kernel(new, Z)
    assert np.allclose(cross @ fit.alpha, phi_new @ fit.weights)
    assert np.allclose(kernel(new, new) - cross @ fit.predictive_matrix @ cross.T, covariance, atol=1e-8)


def test_estimator_with_every_instance_inducing_predicts_as_the_exact_one(problem_data):
    X, y, pairs, _ = problem_data
    preferences = PreferenceSet(pairs.winner, pairs.loser, w=pairs.weight)
    options = dict(kernel="rbf", length_scale_prior=None, n_restarts=0, random_state=0)
    exact = GPPreferenceModel(method="exact", **options).fit(X, preferences)
    sparse = GPPreferenceModel(method="sparse", n_inducing=len(X), **options).fit(X, preferences)
    assert (exact.method_, sparse.method_) == ("exact", "sparse")
    assert sparse.log_evidence_ == pytest.approx(exact.log_evidence_, abs=1e-4)
    new = np.random.default_rng(1).normal(size=(30, 3))
    for a, b in zip(exact.predict(new, return_std=True), sparse.predict(new, return_std=True), strict=True):
        assert np.allclose(a, b, atol=1e-4)
    pair_mean, pair_variance = sparse.predict_difference(new[:10], new[10:20])
    exact_mean, exact_variance = exact.predict_difference(new[:10], new[10:20])
    assert np.allclose(pair_mean, exact_mean, atol=1e-4) and np.allclose(pair_variance, exact_variance, atol=1e-4)


def test_fewer_inducing_inputs_still_learn_the_order():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(600, 2))
    y = np.sin(X[:, 0]) + X[:, 1]
    model = GPPreferenceModel(method="sparse", n_inducing=30, random_state=0).fit(
        X, PreferenceSet.order(*ranked_pairs(y, 800, rng))
    )
    assert len(model._inputs) == 30 and model.latent_.shape == model.instances_.shape
    test = ranked_pairs(y, 2000, rng)
    f = model.predict(X)
    assert np.mean(f[test[0]] > f[test[1]]) > 0.9
    chosen = model.suggest_pairs(np.array([[0, 1], [2, 3], [4, 5]]), k=2)
    assert chosen.shape == (2, 2)


def test_auto_fits_exactly_up_to_its_threshold_and_sparse_above(problem_data, monkeypatch):
    X, y, pairs, _ = problem_data
    preferences = PreferenceSet(pairs.winner, pairs.loser)
    options = dict(n_restarts=0, random_state=0, n_inducing=10)
    monkeypatch.setattr(gp_estimator, "EXACT_MAX_LATENT", len(X))
    assert GPPreferenceModel(**options).fit(X, preferences).method_ == "exact"
    monkeypatch.setattr(gp_estimator, "EXACT_MAX_LATENT", len(X) - 1)
    model = GPPreferenceModel(**options).fit(X, preferences)
    assert model.method_ == "sparse" and len(model._inputs) == 10


@pytest.mark.parametrize(
    ("method", "n_rows", "pairs_per_row"), [("exact", 700, 2), ("sparse", 3000, 2), ("sparse", 1500, 20)]
)
def test_memory_estimate_bounds_the_measured_peak(method, n_rows, pairs_per_row):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 6))
    y = X @ rng.normal(size=6)
    winner, loser = ranked_pairs(y, pairs_per_row * len(X), rng)
    instances, inverse = np.unique(np.concatenate([winner, loser]), return_inverse=True)
    pairs = PairData(inverse[: winner.size], inverse[winner.size :], np.ones(winner.size), instances.size)
    start = np.zeros(7)
    tracemalloc.start()
    try:
        if method == "exact":
            problem = EvidenceProblem(X[instances], pairs, 1.0)
        else:
            problem = SparseEvidenceProblem(X[instances], inducing_inputs(X[instances], 150, 0), pairs, 1.0)
        maximize_evidence(problem, start, 1, rng)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = fit_memory(method, instances.size, winner.size, 150)
    assert peak <= estimate <= 3 * peak


def test_a_fit_over_the_memory_limit_is_refused_before_any_work(problem_data, monkeypatch):
    X, y, pairs, _ = problem_data
    preferences = PreferenceSet(pairs.winner, pairs.loser)
    model = GPPreferenceModel(n_restarts=0, random_state=0).fit(X, preferences)
    before = model.predict(X)
    monkeypatch.setattr(gp_estimator, "maximize_evidence", lambda *a, **k: pytest.fail("the fit started"))
    model.set_params(method="exact", memory_limit=1e-6)
    with pytest.raises(MemoryBudgetError, match=r"exact GP fit over 40 latent values.*method='sparse'"):
        model.fit(X, preferences)
    assert np.array_equal(model.predict(X), before) and model.method_ == "exact"
    with pytest.raises(MemoryBudgetError, match="lower n_inducing"):
        GPPreferenceModel(method="sparse", memory_limit=1e-6).fit(X, preferences)


def test_progress_reports_each_evaluation_and_can_abandon_the_fit(problem_data):
    X, y, pairs, _ = problem_data
    preferences = PreferenceSet(pairs.winner, pairs.loser)
    seen = []
    model = GPPreferenceModel(method="sparse", n_inducing=10, random_state=0)
    model.fit(X, preferences, progress=lambda evaluations, value: seen.append((evaluations, value)))
    assert [count for count, _ in seen] == list(range(1, len(seen) + 1)) and len(seen) > 2
    assert seen[-1][1] == pytest.approx(max(value for _, value in seen))

    class Cancelled(Exception):
        pass

    def cancel(evaluations, value):
        raise Cancelled

    with pytest.raises(Cancelled):
        GPPreferenceModel(random_state=0).fit(X, preferences, progress=cancel)


def test_sparse_models_save_and_load(problem_data, tmp_path):
    X, y, pairs, _ = problem_data
    model = GPPreferenceModel(method="sparse", n_inducing=10, n_restarts=0, random_state=0)
    model.fit(X, PreferenceSet(pairs.winner, pairs.loser))
    model.save(tmp_path / "gp.npz")
    loaded = read_model(tmp_path / "gp.npz").estimator
    assert loaded.method_ == "sparse" and np.array_equal(loaded.latent_, model.latent_)
    for a, b in zip(loaded.predict(X, return_std=True), model.predict(X, return_std=True), strict=True):
        assert np.array_equal(a, b)
    labels = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    classifier = GPLabelPreferenceModel(method="sparse", n_inducing=8, random_state=0).fit(X, labels)
    classifier.save(tmp_path / "labels.npz")
    assert np.array_equal(read_model(tmp_path / "labels.npz").estimator.predict(X), classifier.predict(X))


def test_a_memory_limit_beyond_float64_bytes_is_no_limit(problem_data):
    """Corpus 13 GP14: memory_limit=1e300 (GB: 1e309 bytes, beyond float64) ended in 'cannot convert float
    infinity to integer'; it limits nothing, so the fit is the one without a limit's (None: 40 % of memory,
    far above these 40 rows' need)."""
    X, _, pairs, _ = problem_data
    preferences = PreferenceSet(pairs.winner, pairs.loser)
    unlimited = GPPreferenceModel(optimizer=None, memory_limit=1e300).fit(X, preferences)
    np.testing.assert_array_equal(
        unlimited.predict(X), GPPreferenceModel(optimizer=None).fit(X, preferences).predict(X)
    )
