"""An audit answer answers one of its rule's pairs: a rule's stored preferences order the pair, either way
round (as ``RuleStore.replace_rule`` keeps an audit linked).  Checked where answers are stored
(``items.insert_items``), so a click, an import and a second engine whose page still shows a rule another
has since edited all meet it (corpus 13, R5: RN18, RN19, TW04)."""

from __future__ import annotations

import numpy as np
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
