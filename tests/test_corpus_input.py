"""A bad-input corpus's command-line and file-reading findings: each bad input is refused in one line
naming what is wrong and where, and leaves nothing written."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.data.tables import Preprocessing, read_csv
from ordercore.experiments.parallel import trial_backend, workers
from ordercore.knowledge.rules import Ordering, Rule, Within

HOMES = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
RULE = Rule("more bedrooms", [Within("age", 4.0)], Ordering("bedrooms"))


@pytest.fixture
def homes(tmp_path):
    """80 sample homes, the price kept on every 4th row (20 labeled); the CSV's path."""
    frame = pd.read_csv(HOMES).head(80)
    frame.loc[frame.index % 4 != 0, "price"] = np.nan
    path = tmp_path / "homes.csv"
    frame.to_csv(path, index=False)
    return path


def refused(arguments, capsys) -> str:
    """The one line ``main(arguments)`` ends with (its own error or argparse's usage error)."""
    with pytest.raises(SystemExit) as raised:
        main([str(a) for a in arguments])
    assert raised.value.code != 0
    line = str(raised.value) if isinstance(raised.value.code, str) else capsys.readouterr().err.splitlines()[-1]
    assert "\n" not in line
    return line


def table_error(text: str, *features) -> str:
    """The message reading CSV ``text`` and preparing its ``features`` ends with."""
    with pytest.raises(ValueError) as raised:
        frame = read_csv(text.encode("latin-1"))
        Preprocessing.fit(frame, list(features))
    return str(raised.value)


def test_a_header_naming_a_column_twice_is_refused():
    message = table_error("a,bedrooms,b,bedrooms\n1,2,3,4\n5,6,7,8\n", "a")
    assert "the header names the column 'bedrooms' twice (columns 2 and 4)" in message


def test_a_trailing_comma_on_every_line_is_named():
    message = table_error("a,b,\n1,2,\n3,4,\n", "a", "b")
    assert "the header's column 3 has an empty name and no values (a trailing comma on each line?)" in message


def test_a_byte_that_is_not_utf8_is_placed_by_line_and_column():
    message = table_error("name,x\nab,1\ncd,2\nZ\xfcrich,3\n", "x")
    assert "not UTF-8 text (byte 0xfc on line 4, column 2)" in message


@pytest.mark.parametrize(
    "cells, message",
    [
        (['"1,150"', '"12,000"', "980"], "written with thousands separators (1,150 for 1150) at row(s) 0 ('1,150'), 1"),
        (["1.5%", "2%", "80.0%"], "written with percent signs (12.5%) at row(s) 0 ('1.5%'), 1 ('2%'), 2 ('80.0%')"),
    ],
)
def test_numbers_with_separators_or_percent_signs_are_named_as_such(cells, message):
    text = "x,y\n" + "".join(f"{cell},{k}\n" for k, cell in enumerate(cells * 20))
    found = table_error(text, "x")
    assert message in found and "identifier" not in found


def test_an_infinite_feature_names_its_column_and_row():
    message = table_error("age,income\n1,2\n3,1e400\n5,6\n", "age", "income")
    assert "column 'income' holds an infinite value (a number beyond float64's range, read as inf) at row 1" in message


@pytest.fixture
def rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(RULE.to_dict()))
    return path


@pytest.mark.parametrize("cell, shown", [("true", "'true'"), ("False", "'False'"), ("heavy", "'heavy'")])
def test_a_weight_cell_that_is_no_number_is_refused_naming_line_and_value(tmp_path, homes, cell, shown, capsys):
    preferences = tmp_path / "p.csv"
    preferences.write_text(f"i,j,margin,weight\n1,2,0,1\n40,41,0,{cell}\n")
    line = refused(
        ["fit", homes, "--target", "price", "--preferences", preferences, "--out", tmp_path / "m.npz"], capsys
    )
    assert f"p.csv: line 3: the weight {shown} is not a number" in line
    preferences.write_text(f"i,j,margin,weight\n40,41,0,{cell}\n")  # a column of booleans alone
    line = refused(
        ["fit", homes, "--target", "price", "--preferences", preferences, "--out", tmp_path / "m.npz"], capsys
    )
    assert f"p.csv: line 2: the weight {shown.lower()} is not a number" in line


def test_jobs_beyond_the_tasks_start_one_worker_per_task():
    assert workers(100_000, 1) == 1 and workers(3, 20) == 3 and workers(-1, 2) == -1
    with trial_backend(100_000, tasks=2) as runner:
        assert runner.n_jobs == 2
