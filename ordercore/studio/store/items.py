"""Labelled items: a session's answers (pairwise clicks) and grades (ratings of single rows).

Both are created, edited, undone and removed by one mechanism (``ItemStore._add``, ``_edit``,
``_undo``, ``_remove``, and ``insert_items`` for imports), each write one transaction that locks the
session first: it sees every write committed before it, and an annotator edits, removes and undoes
only their own items.  A kind of item (``ItemKind``) declares what differs: its table, the checks of
a new item and of an edited value against the session, the preferences an item makes, and the word
its errors use.  An answer makes preferences (click rows carrying its id, so that an edit or an undo
takes them along) and moves the session's revision; a grade makes none.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.inputs.printable import quoted
from ordercore.preferences import MAX_WEIGHT, PreferenceSet
from ordercore.studio.store.audits import check_audits
from ordercore.studio.store.limits import check_annotator, check_row, id_number
from ordercore.studio.store.preferences import insert_clicks
from ordercore.studio.store.schema import answers, grades, preferences, rules
from ordercore.studio.store.sessions import (
    check_margins,
    lock_session,
    n_rows,
    now,
    rating_scale,
    session_of,
    session_rows,
    session_settings,
    touch,
)

CHOICES = {
    "a": "A higher",
    "b": "B higher",
    "equal": "about equal",
    "skip": "skip",
}
"""The answers a pairwise click can give."""


@dataclass(frozen=True)
class ItemKind:
    """What a kind of labelled item declares; ``ItemStore`` does the rest.

    word : what errors call an item ("no answer 7", "grade 7 is by 'bob'").
    table : its rows (with session_id, annotator and created_at, which the mechanism fills).
    field : the column an edit changes.
    checked : (connection, session_id, values) -> a new item's values checked against the session,
        in the transaction that writes it; ``ValueError`` refuses it.
    checked_field : (connection, session_id, item, value) -> an edited value, checked likewise against the
        item's stored row (what the edit keeps).
    preferences : an item's row -> the preferences it makes; None for a kind that makes none (its
        writes leave the session's revision as it is).
    """

    word: str
    table: sa.Table
    field: str
    checked: Callable[[sa.Connection, int, dict], dict]
    checked_field: Callable[[sa.Connection, int, dict, object], object]
    preferences: Callable[[Mapping], PreferenceSet] | None = None


# ---------------------------------------------------------------------------------------- answers
def check_choice(choice) -> str:
    if not isinstance(choice, str) or choice not in CHOICES:
        raise ValueError(f"choice must be one of {sorted(CHOICES)}, got {choice!r}")
    return choice


def answer_preferences(row_a: int, row_b: int, choice: str, margin: float, weight: float) -> PreferenceSet:
    """What an answer says: 'a': f(a) - f(b) >= margin; 'b' the reverse; 'equal': |f(a) - f(b)| <= margin
    (two preferences; ``ValueError`` for a margin < 0); 'skip': nothing."""
    if choice == "equal" and margin < 0:
        raise ValueError("'about equal' takes a closeness margin >= 0")
    return {
        "a": lambda: PreferenceSet.order(row_a, row_b, margin, weight),
        "b": lambda: PreferenceSet.order(row_b, row_a, margin, weight),
        "equal": lambda: PreferenceSet.close(row_a, row_b, margin, weight),
        "skip": PreferenceSet.empty,
    }[choice]()


def _finite(number: numbers.Real) -> bool:
    """Whether a real number is finite as a float (a Fraction or an int beyond float64, which
    ``np.isfinite`` refused with a TypeError about ufuncs, is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


_MARGIN_MEANS = {
    "a": "'A is worth more' is f(A) - f(B) >= margin, which a negative margin lets A fall below B",
    "b": "'B is worth more' is f(B) - f(A) >= margin, which a negative margin lets B fall below A",
    "equal": "'about equal' is |f(A) - f(B)| <= margin, which no f meets with a negative margin",
    "skip": "a skip makes no preference, but its margin is kept for an edit to another choice",
}
"""Why each choice takes a margin >= 0 (``answer_values``' refusal): a strict choice's negative margin
contradicts it (corpus 12, A03)."""


def answer_values(row_a, row_b, choice, annotator, weight=1.0, margin=0.0, swapped=None) -> dict:
    """An answer's values checked as far as they can be without its session (its rows are checked
    against the table by ``answer_in_table``); ``ValueError`` saying what is wrong."""
    if swapped is not None and not isinstance(swapped, bool | np.bool_):
        raise ValueError(f"swapped must be True, False or None, got {swapped!r}")
    check_choice(choice)
    annotator = check_annotator(annotator)
    numeric = all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in (weight, margin))
    if not numeric or not _finite(weight) or not 0 <= weight <= MAX_WEIGHT or not _finite(margin):
        raise ValueError(
            f"weight must be a number in [0, {MAX_WEIGHT:g}] and margin a finite number, got {weight!r}, {margin!r}"
        )
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin!r}: {_MARGIN_MEANS[choice]}")
    return {
        "row_a": row_a,
        "row_b": row_b,
        "choice": choice,
        "annotator": annotator,
        "weight": float(weight),
        "margin": float(margin),
        "swapped": None if swapped is None else bool(swapped),
    }


