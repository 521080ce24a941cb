"""The columns of a session's files (``session_files``): those each export writes, an imported answers
or grades file's unknown columns refused (a misspelt ``weight`` was read as its default, 1), and a file
of no known kind said in its own headers: the columns it lacks for the kind it is nearest, a header
that differs from one only in case or spaces, a header repeated inside the file (two pasted together)."""

from __future__ import annotations

import pandas as pd

from ordercore.inputs.printable import quoted

KNOWN = {
    "answers": (
        "row_a",
        "row_b",
        "choice",
        "weight",
        "margin",
        "annotator",
        "created_at",
        "rule_number",
        "rule",
        "number",
        "rule_winner",
    ),  # fmt: skip
    "grades": ("row", "grade", "annotator", "created_at"),
}
"""The columns ``Store.export_answers`` and ``Store.export_grades`` write (rows by position)."""

OLDER = {"answers": ("swapped", "rule_id"), "grades": ()}
"""Columns older exports wrote that an import still reads (``rule_winner`` was ``swapped``; ``rule_number``, the
rule's number in the session, was ``rule_id``, its store id; an audit is linked by the rule's name either way)."""

NEEDED = {
    "answers": (("_a", "row_a"), ("_b", "row_b"), (None, "choice"), (None, "annotator")),
    "grades": (("", "row"), (None, "grade"), (None, "annotator")),
    "preferences": (("_i", "i"), ("_j", "j")),
}
"""Per kind, the columns a file of it needs: (suffix of the id column by id or None, name by position)."""


def _named(column: str, identifier: str | None) -> str:
    """``column`` (a row position's, such as row_a) as a file by ``identifier`` names it (home_id_a)."""
    for suffix, name in NEEDED["answers"] + NEEDED["grades"] + NEEDED["preferences"]:
        if name == column and suffix is not None and identifier is not None:
            return identifier + suffix
    return column


def check_columns(table: pd.DataFrame, kind: str, identifier: str | None) -> pd.DataFrame:
    """``table`` (an answers or grades file, rows as positions), or ``ValueError`` naming its columns no
    export of ``kind`` writes and the ones it does (as the file names rows: by ``identifier`` or None)."""
    unknown = [str(c) for c in table.columns if c not in KNOWN[kind] + OLDER[kind]]
    if unknown:
        known = ", ".join(_named(c, identifier) for c in KNOWN[kind])
        older = f" (older files: {', '.join(OLDER[kind])})" if OLDER[kind] else ""
        raise ValueError(
            f"the {kind} file has the unknown column(s) {', '.join(map(quoted, unknown))}; an export of {kind} has "
            f"the columns {known}{older}; nothing was imported"
        )
    return table


def _lacking(headers: list[str], kind: str, identifier: str | None) -> list[str]:
    """The columns a file of ``kind`` needs that ``headers`` lack, by id or by position (the fewer)."""
    ways = [[name for _, name in NEEDED[kind]]]
    if identifier is not None:
        ways.insert(0, [name if suffix is None else identifier + suffix for suffix, name in NEEDED[kind]])
    return min(([c for c in way if c not in headers] for way in ways), key=len)


def unrecognized(headers: list[str], identifier: str | None) -> str:
    """Why a file with the columns ``headers`` is of no kind the Studio imports: the columns it lacks
    for the kind it is nearest (those it holds part of), each header that differs from one of them only
    in case or spaces, and its own headers."""
    kinds = "preferences have columns i and j, answers row_a, row_b, choice and annotator, grades row, grade and "
    kinds += "annotator (ids: NAME_i, NAME_a, NAME for rows named by NAME), rules are a JSON list"
    own = f"this file's columns are {', '.join(map(quoted, headers[:12]))}{' …' if len(headers) > 12 else ''}"
    own += " (a table of rows and their values is chosen on the Data page, not imported)"
    nearest = [(len(lacking), kind, lacking) for kind in NEEDED if (lacking := _lacking(headers, kind, identifier))]
    nearest = [found for found in nearest if found[0] < len(NEEDED[found[1]])]  # holds one of its columns
    if not nearest:
        return f"not a file the Studio exports: {kinds}; {own}"
    _, kind, lacking = min(nearest, key=lambda found: found[0])
    near = [f"{quoted(h)} differs from {quoted(c)} only in case or spaces" for c in lacking for h in headers
            if h != c and h.strip().casefold() == c.casefold()]  # fmt: skip
    hint = f" ({'; '.join(near)})" if near else ""
    return f"not a file the Studio exports: as {kind} it lacks the column(s) {', '.join(lacking)}{hint}; {own}"


def refuse_second_header(content: bytes) -> None:
    """``ValueError`` naming the line of a CSV file (``content``) that repeats its header line: a second
    file pasted in after the first, whose header would be read as a row."""
    lines = content.decode("utf-8-sig", errors="replace").splitlines()
    header = lines[0].strip() if lines else ""
    for number, line in enumerate(lines[1:], start=2):
        if header and line.lstrip("\ufeff").strip() == header:
            raise ValueError(f"line {number} repeats the header line (a second file pasted in?); nothing was imported")
