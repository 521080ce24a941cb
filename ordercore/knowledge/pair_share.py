"""The share of checked pairs a source orders rightly, with an interval that knows pairs share rows
(issue 33, a first-time expert's Major 1).

A rule is checked on the pairs of labeled rows it orders: 103 pairs of 40 rows put each row in about
five, and a row whose target is unusually high makes its pairs right (or wrong) together.  The pairs are
then not 103 independent checks, and the Wilson interval that counts them as such (what the Rules page showed)
is far too narrow: an irrelevant rule read "37 %, 95 % interval 28 %–47 %: surely more often wrong than
right" on 40 rows.  ``pair_share_interval`` widens the Wilson interval by the pairs' design effect:

    deff = max(1, (sum_k S_k^2 - sum_q e_q^2) / sum_q e_q^2),   S_k = sum of e_q over the pairs q with row k,

the dyadic cluster-robust variance (Fafchamps & Gubert 2007; Aronow, Samii & Assenova 2015: every pair's
residual times that of every pair it shares a row with, itself once) over the variance of independent
pairs, e_q = right_q - p~ the residuals.  The interval is Wilson's for the share right on m / deff
pairs (its effective number).  Pairs with no row in common give deff = 1 and Wilson's interval
exactly; all pairs of L rows give at most deff = 2L - 3, about L / 4 effective pairs, as many as the
rows can vouch for.  deff is kept at least 1 (pairs that share rows never count for more than
independent ones).  It is closed-form and deterministic, O(pairs + rows), so a page can draw it on
every run over thousands of pairs; a bootstrap over rows would be the same in spirit at a thousand
times the cost and with a seed.  The residuals are taken from the smoothed share p~ = (right + 1) /
(m + 2), so that when every pair is right (or wrong) the design effect is still that of the rows'
sharing, not 0 / 0.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.stats

from ordercore.inputs.lengths import one_length
from ordercore.inputs.printable import quoted


def _one_per_pair(where: str, name: str, values) -> np.ndarray:
    """``values`` as a 1-D array (one entry per pair); ``ValueError`` naming ``where`` and ``name`` otherwise."""
    if values is None or isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        given = f"an array of shape {np.shape(values)}" if np.ndim(values) > 1 else quoted(values)
        raise ValueError(f"{where}: {name} must be a 1-D sequence with one entry per pair, got {given}")
    return np.asarray(values)


def _first(where: str, name: str, values: np.ndarray, bad: np.ndarray, accepted: str) -> None:
    """``ValueError`` naming the first of ``values`` where ``bad`` (same shape) is true, its position and
    what ``name`` accepts; nothing when none is."""
    if bad.any():
        position = int(np.argmax(bad))
        raise ValueError(
            f"{where}: {name} holds {quoted(values.tolist()[position])} at position {position}: {accepted}"
        )


def _whole(value) -> bool:
    """Whether ``value`` is a whole number that fits int64 (a bool is not one)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        return False
    return float(value).is_integer() and abs(value) < 2**63


def _row_ids(where: str, name: str, values) -> np.ndarray:
    """``values`` (m,) as int64 row ids: whole numbers (0.2 and 0.9 had both been read as row 0, one
    row shared by pairs that share none); ``ValueError`` naming the first that is not."""
    values = _one_per_pair(where, name, values)
    if values.dtype.kind not in "iu":
        whole = np.array([_whole(value) for value in values.tolist()], dtype=bool)
        _first(where, name, values, ~whole, "a row id is a whole number")
    return values.astype(np.int64)


def _yes_no(where: str, name: str, values) -> np.ndarray:
    """``values`` (m,) as bool: True/False or 1/0 (2 and NaN had both counted as right); ``ValueError``
    naming the first that is neither."""
    values = _one_per_pair(where, name, values)
    if values.dtype.kind == "b":
        return values
    either = np.array(
        [isinstance(v, bool) or (isinstance(v, numbers.Real) and v in (0, 1)) for v in values.tolist()], dtype=bool
    )
    _first(where, name, values, ~either, "whether each pair is right, True/False (or 1/0)")
    return values.astype(bool)


