"""The eleventh corpus's command-line and experiments cases (issue 32): --out named only by its ending or
ending in a dot (C01, C03), a .tsv that ``rules apply`` wrote and ``fit`` and ``check`` could not read (C08,
C11), an experiment's JSON written under any ending (E07), and gp-table1 on an abalone.csv without its columns
or with fewer rows than a trial samples (E02, E04, E05)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.knowledge.rules import Ordering, Rule, Within
from tests.test_corpus4_cli import homes, refusal, rules_file  # noqa: F401 (a fixture)

ENDINGS = (".csv", ".tsv", ".json", ".jsonl")
"""Every ending the CLI's tables are written in, as its help and README list them."""

ABALONE = ["Gender", "Length", "Diameter", "Height", "Whole weight", "Shucked weight", "Viscera weight"]
ABALONE += ["Shell weight", "Rings"]
"""abalone.csv's header, as /work/shared/data's file and the UCI description have it."""


@pytest.fixture
def model(tmp_path, homes):  # noqa: F811
    """A model fitted on the homes' 20 labels; its file."""
    main(["fit", str(homes), "--target", "price", "--id", "home_id", "--out", str(tmp_path / "m.npz")])
    return tmp_path / "m.npz"


@pytest.mark.parametrize("name", [".jsonl", ".json", ".tsv"])
def test_predict_to_a_file_named_only_by_an_ending_writes_the_format_it_names(tmp_path, homes, model, name):  # noqa: F811
    """C01: --out o/.jsonl (Path('.jsonl').suffix is '') got CSV text, exit 0."""
    main(["predict", str(model), str(homes), "--out", str(tmp_path / "p.csv")])
    main(["predict", str(model), str(homes), "--out", str(tmp_path / name)])
    text = (tmp_path / name).read_text()
    if name == ".tsv":
        written = pd.read_csv(tmp_path / name, sep="\t")
    else:
        written = pd.DataFrame(
            json.loads(text) if name == ".json" else [json.loads(line) for line in text.splitlines()]
        )
    expected = pd.read_csv(tmp_path / "p.csv")
    assert list(written.columns) == ["home_id", "prediction"] and len(written) == 60
    np.testing.assert_allclose(written["prediction"], expected["prediction"], rtol=1e-15)


@pytest.mark.parametrize("command", ["predict", "rules"])
def test_an_out_name_ending_in_a_dot_is_refused_naming_the_formats(tmp_path, homes, model, command):  # noqa: F811
    """C03: --out o/x.json. (a trailing dot: no suffix to Path) got CSV text, exit 0."""
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    inputs = {"predict": ["predict", model, homes], "rules": ["rules", "apply", rules, homes]}[command]
    out = tmp_path / "x.json."
    assert refusal([*inputs, "--out", out]) == (
        f"error: --out {out}: the name ends in a dot, which names no format: a table is written as .csv (CSV), "
        ".tsv (tab-separated), .json (a JSON list of records), .jsonl (JSON Lines, a record a line)"
    )
    assert not out.exists()


@pytest.mark.parametrize("ending", ENDINGS)
def test_every_format_rules_apply_writes_is_read_back_by_fit_and_check(tmp_path, homes, capsys, ending):  # noqa: F811
    """C08, C11: rules apply --out p.tsv wrote tab-separated preferences that fit --preferences and check refused
    ('the CSV's header 'i\\tj\\tmargin\\tweight' is one column').  The CSV is the reference: the same preferences,
    the same model."""
    rules = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    for name in {"p.csv", f"p{ending}"}:
        main(["rules", "apply", str(rules), str(homes), "--id", "home_id", "--out", str(tmp_path / name)])
    reference = pd.read_csv(tmp_path / "p.csv")
    assert len(reference) > 10
    capsys.readouterr()
    assert main(["check", str(tmp_path / f"p{ending}")]) == 0
    assert capsys.readouterr().out.startswith(f"{tmp_path / f'p{ending}'}: {len(reference)} preferences: 0 cycles")
    for name in {"p.csv", f"p{ending}"}:
        model = tmp_path / f"{name}.npz"
        main(["fit", str(homes), "--target", "price", "--id", "home_id", "--preferences", str(tmp_path / name),
              "--out", str(model)])  # fmt: skip
        main(["predict", str(model), str(homes), "--out", str(tmp_path / f"{name}.predicted.csv")])
    np.testing.assert_array_equal(
        pd.read_csv(tmp_path / f"p{ending}.predicted.csv")["prediction"],
        pd.read_csv(tmp_path / "p.csv.predicted.csv")["prediction"],
    )


