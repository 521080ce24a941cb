"""A session's files: what the Studio exports, read back and imported into a session.

- **preferences**, CSV or JSON (``Store.export_preferences``, or ``PreferenceSet.to_json``'s
  document): i, j, margin, weight and, in an export, who made each (annotator, kept on import) and
  where it came from (source: rule, click or import; it arrives as an import).
- **answers**, CSV (``Store.export_answers``): each answer with its annotator, imported as answers
  (their clicks' preferences made again), so agreement, undo and edit work on them as on any.
- **rules**, JSON (``Store.export_rules``): each rule made again on the session's data and split,
  with the number of pairs it had, so the same data gives the same preferences (less the pairs the
  session holds already, from its preferences' export imported first: each pair is held once).
- **grades**, CSV (``Store.export_grades``): each grade with its annotator (``Store.import_grades``), on
  the session's rating scale.

Answers, grades and preferences carry each row's fingerprint beside it (``a_fingerprint``,
``b_fingerprint``; ``fingerprint``; ``i_fingerprint``, ``j_fingerprint``: ``fingerprints``), a digest
of its values in the table they were exported from; an import refuses a file whose rows hold other
values in the session's table (``fingerprints.refuse_another_table``, called by ``session_checks``).

Whatever is already in the session is left out (an import of what it holds adds nothing; a rule
with the conditions and ordering of one the session holds is that rule, whatever its name), and a
file is checked whole before anything is written.  Files are parsed as data: nothing is executed or
unpickled.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ordercore.data.tables import bad_byte, delimiter
from ordercore.inputs.csv_floats import read_csv, repeated_column
from ordercore.inputs.preference_cells import refuse_empty_cells
from ordercore.inputs.printable import quoted, shown
from ordercore.inputs.row_ids import as_held_ids, other_positions
from ordercore.inputs.table_width import refuse_wide_records
from ordercore.inputs.text_files import JSONLinesError, parse_json
from ordercore.knowledge.quality import check_preference_graph
from ordercore.knowledge.rules import RULE_FORMAT, Rule, generate
from ordercore.preferences import JSON_FORMAT, ZERO, PreferenceSet
from ordercore.studio.fingerprints import FINGERPRINTS, split_fingerprints
from ordercore.studio.row_names import RowNames
from ordercore.studio.session_columns import check_columns, refuse_second_header, unrecognized
from ordercore.studio.store import check_annotator
from ordercore.studio.store.transfer import ROW_COLUMNS, rows_in

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest file an import reads (the Studio's upload limit)."""

KINDS = ("preferences", "answers", "rules", "grades")


@dataclass(frozen=True)
class SessionFile:
    """A file read for import: its ``kind`` (one of ``KINDS``), its ``table`` (preferences, answers,
    grades) or its ``rules`` (each a rule document as ``Store.export_rules`` writes it); ``names``: the
    table's when the file named its rows by id (errors name them so too); ``fingerprints``: its rows'
    fingerprints, one column per row column of ``table`` (None: the file has none); ``note``: what its
    import says of it beside what it stored (positions that are not their ids' rows, "" for none)."""

    kind: str
    table: pd.DataFrame | None = None
    rules: list[dict] = field(default_factory=list)
    names: RowNames | None = None
    fingerprints: pd.DataFrame | None = None
    note: str = ""


