"""A session's rules, each stored with the preferences it made (one block), and refused when the
session holds the same rule already: the same conditions (in any order) and the same ordering make the
same pairs, whatever the rule is called.  A rule replaced through the store is refused with preferences
it does not make on the session's table."""

from __future__ import annotations

import json
from dataclasses import dataclass

import sqlalchemy as sa

from ordercore.knowledge.rules import Rule
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import load_source, study_data
from ordercore.studio.rule_preferences import check_made
from ordercore.studio.store.limits import check_annotator, check_name, check_size, id_number
from ordercore.studio.store.preferences import encode_block, insert_block
from ordercore.studio.store.schema import answers, datasets, preference_blocks, preferences, rules, sessions
from ordercore.studio.store.sessions import (
    check_margins,
    known_session,
    lock_session,
    n_rows,
    now,
    session_of,
    touch,
)


def _repeated(connection, session_id: int, rule: Rule, besides: int | None = None) -> str | None:
    """Why ``rule`` may not be added, if the session holds the same rule (``Rule.identity``) but rule
    ``besides`` (the one it replaces), else None; read in the caller's transaction, which has locked the
    session."""
    query = sa.select(rules.c.id, rules.c.number, rules.c.name, rules.c.spec).where(
        rules.c.session_id == session_id, rules.c.id != (-1 if besides is None else besides)
    )
    for held in connection.execute(query.order_by(rules.c.id)):
        if Rule.from_json(held.spec).identity() == rule.identity():
            return f"this rule is the same as rule #{held.number} {held.name!r} (the same conditions and ordering)"
    return None


def _next_number(connection, session_id: int) -> int:
    """The number of the session's next rule, one past the highest ever given in it (``last_rule_number``,
    and any rule held above it), recorded as given; in the caller's transaction, which has locked the
    session.  A removed rule's number is never given again: exports and answers name rules by it."""
    last = connection.execute(sa.select(sessions.c.last_rule_number).where(sessions.c.id == session_id)).scalar_one()
    held = connection.execute(sa.select(sa.func.max(rules.c.number)).where(rules.c.session_id == session_id))
    number = max(last, held.scalar() or 0) + 1
    connection.execute(sessions.update().where(sessions.c.id == session_id).values(last_rule_number=number))
    return number


@dataclass(frozen=True)
class RuleReplacement:
    """What replacing a rule did: its preferences before and after, its audit answers kept and unlinked."""

    preferences_before: int
    preferences_after: int
    audits_kept: int
    audits_unlinked: int


def _checked(rule: Rule, made: PreferenceSet, annotator: str, method: str) -> tuple[str, str, str, bytes]:
    """(annotator, name, spec, content) of a rule to store, each checked before any write."""
    annotator = check_annotator(annotator)
    if not isinstance(rule, Rule) or not isinstance(made, PreferenceSet):
        raise TypeError(f"{method} takes a Rule and the PreferenceSet it generated")
    name = check_name(rule.name, "rule name", rules.c.name)
    spec = check_size(rule.to_json(), "the rule")
    return annotator, name, spec, check_size(encode_block(made), f"the rule's {len(made):,} preferences")


def _check_made_on_table(engine: sa.Engine, session_id: int, rule: Rule, made: PreferenceSet) -> None:
    """``ValueError`` unless ``made`` are preferences ``rule`` makes on the session's table and split
    (``rule_preferences.check_made``, as the engine checks them), where the session's data is chosen: its
    table read as the engine reads it (``data.load_source``: an upload's CSV from the store, a data set
    from ORDERCORE_DATA).  A session without data (its row count alone) is checked against that only.
    Read before the write's transaction: a session holding rules keeps its table (``update_settings``)."""
    query = sa.select(sessions.c.settings, datasets.c.content).where(sessions.c.id == session_id)
    query = query.select_from(sessions.outerjoin(datasets, datasets.c.id == sessions.c.dataset_id))
    with engine.connect() as connection:
        held = connection.execute(query).first()
        if held is None:  # no such session: the write says so (``lock_session``)
            return
        check_margins(connection, session_id, made)  # first, in its words (checked again under the lock)
    settings, content = json.loads(held.settings), held.content
    if not settings.get("source"):
        return
    data = study_data(load_source(settings["source"], content)[0], settings["target"], settings["features"], settings)
    rule.check_columns(data.frame)
    check_made(data.frame, data.labeled, rule, made)