@pytest.mark.parametrize(
    "name, text, said",
    [
        ("p.tsv", "i,j\n0,1\n", "the tab-separated file's header 'i,j' is one column: separate the columns with tabs"),
        (
            "p.csv",
            "i\tj\n0\t1\n",
            "the CSV's header 'i\\tj' is one column: separate the columns with commas (or, tab-separated, name the "
            "file .tsv)",
        ),
    ],
    ids=["commas in a .tsv", "tabs in a .csv"],
)
def test_a_preference_file_separated_otherwise_than_its_ending_says_is_named_so(tmp_path, name, text, said):
    """C08's other side: a file whose separator is not its ending's is refused naming both."""
    (tmp_path / name).write_text(text)
    assert refusal(["check", tmp_path / name]) == f"error: {tmp_path / name}: {said}"


@pytest.mark.parametrize("out", ["e07.csv", "e07.jsonl", "e07.json.", "e07.JSONL"])
@pytest.mark.parametrize(
    "experiment", [["gp-table1", "--dataset", "abalone-500", "--quick"], ["table1", "--dataset", "abalone"]]
)
def test_an_experiment_out_not_ending_in_json_is_refused_before_the_run(tmp_path, monkeypatch, capsys, experiment, out):
    """E07: gp-table1 --out o/e07.csv wrote JSON into the .csv, exit 0.  ORDERCORE_DATA holds no abalone.csv: a
    .json --out gets as far as reading it; the others are refused before it."""
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    arguments = ["experiments", *experiment, "--trials", "1", "--out"]
    assert refusal([*arguments, tmp_path / "e07.json"]) == (
        f"error: ORDERCORE_DATA={tmp_path} holds no abalone.csv (the abalone data set)"
    )
    assert refusal([*arguments, tmp_path / out]) == "2"  # argparse's exit status
    ending = out[out.rindex(".") :].lower()
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith(
            f"argument --out: '{tmp_path / out}' ends in '{ending}': an experiment writes its results as JSON; name a "
            "file ending in .json"
        )
    )
    assert not (tmp_path / out).exists()


def abalone_csv(directory, rows: int, columns: list[str]):
    """An abalone.csv of ``rows`` random rows with ``columns`` in ``directory`` (ORDERCORE_DATA's)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform(0.1, 1.0, size=(rows, len(columns))), columns=columns)
    if "Gender" in columns:
        frame["Gender"] = rng.choice(["M", "F", "I"], rows)
    frame["Rings"] = rng.integers(1, 30, rows)
    frame.to_csv(directory / "abalone.csv", index=False)
    return directory / "abalone.csv"


@pytest.mark.parametrize(
    "columns, wrong",
    [
        (ABALONE[1:], "it lacks the column(s) ['Gender']"),
        ([*ABALONE[:3], *ABALONE[4:]], "it lacks the column(s) ['Height']"),
        ([*ABALONE, "Age"], "it holds the column(s) ['Age']"),
        ([*ABALONE[1:], "Sex"], "it lacks the column(s) ['Gender'] and it holds the column(s) ['Sex']"),
    ],
    ids=["no Gender", "no Height", "an extra column", "Sex for Gender"],
)
@pytest.mark.parametrize("dataset", ["abalone", "abalone-500"])
def test_gp_table1_on_an_abalone_file_with_other_columns_names_the_file_and_the_columns(
    tmp_path, monkeypatch, dataset, columns, wrong
):
    """E02: an abalone.csv without its Gender column ran, its results called 'Abalone, all 4,177 rows'."""
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    path = abalone_csv(tmp_path, 600, columns)
    out = tmp_path / "out" / "e02.json"
    assert refusal(["experiments", "gp-table1", "--dataset", dataset, "--quick", "--trials", "1", "--out", out]) == (
        f"error: {path} is not the abalone data set: {wrong}; the abalone data set's columns are {ABALONE}"
    )
    assert not out.exists()


@pytest.mark.parametrize("rows", [2, 300, 499])
def test_gp_table1_abalone_500_on_a_file_of_fewer_rows_says_how_many_it_holds(tmp_path, monkeypatch, rows):
    """E04, E05: numpy's 'Cannot take a larger sample than population when replace is False'."""
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    path = abalone_csv(tmp_path, rows, ABALONE)
    out = tmp_path / "e04.json"
    assert refusal(
        ["experiments", "gp-table1", "--dataset", "abalone-500", "--quick", "--trials", "1", "--out", out]
    ) == (f"error: abalone-500 samples 500 rows per trial, but {path} holds {rows}: give the whole abalone data set")
    assert not out.exists()
