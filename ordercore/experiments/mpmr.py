"""Seed 003's experiments (Strohmann & Grudic, NIPS 2002, §3) and a study of its bound Ω beyond it.

- **Table 1, Fig. 1(d, e)** (``sinc_experiment``): y = sin(πx)/(πx) + noise, x uniform on [−3, 3] —
  the toy of the seed's reference [5], Schölkopf et al., "Shrinking the tube" (NIPS 1998); the
  transcript's "sin(x_i)/(x_i)" lost the π, and Fig. 1 spans [−3, 3].  N = 100 training points, RBF
  exp(−|a − b|²), ε = 0.2, 100 trials; MSE and MPTD (the share of 100 fresh test points whose
  prediction is within ε) against the noise-free sinc, as the σ = 0 row (MSE 0, MPTD 1) and the MPTD
  above Ω's coverage of noisy points imply.  The paper's noise levels "σ² ∈ {0, 0.5, 1}" run both as
  standard deviations and as variances (they differ at 0.5 only).  Fig. 1(d, e): σ = 1, ε from 0.05
  to 1.6 (the figure's axis).
- **Table 2** (``boston_experiment``): Boston housing, 100 random 481 / 25 splits per
  ε ∈ {0.1, 1, 2, …, 10}, RBF exp(−|a − b|² / (2σ²)) with 2σ² = 0.3·d, d = 13 (reference [5]'s
  width).  Features scaled to [0, 1] by the training rows' ranges: the transcript does not say, the
  0.3·d width is sized for that range, and standardised features give a near-diagonal kernel (our
  check: test MSE 15, Ω 0.08 at ε = 0.1 against the paper's 10 and 0.002).
- **Beyond the paper** (``coverage_study``): over random splits, how Ω compares with the measured
  coverage of noisy test points, against Chebyshev's two-sided bound, a cross-validated coverage
  estimate and split-conformal tubes of the same width (``ordercore.mpmr.coverage``).

Every trial draws from its own ``SeedSequence([seed, row, trial])``.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numpy as np

from ordercore.data.benchmarks import load_dataset
from ordercore.exceptions import OmegaWarning
from ordercore.mpmr.coverage import (
    conformal_level,
    conformal_lower_bound,
    cross_validated_coverage,
    out_of_fold_residuals,
)
from ordercore.mpmr.estimator import PAPER_RHO, MPMRegressor

SINC_RANGE = (-3.0, 3.0)
SINC_TRAIN, SINC_TEST = 100, 100
SINC_GAMMA = 1.0
"""K(a, b) = exp(−|a − b|²)."""
SINC_EPSILON = 0.2
SINC_NOISE = (
    {"paper_sigma2": 0.0, "reading": "σ (either)", "noise_std": 0.0},
    {"paper_sigma2": 0.5, "reading": "σ, standard deviation", "noise_std": 0.5},
    {"paper_sigma2": 0.5, "reading": "σ², variance", "noise_std": float(np.sqrt(0.5))},
    {"paper_sigma2": 1.0, "reading": "σ (either)", "noise_std": 1.0},
)
"""The paper's noise levels, each reading of its "variance σ²" where they differ."""
FIGURE1_EPSILONS = (0.05, *np.round(np.arange(0.1, 1.65, 0.1), 2).tolist())
FIGURE1_NOISE_STD = 1.0

PAPER_TABLE1 = {
    0.0: {"mse": (0.0, 0.0), "mptd": (1.0, 0.0), "omega": (1.0, 0.0)},
    0.5: {"mse": (0.0524, 0.0386), "mptd": (0.6888, 0.1133), "omega": (0.1610, 0.0229)},
    1.0: {"mse": (0.2592, 0.3118), "mptd": (0.3870, 0.1110), "omega": (0.0463, 0.0071)},
}
"""Seed 003 Table 1: mean (std) over 100 trials, keyed by the paper's σ²."""

