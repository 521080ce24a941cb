"""The GP preference model's Laplace approximation and evidence (seed 002; ordercore/gp/laplace.py and
evidence.py) against independent checks: finite differences, a second optimiser, a hand-worked
three-point case, identities of the model."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

from ordercore import GPPreferenceModel, NotPositiveDefiniteError, PreferenceSet
from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.laplace import MapObjective, laplace_fit, probit_loss
from ordercore.numerics.cholesky import cholesky_with_jitter
from tests.gp_problems import central_differences, three_point_chain


def test_probit_loss_derivatives_match_finite_differences():
    z = np.linspace(-8, 8, 77)
    h = 1e-5
    values = probit_loss(z)
    assert np.allclose(values[0], -norm.logcdf(z), rtol=1e-10)
    for order in range(3):
        numeric = (probit_loss(z + h)[order] - probit_loss(z - h)[order]) / (2 * h)
        assert np.allclose(values[order + 1], numeric, rtol=1e-5, atol=1e-7)
    # Far on the violated side ℓ ≈ z²/2: ℓ' ≈ z, ℓ'' ≈ 1 (finite there, not overflowing).
    loss, first, second, third = probit_loss(np.array([-40.0]))
    assert first[0] == pytest.approx(-40.0 - 1 / 40, rel=1e-4) and second[0] == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("ard", [False, True])
def test_log_evidence_gradient_matches_finite_differences(small_problem, ard):
    X, _, pairs = small_problem
    problem = EvidenceProblem(X, pairs, signal_variance=1.3)
    theta = np.array([0.2, -0.1, 0.4, -0.6]) if ard else np.array([0.3, -0.4])
    kernel, K, fit = problem.laplace(theta)
    gradient, tangent = problem.gradient(theta, kernel, K, fit)
    for index, (numeric, latent) in enumerate(central_differences(problem, theta)):
        assert gradient[index] == pytest.approx(numeric, rel=1e-5, abs=1e-7)
        # ∂f̂/∂θ, used as the Newton predictor, against finite differences of f̂ too (f̂ itself is
        # exact only to Newton's tolerance, hence the looser bound).
        assert np.allclose(tangent[:, index], latent, rtol=1e-3, atol=2e-4)


def test_ard_with_tied_length_scales_is_the_isotropic_kernel(small_problem):
    """ARD with every ℓ_l = ℓ is the Gaussian kernel (its special case; two code paths here): the same
    evidence (12), and by the chain rule ∂/∂ln ℓ = Σ_l ∂/∂ln ℓ_l, ∂/∂ln σ equal."""
    X, _, pairs = small_problem
    problem = EvidenceProblem(X, pairs, signal_variance=1.3)
    isotropic, tied = np.array([0.3, -0.4]), np.array([0.3, 0.3, 0.3, -0.4])
    found = {}
    for theta in (isotropic, tied):
        kernel, K, fit = problem.laplace(theta)
        found[theta.size] = fit.log_evidence, problem.gradient(theta, kernel, K, fit)[0]
    (evidence, gradient), (tied_evidence, tied_gradient) = found[2], found[4]
    assert tied_evidence == pytest.approx(evidence, rel=0, abs=1e-8)
    assert tied_gradient[:-1].sum() == pytest.approx(gradient[0], rel=1e-8, abs=1e-10)
    assert tied_gradient[-1] == pytest.approx(gradient[-1], rel=1e-8, abs=1e-10)


def test_noise_and_signal_variance_enter_only_through_their_ratio(small_problem):
    """ln p(D) depends on s/σ only, so ∂/∂ln σ = -2 ∂/∂ln s², and ∂/∂ln s² = Σ G ⊙ K."""
    X, _, pairs = small_problem
    theta = np.array([0.1, -0.3])
    values = []
    for s2, sigma in [(1.0, np.exp(-0.3)), (4.0, 2 * np.exp(-0.3))]:
        problem = EvidenceProblem(X, pairs, signal_variance=s2)
        values.append(problem.laplace(np.array([0.1, np.log(sigma)]))[2].log_evidence)
    assert values[0] == pytest.approx(values[1], rel=1e-9)
    from ordercore.gp.laplace import evidence_gradient

    problem = EvidenceProblem(X, pairs, signal_variance=1.0)
    kernel, K, fit = problem.laplace(theta)
    G, d_log_noise, _ = evidence_gradient(fit, pairs, np.exp(theta[-1]))
    assert d_log_noise == pytest.approx(-2 * np.sum(G * K), rel=1e-8)


def test_newton_reaches_the_minimum_a_quasi_newton_solver_finds(small_problem):
    X, _, pairs = small_problem
    K = SquaredExponential(np.array([1.2]), 1.0)(X, X)
    noise = 0.4
    fit = laplace_fit(K, pairs, noise)
    L, _ = cholesky_with_jitter(K)
    scale = 1 / (np.sqrt(2) * noise)

    def functional(u):  # S(f) of eq. (10) with f = L u, written out independently
        f = L @ u
        z = scale * (f[pairs.winner] - f[pairs.loser])
        return -np.sum(pairs.weight * log_ndtr(z)) + 0.5 * u @ u

    reference = scipy.optimize.minimize(functional, np.zeros(len(K)), method="BFGS", options={"gtol": 1e-10})
    assert np.allclose(fit.latent, L @ reference.x, atol=1e-5)
    # At the MAP, K⁻¹ f̂ = -∂(Σ w ℓ)/∂f  (eq. (11)): alpha reproduces f̂ through K.
    assert np.allclose((K + 1e-8 * np.eye(len(K))) @ fit.alpha, fit.latent, atol=1e-8)
    assert fit.n_iter < 30


def test_newton_from_a_nearby_fit_reaches_the_cold_start_fit(small_problem, monkeypatch):
    """Started from a nearby fit's f̂ with its posterior covariance as inverse Hessian (chord steps),
    Newton reaches the cold start's f̂ and evidence, factoring B only at f̂."""
    import ordercore.gp.laplace

    X, _, pairs = small_problem
    near = laplace_fit(SquaredExponential(np.array([1.18]), 1.0)(X, X), pairs, 0.41)
    K = SquaredExponential(np.array([1.2]), 1.0)(X, X)
    factorisations = []
    cholesky = scipy.linalg.cholesky
    monkeypatch.setattr(
        ordercore.gp.laplace.scipy.linalg,
        "cholesky",
        lambda *args, **kwargs: factorisations.append(1) or cholesky(*args, **kwargs),
    )
    cold = laplace_fit(K, pairs, 0.4)
    n_cold = len(factorisations)
    warm = laplace_fit(K, pairs, 0.4, near.latent, posterior_factor0=near.posterior_factor)
    # K's, B's at f̂, B's after the polishing step: no factorisation on the way.
    assert len(factorisations) - n_cold == 3 < n_cold
    assert np.allclose(warm.latent, cold.latent, atol=1e-9)
    assert warm.log_evidence == pytest.approx(cold.log_evidence, rel=1e-12)
    assert np.allclose(warm.predictive_matrix, cold.predictive_matrix, atol=1e-9)
    # Unpolished, as in a hyperparameter search, the evidence is exact to about √tolerance.
    search = laplace_fit(K, pairs, 0.4, near.latent, 1e-10, near.posterior_factor, polish=False)
    assert search.log_evidence == pytest.approx(cold.log_evidence, abs=1e-4)


