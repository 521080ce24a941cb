"""The GP preference model (seed 002) against independent checks: finite differences, a second
optimiser, a hand-worked three-point case, identities of the model, Monte Carlo for BALD."""

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

from ordercore import GPLabelPreferenceModel, GPPreferenceModel, NotPositiveDefiniteError, PreferenceSet
from ordercore.cholesky import cholesky_with_jitter
from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.estimator import DEFAULT_LENGTH_SCALE_PRIOR
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.laplace import PairData, laplace_fit, probit_loss
from ordercore.pair_scores import bald_information, binary_entropy


def ranked_pairs(y, n_pairs, rng):
    i, j = rng.integers(len(y), size=(2, 3 * n_pairs))
    keep = y[i] != y[j]
    i, j = i[keep][:n_pairs], j[keep][:n_pairs]
    return np.where(y[i] > y[j], i, j), np.where(y[i] > y[j], j, i)


@pytest.fixture
def small_problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2
    winner, loser = ranked_pairs(y, 60, rng)
    pairs = PairData(winner, loser, rng.uniform(0.5, 2.0, winner.size), len(X))
    return X, y, pairs


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


def central_differences(problem, theta, step=1e-5):
    """For each hyperparameter in turn: the central differences of ln p(D) and of f̂ (cold Laplace
    fits at theta ± step)."""
    for index in range(theta.size):
        shift = np.zeros_like(theta)
        shift[index] = step
        plus, minus = problem.laplace(theta + shift)[2], problem.laplace(theta - shift)[2]
        yield (plus.log_evidence - minus.log_evidence) / (2 * step), (plus.latent - minus.latent) / (2 * step)


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


def test_three_point_chain_by_hand():
    """Points far apart (K = I), preferences 0 ≻ 1 ≻ 2: by symmetry f̂ = (a, 0, -a) with
    a = c r(c a), c = 1/(√2 σ), r = N/Φ; Λ = c² ℓ''(ca) · path Laplacian, so
    ln|I + Λ| = ln(1 + c² h) + ln(1 + 3 c² h), h = ℓ''(ca)."""
    noise = 0.7
    c = 1 / (np.sqrt(2) * noise)
    X = np.array([[0.0], [50.0], [100.0]])
    model = GPPreferenceModel(optimizer=None, length_scale=0.5, noise=noise, normalize=False)
    model.fit(X, PreferenceSet.order([0, 1], [1, 2]))
    ratio = lambda t: norm.pdf(t) / norm.cdf(t)  # noqa: E731
    a = scipy.optimize.brentq(lambda a: a - c * ratio(c * a), 0, 10)
    assert np.allclose(model.latent_, [a, 0, -a], atol=1e-6)
    z = c * a
    h = ratio(z) * (z + ratio(z))
    S = -2 * norm.logcdf(z) + a**2
    evidence = -S - 0.5 * (np.log(1 + c**2 * h) + np.log(1 + 3 * c**2 * h))
    assert model.log_evidence_ == pytest.approx(evidence, rel=1e-6)
    # P(0 ≻ 2) from the joint posterior of (f0, f2): C = (I + Λ)⁻¹.
    laplacian = np.array([[1, -1, 0], [-1, 2, -1], [0, -1, 1]])
    C = np.linalg.inv(np.eye(3) + c**2 * h * laplacian)
    variance = C[0, 0] + C[2, 2] - 2 * C[0, 2]
    expected = ndtr(2 * a / np.sqrt(2 * noise**2 + variance))
    assert model.predict_preference(X[[0]], X[[2]])[0] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "ard"])
