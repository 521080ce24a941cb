"""The share of checked pairs right and its interval when pairs share rows (issue 33, Major 1): by hand on
tiny cases, against a brute-force sum over pairs, and by simulation where the truth is a coin."""

import numpy as np
import pytest

from ordercore.knowledge.pair_share import design_effect, pair_share_interval, wilson_bounds

Z2 = 3.841459  # the normal quantile at 0.975, squared


def test_pairs_with_no_row_in_common_get_wilsons_interval_by_hand():
    """8 right of 10 pairs of 20 distinct rows: design effect 1, so Wilson's interval:
    centre (0.8 + 3.841459/20) / (1 + 0.3841459) = 0.716740, half-width 1.959964 √(0.016 + 3.841459/400) /
    1.384146 = 0.226578: (0.49016, 0.94332).  0 of 5: (0, z²/(5 + z²)) = (0, 0.434482)."""
    right = [True] * 8 + [False] * 2
    assert design_effect(np.arange(0, 20, 2), np.arange(1, 20, 2), right) == pytest.approx(1.0)
    assert pair_share_interval(np.arange(0, 20, 2), np.arange(1, 20, 2), right) == pytest.approx(
        (0.490162, 0.943318), abs=1e-5
    )
    none_right = pair_share_interval([0, 2, 4, 6, 8], [1, 3, 5, 7, 9], [False] * 5)
    assert none_right == pytest.approx((0.0, 0.434482), abs=1e-5)
    assert all(np.isnan(pair_share_interval([], [], [])))
    with pytest.raises(ValueError, match=r"confidence must be a number in \(0, 1\), got 1.0"):
        pair_share_interval([0], [1], [True], confidence=1.0)


def test_three_pairs_through_one_row_count_as_one():
    """Row 0 over rows 1, 2 and 3, all right: p~ = 4/5, residuals 1/5 each; row sums 3/5 (row 0) and 1/5
    (rows 1-3); design effect (9/25 + 3/25 - 3/25) / (3/25) = 3, one effective pair, and Wilson's lower end
    for 1 of 1, 1 / (1 + z²) = 0.206549, where three independent pairs would give 3 / (3 + z²) = 0.438503."""
    assert design_effect([0, 0, 0], [1, 2, 3], [True] * 3) == pytest.approx(3.0)
    assert pair_share_interval([0, 0, 0], [1, 2, 3], [True] * 3) == pytest.approx((1 / (1 + Z2), 1.0), abs=1e-5)
    assert pair_share_interval([0, 2, 4], [1, 3, 5], [True] * 3)[0] == pytest.approx(3 / (3 + Z2), abs=1e-5)


def brute_design_effect(winner, loser, right) -> float:
    """max(1, sum over ordered pairs of checks (q, r) that share a row, q = r included, of e_q e_r / sum e_q²)."""
    residual = right - (right.sum() + 1) / (right.size + 2)
    total = 0.0
    for q in range(right.size):
        for r in range(right.size):
            if {winner[q], loser[q]} & {winner[r], loser[r]}:
                total += residual[q] * residual[r]
    return max(1.0, total / float(np.sum(residual**2)))


def test_the_design_effect_matches_the_sum_over_pairs_that_share_a_row():
    rng = np.random.default_rng(5)
    for _ in range(20):
        a, b = np.triu_indices(12, 1)
        keep = rng.random(a.size) < 0.3
        right = rng.random(keep.sum()) < rng.random()
        assert design_effect(a[keep], b[keep], right) == pytest.approx(brute_design_effect(a[keep], b[keep], right))


def coin_rule(rng: np.random.Generator, rows: int = 40, categories: int = 5, gap: float = 0.2):
    """A rule that has nothing to do with the target, checked on ``rows`` labeled rows: within one of
    ``categories`` categories, the row with more of x (by more than ``gap``) is said to be worth more; x,
    the category and the target drawn independently, so the share of its pairs right over all rows is ½.
    With 40 rows, 5 categories and gap 0.2: about 100 pairs, each row in about 5 (a first-time expert's
    'bigger frame is worth more': 103 pairs of 40 bikes)."""
    x, y, category = rng.random(rows), rng.random(rows), rng.integers(categories, size=rows)
    a, b = np.triu_indices(rows, 1)
    keep = (category[a] == category[b]) & (np.abs(x[a] - x[b]) > gap)
    a, b = a[keep], b[keep]
    winner, loser = np.where(x[a] > x[b], a, b), np.where(x[a] > x[b], b, a)
    return winner, loser, y[winner] > y[loser]