BOSTON_TRAIN = 481
BOSTON_EPSILONS = (0.1, *map(float, range(1, 11)))
PAPER_TABLE2 = {
    epsilon: {"mse": mse, "mptd": mptd, "omega": omega}
    for epsilon, mse, mptd, omega in [
        (0.1, (9.9, 5.9), (0.05, 0.04), (0.002, 0.0005)),
        (1.0, (10.5, 9.5), (0.33, 0.09), (0.19, 0.03)),
        (2.0, (10.9, 8.6), (0.58, 0.09), (0.51, 0.06)),
        (3.0, (9.5, 5.9), (0.76, 0.08), (0.69, 0.05)),
        (4.0, (10.3, 8.1), (0.84, 0.07), (0.80, 0.04)),
        (5.0, (9.9, 8.0), (0.89, 0.06), (0.87, 0.03)),  # printed "4.0" a second time in the transcript
        (6.0, (10.5, 8.5), (0.93, 0.05), (0.90, 0.01)),
        (7.0, (10.5, 8.1), (0.95, 0.04), (0.92, 0.01)),
        (8.0, (9.2, 5.3), (0.97, 0.03), (0.94, 0.009)),
        (9.0, (10.1, 6.9), (0.97, 0.03), (0.95, 0.009)),
        (10.0, (10.6, 7.6), (0.98, 0.02), (0.96, 0.008)),
    ]
}
"""Seed 003 Table 2: mean (std) over 100 splits for each ε."""

COVERAGE_EPSILONS = {"sinc-gaussian": (0.2, 0.5, 1.0), "sinc-t3": (0.2, 0.5, 1.0), "boston": (1.0, 2.0, 3.0, 5.0)}
COVERAGE_NOISE_STD = 0.5
"""The coverage study's sinc noise: N(0, 0.5²), or 0.5 / √3 · t₃ (the same standard deviation, heavy tails)."""
CONFORMAL_CONFIDENCE = 0.9
"""Confidence of the per-split conformal bound (``conformal_lower_bound``)."""
COVERAGE_TEST = 1000
"""Noisy sinc test points per split in the coverage study (Boston keeps its 25)."""


def sinc(x: np.ndarray) -> np.ndarray:
    """sin(πx) / (πx), 1 at 0."""
    return np.sinc(x)


def sinc_sample(n: int, noise_std: float, rng: np.random.Generator, noise: str = "gaussian"):
    """x (n, 1) uniform on ``SINC_RANGE`` and y (n,) = sinc(x) + noise of standard deviation
    ``noise_std``: Gaussian, or Student's t with 3 degrees of freedom scaled to that deviation ('t3')."""
    x = rng.uniform(*SINC_RANGE, size=(n, 1))
    if noise == "gaussian":
        draws = rng.standard_normal(n)
    elif noise == "t3":
        draws = rng.standard_t(3, n) / np.sqrt(3.0)  # t₃ has variance 3
    else:
        raise ValueError(f"noise must be 'gaussian' or 't3', got {noise!r}")
    return x, sinc(x[:, 0]) + noise_std * draws


def _rng(seed: int, row: int, trial: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, row, trial]))


def _measures_omega(function):
    """``function`` with MPMR's ``OmegaWarning`` silenced: these experiments fit at the paper's ρ and
    measure how Ω compares with the coverage themselves (the warning would repeat what they report)."""

    @functools.wraps(function)
    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OmegaWarning)
            return function(*args, **kwargs)

    return quiet


@_measures_omega
def sinc_trial(noise_std: float, epsilon: float, rng: np.random.Generator, rho: float | str = PAPER_RHO) -> dict:
    """One Table 1 trial: MSE and MPTD on fresh test points against the noise-free sinc, and Ω."""
    x, y = sinc_sample(SINC_TRAIN, noise_std, rng)
    model = MPMRegressor(gamma=SINC_GAMMA, epsilon=epsilon, rho=rho).fit(x, y)
    x_test = rng.uniform(*SINC_RANGE, size=(SINC_TEST, 1))
    error = model.predict(x_test) - sinc(x_test[:, 0])
    return {"mse": float(np.mean(error**2)), "mptd": float(np.mean(np.abs(error) <= epsilon)), "omega": model.omega_}


def _summary(trials: list[dict]) -> dict:
    """Mean and standard deviation of each measure over trials, and how often Ω ≤ MPTD."""
    summary = {}
    for key in trials[0]:
        values = np.array([trial[key] for trial in trials])
        summary[key] = (float(values.mean()), float(values.std(ddof=1)) if values.size > 1 else 0.0)
    summary["omega_below_mptd"] = float(np.mean([t["omega"] <= t["mptd"] for t in trials]))
    return summary


