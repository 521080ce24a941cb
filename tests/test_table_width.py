"""Every table reader refuses a header wider than ``MAX_COLUMNS`` in words, from the header line alone, before
pandas parses anything (corpus 13, R4: a header of 10^6 columns gave no answer for a quarter of an hour in
the Studio's upload and import and in the CLI's fit and check); a table at the limit is read."""

import io
import json

import pandas as pd
import pytest

from ordercore.data.tables import read_csv as read_table
from ordercore.inputs import csv_floats
from ordercore.inputs.table_width import MAX_COLUMNS, refuse_wide_header
from ordercore.preference_tables import read_preference_table
from ordercore.preferences import PreferenceSet
from ordercore.studio.session_files import read_session_file

WIDE = MAX_COLUMNS + 5
SAID = f"names? {WIDE:,} columns; a table is read with at most {MAX_COLUMNS:,} columns"


def header(names: list[str], sep: str = ",") -> str:
    return sep.join(names) + "\n"


def extra(count: int) -> list[str]:
    return [f"c{k}" for k in range(count)]


@pytest.fixture
def no_pandas_parsing(monkeypatch):
    """pd.read_csv made to fail: a refusal must come from the header line, before pandas reads it."""

    def refuse(*args, **kwargs):
        raise AssertionError("pandas was asked to parse a header wider than the limit")

    monkeypatch.setattr(pd, "read_csv", refuse)


def wide_files(tmp_path) -> dict:
    """Each reader and a file of ``WIDE`` columns it reads (i, j and the rest by name)."""
    pairs = ["i", "j", *extra(WIDE - 2)]
    tsv = tmp_path / "p.tsv"
    tsv.write_text(header(pairs, "\t") + "\t".join(["0", "1", *["0"] * (WIDE - 2)]) + "\n")
    record = dict.fromkeys(pairs, 0) | {"j": 1}
    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text(json.dumps(record) + "\n")
    listed = tmp_path / "p.json"
    listed.write_text(json.dumps([record]))
    csv_text = header(pairs) + ",".join(["0", "1", *["0"] * (WIDE - 2)]) + "\n"
    (tmp_path / "p.csv").write_text(csv_text)
    table = header(["price", *extra(WIDE - 1)]) + ",".join(["1"] * WIDE) + "\n"
    return {
        "data table (Studio upload, CLI fit)": lambda: read_table(table.encode()),
        "data table, semicolons": lambda: read_table(table.replace(",", ";").encode()),
        "csv_floats.read_csv": lambda: csv_floats.read_csv(io.StringIO(csv_text)),
        "PreferenceSet.from_csv": lambda: PreferenceSet.from_csv(csv_text),
        "PreferenceSet.from_json": lambda: PreferenceSet.from_json(json.dumps([record])),
        "check / fit --preferences, .csv": lambda: read_preference_table(tmp_path / "p.csv"),
        "check / fit --preferences, .tsv": lambda: read_preference_table(tsv),
        "check / fit --preferences, .json": lambda: read_preference_table(listed),
        "check / fit --preferences, .jsonl": lambda: read_preference_table(jsonl),
        "Studio import, .csv": lambda: read_session_file("a.csv", csv_text.encode()),
        "Studio import, .json": lambda: read_session_file("a.json", json.dumps([record]).encode()),
    }


READERS = [
    "data table (Studio upload, CLI fit)",
    "data table, semicolons",
    "csv_floats.read_csv",
    "PreferenceSet.from_csv",
    "PreferenceSet.from_json",
    "check / fit --preferences, .csv",
    "check / fit --preferences, .tsv",
    "check / fit --preferences, .json",
    "check / fit --preferences, .jsonl",
    "Studio import, .csv",
    "Studio import, .json",
]


@pytest.mark.parametrize("reader", READERS)
def test_every_table_reader_refuses_a_header_wider_than_the_limit_naming_the_count_and_the_limit(tmp_path, reader):
    with pytest.raises(ValueError, match=SAID):
        wide_files(tmp_path)[reader]()


@pytest.mark.parametrize("reader", [reader for reader in READERS if "json" not in reader])
def test_the_refusal_comes_from_the_header_line_before_pandas_parses_it(tmp_path, no_pandas_parsing, reader):
    with pytest.raises(ValueError, match=SAID):
        wide_files(tmp_path)[reader]()


def test_a_table_of_exactly_the_limits_columns_is_read():
    names = ["price", *extra(MAX_COLUMNS - 1)]
    frame = read_table((header(names) + ",".join(["1"] * MAX_COLUMNS) + "\n").encode())
    assert frame.shape == (1, MAX_COLUMNS)


def test_separators_inside_quoted_names_are_not_columns():
    quoted = [f'"a,{k}"' for k in range(MAX_COLUMNS)]  # MAX_COLUMNS columns, 2 * MAX_COLUMNS - 1 commas
    refuse_wide_header(io.StringIO(header(quoted)))
    with pytest.raises(ValueError, match=f"names {MAX_COLUMNS + 1:,} columns"):
        refuse_wide_header(io.StringIO(header([*quoted, "b"])))
