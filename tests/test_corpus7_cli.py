"""The seventh outside probing's findings on the command line (/tmp/corpus7, X cases): a value given twice
in an experiments list option is refused, predict --out x.tsv writes tab-separated text, a directory given
as an input file is said to be one, a missing pyrimidines or Treebank file is named, report and compare say
which experiment a result they cannot read is of, gp-figure3's memory limit in labels."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.knowledge.rules import Ordering, Rule, Within
from tests.test_corpus4_cli import homes, refusal, rules_file  # noqa: F401 (a fixture)
from tests.test_corpus6_cli import model, usage_error  # noqa: F401 (a fixture)


# ---------------------------------------------------------------------------------------- X112, X140
@pytest.mark.parametrize(
    "arguments, said",
    [
        (["gp-table2", "--datasets", "digits", "digits"], "argument --datasets: 'digits' is given twice"),
        (
            ["figure2", "--dataset", "boston", "--vary", "l", "--values", "5", "5"],
            "argument --values: 5 is given twice",
        ),
        (["figure2", "--dataset", "boston", "--vary", "l", "--values", "5", "5.0"], "argument --values: 5 is given"),
        (["gp-figure3", "--labels", "3", "4", "3"], "argument --labels: 3 is given twice"),
        (["gp-figure2", "--pairs", "100", "100"], "argument --pairs: 100 is given twice"),
        (["session", "--dataset", "sample", "--strategy", "random", "random"], "argument --strategy: 'random' is"),
    ],
)
def test_a_value_given_twice_in_an_experiments_list_option_is_refused(tmp_path, capsys, arguments, said):
    out = tmp_path / "r.json"
    message = usage_error(["experiments", *arguments, "--trials", "1", "--out", out], capsys)
    assert said in message and "twice" in message
    assert not out.exists()


def test_distinct_values_in_a_list_option_are_kept_in_their_order(capsys):
    from ordercore.cli.parser import parser

    args = parser().parse_args(["experiments", "gp-figure3", "--labels", "4", "3", "--out", "r.json"])
    assert args.labels == [4, 3]


# ---------------------------------------------------------------------------------------- X026
def test_predict_to_a_tsv_file_writes_tab_separated_text(tmp_path, homes):  # noqa: F811
    main(["fit", str(homes), "--target", "price", "--id", "home_id", "--out", str(tmp_path / "m.npz")])
    main(["predict", str(tmp_path / "m.npz"), str(homes), "--out", str(tmp_path / "p.tsv")])
    main(["predict", str(tmp_path / "m.npz"), str(homes), "--out", str(tmp_path / "p.csv")])
    lines = (tmp_path / "p.tsv").read_text().splitlines()
    assert lines[0] == "home_id\tprediction" and lines[1].startswith("1\t") and "," not in lines[1]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "p.tsv", sep="\t"), pd.read_csv(tmp_path / "p.csv"))


def test_rules_apply_to_a_tsv_file_writes_tab_separated_preferences(tmp_path, homes):  # noqa: F811
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    main(["rules", "apply", str(rules), str(homes), "--out", str(tmp_path / "p.tsv")])
    assert (tmp_path / "p.tsv").read_text().splitlines()[0].split("\t")[:2] == ["i", "j"]


# ---------------------------------------------------------------------------------------- X085, X100
@pytest.mark.parametrize(
    "arguments, said",
    [
        (["rules", "apply", "{dir}", "{homes}", "--out", "{tmp}/p.csv"], "{dir} is a directory, not a rules JSON file"),
        (["check", "{dir}"], "{dir} is a directory, not a preference file"),
        (["check", "{tmp}/p.csv", "{dir}"], "{dir} is a directory, not a preference file"),
        (["predict", "{tmp}/m.npz", "{dir}", "--out", "{tmp}/p.csv"], "{dir} is a directory, not a CSV table"),
        (["fit", "{dir}", "--target", "price", "--out", "{tmp}/m.npz"], "{dir} is a directory, not a CSV table"),
        (
            ["fit", "{homes}", "--target", "price", "--rules", "{dir}", "--out", "{tmp}/m.npz"],
            "{dir} is a directory, not a rules JSON file",
        ),
        (
            ["fit", "{homes}", "--target", "price", "--preferences", "{dir}", "--out", "{tmp}/m.npz"],
            "{dir} is a directory, not a preference file",
        ),
    ],
)
def test_a_directory_given_as_an_input_file_is_said_to_be_one(tmp_path, homes, arguments, said):  # noqa: F811
    (tmp_path / "folder").mkdir()
    main(["fit", str(homes), "--target", "price", "--out", str(tmp_path / "m.npz")])
    (tmp_path / "p.csv").write_text("i,j\n1,2\n")
    names = {"dir": tmp_path / "folder", "homes": homes, "tmp": tmp_path}
    message = refusal([a.format(**names) for a in arguments])
    assert message == "error: " + said.format(**names)


# ---------------------------------------------------------------------------------------- X122, X138
@pytest.mark.parametrize(
    "arguments, file, name",
    [
        (["gp-table1", "--dataset", "pyrimidines", "--quick"], "pyrim.csv", "pyrimidines"),
        (["gp-table1", "--dataset", "triazines", "--quick"], "triazines.csv", "triazines"),
        (["npsvor-figure4", "--dataset", "treebank", "--quick"], "treebank/Treebank.train", "treebank"),
        (["npsvor", "--dataset", "treebank"], "treebank/Treebank.train", "treebank"),
        (["gp-figure2", "--quick"], "treebank/Treebank.train", "treebank"),
    ],
)
def test_a_data_folder_without_the_data_sets_file_names_the_file_and_the_set(
    tmp_path, monkeypatch, arguments, file, name
):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ORDERCORE_DATA", str(empty))
    message = refusal(["experiments", *arguments, "--trials", "1", "--out", tmp_path / "r.json"])
    assert message == f"error: ORDERCORE_DATA={empty} holds no {file} (the {name} data set)"


# ---------------------------------------------------------------------------------------- X135, X136
@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("kind", ["mpmr-coverage", "gp-table2", "session", "gp-table1", "npsvor"])
def test_report_and_compare_name_the_experiment_of_a_result_they_do_not_read(tmp_path, command, kind):
    result = tmp_path / f"{kind}.json"
    result.write_text(json.dumps({"experiment": kind, "protocol": {}, "summary": {}, "trials": []}))
    message = refusal(["experiments", command, result])
    assert f"{result} is a result of 'experiments {kind}', which {command} does not read" in message
    assert "table1" in message and "names none" not in message


# ---------------------------------------------------------------------------------------- X117
def test_gp_figure3_with_too_many_labels_for_memory_names_the_value_and_the_most_that_fit(tmp_path):
    message = refusal(
        ["experiments", "gp-figure3", "--labels", "3", "1000", "--trials", "1", "--out", tmp_path / "r.json"]
    )
    assert message.startswith("error: --labels 1000: the exact GP over 50 rows times 1000 labels would need about ")
    assert "give at most " in message and "method=" not in message and "memory_limit" not in message
    most = int(message.split("give at most ")[1].split()[0])
    assert 10 <= most < 1000  # the seed's 2-10 labels fit
    assert not (tmp_path / "r.json").exists()


# ---------------------------------------------------------------------------------------- X007
def test_predict_names_the_column_and_row_of_a_value_too_large_for_the_kernel(tmp_path, homes, model):  # noqa: F811
    table = pd.read_csv(homes)
    table["floor_area"] = table["floor_area"].astype(float)
    table.loc[4, "floor_area"] = 1e300
    table.to_csv(tmp_path / "huge.csv", index=False)
    message = refusal(["predict", model, tmp_path / "huge.csv", "--out", tmp_path / "p.csv"])
    assert message.startswith("error: feature column 'floor_area' holds 1e+300 on line 6 (row 4 counted from 0")
    assert "StandardScaler" not in message


# ---------------------------------------------------------------------------------------- X005
def test_predict_refuses_true_false_in_a_column_fitted_on_numbers(tmp_path, homes, model):  # noqa: F811
    """X005: a model fitted on bedrooms 1 … 7 read True/False as 1/0 and predicted without a word."""
    table = pd.read_csv(homes)
    low, high = table["bedrooms"].min(), table["bedrooms"].max()
    table["bedrooms"] = table["bedrooms"] > 3
    table.to_csv(tmp_path / "flags.csv", index=False)
    message = refusal(["predict", model, tmp_path / "flags.csv", "--out", tmp_path / "p.csv"])
    assert message.startswith(
        f"error: feature column 'bedrooms' held numbers ({low} … {high}) when the model was fitted; this table "
        "holds True/False"
    )
    assert not (tmp_path / "p.csv").exists()


def test_predict_with_a_model_file_written_before_kinds_were_recorded_still_refuses_true_false(
    tmp_path,
    homes,  # noqa: F811
    model,  # noqa: F811
):
    """A file without the columns' kinds (the tester's own, written before): a column whose mean lies outside
    0 … 1 held numbers, never True/False."""
    from tests.test_model_files import rewrite

    def forget_kinds(document):
        del document["preprocessing"]["kinds"], document["preprocessing"]["ranges"]

    rewrite(model, change_document=forget_kinds)
    main(["predict", str(model), str(homes), "--out", str(tmp_path / "p.csv")])  # its own kind of table: read
    table = pd.read_csv(homes).assign(bedrooms=lambda t: t["bedrooms"] > 3)
    table.to_csv(tmp_path / "flags.csv", index=False)
    message = refusal(["predict", model, tmp_path / "flags.csv", "--out", tmp_path / "q.csv"])
    assert message.startswith("error: feature column 'bedrooms' held numbers (their mean ")
    assert "this table holds True/False" in message and not (tmp_path / "q.csv").exists()


# ---------------------------------------------------------------------------------------- huge --trials, --clicks
TRIALS_SAID = (
    "is more than 10,000, the most trials a run takes (a larger study: several runs, each with its own --seed)"
)


@pytest.mark.parametrize(
    "arguments, said",
    [
        (["table1", "--dataset", "boston", "--trials", "1000000000000"], f"--trials: 1000000000000 {TRIALS_SAID}"),
        (["figure2", "--dataset", "boston", "--vary", "l", "--trials", "10001"], f"--trials: 10001 {TRIALS_SAID}"),
        (["sentiment", "--trials", str(10**20)], f"--trials: {10**20} {TRIALS_SAID}"),
        (["mpmr-sinc", "--trials", "10001"], f"--trials: 10001 {TRIALS_SAID}"),
        (["npsvor", "--trials", "10001"], f"--trials: 10001 {TRIALS_SAID}"),
        (["gp-table2", "--trials", "10001"], f"--trials: 10001 {TRIALS_SAID}"),
        (
            ["session", "--dataset", "sample", "--clicks", "1000000000000"],
            "--clicks: 1000000000000 is more than 10,000, the most answers a simulated session gives in a trial",
        ),
        (["table1", "--dataset", "boston", "--trials", "1e20"], "--trials: '1e20' is not a whole number"),
    ],
)
def test_more_trials_or_clicks_than_a_run_takes_are_refused_naming_the_option(tmp_path, capsys, arguments, said):
    """--trials 1000000000000 was taken and ran until killed (a bound each command documents, 10,000)."""
    from ordercore.cli.parser import parser

    with pytest.raises(SystemExit) as raised:  # parsed alone: a count taken would start the run
        parser().parse_args(["experiments", *arguments, "--out", str(tmp_path / "r.json")])
    assert raised.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(f"error: argument {said}")
    assert not (tmp_path / "r.json").exists()


def test_the_most_trials_and_clicks_are_taken():
    from ordercore.cli.parser import parser

    args = parser().parse_args(["experiments", "table1", "--dataset", "boston", "--trials", "10000", "--out", "r.json"])
    assert args.trials == 10_000
    args = parser().parse_args(
        ["experiments", "session", "--dataset", "sample", "--clicks", "10000", "--out", "r.json"]
    )
    assert args.clicks == 10_000
