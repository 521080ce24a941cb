"""MPMRegressor (seed 003) against independent checks: the MPM objective's optimality conditions
over the 2N shifted points (checked directly, no optimiser), ordinary least squares and ridge regression
for the linear kernel, and the bound Ω recomputed from explicitly built class means and covariances."""

import numpy as np
import pytest
import scipy.optimize
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from ordercore import ModelFileError, MPMRegressor, load


@pytest.fixture
def sinc():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, size=(12, 1))
    return x, np.sinc(x[:, 0]) + 0.3 * rng.normal(size=12)


def mpm_objective(x, y, epsilon, rho, kernel):
    """The kernel MPM between u = (y + ε, x) and v = (y − ε, x) (seed 003 eq. (11)) over γ (2N,):
    f(γ) = √(γᵀΣ_uγ) + √(γᵀΣ_vγ), to minimise s.t. γᵀ(k̃_u − k̃_v) = 1 (Lanckriet's (7), (9)), each
    Σ the 1/N sample covariance plus ρI in the feature space of K_c((y, x), (y', x')) = y y' + K(x, x'),
    built from the 2N shifted points themselves.  Returns (Σ_u, Σ_v, d = k̃_u − k̃_v, ū's kernel row, z)."""
    n = len(y)
    z_y, z_x = np.concatenate([y + epsilon, y - epsilon]), np.vstack([x, x])
    gram = np.outer(z_y, z_y) + kernel(z_x, z_x)  # K_c over the 2N points
    rows_u, rows_v = gram[:n], gram[n:]
    centred_u, centred_v = rows_u - rows_u.mean(axis=0), rows_v - rows_v.mean(axis=0)
    sigma_u, sigma_v = centred_u.T @ centred_u / n + rho * gram, centred_v.T @ centred_v / n + rho * gram
    return sigma_u, sigma_v, rows_u.mean(axis=0) - rows_v.mean(axis=0), rows_u.mean(axis=0), (z_y, z_x)


def direction_of(model, y, epsilon):
    """A γ (2N,) whose direction a = Σ_j γ_j φ_c(z_j) is the model's a = (1, −w) / (2ε), w = Σ_i β_i φ(x_i):
    γ_i + γ_{N+i} = −β_i / (2ε) gives the φ(x) part, and γ_i − γ_{N+i} = c, the same c for every i,
    the y part Σ_j γ_j z_y_j = 1 / (2ε)."""
    a_y, beta, n = 1 / (2 * epsilon), model.dual_coef_, len(y)
    c = a_y * (1 + beta @ y) / (epsilon * n)
    return np.concatenate([(-a_y * beta + c) / 2, (-a_y * beta - c) / 2])


def boundary_crossing(gamma, b, z, x_new, kernel):
    """ŷ solving Σ_j γ_j K_c(z_j, (ŷ, x)) = b (eq. (12)) by bracketing, for each row of x_new."""
    z_y, z_x = z
    crossings = []
    for row in x_new:
        kernel_part = kernel(z_x, row[None, :])[:, 0]
        crossings.append(
            scipy.optimize.brentq(lambda t, k=kernel_part: gamma @ (z_y * t + k) - b, -1e3, 1e3, xtol=1e-13)
        )
    return np.array(crossings)


