"""The command line on one's own table: fit, predict, rules apply, check, and its errors."""

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ordercore import GPPreferenceModel, OrderPreferenceRegressor, PreferenceSet
from ordercore.cli.main import main
from ordercore.data.tables import prepare
from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from tests.conftest import labeled_homes_csv

HOMES = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
FEATURES = ["latitude", "longitude", "neighbourhood", "age", "income", "bedrooms", "rooms", "floor_area"]
RULE = Rule("more bedrooms", [Within("age", 4.0), Within("income", 15.0)], Ordering("bedrooms"))


@pytest.fixture
def homes(tmp_path):
    """300 sample homes, the price kept on every 10th row only (30 labeled); the CSV's path."""
    return labeled_homes_csv(tmp_path, 300, 10)


@pytest.fixture
def rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps([RULE.to_dict()]))
    return path


def predictions(path) -> pd.Series:
    frame = pd.read_csv(path)
    return frame.set_index("home_id")["prediction"]


def test_fit_then_predict_matches_the_library_and_keeps_the_training_scaling(tmp_path, homes, rules_file, capsys):
    model, out = tmp_path / "model.npz", tmp_path / "predictions.csv"
    main(["fit", str(homes), "--target", "price", "--id", "home_id", "--rules", str(rules_file), "--out", str(model)])
    # New rows: a shuffled subset, whose own means and spreads differ from the training table's.
    frame = pd.read_csv(homes)
    subset = frame.sample(40, random_state=1).drop(columns="price")
    subset.to_csv(tmp_path / "new.csv", index=False)
    main(["predict", str(model), str(tmp_path / "new.csv"), "--out", str(out)])
    assert "wrote" in capsys.readouterr().err

    # The same fit by hand: the seeds' preprocessing of the whole table, the rule's pairs (at least one
    # unlabeled row, seed 0), and the estimator's defaults.
    prepared = prepare(frame, "price", FEATURES)
    preferences = generate(RULE, frame, frame["price"].notna().to_numpy(), random_state=0).preferences
    expected = OrderPreferenceRegressor().fit(prepared.X, prepared.y, preferences).predict(prepared.X)
    written = pd.read_csv(out)
    assert list(written.columns) == ["home_id", "prediction"]
    assert written["home_id"].tolist() == subset["home_id"].tolist()  # one row per input row, in order
    np.testing.assert_allclose(written["prediction"], expected[subset.index], rtol=1e-9)


def test_preference_files_by_position_by_id_csv_and_json_fit_the_same_model(tmp_path, homes):
    frame = pd.read_csv(homes)
    rng = np.random.default_rng(0)
    i, j = rng.choice(len(frame), size=(2, 25), replace=False)
    preferences = PreferenceSet.order(i, j, rng.uniform(0, 5e4, 25), rng.uniform(0.5, 2, 25))
    ids = frame["home_id"].to_numpy()
    files = {
        "positions.csv": preferences.to_frame(),
        "ids.csv": preferences.to_frame().assign(i=ids[i], j=ids[j]),
    }
    for name, table in files.items():
        table.to_csv(tmp_path / name, index=False)
    preferences.to_json(tmp_path / "document.json")
    (tmp_path / "records.json").write_text(files["ids.csv"].to_json(orient="records"))  # the Studio's export
    outputs = {}
    for name in ["positions.csv", "ids.csv", "document.json", "records.json"]:
        by_id = ["--id", "home_id"] if name in ("ids.csv", "records.json") else []
        model = tmp_path / f"{name}.npz"
        main(
            ["fit", str(homes), "--target", "price", "--preferences", str(tmp_path / name), *by_id, "--out", str(model)]
        )
        main(["predict", str(model), str(homes), "--out", str(tmp_path / f"{name}.out.csv")])
        outputs[name] = pd.read_csv(tmp_path / f"{name}.out.csv")["prediction"].to_numpy()
    prepared = prepare(frame, "price", ["home_id", *FEATURES])
    expected = OrderPreferenceRegressor().fit(prepared.X, prepared.y, preferences).predict(prepared.X)
    np.testing.assert_allclose(outputs["positions.csv"], expected, rtol=1e-9)  # no --id: home_id is a feature
    np.testing.assert_allclose(outputs["document.json"], expected, rtol=1e-9)
    np.testing.assert_allclose(outputs["ids.csv"], outputs["records.json"], rtol=1e-9)  # JSON keeps 10 digits
    assert not np.allclose(outputs["ids.csv"], expected)  # without home_id among the features