def read_session_file(name: str, content: bytes, names: RowNames | None = None) -> SessionFile:
    """The file ``name`` with bytes ``content`` as preferences, answers, rules or grades, rows named by
    the table's identifier (``names``, as the Studio exports them) read as positions in it; a
    ``ValueError`` saying what is wrong for anything else (too large, unreadable, an id the table does
    not hold, or columns of none of these; ``TypeError`` for ``content`` that is not bytes)."""
    if not isinstance(content, bytes | bytearray | memoryview):
        raise TypeError(f"a file's content is its bytes (as uploaded, or text.encode()), got {type(content).__name__}")
    content = bytes(content)
    if len(content) > MAX_FILE_BYTES:
        raise ValueError(f"the file has {len(content) / 2**20:.0f} MB; at most {MAX_FILE_BYTES // 2**20} MB are read")
    if name.lower().endswith((".json", ".jsonl")):
        return _read_json(content, names, lines=name.lower().endswith(".jsonl"))
    if content.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):  # read as CSV, its lines made columns
        raise ValueError(
            f"{shown(name)} holds JSON, not CSV (it starts with '{{' or '['): name the file .json (one JSON value) "
            "or .jsonl (a record a line)"
        )
    identifier = None if names is None else names.identifier
    as_text = {"annotator": str} | {name: str for name in FINGERPRINTS.values()}  # '0687991417410372' as written
    if identifier:
        as_text |= {f"{identifier}{suffix}": str for suffix in ("", "_a", "_b", "_i", "_j")}
    source = io.BytesIO(content)
    try:
        # Annotators' names and ids as written: one named 007 is not the number 7.  Columns separated as
        # the header is (an export resaved by a spreadsheet may use ';').
        separator = delimiter(source)
        repeated = repeated_column(source, sep=separator)
        table = read_csv(source, sep=separator, dtype=as_text)
    except UnicodeDecodeError:
        raise ValueError(
            f"could not read the CSV: it is not UTF-8 text ({bad_byte(source, 0)}); save it as UTF-8"
        ) from None
    except pd.errors.EmptyDataError:
        raise ValueError("could not read the CSV: the file is empty (no header, no rows)") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise ValueError(f"could not read the CSV: {error}") from None
    if b"\x00" in content:  # UTF-8 takes NUL: a lone NUL line was read as a row id, quoted invisibly
        line = content.count(b"\n", 0, content.index(b"\x00")) + 1
        raise ValueError(f"could not read the CSV: line {line} holds a NUL byte (a binary file, or UTF-16 text?)")
    if repeated:
        raise ValueError(f"{repeated}: which one is meant? Nothing was imported")
    refuse_second_header(content)
    read = _positions(*split_fingerprints(table), names, "line")
    return _classified(*read, "line", list(table.columns), identifier)


def _positions(
    table: pd.DataFrame, fingerprints: pd.DataFrame | None, names: RowNames | None, unit: str
) -> tuple[pd.DataFrame, pd.DataFrame | None, RowNames | None, str]:
    """``table`` with the rows it names by id (``by_id``'s columns) as positions in the session's table
    (``names``; a ``ValueError`` for an id it does not hold, or ids of a column the table lacks), its
    ``fingerprints`` (``split_fingerprints``'), ``names`` if it named any (else None), and words on the
    positions written beside the ids that are not their rows (``other_positions``; "" when all are)."""
    converted, notes = None, []
    for kind, columns in ROW_COLUMNS.items():
        if names is None or names.identifier is None:
            break
        named = {column: names.identifier + suffix for column, suffix in columns.items()}
        if not set(named.values()) <= set(table.columns) or (kind == "grades" and "grade" not in table.columns):
            continue
        converted = _known(table[list(named.values())], names)
        written = {column: table.pop(column) for column in named if column in table.columns}
        for column, name in named.items():
            ids = table.pop(name)
            given = ids.notna() & (ids.astype(str).str.strip() != "")  # a unary preference's 0 has no id
            rows = np.full(len(table), ZERO, dtype=np.int64)
            rows[given.to_numpy()] = names.positions(ids[given])
            table.insert(0, column, rows)
            if column in written:
                notes.append(other_positions(written[column], rows, ids, name, unit))
    foreign = _foreign_identifier(table)
    if foreign is not None:
        raise ValueError(f"this file names rows by {foreign}, which this table lacks; nothing was imported")
    return table, fingerprints, converted, " ".join(note[0].upper() + note[1:] + "." for note in notes if note)


def _known(ids: pd.DataFrame, names: RowNames) -> RowNames:
    """``names``, or a ``ValueError`` naming the first of the file's ``ids`` (its id columns, blank for a
    unary preference's 0) the table does not hold, and how many it lacks."""
    held, given = set(names.labels), ids.to_numpy(dtype=object).ravel()
    given = as_held_ids([label for label in given if not pd.isna(label)], names.labels)
    given = given[given != ""]
    missing = [label for label in pd.unique(np.array(given, dtype=object)) if label not in held]
    if missing:
        raise ValueError(
            f"{names.identifier} {missing[0]} is not in this session's table of {len(names.labels):,} rows "
            f"({len(missing):,} of the file's {names.identifier}s are not)"
        )
    return names


