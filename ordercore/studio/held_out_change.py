"""The change of the test MAE from SVR to SSL with its 95 % interval, paired over the held-out rows, and its
verdict (issue 33, item 3: every verdict worded by its interval; a new user read a green '↓2' on an MAE of
2,153 measured on 36 rows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import t

from ordercore.inputs.lengths import one_length
from ordercore.studio.numbers import to_digits_of


@dataclass(frozen=True)
class HeldOutChange:
    """SSL's test MAE minus SVR's (``change``), its 95 % interval [``low``, ``high``] (NaN under two rows)
    and the number of held-out ``rows`` it is measured on."""

    change: float
    low: float
    high: float
    rows: int

    @classmethod
    def of(cls, truth: np.ndarray, svr: np.ndarray, ssl: np.ndarray) -> HeldOutChange:
        """From the held-out rows' targets and the two models' predictions (each (n,)): a paired t interval
        of the per-row differences d_i = |ssl_i − y_i| − |svr_i − y_i|, mean(d) ± t(0.975, n − 1) · sd(d) / √n
        (the test MAEs' difference is mean(d); pairing by row removes what the rows' difficulty shares)."""
        one_length("HeldOutChange.of", "a value per held-out row", truth=truth, svr=svr, ssl=ssl)
        truth = np.asarray(truth, dtype=np.float64)
        differences = np.abs(np.asarray(ssl, dtype=np.float64) - truth) - np.abs(np.asarray(svr) - truth)
        rows = differences.size
        mean = float(differences.mean()) if rows else float("nan")
        if rows < 2:
            return cls(mean, float("nan"), float("nan"), rows)
        # half-width: Student's t quantile times the standard error of the mean difference
        half = float(t.ppf(0.975, rows - 1)) * float(differences.std(ddof=1)) / np.sqrt(rows)
        return cls(mean, mean - half, mean + half, rows)

    def within_noise(self) -> bool:
        """Whether its interval spans 0 (or is not known): neither model surely better on these rows."""
        return not (self.high < 0 or self.low > 0)

    def words(self, scale: float) -> str:
        """'Gain (SVR − SSL) 2, 95 % interval −36 to 40 over 36 held-out rows: within the noise' ('SSL surely
        lower' or 'SSL surely higher' when the change lies below or above 0), the gain running as every gain of
        the Model page (SVR's MAE − SSL's: positive, SSL lower), to the digits of ``scale``; '' with no interval."""
        if np.isnan(self.low):
            return ""
        gain, low, high = (to_digits_of(-value, scale) for value in (self.change, self.high, self.low))
        verdict = "SSL surely lower" if self.high < 0 else "SSL surely higher" if self.low > 0 else "within the noise"
        return f"Gain (SVR − SSL) {gain}, 95 % interval {low} to {high} over {self.rows:,} held-out rows: {verdict}"
