"""The sixth outside probing's findings on the command line (/tmp/corpus6, U cases): predict --out x.json
writes JSON, sentiment --pairs 0 is refused, an empty path argument is said to be empty (not '.'), JSON
nested too deeply, a header with an empty name, a header repeated as a row, a gzip file given as CSV."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from ordercore.cli.main import main
from tests.test_corpus4_cli import homes, refusal  # noqa: F401 (a fixture)

NESTED_TOO_DEEPLY = "its lists and objects are nested too deeply to read"


def usage_error(arguments: list, capsys) -> str:
    """What argparse says (on standard error, exit status 2) of an argument it refuses."""
    with pytest.raises(SystemExit) as raised:
        main([str(a) for a in arguments])
    assert raised.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.fixture
def model(tmp_path, homes):  # noqa: F811
    out = tmp_path / "lp.npz"
    main(["fit", str(homes), "--target", "price", "--out", str(out)])
    return out


# ---------------------------------------------------------------------------------------- U014
def test_predict_to_a_json_file_writes_json_records_as_rules_apply_does(tmp_path, homes, model):  # noqa: F811
    main(["predict", str(model), str(homes), "--out", str(tmp_path / "p.json")])
    main(["predict", str(model), str(homes), "--out", str(tmp_path / "p.csv")])
    records = json.loads((tmp_path / "p.json").read_text())
    table = pd.read_csv(tmp_path / "p.csv", float_precision="round_trip")  # each float as written (pandas 2.2)
    assert len(records) == len(pd.read_csv(homes)) and list(records[0]) == list(table.columns)
    assert [r["prediction"] for r in records] == table["prediction"].tolist()


# ---------------------------------------------------------------------------------------- U043
def test_sentiment_without_pairs_is_refused_as_other_counts_are(tmp_path, capsys):
    said = usage_error(["experiments", "sentiment", "--pairs", "0", "--quick", "--out", tmp_path / "s.json"], capsys)
    assert said.endswith("error: argument --pairs: '0' must be at least 1")
    assert not (tmp_path / "s.json").exists()


# ---------------------------------------------------------------------------------------- U016-U019
@pytest.mark.parametrize(
    "arguments, argument",
    [
        (["predict", "", "{homes}", "--out", "{tmp}/p.csv"], "model"),
        (["predict", "{tmp}/m.npz", "{homes}", "--out", ""], "--out"),
        (["fit", "{homes}", "--target", "price", "--out", ""], "--out"),
        (["fit", "", "--target", "price", "--out", "{tmp}/m.npz"], "data"),
        (["check", " "], "preferences"),
    ],
)
def test_an_empty_path_is_said_to_be_empty_not_the_directory(tmp_path, homes, capsys, arguments, argument):  # noqa: F811
    arguments = [a.format(homes=homes, tmp=tmp_path) for a in arguments]
    said = usage_error(arguments, capsys)
    assert f"error: argument {argument}: the path is empty (" in said and said.endswith("): name a file")
    assert ". is a directory" not in said and "'.'" not in said


# ---------------------------------------------------------------------------------------- U025-U027
def test_json_nested_too_deeply_is_said_so_by_fit_check_and_rules_apply(tmp_path, homes):  # noqa: F811
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    nested = tmp_path / "deep2.json"
    nested.write_text('{"i":' * 50_000 + "1" + "}" * 50_000)
    out = tmp_path / "m.npz"
    said = refusal(["fit", homes, "--target", "price", "--preferences", deep, "--out", out])
    written = "(the files ordercore writes nest a few levels)"
    assert said == f"error: {deep}: not valid preference JSON: {NESTED_TOO_DEEPLY} {written}"
    assert NESTED_TOO_DEEPLY in refusal(["check", nested])
    said = refusal(["rules", "apply", deep, homes, "--out", tmp_path / "r.csv"])
    assert said.startswith(f"error: {deep}: {NESTED_TOO_DEEPLY}")
    assert not out.exists() and "recursion" not in said


# ---------------------------------------------------------------------------------------- U033
def test_a_preference_header_with_an_empty_name_is_said_so_not_unnamed(tmp_path):
    path = tmp_path / "blank.csv"
    path.write_text("j,i,\n1,2,\n")
    assert refusal(["check", path]) == f"error: {path}: the header's column 3 has no name: name it, or remove it"


# ---------------------------------------------------------------------------------------- U011/U054
def test_a_table_whose_header_repeats_as_line_2_names_the_line(tmp_path, homes, model):  # noqa: F811
    text = homes.read_text()
    doubled = tmp_path / "dh.csv"
    doubled.write_text(text.splitlines()[0] + "\n" + text)
    said = refusal(["predict", model, doubled, "--out", tmp_path / "p.csv"])
    assert said == f"error: {doubled}: line 2 repeats the header line (two files pasted together?): remove it"


def test_a_gzip_compressed_table_is_said_to_be_compressed(tmp_path, homes):  # noqa: F811
    packed = tmp_path / "h.csv.gz"
    packed.write_bytes(gzip.compress(homes.read_bytes()))
    out = tmp_path / "m.npz"
    said = refusal(["fit", packed, "--target", "price", "--out", out])
    assert said == f"error: {packed}: the file is gzip-compressed, not CSV text: decompress it first"
    assert not out.exists()
