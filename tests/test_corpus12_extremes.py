"""The twelfth corpus's cases left after its first fixes (issue 32, "nothing silently wrong"): parameters in
range but so large that float64 gave way, surfacing as numpy's or the solver's words (R7: B02, TN05); a
restart count built in full before the first start (B03); score's sample_weight of any sign (M08)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from ordercore import (
    NPSVOR,
    GPLabelPreferenceModel,
    GPPreferenceModel,
    MPMRegressor,
    OrderPreferenceRegressor,
    PreferenceSet,
    TwoNormOrderPreferenceRegressor,
)
from ordercore.experiments.label_svms import ConstraintClassificationSVM


def corpus_problem():
    """30 rows, 3 features, labels 'x' < 'y' < 'z' by a linear score, and 4 preferences (the corpus's data)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, 2.0, -1.0] + rng.normal(0, 0.1, 30)
    return X, y, np.array(["x", "y", "z"])[np.digitize(y, [-1, 1])], PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7])


def gp_fit(family: str, **parameters):
    X, y, classes, preferences = corpus_problem()
    if family == "labels":
        model = GPLabelPreferenceModel(**parameters)
        return model, lambda: model.fit(X, classes)
    model = GPPreferenceModel(**parameters)
    return model, lambda: model.fit(X, preferences if family == "pairs" else y)


# ------------------------------------------------------------------------ R7: B02, the GP's variances
@pytest.mark.parametrize("family", ["labels", "pairs", "scores"])
@pytest.mark.parametrize(
    "extra",
    [{}, {"optimizer": None}, {"method": "sparse"}, {"kernel": "linear"}],
    ids=["search", "fixed", "sparse", "linear"],
)
def test_gp_refuses_a_signal_variance_that_swamps_the_noise(family, extra):
    """B02: signal_variance 1e300 met numpy's "61-th leading minor of the array is not positive definite"."""
    model, fit = gp_fit(family, signal_variance=1e300, **extra)
    said = "noise 1" if extra.get("optimizer", "lbfgs") is None else r"the noise searched \(σ from 0\.001\)"
    with pytest.raises(
        ValueError,
        match=rf"^signal_variance 1e\+300 makes the Laplace fit's matrix I \+ K Λ singular in float64: over {said}",
    ):
        fit()
    assert not hasattr(model, "log_evidence_") and not hasattr(model, "noise_")  # nothing of a fit kept


@pytest.mark.parametrize("family", ["labels", "pairs"])
@pytest.mark.parametrize(
    "name, value", [("noise", 1e-300), ("noise", 1e300), ("length_scale", 1e-300), ("length_scale", 1e300)]
)
def test_gp_refuses_a_noise_or_length_scale_float64_cannot_square(family, name, value):
    """noise=1e-300 with optimizer=None gave log_evidence_ NaN without a word; length_scale=1e-300 "covariance
    matrix has a non-positive or non-finite diagonal (mean nan)" after numpy's divide-by-zero warnings."""
    model, fit = gp_fit(family, optimizer=None, **{name: value})
    with pytest.raises(
        ValueError, match="^" + re.escape(f"{name} {value:g}") + r" is outside what the GP fit computes with in float64"
    ):
        fit()
    assert not hasattr(model, "log_evidence_")


def test_gp_fixed_hyperparameters_matter_only_as_signal_variance_over_noise_squared():
    """What the message says, checked: scaling s² by c² and σ by c scales the MAP latent f̂ by c (the probit's
    z = (f_i - f_j) / (√2 σ) and the prior f / s are unchanged), so a fit that is singular at s² = 1e300 is the
    fit at s² = 1, σ = 1e-150: lowering signal_variance loses nothing."""
    X, _, _, preferences = corpus_problem()
    unit = GPPreferenceModel(signal_variance=1.0, noise=0.5, optimizer=None).fit(X, preferences)
    scaled = GPPreferenceModel(signal_variance=1e6, noise=500.0, optimizer=None).fit(X, preferences)
    np.testing.assert_allclose(scaled.predict(X[:10]), 1e3 * unit.predict(X[:10]), rtol=1e-6, atol=1e-9)


# ------------------------------------------------------------------------ R7: TN05, the 2-norm's lambda2
def two_norm_problem():
    X, y, _, preferences = corpus_problem()
    return X, np.where(np.arange(30) < 10, y, np.nan), preferences  # l = 10 labels, p = 4 preferences of weight 1