@pytest.mark.parametrize(("categories", "gap"), [(5, 0.2), (1, 0.0)])
def test_an_irrelevant_rule_is_covered_by_the_interval_19_times_in_20_where_wilsons_is_not(categories, gap):
    """400 draws of 40 labeled rows: the interval covers ½ in at least 90 % of them, where Wilson's on
    the pairs counted as independent covers it in at most 80 % (5 categories: about 100 pairs) and 60 %
    (one category: all 780 pairs of 40 rows, which a Kendall-τ variance of about 1/(9·40) for the share puts
    near 45 %)."""
    rng = np.random.default_rng(33)
    honest = naive = 0
    for _ in range(400):
        winner, loser, right = coin_rule(rng, categories=categories, gap=gap)
        low, high = pair_share_interval(winner, loser, right)
        honest += low <= 0.5 <= high
        low, high = wilson_bounds(float(right.mean()), right.size, 0.95)
        naive += low <= 0.5 <= high
    assert honest >= 0.9 * 400
    assert naive <= (0.8 if categories > 1 else 0.6) * 400


BAD_ARGUMENTS = [
    ("pair_share_interval", ([0, 1, 2], [1, 2], [True] * 3), r"winner, loser and right must have one length"),
    ("pair_share_interval", ([0, 2, 4], [1, 3, 5], [True]), r"got winner 3, loser 3, right 1"),
    ("pair_share_interval", ([0, 2], [1, 3], [0, 2]), r"right holds 2 at position 1: whether each pair is right"),
    ("pair_share_interval", ([0, 2], [1, 3], [1, np.nan]), r"right holds nan at position 1"),
    ("pair_share_interval", ([0, 2], [1, 3], ["yes", "no"]), r"right holds 'yes' at position 0"),
    ("pair_share_interval", ([0, 2], [1, 3], np.ones((2, 1), bool)), r"right must be a 1-D .* shape \(2, 1\)"),
    ("pair_share_interval", (None, [1, 3], [True, True]), r"winner must be a 1-D sequence .* got None"),
    ("pair_share_interval", ([0.2, 2], [0.9, 3], [True, True]), r"winner holds 0.2 at position 0: a row id is a whole"),
    (
        "pair_share_interval",
        ([0, 2], [1, 3], [True, True], "0.95"),
        r"confidence must be a number in \(0, 1\), got '0.95'",
    ),
    ("design_effect", ([0, 2], [1, 3.5], [True, True]), r"loser holds 3.5 at position 1"),
    ("design_effect", ([0, 2], [1, 3], ["yes", "no"]), r"right holds 'yes' at position 0"),
    ("wilson_bounds", (1.5, 10, 0.95), r"share must be a number in \[0, 1\], got 1.5"),
    ("wilson_bounds", (np.nan, 10, 0.95), r"share must be a number in \[0, 1\], got nan"),
    ("wilson_bounds", (0.5, 0, 0.95), r"effective_pairs must be a number in \(0, inf\), got 0"),
    ("wilson_bounds", (0.5, 10, 1), r"confidence must be a number in \(0, 1\), got 1"),
]


@pytest.mark.parametrize(("function", "arguments", "words"), BAD_ARGUMENTS)
def test_bad_arguments_are_refused_naming_the_argument_and_the_value(function, arguments, words):
    """Corpus 13 R2: 2 and NaN had counted as right, row ids 0.2 and 0.9 as one row, a share of 1.5 given
    (0, 1); other bad arguments ended in numpy's words."""
    with pytest.raises(ValueError, match=rf"^{function}: .*{words}"):
        {"pair_share_interval": pair_share_interval, "design_effect": design_effect, "wilson_bounds": wilson_bounds}[
            function
        ](*arguments)


def test_right_as_1_and_0_and_whole_float_row_ids_give_the_interval_by_hand():
    """8 right of 10 pairs of 20 distinct rows (the first test's interval by hand, (0.49016, 0.94332)), given
    as 1/0 and the row ids as floats 0.0, 2.0, …: read as the bools and ints they hold."""
    right = np.array([1] * 8 + [0] * 2)
    winner, loser = np.arange(0, 20, 2).astype(float), np.arange(1, 20, 2).astype(float)
    assert pair_share_interval(winner, loser, right) == pytest.approx((0.490162, 0.943318), abs=1e-5)
    assert pair_share_interval(list(winner), list(loser), right.astype(float)) == pytest.approx(
        (0.490162, 0.943318), abs=1e-5
    )