def _number_in(where: str, name: str, value, least: float, most: float, closed: bool) -> float:
    """``value`` as a float in [least, most] (``closed``) or (least, most); ``ValueError`` naming ``name``."""
    number = None if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) else float(value)
    inside = number is not None and (least <= number <= most if closed else least < number < most)
    if not inside:
        bounds = f"[{least:g}, {most:g}]" if closed else f"({least:g}, {most:g})"
        raise ValueError(f"{where}: {name} must be a number in {bounds}, got {quoted(value)}")
    return number


def wilson_bounds(share: float, effective_pairs: float, confidence: float) -> tuple[float, float]:
    """The Wilson score interval (Wilson 1927) for a ``share`` measured on ``effective_pairs`` (n > 0,
    not necessarily whole): with z the normal quantile at (1 + confidence) / 2,
    (p + z²/2n ± z √(p(1 - p)/n + z²/4n²)) / (1 + z²/n), within [0, 1].  ``ValueError`` naming an
    argument outside its range."""
    share = _number_in("wilson_bounds", "share", share, 0.0, 1.0, closed=True)
    effective_pairs = _number_in("wilson_bounds", "effective_pairs", effective_pairs, 0.0, np.inf, closed=False)
    confidence = _number_in("wilson_bounds", "confidence", confidence, 0.0, 1.0, closed=False)
    z = float(scipy.stats.norm.ppf((1 + confidence) / 2))
    p, n = share, effective_pairs
    center = p + z * z / (2 * n)
    spread = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, float((center - spread) / scale)), min(1.0, float((center + spread) / scale))


def shared_row_factor(winner, loser, terms) -> float:
    """max(1, (sum_k T_k² - sum_q t_q²) / sum_q t_q²), T_k the sum of ``terms`` t_q (m,) over the pairs q
    (winner[q], loser[q]) (m,) with row k: how many times the variance of sum_q t_q exceeds that of as many
    independent terms (the dyadic cluster-robust variance over the independent one; the module's deff when
    the terms are the residuals).  1 with no pairs or no residual."""
    winner, loser = _row_ids("shared_row_factor", "winner", winner), _row_ids("shared_row_factor", "loser", loser)
    terms = _one_per_pair("shared_row_factor", "terms", terms).astype(np.float64)
    one_length("shared_row_factor", "an entry per pair", winner=winner, loser=loser, terms=terms)
    independent = float(np.sum(terms**2))
    if independent == 0:
        return 1.0
    rows, position = np.unique(np.concatenate([winner, loser]), return_inverse=True)
    per_row = np.bincount(position, weights=np.concatenate([terms, terms]), minlength=rows.size)  # T_k
    return max(1.0, (float(np.sum(per_row**2)) - independent) / independent)


def design_effect(winner, loser, right) -> float:
    """How many times the variance of the share right exceeds that of as many independent pairs (the
    module's deff, at least 1), for pairs of rows (winner[q], loser[q]) (m,) and whether each is right
    (m,) bool.  1 with no pairs."""
    winner, loser = _row_ids("design_effect", "winner", winner), _row_ids("design_effect", "loser", loser)
    right = _yes_no("design_effect", "right", right).astype(np.float64)
    one_length("design_effect", "an entry per pair", winner=winner, loser=loser, right=right)
    return shared_row_factor(winner, loser, right - (right.sum() + 1) / (right.size + 2))  # e_q about p~


def pair_share_interval(winner, loser, right, confidence: float = 0.95) -> tuple[float, float]:
    """The interval at ``confidence`` for the share of pairs right, pairs (winner[q], loser[q]) (m,)
    and right (m,) bool: Wilson's on m / ``design_effect`` pairs (the module's note).  (nan, nan) with
    no pairs."""
    confidence = _number_in("pair_share_interval", "confidence", confidence, 0.0, 1.0, closed=False)
    winner = _row_ids("pair_share_interval", "winner", winner)
    loser = _row_ids("pair_share_interval", "loser", loser)
    right = _yes_no("pair_share_interval", "right", right)
    one_length("pair_share_interval", "an entry per pair", winner=winner, loser=loser, right=right)
    if right.size == 0:
        return np.nan, np.nan
    effective = right.size / design_effect(winner, loser, right)
    return wilson_bounds(float(right.mean()), effective, confidence)
