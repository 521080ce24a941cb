"""A session's work out of the store and into another session: preferences (CSV or JSON, with their
provenance), answers and grades (CSV) and rules (JSON).  An import is one transaction, checked whole
before anything is written (``ValueError`` naming the first bad line), and leaves out what the
session already holds; imported answers and grades are stored as any others (``items.insert_items``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.inputs.printable import quoted
from ordercore.knowledge.rules import Rule
from ordercore.preferences import PreferenceSet
from ordercore.studio.fingerprints import FINGERPRINTS
from ordercore.studio.store.audits import audit_links
from ordercore.studio.store.items import ANSWERS, GRADES, answer_in_table, answer_values, check_grade, insert_items
from ordercore.studio.store.limits import check_annotator, check_row, check_size, id_number
from ordercore.studio.store.preferences import decode_block, encode_block, insert_block
from ordercore.studio.store.schema import answers, grades, preference_blocks, preferences, rules
from ordercore.studio.store.sessions import (
    check_margins,
    lock_session,
    n_rows,
    now,
    rating_scale,
    session_settings,
    touch,
)

ANSWER_KEY = ("row_a", "row_b", "choice", "annotator", "weight", "margin")
"""What makes two answers the same answer, for an import."""


IDS = tuple[str, np.ndarray] | None
"""An export's ids: the identifier column's name and every row's id as text (n,); None: by position."""

ROW_COLUMNS = {"answers": {"row_a": "_a", "row_b": "_b"}, "grades": {"row": ""}, "preferences": {"i": "_i", "j": "_j"}}
"""Per file kind, its columns of row positions (0-based), each with the suffix of the column that holds
the same rows' identifiers in an export by id (``home_id_a`` for ``row_a`` when the id is ``home_id``)."""


def by_id(frame: pd.DataFrame, kind: str, ids: IDS, fingerprints: np.ndarray | None = None) -> pd.DataFrame:
    """``frame`` (an export of ``kind``) with its rows named by the table's identifier: ``ids`` is its
    column's name and its values as text (n,).  Answers and grades name their rows by id alone;
    preferences keep i, j beside the ids (the library's format reads them).  As it is without ``ids``,
    or when an id column would take the name of one the file has.  With ``fingerprints`` (n,), each row's
    fingerprint in a last column per row column (``FINGERPRINTS``; empty for a unary preference's 0)."""
    if fingerprints is not None:
        frame = frame.assign(**{FINGERPRINTS[c]: _of_rows(fingerprints, frame[c]) for c in ROW_COLUMNS[kind]})
    if ids is None:
        return frame
    identifier, labels = ids
    named = {column: identifier + suffix for column, suffix in ROW_COLUMNS[kind].items()}
    if set(named.values()) & set(frame.columns):
        return frame
    frame = frame.copy()
    for column, name in named.items():
        frame.insert(frame.columns.get_loc(column), name, _of_rows(labels, frame[column]))
    return frame if kind == "preferences" else frame.drop(columns=list(named))


def _of_rows(values: np.ndarray, rows: pd.Series) -> np.ndarray:
    """``values`` (n,) at the positions ``rows`` (k,), "" for the constant 0 of a unary preference (ZERO)."""
    rows = rows.to_numpy(dtype=np.int64)  # an empty export's columns hold objects
    return np.where(rows >= 0, np.asarray(values, dtype=object)[np.maximum(rows, 0)], "")


def _json_number(value):
    """A numpy number as JSON writes it (a Python int or float)."""
    if isinstance(value, np.integer | np.floating):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _integer(value):
    """A row number read from a file: an integral float (2.0, as pandas reads a column with blanks) is
    that integer; anything else is left for ``check_row`` to refuse."""
    if isinstance(value, float | np.floating) and np.isfinite(value) and float(value).is_integer():
        return int(value)
    return value


def rule_winner(answers: pd.DataFrame) -> pd.Series:
    """For each answer (``Store.answers``' frame), the side the audited rule's winner was shown on: 'A',
    'B' (the sides were swapped), or '' for a click or where not recorded.  What an export says for
    ``swapped``: its rows already stand in the order shown, so the draw order matters only for a rule."""
    audit = answers["rule_id"].notna() & answers["swapped"].notna()
    side = np.where(answers["swapped"].fillna(False).to_numpy(dtype=bool), "B", "A")
    return pd.Series(np.where(audit.to_numpy(dtype=bool), side, ""), index=answers.index)


