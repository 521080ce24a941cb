"""What the Rules page shows of a rule besides its form: a random sample of its pairs for the preview,
the overlaps table in words, and what removing a stored rule takes away.  The page lays these out;
nothing here imports Streamlit."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ordercore.inputs.counts import whole_number
from ordercore.knowledge.rules import Rule, generate, rank_correlation_interval
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.preferences import PreferenceSet
from ordercore.studio.numbers import fixed

PREVIEW_PAIRS = 300
"""Pairs the preview draws on its map."""

PREVIEW_ROWS = 50
"""Pairs the preview table lists."""

PREVIEW_CHECKS = 10
"""The most of them that are pairs of labeled rows (their targets shown: they check the rule)."""


def preview_sample(preferences: PreferenceSet, count: int = PREVIEW_PAIRS, random_state=0) -> PreferenceSet:
    """A uniform random sample of ``count`` of ``preferences`` (all of them when fewer), in random order:
    a rule's pairs come sorted by row, so its first pairs lie among the table's first rows.  ``ValueError``
    for a count that is no whole number >= 0 (-1 gave all pairs but the last)."""
    count = whole_number(count, "the number of pairs to preview")
    rng = np.random.default_rng(random_state)
    return preferences[rng.permutation(len(preferences))[:count]]


def preview_rows(
    sample: PreferenceSet, checks: SourceCheck, margin: float, weight: float, random_state=0
) -> tuple[PreferenceSet, int]:
    """(pairs, k): what the preview table lists, ``PREVIEW_ROWS`` pairs in all: first up to
    ``PREVIEW_CHECKS`` of the rule's pairs of labeled rows (``checks``: ``labeled_check``; they check it
    and are never among its preferences, which pair at most one labeled row), drawn at random, with the
    rule's ``margin`` and ``weight``; then its ``sample``'s pairs; k of them are checks."""
    order = np.random.default_rng(random_state).permutation(checks.winner.size)[:PREVIEW_CHECKS]
    checked = PreferenceSet(checks.winner[order], checks.loser[order], margin, weight)
    pairs = PreferenceSet.concatenate([checked, sample[: PREVIEW_ROWS - len(checked)]])
    return pairs, len(checked)


def checked_line(pairs: PreferenceSet, labels: np.ndarray, checks: SourceCheck, made: int) -> str:
    """'The table lists 40 of the rule's 1,234 pairs and 10 pairs of labeled rows …: the rule orders 8 of
    those 10 rightly': the previewed ``pairs`` (``preview_rows``: the checks first, then the rule's own),
    ``made`` the rule's pairs (the count the page's metric shows), the checks those whose rows both have a
    label (``labels`` (n,), NaN off the labeled rows: never a held-out target), right when the higher row's
    label is strictly higher; then all its ``checks``, unless the table lists every one of them (said once)."""
    higher, lower = labels[pairs.i], labels[pairs.j]
    known = np.isfinite(higher) & np.isfinite(lower)
    n_known = int(known.sum())
    listed = len(pairs) - n_known
    own = f"all {made:,} of the rule's pairs" if listed == made else f"{listed:,} of the rule's {made:,} pairs"
    lists = f"The table lists {own}" if made else "The rule makes no pairs"
    if not checks.winner.size:
        return f"{lists}; no two labeled rows meet its conditions and ordering, so none checks it."
    right, total = checks.counts()
    of_all = (
        f"of its one pair of labeled rows, {right:,}"
        if total == 1
        else f"of all its {total:,} pairs of labeled rows, {right:,}"
    )
    ordered = int((higher[known] > lower[known]).sum())
    if n_known == 1:  # 'orders 1 of those 1 rightly' read oddly
        verdict = f"the rule orders it {'rightly' if ordered else 'wrongly'} (a tie counts as wrong)"
    else:
        verdict = f"the rule orders {ordered:,} of those {n_known:,} rightly (a tie counts as wrong)"
    listed_all = n_known == total  # every one of its checks listed: said once ('2 of those 2 …; of all its 2, 2')
    every = (", the only one it has" if total == 1 else ", all it has") if listed_all else ""
    return (
        f"{lists}, and {n_known:,} pair{'' if n_known == 1 else 's'} of labeled rows{every} (they check the rule and "
        f"are not among its preferences): {verdict}{'' if listed_all else f'; {of_all}'}."
    )


def zero_pairs_reason(rule: Rule, frame: pd.DataFrame, labeled) -> str | None:
    """Why ``rule`` makes no pairs when its minimum difference is the cause: the pairs that meet its
    conditions without it (``labeled``: mask (n,) or None, as ``generate``'s) and their typical and largest
    gap in the ordering column (over a uniform sample of at most ``GAP_SAMPLE`` of them); None when it
    makes pairs, or makes none even without a minimum difference (its conditions are the cause)."""
    ordering = rule.ordering
    if ordering.min_difference <= 0 or len(generate(rule, frame, labeled, max_pairs=1).preferences):
        return None
    loose = replace(rule, ordering=replace(ordering, min_difference=0.0))
    made = generate(loose, frame, labeled, max_pairs=GAP_SAMPLE, random_state=0)
    if not made.n_matched:
        return None
    values = frame[ordering.column].to_numpy(dtype=np.float64)
    gaps = np.abs(values[made.preferences.i] - values[made.preferences.j])
    return (
        f"This rule makes no pairs because of 'by at least' {ordering.min_difference:,g}: "
        f"{made.n_matched:,} pairs meet its conditions, but their {ordering.column} differ by "
        f"typically {np.median(gaps):,.3g}, at most {gaps.max():,.3g}. Lower 'by at least' to keep them."
    )


GAP_SAMPLE = 100_000
"""Most pairs ``zero_pairs_reason`` measures the gaps of."""


def direction_reason(column: str, target: str, rho: float, rows: int) -> str:
    """Why a new rule ordering by ``column`` starts 'higher' or 'lower' (``default_direction``: 'lower' only
    when the 95 % interval of Spearman's ``rho`` over the ``rows`` labeled rows lies below 0), said for every
    column, whichever way it goes; that the labeled rows show no direction when the interval spans 0, and
    that they cannot tell when ρ cannot be measured."""
    if np.isnan(rho):
        return f"Higher to start with: the labeled rows cannot tell which way {column} goes with the {target}."
    low, high = rank_correlation_interval(rho, rows)
    measured = (
        f"Spearman's ρ (rank correlation, −1 to 1) {fixed(rho)} over {rows:,} rows, 95 % interval "
        f"{fixed(low)} to {fixed(high)}"
    )
    if low <= 0 <= high:
        return (
            f"Higher to start with, by default: the labeled rows show no direction between {column} and the "
            f"{target} ({measured}: it spans 0). Choose the direction you know."
        )
    way = "lower" if high < 0 else "higher"
    return (
        f"{way.capitalize()} to start with: over the labeled rows, the higher the {column}, the {way} the "
        f"{target} ({measured})."
    )


def preview_caption(shown: int, total: int) -> str:
    """The preview map's title: how many of the rule's pairs it draws, and how they were chosen."""
    if shown == total:
        return f"All {total:,} pairs"
    return f"{shown:,} of {total:,} pairs, drawn at random"


QUALITY_WORDS = {
    "rule": "rule",
    "points_covered": "rows in its pairs",
    "overlaps_rules": "shared with other rules",
    "conflicts_rules": "reversed by other rules",
    "overlaps_clicks": "shared with answers",
    "conflicts_clicks": "reversed by answers",
}
"""``knowledge.quality.rule_quality``'s columns the page shows, in words (pairs_matched, before a cap,
is not stored, and violated_by_model needs a model's predictions the page does not pass; the rules'
table above has their preferences, and 'right on labeled pairs' says how many labeled pairs: the
table fits beside the sidebar)."""


def quality_words(quality: pd.DataFrame, numbers) -> pd.DataFrame:
    """The overlaps table as the page shows it: '#' each rule's number in the session (``numbers``, one per
    row of ``quality``, as the rules table and the buttons name it), plain column names, counts with separators,
    and the accuracy on labeled pairs as 'right on k of n' ('— (no labeled pair)' when there is none)."""
    table = pd.DataFrame({words: quality[column] for column, words in QUALITY_WORDS.items()})
    table.insert(0, "#", [f"#{int(number)}" for number in numbers])
    for column in list(QUALITY_WORDS.values())[1:]:
        table[column] = [f"{int(value):,}" for value in table[column]]
    table["right on labeled pairs"] = [
        "— (no labeled pair)" if not total else f"{round(accuracy * total):,} of {int(total):,} ({accuracy:.0%})"
        for accuracy, total in zip(quality["labeled_accuracy"], quality["labeled_pairs"], strict=True)
    ]
    return table


def removal_warning(number: int, name: str, preferences: int, audit_answers: int) -> str:
    """What removing rule #``number`` ``name`` takes away, asked before it is done."""
    kept = (
        f" Its {audit_answers:,} audit answer{'s' if audit_answers != 1 else ''} stay, as your own answers."
        if audit_answers
        else ""
    )
    return (
        f"Remove rule #{number} {name!r} and its {preferences:,} preference{'s' if preferences != 1 else ''}? "
        f"The models retrain without them.{kept}"
    )