def test_two_norm_refuses_a_lambda2_that_drowns_the_labels_before_solving():
    """TN05: lambda2=1e300 gave three numpy overflow warnings and "duality gap inf", naming nothing."""
    X, y, preferences = two_norm_problem()
    model = TwoNormOrderPreferenceRegressor(lambda2=1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning on the way
        with pytest.raises(
            ValueError, match=r"^lambda2 = 1e\+300 weighs a preference \(lambda2 w / p, up to 2\.5e\+299\)"
        ):
            model.fit(X, y, preferences)
    assert not hasattr(model, "dual_coef_")


def test_two_norm_takes_lambda2_up_to_its_bound_and_keeps_the_last_fit_beyond():
    """The bound by hand: a preference's weight lambda2 w / p at most 1 / eps times a label's 1 / l, so lambda2
    <= p / (l w eps) = 4 / (10 * 2.22e-16) = 1.8e15.  Just under it the fit is certified and meets every
    preference (f read back from predict); preferences of weight 10 then need lambda2 ten times smaller, and an
    update refused for them keeps the fit made before."""
    X, y, preferences = two_norm_problem()
    bound = 4 / (10 * 2.220446049250313e-16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = TwoNormOrderPreferenceRegressor(lambda2=0.99 * bound).fit(X, y, preferences)
    assert model.duality_gap_ <= 1e-8
    f = model.predict(X)
    assert np.all(f[preferences.i] - f[preferences.j] >= preferences.margin - 1e-6)
    with pytest.raises(ValueError, match=r"Give lambda2 <= 1\.8e\+14 for these 4 preferences and 10 labels"):
        model.update_preferences(PreferenceSet.order(preferences.i, preferences.j, weight=10.0))
    np.testing.assert_array_equal(model.predict(X), f)
    with pytest.raises(ValueError, match=r"^lambda2 = 1\.8\d*e\+15 .* Give lambda2 <= 1\.8e\+15 for these 4"):
        TwoNormOrderPreferenceRegressor(lambda2=1.01 * bound).fit(X, y, preferences)


# ------------------------------------------------------------------------ M08: score's sample_weight
def scored_models():
    """Every estimator family whose score takes sample_weight, fitted on the corpus's data, with its y."""
    X, y, classes, preferences = corpus_problem()
    ranks = np.digitize(y, [-1, 1]) + 1
    labeled = np.where(np.arange(30) < 10, y, np.nan)
    return X, [
        (MPMRegressor().fit(X, y), y),
        (NPSVOR(random_state=0).fit(X, ranks), ranks),
        (OrderPreferenceRegressor().fit(X, labeled, preferences), y),
        (TwoNormOrderPreferenceRegressor().fit(X, labeled, preferences), y),
        (GPLabelPreferenceModel().fit(X, classes), classes),
        (ConstraintClassificationSVM().fit(X, classes), classes),
    ]


@pytest.mark.filterwarnings("ignore::ordercore.exceptions.OmegaWarning")
@pytest.mark.parametrize(
    "weights, said",
    [
        (-np.ones(30), r"must hold finite weights >= 0, got -1 at row 0 \(30 row\(s\) negative, NaN or infinite\)"),
        (np.r_[np.ones(29), np.nan], r"must hold finite weights >= 0, got nan at row 29 \(1 row\(s\)"),
        (np.r_[np.inf, np.ones(29)], r"must hold finite weights >= 0, got inf at row 0 \(1 row\(s\)"),
        (np.zeros(30), r"gives every one of the 30 rows weight 0: no row would count"),
        (["1"] * 29 + ["heavy"], r"must hold numbers, got 'heavy' at row 29"),
    ],
    ids=["M08 negative", "NaN", "inf", "all 0", "text"],
)
def test_score_refuses_sample_weights_that_are_no_weights(weights, said):
    """M08: MPMRegressor.score(X, y, sample_weight=-np.ones(30)) was accepted (scikit-learn's R² does not check
    signs), in every family alike: one check (``check_sample_weight``) in the mixin they share."""
    X, models = scored_models()
    for model, y in models:
        with pytest.raises(ValueError, match=f"^sample_weight {said}"):
            model.score(X, y, sample_weight=weights)


@pytest.mark.filterwarnings("ignore::ordercore.exceptions.OmegaWarning")
def test_score_weighs_rows_by_hand():
    """What the check leaves alone: weights 0, 1, 2, ... give R² = 1 - Σ w (y - f)² / Σ w (y - ȳ_w)² and
    accuracy Σ w [right] / Σ w, computed here from predict."""
    X, models = scored_models()
    weights = np.arange(30.0)
    for model, y in models:
        predicted = model.predict(X)
        if y.dtype.kind == "f":
            mean = np.sum(weights * y) / weights.sum()
            expected = 1 - np.sum(weights * (y - predicted) ** 2) / np.sum(weights * (y - mean) ** 2)
        else:
            expected = np.sum(weights * (predicted == y)) / weights.sum()
        assert model.score(X, y, sample_weight=weights) == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------------ B03: n_restarts beyond what a search runs
@pytest.mark.parametrize("family", ["labels", "pairs"])
@pytest.mark.parametrize("n_restarts", [100, 10**6])
def test_gp_refuses_more_restarts_than_its_evaluations_can_start(family, n_restarts):
    """B03: n_restarts=10**6 built every start up front (150 MB, 10-17 s) for a search of at most 100
    evaluations, one at least per start: at most 99 restarts can follow the first."""
    model, fit = gp_fit(family, n_restarts=n_restarts)
    with pytest.raises(
        ValueError, match=rf"^n_restarts is {n_restarts}, more than a fit can run: .* give n_restarts <= 99$"
    ):
        fit()
    assert not hasattr(model, "log_evidence_")


def test_gp_runs_at_most_a_start_per_evaluation_so_99_restarts_are_all_it_can_use():
    """The bound checked from the outside: with 99 restarts the search's evaluations (counted by progress)
    stay within 100, each start costing at least one, and the fit is made."""
    X, _, _, preferences = corpus_problem()
    calls = []
    model = GPPreferenceModel(n_restarts=99, random_state=0).fit(X, preferences, progress=lambda *a: calls.append(a))
    assert 0 < len(calls) <= 100 and np.isfinite(model.log_evidence_)
