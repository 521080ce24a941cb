"""The tenth corpus's command-line and experiments cases (issue 32): a --data target empty in every row
(E11, E14, E15)."""

from __future__ import annotations

import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within
from tests.test_corpus4_cli import homes, refusal, rules_file  # noqa: F401 (a fixture)


@pytest.fixture
def unlabeled(homes):  # noqa: F811
    """The sample homes with every price cell empty; the CSV's path."""
    frame = pd.read_csv(homes)
    frame["price"] = float("nan")
    path = homes.with_name("unlabeled.csv")
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "experiment",
    [
        ["table1", "--labeled", "10", "--unlabeled", "20", "--quick"],
        ["session", "--labeled", "10", "--clicks", "5", "--strategy", "random"],
        ["rules", "--labeled", "10", "--unlabeled", "20", "--quick", "--features", "age,bedrooms", "--rules"],
    ],
    ids=["table1", "session", "rules"],
)
def test_an_experiment_on_a_table_without_any_target_value_says_the_column_is_empty(tmp_path, unlabeled, experiment):
    """E11, E14, E15: an IndexError traceback from the message's formatting of the (absent) one value."""
    if experiment[-1] == "--rules":
        experiment = [*experiment, tmp_path / "rules.json"]
        rules_file(tmp_path, Rule("r", [Within("age", 5.0)], Ordering("bedrooms")).to_dict())
    out = tmp_path / "out.json"
    arguments = ["experiments", experiment[0], "--data", unlabeled, "--target", "price", "--trials", "1"]
    assert refusal([*arguments, *experiment[1:], "--out", out]) == (
        "error: the target column 'price' is empty: label at least one row"
    )
    assert not out.exists()