@pytest.mark.parametrize(
    "kernel, parameters",
    [
        (lambda a, b: rbf_kernel(a, b, gamma=1.0), {"kernel": "rbf", "gamma": 1.0}),
        (
            lambda a, b: polynomial_kernel(a, b, degree=2, gamma=0.5, coef0=1.0),
            {"kernel": "poly", "degree": 2, "gamma": 0.5},
        ),
    ],
    ids=["rbf", "poly"],
)
@pytest.mark.parametrize("rho", [0.05, 0.5])
def test_the_closed_form_is_the_mpm_optimum(sinc, kernel, parameters, rho):
    """The model's direction meets the MPM's optimality conditions, checked directly (no optimiser): it
    is feasible and the objective's gradient is a multiple of the constraint's, which for this convex
    problem (a sum of two norms under one linear constraint) makes it the minimum; κ, Ω and the
    boundary solved for y (eq. (12)) follow from it."""
    x, y = sinc
    epsilon = 0.2
    model = MPMRegressor(epsilon=epsilon, rho=rho, **parameters).fit(x, y)
    sigma_u, sigma_v, difference, mean_u, z = mpm_objective(x, y, epsilon, rho, kernel)
    gamma = direction_of(model, y, epsilon)
    assert gamma @ difference == pytest.approx(1.0, rel=1e-9)  # feasible
    spread_u, spread_v = np.sqrt(gamma @ sigma_u @ gamma), np.sqrt(gamma @ sigma_v @ gamma)
    gradient = sigma_u @ gamma / spread_u + sigma_v @ gamma / spread_v
    along = (gradient @ difference) / (difference @ difference)
    assert np.linalg.norm(gradient - along * difference) <= 1e-7 * np.linalg.norm(gradient)  # stationary
    kappa = 1 / (spread_u + spread_v)
    assert model.kappa_ == pytest.approx(kappa, rel=1e-9)
    assert model.omega_ == pytest.approx(kappa**2 / (1 + kappa**2), rel=1e-9)  # eq. (10)
    b = gamma @ mean_u - kappa * spread_u  # Lanckriet's b (8)
    x_new = np.linspace(-2.5, 2.5, 9)[:, None]
    np.testing.assert_allclose(model.predict(x_new), boundary_crossing(gamma, b, z, x_new, kernel), atol=1e-8)


def test_the_linear_kernel_is_ordinary_least_squares():
    rng = np.random.default_rng(1)
    X = rng.normal(loc=20.0, scale=5.0, size=(40, 3))  # K = XXᵀ of rank 3: rounding must not count as rank
    y = X @ [1.0, -2.0, 0.5] + 3.0 + rng.normal(size=40)
    epsilon = 0.7
    model = MPMRegressor(kernel="linear", epsilon=epsilon, rho=0.0).fit(X, y)
    ols = LinearRegression().fit(X, y)
    X_new = rng.normal(loc=20.0, scale=5.0, size=(5, 3))
    np.testing.assert_allclose(model.predict(X_new), ols.predict(X_new), rtol=1e-8)
    residual_variance = np.mean((y - ols.predict(X)) ** 2)
    assert model.omega_ == pytest.approx(epsilon**2 / (epsilon**2 + residual_variance), rel=1e-10)