def test_the_gp_learns_the_labels_order_and_the_preferences(tmp_path, homes):
    frame = pd.read_csv(homes)
    preferences = PreferenceSet.order([1, 2, 5], [4, 3, 6])
    ids = frame["home_id"].to_numpy()
    preferences.to_frame().assign(i=ids[preferences.i], j=ids[preferences.j]).to_csv(
        tmp_path / "clicks.csv", index=False
    )
    model, out = tmp_path / "gp.npz", tmp_path / "gp.csv"
    arguments = ["fit", str(homes), "--target", "price", "--id", "home_id", "--model", "gp"]
    main([*arguments, "--preferences", str(tmp_path / "clicks.csv"), "--out", str(model)])
    main(["predict", str(model), str(homes), "--out", str(out)])
    written = pd.read_csv(out)
    assert list(written.columns) == ["home_id", "prediction", "std"] and len(written) == len(frame)
    # By hand: the labeled homes from dearest to cheapest, each preferred to the next (no ties here).
    labeled = frame.loc[frame["price"].notna()].sort_values("price", ascending=False).index.to_numpy()
    assert frame["price"][labeled].is_unique
    chain = PreferenceSet.order(labeled[:-1], labeled[1:])
    X = prepare(frame, "price", FEATURES).X
    mean, std = GPPreferenceModel(random_state=0).fit(X, preferences + chain).predict(X, return_std=True)
    np.testing.assert_allclose(written["prediction"], mean, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(written["std"], std, rtol=1e-9)
    assert np.all(std > 0)


def test_rules_apply_writes_every_pair_a_brute_force_finds(tmp_path, rules_file):
    frame = pd.read_csv(HOMES).head(60)
    frame.to_csv(tmp_path / "small.csv", index=False)
    out = tmp_path / "preferences.csv"
    main(["rules", "apply", str(rules_file), str(tmp_path / "small.csv"), "--id", "home_id", "--out", str(out)])
    written = pd.read_csv(out)
    found = set(zip(written["i"], written["j"], strict=True))
    expected = set()
    for a, b in itertools.permutations(frame.itertuples(), 2):
        if abs(a.age - b.age) <= 4 and abs(a.income - b.income) <= 15 and a.bedrooms > b.bedrooms:
            expected.add((a.home_id, b.home_id))
    assert found == expected and len(found) > 20
    assert (written["margin"] == 0).all() and (written["weight"] == 1).all()


def test_check_finds_cycles_conflicts_and_duplicates_by_name(tmp_path, capsys):
    clean = tmp_path / "clean.csv"
    # By position: 0 > 1 > 2, and two unary preferences (-1 is the constant 0, not a row): no cycle.
    pd.DataFrame({"i": [0, 1, 2, -1], "j": [1, 2, -1, 0]}).to_csv(clean, index=False)
    assert main(["check", str(clean)]) == 0
    assert "4 preferences: 0 cycles, 0 conflicts, 0 duplicates" in capsys.readouterr().out
    # A pair stated both ways with d = 0 is an equality from one source, a conflict between two.
    sourced = tmp_path / "sourced.csv"
    pd.DataFrame({"i": ["a", "b", "c", "d"], "j": ["b", "a", "d", "c"], "source": ["r1", "r1", "r1", "click"]}).to_csv(
        sourced, index=False
    )
    assert main(["check", str(sourced)]) == 1
    said = capsys.readouterr().out
    assert "conflict: c and d preferred both ways" in said
    # the equality is said, not a problem (a tester's 0 over 1 and 1 over 0 were checked without a word)
    assert "1 pair stated both ways at margin 0, read as about equal" in said and "about equal: a and b" in said
    messy = tmp_path / "messy.csv"
    pd.DataFrame(
        {
            "i": ["a", "b", "c", "d", "e", "f", "f", "x"],
            "j": ["b", "c", "a", "e", "d", "g", "g", ""],  # a > b > c > a; d, e both ways; f > g twice; x unary
            "margin": [0, 0, 0, 1, 1, 0, 0, 0],
        }
    ).to_csv(messy, index=False)
    assert main(["check", str(messy)]) == 1
    report = capsys.readouterr().out
    assert "8 preferences: 1 cycle, 1 conflict, 1 pair stated 2 times (1 extra line)" in report
    assert (
        "cycle: a > b > c" in report
        and "conflict: d and e" in report
        and "duplicate: f over g stated 2 times" in report
    )


def test_check_counts_the_lines_a_duplicate_repeats(tmp_path, capsys):
    """C04: 100,000 identical lines were "1 duplicate" (pairs stated more than once, not the lines they take).
    By hand: a over b 100,000 times is 99,999 extra lines; with c over d 3 times, 2 pairs and 100,001."""
    same = tmp_path / "same.csv"
    same.write_text("i,j\n" + "a,b\n" * 100_000)
    assert main(["check", str(same)]) == 1
    said = capsys.readouterr().out
    assert "100000 preferences: 0 cycles, 0 conflicts, 1 pair stated 100,000 times (99,999 extra lines)" in said
    assert "duplicate: a over b stated 100,000 times" in said
    two = tmp_path / "two.csv"
    two.write_text("i,j\n" + "a,b\n" * 100_000 + "c,d\n" * 3 + "e,f\n")
    assert main(["check", str(two)]) == 1
    said = capsys.readouterr().out
    assert "0 conflicts, 2 pairs stated more than once (100,001 extra lines)" in said
    assert "duplicate: c over d stated 3 times" in said


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["fit", "{homes}", "--target", "cost", "--out", "{tmp}/m.npz"], "no column(s) ['cost']"),
        (["fit", "{homes}", "--target", "price", "--features", "age,size", "--out", "{tmp}/m.npz"], "['size']"),
        (["fit", "{homes}", "--target", "price", "--out", "{tmp}"], "is a directory"),
        (["fit", "{homes}", "--target", "price", "--out", "{homes}/m.npz"], "cannot write"),
        (["fit", "{homes}", "--target", "price", "--id", "neighbourhood", "--out", "{tmp}/m.npz"], "repeats"),
        (["fit", "{tmp}/absent.csv", "--target", "price", "--out", "{tmp}/m.npz"], "absent.csv"),
        (["fit", "{homes}", "--target", "price", "--model", "gp", "--lambda2", "1", "--out", "{tmp}/m.npz"], "LP only"),
        (["predict", "{tmp}/broken.npz", "{homes}", "--out", "{tmp}/p.csv"], "broken.npz"),
        (["experiments", "table1", "--data", "{homes}", "--target", "price", "--out", "{tmp}/r.json"], "--labeled"),
        (["experiments", "table1", "--dataset", "boston", "--backend", "dask", "--out", "{tmp}/r.json"], "--scheduler"),
    ],
)
def test_bad_arguments_end_with_one_line_and_status_1(tmp_path, homes, arguments, message, capsys):
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04 not really a zip")
    arguments = [a.format(homes=homes, tmp=tmp_path) for a in arguments]
    with pytest.raises(SystemExit) as raised:
        main(arguments)
    assert raised.value.code != 0 and str(raised.value).startswith("error: ")
    assert message in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "arguments",
    [
        ["experiments", "table1", "--dataset", "boston", "--jobs", "0", "--out", "r.json"],
        ["experiments", "table1", "--dataset", "boston", "--trials", "-2", "--out", "r.json"],
        ["experiments", "table1", "--dataset", "boston", "--preferences", "-5", "--out", "r.json"],
        ["experiments", "table1", "--dataset", "boston", "--lambda2", "nan", "--out", "r.json"],
        ["rules", "apply", "r.json", "d.csv", "--max-pairs", "-1", "--out", "p.csv"],
        ["fit", "d.csv", "--target", "y", "--gamma", "0", "--out", "m.npz"],
    ],
)
def test_negative_counts_and_jobs_are_usage_errors(arguments, capsys):
    with pytest.raises(SystemExit) as raised:
        main(arguments)
    assert raised.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("python -m ordercore")