def test_difference_of_nearby_points_matches_the_dense_joint_posterior(small_problem, kernel):
    """Mean and variance of f(a) - f(b), and P(a ≻ b), for a within 0.01-0.2 length scales of b, where
    Cov(f(a), f(b)) nearly cancels Var f(a) + Var f(b).  Reference: the 2m × 2m joint Laplace posterior
    of [f(Xa); f(Xb)] (seed 002 eqs. (16)-(19)), from the fitted hyperparameters and f̂ alone, with
    the kernel, the standardisation, ∇ ln p and Λ written out here."""
    X, _, pairs = small_problem
    model = GPPreferenceModel(kernel=kernel, random_state=0)
    model.fit(X, PreferenceSet.order(pairs.winner, pairs.loser, weight=pairs.weight))
    length_scale, s2, noise = model.length_scale_, model.signal_variance_, model.noise_
    assert length_scale.shape == ((3,) if kernel == "ard" else (1,))

    center, spread = X.mean(axis=0), X.std(axis=0)  # normalize=True: the fit's X standardised

    def covariance(A, B):  # s² exp(-½ Σ_d (a_d - b_d)² / ℓ_d²) on standardised rows of A, B
        scaled = ((A - center) / spread)[:, None, :] - ((B - center) / spread)[None, :, :]
        return s2 * np.exp(-0.5 * np.sum((scaled / length_scale) ** 2, axis=2))

    rows = np.unique(np.concatenate([pairs.winner, pairs.loser]))
    assert np.array_equal(model.instances_, rows)
    winner, loser = np.searchsorted(rows, pairs.winner), np.searchsorted(rows, pairs.loser)
    f = model.latent_
    c = 1 / (np.sqrt(2) * noise)
    z = c * (f[winner] - f[loser])
    ratio = np.exp(norm.logpdf(z) - norm.logcdf(z))  # N(z) / Φ(z)
    # β = ∇_f Σ w ln Φ(z) at f̂; the MAP satisfies f̂ = K β (eq. (11)).
    beta = np.zeros(rows.size)
    np.add.at(beta, winner, pairs.weight * c * ratio)
    np.add.at(beta, loser, -pairs.weight * c * ratio)
    K = covariance(X[rows], X[rows])
    assert np.allclose(K @ beta, f, atol=1e-6)
    # Λ = -∇∇ Σ w ln Φ(z) = Σ_k w_k c² r(z + r) (e_winner - e_loser)(e_winner - e_loser)ᵀ.
    incidence = np.zeros((winner.size, rows.size))
    incidence[np.arange(winner.size), winner], incidence[np.arange(winner.size), loser] = 1.0, -1.0
    curvature = incidence.T @ np.diag(pairs.weight * c**2 * ratio * (z + ratio)) @ incidence
    # (K + Λ⁻¹)⁻¹ = (I + Λ K)⁻¹ Λ, defined although Λ (a graph Laplacian) is singular.
    predictive = np.linalg.solve(np.eye(rows.size) + curvature @ K, curvature)

    # Pairs of nearby points: at training inputs (low posterior variance) and elsewhere; b is a at a
    # step of 0.01, 0.05 or 0.2 length scales (in standardised units) in a random direction.
    rng = np.random.default_rng(7)
    Xa = np.vstack([X[rows[:6]], rng.normal(size=(6, 3))])
    direction = rng.normal(size=Xa.shape)
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    step = np.tile([0.01, 0.05, 0.2], 4)[:, None]
    Xb = Xa + spread * length_scale * step * direction
    m = len(Xa)

    # Joint posterior of g = [f(Xa); f(Xb)] (eqs. (17)-(18)): mean K*ᵀ β, Σ* = K** - K*ᵀ (K + Λ⁻¹)⁻¹ K*.
    both = np.vstack([Xa, Xb])
    cross = covariance(both, X[rows])
    joint_mean = cross @ beta
    joint_covariance = covariance(both, both) - cross @ predictive @ cross.T
    difference = np.hstack([np.eye(m), -np.eye(m)])  # g ↦ f(Xa) - f(Xb)
    expected_mean = difference @ joint_mean
    expected_variance = np.diag(difference @ joint_covariance @ difference.T)
    # The cross-covariance matters: the difference is far less uncertain than the two values.
    marginal_variances = np.diag(joint_covariance)[:m] + np.diag(joint_covariance)[m:]
    assert np.all(expected_variance < 0.05 * marginal_variances)

    mean, variance = model.predict_difference(Xa, Xb)
    assert np.allclose(mean, expected_mean, rtol=1e-9, atol=1e-12)
    # The fit's K carries a jitter of 1e-8 s² on its diagonal, which Λ ~ 1/σ² amplifies.
    assert np.allclose(variance, expected_variance, rtol=1e-5, atol=1e-12)
    expected_preference = norm.cdf(expected_mean / np.sqrt(2 * noise**2 + expected_variance))
    assert np.allclose(model.predict_preference(Xa, Xb), expected_preference, rtol=1e-6, atol=1e-12)