def _swapped(row: dict) -> bool | None:
    """The swapped flag of an answers file's line: its ``rule_winner`` ('A', 'B' or empty; the exports'
    column) or, in older files, ``swapped``."""
    if "rule_winner" in row:
        winner = row["rule_winner"]
        text = "" if winner is None or pd.isna(winner) else str(winner).strip().upper()
        if text not in ("", "A", "B"):
            raise ValueError(f"rule_winner must be A, B or empty, got {str(winner)[:40]!r}")
        return {"": None, "A": False, "B": True}[text]
    swapped = row.get("swapped")
    return None if swapped is None or pd.isna(swapped) else _boolean(swapped)


def _boolean(value) -> bool:
    """A swapped flag read from a file: True/False, 1/0 or their words."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "1", "1.0"):
        return True
    if text in ("false", "0", "0.0"):
        return False
    raise ValueError(f"swapped must be true or false, got {value!r}")


def _annotator_column(annotators, n: int, default: str) -> np.ndarray:
    """Who made each of n preferences (n,), each name checked (``check_annotator``); ``default`` for
    all when ``annotators`` is None."""
    if annotators is None:
        return np.full(n, default, dtype=object)
    names = np.asarray(annotators, dtype=object)
    if names.shape != (n,):
        raise ValueError(f"one annotator per preference: {n} preferences, {names.size} names")
    checked = {name: check_annotator(name) for name in pd.unique(names)}
    return np.array([checked[name] for name in names], dtype=object)


def rows_in(made: PreferenceSet, held: PreferenceSet) -> np.ndarray:
    """Whether each preference of ``made`` (i, j, margin, weight all equal) is among ``held``, (p,)."""
    if len(held) == 0:
        return np.zeros(len(made), dtype=bool)

    def keys(preferences):
        return pd.MultiIndex.from_arrays([preferences.i, preferences.j, preferences.margin, preferences.weight])

    return keys(made).isin(keys(held))


def _held(connection, session_id: int) -> PreferenceSet:
    """Every preference the session holds, from rules, answers and imports alike (blocks, and rows),
    read in the caller's transaction."""
    blocks = connection.execute(
        sa.select(preference_blocks.c.content, preference_blocks.c.n_preferences).where(
            preference_blocks.c.session_id == session_id
        )
    ).all()
    rows = connection.execute(
        sa.select(preferences.c.i, preferences.c.j, preferences.c.margin, preferences.c.weight).where(
            preferences.c.session_id == session_id
        )
    ).all()
    held = [decode_block(block.content, block.n_preferences) for block in blocks]
    if rows:
        i, j, margin, weight = np.array(rows, dtype=np.float64).T
        held.append(PreferenceSet(i.astype(np.int64), j.astype(np.int64), margin, weight))
    return PreferenceSet.concatenate(held)


def _row(row: int) -> str:
    """A row named by its position (``import_answers``' and ``import_grades``' default ``name``)."""
    return f"row {row}"


def _checked_answers(table: pd.DataFrame, n_rows: int, name=_row) -> list[dict]:
    """The rows of an answers table as answers' values (row_a, row_b, choice, annotator, weight,
    margin, swapped), each checked as ``Store.add_answer`` checks one; ``ValueError`` naming the
    first bad line (as numbered in the file, after its header; its rows as ``name`` names them)."""
    missing = [name for name in ("row_a", "row_b", "choice", "annotator") if name not in table.columns]
    if missing:
        raise ValueError(f"an answers table needs the columns row_a, row_b, choice and annotator; {missing} missing")
    checked = []
    for line, row in enumerate(table.to_dict("records"), start=2):
        try:
            swapped = _swapped(row)
            weight, margin = _number(row, "weight", 1.0), _number(row, "margin", 0.0)
            row_a, row_b = _integer(row["row_a"]), _integer(row["row_b"])
            values = answer_values(row_a, row_b, row["choice"], row["annotator"], weight, margin, swapped)
            if row_a == row_b and check_row(row_a, n_rows, "row A") == row_a:
                raise ValueError(f"an answer compares two different rows, got {name(row_a)} twice")
            checked.append(answer_in_table(values, n_rows) | _given_at(row))
        except (ValueError, TypeError) as error:
            raise ValueError(f"line {line} of the answers: {error}") from None
    return checked