def test_a_line_search_trial_is_s_at_its_point(small_problem):
    """A trial along a step (f and z moved linearly, not recomputed) has the value, latent values and
    gradient of S written out by hand at x + t·step."""
    X, _, pairs = small_problem
    L = np.linalg.cholesky(SquaredExponential(np.array([0.9]), 1.0)(X, X) + 1e-8 * np.eye(len(X)))
    scale = 1.0 / (np.sqrt(2.0) * 0.3)
    objective = MapObjective(pairs, scale, lambda u: L @ u)
    rng = np.random.default_rng(1)
    x, step, t = rng.normal(size=len(X)), rng.normal(size=len(X)), 0.37
    trial = objective.along(objective.at(x), step)(t)
    f = L @ (x + t * step)
    z = scale * (f[pairs.winner] - f[pairs.loser])
    assert trial.value == pytest.approx(-np.sum(pairs.weight * log_ndtr(z)) + 0.5 * (x + t * step) @ (x + t * step))
    assert np.allclose(trial.latent, f) and np.allclose(trial.z, z)

    def loss(g):
        return -np.sum(pairs.weight * log_ndtr(scale * (g[pairs.winner] - g[pairs.loser])))

    numeric = [(loss(f + 1e-6 * e) - loss(f - 1e-6 * e)) / 2e-6 for e in np.eye(len(f))]
    assert np.allclose(trial.gradient, numeric, atol=1e-5)


def test_three_point_chain_by_hand():
    """Points far apart (K = I), preferences 0 ≻ 1 ≻ 2: by symmetry f̂ = (a, 0, -a) with
    a = c r(c a), c = 1/(√2 σ), r = N/Φ; Λ = c² ℓ''(ca) · path Laplacian, so
    ln|I + Λ| = ln(1 + c² h) + ln(1 + 3 c² h), h = ℓ''(ca)."""
    noise = 0.7
    c = 1 / (np.sqrt(2) * noise)
    X = np.array([[0.0], [50.0], [100.0]])
    model = GPPreferenceModel(optimizer=None, length_scale=0.5, noise=noise, normalize=False)
    model.fit(X, PreferenceSet.order([0, 1], [1, 2]))
    a, h, evidence = three_point_chain(noise)
    assert np.allclose(model.latent_, [a, 0, -a], atol=1e-6)
    assert model.log_evidence_ == pytest.approx(evidence, rel=1e-6)
    # P(0 ≻ 2) from the joint posterior of (f0, f2): C = (I + Λ)⁻¹.
    laplacian = np.array([[1, -1, 0], [-1, 2, -1], [0, -1, 1]])
    C = np.linalg.inv(np.eye(3) + c**2 * h * laplacian)
    variance = C[0, 0] + C[2, 2] - 2 * C[0, 2]
    expected = ndtr(2 * a / np.sqrt(2 * noise**2 + variance))
    assert model.predict_preference(X[[0]], X[[2]])[0] == pytest.approx(expected, rel=1e-6)


