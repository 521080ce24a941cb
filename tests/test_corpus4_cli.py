"""The fourth corpus of bad input, the command line's side: an --out that is no regular file (a FIFO hung, a
device was replaced) or under a file, standard output closed or its reader gone, names printed raw by
``check``, a Near rule over one column twice, a rule over the id column, a table piped through /dev/stdin,
Excel's 'sep=,' line and a comment line above the header, a --values whose margins overflow, library
warnings in Python's raw format, and one preference file named twice through a link."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.knowledge.rules import Near, Ordering, Rule, Within
from ordercore.models.files import read_model
from tests.conftest import labeled_homes_csv

SECONDS = 120
"""A subprocess's time limit: a command that blocks (an --out FIFO did) fails the test instead of hanging it."""


@pytest.fixture
def homes(tmp_path):
    """60 sample homes, the price on every 3rd row (20 labeled); the CSV's path."""
    return labeled_homes_csv(tmp_path, 60, 3)


def run(*arguments, **options) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "ordercore", *map(str, arguments)]
    return subprocess.run(command, capture_output=True, text=True, timeout=SECONDS, **options)


def refusal(arguments: list) -> str:
    """The message of a command run in-process that must end with an error."""
    with pytest.raises(SystemExit) as raised:
        main([str(a) for a in arguments])
    return str(raised.value)


def rules_file(tmp_path, rule: dict):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps([rule]))
    return path


# ---------------------------------------------------------------------------------------- --out (O55, O47, O56, O52)
@pytest.mark.parametrize("command", ["fit", "rules"])
def test_an_out_fifo_is_refused_at_once_and_left_a_fifo(tmp_path, homes, command):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rule = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    arguments = {
        "fit": ["fit", homes, "--target", "price", "--out", fifo],
        "rules": ["rules", "apply", rule, homes, "--out", fifo],
    }[command]
    finished = run(*arguments)
    assert (finished.returncode, finished.stderr) == (1, f"error: --out {fifo} is not a regular file\n")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_fit_and_predict_write_through_an_out_symlink_to_its_target(tmp_path, homes):
    """fit replaced the link with its model file while predict wrote through a link: both write through."""
    model, link = tmp_path / "model.npz", tmp_path / "model-link.npz"
    model.write_text("old")
    link.symlink_to(model.name)
    main(["fit", str(homes), "--target", "price", "--out", str(link)])
    assert link.is_symlink() and os.readlink(link) == model.name
    assert read_model(model).metadata["target"] == "price"
    table, table_link = tmp_path / "p.csv", tmp_path / "p-link.csv"
    table.write_text("old")
    table_link.symlink_to(table.name)
    main(["predict", str(link), str(homes), "--out", str(table_link)])
    assert table_link.is_symlink() and len(pd.read_csv(table)) == len(pd.read_csv(homes))


def test_an_out_under_a_file_says_the_file_is_not_a_directory(tmp_path, homes):
    (tmp_path / "base.npz").write_text("keep")
    out = tmp_path / "base.npz" / "x.npz"
    message = refusal(["fit", homes, "--target", "price", "--out", out])
    assert message == f"error: cannot write {out}: {tmp_path / 'base.npz'} is not a directory"
    assert (tmp_path / "base.npz").read_text() == "keep"


# ---------------------------------------------------------------------------------------- standard output (O54, P21)
def test_rules_apply_to_a_closed_standard_output_fails(tmp_path, homes):
    rule = rules_file(tmp_path, Rule("r", [Within("age", 4.0)], Ordering("bedrooms")).to_dict())
    finished = run("rules", "apply", rule, homes, "--out", "-", preexec_fn=lambda: os.close(1))
    assert (finished.returncode, finished.stderr) == (1, "error: cannot write standard output: it is closed\n")