def test_an_unwritable_out_stops_an_experiment_before_it_starts(tmp_path, monkeypatch):
    monkeypatch.setattr(
        "ordercore.cli.experiment_commands.run_experiment", lambda *a, **k: pytest.fail("the run started")
    )
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit, match="cannot write"):
        main(["experiments", "table1", "--dataset", "boston", "--out", str(tmp_path / "file" / "r.json")])


def test_a_corrupted_model_file_is_one_line_and_status_1_from_the_shell(tmp_path, homes):
    model = tmp_path / "model.npz"
    main(["fit", str(homes), "--target", "price", "--out", str(model)])
    model.write_bytes(model.read_bytes()[: model.stat().st_size // 2])
    command = [sys.executable, "-m", "ordercore", "predict", str(model), str(homes), "--out", str(tmp_path / "p.csv")]
    finished = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 1
    assert finished.stderr.count("\n") == 1 and finished.stderr.startswith("error: ") and str(model) in finished.stderr
    assert not (tmp_path / "p.csv").exists()


def test_table1_on_any_table_runs_the_seeds_protocol(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=X[:, 0] - 2 * X[:, 1] ** 2)
    frame.loc[[3, 7], "y"] = np.nan  # dropped: the protocol needs every row's target
    frame.to_csv(tmp_path / "table.csv", index=False)
    out = tmp_path / "r.json"
    arguments = ["experiments", "table1", "--data", str(tmp_path / "table.csv"), "--target", "y", "--labeled", "10"]
    main([*arguments, "--unlabeled", "50", "--preferences", "80", "--trials", "2", "--quick", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["dataset"] == "table" and len(result["trials"]) == 2
    assert result["protocol"]["n_labeled"] == 10 and result["protocol"]["n_unlabeled"] == 50
    assert all(trial["n_preferences"] == 80 for trial in result["trials"])
    assert "2 rows without 'y' are left out" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="leaves no test rows"):
        main([*arguments, "--unlabeled", "108", "--out", str(out)])


@pytest.fixture
def bad_files(tmp_path, homes):
    """Files the CLI must refuse in one line: labels past float64's room, JSON nested too deeply, a
    rules file that is not JSON, a result file of the wrong shape, a rule with a 201-character name."""
    frame = pd.read_csv(homes)
    frame["price"] = np.where(frame["price"].notna(), np.sign(frame["price"] - frame["price"].median()) * 1e305, np.nan)
    frame.to_csv(tmp_path / "wide.csv", index=False)
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "words.json").write_text("rules: more bedrooms")
    (tmp_path / "result.json").write_text(json.dumps({"experiment": "table1", "protocol": {}, "summary": [1]}))
    (tmp_path / "long.json").write_text(json.dumps({**RULE.to_dict(), "name": "n" * 201}))
    return tmp_path


SWEEP = ["experiments", "figure2", "--data", "{homes}", "--target", "price", "--labeled", "10", "--unlabeled", "10"]
SWEEP += ["--trials", "1", "--out", "{tmp}/r.json", "--vary"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["fit", "{tmp}/wide.csv", "--target", "price", "--out", "{tmp}/m.npz"], "labels reach 1e+305"),
        (["fit", "{homes}", "--target", "price", "--rules", "{tmp}/deep.json", "--out", "{tmp}/m.npz"], "too deeply"),
        (["fit", "{homes}", "--target", "price", "--rules", "{tmp}/words.json", "--out", "{tmp}/m.npz"], "not a JSON"),
        (["fit", "{homes}", "--target", "price", "--preferences", "{tmp}/deep.json", "--out", "{tmp}/m.npz"], "JSON"),
        (["rules", "apply", "{tmp}/long.json", "{homes}", "--out", "{tmp}/p.csv"], "at most 200 characters"),
        (["check", "{tmp}/deep.json"], "not valid preference JSON"),
        (["experiments", "report", "{tmp}/deep.json"], "nested too deeply"),
        (["experiments", "report", "{tmp}/result.json"], "'summary' must be an object"),
        (["experiments", "compare", "{tmp}/result.json"], "'summary' must be an object"),
        ([*SWEEP, "p", "--values", "1.5"], "n_preferences must be a whole number >= 0, got 1.5"),  # was run as 1
        ([*SWEEP, "p", "--values", "-5"], "n_preferences must be a whole number >= 0, got -5"),
        ([*SWEEP, "l", "--values", "1"], "n_labeled must be a whole number >= 2, got 1"),
        ([*SWEEP, "beta", "--values", "nan"], "beta must be finite and >= 0, got nan"),
    ],
)
def test_bad_files_end_with_one_line_and_nothing_written(bad_files, homes, arguments, message):
    arguments = [a.format(homes=homes, tmp=bad_files) for a in arguments]
    with pytest.raises(SystemExit) as raised:
        main(arguments)
    assert str(raised.value).startswith("error: ") and message in str(raised.value) and "\n" not in str(raised.value)
    assert not (bad_files / "m.npz").exists() and not (bad_files / "p.csv").exists()


