"""Preference files as tables for the command line (``fit --preferences``, ``check``): their rows named by
position, by id, or both, read as text, to be matched against a table (or against each other) before they
become a ``PreferenceSet``; the formats ``rules apply`` writes."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd

from ordercore.inputs.csv_floats import read_csv, repeated_column
from ordercore.inputs.preference_cells import refuse_empty_cells, refuse_text_numbers
from ordercore.inputs.printable import quoted
from ordercore.inputs.table_formats import TABLE_FORMATS, TableFormat, ending
from ordercore.inputs.table_width import refuse_wide_records
from ordercore.inputs.text_files import read_utf8
from ordercore.preferences import (
    AS_TEXT,
    COLUMNS,
    parse_preference_json,
    preference_document,
    refuse_unknown_columns,
    require_pairs,
)


def read_preference_table(path) -> pd.DataFrame:
    """A preference file as a table whose i and j are text, for rows named by position or by id, or whose
    rows are named by ids alone (``<id>_i``, ``<id>_j`` without i, j, as the Studio reads them):
    CSV with columns i, j[, margin, weight, ...] (the Studio's export) or the same tab-separated (.tsv),
    ``PreferenceSet.to_json``'s document, a JSON list of records (the Studio's JSON export; [] holds none)
    or JSON Lines, a record a line (.jsonl): the format the ending of its name names (``TABLE_FORMATS``, as
    ``rules apply`` writes them), CSV for any other.  ``ValueError`` if unreadable."""
    path, text = Path(path), read_utf8(path)
    format_ = TABLE_FORMATS.get(ending(path), TABLE_FORMATS[".csv"])  # any other ending: CSV, as ever
    if format_.separator is None:
        lines = [line for line in text.splitlines() if line.strip()]
        document = [parse_preference_json(line) for line in lines] if format_.lines else parse_preference_json(text)
        if document == []:
            frame = pd.DataFrame({name: [] for name in COLUMNS[:2]}, dtype=object)
        elif isinstance(document, list) and all(isinstance(record, dict) for record in document):
            refuse_wide_records(document)
            frame = pd.DataFrame.from_records(document)
        else:
            document = preference_document(document)
            frame = pd.DataFrame({name: document[name] for name in COLUMNS}, dtype=object)
    else:
        frame = _delimited(text, format_)
    cells = frame
    stem = next((str(c)[:-2] for c in frame.columns if str(c).endswith("_i") and f"{str(c)[:-2]}_j" in frame), None)
    if stem is not None and not {"i", "j"} & set(frame.columns):  # rows named by their ids alone
        cells = frame.assign(i=frame[f"{stem}_i"], j=frame[f"{stem}_j"])
    require_pairs(cells.columns)
    refuse_unknown_columns(frame.columns)
    refuse_text_numbers(frame, format_.unit)
    refuse_empty_cells(cells, format_.unit)
    return frame


def _delimited(text: str, format_: TableFormat) -> pd.DataFrame:
    """A preference CSV or tab-separated file's ``text`` as a table, i and j as text; ``ValueError`` if
    unreadable or if its header is one column with another separator in it."""
    options, name = {"sep": format_.separator}, "CSV" if format_.separator == "," else f"{format_.what} file"
    try:
        frame = read_csv(io.StringIO(text), dtype={"i": str, "j": str} | AS_TEXT, **options)
    except pd.errors.EmptyDataError:
        raise ValueError("the file is empty (no header, no rows)") from None
    except pd.errors.ParserError as error:
        raise ValueError(f"not a readable preference {name}: {error}") from None
    repeated = repeated_column(io.StringIO(text), **options)
    if repeated:
        raise ValueError(f"{repeated}: which one is meant?")
    unnamed = [k for k, c in enumerate(frame.columns, 1) if str(c).startswith("Unnamed: ")]  # pandas' names
    if unnamed:
        raise ValueError(f"the header's column {unnamed[0]} has no name: name it, or remove it")
    marks = [mark for mark in ",;\t|" if mark != format_.separator and mark in str(frame.columns[0])]
    if len(frame.columns) == 1 and marks:
        tab = " (or, tab-separated, name the file .tsv)" if "\t" in marks else ""
        raise ValueError(
            f"the {name}'s header {quoted(str(frame.columns[0]))} is one column: separate the columns with "
            f"{'commas' if format_.separator == ',' else 'tabs'}{tab}"
        )
    return frame
