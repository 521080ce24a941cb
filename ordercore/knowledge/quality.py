"""Which rules are any good, and is the preference graph sound?

- ``rule_quality``: Snorkel's labeling-function summary, made for pairs.  Per rule: pairs matched and
  kept, points covered, overlaps and conflicts with the other rules and with clicked preferences,
  accuracy on labeled-labeled pairs (the pairs seed 000 leaves out of training estimate a rule's
  accuracy without an oracle), and violations under the current model.
- ``accuracy_weight`` / ``weights_from_accuracy``: denoising for pairs; a rule's preference weight
  becomes the log-odds of its estimated accuracy (the optimal vote weight of an independent voter
  with that accuracy, Nitzan & Paroush 1982), 0 for a rule no better than a coin.
- ``audit_accuracy`` and ``rule_trust``: how far each rule can be trusted, from its labeled pairs and
  the expert's audit answers (issue 14), with an interval that knows the pairs share rows
  (``pair_share.pair_share_interval``: 103 pairs of 40 labeled rows are not 103 independent checks), beside the
  pairs it made, the rows they cover and the weight in force (``weight_in_force``, the one place
  that says which weight a rule's preferences carry).
- ``check_preference_graph``: cycles among strict preferences (strongly connected components),
  conflicts between sources, duplicate pairs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse
from scipy.sparse.csgraph import connected_components

from ordercore.knowledge.rules import Rule, RulePreferences, generate
from ordercore.knowledge.source_weights import SourceCheck, source_weight
from ordercore.preferences import PreferenceSet, is_in, pair_codes, sorted_unique

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


def labeled_check(rule: Rule, frame: pd.DataFrame, y: np.ndarray) -> SourceCheck:
    """The rule checked on every pair of labeled rows that meets its conditions and is ordered by it
    (whatever scope its training pairs were generated in): right when the winner's label is strictly
    higher (a tie counts as wrong).  Only the labeled rows are paired, so a rule whose pairs number
    hundreds of thousands over the table costs next to nothing here (conditions compare two rows, so
    the pairs found among the labeled rows are exactly the labeled-labeled pairs over the table).
    Rows are the frame's (0 .. n-1)."""
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (len(frame),):
        raise ValueError(f"y must have shape ({len(frame)},) to match the table, got {y.shape}")
    rows = np.flatnonzero(~np.isnan(y))
    pairs = generate(rule, frame.iloc[rows], scope="all", max_pairs=None).preferences
    winner, loser = rows[pairs.i], rows[pairs.j]
    return SourceCheck.of(winner, loser, y[winner] > y[loser])


def labeled_accuracy(rule: Rule, frame: pd.DataFrame, y: np.ndarray) -> tuple[int, int]:
    """(correct, total) of ``labeled_check``."""
    return labeled_check(rule, frame, y).counts()


def weights_from_accuracy(rules: list[Rule], frame: pd.DataFrame, y) -> list[Rule]:
    """The rules with each weight set to ``accuracy_weight`` of its labeled-pair accuracy."""
    return [dataclasses.replace(rule, weight=accuracy_weight(*labeled_accuracy(rule, frame, y))) for rule in rules]


AUDIT_SUGGESTED = 20
"""How many of a rule's pairs the Rules page asks the expert to answer when nothing measures it."""

TRUST_COLUMNS = (
    "rule_id",
    "rule",
    "pairs",
    "coverage",
    "labeled_pairs",
    "audit_answers",
    "correct",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "accuracy_source",
    "contradicting_svr",
    "right_contradicting_svr",
    "weight",
)


