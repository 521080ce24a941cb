"""The tenth corpus's command-line and experiments cases (issue 32): a --data target empty in every row
(E11, E14, E15), an --out suffix written as another format (C14), a JSON [] (C10), '-' as an input file
(C28), rules that make no preference (E04)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
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


def test_predict_to_a_jsonl_file_writes_a_json_record_per_line(tmp_path, homes):  # noqa: F811
    """C14: --out x.jsonl got CSV text ('prediction' and a number a line)."""
    main(["fit", str(homes), "--target", "price", "--id", "home_id", "--out", str(tmp_path / "m.npz")])
    main(["predict", str(tmp_path / "m.npz"), str(homes), "--out", str(tmp_path / "p.jsonl")])
    main(["predict", str(tmp_path / "m.npz"), str(homes), "--out", str(tmp_path / "p.csv")])
    records = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert len(records) == 60 and all(set(record) == {"home_id", "prediction"} for record in records)
    assert [record["home_id"] for record in records] == [str(k) for k in range(1, 61)]  # ids are read as text
    csv = pd.read_csv(tmp_path / "p.csv")["prediction"]  # pandas 2.2 reads '%.17g' to within an ulp
    np.testing.assert_allclose([record["prediction"] for record in records], csv, rtol=1e-15)


@pytest.mark.parametrize("command", ["predict", "rules"])
def test_an_out_suffix_no_format_is_written_for_is_refused_naming_those_that_are(tmp_path, homes, command):  # noqa: F811
    """C14 (and corpus 7's X026, .tsv): any suffix but .json was written as CSV."""
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    main(["fit", str(homes), "--target", "price", "--out", str(tmp_path / "m.npz")])
    out = tmp_path / "p.xlsx"
    inputs = {"predict": ["predict", tmp_path / "m.npz", homes], "rules": ["rules", "apply", rules, homes]}[command]
    assert refusal([*inputs, "--out", out]) == (
        f"error: --out {out}: a table is written as .csv (CSV), .tsv (tab-separated), .json (a JSON list of "
        "records), .jsonl (JSON Lines, a record a line), not .xlsx: name a file ending in one"
    )
    assert not out.exists()


def test_preferences_written_as_json_lines_are_read_back(tmp_path, homes, capsys):  # noqa: F811
    """C14: rules apply's .jsonl is a preference file fit and check read, as its .csv."""
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    for suffix in ("csv", "jsonl"):
        main(["rules", "apply", str(rules), str(homes), "--out", str(tmp_path / f"p.{suffix}")])
    written = pd.read_csv(tmp_path / "p.csv")
    first = json.loads((tmp_path / "p.jsonl").read_text().splitlines()[0])
    assert first == {k: float(v) for k, v in written.iloc[0].items()}  # the CSV's first row as a record
    capsys.readouterr()
    assert main(["check", str(tmp_path / "p.jsonl")]) == 0
    assert capsys.readouterr().out.startswith(f"{tmp_path / 'p.jsonl'}: {len(written)} preferences: 0 cycles")


def test_check_on_an_empty_json_list_says_the_file_holds_no_preferences(tmp_path, capsys):
    """C10: '[]' was said to lack the columns i and j ('expected [...], found' nothing), exit 1."""
    (tmp_path / "empty.json").write_text("[]")
    assert main(["check", str(tmp_path / "empty.json")]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'empty.json'}: holds no preferences\n"


@pytest.mark.parametrize(
    "arguments",
    [["fit", "-", "--target", "price"], ["predict", "{tmp}/m.npz", "-"], ["check", "-"]],
    ids=["fit", "predict", "check"],
)
def test_a_dash_for_an_input_file_is_refused_naming_dev_stdin(tmp_path, homes, capsys, arguments):  # noqa: F811
    """C28: 'fit -' said '[Errno 2] No such file or directory: '-''."""
    main(["fit", str(homes), "--target", "price", "--out", str(tmp_path / "m.npz")])
    arguments = [a.replace("{tmp}", str(tmp_path)) for a in arguments]
    out = [] if arguments[0] == "check" else ["--out", str(tmp_path / "o.csv")]
    assert refusal([*arguments, *out]) == "2"  # argparse's exit status
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("'-' (standard input) is not read: name a file, or /dev/stdin to read the table through a pipe")
    )


def test_rules_that_make_no_preference_in_any_trial_say_so(tmp_path, homes, capsys):  # noqa: F811
    """E04: a rule no pair meets reported 'improvement 0.0%' with nothing said of its 0 preferences."""
    frame = pd.read_csv(homes)
    age, income = frame["age"].to_numpy(), frame["income"].to_numpy()
    close = (np.abs(age[:, None] - age) <= 0.5) & (np.abs(income[:, None] - income) <= 0.05)
    assert close.sum() == len(frame)  # no two homes meet the rule: each row is close to itself only
    rules = rules_file(
        tmp_path, Rule("r", [Within("age", 0.5), Within("income", 0.05)], Ordering("bedrooms")).to_dict()
    )
    arguments = ["experiments", "rules", "--data", homes, "--target", "price", "--features", "age,income,bedrooms"]
    main([*map(str, arguments), "--rules", str(rules), "--labeled", "8", "--unlabeled", "10", "--trials", "1",
          "--quick", "--out", str(tmp_path / "r.json")])  # fmt: skip
    assert capsys.readouterr().out.startswith(
        "homes: the rules made no preferences in any trial (no pair of a trial's rows meets their conditions), so "
        "SSL is SVR: SVR "
    )