def sinc_experiment(trials: int = 100, seed: int = 0, progress=None, rho: float | str = PAPER_RHO) -> dict:
    """Table 1 (every reading of its noise levels) and Fig. 1(d, e), per-trial measures and summaries;
    ``rho`` the covariance regulariser (the default reproduces the paper; others show what it does)."""
    table, figure = [], []
    rows = [(level, SINC_EPSILON) for level in SINC_NOISE]
    rows += [({"noise_std": FIGURE1_NOISE_STD}, epsilon) for epsilon in FIGURE1_EPSILONS]
    for row, (level, epsilon) in enumerate(rows):
        results = [sinc_trial(level["noise_std"], epsilon, _rng(seed, row, k), rho) for k in range(trials)]
        entry = {**level, "epsilon": epsilon, "summary": _summary(results), "trials": _columns(results)}
        (table if row < len(SINC_NOISE) else figure).append(entry)
        if progress is not None:
            progress(row + 1, len(rows))
    protocol = {
        "x_range": SINC_RANGE,
        "function": "sin(pi x) / (pi x)",
        "n_train": SINC_TRAIN,
        "n_test": SINC_TEST,
        "gamma": SINC_GAMMA,
        "rho": rho,
        "targets": "noise-free sinc at the test points",
    }
    paper = {str(k): v for k, v in PAPER_TABLE1.items()}
    return {
        "experiment": "mpmr-sinc",
        "seed": seed,
        "protocol": protocol,
        "table1": table,
        "figure1": figure,
        "paper": paper,
    }


def _columns(trials: list[dict]) -> dict:
    """Per-trial measures as one list per measure (compact JSON)."""
    return {key: [trial[key] for trial in trials] for key in trials[0]}


@dataclass(frozen=True)
class BostonData:
    """Boston's raw features (506, 13) and medv (506,)."""

    X: np.ndarray
    y: np.ndarray

    @classmethod
    def load(cls) -> BostonData:
        data = load_dataset("boston")
        return cls(data.frame[data.feature_names].to_numpy(dtype=np.float64), data.y)

    def split(self, rng: np.random.Generator):
        """(X_train, y_train, X_test, y_test): a random 481 / 25 split, features scaled to [0, 1] by the
        training rows' ranges."""
        order = rng.permutation(len(self.y))
        train, test = order[:BOSTON_TRAIN], order[BOSTON_TRAIN:]
        low, high = self.X[train].min(axis=0), self.X[train].max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        return (self.X[train] - low) / span, self.y[train], (self.X[test] - low) / span, self.y[test]


def boston_gamma(n_features: int) -> float:
    """1 / (2σ²) with 2σ² = 0.3·d."""
    return 1.0 / (0.3 * n_features)


@_measures_omega
def boston_trial(data: BostonData, epsilon: float, rng: np.random.Generator, rho: float | str = PAPER_RHO) -> dict:
    """One Table 2 split: test MSE, MPTD (share of the 25 test targets within ε) and Ω."""
    X, y, X_test, y_test = data.split(rng)
    model = MPMRegressor(gamma=boston_gamma(X.shape[1]), epsilon=epsilon, rho=rho).fit(X, y)
    error = model.predict(X_test) - y_test
    return {"mse": float(np.mean(error**2)), "mptd": float(np.mean(np.abs(error) <= epsilon)), "omega": model.omega_}


def boston_experiment(
    data: BostonData, trials: int = 100, seed: int = 0, progress=None, rho: float | str = PAPER_RHO
) -> dict:
    """Table 2: per ε, ``trials`` random splits of their own; ``rho`` as in ``sinc_experiment``."""
    table = []
    for row, epsilon in enumerate(BOSTON_EPSILONS):
        results = [boston_trial(data, epsilon, _rng(seed, row, k), rho) for k in range(trials)]
        table.append({"epsilon": epsilon, "summary": _summary(results), "trials": _columns(results)})
        if progress is not None:
            progress(row + 1, len(BOSTON_EPSILONS))
    protocol = {
        "n_train": BOSTON_TRAIN,
        "n_test": len(data.y) - BOSTON_TRAIN,
        "gamma": boston_gamma(data.X.shape[1]),
        "rho": rho,
        "features": "scaled to [0, 1] by the training rows' ranges",
    }
    paper = {str(k): v for k, v in PAPER_TABLE2.items()}
    return {"experiment": "mpmr-boston", "seed": seed, "protocol": protocol, "table2": table, "paper": paper}


