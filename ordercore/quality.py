"""Which rules are any good, and is the preference graph sound?

- ``rule_quality``: Snorkel's labeling-function summary, made for pairs.  Per rule: pairs matched and
  kept, points covered, overlaps and conflicts with the other rules and with clicked preferences,
  accuracy on labeled-labeled pairs (the pairs seed 000 leaves out of training estimate a rule's
  accuracy without an oracle), and violations under the current model.
- ``accuracy_weight`` / ``weights_from_accuracy``: denoising for pairs; a rule's preference weight
  becomes the log-odds of its estimated accuracy (the optimal vote weight of an independent voter
  with that accuracy, Nitzan & Paroush 1982), 0 for a rule no better than a coin.
- ``check_preference_graph``: cycles among strict preferences (strongly connected components),
  conflicts between sources, duplicate pairs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse
from scipy.sparse.csgraph import connected_components

from ordercore.preferences import PreferenceSet, is_in, pair_codes, sorted_unique
from ordercore.rules import Rule, generate

QUALITY_COLUMNS = (
    "rule",
    "pairs_matched",
    "pairs_kept",
    "points_covered",
    "overlaps_rules",
    "conflicts_rules",
    "overlaps_clicks",
    "conflicts_clicks",
    "labeled_pairs",
    "labeled_accuracy",
    "violated_by_model",
)


def accuracy_weight(correct: int, total: int) -> float:
    """max(0, ln(a / (1 - a))) with the smoothed accuracy a = (correct + 1) / (total + 2)."""
    if total < 0 or not 0 <= correct <= total:
        raise ValueError(f"need 0 <= correct <= total, got correct={correct}, total={total}")
    accuracy = (correct + 1) / (total + 2)
    return max(0.0, float(np.log(accuracy / (1 - accuracy))))


def labeled_accuracy(rule: Rule, frame: pd.DataFrame, y: np.ndarray) -> tuple[int, int]:
    """(correct, total) over the rule's labeled-labeled pairs: the winner's label is strictly higher."""
    y = np.asarray(y, dtype=np.float64)
    pairs = generate(rule, frame, ~np.isnan(y), scope="labeled", max_pairs=None).preferences
    return int(np.sum(y[pairs.i] > y[pairs.j])), len(pairs)


def weights_from_accuracy(rules: list[Rule], frame: pd.DataFrame, y) -> list[Rule]:
    """The rules with each weight set to ``accuracy_weight`` of its labeled-pair accuracy."""
    return [dataclasses.replace(rule, weight=accuracy_weight(*labeled_accuracy(rule, frame, y))) for rule in rules]


def _overlaps_and_conflicts(keys, codes, other_keys, other_codes) -> tuple[int, int]:
    """How many of a set's pairs another set also has (either way), and has only the other way."""
    other_keys, other_codes = np.sort(other_keys), np.sort(other_codes)
    overlap = is_in(keys, other_keys)
    opposite = is_in(codes ^ 1, other_codes) & ~is_in(codes, other_codes)
    return int(overlap.sum()), int(opposite.sum())


def rule_quality(
    rules: list[Rule],
    frame: pd.DataFrame,
    y,
    clicks: PreferenceSet | None = None,
    predictions: np.ndarray | None = None,
    max_pairs: int | None = None,
    random_state=None,
) -> pd.DataFrame:
    """One row per rule with ``QUALITY_COLUMNS``.

    y : labels (n,), NaN where unknown.  clicks : the expert's pairwise preferences, if any.
    predictions : the current model's f at every row (n,), for the share of the rule's kept
    preferences it violates (``PreferenceSet.violated``); NaN without it.  Overlaps and conflicts count the rule's
    kept pairs that another rule (or a click) also has, and that it has only the other way round.
    max_pairs, random_state : as for ``generate`` (default: every pair is kept).
    """
    y = np.asarray(y, dtype=np.float64)
    n = len(frame)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match the table, got {y.shape}")
    labeled = ~np.isnan(y)
    generated = [generate(rule, frame, labeled, max_pairs=max_pairs, random_state=random_state) for rule in rules]
    codes = [result.preferences.pair_codes(n) for result in generated]
    click_codes = clicks.pair_codes(n) if clicks is not None and len(clicks) else (np.zeros(0, int),) * 2
    rows = []
    for index, (rule, result) in enumerate(zip(rules, generated, strict=True)):
        preferences = result.preferences
        keys, directions = codes[index]
        others = [c for other, c in enumerate(codes) if other != index]
        other_keys = np.concatenate([k for k, _ in others]) if others else np.zeros(0, int)
        other_codes = np.concatenate([c for _, c in others]) if others else np.zeros(0, int)
        overlaps_rules, conflicts_rules = _overlaps_and_conflicts(keys, directions, other_keys, other_codes)
        overlaps_clicks, conflicts_clicks = _overlaps_and_conflicts(keys, directions, *click_codes)
        correct, total = labeled_accuracy(rule, frame, y)
        violated = np.nan
        if predictions is not None and len(preferences):
            scale = float(np.nanstd(y)) if labeled.sum() > 1 else 1.0
            violated = float(np.mean(preferences.violated(np.asarray(predictions, dtype=np.float64), scale or 1.0)))
        rows.append(
            (
                rule.name,
                result.n_matched,
                len(preferences),
                int(np.count_nonzero(np.bincount(np.concatenate([preferences.i, preferences.j]), minlength=n))),
                overlaps_rules,
                conflicts_rules,
                overlaps_clicks,
                conflicts_clicks,
                total,
                correct / total if total else np.nan,
                violated,
            )
        )
    return pd.DataFrame(rows, columns=list(QUALITY_COLUMNS))