def test_labels_near_1e300_fit_from_the_command_line(tmp_path, homes):
    """The same table with the price times 1e295 (prices near 1e300): predictions times 1e295 (they were
    all empty: NaN)."""
    frame = pd.read_csv(homes)
    frame["price"] *= 1e295
    frame.to_csv(tmp_path / "huge.csv", index=False)
    for name in ("homes", "huge"):
        table = homes if name == "homes" else tmp_path / "huge.csv"
        main(["fit", str(table), "--target", "price", "--id", "home_id", "--out", str(tmp_path / f"{name}.npz")])
        main(["predict", str(tmp_path / f"{name}.npz"), str(table), "--out", str(tmp_path / f"{name}.out.csv")])
    ordinary, huge = predictions(tmp_path / "homes.out.csv"), predictions(tmp_path / "huge.out.csv")
    assert np.all(np.isfinite(huge))
    np.testing.assert_allclose(huge / 1e295, ordinary, rtol=1e-9)


def test_the_library_prints_nothing_unasked(tmp_path, homes):
    """A fresh process (HiGHS prints its banner on the first instance of a process): ``fit`` writes its one
    line to standard error and nothing to standard output, and a library fit prints nothing at all."""
    model = tmp_path / "model.npz"
    command = [sys.executable, "-m", "ordercore", "fit", str(homes), "--target", "price", "--id", "home_id"]
    done = subprocess.run([*command, "--out", str(model)], capture_output=True, text=True, check=True)
    assert done.stdout == ""
    assert done.stderr.splitlines() == [f"fitted lp on 300 rows (30 labeled) and 0 preferences; wrote {model}"]
    script = (
        "import numpy as np; from ordercore import OrderPreferenceRegressor; "
        "X = np.arange(20.0).reshape(10, 2); y = X[:, 0].copy(); y[::2] = np.nan; "
        "OrderPreferenceRegressor().fit(X, y).predict(X)"
    )
    library = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert library.stdout == ""


