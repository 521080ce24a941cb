"""What more labels would buy instead of answers (issue 31, item 4): SVR's learning curve on a session's
own labels, extrapolated.

``LabelCurve.measure`` fits SVR on random subsets of the labels (a quarter, a half, three quarters of
them; ``REPEATS`` draws each) and measures its MAE on the labels left out; a power law MAE = c m^-b
fitted to those (least squares on the logs, b >= 0: more labels never hurt) says how SVR's error falls
with m labels.  ``LabelCurve.ratio(m)`` is the error at m labels over the error at all l: the Studio
scales SVR's cross-validated error by it to estimate the error an expert's time would have bought as
value labels (``answers / label_cost`` more of them).  An estimate: an extrapolation from at most l labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ordercore.lp.estimator import OrderPreferenceRegressor

LABEL_COST = 10
"""Answers a value label costs by default: reading a pair and pressing a key takes a few seconds, while
a value (a price, an age) has to be looked up or estimated from the whole row, closer to half a minute;
so one label per 10 answers (``experiments session --label-cost``, the Model page's setting)."""

FRACTIONS = (0.25, 0.5, 0.75)
"""The shares of the labels SVR is fitted on to draw its learning curve."""

REPEATS = 4
"""Random subsets per share."""


@dataclass(frozen=True)
class LabelCurve:
    """SVR's error with m labels, MAE = c m^-b: ``sizes`` (k,) and ``errors`` (k,) measured, ``exponent``
    b >= 0 fitted, ``n_labeled`` l."""

    sizes: np.ndarray
    errors: np.ndarray
    exponent: float
    n_labeled: int

    @classmethod
    def measure(cls, X, y, lambda1: float, rng: np.random.Generator, **model_options) -> LabelCurve:
        """The curve of SVR (the LP at lambda2 = 0 with ``model_options``) on the labels of y (NaN:
        unlabeled); ``ValueError`` with fewer than 8 labels (each share needs 2 to fit, 2 to test)."""
        labeled = np.flatnonzero(~np.isnan(y))
        if labeled.size < 8:
            raise ValueError(f"a learning curve needs at least 8 labels, got {labeled.size}")
        sizes, errors = [], []
        for fraction in FRACTIONS:
            m = int(round(fraction * labeled.size))
            for _ in range(REPEATS):
                chosen = rng.permutation(labeled)
                y_fit = np.full_like(y, np.nan)
                y_fit[chosen[:m]] = y[chosen[:m]]
                model = OrderPreferenceRegressor(lambda1=lambda1, lambda2=0.0, **model_options).fit(X, y_fit)
                held_out = chosen[m:]
                sizes.append(m)
                errors.append(float(np.mean(np.abs(model.predict(X[held_out]) - y[held_out]))))
        sizes, errors = np.array(sizes, dtype=np.float64), np.array(errors)
        slope = np.polyfit(np.log(sizes), np.log(np.maximum(errors, np.finfo(float).tiny)), 1)[0]
        return cls(sizes, errors, float(max(0.0, -slope)), int(labeled.size))

    def ratio(self, n_labels) -> np.ndarray:
        """SVR's error with ``n_labels`` labels (any shape) over its error with the l it has: (l / m)^b."""
        return (self.n_labeled / np.asarray(n_labels, dtype=np.float64)) ** self.exponent