def test_the_linear_kernel_with_rho_is_ridge_regression():
    """Σ + ρI is ρ‖w‖² on the fit: scikit-learn's Ridge with alpha = Nρ (its loss is not divided by N)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4))
    y = X @ [0.5, 1.0, 0.0, -1.0] + rng.normal(size=30)
    rho = 0.05
    model = MPMRegressor(kernel="linear", rho=rho, epsilon=1.0).fit(X, y)
    ridge = Ridge(alpha=len(y) * rho).fit(X, y)
    np.testing.assert_allclose(model.predict(X), ridge.predict(X), rtol=1e-10)
    variance = np.mean((y - ridge.predict(X)) ** 2) + rho * (1 + ridge.coef_ @ ridge.coef_)
    assert model.residual_variance_ == pytest.approx(variance, rel=1e-10)


def poly2_features(X, gamma, coef0):
    """Explicit φ with φ(a)ᵀφ(b) = (γ aᵀb + c)² for two features."""
    x1, x2 = X[:, 0], X[:, 1]
    root = np.sqrt(2 * coef0 * gamma)
    return np.column_stack(
        [np.full(len(X), coef0), root * x1, root * x2, gamma * x1**2, gamma * x2**2, np.sqrt(2) * gamma * x1 * x2]
    )


@pytest.mark.parametrize("kernel", ["linear", "poly"])
@pytest.mark.parametrize("rho", [0.0, 0.3])
def test_omega_from_the_class_moments(kernel, rho):
    """Ω, b and ŷ from the shifted classes' means and covariances built in an explicit feature space."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(25, 2))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.2 * rng.normal(size=25)
    epsilon, gamma, coef0 = 0.3, 0.8, 1.0
    model = MPMRegressor(kernel=kernel, gamma=gamma, degree=2, coef0=coef0, epsilon=epsilon, rho=rho).fit(X, y)
    features = (lambda A: A) if kernel == "linear" else (lambda A: poly2_features(A, gamma, coef0))
    np.testing.assert_allclose(features(X) @ features(X).T, model._kernel(X, X), atol=1e-12)
    phi = features(X)
    u = np.column_stack([y + epsilon, phi])  # eq. (11) in the feature space of K_c
    v = np.column_stack([y - epsilon, phi])
    covariance_u = np.cov(u, rowvar=False, bias=True) + rho * np.eye(u.shape[1])
    covariance_v = np.cov(v, rowvar=False, bias=True) + rho * np.eye(v.shape[1])
    w = phi.T @ model.dual_coef_  # the fit's weight vector in the explicit feature space
    a = np.concatenate([[1.0], -w])
    spread_u, spread_v = np.sqrt(a @ covariance_u @ a), np.sqrt(a @ covariance_v @ a)
    kappa = a @ (u.mean(axis=0) - v.mean(axis=0)) / (spread_u + spread_v)
    assert model.omega_ == pytest.approx(kappa**2 / (1 + kappa**2), rel=1e-8)
    # the boundary a·(ŷ, φ(x)) = b with b = a·ū − κ √(aᵀΣ_u a) (eq. (8)) is the prediction
    b = a @ u.mean(axis=0) - kappa * spread_u
    X_new = rng.uniform(-1, 1, size=(4, 2))
    np.testing.assert_allclose(model.predict(X_new), b + features(X_new) @ w, atol=1e-8)
    # and no nearby direction separates the classes better (the MPM optimum, eq. (7))
    for _ in range(20):
        moved = a + np.concatenate([[0.0], 1e-3 * rng.normal(size=len(w))])
        spread = np.sqrt(moved @ covariance_u @ moved) + np.sqrt(moved @ covariance_v @ moved)
        assert moved @ (u.mean(axis=0) - v.mean(axis=0)) / spread <= kappa * (1 + 1e-12)


def test_the_surface_does_not_depend_on_epsilon(sinc):
    x, y = sinc
    narrow, wide = MPMRegressor(epsilon=0.1).fit(x, y), MPMRegressor(epsilon=2.0).fit(x, y)
    np.testing.assert_allclose(narrow.predict(x), wide.predict(x), rtol=1e-12)
    assert narrow.omega_for(2.0) == pytest.approx(wide.omega_, rel=1e-12)
    assert narrow.omega_ < wide.omega_


def test_predict_interval_is_the_tube(sinc):
    x, y = sinc
    model = MPMRegressor(epsilon=0.25).fit(x, y)
    lower, upper = model.predict_interval(x)
    np.testing.assert_allclose(upper - lower, 0.5)
    np.testing.assert_allclose((lower + upper) / 2, model.predict(x))


# ---------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_inf_is_refused_and_the_fit_kept(sinc, bad):
    x, y = sinc
    model = MPMRegressor().fit(x, y)
    before = model.dual_coef_.copy()
    x_bad, y_bad = x.copy(), y.copy()
    x_bad[2, 0], y_bad[3] = bad, bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.fit(x_bad, y)
    with pytest.raises(ValueError, match=r"y holds (NaN|an infinite value) at 1 row\(s\) \(the first: row 3"):
        model.fit(x, y_bad)
    with pytest.raises(ValueError, match="NaN|infinity"):
        model.predict(x_bad)
    np.testing.assert_array_equal(model.dual_coef_, before)