def audit_check(rule: Rule, frame: pd.DataFrame, answers: pd.DataFrame) -> SourceCheck:
    """The rule checked by the expert's answers to pairs drawn from ``rule`` (``answers``: rows with
    row_a, row_b, choice, as ``Store.answers`` gives them, already those linked to the rule).

    The rule says the row with the higher (or lower) value of its ordering column has the higher
    target.  An answer 'a' or 'b' is correct when it names that row.  'equal' (about equal) counts
    as an answer and as wrong: the rule claims a strictly higher target, as ``labeled_accuracy``
    counts a tie of labels as wrong.  'skip' does not count.  A pair the rule does not order (equal
    or missing values in its ordering column) does not count either."""
    column = frame[rule.ordering.column].to_numpy(dtype=np.float64)
    row_a = answers["row_a"].to_numpy(dtype=np.int64)
    row_b = answers["row_b"].to_numpy(dtype=np.int64)
    choice = answers["choice"].to_numpy(dtype=object)
    difference = column[row_a] - column[row_b]
    ordered = np.isfinite(difference) & (difference != 0) & (choice != "skip")
    a_wins = (difference > 0) == (rule.ordering.direction == "higher")
    correct = np.where(a_wins, choice == "a", choice == "b")
    winner, loser = np.where(a_wins, row_a, row_b), np.where(a_wins, row_b, row_a)
    return SourceCheck.of(winner[ordered], loser[ordered], correct[ordered])


def audit_accuracy(rule: Rule, frame: pd.DataFrame, answers: pd.DataFrame) -> tuple[int, int]:
    """(correct, total) of ``audit_check``."""
    return audit_check(rule, frame, answers).counts()


def weight_in_force(rule: Rule, made: PreferenceSet, check: SourceCheck, reference: np.ndarray | None) -> float:
    """The weight the rule's preferences carry: the weight they were stored with (``rule.weight`` when
    none are stored), times, once automatic trust has assessed the session (its SVR ``reference``
    predictions, n), ``source_weights.source_weight`` of its checked pairs where it contradicts them.  With no
    assessment (None) the stored weight alone is in force."""
    stored = float(made.weight[0]) if len(made) else float(rule.weight)
    return stored if reference is None else stored * source_weight(*check.where_contradicting(reference))


def rule_checks(rules: list[tuple[int, Rule]], frame: pd.DataFrame, y, answers: pd.DataFrame | None) -> list:
    """Per stored rule (rule_id, Rule), its (``labeled_check``, ``audit_check``): the pairs of labeled
    rows it orders and the audit answers linked to it (``answers``' rule_id; None: no answers)."""
    linked = None
    if answers is not None and len(answers) and "rule_id" in answers:
        linked = answers["rule_id"].to_numpy(dtype=np.float64, na_value=np.nan)
    nothing = SourceCheck.of([], [], [])
    return [
        (
            labeled_check(rule, frame, y),
            nothing if linked is None else audit_check(rule, frame, answers[linked == rule_id]),
        )
        for rule_id, rule in rules
    ]