def test_preference_probabilities_are_complementary_and_std_positive(small_problem):
    X, y, pairs = small_problem
    model = GPPreferenceModel(random_state=0, n_restarts=1).fit(X, PreferenceSet.order(pairs.winner, pairs.loser))
    rng = np.random.default_rng(1)
    Xa, Xb = rng.normal(size=(40, 3)), rng.normal(size=(40, 3))
    assert np.allclose(model.predict_preference(Xa, Xb) + model.predict_preference(Xb, Xa), 1.0, atol=1e-12)
    mean, std = model.predict(Xa, return_std=True)
    assert np.all(std > 0) and np.all(std <= np.sqrt(model.signal_variance_) + 1e-12)
    assert np.allclose(model.predict_preference(Xa, Xa), 0.5)


def test_learns_the_order_of_a_smooth_function():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 2))
    y = X @ np.array([1.0, 2.0])
    winner, loser = ranked_pairs(y, 300, rng)
    model = GPPreferenceModel(kernel="ard", random_state=0).fit(X, PreferenceSet.order(winner, loser))
    X_test = rng.uniform(size=(300, 2))
    y_test = X_test @ np.array([1.0, 2.0])
    a, b = ranked_pairs(y_test, 2000, rng)
    assert np.mean(model.predict_preference(X_test[a], X_test[b]) > 0.5) > 0.95
    assert model.score(X_test, PreferenceSet.order(a, b)) > 0.95


def test_weights_scale_the_log_likelihood_and_margins_are_ignored(small_problem):
    X, _, pairs = small_problem
    once = PreferenceSet.order(pairs.winner[:20], pairs.loser[:20])
    twice = once + once[:5]
    weighted = PreferenceSet.order(once.i, once.j, margin=3.0, weight=np.r_[np.full(5, 2.0), np.ones(15)])
    options = dict(optimizer=None, length_scale=1.0, noise=0.5)
    a = GPPreferenceModel(**options).fit(X, twice)
    b = GPPreferenceModel(**options).fit(X, weighted)
    assert np.allclose(a.latent_, b.latent_, atol=1e-9)
    assert a.log_evidence_ == pytest.approx(b.log_evidence_, rel=1e-10)


def test_equal_preferences_pull_values_together():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = GPPreferenceModel(optimizer=None, length_scale=0.1, noise=0.3, normalize=False)
    model.fit(X, PreferenceSet.order(0, 3) + PreferenceSet.equal(1, 2))
    assert model.latent_[1] == pytest.approx(model.latent_[2], abs=1e-10)
    assert model.latent_[0] > 0 > model.latent_[-1]


def test_only_mentioned_instances_enter_the_gp(small_problem):
    X, _, pairs = small_problem
    preferences = PreferenceSet.order([3, 7, 7], [9, 3, 12])
    model = GPPreferenceModel(optimizer=None).fit(X, preferences)
    assert model.instances_.tolist() == [3, 7, 9, 12]


def test_scores_are_accepted_as_all_implied_pairs():
    X = np.arange(6.0)[:, None]
    y = np.array([0.0, 1.0, 1.0, np.nan, 3.0, 2.0])
    a = GPPreferenceModel(optimizer=None).fit(X, y)
    # 5 scored rows, one tie: C(5, 2) - 1 = 9 pairs.
    assert len(a.preferences_) == 9
    assert np.all(y[a.preferences_.i] > y[a.preferences_.j])