def test_wrong_shapes_are_refused(sinc):
    x, y = sinc
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        MPMRegressor().fit(x, y[:-1])
    with pytest.raises(ValueError, match="2D array"):
        MPMRegressor().fit(x[:, 0], y)
    with pytest.raises(ValueError, match="0 sample"):
        MPMRegressor().fit(x[:0], y[:0])
    model = MPMRegressor().fit(x, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.ones((3, 2)))


@pytest.mark.parametrize(
    "parameters, message",
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -0.1}, "epsilon"),
        ({"epsilon": np.inf}, "epsilon"),
        ({"epsilon": np.nan}, "epsilon"),
        ({"rho": -1e-6}, "rho"),
        ({"kernel": "sigmoid"}, "kernel"),
        ({"kernel": "poly", "coef0": -1.0}, "coef0"),
        ({"gamma": 0.0}, "gamma"),
        ({"degree": 0}, "degree"),
    ],
)
def test_bad_parameters_are_refused_and_the_fit_kept(sinc, parameters, message):
    x, y = sinc
    model = MPMRegressor().fit(x, y)
    omega = model.omega_
    with pytest.raises(ValueError, match=message):
        model.set_params(**parameters).fit(x, y)
    assert model.omega_ == omega


@pytest.mark.parametrize(
    "epsilon, error", [(0.0, ValueError), (-1.0, ValueError), (np.nan, ValueError), ("1", TypeError)]
)
def test_omega_for_a_bad_epsilon_is_refused(sinc, epsilon, error):
    x, y = sinc
    with pytest.raises(error, match="epsilon"):
        MPMRegressor().fit(x, y).omega_for(epsilon)


def test_an_unfitted_model_cannot_predict(sinc):
    x, _ = sinc
    for call in (MPMRegressor().predict, MPMRegressor().predict_interval, MPMRegressor().omega_for):
        with pytest.raises(NotFittedError):
            call(x) if call.__name__ != "omega_for" else call(0.1)


# ---------------------------------------------------------------------------------------- model files
def test_a_loaded_model_predicts_as_the_original(tmp_path, sinc):
    x, y = sinc
    model = MPMRegressor(kernel="poly", degree=2, epsilon=0.3).fit(x, y)
    model.save(tmp_path / "mpmr.npz")
    loaded = load(tmp_path / "mpmr.npz")
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))
    assert (loaded.omega_, loaded.kappa_, loaded.get_params()) == (model.omega_, model.kappa_, model.get_params())


def test_a_tampered_residual_variance_is_refused(tmp_path, sinc):
    import json

    x, y = sinc
    path = tmp_path / "mpmr.npz"
    MPMRegressor().fit(x, y).save(path)
    with np.load(path) as archive:
        entries = dict(archive)
    document = json.loads(entries["metadata"].tobytes())
    document["scalars"]["residual_variance"] = -1.0
    entries["metadata"] = np.frombuffer(json.dumps(document).encode(), dtype=np.uint8)
    np.savez(path, **entries)
    with pytest.raises(ModelFileError, match="residual variance"):
        load(path)


def test_an_epsilon_whose_square_overflows_gives_omega_1_and_the_same_fit():
    """Corpus 13 MP02: epsilon = 1e300 ended in OverflowError (34, 'Numerical result out of range') from
    ε²; Ω = ε² / (ε² + σ²) is 1 to float64 there (by hand: 3 and σ² = 16 give 9 / 25), and ε does not move
    the regression itself, so the fit predicts as with ε = 1."""
    from ordercore.mpmr.problem import omega

    assert omega(3.0, 16.0) == pytest.approx(9 / 25, rel=1e-15) and omega(1e300, 4.0) == 1.0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, 2.0, -1.0] + rng.normal(0, 0.1, 30)
    wide = MPMRegressor(epsilon=1e300).fit(X, y)
    assert wide.omega_ == 1.0
    np.testing.assert_allclose(wide.predict(X), MPMRegressor(epsilon=1.0).fit(X, y).predict(X), rtol=1e-12)