def _foreign_identifier(table: pd.DataFrame) -> str | None:
    """The id column a file left after ``_positions`` names its rows by (``by_id``'s columns): one the
    session's table lacks; None when it names rows by position."""
    columns = {str(column) for column in table.columns}
    stems = {c[:-2] for c in columns if c.endswith("_i") and c[:-2] + "_j" in columns}
    if "row_a" not in columns:
        stems |= {c[:-2] for c in columns if c.endswith("_a") and c[:-2] + "_b" in columns}
    others = columns - {"grade", "annotator", "created_at"}
    if "row" not in columns and {"grade", "annotator"} <= columns and len(others) == 1:
        stems |= others
    return min(stems) if stems else None


def _read_json(content: bytes, names: RowNames | None, lines: bool = False) -> SessionFile:
    """The file of one JSON value (``content``), or of JSON Lines, a record a line (``lines``: .jsonl)."""
    try:
        document = _json_lines(content) if lines else parse_json(content)  # UTF-8, a BOM or not; UTF-16/32 with one
    except UnicodeDecodeError:
        where = bad_byte(io.BytesIO(content), 0)
        raise ValueError(f"could not read the JSON: it is not UTF-8 text ({where}); save it as UTF-8") from None
    except JSONLinesError as error:
        raise ValueError(f"could not read the JSON: {error}: name the file .jsonl") from None
    except (ValueError, RecursionError) as error:
        raise ValueError(f"could not read the JSON{' Lines' if lines else ''}: {error}") from None
    if isinstance(document, dict) and document.get("format") == RULE_FORMAT:  # one rule, as Rule.to_json writes it
        return SessionFile("rules", rules=[document])
    if isinstance(document, dict) and document.get("format") != JSON_FORMAT:  # was said as preferences alone
        given = "has no format" if "format" not in document else f"has the format {quoted(document['format'])}"
        raise ValueError(
            f'the JSON object {given}: one to import is a rule ("format": "{RULE_FORMAT}") or preferences '
            f'("format": "{JSON_FORMAT}"), as the Studio and PreferenceSet.to_json write them'
        )
    if isinstance(document, dict):  # PreferenceSet.to_json's document
        return SessionFile("preferences", PreferenceSet.from_json(json.dumps(document)).to_frame())
    if not isinstance(document, list) or not all(isinstance(item, dict) for item in document):
        raise ValueError("a JSON file to import is a list of rules or of preference records")
    if not document:  # said as what it is, not as a file of no known columns ("this one has []")
        raise ValueError("the file is an empty JSON list: it holds no rules or preferences to import")
    if any("format" in item for item in document):  # rules (no preference record has a format), or refused
        other = [k for k, item in enumerate(document) if item.get("format") != RULE_FORMAT]
        if other:  # was read as a grades file lacking home_id, grade
            given = document[other[0]].get("format")
            given = "has no format" if given is None else f"has the format {quoted(given)}"
            raise ValueError(
                f'record {other[0] + 1} {given}: a rule\'s is "{RULE_FORMAT}", as a rules export writes it'
            )
        return SessionFile("rules", rules=document)
    refuse_wide_records(document)
    table = pd.DataFrame.from_records(document)
    identifier = None if names is None else names.identifier
    read = _positions(*split_fingerprints(table, "record"), names, "record")
    return _classified(*read, "record", list(table.columns), identifier)


def _json_lines(content: bytes) -> list:
    """The values of JSON Lines ``content``, one a line (blank lines skipped); ``ValueError`` naming the
    first line that is no JSON value."""
    values = []
    for number, line in enumerate(content.removeprefix(b"\xef\xbb\xbf").split(b"\n"), 1):
        if line.strip():
            try:
                values.append(parse_json(line))
            except ValueError as error:
                raise ValueError(f"line {number} is no JSON value ({getattr(error, 'msg', error)})") from None
    if not values:
        raise ValueError("the file is empty (no JSON value in it)")
    return values