@pytest.mark.parametrize(
    ("preferences", "error", "match"),
    [
        (PreferenceSet.at_least(0, 1.0), ValueError, "pairs of rows only"),
        (PreferenceSet.order(0, 99), ValueError, "out of range"),
        (PreferenceSet.order(0, 1, weight=0.0), ValueError, "positive weight"),
        ("0>1", TypeError, "PreferenceSet or scores"),
        (np.ones(3), ValueError, "shape"),
        (None, ValueError, "needs preferences"),
    ],
)
def test_bad_input_raises_and_keeps_the_last_fit(small_problem, preferences, error, match):
    X, _, pairs = small_problem
    model = GPPreferenceModel(optimizer=None).fit(X, PreferenceSet.order(pairs.winner, pairs.loser))
    before = model.predict(X)
    with pytest.raises(error, match=match):
        model.fit(X, preferences)
    assert np.array_equal(model.predict(X), before)


def test_bad_features_raise(small_problem):
    X, _, pairs = small_problem
    preferences = PreferenceSet.order(pairs.winner, pairs.loser)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GPPreferenceModel().fit(bad, preferences)
    model = GPPreferenceModel(optimizer=None).fit(X, preferences)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="pair up"):
        model.predict_preference(X[:3], X[:4])


def test_jitter_helper_names_its_error():
    with pytest.raises(NotPositiveDefiniteError):
        cholesky_with_jitter(np.array([[1.0, 2.0], [2.0, 1.0]]))
    L, jitter = cholesky_with_jitter(np.ones((3, 3)))  # rank one: needs (and gets) jitter
    assert np.allclose(L @ L.T, np.ones((3, 3)) + jitter * np.eye(3))


# ---------------------------------------------------------------- BALD and the next pair
def test_bald_matches_monte_carlo():
    rng = np.random.default_rng(0)
    noise = 0.5
    means = np.array([0.0, 0.3, -1.0, 2.0, 0.1, 4.0])
    variances = np.array([0.01, 1.0, 0.5, 3.0, 10.0, 0.2])
    samples = rng.standard_normal((400_000, 1)) * np.sqrt(variances) + means
    p = ndtr(samples / (np.sqrt(2) * noise))
    predictive = binary_entropy(p.mean(axis=0))
    monte_carlo = predictive - binary_entropy(p).mean(axis=0)
    analytic = bald_information(means, variances, noise)
    assert np.allclose(analytic, monte_carlo, atol=0.02)
    assert np.array_equal(np.argsort(analytic), np.argsort(monte_carlo))


def test_suggest_pairs_skips_settled_pairs_and_prefers_uncertain_ones():
    X = np.linspace(0, 1, 8)[:, None]
    preferences = PreferenceSet.order([1, 2], [2, 3]) + PreferenceSet.equal(5, 6)
    model = GPPreferenceModel(optimizer=None, length_scale=0.3, noise=0.2).fit(X, preferences)
    candidates = np.array([[1, 3], [3, 1], [2, 1], [6, 5], [0, 7], [4, 7], [1, 7]])
    chosen, scores = model.suggest_pairs(candidates, k=10, return_scores=True)
    # (1, 3) follows by transitivity, (2, 1) and (6, 5) were asked: only pairs touching 0, 4, 7 remain.
    assert {tuple(pair) for pair in chosen} == {(0, 7), (4, 7), (1, 7)}
    assert np.all(np.diff(scores) <= 0)
    gains = bald_information(*model.predict_difference(X[chosen[:, 0]], X[chosen[:, 1]]), model.noise_)
    assert np.allclose(scores, gains)
    with pytest.raises(ValueError, match="shape"):
        model.suggest_pairs([1, 2])
    with pytest.raises(ValueError, match="outside"):
        model.suggest_pairs([[0, 8]])