@pytest.mark.parametrize("command", [["experiments", "table1", "--dataset", "boston"], ["experiments", "session"]])
def test_a_negative_seed_is_refused_naming_seed(command, capsys):
    with pytest.raises(SystemExit):
        main([*command, "--seed", "-1", "--out", "x.json"])
    assert "argument --seed: '-1' must be at least 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "far.csv",
            "i,j\n0,100000000000000000000\n",
            r"j: 1 reference\(s\) are not a row of the table's 300 \(0 \.\.\. 299\)",
        ),
        ("semicolons.csv", "i;j\n0;1\n", "header 'i;j' is one column: separate the columns with commas"),
        (
            "short.json",
            '{"format": "ordercore.preferences", "version": 1, "i": [0, 1], "j": [2], "margin": [0, 0],'
            ' "weight": [1, 1]}',
            r"must have one length; got \[2, 1, 2, 2\]",
        ),
        (
            "text_margin.json",
            '{"format": "ordercore.preferences", "version": 1, "i": [0], "j": [2], "margin": ["10"], "weight": [1]}',
            "margin must be numbers; got '10'",
        ),
        (
            "true_weight.json",
            '{"format": "ordercore.preferences", "version": 1, "i": [0], "j": [2], "margin": [0], "weight": [true]}',
            "weight must be numbers; got True",
        ),
        ("both_empty.csv", "i,j\n0,1\n,\n", r"line 3 names no row: its i and j are both empty"),
    ],
)
def test_a_bad_preference_file_is_refused_saying_what_is_wrong(tmp_path, homes, name, text, message):
    """Each once fitted silently (a text margin read as 10, true as 1) or failed with another library's words."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(SystemExit, match=message):
        main(["fit", str(homes), "--target", "price", "--preferences", str(path), "--out", str(tmp_path / "m.npz")])
    assert not (tmp_path / "m.npz").exists()