class RuleStore:
    """``Store``'s rules (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def add_rule(self, session_id: int, rule: Rule, made: PreferenceSet, annotator: str) -> int:
        """Store a rule and the preferences it made, in one transaction; returns the rule's id.
        ``ValueError`` naming the rule it repeats if the session holds the same rule (``Rule.identity``;
        also one added by another process at the same moment), nothing written then.  Whether ``made`` is
        what ``rule`` makes is the caller's to check (the engine's ``check_rule``; ``replace_rule`` checks)."""
        annotator, name, spec, content = _checked(rule, made, annotator, "add_rule")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            made.check_indices(n_rows(connection, session_id))
            check_margins(connection, session_id, made)
            repeated = _repeated(connection, session_id, rule)
            if repeated is not None:
                raise ValueError(repeated)
            revision = touch(connection, session_id)
            created = now()
            number = _next_number(connection, session_id)
            rule_id = connection.execute(
                rules.insert().values(
                    session_id=session_id, name=name, spec=spec, annotator=annotator, created_at=created, number=number
                )
            ).inserted_primary_key[0]
            owner = {"session_id": session_id, "revision": revision, "annotator": annotator, "created_at": created}
            insert_block(connection, made, content, owner, "rule", rule_id)
        return int(rule_id)

    def rules(self, session_id: int) -> list[tuple[int, Rule]]:
        """(id, Rule) of a session's rules, oldest first."""
        with self.engine.connect() as connection:
            session_id = known_session(connection, session_id)
            query = sa.select(rules.c.id, rules.c.spec).where(rules.c.session_id == session_id).order_by(rules.c.id)
            return [(row.id, Rule.from_json(row.spec)) for row in connection.execute(query)]

    def rule_numbers(self, session_id: int) -> dict[int, int]:
        """Each of a session's rules' number in the session by its id: 1, 2, 3 … in the order added, kept
        when another is removed (the ids run across sessions; users see the numbers)."""
        with self.engine.connect() as connection:
            query = sa.select(rules.c.id, rules.c.number).where(
                rules.c.session_id == known_session(connection, session_id)
            )
            return {row.id: row.number for row in connection.execute(query)}

    def remove_rule(self, rule_id: int) -> None:
        """Delete a rule and every preference it made (a block, or rows in a store from before blocks)."""
        rule_id = id_number(rule_id, "rule")  # bound as an int: SQLite never matched a numpy integer (SQ02)
        session_id = session_of(self.engine, rules, rule_id, "rule")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            if connection.execute(sa.select(rules.c.id).where(rules.c.id == rule_id)).scalar() is None:
                raise KeyError(f"no rule {rule_id}")  # removed by another process meanwhile
            connection.execute(preference_blocks.delete().where(preference_blocks.c.rule_id == rule_id))
            connection.execute(preferences.delete().where(preferences.c.rule_id == rule_id))
            # The rule's audit answers stay (they are the expert's clicks), no longer linked to it.
            connection.execute(answers.update().where(answers.c.rule_id == rule_id).values(rule_id=None))
            connection.execute(rules.delete().where(rules.c.id == rule_id))
            touch(connection, session_id)

    def replace_rule(self, rule_id: int, rule: Rule, made: PreferenceSet, annotator: str) -> RuleReplacement:
        """Rule ``rule_id`` becomes ``rule`` with the preferences it made, in one transaction (all or
        nothing), keeping its id (its number).  Its audit answers to pairs ``made`` still orders (either
        way round) stay its audits; the others stay as the annotators' answers, no longer linked to it (as
        when a rule is removed).  ``ValueError`` as ``add_rule``'s (a rule held already, preferences
        ``rule`` does not make: S004 replaced a rule's preferences by another rule's), ``KeyError`` for a
        rule no longer there; nothing written then."""
        annotator, name, spec, content = _checked(rule, made, annotator, "replace_rule")
        rule_id = id_number(rule_id, "rule")  # bound as an int: SQLite never matched a numpy integer (SQ01)
        session_id = session_of(self.engine, rules, rule_id, "rule")
        _check_made_on_table(self.engine, session_id, rule, made)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            if connection.execute(sa.select(rules.c.id).where(rules.c.id == rule_id)).scalar() is None:
                raise KeyError(f"no rule {rule_id}")  # removed by another process meanwhile
            made.check_indices(n_rows(connection, session_id))
            check_margins(connection, session_id, made)
            repeated = _repeated(connection, session_id, rule, besides=rule_id)
            if repeated is not None:
                raise ValueError(repeated)
            before = (
                connection.execute(
                    sa.select(sa.func.coalesce(sa.func.sum(preference_blocks.c.n_preferences), 0)).where(
                        preference_blocks.c.rule_id == rule_id
                    )
                ).scalar()
                + connection.execute(
                    sa.select(sa.func.count()).select_from(preferences).where(preferences.c.rule_id == rule_id)
                ).scalar()
            )
            pairs = {frozenset((int(i), int(j))) for i, j in zip(made.i, made.j, strict=True)}
            audits = connection.execute(
                sa.select(answers.c.id, answers.c.row_a, answers.c.row_b).where(answers.c.rule_id == rule_id)
            ).all()
            dropped = [a.id for a in audits if frozenset((a.row_a, a.row_b)) not in pairs]
            connection.execute(preference_blocks.delete().where(preference_blocks.c.rule_id == rule_id))
            connection.execute(preferences.delete().where(preferences.c.rule_id == rule_id))
            if dropped:
                connection.execute(answers.update().where(answers.c.id.in_(dropped)).values(rule_id=None))
            revision = touch(connection, session_id)
            created = now()
            connection.execute(rules.update().where(rules.c.id == rule_id).values(name=name, spec=spec))
            owner = {"session_id": session_id, "revision": revision, "annotator": annotator, "created_at": created}
            insert_block(connection, made, content, owner, "rule", rule_id)
        return RuleReplacement(int(before), len(made), len(audits) - len(dropped), len(dropped))