def test_lp_model_ranks_pairs_by_margin_and_by_disagreement():
    from ordercore import OrderPreferenceRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 1))
    y = np.full(30, np.nan)
    y[:6] = X[:6, 0] ** 2
    svr = OrderPreferenceRegressor(gamma=3.0, lambda2=0).fit(X, y)
    ssl = OrderPreferenceRegressor(gamma=3.0).fit(X, y, PreferenceSet.order([10, 11], [12, 13]))
    candidates = np.array([[a, b] for a in range(6, 20) for b in range(a + 1, 20)])
    chosen, scores = ssl.suggest_pairs(candidates, k=5, return_scores=True)
    f = ssl.predict(X)
    margins = np.abs(f[candidates[:, 0]] - f[candidates[:, 1]])
    open_ = ~np.isin(candidates, [[10, 12], [11, 13]]).all(axis=1)
    assert np.allclose(-scores, np.sort(margins[open_])[:5])
    chosen, scores = ssl.suggest_pairs(candidates, k=3, reference=svr, return_scores=True)
    g = svr.predict(X)
    gap = np.abs((f - g)[candidates[:, 0]] - (f - g)[candidates[:, 1]])
    assert scores[0] == pytest.approx(gap.max())


# ---------------------------------------------------------------- label preferences (seed 002 §3)
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


def test_pickled_refitted_and_unfitted_models_behave(small_problem):
    """What the scikit-learn checks listed as expected failures would cover for GPPreferenceModel."""
    import pickle

    from sklearn.exceptions import NotFittedError

    X, _, pairs = small_problem
    preferences = PreferenceSet.order(pairs.winner, pairs.loser)
    with pytest.raises(NotFittedError):
        GPPreferenceModel().predict_preference(X[:2], X[2:4])
    model = GPPreferenceModel(n_restarts=1, random_state=0).fit(X, preferences)
    copy = pickle.loads(pickle.dumps(model))
    assert np.array_equal(copy.predict_preference(X[:5], X[5:10]), model.predict_preference(X[:5], X[5:10]))
    again = GPPreferenceModel(n_restarts=1, random_state=0).fit(X, preferences)
    assert np.allclose(again.predict(X), model.predict(X), atol=1e-10)
    # Rows are independent: predicting a subset or a permutation gives the same values.
    order = np.random.default_rng(0).permutation(len(X))
    assert np.allclose(model.predict(X)[order], model.predict(X[order]), atol=1e-12)
    assert model.n_features_in_ == 3


def test_default_model_maximises_evidence_plus_the_default_gamma_prior(small_problem):
    # By default one length scale per feature, at a stationary point of evidence + Σ (a ln ℓ - b ℓ),
    # checked by finite differences of cold Laplace fits; log_evidence_ is the evidence alone.
    X, _, pairs = small_problem
    preferences = PreferenceSet.order(pairs.winner, pairs.loser, weight=pairs.weight)
    model = GPPreferenceModel(normalize=False, random_state=0).fit(X, preferences)
    assert model.length_scale_.shape == (3,)
    rows = model.instances_
    problem = EvidenceProblem(
        X[rows],
        PairData(np.searchsorted(rows, pairs.winner), np.searchsorted(rows, pairs.loser), pairs.weight, rows.size),
        1.0,
    )
    shape, rate = DEFAULT_LENGTH_SCALE_PRIOR

    def objective(theta):
        return problem.laplace(theta)[2].log_evidence + np.sum(shape * theta[:-1] - rate * np.exp(theta[:-1]))

    theta = np.log(np.append(model.length_scale_, model.noise_))
    assert model.log_evidence_ == pytest.approx(problem.laplace(theta)[2].log_evidence, rel=1e-9)
    step = 1e-4
    gradient = [(objective(theta + step * e) - objective(theta - step * e)) / (2 * step) for e in np.eye(theta.size)]
    # L-BFGS-B stops below 1e-4 nats per unit weight (OPTIMIZER_GRADIENT_TOLERANCE).
    assert np.max(np.abs(gradient)) < 2e-4 * pairs.weight.sum()
    # ... where the prior pulls: the plain evidence is not stationary there.
    assert np.max(np.abs(shape - rate * model.length_scale_)) > 0.1


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
