"""The toy cubic teaching demo (seed 000 Fig. 1, seed 001 §4.1).

A degree-3 polynomial target, three random training points, and order preferences between
unlabeled x values made from the true order (d = 0, w = 1).  SVR (lambda2 = 0) fits the three
points only; SSL also honours the preferences and moves towards the target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import PreferenceSet

DOMAIN = (-1.0, 1.0)
N_TRAINING = 3
GRID = np.linspace(*DOMAIN, 201)


def cubic_target(x: np.ndarray) -> np.ndarray:
    """The target 4x^3 - 3x (Chebyshev T3): two turning points within [-1, 1]."""
    x = np.asarray(x, dtype=np.float64)
    return 4.0 * x**3 - 3.0 * x


@dataclass
class ToyCubicDemo:
    """Training x values (3,) and preference pairs (x_higher, x_lower) with f(x_higher) >= f(x_lower)."""

    training_x: np.ndarray
    pairs: list[tuple[float, float]] = field(default_factory=list)

    @classmethod
    def draw(cls, seed: int) -> ToyCubicDemo:
        """Three training points drawn uniformly from the domain."""
        rng = np.random.default_rng(seed)
        return cls(np.sort(rng.uniform(*DOMAIN, N_TRAINING)))

    def add_pair(self, x_a: float, x_b: float) -> tuple[float, float]:
        """Add the preference between x_a and x_b in their true order; returns (higher, lower)."""
        x_a, x_b = float(x_a), float(x_b)
        for value in (x_a, x_b):
            if not DOMAIN[0] <= value <= DOMAIN[1]:
                raise ValueError(f"x = {value} lies outside the domain {DOMAIN}")
        if x_a == x_b:
            raise ValueError("a preference needs two different x values")
        pair = (x_a, x_b) if cubic_target(x_a) >= cubic_target(x_b) else (x_b, x_a)
        self.pairs.append(pair)
        return pair

    def add_random_pair(self, rng: np.random.Generator) -> tuple[float, float]:
        """A pair of distinct x values drawn uniformly (rounded to 0.01, like the paper's -0.15, 0.30)."""
        while True:
            x_a, x_b = np.round(rng.uniform(*DOMAIN, 2), 2)
            if x_a != x_b:
                return self.add_pair(x_a, x_b)


@dataclass(frozen=True)
class ToyFit:
    """SVR and SSL predictions on ``GRID`` (201,), their preferences violated, and MAE to the target."""

    svr: np.ndarray
    ssl: np.ndarray
    svr_violated: int
    ssl_violated: int
    svr_error: float
    ssl_error: float


def fit_toy(training_x, pairs, kernel: str = "poly", lambda1: float = 1e-3, lambda2: float = 1.0) -> ToyFit:
    """Fit SVR (lambda2 = 0, the seeds' expansion over the training points) and SSL on the training
    points and the preference pairs; SSL's f is expanded over every preference point too
    (``centers='all'``), so that preferences can bend it where there is no label."""
    training_x = np.asarray(training_x, dtype=np.float64)
    pair_x = np.asarray(pairs, dtype=np.float64).reshape(-1, 2)
    X = np.concatenate([training_x, pair_x.ravel()])[:, None]
    y = np.concatenate([cubic_target(training_x), np.full(pair_x.size, np.nan)])
    first = training_x.size + 2 * np.arange(len(pair_x))
    preferences = PreferenceSet.order(first, first + 1, 0.0, 1.0)
    parameters = dict(kernel=kernel, lambda1=lambda1)
    if kernel != "linear":
        parameters["gamma"] = 1.0
    svr = OrderPreferenceRegressor(lambda2=0.0, centers="labeled", **parameters).fit(X, y, preferences)
    ssl = OrderPreferenceRegressor(lambda2=lambda2, centers="all", **parameters).fit(X, y, preferences)
    truth = cubic_target(GRID)
    svr_curve, ssl_curve = svr.predict(GRID[:, None]), ssl.predict(GRID[:, None])
    return ToyFit(
        svr=svr_curve,
        ssl=ssl_curve,
        svr_violated=svr.n_violated_,
        ssl_violated=ssl.n_violated_,
        svr_error=float(np.mean(np.abs(svr_curve - truth))),
        ssl_error=float(np.mean(np.abs(ssl_curve - truth))),
    )
