"""ARD started from the shared length scale's optimum (``GPPreferenceModel(length_scale="isotropic")``,
``maximize_evidence(isotropic_first=True)``), against the Laplace evidence (12) of seed 002 written out
here: MAP by a general-purpose optimiser, then ln Z = -½ f̂ᵀK⁻¹f̂ + Σ ln Φ(z_k) - ½ ln|I + KΛ|."""

import numpy as np
import pytest
import scipy.optimize
from scipy.special import log_ndtr
from scipy.stats import norm

from ordercore import GPPreferenceModel, PreferenceSet
from ordercore.experiments.gp_instance import GP_SETTINGS


def one_relevant_feature(seed=3, n_rows=40, n_features=3, n_pairs=80, frequency=3.0):
    """X (n_rows, n_features) standard normal, preferences by y = sin(frequency · x_0): only feature 0 matters.
    With these defaults the search from κ = 1/d (ℓ = √3) ends at ℓ ≈ (95, 0.34, 0.07), feature 0
    switched off, below the shared length scale's evidence."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    y = np.sin(frequency * X[:, 0])
    first, second = rng.integers(n_rows, size=n_pairs), rng.integers(n_rows, size=n_pairs)
    keep = first != second
    first, second = first[keep], second[keep]
    higher = y[first] > y[second]
    return X, PreferenceSet(np.where(higher, first, second), np.where(higher, second, first))


def laplace_log_evidence(model, X, preferences) -> float:
    """Seed 002's evidence (12) at the model's fitted ℓ, s² and σ, from X and the pairs alone."""
    rows, inverse = np.unique(np.concatenate([preferences.i, preferences.j]), return_inverse=True)
    winner, loser = inverse[: len(preferences)], inverse[len(preferences) :]
    inputs = ((X - X.mean(axis=0)) / X.std(axis=0))[rows] / model.length_scale_
    squared = np.sum((inputs[:, None, :] - inputs[None, :, :]) ** 2, axis=2)
    K = model.signal_variance_ * np.exp(-0.5 * squared) + 1e-10 * np.eye(rows.size)
    c = 1.0 / (np.sqrt(2.0) * model.noise_)

    def negative_log_posterior(f):  # ½ fᵀK⁻¹f - Σ ln Φ(c (f_w - f_l)), and its gradient
        a = np.linalg.solve(K, f)
        z = c * (f[winner] - f[loser])
        ratio = np.exp(norm.logpdf(z) - log_ndtr(z))
        gradient = a.copy()
        np.add.at(gradient, winner, -c * ratio)
        np.add.at(gradient, loser, c * ratio)
        return 0.5 * f @ a - np.sum(log_ndtr(z)), gradient

    found = scipy.optimize.minimize(negative_log_posterior, np.zeros(rows.size), jac=True, method="BFGS",
                                    options={"gtol": 1e-9, "maxiter": 10_000})  # fmt: skip
    assert np.linalg.norm(found.jac) < 1e-5
    z = c * (found.x[winner] - found.x[loser])
    ratio = np.exp(norm.logpdf(z) - log_ndtr(z))
    incidence = np.zeros((winner.size, rows.size))
    incidence[np.arange(winner.size), winner], incidence[np.arange(winner.size), loser] = 1.0, -1.0
    curvature = incidence.T @ np.diag(c**2 * ratio * (z + ratio)) @ incidence  # Λ = -∇∇ Σ ln Φ
    _, log_det = np.linalg.slogdet(np.eye(rows.size) + K @ curvature)
    return -found.fun - 0.5 * log_det


SETTINGS = {"length_scale_prior": None, "method": "exact", "random_state": 0}


def test_ard_from_the_isotropic_optimum_has_at_least_its_evidence():
    """The shared length scale fitted on its own, and ARD started at its optimum: ARD's evidence (12),
    computed here at each fit's hyperparameters, is at least the shared one's."""
    X, preferences = one_relevant_feature()
    shared = GPPreferenceModel(kernel="rbf", **SETTINGS).fit(X, preferences)
    ard = GPPreferenceModel(kernel="ard", length_scale="isotropic", **SETTINGS).fit(X, preferences)
    shared_evidence = laplace_log_evidence(shared, X, preferences)
    ard_evidence = laplace_log_evidence(ard, X, preferences)
    assert shared_evidence == pytest.approx(shared.log_evidence_, abs=1e-4)
    assert ard_evidence == pytest.approx(ard.log_evidence_, abs=1e-4)
    assert ard_evidence >= shared_evidence - 1e-6


def test_ard_from_the_isotropic_optimum_finds_the_relevant_feature():
    """One relevant feature of three: it gets the shortest length scale (near the shared one), the two
    irrelevant ones lengths over ten times longer."""
    X, preferences = one_relevant_feature()
    shared = GPPreferenceModel(kernel="rbf", **SETTINGS).fit(X, preferences)
    ard = GPPreferenceModel(kernel="ard", length_scale="isotropic", **SETTINGS).fit(X, preferences)
    relevant, irrelevant = ard.length_scale_[0], ard.length_scale_[1:]
    assert relevant < 2 * shared.length_scale_[0] and np.all(irrelevant > 10 * relevant)


def test_isotropic_start_needs_a_search():
    X, preferences = one_relevant_feature()
    model = GPPreferenceModel(kernel="ard", length_scale="isotropic", optimizer=None, method="exact")
    with pytest.raises(ValueError, match="optimizer='lbfgs'"):
        model.fit(X, preferences)
    with pytest.raises(ValueError, match="length_scale"):
        GPPreferenceModel(length_scale="shared").fit(X, preferences)


def test_table1_ard_column_starts_at_the_seeds_kappa():
    """Table 1's GP-ARD column (``gp_instance.GP_SETTINGS['gp_ard']``) starts as seed 002 does: every
    κ_l = 1/ℓ_l² = 1/d, here d = 3, on plain evidence."""
    X, preferences = one_relevant_feature()
    settings = GP_SETTINGS["gp_ard"]
    model = GPPreferenceModel(method="exact", optimizer=None, **settings).fit(X, preferences)
    assert settings.get("length_scale_prior", "default") is None
    assert np.allclose(1.0 / model.length_scale_**2, [1 / 3] * 3)