def _number(row: dict, column: str, default: float) -> float:
    """``row[column]`` (an answers file's weight or margin) as a float, or ``ValueError`` naming the column and
    the cell ('1,5' met float()'s "could not convert string to float")."""
    value = row.get(column, default)
    try:
        return float(value)
    except (TypeError, ValueError):
        comma = isinstance(value, str) and value.count(",") == 1 and value.replace(",", ".").strip().lstrip("+-")
        hint = " (use a dot for decimals)" if comma and comma.replace(".", "", 1).isdigit() else ""
        raise ValueError(f"{column} {quoted(value)} is not a number{hint}") from None


def _checked_grades(table: pd.DataFrame, n_rows: int, scale: int, graded: dict, name=_row) -> list[dict]:
    """The grades of a grades table (row, grade, annotator) the session does not hold (``graded``:
    (row, annotator) -> grade, of the session), each checked as ``Store.add_grade`` checks one;
    ``ValueError`` naming the first bad line."""
    graded, new = dict(graded), []
    for line, value in enumerate(table.to_dict("records"), start=2):
        try:
            row = check_row(_integer(value["row"]), n_rows, "the graded row")
            grade = check_grade(_integer(value["grade"]), scale)
            annotator = check_annotator(value["annotator"])
            if graded.get((row, annotator), grade) != grade:
                raise ValueError(f"{annotator!r} gave {name(row)} grade {graded[row, annotator]} already")
            given = _given_at(value)
        except (ValueError, TypeError) as error:
            raise ValueError(f"line {line} of the grades: {error}") from None
        if (row, annotator) not in graded:
            graded[row, annotator] = grade
            new.append({"row": row, "grade": grade, "annotator": annotator} | given)
    return new


EARLIEST_ANSWER_YEAR = 2000
"""An imported answer's created_at before this year is refused: the Studio (and the papers it follows) date
from after it, so an earlier time is a misread date or a placeholder such as 0001-01-01."""


def _given_at(row: dict) -> dict:
    """{'created_at': when} from an exported line's created_at (kept on import: the answer was given
    then, not when it was imported), read as UTC when it names no zone; {} without one (the import's
    time).  ``ValueError`` for a time that is not one or lies in the future."""
    value = row.get("created_at")
    if value is None or (not isinstance(value, str) and pd.isna(value)) or str(value).strip() == "":
        return {}
    try:
        when = pd.Timestamp(str(value).strip())
    except ValueError:
        raise ValueError(f"created_at {str(value)[:40]!r} is not a date and time") from None
    when = when.tz_localize("UTC") if when.tzinfo is None else when.tz_convert("UTC")
    if pd.isna(when) or when.to_pydatetime() > now():
        raise ValueError(f"created_at {str(value)[:40]!r} is not a past date and time")
    if when.year < EARLIEST_ANSWER_YEAR:
        raise ValueError(
            f"created_at {str(value)[:40]!r} is before {EARLIEST_ANSWER_YEAR}: no answer was given then (a date "
            "read wrongly, or a placeholder); give the time the answer was given, or leave it empty"
        )
    return {"created_at": when.to_pydatetime()}


def iso_utc(times: pd.Series) -> pd.Series:
    """Stored times (UTC, with or without their zone) as exports write them: ISO 8601 to the second, marked
    UTC ('2026-11-28T02:44:58Z'; '2026-11-28 02:44:58.066317' named no zone).  ``_given_at`` reads both."""
    return pd.to_datetime(times, utc=True).dt.strftime("%Y-%m-%dT%H:%M:%SZ")


