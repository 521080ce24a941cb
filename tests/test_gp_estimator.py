"""GPPreferenceModel (seed 002; ordercore/gp/estimator.py) against independent checks: the dense joint
posterior written out, identities of the model, bad input, pickling, the default prior's stationary
point by finite differences, Monte Carlo for BALD and the next pair."""

import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import norm

from ordercore import GPPreferenceModel, PreferenceSet
from ordercore.gp import evidence as gp_evidence
from ordercore.gp.estimator import DEFAULT_LENGTH_SCALE_PRIOR
from ordercore.gp.evidence import EvidenceProblem
from ordercore.gp.laplace import PairData
from ordercore.pair_scores import bald_information, binary_entropy
from tests.gp_problems import ranked_pairs


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


def test_a_search_stops_at_its_evaluation_cap_with_the_best_it_met(small_problem, monkeypatch):
    """With the cap below what the search needs, progress counts up to the cap and no further, and the
    model sits at the best θ met: its evidence plus log prior is the best progress reported."""
    monkeypatch.setattr(gp_evidence, "MAX_EVALUATIONS", 4)
    X, _, pairs = small_problem
    preferences = PreferenceSet.order(pairs.winner, pairs.loser, weight=pairs.weight)
    seen = []
    model = GPPreferenceModel(normalize=False, random_state=0).fit(X, preferences, progress=lambda *a: seen.append(a))
    assert [count for count, _ in seen] == [1, 2, 3, 4]
    shape, rate = DEFAULT_LENGTH_SCALE_PRIOR
    log_prior = np.sum(shape * np.log(model.length_scale_) - rate * model.length_scale_)
    assert model.log_evidence_ + log_prior == pytest.approx(seen[-1][1], abs=1e-6)
    assert seen[-1][1] > seen[0][1]  # it moved from the start


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


def test_a_length_scale_over_which_every_row_looks_alike_is_refused_and_keeps_the_last_fit():
    """Corpus 13 GP06: over length_scale ℓ the squared exponential is exp(-d²/2ℓ²); on 4 standardised rows
    of one feature, 0 … 3 scaled to unit SD (range 3/1.118 = 2.683, d² at most 7.2), ℓ = 1e10 makes d²/2ℓ²
    at most 3.6e-20, below half of float64's 2.2e-16: the kernel was constant and the fit predicted 0
    everywhere without a word.  ℓ = 1e5 (d²/2ℓ² up to 3.6e-10) still tells the rows apart."""
    X = np.arange(4.0).reshape(-1, 1)
    pairs = PreferenceSet.order([3, 2, 1], [2, 1, 0])
    fitted = GPPreferenceModel(length_scale=1e5, optimizer=None).fit(X, pairs)
    before = fitted.predict(X)
    assert np.all(np.diff(before) > 0)  # the order 0 < 1 < 2 < 3 learned
    for model in (GPPreferenceModel(length_scale=1e10, optimizer=None), fitted.set_params(length_scale=1e10)):
        with pytest.raises(ValueError, match=r"length_scale 10000000000.0 is too large for the rows' spread"):
            model.fit(X, pairs)
    np.testing.assert_array_equal(fitted.predict(X), before)