def test_jitter_helper_names_its_error():
    with pytest.raises(NotPositiveDefiniteError):
        cholesky_with_jitter(np.array([[1.0, 2.0], [2.0, 1.0]]))
    L, jitter = cholesky_with_jitter(np.ones((3, 3)))  # rank one: needs (and gets) jitter
    assert np.allclose(L @ L.T, np.ones((3, 3)) + jitter * np.eye(3))


def test_length_scale_prior_gives_map_ii_with_its_gradient(small_problem, monkeypatch):
    from ordercore.gp.evidence import _Search

    X, _, pairs = small_problem
    problem = EvidenceProblem(X, pairs, 1.0, length_scale_prior=(3.0, 1.5))
    # Finite differences need Newton converged far below the search's working accuracy: cold, polished
    # fits, as the final fit is.
    final_fit = EvidenceProblem.laplace
    monkeypatch.setattr(EvidenceProblem, "laplace", lambda self, theta, *args, **kwargs: final_fit(self, theta))

    def objective(theta):  # a cold Newton solve each time, on one fixed scale of the objective
        search = _Search(problem, bounds=None)
        search.objective_scale = pairs.weight.sum()
        return search.negative_log_evidence(theta)

    theta = np.array([0.1, 0.5, -0.2, -0.5])
    value, gradient = objective(theta)
    for index in range(theta.size):
        shift = np.zeros_like(theta)
        shift[index] = 1e-4
        numeric = (objective(theta + shift)[0] - objective(theta - shift)[0]) / 2e-4
        assert gradient[index] == pytest.approx(numeric, rel=1e-4, abs=1e-8)
    # The value is -(evidence + Σ (a ln ℓ - b ℓ)) per unit weight.
    evidence = problem.laplace(theta)[2].log_evidence
    prior = np.sum(3.0 * theta[:-1] - 1.5 * np.exp(theta[:-1]))
    assert value == pytest.approx(-(evidence + prior) / pairs.weight.sum(), rel=1e-10)
    # A strong prior holds every length scale near its mode (a - 1) / b = 2, where plain ARD evidence
    # switches the useless third feature off (a length scale at the upper bound).
    preferences = PreferenceSet.order(pairs.winner, pairs.loser)
    plain = GPPreferenceModel(kernel="ard", length_scale_prior=None, random_state=0).fit(X, preferences)
    strong = GPPreferenceModel(kernel="ard", length_scale_prior=(401.0, 200.0), random_state=0).fit(X, preferences)
    assert plain.length_scale_.max() > 50
    assert np.all(np.abs(strong.length_scale_ - 2.0) < 0.3)
    with pytest.raises(ValueError, match="shape, rate"):
        GPPreferenceModel(length_scale_prior=(1.0, -1.0)).fit(X, preferences)


def test_probit_loss_is_finite_and_silent_for_huge_z_and_follows_the_asymptote():
    """Far on the violated side (x = -z ≫ 1) r ≈ x + 1/x, ℓ'' ≈ 1 - 1/x², ℓ''' ≈ -2/x³ (the inverse Mills
    ratio's series by hand); far on the right side all three derivatives are 0.  z·z had overflowed with a
    RuntimeWarning (signal_variance=1e15), and ℓ''' had come out with the wrong sign at z = -999."""
    x = np.array([999.0, 1e3, 1e4, 1e8, 1e160, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, first, second, third = probit_loss(-x)
        right_side = probit_loss(np.array([40.0, 1e8, 1e160, 1e300]))
    with np.errstate(over="ignore"):  # x³ of 1e160 is inf here: the term 0
        assert np.allclose(-first, x + 1 / x, rtol=1e-14)
        assert np.allclose(second, 1 - 1 / x**2, rtol=1e-12)
        assert np.allclose(third, -2 / x**3 + 24 / x**5, rtol=1e-6, atol=0)
    assert all(np.all(values == 0) for values in right_side)


def test_probit_loss_matches_scipy_near_the_series_and_its_derivatives_on_either_side():
    """r = exp(log N(z) - log Φ(z)) by scipy.stats.norm up to z = -49; across the series' start at -50 the
    derivatives still match finite differences of the one below (h = 1e-4, relative to their size)."""
    z = np.linspace(-49.0, 5.0, 55)
    assert np.allclose(-probit_loss(z)[1], np.exp(norm.logpdf(z) - norm.logcdf(z)), rtol=1e-12)
    z, h = np.linspace(-200.0, -30.0, 69), 1e-4
    values = probit_loss(z)
    for order in (1, 2):
        numeric = (probit_loss(z + h)[order] - probit_loss(z - h)[order]) / (2 * h)
        assert np.allclose(values[order + 1], numeric, rtol=1e-4, atol=0)