def answer_in_table(values: dict, n_rows: int) -> dict:
    """``answer_values``'s answer with its rows checked against a table of n_rows rows (two different
    rows) and the preferences it makes (``answer_preferences``' check)."""
    row_a, row_b = check_row(values["row_a"], n_rows, "row A"), check_row(values["row_b"], n_rows, "row B")
    if row_a == row_b:
        raise ValueError(f"an answer compares two different rows, got {row_a} twice")
    answer_preferences(row_a, row_b, values["choice"], values["margin"], values["weight"])
    return values | {"row_a": row_a, "row_b": row_b}


def _new_answer(connection, session_id: int, values: dict) -> dict:
    """A new answer checked against its session: its rows, and the rule it audits (if any) one of the
    session's."""
    values = answer_in_table(values, n_rows(connection, session_id))
    rule_id = values["rule_id"]
    if rule_id is not None:
        if isinstance(rule_id, bool) or not isinstance(rule_id, numbers.Integral):  # '1' named no rule 1
            raise ValueError(f"rule_id must be a rule number (an integer), got {quoted(rule_id)}")
        try:
            rule_id = id_number(rule_id, "rule")
            owner = connection.execute(sa.select(rules.c.session_id).where(rules.c.id == rule_id)).scalar()
        except KeyError:
            owner = None
        if owner != session_id:
            raise ValueError(f"session {session_id} has no rule {rule_id!r} to audit")
    return values | {"rule_id": rule_id}


def _edited_choice(connection, session_id: int, answer: dict, choice) -> str:
    """A new choice for a stored ``answer``, whose margin the edit keeps: refused for a margin < 0 (which
    stores written before ``answer_values`` refused it may hold) unless the new choice is 'skip', naming
    that margin."""
    if check_choice(choice) != "skip" and answer["margin"] < 0:
        takes = (
            "'about equal' takes a closeness margin >= 0" if choice == "equal" else f"{choice!r} takes a margin >= 0"
        )
        raise ValueError(
            f"answer {answer['id']} (#{answer['number']} of the session) has margin {answer['margin']:g}, which an "
            f"edit keeps, and {takes}: remove the answer and answer the pair again"
        )
    return choice


ANSWERS = ItemKind(
    word="answer",
    table=answers,
    field="choice",
    checked=_new_answer,
    checked_field=_edited_choice,
    preferences=lambda row: answer_preferences(row["row_a"], row["row_b"], row["choice"], row["margin"], row["weight"]),
)