def rule_trust(
    rules: list[tuple[int, Rule]],
    frame: pd.DataFrame,
    y,
    preferences: PreferenceSet,
    provenance: pd.DataFrame,
    answers: pd.DataFrame | None = None,
    confidence: float = 0.95,
    reference: np.ndarray | None = None,
) -> pd.DataFrame:
    """One row per stored rule with ``TRUST_COLUMNS``: how much to trust it.

    rules : (rule_id, Rule) as ``Store.rules`` gives them.  y : labels (n,), NaN where unknown.
    preferences, provenance : the session's, as ``Store.preferences`` gives them; a rule's pairs and
    coverage (the share of the table's rows in at least one of its pairs) are read from them, so no
    rule is generated again over the table.  answers : ``Store.answers`` (its rule_id links an audit
    answer to the rule whose pair it answers).

    accuracy is correct / total with ``SourceCheck.share_interval`` at ``confidence`` (a Wilson interval
    on as many pairs as the rows they share are worth); accuracy_source says where the counts come from:
    'labeled pairs' (``labeled_accuracy``), 'audit answers' (``audit_accuracy``) or, with both,
    'labeled pairs + audit answers', their pairs pooled (labeled pairs and audited pairs are different
    pairs, and pairs of either kind that share a row count as the interval says).
    With neither, accuracy is NaN and the source says to audit ``AUDIT_SUGGESTED`` pairs.
    contradicting_svr, right_contradicting_svr : of those pairs, how many SVR's ``reference``
    predictions (n,) order the other way, and how many of these the rule has right (NaN before an
    assessment: reference None).  weight : ``weight_in_force``, from those."""
    y = np.asarray(y, dtype=np.float64)
    n = len(frame)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match the table, got {y.shape}")
    if len(provenance) != len(preferences):
        raise ValueError(f"provenance has {len(provenance)} rows for {len(preferences)} preferences")
    owner = provenance["rule_id"].to_numpy(dtype=np.float64, na_value=np.nan)
    rows = []
    for (rule_id, rule), (labeled, audited) in zip(rules, rule_checks(rules, frame, y, answers), strict=True):
        made = preferences[owner == rule_id]
        covered = np.count_nonzero(np.bincount(np.concatenate([made.i, made.j]), minlength=n)) if len(made) else 0
        check = SourceCheck.concatenate([labeled, audited])
        (correct, total), (labeled_total, audit_total) = check.counts(), (labeled.right.size, audited.right.size)
        right_contradicting, contradicting = (
            check.where_contradicting(reference) if reference is not None else (np.nan, np.nan)
        )
        low, high = check.share_interval(confidence)
        sources = [name for name, count in (("labeled pairs", labeled_total), ("audit answers", audit_total)) if count]
        source = " + ".join(sources) or f"unknown — audit {AUDIT_SUGGESTED} pairs to find out"
        rows.append(
            (
                rule_id,
                rule.name,
                len(made),
                covered / n if n else np.nan,
                labeled_total,
                audit_total,
                correct,
                correct / total if total else np.nan,
                low,
                high,
                source,
                contradicting,
                right_contradicting,
                weight_in_force(rule, made, check, reference),
            )
        )
    return pd.DataFrame(rows, columns=list(TRUST_COLUMNS))


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
    made: list[PreferenceSet] | None = None,
) -> pd.DataFrame:
    """One row per rule with ``QUALITY_COLUMNS``.

    y : labels (n,), NaN where unknown.  clicks : the expert's pairwise preferences, if any.
    predictions : the current model's f at every row (n,), for the share of the rule's kept
    preferences it violates (``PreferenceSet.violated``); NaN without it.  Overlaps and conflicts count the rule's
    kept pairs that another rule (or a click) also has, and that it has only the other way round.
    max_pairs, random_state : as for ``generate`` (default: every pair is kept).  made : each rule's
    preferences as stored (one PreferenceSet per rule), used instead of generating the rules again
    over the table; pairs_matched is then NaN (a capped rule's count before the cap is not stored).
    """
    y = np.asarray(y, dtype=np.float64)
    n = len(frame)
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},) to match the table, got {y.shape}")
    labeled = ~np.isnan(y)
    if made is None:
        generated = [generate(rule, frame, labeled, max_pairs=max_pairs, random_state=random_state) for rule in rules]
    elif len(made) != len(rules):
        raise ValueError(f"made needs one PreferenceSet per rule ({len(rules)}), got {len(made)}")
    else:
        generated = [RulePreferences(preferences, np.nan) for preferences in made]
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
    positive margins.  duplicates: (i, j) pairs (k, 2) stated more than once the same way.
    equalities: (i, j) pairs (k, 2) stated both ways by one source with margins <= 0, read as "about
    equal" (no problem, but said: a file stating 0 over 1 and 1 over 0 was checked without a word).
    duplicate_times: (k,) how often each of ``duplicates`` is stated (100,000 identical lines were "1
    duplicate")."""

    cycles: list[np.ndarray]
    conflicts: np.ndarray
    duplicates: np.ndarray
    equalities: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    duplicate_times: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

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
    distinct, times = np.unique(ordered, return_counts=True)
    repeated, times = distinct[times > 1], times[times > 1]
    low, high = (repeated // 2) // n, (repeated // 2) % n
    duplicates = np.column_stack([np.where(repeated % 2 == 1, low, high), np.where(repeated % 2 == 1, high, low)])
    # Pairs stated both ways: an equality if one source states them with margins <= 0, else a conflict.
    two_way = is_in(codes ^ 1, ordered)
    stated = pd.DataFrame({"key": keys[two_way], "margin": margin[two_way], "source": sources[two_way]})
    per_pair = stated.groupby("key").agg(n_sources=("source", "nunique"), margin=("margin", "max"))
    conflict = ((per_pair["n_sources"] > 1) | (per_pair["margin"] > 0)).to_numpy()
    conflicting, equal = (per_pair.index[mask].to_numpy(dtype=np.int64) for mask in (conflict, ~conflict))
    conflicts, equalities = (np.column_stack([keys // n, keys % n]) for keys in (conflicting, equal))
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
    return GraphReport(cycles, conflicts, duplicates, equalities, times)
