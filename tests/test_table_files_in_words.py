"""The CLI's table files said in words, not in pathlib's or the JSON encoder's and decoder's (corpus 13, R10:
TF06, TF08, TF09, C28): a name that is no path, an infinite number or a date written to JSON, and JSON Lines
in a file named .json."""

import json

import numpy as np
import pandas as pd
import pytest

from ordercore.inputs.table_formats import TABLE_FORMATS, table_format
from ordercore.preference_tables import read_preference_table
from ordercore.studio.session_files import read_session_file


def test_a_table_name_that_is_no_path_is_refused_naming_what_was_given():
    with pytest.raises(TypeError, match=r"a table's file name is a path \(str or pathlib.Path\), got NoneType"):
        table_format(None)


@pytest.mark.parametrize("ending", [".json", ".jsonl"])
def test_an_infinite_number_written_to_json_is_refused_naming_its_row_and_column(tmp_path, ending):
    frame = pd.DataFrame({"home_id": ["a", "b"], "prediction": [1.5, -np.inf]})
    path = tmp_path / f"out{ending}"
    with pytest.raises(ValueError, match=r"row 2's 'prediction' is -inf: JSON holds no infinity; write the table as"):
        TABLE_FORMATS[ending].write(frame, path)
    assert not path.exists()  # refused before anything is written


@pytest.mark.parametrize("ending", [".json", ".jsonl"])
def test_a_date_is_written_to_json_as_iso_8601_text(tmp_path, ending):
    frame = pd.DataFrame({"sold": [pd.Timestamp("2020-01-02 03:04:05"), pd.NaT], "price": [np.int64(7), 8]})
    path = tmp_path / f"out{ending}"
    TABLE_FORMATS[ending].write(frame, path)
    text = path.read_text()
    records = [json.loads(line) for line in text.splitlines()] if ending == ".jsonl" else json.loads(text)
    assert records == [{"sold": "2020-01-02T03:04:05", "price": 7}, {"sold": None, "price": 8}]


def test_a_value_json_does_not_hold_is_refused_naming_its_row_column_and_kind(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", {1, 2}]})
    with pytest.raises(ValueError, match=r"row 2's 'b' holds a set, which JSON does not hold"):
        TABLE_FORMATS[".json"].write(frame, tmp_path / "out.json")


def test_json_lines_in_a_file_named_json_is_said_as_such_with_the_name_to_give_it(tmp_path):
    path = tmp_path / "prefs.json"
    path.write_text('{"i": 0, "j": 1}\n{"i": 2, "j": 3}\n')
    with pytest.raises(ValueError, match=r"JSON Lines \(a JSON value on each line\).*name the file \.jsonl"):
        read_preference_table(path)
    with pytest.raises(ValueError, match=r"could not read the JSON: it holds JSON Lines"):
        read_session_file("prefs.json", path.read_bytes())


def test_json_with_two_values_that_are_not_one_a_line_keeps_the_decoders_place(tmp_path):
    path = tmp_path / "prefs.json"
    path.write_text('{"i": 0, "j": 1} {"i": 2,\n "j": 3}\n')
    with pytest.raises(ValueError, match="Extra data") as refused:
        read_preference_table(path)
    assert "JSON Lines" not in str(refused.value)
