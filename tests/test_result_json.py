"""Experiment results are strict JSON (RFC 8259 has no NaN): ``experiments session`` wrote the bare
``NaN`` of a cross-validated MAE not computed, which JavaScript's and most other readers refuse."""

import json

import pytest

from ordercore.cli.main import main


def refuse_constant(name: str):
    raise ValueError(f"not JSON: {name}")


def test_a_session_result_is_strict_json_with_null_where_nothing_was_computed(tmp_path):
    out = tmp_path / "s.json"
    main(["experiments", "session", "--dataset", "sample", "--trials", "1", "--clicks", "5", "--out", str(out)])
    result = json.loads(out.read_text(), parse_constant=refuse_constant)  # NaN, Infinity: refused
    checkpoints = result["arms"]["committee"]["trials"][0]["checkpoints"]
    assert any(point["cv_svr_mae"] is None for point in checkpoints)  # no assessment yet: null, not NaN
    assert all(isinstance(point["ssl_mae"], float) for point in checkpoints)


def test_refuse_constant_refuses_nan():
    with pytest.raises(ValueError, match="NaN"):
        json.loads('{"x": NaN}', parse_constant=refuse_constant)
