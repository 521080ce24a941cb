"""User text that a refusal quotes is cut to ``SHOWN_CELL`` characters with its length said, wherever the
table readers and the CLI quote it (corpus 13, C23: a name of 10,000 characters was echoed whole)."""

import argparse
import io
import json

import pandas as pd
import pytest

from ordercore.cli.arguments import non_negative
from ordercore.data.tables import prepare
from ordercore.inputs.csv_floats import repeated_column
from ordercore.inputs.printable import SHOWN_CELL
from ordercore.preferences import PreferenceSet

LONG = "t" * 10_000


def refusal(make) -> str:
    with pytest.raises((ValueError, TypeError, argparse.ArgumentTypeError)) as refused:
        make()
    return str(refused.value)


CASES = {
    "a target the table lacks": lambda: prepare(pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]}), LONG),
    "a target of text": lambda: prepare(pd.DataFrame({"a": [1.0, 2.0], "y": [LONG, "x"]}), "y"),
    "a number argument": lambda: non_negative(LONG),
    "a preference JSON version": lambda: PreferenceSet.from_json(
        json.dumps({"format": "ordercore.preferences", "version": LONG, "i": [], "j": [], "margin": [], "weight": []})
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_refusal_quotes_a_long_text_short_with_its_length(case):
    said = refusal(CASES[case])
    assert "10,000 characters" in said and "t" * (SHOWN_CELL + 1) not in said


def test_a_repeated_long_column_name_is_quoted_short():
    said = repeated_column(io.StringIO(f"{LONG},{LONG}\n1,2\n"))
    assert "10,000 characters" in said and "t" * (SHOWN_CELL + 1) not in said


def test_a_long_list_of_columns_is_cut_to_its_first_twenty():
    frame = pd.DataFrame({f"c{k}": [1.0, 2.0] for k in range(50)})
    said = refusal(lambda: prepare(frame, "cost"))
    assert "'c19'" in said and "'c20'" not in said and "and 30 more" in said
