"""A bad-input corpus's command-line and file-reading findings: each bad input is refused in one line
naming what is wrong and where, and leaves nothing written."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.data.tables import Preprocessing, read_csv
from ordercore.experiments.parallel import trial_backend, workers
from ordercore.experiments.protocol import TrialResult, summarize
from ordercore.knowledge.rules import Ordering, Rule, Within
from tests.conftest import labeled_homes_csv

HOMES = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
RULE = Rule("more bedrooms", [Within("age", 4.0)], Ordering("bedrooms"))


@pytest.fixture
def homes(tmp_path):
    """80 sample homes, the price kept on every 4th row (20 labeled); the CSV's path."""
    return labeled_homes_csv(tmp_path, 80, 4)


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
    """pandas 3 reads 1e400 as inf, pandas 2 (the lowest we claim) leaves it text: either way the message
    names the column, the row and what is in it."""
    message = table_error("age,income\n1,2\n3,1e400\n5,6\n", "age", "income")
    infinite = "column 'income' holds an infinite value (a number beyond float64's range, read as inf) at row 1"
    assert infinite in message or "column 'income' holds numbers except at row(s) 1 ('1e400')" in message


def test_fit_refuses_a_feature_named_twice(tmp_path, homes, capsys):
    line = refused(
        ["fit", homes, "--target", "price", "--features", "age,income,age", "--out", tmp_path / "m.npz"], capsys
    )
    assert "argument --features: column(s) ['age'] named more than once" in line
    assert not (tmp_path / "m.npz").exists()


def test_the_library_refuses_a_feature_named_twice():
    frame = pd.DataFrame({"age": [1.0, 2.0], "town": ["a", "b"]})
    with pytest.raises(ValueError, match=r"feature column\(s\) \['age'\] are named more than once"):
        Preprocessing.fit(frame, ["age", "town", "age"])


def test_an_out_that_is_an_input_is_refused_and_left_as_it_was(tmp_path, homes, rules_file, capsys):
    before = homes.read_bytes()
    model = tmp_path / "m.npz"
    for arguments, given in [
        (["fit", homes, "--target", "price", "--out", tmp_path / "." / "homes.csv"], homes),
        (["fit", homes, "--target", "price", "--rules", rules_file, "--out", rules_file], rules_file),
        (["rules", "apply", rules_file, homes, "--out", homes], homes),
        (["experiments", "rules", "--data", homes, "--target", "price", "--labeled", "5", "--unlabeled", "5",
          "--rules", rules_file, "--out", rules_file], rules_file),  # (results are .json: a .csv out is refused)
    ]:  # fmt: skip
        assert f"is the input file {given}" in refused(arguments, capsys)
    main(["fit", str(homes), "--target", "price", "--out", str(model)])
    model_bytes = model.read_bytes()
    line = refused(["predict", model, homes, "--out", homes], capsys)
    assert f"--out {homes} is the input file {homes}" in line
    assert refused(["predict", model, homes, "--out", model], capsys).endswith(
        f"the input file {model}: writing it would destroy it; name another"
    )
    assert homes.read_bytes() == before and model.read_bytes() == model_bytes


def test_status_lines_go_to_standard_error_and_out_dash_is_standard_output(tmp_path, homes, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    main(["fit", str(homes), "--target", "price", "--out", "m.npz"])
    assert capsys.readouterr().out == ""
    main(["predict", "m.npz", str(homes), "--out", "-"])
    printed = capsys.readouterr()
    assert pd.read_csv(pd.io.common.StringIO(printed.out)).shape == (80, 1)
    assert printed.err == "predicted 80 rows; wrote standard output\n"
    assert "--out '-': this command writes a file, not standard output" in refused(
        ["fit", homes, "--target", "price", "--out", "-"], capsys
    )
    assert not (tmp_path / "-").exists()


@pytest.fixture
def rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(RULE.to_dict()))
    return path


def test_a_rule_reading_the_target_is_refused_by_fit_and_rules_apply(tmp_path, homes, capsys):
    leaking = tmp_path / "leak.json"
    leaking.write_text(json.dumps(Rule("r", [Within("age", 4.0)], Ordering("price")).to_dict()))
    expected = "rule 'r' reads the target column 'price': its preferences would leak labels"
    assert expected in refused(
        ["fit", homes, "--target", "price", "--rules", leaking, "--out", tmp_path / "m.npz"], capsys
    )
    assert expected in refused(
        ["rules", "apply", leaking, homes, "--target", "price", "--out", tmp_path / "p.csv"], capsys
    )
    assert not (tmp_path / "m.npz").exists() and not (tmp_path / "p.csv").exists()


