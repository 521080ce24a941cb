"""The test MAE's change from SVR to SSL, with its paired 95 % interval over the held-out rows, and its colour on
the Model page: grey and 'within the noise' when the interval spans 0 (new-user report 9, Minor 6: a green '↓2'
on an MAE of 2,153 measured on 36 rows)."""

import math

import numpy as np
import pytest

from ordercore.studio.held_out_change import HeldOutChange
from ordercore.studio.numbers import change, metric_delta

T_975_3DF = 3.182  # Student's t, 97.5 % quantile, 3 degrees of freedom (a printed table)


def colour(held_out: HeldOutChange) -> str:
    """The chip's colour as the Model page gives it."""
    return metric_delta(change(held_out.change, 1.0), True, held_out.within_noise())["delta_color"]


def test_per_row_differences_that_straddle_zero_are_within_the_noise():
    """|error| per row: SVR 1, 1, 1, 1; SSL 0, 2, 0.5, 1.5: differences −1, 1, −0.5, 0.5 (mean 0, SD √(5/6))."""
    truth = np.zeros(4)
    held_out = HeldOutChange.of(truth, np.ones(4), np.array([0.0, 2.0, 0.5, 1.5]))
    half = T_975_3DF * math.sqrt((1 + 1 + 0.25 + 0.25) / 3) / 2
    assert held_out.rows == 4 and held_out.change == pytest.approx(0.0)
    assert held_out.low == pytest.approx(-half, rel=1e-3) and held_out.high == pytest.approx(half, rel=1e-3)
    assert held_out.within_noise() and "within the noise" in held_out.words(1.0)
    # a small mean gain that still straddles 0 is grey, not green (the new user's '↓2')
    nudged = HeldOutChange.of(truth, np.ones(4), np.array([0.0, 2.0, 0.5, 1.4]))
    assert nudged.change < 0 and nudged.within_noise() and colour(nudged) == "gray"


def test_every_row_improving_is_green_with_the_hand_computed_interval():
    """|error| per row: SVR 2, 3, 4, 5; SSL 1, 2, 3, 3: differences −1, −1, −1, −2: mean −1.25, SD 0.5, so
    −1.25 ± 3.182 · 0.5 / 2 = −2.046 to −0.454."""
    truth = np.array([10.0, 20.0, 30.0, 40.0])
    svr = truth + np.array([2.0, -3.0, 4.0, -5.0])
    ssl = truth + np.array([1.0, 2.0, -3.0, -3.0])
    held_out = HeldOutChange.of(truth, svr, ssl)
    assert held_out.change == pytest.approx(-1.25)
    assert held_out.low == pytest.approx(-2.046, abs=1e-3) and held_out.high == pytest.approx(-0.454, abs=1e-3)
    assert not held_out.within_noise() and colour(held_out) == "green"
    # said as a gain, SVR − SSL, the way every interval of the Model page runs (pass 10, Minor 6): 1.25, 0.454 to 2.046
    assert held_out.words(1.0) == (
        "Gain (SVR − SSL) 1.250, 95 % interval 0.454 to 2.046 over 4 held-out rows: SSL surely lower"
    )


def test_one_row_has_no_interval_and_no_verdict():
    held_out = HeldOutChange.of(np.zeros(1), np.ones(1), np.zeros(1))
    assert held_out.change == -1.0 and held_out.within_noise() and held_out.words(1.0) == ""