def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly(tmp_path, homes):
    model = tmp_path / "m.npz"
    main(["fit", str(homes), "--target", "price", "--out", str(model)])
    command = [sys.executable, "-m", "ordercore", "predict", str(model), str(homes), "--out", "-"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        process.stdout.close()  # the reader has gone before the first line (as head -3 after its lines)
        stderr = process.stderr.read()
        assert (process.wait(timeout=SECONDS), stderr) == (141, b"")


# ---------------------------------------------------------------------------------------- check (K42)
def test_check_shows_escape_sequences_in_names_escaped(tmp_path, capsys):
    forged = "\x1b[2J\x1b[31mA"
    (tmp_path / "p.csv").write_text(f"i,j\n{forged},B\nB,C\nC,{forged}\n")
    assert main(["check", str(tmp_path / "p.csv")]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "  cycle: '\\x1b[2J\\x1b[31mA' > B > C\n" in out


# ---------------------------------------------------------------------------------------- rules (R12, R15, X06)
def test_a_near_condition_over_one_column_twice_is_refused(tmp_path, homes):
    with pytest.raises(ValueError, match="latitude and longitude must be two different columns, got 'latitude' twice"):
        Rule("r", [Near("latitude", "latitude", 2.0)], Ordering("bedrooms"))
    rule = Rule("r", [Near("latitude", "longitude", 2.0)], Ordering("bedrooms")).to_dict()
    rule["conditions"][0]["longitude"] = "latitude"
    out = tmp_path / "p.csv"
    message = refusal(["rules", "apply", rules_file(tmp_path, rule), homes, "--out", out])
    assert "latitude and longitude must be two different columns" in message
    assert not out.exists()


@pytest.mark.parametrize(
    "rule",
    [
        Rule("by id", [Within("home_id", 3.0)], Ordering("bedrooms")),
        Rule("more id", [Within("age", 10.0)], Ordering("home_id")),
    ],
)
def test_a_rule_over_the_id_column_says_the_id_names_the_rows(tmp_path, homes, rule):
    out = tmp_path / "p.csv"
    message = refusal(["rules", "apply", rules_file(tmp_path, rule.to_dict()), homes, "--id", "home_id", "--out", out])
    assert message == (
        f"error: rule {rule.name!r}: column 'home_id' is the --id column, which names the rows: it cannot be a "
        "rule's column"
    )
    assert not out.exists()


# ---------------------------------------------------------------------------------------- tables (O45, X01, C35, C36)
def test_a_table_piped_through_dev_stdin_is_read_once(tmp_path, homes):
    frame = pd.read_csv(homes)
    finished = run("fit", "/dev/stdin", "--target", "price", "--out", tmp_path / "m.npz", input=homes.read_text())
    assert finished.returncode == 0, finished.stderr
    labeled = int(frame["price"].notna().sum())
    assert finished.stderr.startswith(f"fitted lp on {len(frame)} rows ({labeled} labeled)")


def test_excel_s_sep_line_is_named(tmp_path, homes):
    (tmp_path / "t.csv").write_text("sep=,\n" + homes.read_text())
    message = refusal(["fit", tmp_path / "t.csv", "--target", "price", "--out", tmp_path / "m.npz"])
    assert message == f"error: {tmp_path / 't.csv'}: line 1 is Excel's 'sep=,' line, not a header: remove it"
    assert not (tmp_path / "m.npz").exists()


def test_a_comment_line_above_the_header_is_said_to_be_taken_as_the_header(tmp_path, homes):
    (tmp_path / "t.csv").write_text("# exported today\n" + homes.read_text())
    message = refusal(["fit", tmp_path / "t.csv", "--target", "price", "--out", tmp_path / "m.npz"])
    assert message.endswith("(line 1, '# exported today', was taken as the header)")
    assert not (tmp_path / "m.npz").exists()


# ---------------------------------------------------------------------------------------- experiments (E23)
def test_a_beta_whose_margins_overflow_is_refused_naming_values(tmp_path, capsys):
    path = labeled_homes_csv(tmp_path, 120, 1)
    span = np.ptp(pd.read_csv(path)["price"].to_numpy())
    out = tmp_path / "r.json"
    arguments = ["experiments", "figure2", "--data", path, "--target", "price", "--labeled", "20", "--unlabeled"]
    arguments += ["50", "--quick", "--trials", "1", "--vary", "beta", "--out", out, "--values"]
    message = refusal([*arguments, "1e308"])
    assert message == (
        f"error: --values 1e+308: beta times the target's range ({span:.3g}) overflows float64; give a smaller beta"
    )
    assert "RuntimeWarning" not in capsys.readouterr().err
    assert not out.exists()


# ---------------------------------------------------------------------------------------- warnings (P20)
def test_a_library_warning_is_one_plain_line(tmp_path):
    path = labeled_homes_csv(tmp_path, 1, 1)
    finished = run("fit", path, "--target", "price", "--model", "mpmr", "--out", tmp_path / "m.npz")
    assert finished.returncode == 0, finished.stderr
    warning, done = finished.stderr.splitlines()
    assert warning.startswith("warning: Ω = ") and "rests on the moments of 1 row" in warning
    assert done.startswith("fitted mpmr on 1 rows")


# ---------------------------------------------------------------------------------------- preference files (O53)
def test_one_preference_file_named_twice_through_a_link_is_refused(tmp_path, homes):
    (tmp_path / "p.csv").write_text("i,j\n0,1\n")
    (tmp_path / "link.csv").symlink_to("p.csv")
    out = tmp_path / "m.npz"
    arguments = ["fit", homes, "--target", "price", "--preferences", tmp_path / "p.csv", tmp_path / "link.csv"]
    message = refusal([*arguments, "--out", out])
    assert message == (
        f"error: --preferences names one file twice ({tmp_path / 'p.csv'} and {tmp_path / 'link.csv'}): its "
        "preferences would count twice"
    )
    assert not out.exists()


# ------------------------------------------------------------------------------- left by the library side (R04, F14)
def test_a_rules_file_naming_a_key_twice_is_refused(tmp_path, homes):
    """R04: two "name" keys in one rule; the last won silently and the rule made 4,003 preferences."""
    path, out = tmp_path / "rules.json", tmp_path / "p.csv"
    path.write_text('{"name": "a", "name": "b", "conditions": [], "ordering": {"column": "bedrooms"}}')
    message = refusal(["rules", "apply", path, homes, "--out", out])
    assert message == f"error: {path}: key 'name' appears twice in one object" and not out.exists()
    with pytest.raises(ValueError, match="rule JSON does not parse: key 'name' appears twice"):
        Rule.from_json(path.read_text())


def test_a_preference_naming_an_unknown_id_of_a_million_characters_is_quoted_cut(tmp_path, homes):
    """F14: a preference file naming a row by a 1,000,000-character id wrote an error line of a megabyte."""
    long_id = "x" * 1_000_000
    preferences = tmp_path / "p.csv"
    preferences.write_text(f"i,j\n{long_id},2\n")  # with --id, i and j name rows by id
    arguments = ["fit", homes, "--target", "price", "--id", "home_id", "--preferences", preferences]
    message = refusal([*arguments, "--out", tmp_path / "m.npz"])
    assert len(message) < 400 and "'" + "x" * 40 + "'… (1,000,000 characters)" in message