def _classified(
    table: pd.DataFrame,
    fingerprints: pd.DataFrame | None,
    names: RowNames | None,
    note: str,
    unit: str,
    headers: list,
    identifier,
) -> SessionFile:
    """The file of ``table`` (rows as positions, ``fingerprints`` apart) by its columns, with the ``note``
    its import says; ``headers``: the file's own, which a refusal names (``session_columns``), with
    ``identifier`` the table's id column (or None)."""
    columns = set(table.columns)
    by_id = identifier if names is not None else None
    if {"row_a", "row_b", "choice", "annotator"} <= columns:
        return SessionFile(
            "answers", check_columns(table, "answers", by_id), names=names, fingerprints=fingerprints, note=note
        )
    if {"row", "grade", "annotator"} <= columns:
        return SessionFile(
            "grades", check_columns(table, "grades", by_id), names=names, fingerprints=fingerprints, note=note
        )
    if {"i", "j"} <= columns:
        return SessionFile("preferences", _unary_read(table, unit), names=names, fingerprints=fingerprints, note=note)
    raise ValueError(unrecognized([str(h) for h in headers], identifier))


def _unary_read(table: pd.DataFrame, unit: str) -> pd.DataFrame:
    """A preference table whose empty i or j cells are the constant 0 (``ZERO``) of a unary preference,
    as a session's export writes them (-1, or an empty id) and the library reads them; ``ValueError``
    naming the {unit} of a preference that names no row or of an empty margin or weight cell."""
    refuse_empty_cells(table, unit)
    return table.assign(**{c: table[c].where(table[c].notna(), ZERO) for c in ("i", "j")})


def import_session_file(store, session_id: int, file: SessionFile, frame: pd.DataFrame, labeled, annotator: str) -> str:
    """Import ``file`` into the session (``frame`` its table, ``labeled`` its labeled-row mask (n,), for
    rules; ``annotator`` the person importing, named where the file names nobody).  Returns what
    happened in words; ``ValueError`` (nothing written) for a bad file."""
    name = None if file.names is None else file.names.name  # errors name rows as the file does
    repeated = int(file.table.duplicated().sum()) if file.table is not None else 0  # the same line twice
    if file.kind == "answers":
        added = store.import_answers(session_id, file.table, name)
        said = _said(added, len(file.table), "answer", repeated)
        said += (_answers_note(file.table) if added else "") + _unlinked_audits(store, session_id, file.table)
        return _noted(said, file.note)
    if file.kind == "grades":
        said = _said(store.import_grades(session_id, file.table, name), len(file.table), "grade", repeated)
        return _noted(said, file.note)
    if file.kind == "preferences":
        made = PreferenceSet.from_frame(file.table)
        names = None
        if "annotator" in file.table.columns:
            names = file.table["annotator"].astype(object).where(file.table["annotator"].notna(), annotator).to_numpy()
        added = store.import_preferences(session_id, made, annotator, names)
        said = _said(added, len(made), "preference") + (_graph_note([check_preference_graph(made)]) if added else "")
        return _noted(said, file.note)
    held = {rule.identity() for _, rule in store.rules(session_id)}  # the same rule under another name too
    pairs_held, made, left_out, in_file = store.preferences(session_id)[0], [], 0, set()
    for document in file.rules:  # every rule made and checked (name, annotator) before the first is stored
        rule, by = Rule.from_dict(document), check_annotator(document.get("annotator") or annotator)
        in_file.add(rule.identity())  # a rule the file repeats is said as such, not as held by the session
        if rule.identity() not in held:
            max_pairs = _pairs(document)
            generated = generate(rule, frame, labeled, max_pairs=max_pairs, random_state=0).preferences
            new = generated[~rows_in(generated, pairs_held)]  # held already (its preferences' export): once
            left_out += len(generated) - len(new)
            made.append((rule, new, by))
            held.add(rule.identity())
    for rule, generated, by in made:
        store.add_rule(session_id, rule, generated, by)
    said = _said(len(made), len(file.rules), "rule", len(file.rules) - len(in_file), "rule")
    if not left_out:
        return said
    return f"{said[:-1]}; {left_out:,} of their pairs were already in the session and were left out."


def _noted(said: str, note: str) -> str:
    """What an import ``said``, then the file's ``note`` (``SessionFile.note``) when it has one."""
    return f"{said} {note}" if note else said


def _pairs(document: dict) -> int | None:
    """A rules file's ``pairs`` (how many preferences the exported rule held: its sample's size), or None
    (every pair) when absent or 0; ``ValueError`` for anything but a whole number >= 0 (``true`` was 1)."""
    pairs = document.get("pairs")
    if pairs is None:
        return None
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 0:
        raise ValueError(
            f"rule {str(document.get('name'))[:40]!r}: pairs must be a whole number of preferences (>= 0, as an "
            f"export writes it), got {json.dumps(pairs)[:40]}; nothing was imported"
        )
    return pairs or None


