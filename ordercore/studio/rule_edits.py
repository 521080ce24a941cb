"""Editing a stored rule (new-user report 9, Minor 10: tightening a tolerance meant remove and add, which lost
the rule's number and its audits): the rule is replaced in one store transaction, keeping its number; its
audit answers to pairs the edited rule still makes stay its audits, the others stay as the annotators'
answers but no longer audit it (they judged a pair the rule no longer claims, so they say nothing of it)."""

from __future__ import annotations

from dataclasses import fields

import pandas as pd

from ordercore.knowledge.rules import Rule
from ordercore.knowledge.rules.conditions import Condition
from ordercore.preferences import PreferenceSet
from ordercore.studio.session_checks import check_rule, in_session


def edit_rule(engine, rule_id: int, annotator: str, rule: Rule, made: PreferenceSet) -> str:
    """Replace the session's rule ``rule_id`` by ``rule`` and the preferences it made (all or nothing) and
    say what changed: 'rule #2: within ± 1 → ± 0.5 (age_years): 41 → 23 pairs; …'.  ``ValueError`` (nothing
    written) as for adding a rule; ``KeyError`` for a rule not the session's."""
    data = engine.data()
    if data is None:
        raise ValueError("choose this session's data on the Data page first")
    old = dict(engine.rules())[in_session(rule_id, [k for k, _ in engine.rules()], "rule")]
    check_rule(data, rule, made)
    replaced = engine.store.replace_rule(rule_id, rule, made, annotator)
    engine.changed()
    changes = "; ".join(rule_changes(old, rule)) or "nothing changed"
    number = rule_number(engine, rule_id)
    words = f"rule #{number}: {changes}: {replaced.preferences_before:,} → {replaced.preferences_after:,} pairs"
    if replaced.audits_kept or replaced.audits_unlinked:
        words += (
            f"; {replaced.audits_kept:,} audit answer(s) still audit it, {replaced.audits_unlinked:,} no longer "
            "(kept as answers)"
        )
    return words


def rule_number(engine, rule_id: int) -> int:
    """The rule's number in its session, as users see it (``Store.rule_numbers``; the id runs across sessions)."""
    return engine.store.rule_numbers(engine.id)[rule_id]


def audit_split(answers: pd.DataFrame, rule_id: int, made: PreferenceSet) -> tuple[int, int]:
    """(kept, unlinked): of the rule's audit answers (``answers``: the session's, with row_a, row_b and
    rule_id), how many judge a pair ``made`` holds (either way round) and how many do not."""
    missing = [c for c in ("row_a", "row_b", "rule_id") if c not in answers.columns]
    if missing:
        raise ValueError(
            f"audit_split: answers lacks the column(s) {missing}; it needs row_a, row_b and rule_id (the session's "
            f"answers), and has {list(answers.columns)}"
        )
    audits = answers[answers["rule_id"].eq(rule_id).fillna(False)]
    pairs = {frozenset((int(i), int(j))) for i, j in zip(made.i, made.j, strict=True)}
    kept = sum(frozenset((int(a), int(b))) in pairs for a, b in zip(audits["row_a"], audits["row_b"], strict=True))
    return kept, len(audits) - kept


def rule_changes(old: Rule, new: Rule) -> list[str]:
    """What differs from ``old`` to ``new``, in words: 'within ± 1 → ± 0.5 (age_years)', a condition
    dropped or added, the ordering, 'by at least', the margin, the weight and the name."""
    changes = []
    if old.name != new.name:
        changes.append(f"named {old.name!r} → {new.name!r}")
    kept = [c for c in old.conditions if c in new.conditions]
    gone = [c for c in old.conditions if c not in kept]
    added = [c for c in new.conditions if c not in kept]
    for before in list(gone):
        same = next((c for c in added if (c.kind, c.columns()) == (before.kind, before.columns())), None)
        if same is not None:
            gone.remove(before)
            added.remove(same)
            changes.extend(_amounts_changed(before, same))
    changes.extend(f"no longer {c.words()}" for c in gone)
    changes.extend(f"now also {c.words()}" for c in added)
    before, after = old.ordering, new.ordering
    if (before.direction, before.column) != (after.direction, after.column):
        changes.append(f"the one with {before.direction} {before.column} → {after.direction} {after.column}")
    for label, then, now in (
        ("by at least", before.min_difference, after.min_difference),
        ("margin d", old.margin, new.margin),
        ("weight w", old.weight, new.weight),
    ):
        if then != now:
            changes.append(f"{label} {then:g} → {now:g}")
    return changes


def _amounts_changed(before: Condition, after: Condition) -> list[str]:
    """'within ± 1 → ± 0.5 (age_years)' for each amount of a condition on the same columns that changed."""
    on = ", ".join(before.columns())
    return [
        f"{f.metadata['label']} {getattr(before, f.name):g} → {getattr(after, f.name):g} ({on})"
        for f in fields(before)
        if "amount" in f.metadata and getattr(before, f.name) != getattr(after, f.name)
    ]