class TransferStore:
    """``Store``'s exports and imports (a part of it: ``engine`` is the store's; it reads through the
    store's ``preferences``, ``answers`` and ``grades``)."""

    engine: sa.Engine

    def import_preferences(self, session_id: int, made: PreferenceSet, annotator: str, annotators=None) -> int:
        """Add preferences read from a file (source 'import'), leaving out those the session already
        holds, from a rule, an answer or an import (the same i, j, margin and weight: a session's own
        export imported beside its rules and answers counts each once); returns how many were added (0:
        the file held nothing new, and nothing was written).  annotators : who made each preference (p,),
        e.g. the ``annotator`` column of an export, kept as one block per annotator; None: ``annotator``
        (the person importing) for all."""
        annotator = check_annotator(annotator)
        if not isinstance(made, PreferenceSet):
            raise TypeError("import_preferences takes a PreferenceSet")
        names = _annotator_column(annotators, len(made), annotator)
        check_size(encode_block(made), f"the {len(made):,} imported preferences")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            made.check_indices(n_rows(connection, session_id))
            check_margins(connection, session_id, made)
            new = ~rows_in(made, _held(connection, session_id))
            made, names = made[new], names[new]
            if len(made) == 0:
                return 0
            revision = touch(connection, session_id)
            for name in pd.unique(names):
                part = made[names == name]
                owner = {"session_id": session_id, "revision": revision, "annotator": name, "created_at": now()}
                insert_block(connection, part, encode_block(part), owner, "import")
        return len(made)

    def import_answers(self, session_id: int, table: pd.DataFrame, name=None) -> int:
        """Add the answers of ``table`` (as ``export_answers`` writes: row_a, row_b, choice, annotator,
        and optionally weight (1), margin (0), swapped), each with its preferences as a click, in one
        transaction; answers the session already holds (same rows, choice, annotator, weight and
        margin) are left out.  Returns how many were added; ``ValueError`` naming the first bad line (its
        rows as ``name(row)`` names them: 'row 7' by default), nothing written."""
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            checked = _checked_answers(table, n_rows(connection, session_id), name or _row)
            held = connection.execute(
                sa.select(*(answers.c[name] for name in ANSWER_KEY)).where(answers.c.session_id == session_id)
            ).all()
            seen, new = {tuple(row) for row in held}, []
            audited = audit_links(connection, session_id, table, n_rows(connection, session_id))[0]
            for row, rule_id in zip(checked, audited, strict=True):
                key = tuple(row[name] for name in ANSWER_KEY)
                if key not in seen:
                    seen.add(key)
                    new.append(row | {"rule_id": rule_id, "imported": True})
            if new:
                insert_items(connection, ANSWERS, session_id, new, touch(connection, session_id))
        return len(new)

    def audit_links(self, session_id: int, table: pd.DataFrame) -> tuple[list[int | None], list[str]]:
        """``audits.audit_links`` of an answers ``table``: the rule each line audits and why (what an import
        of it links; the words of ``session_files``)."""
        session_id = id_number(session_id, "session")
        with self.engine.connect() as connection:
            return audit_links(connection, session_id, table, n_rows(connection, session_id))

    def import_grades(self, session_id: int, table: pd.DataFrame, name=None) -> int:
        """Add the grades of ``table`` (columns row, grade, annotator, as ``export_grades`` writes), in
        one transaction; a grade the session already holds (same row, grade and annotator) is left out.
        Returns how many were added; ``ValueError`` naming the first bad line (a row outside the table, a
        grade off the scale, a row graded twice by one annotator; rows named as ``import_answers``), nothing
        written."""
        missing = [name for name in ("row", "grade", "annotator") if name not in table.columns]
        if missing:
            raise ValueError(f"a grades table needs the columns row, grade and annotator; {missing} missing")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            n, scale = n_rows(connection, session_id), rating_scale(session_settings(connection, session_id))
            held = connection.execute(
                sa.select(grades.c.row, grades.c.annotator, grades.c.grade).where(grades.c.session_id == session_id)
            ).all()
            graded = {(row, annotator): grade for row, annotator, grade in held}
            new = _checked_grades(table, n, scale, graded, name or _row)
            if new:
                insert_items(connection, GRADES, session_id, new, touch(connection, session_id, content=False))
        return len(new)

    def export_answers(self, session_id: int, ids: IDS = None, fingerprints=None) -> str:
        """The session's answers as CSV, oldest first: row_a, row_b (A and B as shown), choice, weight,
        margin, annotator, created_at, rule_number and rule (the rule audited, by its number in the session
        as users see it, and by name; empty for other pairs) and rule_winner (``rule_winner``); the rows by id
        with ``ids``, and their
        ``fingerprints`` (n,) with them (``by_id``).
        ``import_answers`` reads it back (``session_files``: by id), linking each audit to the rule of
        its name."""
        answers = self.answers(session_id)
        named = {rule_id: rule.name for rule_id, rule in self.rules(session_id)}
        audited = answers["rule_id"].map(lambda rule_id: "" if pd.isna(rule_id) else named.get(int(rule_id), ""))
        answers.insert(answers.columns.get_loc("rule_id") + 1, "rule", audited)
        answers["rule_winner"] = rule_winner(answers)
        answers["created_at"] = iso_utc(answers["created_at"])
        numbers = self._numbered(session_id, answers["rule_id"])
        answers.insert(answers.columns.get_loc("rule_id"), "rule_number", numbers)
        frame = by_id(answers.drop(columns=["id", "swapped", "imported", "rule_id"]), "answers", ids, fingerprints)
        return frame.to_csv(index=False, float_format="%.17g")

    def export_grades(self, session_id: int, ids: IDS = None, fingerprints=None) -> str:
        """The session's grades as CSV, oldest first: row, grade, annotator, created_at (``iso_utc``); the rows by id
        with ``ids``, their ``fingerprints`` with them (``by_id``).  ``import_grades`` reads it back
        (``session_files``: by id)."""
        grades = self.grades(session_id).drop(columns="id")
        grades["created_at"] = iso_utc(grades["created_at"])
        return by_id(grades, "grades", ids, fingerprints).to_csv(index=False)

    def export_preferences(self, session_id: int, format: str = "csv", ids: IDS = None, fingerprints=None) -> str:
        """The session's preferences with their provenance, as CSV or JSON text.  The columns i, j,
        margin and weight read back with ``PreferenceSet.from_frame`` (ZERO = -1 for unary ones); with
        ``ids``, the rows' ids beside i and j, with ``fingerprints`` theirs (``by_id``; empty for ZERO).  A rule's
        by its number in the session (rule_number, as users see it)."""
        made, provenance = self.preferences(session_id)
        provenance = provenance.assign(rule_number=self._numbered(session_id, provenance["rule_id"]))
        frame = pd.concat([made.to_frame(), provenance[["source", "rule_number", "answer_id", "annotator"]]], axis=1)
        frame = by_id(frame, "preferences", ids, fingerprints)
        if format == "csv":
            return frame.to_csv(index=False, float_format="%.17g")
        if format == "json":  # Python's float repr: every weight reads back exactly (to_json keeps 10 digits)
            return json.dumps(frame.astype(object).where(frame.notna(), None).to_dict("records"), default=_json_number)
        raise ValueError(f"format must be 'csv' or 'json', got {format!r}")

    def _numbered(self, session_id: int, rule_ids: pd.Series) -> pd.Series:
        """Rule ids (NaN: none) as the rules' numbers in the session (``rule_numbers``), nullable integers."""
        return rule_ids.map(self.rule_numbers(session_id)).astype("Int64")

    def export_rules(self, session_id: int) -> str:
        """The session's rules as a JSON list of rule documents (``Rule.from_dict`` reads each), each
        with its number in the session ("rule_number", as the pages and the other exports name it), who added
        it ("annotator") and how many preferences it made ("pairs"), so that the same rule on the same data and
        split makes the same preferences again (``generate`` with ``max_pairs=pairs``, ``random_state=0``, as
        the Rules page).  An import ignores "rule_number": the session it goes to numbers its rules."""
        session_id = id_number(session_id, "session")
        made, provenance = self.preferences(session_id)
        counts = provenance["rule_id"].value_counts()
        query = sa.select(rules.c.id, rules.c.number, rules.c.spec, rules.c.annotator)
        with self.engine.connect() as connection:
            stored = connection.execute(query.where(rules.c.session_id == session_id).order_by(rules.c.id)).all()
        documents = [
            {
                "rule_number": row.number,
                **Rule.from_json(row.spec).to_dict(),
                "annotator": row.annotator,
                "pairs": int(counts.get(row.id, 0)),
            }
            for row in stored
        ]
        return json.dumps(documents, indent=2)