@dataclass(frozen=True)
class GraphReport:
    """cycles: rows of each strongly connected component (size > 1) of the strict preferences.
    conflicts: (i, j) row pairs (k, 2) preferred both ways by different sources, or both ways with
    positive margins.  duplicates: (i, j) pairs (k, 2) stated more than once the same way."""

    cycles: list[np.ndarray]
    conflicts: np.ndarray
    duplicates: np.ndarray

    @property
    def ok(self) -> bool:
        return not self.cycles and not len(self.conflicts) and not len(self.duplicates)


def check_preference_graph(preferences: PreferenceSet, sources=None) -> GraphReport:
    """Cycles, conflicts and duplicates among the pairwise preferences (unary ones are ignored).

    sources : optional labels (p,), e.g. the rule name or 'click' of each preference.  A pair stated
    both ways is an equality (``PreferenceSet.equal`` / ``close``) when one source states it with
    margins <= 0, and a conflict otherwise."""
    pairwise = ~preferences.is_unary
    sources = np.zeros(len(preferences), dtype=object) if sources is None else np.asarray(sources, dtype=object)
    if sources.shape != (len(preferences),):
        raise ValueError(f"sources must have one label per preference ({len(preferences)}), got {sources.shape}")
    i, j, margin, sources = (
        preferences.i[pairwise],
        preferences.j[pairwise],
        preferences.margin[pairwise],
        sources[pairwise],
    )
    empty = np.zeros((0, 2), dtype=np.int64)
    if i.size == 0:
        return GraphReport([], empty, empty)
    n = int(max(i.max(), j.max())) + 1
    keys, codes = pair_codes(i, j, n)
    # Duplicates: the same pair stated the same way more than once.
    ordered = np.sort(codes)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    repeated = repeated[np.append(True, repeated[1:] != repeated[:-1])] if repeated.size else repeated
    low, high = (repeated // 2) // n, (repeated // 2) % n
    duplicates = np.column_stack([np.where(repeated % 2 == 1, low, high), np.where(repeated % 2 == 1, high, low)])
    # Pairs stated both ways: an equality if one source states them with margins <= 0, else a conflict.
    two_way = is_in(codes ^ 1, ordered)
    stated = pd.DataFrame({"key": keys[two_way], "margin": margin[two_way], "source": sources[two_way]})
    per_pair = stated.groupby("key").agg(n_sources=("source", "nunique"), margin=("margin", "max"))
    conflicting = per_pair.index[(per_pair["n_sources"] > 1) | (per_pair["margin"] > 0)].to_numpy(dtype=np.int64)
    conflicts = np.column_stack([conflicting // n, conflicting % n])
    # Cycles: strongly connected components of the pairs stated one way only.
    one_way = ~two_way
    nodes, inverse = sorted_unique(np.concatenate([i[one_way], j[one_way]]))
    cycles = []
    if nodes.size:
        edges = inverse.reshape(2, -1)
        graph = scipy.sparse.csr_array((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(nodes.size,) * 2)
        _, labels = connected_components(graph, directed=True, connection="strong")
        sizes = np.bincount(labels)
        cycles = [np.sort(nodes[labels == label]) for label in np.flatnonzero(sizes > 1)]
    return GraphReport(cycles, conflicts, duplicates)