# ---------------------------------------------------------------------------------------- grades
def check_grade(value, scale: int) -> int:
    """A grade on the scale 1 … ``scale``: an integer (not a bool, not 2.5)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= scale:
        raise ValueError(f"a grade is a whole number from 1 to {scale} (the session's rating scale), got {value!r}")
    return int(value)


def _edited_grade(connection, session_id: int, item: dict, grade) -> int:
    return check_grade(grade, rating_scale(session_settings(connection, session_id)))


def _new_grade(connection, session_id: int, values: dict) -> dict:
    """A new grade checked against its session: a row of its table, on its scale, not graded by the
    annotator already (one grade per row and annotator: edit it to change it)."""
    row = check_row(values["row"], n_rows(connection, session_id), "the graded row")
    grade, annotator = _edited_grade(connection, session_id, values, values["grade"]), values["annotator"]
    held = connection.execute(
        sa.select(grades.c.id, grades.c.grade).where(
            grades.c.session_id == session_id, grades.c.row == row, grades.c.annotator == annotator
        )
    ).first()
    if held is not None:
        scale = rating_scale(session_settings(connection, session_id))
        said = f"grade #{held.id}: {held.grade} of {scale}"
        raise ValueError(f"{annotator!r} graded row {row} already ({said}): edit that grade to change it")
    return {"row": row, "grade": grade, "annotator": annotator}


GRADES = ItemKind(word="grade", table=grades, field="grade", checked=_new_grade, checked_field=_edited_grade)


# ---------------------------------------------------------------------------------------- the mechanism
def insert_items(connection, kind: ItemKind, session_id: int, items: list[dict], revision: int | None) -> list[int]:
    """New items of ``kind`` (their values checked) and the preferences they make, in the caller's
    transaction (which locked and touched the session: ``revision`` is the one it made); their ids, in
    the order of ``items``."""
    if not items:
        return []
    if "rule_id" in kind.table.c:  # an answer auditing a rule: of a pair the rule makes
        check_audits(connection, items, n_rows(connection, session_id))
    created = now()
    rows = [{"created_at": created, **item, "session_id": session_id} for item in items]  # an import's times kept
    if "number" in kind.table.c:  # numbered after the session's highest
        table = kind.table
        held = connection.execute(sa.select(sa.func.max(table.c.number)).where(table.c.session_id == session_id))
        start = (held.scalar() or 0) + 1
        rows = [row | {"number": start + k} for k, row in enumerate(rows)]
    inserted = connection.execute(kind.table.insert().returning(kind.table.c.id, sort_by_parameter_order=True), rows)
    ids = [int(item_id) for item_id in inserted.scalars()]
    _insert_preferences(connection, kind, session_id, revision, list(zip(ids, items, strict=True)))
    return ids


def _insert_preferences(connection, kind: ItemKind, session_id: int, revision, items: list[tuple[int, Mapping]]):
    """The preferences each of ``items`` (id, row) makes, carrying its id; nothing for a kind that
    makes none.  ``ValueError`` for a margin the models cannot fit (``check_margins``): the caller's
    transaction then writes nothing."""
    if kind.preferences is not None:
        clicks = [(item_id, item["annotator"], kind.preferences(item)) for item_id, item in items]
        check_margins(connection, session_id, PreferenceSet.concatenate([made for _, _, made in clicks]))
        insert_clicks(connection, clicks, {"session_id": session_id, "revision": revision, "created_at": now()})


def _own(connection, kind: ItemKind, item_id: int, annotator: str) -> dict:
    """The item's row, if ``annotator`` (checked) gave it; ``KeyError`` if there is none (removed by
    another process meanwhile), else ``ValueError``."""
    item = connection.execute(sa.select(kind.table).where(kind.table.c.id == item_id)).mappings().first()
    if item is None:
        raise KeyError(f"no {kind.word} {item_id}")
    if item["annotator"] != annotator:
        raise ValueError(f"{kind.word} {item_id} is by {quoted(item['annotator'])}: annotators change only their own")
    return dict(item)


def _delete_preferences(connection, kind: ItemKind, item_id: int) -> None:
    """Delete the preferences an item made (click rows carrying its id), if its kind makes any."""
    if kind.preferences is not None:
        connection.execute(preferences.delete().where(preferences.c.answer_id == item_id))


def _delete(connection, kind: ItemKind, item_id: int, session_id: int) -> None:
    """Delete an item and its preferences, in the caller's transaction."""
    _delete_preferences(connection, kind, item_id)
    connection.execute(kind.table.delete().where(kind.table.c.id == item_id))
    touch(connection, session_id, content=kind.preferences is not None)


