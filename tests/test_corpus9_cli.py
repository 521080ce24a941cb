"""The ninth corpus's command-line cases (issue 32): preferences naming ids written 1.0 (a spreadsheet's
re-save) name the ids 1 (C05), as the Studio reads them."""

from __future__ import annotations

import pytest

from ordercore.cli.main import main
from ordercore.cli.tabular import Table, read_preferences
from tests.test_corpus4_cli import homes, refusal  # noqa: F401 (a fixture)

TABLE = "hid,a,y\n1,5.1,20.3\n2,9.5,35.8\n3,7.3,31.0\n"


@pytest.mark.parametrize("written", ["i,j\n2.0,3.0\n", "i,j\n2.00, 3\n"])
def test_ids_written_as_whole_floats_name_their_rows(tmp_path, written):
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "p.csv").write_text(written)
    table = Table.read(tmp_path / "t.csv", "y", id_column="hid")
    preferences = read_preferences(tmp_path / "p.csv", table)
    assert (preferences.i.tolist(), preferences.j.tolist()) == ([1], [2])  # ids 2 and 3: rows 1 and 2


def test_an_id_with_a_fraction_is_refused(tmp_path):
    (tmp_path / "t.csv").write_text(TABLE)
    (tmp_path / "p.csv").write_text("i,j\n2.5,3\n")
    with pytest.raises(ValueError) as raised:
        read_preferences(tmp_path / "p.csv", Table.read(tmp_path / "t.csv", "y", id_column="hid"))
    assert str(raised.value).endswith("i: 1 reference(s) are not a value of the id column, e.g. '2.5'")


def test_an_out_ending_in_a_slash_or_naming_a_directory_is_refused(tmp_path, homes, capsys):  # noqa: F811 (C30)
    model = tmp_path / "m.npz"
    main(["fit", str(homes), "--target", "price", "--out", str(model)])
    assert refusal(["predict", model, homes, "--out", f"{tmp_path}/newdir/"]) == "2"  # argparse's exit status
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"python -m ordercore predict: error: argument --out: the path '{tmp_path}/newdir/' ends in '/', which "
        "names a directory; name a file"
    )
    assert not (tmp_path / "newdir").exists()
    (tmp_path / "folder").mkdir()
    assert refusal(["predict", model, homes, "--out", tmp_path / "folder"]) == (
        f"error: --out {tmp_path / 'folder'} is a directory; name a file in it"
    )
