"""Simulated experts who answer pairs like a person (issue 31), beside the seeds' noise-free oracle
(``oracle.py``).

``ProbitExpert`` is Thurstone's case V: the expert perceives each row's value with independent Gaussian
noise, y + N(0, noise^2), and compares the two perceptions.  For a pair of true difference
delta = y_a - y_b the perceived difference is delta + N(0, 2 noise^2), so

    P('a') = Phi((delta - tolerance) / s),  P('b') = Phi((-delta - tolerance) / s),  s = noise sqrt(2),

'about equal' when the perceived difference is under ``tolerance`` either way, and a share ``skip`` of
the pairs is skipped before any of this.  Close pairs are the hard ones: right with probability near
1/2 at delta = 0, near 1 for |delta| >> s.  ``accuracy`` describes an expert by one figure: the share
of their ordered answers (neither equal nor skipped) that are right, on random pairs of rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ordercore.knowledge.arguments import same_length

CHOICES = np.array(["a", "b", "equal", "skip"])
"""The answers, in the order of ``ProbitExpert.probabilities``' columns (the Studio's choices)."""

TYPICAL_PAIRS = 20_000
"""How many random pairs ``ProbitExpert.accuracy`` averages over."""


@dataclass(frozen=True)
class ProbitExpert:
    """An expert who answers pairs by comparing noisy perceptions of their values (module docstring).
    noise: the perception noise's standard deviation (target units, > 0; 0: never wrong); tolerance:
    perceived differences under it are 'about equal' (>= 0); skip: the share of pairs skipped (0 <= skip
    < 1)."""

    noise: float
    tolerance: float = 0.0
    skip: float = 0.0

    def __post_init__(self):
        if not (np.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"noise must be a finite number >= 0, got {self.noise!r}")
        if not (np.isfinite(self.tolerance) and self.tolerance >= 0):
            raise ValueError(f"tolerance must be a finite number >= 0, got {self.tolerance!r}")
        if not 0 <= self.skip < 1:
            raise ValueError(f"skip must be a share from 0 to below 1, got {self.skip!r}")

    @classmethod
    def relative(cls, y: np.ndarray, noise: float, tolerance: float = 0.0, skip: float = 0.0) -> ProbitExpert:
        """An expert on targets y whose noise and tolerance are given as fractions of y's standard
        deviation (the command line's ``--expert-noise``)."""
        scale = float(np.nanstd(y))
        return cls(noise * scale, tolerance * scale, skip)

    def probabilities(self, difference) -> np.ndarray:
        """P('a'), P('b'), P('equal'), P('skip') for pairs of true difference y_a - y_b (m,), shape
        (m, 4), each row summing to 1."""
        difference = np.asarray(difference, dtype=np.float64).reshape(-1)
        if self.noise == 0:
            a = (difference > self.tolerance).astype(np.float64)
            b = (-difference > self.tolerance).astype(np.float64)
        else:
            spread = self.noise * np.sqrt(2.0)
            a, b = ndtr((difference - self.tolerance) / spread), ndtr((-difference - self.tolerance) / spread)
        answered = 1.0 - self.skip
        return np.column_stack([answered * a, answered * b, answered * (1.0 - a - b), np.full_like(a, self.skip)])

    def answer(self, y_a, y_b, rng: np.random.Generator) -> np.ndarray:
        """One answer per pair ('a', 'b', 'equal' or 'skip'), shape (m,), for true values y_a, y_b (m,):
        skipped with probability ``skip``, else the perceptions compared."""
        y_a, y_b = np.atleast_1d(np.asarray(y_a, dtype=np.float64)), np.atleast_1d(np.asarray(y_b, dtype=np.float64))
        same_length(y_a, y_b, "y_a and y_b")
        skipped = rng.random(y_a.shape) < self.skip
        perceived = (y_a - y_b) + self.noise * (rng.standard_normal(y_a.shape) - rng.standard_normal(y_a.shape))
        choices = np.where(perceived > self.tolerance, "a", np.where(-perceived > self.tolerance, "b", "equal"))
        return np.where(skipped, "skip", choices)

    def accuracy(self, y: np.ndarray, seed: int = 0) -> float:
        """The share of ordered answers that are right, P(right) / P(ordered), on ``TYPICAL_PAIRS``
        random pairs of two different rows of y (NaN rows left out), in closed form per pair."""
        y = np.asarray(y, dtype=np.float64)
        y = y[~np.isnan(y)]
        rng = np.random.default_rng(seed)
        first, second = rng.integers(y.size, size=(2, TYPICAL_PAIRS))
        difference = (y[first] - y[second])[first != second]
        p = self.probabilities(difference)
        right = np.where(difference > 0, p[:, 0], np.where(difference < 0, p[:, 1], 0.0))
        ordered = p[:, 0] + p[:, 1]
        return float(right.sum() / ordered.sum()) if ordered.sum() > 0 else float("nan")


def noise_for_accuracy(y: np.ndarray, accuracy: float, tolerance: float = 0.0, skip: float = 0.0) -> float:
    """The noise, as a fraction of y's standard deviation, of a ``ProbitExpert.relative`` expert whose
    ``accuracy`` on y is the one given (1/2 < accuracy < 1), by bisection (accuracy falls as noise grows)."""
    if not 0.5 < accuracy < 1:
        raise ValueError(f"accuracy must be between 1/2 and 1, got {accuracy!r}")
    distinct = np.unique(np.asarray(y, dtype=np.float64)[~np.isnan(y)]).size
    if distinct < 2:
        raise ValueError(
            "y needs at least two different values (NaN left out) to define an expert's accuracy; it has "
            f"{distinct} distinct value{'' if distinct == 1 else 's'}"
        )
    low, high = 0.0, 1.0
    while ProbitExpert.relative(y, high, tolerance, skip).accuracy(y) > accuracy:
        high *= 2
    for _ in range(50):
        middle = (low + high) / 2
        if ProbitExpert.relative(y, middle, tolerance, skip).accuracy(y) > accuracy:
            low = middle
        else:
            high = middle
    return (low + high) / 2
