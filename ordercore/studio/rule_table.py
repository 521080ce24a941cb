"""The Rules page's table of the session's rules (new-user report 12, F6 and F7): each rule by its number in the
session ("#3", as its Edit button and the Model page name it), its pairs, coverage, accuracy with its 95 %
interval and the labeled pairs and audit answers it rests on, the weight in force, and a hint where the figures
say less than they seem, with the share of its preferences SVR violates.  A rule ordering by a column with no
direction in the labeled rows, checked on one pair, read "100 % (21 %–100 %)" exactly as the real rules did.
Nothing here imports Streamlit."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.knowledge.quality import AUDIT_SUGGESTED
from ordercore.knowledge.rules import Rule, rank_correlation, rank_correlation_interval
from ordercore.knowledge.source_weights import rule_source
from ordercore.studio.numbers import counted, fixed
from ordercore.studio.training import violations_by_source
from ordercore.studio.verdicts import wrong_way_warning

WIDE_INTERVAL = 0.5
"""An accuracy interval wider than this share rests on too few checked pairs to tell a rule from a coin: one
pair right reads 21 %–100 % (width 0.79), 3 of 5 independent pairs 23 %–88 %; 16 of 20 reads 58 %–92 % (0.34)."""


def direction_hint(rule: Rule, frame: pd.DataFrame, labels: np.ndarray, target: str) -> tuple[str, str]:
    """('', '') when the labeled rows rank ``rule``'s ordering column with the ``target`` in the rule's direction
    (the 95 % interval of Spearman's ρ over the rows with a label, ``labels`` (n,) NaN elsewhere, on the rule's
    side of 0); else (a tag for the table, a sentence) saying what they show: no direction (the interval spans
    0), the other direction, or nothing to measure (fewer than 3 labeled rows with a value, or a side that does
    not vary)."""
    column = rule.ordering.column
    rho, rows = rank_correlation(frame[column], labels)
    if np.isnan(rho):
        return "no direction", f"the labeled rows cannot tell which way {column} goes with the {target}"
    low, high = rank_correlation_interval(rho, rows)
    measured = f"Spearman's ρ {fixed(rho)}, 95 % interval {fixed(low)} to {fixed(high)}, over {rows:,} rows"
    if low <= 0 <= high:
        return "no direction", f"the labeled rows show no direction between {column} and the {target} ({measured})"
    if (high < 0) == (rule.ordering.direction == "higher"):
        return "other way", f"the labeled rows rank {column} the other way ({measured})"
    return "", ""


def checks_hint(checked: int, low: float, high: float) -> tuple[str, str]:
    """('', '') when the rule's accuracy interval [``low``, ``high``] is at most ``WIDE_INTERVAL`` wide; else (a
    tag for the table, a sentence) saying it rests on ``checked`` pairs (labeled pairs and audit answers)."""
    if not checked or np.isnan(low) or np.isnan(high):
        return f"unchecked: audit {AUDIT_SUGGESTED} pairs", "no pair checks it yet"
    if high - low <= WIDE_INTERVAL:
        return "", ""
    return "few checks", f"its accuracy rests on {counted(checked, 'checked pair')} (interval {low:.0%}–{high:.0%})"


def rule_hints(trust: pd.DataFrame, rules: list[tuple[int, Rule]], frame, labels, target: str) -> list[tuple[str, str]]:
    """Per row of ``trust`` (``quality.rule_trust`` over ``rules``, (rule_id, Rule)): (tags, sentence) of
    ``checks_hint`` and ``direction_hint`` ('' for both where neither has anything to say)."""
    stored, hints = dict(rules), []
    for row in trust.itertuples():
        said = [
            checks_hint(int(row.labeled_pairs + row.audit_answers), row.accuracy_low, row.accuracy_high),
            direction_hint(stored[row.rule_id], frame, labels, target),
        ]
        hints.append(("; ".join(tag for tag, _ in said if tag), "; ".join(words for _, words in said if words)))
    return hints


def hint_warning(number: int, name: str, sentence: str) -> str:
    """What the page says under the table of a rule with a hint: 'Rule #3 'x': …: audit it on Pairwise …'."""
    return (
        f"Rule #{number} {name!r}: {sentence}; audit it on Pairwise (Pairs from: rule #{number}) before you trust it."
    )


def numbered_wrong_way_warnings(trust: pd.DataFrame, numbers: dict) -> list[str]:
    """``verdicts.wrong_way_warning`` of each row of ``trust`` (``quality.rule_trust``) that has one, the rule
    named by its number as the table and the other warnings name it: "Rule #3 'x' is right on only 17 % …"."""
    said = []
    for row in trust.itertuples():
        warning = wrong_way_warning(row.rule, row.accuracy, row.accuracy_low, row.accuracy_high)
        if warning:
            said.append(f"Rule #{numbers[row.rule_id]} {warning}")
    return said


def violated_words(violated: float, preferences: float) -> str:
    """'SVR violates 64%': the share of the rule's ``preferences`` SVR's predictions violate; '' before a retrain
    of these preferences has finished (NaN) or for a rule without preferences."""
    if np.isnan(violated) or np.isnan(preferences) or not preferences:
        return ""
    return f"SVR violates {violated / preferences:.0%}"


def rules_table(
    trust: pd.DataFrame,
    rules: list[tuple[int, Rule]],
    target: str,
    numbers: dict,
    hints: list[tuple[str, str]],
    violations: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The session's rules as the Rules page shows them, one row per row of ``trust`` (``quality.rule_trust`` over
    ``rules``, (rule_id, Rule)): '#' its number (``numbers``, {rule_id: number}), 'rule' its name and then the rule
    in words (``Rule.words`` of the ``target``: a name such as 'more neck_relief' says nothing of its conditions,
    nu13 F10), accuracy with its interval as one text, and 'hint': the
    tags of ``hints`` (``rule_hints``, one per row) and the share of its preferences SVR violates, from
    ``violations`` (``training.violations_by_source``, by source name, ``rule_source``; None: not yet), '—'
    where there is nothing to say.  Where its accuracy comes from is in its labeled pairs and audit answers."""
    by_source = {} if violations is None else violations.set_index("source")
    stored, said = dict(rules), []
    for row, (tags, _) in zip(trust.itertuples(), hints, strict=True):
        source = rule_source(numbers[row.rule_id], row.rule)
        counts = (np.nan, np.nan)
        if source in getattr(by_source, "index", ()):
            counts = (float(by_source.at[source, "violated by SVR"]), float(by_source.at[source, "preferences"]))
        said.append("; ".join(words for words in (tags, violated_words(*counts)) if words) or "—")

    def accuracy(row) -> str:
        if np.isnan(row.accuracy):
            return "—"
        return f"{row.accuracy:.0%} ({row.accuracy_low:.0%}–{row.accuracy_high:.0%})"

    return pd.DataFrame(
        {
            "#": [f"#{numbers[rule_id]}" for rule_id in trust["rule_id"]],
            "rule": [f"{row.rule} — {stored[row.rule_id].words(target)}" for row in trust.itertuples()],
            "pairs": trust["pairs"].map("{:,}".format),
            "coverage": (100 * trust["coverage"]).map("{:.1f} %".format),
            "accuracy (95 % interval)": [accuracy(row) for row in trust.itertuples()],
            "labeled pairs": trust["labeled_pairs"],
            "audit answers": trust["audit_answers"],
            "right where SVR disagrees": [
                "— (not yet)"
                if np.isnan(row.contradicting_svr)
                else f"{row.right_contradicting_svr:.0f} of {row.contradicting_svr:.0f}"
                for row in trust.itertuples()
            ],
            "weight": trust["weight"],
            "hint": said,
        }
    )


def session_rules_table(engine, data) -> tuple[pd.DataFrame, list[str], pd.DataFrame, pd.DataFrame]:
    """(table, warnings, trust, quality) for the Rules page: ``rules_table`` of ``engine``'s stored rules over
    ``data`` (SVR's violations from its last finished fit, a retrain asked for if one is due), the wrong-way
    warnings (``numbered_wrong_way_warnings``) then the ``hint_warning`` of each rule with a hint, and
    ``engine.rule_tables``' trust and quality tables."""
    trust, quality, _ = engine.rule_tables(data)
    rules, numbers = engine.rules(), engine.store.rule_numbers(engine.id)
    bench = engine.trained()
    violations = None if bench is None else violations_by_source(bench, engine.sources())
    labels, target = data.y_train(), data.dataset.metadata["target"]
    hints = rule_hints(trust, rules, data.frame, labels, target)
    table = rules_table(trust, rules, target, numbers, hints, violations)
    warnings = numbered_wrong_way_warnings(trust, numbers) + [
        hint_warning(numbers[rule_id], name, sentence)
        for rule_id, name, (_, sentence) in zip(trust["rule_id"], trust["rule"], hints, strict=True)
        if sentence
    ]
    return table, warnings, trust, quality