def test_a_rule_given_twice_is_refused_naming_the_one_it_repeats(tmp_path, homes, rules_file, capsys):
    renamed = tmp_path / "twice.json"
    renamed.write_text(json.dumps([RULE.to_dict(), {**RULE.to_dict(), "name": "again"}]))
    expected = "rule 2 'more bedrooms' is the same as rule 1 'more bedrooms' (the same conditions and ordering)"
    out = tmp_path / "m.npz"
    assert expected in refused(
        ["fit", homes, "--target", "price", "--rules", rules_file, rules_file, "--out", out], capsys
    )
    expected = expected.replace("rule 2 'more bedrooms'", "rule 2 'again'")
    assert expected in refused(["rules", "apply", renamed, homes, "--out", tmp_path / "p.csv"], capsys)
    experiment = ["experiments", "rules", "--data", homes, "--target", "price", "--labeled", "5", "--unlabeled", "5"]
    assert expected in refused([*experiment, "--rules", renamed, "--out", tmp_path / "r.json"], capsys)
    assert not out.exists() and not (tmp_path / "p.csv").exists() and not (tmp_path / "r.json").exists()


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


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["fit", "d.csv", "--target", "y", "--gamma", "nan", "--out", "m.npz"], "--gamma: 'nan' is not a finite"),
        (["fit", "d.csv", "--target", "y", "--lambda1", "inf", "--out", "m.npz"], "--lambda1: 'inf' is not a finite"),
        (["experiments", "table1", "--dataset", "boston", "--lambda2", "nan", "--out", "r.json"], "'nan' is not a fin"),
        (["experiments", "table1", "--dataset", "boston", "--preferences", "0", "--out", "r.json"],
         "--preferences: '0' must be at least 1"),
    ],
)  # fmt: skip
def test_numbers_that_are_not_finite_or_meaningless_are_named(tmp_path, arguments, message, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert message in refused(arguments, capsys)


def test_a_gamma_that_overflows_the_kernel_is_refused(tmp_path, homes, capsys):
    line = refused(["fit", homes, "--target", "price", "--gamma", "1e308", "--out", tmp_path / "m.npz"], capsys)
    assert "--gamma 1e+308 is too large: gamma times the squared distance between rows" in line
    assert not (tmp_path / "m.npz").exists() and capsys.readouterr().err == ""


def test_trials_without_preferences_summarize_without_a_warning(recwarn):
    """figure2's point p = 0, or rules that make no pair: no preference accuracy, and no 'Mean of empty slice'."""
    numbers = dict.fromkeys(["gamma", "lambda1", "ssl_gamma", "ssl_lambda1", "lambda2", "tune_seconds"], 1.0)
    numbers.update(svr_seconds=1.0, ssl_seconds=1.0, preference_weight=np.nan, svr_violated=0, ssl_violated=0)
    results = [
        TrialResult(
            trial=k, seed=k, svr_mae=2.0 + k, ssl_mae=2.0 + k, n_preferences=0, preference_accuracy=np.nan, **numbers
        )
        for k in range(2)
    ]
    summary = summarize(results)
    assert np.isnan(summary["preference_accuracy_mean"]) and summary["svr_mae_mean"] == 2.5
    assert [str(w.message) for w in recwarn] == []


def test_a_studio_preferences_export_is_read_by_its_ids_not_its_positions(tmp_path):
    """A second corpus' SW1: the Studio exports home_id_i, i, home_id_j, j (i, j its own positions);
    with --id home_id the ids name the rows, here in a table whose order differs from the session's."""
    from ordercore.cli.tabular import Table, read_preferences

    table_path = tmp_path / "homes.csv"
    pd.DataFrame({"home_id": [30, 10, 20, 40], "x": [1.0, 2.0, 3.0, 4.0], "price": [1, 2, 3, 4]}).to_csv(
        table_path, index=False
    )
    export = tmp_path / "preferences.csv"
    # In the session's table home 10 was row 0, home 20 row 1, home 30 row 2; the last is unary (j empty).
    export.write_text("home_id_i,i,home_id_j,j,margin,weight\n20,1,10,0,0.5,1\n30,2,,-1,0,2\n")
    made = read_preferences(export, Table.read(table_path, "price", id_column="home_id"))
    assert made.i.tolist() == [2, 0] and made.j.tolist()[0] == 1 and made.margin.tolist() == [0.5, 0.0]
    with pytest.raises(
        ValueError, match="names its rows by 'home_id' \\(columns home_id_i, home_id_j\\): give --id home_id"
    ):
        read_preferences(export, Table.read(table_path, "price"))


@pytest.mark.parametrize(
    "content, said",
    [
        (b"", "could not read the CSV: the file is empty (no header, no rows)"),
        (b"a,b,y\n1,2,3\n4,5,6,7\n", "could not read the CSV: line 3 has 4 fields where the header has 3 (a stray"),
    ],
)
def test_an_empty_file_and_a_ragged_line_are_said_in_words(content, said):
    """A second corpus' UC2 and UC3: pandas' 'No columns to parse from file' and 'Error tokenizing data. C
    error: Expected 3 fields in line 3, saw 4'."""
    import io

    with pytest.raises(ValueError, match=f"^{re.escape(said)}"):
        read_csv(io.BytesIO(content))


def test_ids_with_leading_zeros_stay_as_written(tmp_path, capsys):
    """A second corpus' SW5: ids 00001 … were read as numbers (predictions named 1, 2, …; a preference
    naming 00041 refused as not an id; 00001 and 1 called a repeat)."""
    table = pd.DataFrame({"home_id": [f"{k:05d}" for k in range(1, 41)], "x": np.arange(40.0)})
    table["price"] = 3 * table["x"]
    path = tmp_path / "zeros.csv"
    table.to_csv(path, index=False)
    (tmp_path / "p.csv").write_text("i,j\n00040,00001\n")
    model = tmp_path / "m.npz"
    arguments = ["fit", str(path), "--target", "price", "--id", "home_id", "--out", str(model)]
    assert main([*arguments, "--preferences", str(tmp_path / "p.csv")]) == 0
    assert main(["predict", str(model), str(path), "--out", str(tmp_path / "out.csv")]) == 0
    written = pd.read_csv(tmp_path / "out.csv", dtype={"home_id": str})
    assert written["home_id"].tolist() == table["home_id"].tolist()
    (tmp_path / "both.csv").write_text("home_id,x,price\n00001,1,3\n1,2,6\n")
    assert main(["fit", str(tmp_path / "both.csv"), "--target", "price", "--id", "home_id", "--out", str(model)]) == 0


def test_an_id_named_as_a_predicted_column_and_a_preference_file_given_twice_are_refused(homes, tmp_path, capsys):
    """A second corpus' SW7 (an id column 'prediction' lost in predict's output) and SW8 (one file given
    twice, its preferences doubled); preferences repeated by another source are said."""
    path, frame = homes, pd.read_csv(homes)
    renamed = tmp_path / "renamed.csv"
    frame.rename(columns={"home_id": "prediction"}).to_csv(renamed, index=False)
    out = str(tmp_path / "m.npz")
    said = refused(["fit", str(renamed), "--target", "price", "--id", "prediction", "--out", out], capsys)
    assert "--id 'prediction': predict writes a column of that name" in said
    prefs = tmp_path / "p.csv"
    prefs.write_text(f"i,j\n{frame['home_id'].iloc[1]},{frame['home_id'].iloc[0]}\n")
    base = ["fit", str(path), "--target", "price", "--id", "home_id", "--out", out]
    assert "names " + str(prefs) + " twice" in refused([*base, "--preferences", str(prefs), str(prefs)], capsys)
    copy = tmp_path / "q.csv"
    copy.write_text(prefs.read_text())
    assert main([*base, "--preferences", str(prefs), str(copy)]) == 0
    assert "and 2 preferences (1 of them given again by another file or rule: each counts)" in capsys.readouterr().err


def test_numbers_with_decimal_commas_are_named_as_such():
    """A second corpus' SW6 and UC1: an Excel export ('54,0', '4,5', separated by ';') made age a category
    silently, or was called 'an identifier?'."""
    import io

    rows = "".join(f"{k};{40 + k % 9},{k % 10};{k % 5},5;{100 + k}\n" for k in range(60))
    content = ("\ufeffhome_id;age;income;price\n" + rows).encode()
    with pytest.raises(ValueError, match=r"column 'age' holds numbers written with decimal commas \(54,5 for 54\.5\)"):
        Preprocessing.fit(read_csv(io.BytesIO(content)), ["age", "income"])


def test_check_finds_a_cycle_that_runs_across_files(tmp_path, capsys):
    """A second corpus' SW9: 1 > 2 and 2 > 3 in one file, 3 > 1 in another (fit reads them together)."""
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("i,j\n1,2\n2,3\n")
    second.write_text("i,j\n3,1\n")
    assert main(["check", str(first), str(second)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("a.csv: 2 preferences: 0 cycles, 0 conflicts, 0 duplicates")
    assert lines[2:] == [
        "the 2 files together: 3 preferences: 1 cycle, 0 conflicts, 0 duplicates",
        "  cycle: 1 > 2 > 3",
    ]
    assert main(["check", str(first)]) == 0


def test_a_column_without_a_name_over_values_is_refused():
    """A second corpus' SW10: a saved row index (an empty header cell over 0, 1, 2 …) became a feature
    'Unnamed: 0'."""
    import io

    with pytest.raises(ValueError, match="^the header.s column 1 has no name \\(a row index saved with the table"):
        read_csv(io.BytesIO(b",x,price\n0,1.5,3\n1,2.5,4\n2,3.5,5\n"))
