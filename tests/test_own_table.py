"""The Experiments page's commands on the session's own table (new-user report 12, F14): filled in from the
session (its file, target and features, its labeled rows), quoted for a shell so that the CLI's own parser
reads back exactly the session's names; placeholders only where the session cannot say."""

import shlex

import pytest

from ordercore.cli.parser import parser
from ordercore.studio.own_table import own_table_commands


def laptops_settings(name: str = "laptops.csv") -> dict:
    return {
        "source": "upload",
        "name": name,
        "target": "price (€)",
        "features": ["brand", "ram_gb", "storage gb"],
        "labeled": list(range(30)),
        "test": list(range(30, 64)),
        "n_rows": 200,
    }


def parsed(command: str):
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "ordercore"]
    return parser().parse_args(words[3:])


def test_the_commands_name_the_sessions_table_target_and_features_as_the_cli_reads_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "my laptops; rm -rf x.csv"  # a space and a ';': one argument, never a second command
    (tmp_path / name).write_text("brand,ram_gb,storage gb,price (€)\n")
    (tmp_path / "laptops-rules.json").write_text("[]")
    table1, rules = own_table_commands(laptops_settings(name), "laptops-rules.json")
    for command in (table1, rules):
        args = parsed(command)
        assert (str(args.data), args.target) == (name, "price (€)")
        assert args.features == ["brand", "ram_gb", "storage gb"]
        # l: the session's 30 labeled rows; u: 150 of the 200 − 30 − 34 = 136 others at most: 136
        assert (args.labeled, args.unlabeled) == (30, 136)
        assert "TABLE.csv" not in command and "TARGET" not in command and "A,B,C" not in command
    assert str(parsed(rules).rules) == "laptops-rules.json"
    assert table1 == (
        "python -m ordercore experiments table1 --data 'my laptops; rm -rf x.csv' --target 'price (€)' "
        "--features 'brand,ram_gb,storage gb' --labeled 30 --unlabeled 136 --trials 20 --out table1.json"
    )


def test_placeholders_stay_only_where_the_session_cannot_say():
    table1, rules = own_table_commands(None)
    assert "--data TABLE.csv --target TARGET --features A,B,C --labeled 40 --unlabeled 150" in table1
    assert "--rules RULES.json" in rules
    sample = {"source": "sample", "name": "Sample homes (generated)", "target": "price", "features": ["age", "income"]}
    assert "--data TABLE.csv --target price --features age,income" in own_table_commands(sample)[0]
    comma = laptops_settings() | {"features": ["a,b", "c"]}  # --features splits at commas: not carried
    assert "--data laptops.csv --target 'price (€)' --features A,B,C" in own_table_commands(comma)[0]


@pytest.mark.parametrize("dataset", ["california", "boston"])
def test_a_benchmark_session_names_its_data_set(dataset):
    table1, _ = own_table_commands({"source": dataset, "target": "x", "features": ["y"], "labeled": [1, 2]})
    assert "--dataset " + dataset + " --labeled 2 --unlabeled 150" in table1 and "--target" not in table1