EXPORT_FORMATS = {"answers": ("csv",), "grades": ("csv",), "preferences": ("csv", "json"), "rules": ("json",)}
"""The formats a session exports each kind of file in (rules as 'csv' returned JSON without a word)."""


def export_file_name(session: str, kind: str, format: str) -> str:
    """'bikes-q4-answers.csv': the file name a download of the ``session``'s ``kind`` file gets, the
    session's name first in a form safe as a file name (letters, digits, '.', '_' and '-' kept, every
    other run of characters one '_', no leading dot; 'session' when nothing is left) and, when that form
    differs from the name, 6 hexadecimal digits of its digest ('a_b-6d959c-answers.csv' for 'a/b'), so that two
    sessions' exports do not overwrite each other in Downloads (sessions 'a/b' and 'a?b' are distinct)."""
    safe = re.sub(r"[^\w.-]+", "_", session).strip("._-")[:100] or "session"
    if safe != session:
        safe += "-" + hashlib.blake2b(session.encode("utf-8", "surrogatepass"), digest_size=3).hexdigest()
    return f"{safe}-{kind}.{format}"


def export_session_file(store, session_id: int, kind: str, names: RowNames, format: str | None = None) -> str:
    """The session's ``kind`` file (one of ``KINDS``; preferences as 'csv' or 'json', rules as 'json';
    None: the kind's first), its rows named by the table's identifier where it has one, with their
    fingerprints (``names``'; ``transfer.by_id``); ``read_session_file`` reads it back."""
    format = ("json" if kind == "rules" else "csv") if format is None else format
    if not any(kind == known and format in formats for known, formats in EXPORT_FORMATS.items()):
        raise ValueError(
            f"no export of {kind!r} as {format!r}: a session exports answers and grades as 'csv', preferences as "
            "'csv' or 'json', rules as 'json'"
        )
    ids, fingerprints = None if names.identifier is None else (names.identifier, names.labels), names.fingerprints
    if kind == "preferences":
        return store.export_preferences(session_id, format, ids, fingerprints)
    if kind == "rules":
        return store.export_rules(session_id)
    return {"answers": store.export_answers, "grades": store.export_grades}[kind](session_id, ids, fingerprints)


def _unlinked_audits(store, session_id: int, table: pd.DataFrame) -> str:
    """' 2 of them were linked as audits of the session's rules. 1 was not: this session has no rule #9; it
    counts as an answer.' for the lines of an answers ``table`` that name a rule (``Store.audit_links``:
    by rule_number, rule_id, then name); '' when none does."""
    if not {"rule", "rule_number", "rule_id"} & set(table.columns):
        return ""
    links, reasons = store.audit_links(session_id, table)
    linked = sum(rule_id is not None for rule_id in links)
    words = (
        f" {linked:,} of them {'was' if linked == 1 else 'were'} linked as audits of the session's rules."
        if linked
        else ""
    )
    unlinked = pd.Series([why for rule_id, why in zip(links, reasons, strict=True) if rule_id is None and why])
    for why, count in unlinked.value_counts().items():
        words += f" {count:,} {'was' if count == 1 else 'were'} not linked as an audit ({why}): counted as answers."
    return words


GRAPH_FINDINGS = (
    ("duplicates", "pair more than once", "pairs more than once"),
    ("conflicts", "pair both ways", "pairs both ways"),
    ("cycles", "cycle", "cycles"),
)
"""What ``_graph_note`` counts of a ``GraphReport``, in the words for one and for several."""


def _graph_note(reports: list, opening: str = "The file itself states") -> str:
    """' The file itself states 2 pairs more than once, 1 pair both ways and 1 cycle: the Rules
    page's preference graph counts them.' for what ``check_preference_graph`` found (``reports``, each a
    ``GraphReport``, their counts added) among a file's own lines; '' when it found none (a file stating a
    pair both ways was imported without a word)."""
    found = []
    for attribute, one, several in GRAPH_FINDINGS:
        count = sum(len(getattr(report, attribute)) for report in reports)
        if count:
            found.append(f"{count:,} {one if count == 1 else several}")
    if not found:
        return ""
    listed = found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
    return f" {opening} {listed}: the Rules page's preference graph counts them."


