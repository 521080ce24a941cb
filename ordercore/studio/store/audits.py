"""An audit answer answers one of its rule's pairs: a rule's stored preferences order the pair, either way
round (as ``RuleStore.replace_rule`` keeps an audit linked).  Checked where answers are stored
(``items.insert_items``), so a click, an import and a second engine whose page still shows a rule another
has since edited all meet it (corpus 13, R5: RN18, RN19, TW04)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.studio.store.preferences import decode_block
from ordercore.studio.store.schema import preference_blocks, preferences, rules


def _unordered(row_a: np.ndarray, row_b: np.ndarray, n_rows: int) -> np.ndarray:
    """A code (p,) for each pair of rows, the same either way round: min · n + max."""
    return np.minimum(row_a, row_b) * n_rows + np.maximum(row_a, row_b)


def made_by_rule(connection, rule_id: int, row_a, row_b, n_rows: int) -> np.ndarray:
    """Whether rule ``rule_id``'s stored preferences order each pair (row_a[k], row_b[k]) (rows of a table
    of n_rows), either way round, (p,) booleans.  Reads the rule's block (its i and j: 16 bytes a
    preference, ~20 ms for 10^6) and, in a store from before blocks, asks its rows for each pair left,
    one query a pair."""
    row_a, row_b = np.asarray(row_a, dtype=np.int64), np.asarray(row_b, dtype=np.int64)
    wanted, held = _unordered(row_a, row_b, n_rows), np.zeros(row_a.size, dtype=bool)
    query = sa.select(preference_blocks.c.content, preference_blocks.c.n_preferences)
    for block in connection.execute(query.where(preference_blocks.c.rule_id == rule_id)):
        made = decode_block(block.content, block.n_preferences)
        held |= np.isin(wanted, _unordered(made.i, made.j, n_rows))
    for k in np.flatnonzero(~held):
        a, b = int(row_a[k]), int(row_b[k])
        either = sa.or_(
            sa.and_(preferences.c.i == a, preferences.c.j == b), sa.and_(preferences.c.i == b, preferences.c.j == a)
        )
        row = connection.execute(sa.select(preferences.c.id).where(preferences.c.rule_id == rule_id, either).limit(1))
        held[k] = row.first() is not None
    return held


def check_audits(connection, items: list[dict], n_rows: int) -> None:
    """``ValueError`` naming the first answer of ``items`` (row_a, row_b, rule_id: checked answers of one
    session, whose rules they name) that audits a rule whose stored preferences do not order its pair."""
    audits: dict[int, list[dict]] = {}
    for item in items:
        if item.get("rule_id") is not None:
            audits.setdefault(int(item["rule_id"]), []).append(item)
    for rule_id, given in audits.items():
        row_a, row_b = [item["row_a"] for item in given], [item["row_b"] for item in given]
        stray = np.flatnonzero(~made_by_rule(connection, rule_id, row_a, row_b, n_rows))
        if stray.size:
            held = connection.execute(sa.select(rules.c.number, rules.c.name).where(rules.c.id == rule_id)).first()
            named = f"rule {'' if held.number is None else f'#{held.number} '}{held.name!r}"
            a, b = sorted((int(row_a[stray[0]]), int(row_b[stray[0]])))
            raise ValueError(
                f"{named} does not order rows {a} and {b}: an audit answers one of the "
                "pairs its rule makes (the rule may have been edited meanwhile); answer without the rule to keep "
                "the answer"
            )


def _given(value) -> str | None:
    """A cell of an answers file as text, None when empty."""
    if value is None or (not isinstance(value, str) and pd.isna(value)) or str(value).strip() == "":
        return None
    return str(value).strip()


def _whole(text: str) -> int | None:
    """'3' or '3.0' as 3; None for text that is no whole number."""
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def _link(line: dict, numbers: dict, ids: dict, names: dict) -> tuple[int | None, str]:
    """(the rule id a line of an answers file audits, or None; why, in words): by its ``rule_number`` (an
    export's), else its ``rule_id`` (an older export's, of this store: ids are the store's), else its
    ``rule`` name (that of a number or id the session lacks: another session's export); a number or id
    whose rule has another name than the line's is not linked."""
    name = _given(line.get("rule"))
    for column, held, words in (("rule_number", numbers, "rule #{}"), ("rule_id", ids, "rule id {}")):
        given = _given(line.get(column))
        if given is None:
            continue
        number = _whole(given)
        if number is None:
            return None, f"{column} {given[:20]!r} is not a whole number"
        if number not in held and name is None:
            return None, f"this session has no {words.format(number)}"
        if number not in held:  # another session's export: its rules' names may be this one's
            continue
        rule_id, rule_name = held[number]
        if name is not None and name != rule_name:
            return None, f"{words.format(number)} is {rule_name!r} here, not {name!r}"
        return rule_id, f"linked by {column}"
    if name is None:
        return None, ""
    if name not in names:
        return None, f"this session has no rule {name[:40]!r}: import the rules first, then the answers"
    if names[name] is None:
        return None, f"two of this session's rules are named {name[:40]!r}"
    return names[name], "linked by rule name"


def audit_links(connection, session_id: int, table: pd.DataFrame, n_rows: int) -> tuple[list[int | None], list[str]]:
    """For each line of an answers ``table`` (rows as positions), the session's rule it audits (``_link``)
    if that rule's stored preferences order its pair, else None; and why, in words ('' for a line that
    names no rule)."""
    held = connection.execute(
        sa.select(rules.c.id, rules.c.number, rules.c.name).where(rules.c.session_id == session_id)
    )
    numbers, ids, names = {}, {}, {}
    for row in held.all():
        numbers[row.number], ids[row.id] = (row.id, row.name), (row.id, row.name)
        names[row.name] = None if row.name in names else row.id
    links = [_link(line, numbers, ids, names) for line in table.to_dict("records")]
    rule_ids, reasons = [rule_id for rule_id, _ in links], [reason for _, reason in links]
    rows = table[["row_a", "row_b"]].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    for rule_id in {rule_id for rule_id in rule_ids if rule_id is not None}:
        lines = [k for k, linked in enumerate(rule_ids) if linked == rule_id and np.isfinite(rows[k]).all()]
        pairs = rows[lines].astype(np.int64)
        made = made_by_rule(connection, rule_id, pairs[:, 0], pairs[:, 1], n_rows) if lines else []
        for k, ordered in zip(lines, made, strict=True):
            if not ordered:
                rule_ids[k], reasons[k] = None, f"rule {ids[rule_id][1]!r} does not order its pair"
    return rule_ids, reasons