# ---------------------------------------------------------------------------------------- beyond the paper
@_measures_omega
def coverage_split(model: MPMRegressor, X, y, X_test, y_test, epsilons, rng: np.random.Generator) -> dict:
    """Every coverage figure of one split, each (m,) over ``epsilons``: the paper's Ω, Chebyshev's
    two-sided bound max(0, 1 − σ²/ε²) from the same σ², the measured coverage of the noisy test
    targets, the 10-fold cross-validated coverage, and split conformal (half the training rows fit, the
    other half calibrate): its level (guaranteed on average), its per-split Clopper–Pearson bound at
    ``CONFORMAL_CONFIDENCE``, and its own fit's measured coverage."""
    epsilons = np.asarray(epsilons, dtype=float)
    fit = model.fit(X, y)
    residual = np.abs(fit.predict(X_test) - y_test)
    order = rng.permutation(len(y))
    proper, calibration = order[: len(y) // 2], order[len(y) // 2 :]
    half = MPMRegressor(**model.get_params()).fit(X[proper], y[proper])
    split_residual = np.abs(half.predict(X_test) - y_test)
    calibration_residual = y[calibration] - half.predict(X[calibration])
    return {
        "omega": [fit.omega_for(e) for e in epsilons],
        "chebyshev": np.maximum(0.0, 1 - fit.residual_variance_ / epsilons**2).tolist(),
        "coverage": np.mean(residual[None, :] <= epsilons[:, None], axis=1).tolist(),
        "cv_coverage": cross_validated_coverage(model, X, y, epsilons, seed=int(rng.integers(2**31))).tolist(),
        "conformal_level": conformal_level(calibration_residual, epsilons).tolist(),
        "conformal_bound": conformal_lower_bound(calibration_residual, epsilons, CONFORMAL_CONFIDENCE).tolist(),
        "conformal_coverage": np.mean(split_residual[None, :] <= epsilons[:, None], axis=1).tolist(),
    }


def coverage_study(
    data: BostonData | None, trials: int = 200, seed: int = 0, progress=None, rho: float | str = PAPER_RHO
) -> dict:
    """``coverage_split`` over ``trials`` random splits of each setting (sinc with Gaussian and with t₃
    noise of standard deviation 0.5, N = 100, 1,000 noisy test points; Boston 481 / 25 when ``data``),
    MPMR at ``rho`` (the paper's, or 'auto': chosen from each split's training rows)."""
    settings = {}
    names = [name for name in COVERAGE_EPSILONS if data is not None or name != "boston"]
    for row, name in enumerate(names):
        epsilons = COVERAGE_EPSILONS[name]
        splits = []
        for k in range(trials):
            rng = _rng(seed, row, k)
            if name == "boston":
                X, y, X_test, y_test = data.split(rng)
                model = MPMRegressor(gamma=boston_gamma(X.shape[1]), rho=rho)
            else:
                noise = name.removeprefix("sinc-")
                X, y = sinc_sample(SINC_TRAIN, COVERAGE_NOISE_STD, rng, noise)
                X_test, y_test = sinc_sample(COVERAGE_TEST, COVERAGE_NOISE_STD, rng, noise)
                model = MPMRegressor(gamma=SINC_GAMMA, rho=rho)
            splits.append(coverage_split(model, X, y, X_test, y_test, epsilons, rng))
            if progress is not None:
                progress(row * trials + k + 1, len(names) * trials)
        settings[name] = {"epsilons": list(epsilons), "summary": _coverage_summary(splits), "splits": splits}
    return {"experiment": "mpmr-coverage", "seed": seed, "rho": rho, "settings": settings}


def _coverage_summary(splits: list[dict]) -> list[dict]:
    """Per ε: mean of each figure, how often each bound or level is at most the coverage it speaks of,
    and the mean gaps."""
    arrays = {key: np.array([split[key] for split in splits]) for key in splits[0]}  # (trials, m)
    coverage, conformal = arrays["coverage"], arrays["conformal_coverage"]
    rows = []
    for j in range(coverage.shape[1]):
        row = {f"{key}_mean": float(values[:, j].mean()) for key, values in arrays.items()}
        row.update(
            omega_below_coverage=float(np.mean(arrays["omega"][:, j] <= coverage[:, j])),
            omega_gap=float(np.mean(coverage[:, j] - arrays["omega"][:, j])),
            chebyshev_below_coverage=float(np.mean(arrays["chebyshev"][:, j] <= coverage[:, j])),
            cv_error=float(np.mean(arrays["cv_coverage"][:, j] - coverage[:, j])),
            cv_abs_error=float(np.mean(np.abs(arrays["cv_coverage"][:, j] - coverage[:, j]))),
            conformal_below_coverage=float(np.mean(arrays["conformal_level"][:, j] <= conformal[:, j])),
            conformal_gap=float(np.mean(conformal[:, j] - arrays["conformal_level"][:, j])),
            conformal_bound_below_coverage=float(np.mean(arrays["conformal_bound"][:, j] <= conformal[:, j])),
        )
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------- the Studio's demo
SINC_DEMO_TEST = 2000
"""Fresh noisy points on which the sinc demo measures coverage."""
SINC_DEMO_NOISE = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0)
"""Noise standard deviations the toy page offers."""
SINC_DEMO_EPSILONS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5)
"""Tube half-widths ε the toy page offers."""
NOISE_LAWS = {"gaussian": "Gaussian", "t3": "Student t₃ (heavy tails)"}