class ItemStore:
    """``Store``'s answers and grades (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def _add(self, kind: ItemKind, session_id: int, values: dict) -> int:
        """Store a new item (``values``: its columns, checked as far as they can be without the
        session), checked against the session and committed before returning; its id."""
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            values = kind.checked(connection, session_id, values)
            revision = touch(connection, session_id, content=kind.preferences is not None)
            return insert_items(connection, kind, session_id, [values], revision)[0]

    def _edit(self, kind: ItemKind, item_id: int, annotator: str, value) -> None:
        """Set ``kind.field`` of one of ``annotator``'s own items to ``value``, its preferences made
        again, in one transaction; ``ValueError`` for another annotator's item or a bad value."""
        annotator, item_id = check_annotator(annotator), id_number(item_id, kind.word)
        session_id = session_of(self.engine, kind.table, item_id, kind.word)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            item = _own(connection, kind, item_id, annotator)
            item[kind.field] = kind.checked_field(connection, session_id, item, value)
            _delete_preferences(connection, kind, item_id)
            connection.execute(
                kind.table.update().where(kind.table.c.id == item_id).values({kind.field: item[kind.field]})
            )
            revision = touch(connection, session_id, content=kind.preferences is not None)
            _insert_preferences(connection, kind, session_id, revision, [(item_id, item)])

    def _remove(self, kind: ItemKind, item_id: int, annotator: str) -> None:
        """Delete one of ``annotator``'s own items and its preferences; ``ValueError`` for another's."""
        annotator, item_id = check_annotator(annotator), id_number(item_id, kind.word)
        session_id = session_of(self.engine, kind.table, item_id, kind.word)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            _own(connection, kind, item_id, annotator)
            _delete(connection, kind, item_id, session_id)

    def _undo(self, kind: ItemKind, session_id: int, annotator: str) -> int | None:
        """Delete ``annotator``'s latest item in the session and its preferences (another annotator's
        stay); its id, or None if they have none."""
        annotator = check_annotator(annotator)
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            last = connection.execute(
                sa.select(sa.func.max(kind.table.c.id)).where(
                    kind.table.c.session_id == session_id, kind.table.c.annotator == annotator
                )
            ).scalar()
            if last is None:
                return None
            _delete(connection, kind, last, session_id)
        return int(last)

    # ------------------------------------------------------------------ answers
    def add_answer(
        self,
        session_id: int,
        row_a: int,
        row_b: int,
        choice: str,
        annotator: str,
        weight: float = 1.0,
        margin: float = 0.0,
        rule_id: int | None = None,
        swapped: bool | None = None,
    ) -> int:
        """Store a pairwise answer and its preferences, committed before returning; returns its id.

        'a': f(a) - f(b) >= margin; 'b': f(b) - f(a) >= margin; 'equal': |f(a) - f(b)| <= margin
        (two preferences); 'skip': no preference (kept, so the pair is not asked again).  rule_id :
        the session's rule whose pair this answers (an audit answer; its preferences count as any
        click's), else None; ``ValueError`` for a rule of another session or none.  swapped : whether
        the sides were shown the other way round from the order the pair was drawn in (None: unknown)."""
        values = answer_values(row_a, row_b, choice, annotator, weight, margin, swapped)
        return self._add(ANSWERS, session_id, values | {"rule_id": rule_id})

    def answers(self, session_id: int) -> pd.DataFrame:
        """A session's answers, oldest first: id, row_a, row_b, choice, weight, margin, annotator,
        created_at, rule_id (the audited rule, a nullable integer: <NA> for other answers), swapped
        (a nullable boolean: <NA> where not recorded), imported (True for an answer read from a file) and
        number (its number in the session: 1, 2, 3 … in the order given, kept when others are removed)."""
        frame = session_rows(self.engine, answers, session_id)
        frame["number"] = frame["number"].astype("int64")
        frame["rule_id"] = pd.array(frame["rule_id"].astype("Float64"), dtype="Int64")
        frame["swapped"] = frame["swapped"].astype("boolean")
        frame["imported"] = frame["imported"].astype("boolean").fillna(False).astype(bool)
        return frame

    def edit_answer(self, answer_id: int, annotator: str, choice: str) -> None:
        """Change one of ``annotator``'s own answers to ``choice`` (its pair, weight and margin stay),
        with its preferences, in one transaction; ``ValueError`` for another annotator's answer."""
        self._edit(ANSWERS, answer_id, annotator, choice)

    def remove_answer(self, answer_id: int, annotator: str) -> None:
        """Delete one of ``annotator``'s own answers and its preferences; ``ValueError`` for another's."""
        self._remove(ANSWERS, answer_id, annotator)

    def undo_answer(self, session_id: int, annotator: str) -> int | None:
        """Delete ``annotator``'s latest answer in the session and its preferences (another annotator's
        answers stay); its id, or None if they have none."""
        return self._undo(ANSWERS, session_id, annotator)

    # ------------------------------------------------------------------ grades
    def add_grade(self, session_id: int, row: int, grade: int, annotator: str) -> int:
        """Store ``annotator``'s grade (1 … the session's ``rating_scale``) of a row of the session's
        table, committed before returning; returns its id.  ``ValueError`` for a grade off the scale, a
        row outside the table or one the annotator graded already (edit that grade instead); nothing is
        written then."""
        values = {"row": row, "grade": grade, "annotator": check_annotator(annotator)}
        return self._add(GRADES, session_id, values)

    def grades(self, session_id: int) -> pd.DataFrame:
        """A session's grades, oldest first: id, row, grade, annotator, created_at."""
        return session_rows(self.engine, grades, session_id)

    def edit_grade(self, grade_id: int, annotator: str, grade: int) -> None:
        """Change one of ``annotator``'s own grades to ``grade``; ``ValueError`` for another's grade or
        one off the scale."""
        self._edit(GRADES, grade_id, annotator, grade)

    def remove_grade(self, grade_id: int, annotator: str) -> None:
        """Delete one of ``annotator``'s own grades; ``ValueError`` for another's."""
        self._remove(GRADES, grade_id, annotator)

    def undo_grade(self, session_id: int, annotator: str) -> int | None:
        """Delete ``annotator``'s latest grade in the session (another annotator's stay); its id, or None
        if they have none."""
        return self._undo(GRADES, session_id, annotator)
