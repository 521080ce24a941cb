"""The eighth corpus's command-line cases (issue 32): a directory given as an experiment's --data or --rules
is said to be one, as ``rules apply`` and ``check`` say it (A174: '[Errno 21] Is a directory')."""

from __future__ import annotations

import pytest

from tests.test_corpus4_cli import homes, refusal  # noqa: F401 (a fixture)

CSV = "{dir} is a directory, not a CSV table"

TABLE = ["--target", "price", "--labeled", "5", "--unlabeled", "5", "--quick", "--trials", "1"]


@pytest.mark.parametrize(
    "arguments, said",
    [
        (["table1", "--data", "{dir}", *TABLE], CSV),
        (["figure2", "--data", "{dir}", *TABLE, "--vary", "l", "--values", "5"], CSV),
        (["session", "--data", "{dir}", "--target", "price", "--trials", "1"], CSV),
        (["rules", "--rules", "{dir}", "--data", "{homes}", *TABLE], "{dir} is a directory, not a rules JSON file"),
    ],
)
def test_a_directory_given_to_an_experiment_is_said_to_be_one(tmp_path, homes, arguments, said):  # noqa: F811
    (tmp_path / "folder").mkdir()
    names = {"dir": tmp_path / "folder", "homes": homes}
    message = refusal(["experiments", *[a.format(**names) for a in arguments], "--out", tmp_path / "r.json"])
    assert message == "error: " + said.format(**names)