@dataclass(frozen=True)
class SincDemo:
    """One draw of the sinc toy and its MPMR fit, for every ε at once (the surface does not depend on
    ε): training x (N, 1) and y (N,), the fit on ``grid`` (g,), σ², the absolute residuals on
    ``SINC_DEMO_TEST`` fresh noisy points and the 10-fold out-of-fold ones (N,)."""

    x: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    fit: np.ndarray
    residual_variance: float
    test_residuals: np.ndarray
    cv_residuals: np.ndarray

    def omega(self, epsilon) -> np.ndarray:
        """The paper's Ω = ε² / (ε² + σ²) for each ε."""
        epsilon = np.asarray(epsilon, dtype=float)
        return epsilon**2 / (epsilon**2 + self.residual_variance)

    def coverage(self, epsilon) -> np.ndarray:
        """The share of the fresh noisy points within each ε of the fit."""
        return np.mean(self.test_residuals[None, :] <= np.atleast_1d(epsilon)[:, None], axis=1)

    def cv_coverage(self, epsilon) -> np.ndarray:
        """The cross-validated estimate of that share (not the paper's)."""
        return np.mean(self.cv_residuals[None, :] <= np.atleast_1d(epsilon)[:, None], axis=1)


@_measures_omega
def sinc_demo(noise_std: float, noise: str = "gaussian", seed: int = 0) -> SincDemo:
    """Draw Table 1's setting (N = 100, RBF exp(−|a − b|²)) with ``noise`` of standard deviation
    ``noise_std`` and fit MPMR; ``ValueError`` for a negative or non-finite noise level."""
    if not (np.isfinite(noise_std) and noise_std >= 0):
        raise ValueError(f"the noise level must be a finite number >= 0, got {noise_std!r}")
    rng = np.random.default_rng(seed)
    x, y = sinc_sample(SINC_TRAIN, noise_std, rng, noise)
    x_test, y_test = sinc_sample(SINC_DEMO_TEST, noise_std, rng, noise)
    model = MPMRegressor(gamma=SINC_GAMMA, rho=PAPER_RHO).fit(x, y)
    grid = np.linspace(*SINC_RANGE, 301)
    return SincDemo(
        x=x[:, 0],
        y=y,
        grid=grid,
        fit=model.predict(grid[:, None]),
        residual_variance=model.residual_variance_,
        test_residuals=np.abs(model.predict(x_test) - y_test),
        cv_residuals=out_of_fold_residuals(model, x, y, seed=seed),
    )


# ---------------------------------------------------------------------------------------- reports
def _mean_sd(pair, digits: int) -> str:
    return f"{pair[0]:.{digits}f} ({pair[1]:.{digits}f})"


def _share(value: float) -> str:
    return f"{100 * value:.0f}%"


