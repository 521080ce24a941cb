"""Other models the Model page compares with the session's SSL fit, each fitted on the session's data
apart from the ``Workbench``: the GP preference model (in a background process), MPMR at a chosen
epsilon, and gradient boosting constrained monotone in one column."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_absolute_error

from ordercore.exceptions import OmegaWarning
from ordercore.gp.estimator import FitPlan, GPPreferenceModel
from ordercore.mpmr.estimator import MPMRegressor
from ordercore.mpmr.selection import MIN_SAMPLES
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import StudyData
from ordercore.studio.jobs.gp import BackgroundFit
from ordercore.studio.numbers import to_digits_of

GP_MEMORY_LIMIT_GB = 2.0
"""Most memory one GP fit of the Studio may need (``GPPreferenceModel.memory_limit``): several
sessions can fit at once on one server without exhausting it."""

GP_MAX_PREFERENCES = 100_000
"""Most preferences the Studio's GP learns from: beyond, a uniform sample of this many.  On California
with seed 000's bedroom rule (``bench/gp_bench.py --rule``, issue 30) a fit on 100,000 took 41 s (39 s
of CPU; 17,540 rows, 21 evidence evaluations) on the 2-core machine beside other work, and 0.5 GB;
at 200,000 a search of 43 evaluations took 90 s of CPU, beyond issue 30's 60 s."""


@dataclass(frozen=True)
class GPFitStart:
    """A GP fit started in the background: the job, what it fits (``FitPlan``), and how many of the
    session's pairwise preferences there were (more than ``plan.n_pairs`` when it fits a sample)."""

    job: BackgroundFit
    plan: FitPlan
    n_available: int


def start_gp_fit(data: StudyData, preferences: PreferenceSet, rng: np.random.Generator) -> GPFitStart:
    """Start fitting the GP preference model on the session's pairwise preferences (unary ones are left
    out; a uniform sample of ``GP_MAX_PREFERENCES`` when there are more) in a background process.
    ``ValueError`` (``MemoryBudgetError`` among them) before anything starts when it cannot be fitted."""
    pairwise = preferences[~preferences.is_unary & (preferences.weight > 0)]
    if len(pairwise) == 0:
        raise ValueError("the GP learns from pairwise preferences: answer a few pairs first")
    sample = pairwise
    if len(pairwise) > GP_MAX_PREFERENCES:
        sample = pairwise[np.sort(rng.choice(len(pairwise), GP_MAX_PREFERENCES, replace=False))]
    options = {"random_state": 0, "memory_limit": GP_MEMORY_LIMIT_GB}
    plan = GPPreferenceModel(**options).fit_plan(len(data.dataset.X), sample)
    return GPFitStart(BackgroundFit(data.dataset.X, sample, **options), plan, len(pairwise))


MPMR_MAX_LABELS = 5_000
"""Most labeled rows the Model page fits MPMR on: 2.9 s and 0.84 GB at 5,000 (bench/mpmr_bench.py),
then 11 fits with the cross-validated coverage; the N x N kernel grows as N²."""

OMEGA_WORDS = (
    "MPMR's bound: whatever the distribution with the labels' means and covariances, a new target lies within "
    "±ε of the fit with probability at least Ω"
)
"""The Ω metric's tooltip, in words (it cited 'the paper's eq. (13)': new-user report 9, Minor 9)."""

EPSILON_IN_SD = (0.1, 0.25, 0.5, 1.0, 2.0)
"""The MPMR tube's half-width ε the Model page offers, in standard deviations of the labels."""


@dataclass(frozen=True)
class MPMRComparison:
    """MPMR (seed 003) on a session's labels: ε, the paper's bound Ω on P(|f − y| ≤ ε), and on the
    held-out rows the truth (n,), the predictions (n,), the share within ε and the MAE; from the labels
    alone, the leave-one-out coverage estimate (not the paper's), the ρ chosen and why Ω should not be
    believed (``MPMRegressor.omega_warning_``, or None)."""

    epsilon: float
    omega: float
    actual: np.ndarray
    predicted: np.ndarray
    coverage: float
    mae: float
    loo_coverage: float
    rho: float
    warning: str | None