def _answers_note(table: pd.DataFrame) -> str:
    """``_graph_note`` of an answers table (row_a, row_b as positions, choice, annotator): each annotator's
    'a' and 'b' answers as preferences of the row chosen over the other, every answer a source of its own, so
    that two answers of one pair with opposite choices are a pair both ways (two annotators who disagree are
    not: that is what agreement measures).  Lines repeated word for word are said by ``_said``, not here."""
    strict = table.drop_duplicates()
    strict = strict[strict["choice"].isin(["a", "b"])]
    chose_a = (strict["choice"] == "a").to_numpy()
    row_a, row_b = (strict[column].to_numpy(dtype=np.int64) for column in ("row_a", "row_b"))
    winner, loser = np.where(chose_a, row_a, row_b), np.where(chose_a, row_b, row_a)
    lines = pd.Series(np.arange(len(strict)))
    reports = [
        check_preference_graph(PreferenceSet.order(winner[own], loser[own]), sources=own)
        for own in (group.to_numpy() for _, group in lines.groupby(strict["annotator"].astype(str).to_numpy()))
    ]
    return _graph_note(reports, "The file's answers, each annotator's taken apart, state")


def import_refusal(error: Exception) -> str:
    """What the page says of an import refused with ``error`` (a ``ValueError`` or ``KeyError`` of
    ``read_session_file`` and the like): 'Nothing was imported: <reason>', said once (many reasons end in
    'nothing was imported' for the CLI, and the page said it twice)."""
    reason = str(error.args[0] if isinstance(error, KeyError) and error.args else error)  # a KeyError's str quotes
    reason = re.sub(r"[;.]?\s*nothing was imported\W*$", "", reason.strip(), flags=re.IGNORECASE)
    return f"Nothing was imported: {reason.rstrip(' ;')}"


def _said(added: int, total: int, word: str, repeated: int = 0, unit: str = "line") -> str:
    """'Imported 3 answers (2 were already in the session).' and the like; ``repeated`` of the ``total``
    lines (``unit``s) repeat another of the file (left out too, but not "already in the session": a new
    answer given twice was said to be held already)."""
    if total == 0:
        return f"Nothing was imported: the file holds no {word}s."
    already = total - added - repeated
    if added == 0 and not repeated:
        return f"Nothing was imported: the session already holds all {total:,} of these {word}s."
    notes = [f"{already:,} {'was' if already == 1 else 'were'} already in the session"] if already else []
    if repeated:
        notes.append(f"{repeated:,} {unit}{'' if repeated == 1 else 's'} repeated another {unit} of the file")
    note = f" ({'; '.join(notes)})" if notes else ""
    if added == 0:
        return f"Nothing was imported{note}."
    return f"Imported {added:,} {word}{'' if added == 1 else 's'}{note}."


@dataclass
class ImportChoice:
    """The file chosen for import on the Rules page (its ``name`` and the upload's ``key``) and whether it was
    imported.  Choosing a file only stages it: nothing is stored until Import is pressed, so a file chosen
    over one staged and not imported replaces it, and the page says so (new-user report 12, F11: the rules
    file a new user chose first was dropped without a word when the answers file was chosen next)."""

    name: str | None = None
    key: str | None = None
    imported: bool = False
    replaced: str | None = None

    def choose(self, name: str | None, key: str | None) -> str | None:
        """Note the file now chosen (``key`` None: none) and return what to say while it stays staged and not
        imported: that it replaced ``name`` of the file staged before and not imported (None: nothing to say).
        No file (``key`` None) forgets nothing staged: the uploader passes through no file when a file replaces
        another, and a run then dropped the staged one's name, so its replacement went unsaid (a file removed
        by hand cannot be told from that: its replacement is said too, which is as true)."""
        if key is None:
            return None
        if key != self.key:
            dropped = self.key is not None and not self.imported
            self.replaced = (
                f"{shown(self.name)} was chosen but not imported; it is replaced by {shown(name)}. To import both, "
                f"import {shown(name)}, then choose {shown(self.name)} again and import it."
                if dropped
                else None
            )
            self.name, self.key, self.imported = name, key, False
        return None if self.imported else self.replaced

    def done(self) -> None:
        """The staged file was imported (or refused: it was read): nothing replaced is left to say."""
        self.imported, self.replaced = True, None
