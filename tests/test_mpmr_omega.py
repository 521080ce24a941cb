"""MPMR's Ω made honest (issue 32): ρ chosen from the data, the leave-one-out coverage beside Ω, and a
warning when Ω claims more than it, or rests on too few rows (``ordercore/mpmr/selection.py``).

Independent references: every row refitted without it by the solver (the closed form's leave-one-out
residuals), the grid searched by those refits (the chosen ρ), the binomial distribution function (the
Clopper-Pearson bound), counts by hand, and the held-out homes (what Ω should bound)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import ordercore
from ordercore import MPMRegressor
from ordercore.exceptions import OmegaWarning
from ordercore.mpmr import selection
from ordercore.mpmr.estimator import PAPER_RHO
from ordercore.mpmr.solver import solve_mpmr
from ordercore.numerics.kernels import kernel_matrix
from tests.test_model_files import rewrite

HOMES = "sample_data/homes.csv"


def small_problem(n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 + rng.normal(0, 0.3, n)
    return X, y, kernel_matrix(X, X, "rbf", 0.7, 3, 1.0)


def refitted_residuals(K, y, rho):
    """y_i − ŷ_{−i}(x_i) by refitting the solver without row i at the full fit's penalty Nρ."""
    n, out = len(y), np.empty(len(y))
    for i in range(n):
        keep = np.arange(n) != i
        fit = solve_mpmr(K[np.ix_(keep, keep)], y[keep], rho * n / (n - 1))
        out[i] = y[i] - (K[i, keep] @ fit.dual_coef + fit.intercept)
    return out


@pytest.mark.parametrize("rho", [1e-4, 1e-2, 0.3])
def test_leave_one_out_residuals_are_those_of_refits_without_each_row(rho):
    X, y, K = small_problem()
    closed = selection.leave_one_out_residuals(K, y, [rho])[0]
    np.testing.assert_allclose(closed, refitted_residuals(K, y, rho), rtol=1e-6, atol=1e-8)


def test_the_chosen_rho_has_the_least_refitted_leave_one_out_error():
    X, y, K = small_problem(n=15, seed=3)
    errors = [np.mean(refitted_residuals(K, y, rho) ** 2) for rho in selection.RHO_GRID]
    rho, residuals = selection.choose_rho(K, y)
    assert rho == selection.RHO_GRID[int(np.argmin(errors))]
    np.testing.assert_allclose(residuals, refitted_residuals(K, y, rho), rtol=1e-6, atol=1e-8)


def test_an_interpolating_fit_predicts_no_row_left_out():
    """ρ = 0 with an RBF over distinct rows interpolates: no residual is measured (all infinite)."""
    X, y, K = small_problem(n=6)
    assert np.isinf(selection.residuals_at(K, y, 0.0)).all()
    assert np.isnan(selection.residuals_at(K[:2, :2], y[:2], 0.1)).all()


def test_large_fits_measure_a_fixed_sample_of_rows(monkeypatch):
    monkeypatch.setattr(selection, "LOO_MAX_ROWS", 10)
    rows = selection.measured_rows(25)
    assert len(np.unique(rows)) == 10 and rows.max() < 25 and np.array_equal(rows, selection.measured_rows(25))
    X, y, K = small_problem(n=25)
    np.testing.assert_allclose(
        selection.residuals_at(K, y, 0.01), refitted_residuals(K[np.ix_(rows, rows)], y[rows], 0.01), rtol=1e-6
    )


def test_coverage_counts_residuals_within_epsilon_by_hand():
    assert selection.coverage(np.array([0.1, -0.5, 0.2, np.inf, -0.2]), 0.2) == 3 / 5
    assert np.isnan(selection.coverage(np.array([np.nan, 0.1]), 0.2))


def test_omega_is_called_above_the_coverage_beyond_its_binomial_noise():
    residuals = np.r_[np.zeros(12), np.ones(18)]  # 12 of 30 within ε = 0.5
    upper = scipy.optimize.brentq(lambda p: scipy.stats.binom.cdf(12, 30, p) - 0.05, 0.4, 0.99)
    assert selection.omega_warning(upper - 1e-6, residuals, 0.5, chosen=True) is None
    text = selection.omega_warning(upper + 1e-6, residuals, 0.5, chosen=False)
    assert "12 of 30 rows (0.400)" in text and f"at most {upper:.3f}" in text and "rho='auto'" in text
    assert "rho='auto'" not in selection.omega_warning(0.99, residuals, 0.5, chosen=True)
    assert "at least 10" in selection.omega_warning(0.1, np.zeros(9), 0.5, chosen=True)


def test_five_rows_warn_that_omega_rests_on_too_few():
    X, y, _ = small_problem(n=5)
    with pytest.warns(OmegaWarning, match="moments of 5 rows"):
        model = MPMRegressor().fit(X, y)
    assert model.omega_warning_.startswith("Ω = ")


@pytest.fixture(scope="module")
def homes():
    """200 sample homes to fit on and the rest held out, standardised by the 200: the issue's case."""
    frame = pd.read_csv(HOMES)
    X = frame[["latitude", "longitude", "age", "income", "bedrooms", "rooms", "floor_area"]].to_numpy(float)
    y = frame["price"].to_numpy(float)
    order = np.random.default_rng(0).permutation(len(y))
    train, test = order[:200], order[200:]
    mean, scale = X[train].mean(axis=0), X[train].std(axis=0)
    return (X[train] - mean) / scale, y[train], (X[test] - mean) / scale, y[test]


def test_on_200_homes_the_paper_rho_warns_and_the_chosen_one_bounds_the_held_out_coverage(homes):
    X, y, X_test, y_test = homes
    epsilon = 0.5 * np.std(y)
    with pytest.warns(OmegaWarning, match="claims more than the fit delivers"):
        paper = MPMRegressor(epsilon=epsilon, rho=PAPER_RHO).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OmegaWarning)
        chosen = MPMRegressor(epsilon=epsilon).fit(X, y)
    held_out = [np.mean(np.abs(m.predict(X_test) - y_test) <= epsilon) for m in (paper, chosen)]
    assert paper.omega_ > held_out[0] + 0.3 and chosen.omega_ <= held_out[1]
    assert chosen.rho_ in selection.RHO_GRID and chosen.rho_ > PAPER_RHO
    assert abs(chosen.loo_coverage_ - held_out[1]) < 0.1  # leave-one-out estimates the held-out share


def test_a_model_file_keeps_the_coverage_and_an_older_one_loads_without_it(tmp_path, homes):
    X, y, _, _ = homes
    path = tmp_path / "mpmr.npz"
    model = MPMRegressor(epsilon=0.5 * np.std(y), rho=PAPER_RHO)
    with pytest.warns(OmegaWarning):
        model.fit(X, y)
    model.save(path)
    loaded = ordercore.load(path)
    kept = (loaded.rho_, loaded.loo_coverage_, loaded.omega_warning_)
    assert kept == (PAPER_RHO, model.loo_coverage_, model.omega_warning_) and loaded.loo_residuals_ is None

    def older(document):
        for name in ("fitted_rho", "loo_coverage", "omega_warning"):
            document["scalars"].pop(name)

    rewrite(path, change_document=older)
    loaded = ordercore.load(path)
    assert np.isnan(loaded.rho_) and np.isnan(loaded.loo_coverage_) and loaded.omega_warning_ is None
    np.testing.assert_allclose(loaded.predict(X), model.predict(X), rtol=1e-12)