def mpmr_comparison(data: StudyData, epsilon_in_sd: float) -> MPMRComparison:
    """Fit ``MPMRegressor`` (RBF, its defaults: ρ chosen from the labels) on the labeled rows with ε =
    ``epsilon_in_sd`` standard deviations of the labels, and measure it on the held-out rows.
    ``ValueError`` without held-out rows, with fewer than ``MIN_SAMPLES`` labels (too few for the
    moments Ω rests on) or labels that do not vary."""
    if not data.test.size:
        raise ValueError("this session holds out no test rows to measure the coverage on")
    X, y = data.dataset.X[data.labeled], data.y_true[data.labeled]
    if y.size > MPMR_MAX_LABELS:
        raise ValueError(
            f"MPMR here fits at most {MPMR_MAX_LABELS:,} labeled rows (its kernel matrix grows as their square; "
            f"this session has {y.size:,}): lower the labeled budget on the Data page"
        )
    if y.size < MIN_SAMPLES or not np.std(y) > 0:
        raise ValueError(f"MPMR needs at least {MIN_SAMPLES} labeled rows whose targets differ")
    epsilon = float(epsilon_in_sd * np.std(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OmegaWarning)  # kept in omega_warning_, shown by the page
        model = MPMRegressor(epsilon=epsilon).fit(X, y)
    actual, predicted = data.y_true[data.test], model.predict(data.dataset.X[data.test])
    return MPMRComparison(
        epsilon=epsilon,
        omega=model.omega_,
        actual=actual,
        predicted=predicted,
        coverage=float(np.mean(np.abs(predicted - actual) <= epsilon)),
        mae=float(mean_absolute_error(actual, predicted)),
        loo_coverage=model.loo_coverage_,
        rho=model.rho_,
        warning=model.omega_warning_,
    )


def monotone_boosting_mae(data: StudyData, column: str | None) -> float:
    """Test MAE of gradient boosting on the same labels and numeric features, constrained to
    increase with ``column`` (the usual way to state one order relation without preferences), or with
    no constraint (None)."""
    numeric = data.numeric_features()
    if not numeric:
        raise ValueError("this session has no numeric feature for gradient boosting to increase with")
    if column is not None and column not in numeric:
        raise ValueError(f"{column!r} is not a numeric feature of this session; choose one of {numeric}")
    if not data.test.size:
        raise ValueError("this session holds out no test rows to measure the error on")
    model = HistGradientBoostingRegressor(monotonic_cst=[int(c == column) for c in numeric], random_state=0)
    model.fit(data.frame.loc[data.labeled, numeric], data.y_true[data.labeled])
    return float(mean_absolute_error(data.y_true[data.test], model.predict(data.frame.loc[data.test, numeric])))


BOOSTING_MIN_LEAF = HistGradientBoostingRegressor().min_samples_leaf
"""Rows each leaf of gradient boosting's trees needs (scikit-learn's default, 20): below twice as many
labels no tree can split, and the fit is one value for every row."""


def median_mae(data: StudyData) -> float:
    """Test MAE of the constant predictor: the median of the labels for every held-out row (the constant of
    least absolute error on the labels), what a model that learned nothing scores."""
    return float(np.mean(np.abs(data.y_true[data.test] - np.median(data.y_true[data.labeled]))))


def boosting_note(error: float, constant: float, n_labels: int, scale: float) -> str | None:
    """Why gradient boosting's test MAE ``error`` is high, in words (figures to the digits of ``scale``, as
    the Model page's MAEs), or None: with fewer than twice
    ``BOOSTING_MIN_LEAF`` labels its trees cannot split; else when it is no better than ``constant``
    (``median_mae``), too few labels for it to learn from (a new user read 243.4 beside SVR's 65.3 on 30
    labels with no word why)."""
    if n_labels < 2 * BOOSTING_MIN_LEAF:
        return (
            f"With {n_labels:,} labels gradient boosting cannot learn: each leaf of its trees needs at least "
            f"{BOOSTING_MIN_LEAF} labeled rows, so no tree splits below {2 * BOOSTING_MIN_LEAF} and it predicts "
            "one value for every row."
        )
    if error >= constant:
        return (
            f"Gradient boosting does no better than predicting the median of the labels for every row (test MAE "
            f"{to_digits_of(constant, scale)}): {n_labels:,} labels are too few for it; it needs many more than SVR "
            "does."
        )
    return None