def _markdown(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def _beside(paper: dict, ours: dict, digits: dict) -> list[str]:
    """The paper's mean (std) and ours for MSE, MPTD and Ω, each with its digits."""
    return [_mean_sd(source[key], digits[key]) for key in ("mse", "mptd", "omega") for source in (paper, ours)]


def _sinc_tables(result: dict) -> list[str]:
    """Table 1 beside the paper, then Fig. 1(d, e)."""
    table = [
        [str(row["paper_sigma2"]), row["reading"], f"{row['noise_std']:.3f}"]
        + _beside(result["paper"][str(row["paper_sigma2"])], row["summary"], {"mse": 4, "mptd": 4, "omega": 4})
        + [_share(row["summary"]["omega_below_mptd"])]
        for row in result["table1"]
    ]
    figure = [
        [f"{row['epsilon']:g}", _mean_sd(row["summary"]["mse"], 4), _mean_sd(row["summary"]["mptd"], 3)]
        + [_mean_sd(row["summary"]["omega"], 3), _share(row["summary"]["omega_below_mptd"])]
        for row in result["figure1"]
    ]
    header = ["paper σ²", "read as", "noise std", "MSE (paper)", "MSE", "MPTD (paper)", "MPTD", "Ω (paper)", "Ω"]
    return _markdown([*header, "Ω ≤ MPTD"], table) + [""] + _markdown(["ε", "MSE", "MPTD", "Ω", "Ω ≤ MPTD"], figure)


def _boston_table(result: dict) -> list[str]:
    """Table 2 beside the paper (its Ω printed as it prints them)."""
    rows = []
    for row in result["table2"]:
        paper, ours = result["paper"][str(row["epsilon"])], row["summary"]
        cells = _beside(paper, ours, {"mse": 1, "mptd": 2, "omega": 3})
        cells[4] = f"{paper['omega'][0]:g} ({paper['omega'][1]:g})"
        rows.append([f"{row['epsilon']:g}", *cells, _share(ours["omega_below_mptd"])])
    return _markdown(["ε", "MSE (paper)", "MSE", "MPTD (paper)", "MPTD", "Ω (paper)", "Ω", "Ω ≤ MPTD"], rows)


COVERAGE_COLUMNS = {
    "coverage": ("coverage_mean", "{:.3f}"),
    "Ω": ("omega_mean", "{:.3f}"),
    "Ω ≤ cov.": ("omega_below_coverage", "share"),
    "cov. − Ω": ("omega_gap", "{:+.3f}"),
    "Chebyshev": ("chebyshev_mean", "{:.3f}"),
    "Cheb. ≤ cov.": ("chebyshev_below_coverage", "share"),
    "CV estimate": ("cv_coverage_mean", "{:.3f}"),
    "CV − cov.": ("cv_error", "{:+.3f}"),
    "\\|CV − cov.\\|": ("cv_abs_error", "{:.3f}"),
    "conformal level": ("conformal_level_mean", "{:.3f}"),
    "its coverage": ("conformal_coverage_mean", "{:.3f}"),
    "level ≤ cov.": ("conformal_below_coverage", "share"),
    "90 % bound": ("conformal_bound_mean", "{:.3f}"),
    "bound ≤ cov.": ("conformal_bound_below_coverage", "share"),
}
"""The coverage study's columns: heading -> (summary key, format; 'share' as a percentage)."""


def _coverage_table(result: dict) -> list[str]:
    """The coverage study, one row per setting and ε."""
    rows = [
        [name, f"{epsilon:g}"]
        + [_share(s[key]) if form == "share" else form.format(s[key]) for key, form in COVERAGE_COLUMNS.values()]
        for name, setting in result["settings"].items()
        for epsilon, s in zip(setting["epsilons"], setting["summary"], strict=True)
    ]
    return _markdown(["setting", "ε", *COVERAGE_COLUMNS], rows)


REPORTS = {"mpmr-sinc": _sinc_tables, "mpmr-boston": _boston_table, "mpmr-coverage": _coverage_table}
"""Experiment -> its Markdown tables."""


def report(result: dict) -> str:
    """Markdown tables of an ``mpmr-*`` result beside the paper's numbers."""
    if result.get("experiment") not in REPORTS:
        raise ValueError(f"not an MPMR result: {result.get('experiment')!r}")
    return "\n".join(REPORTS[result["experiment"]](result))
