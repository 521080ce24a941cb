"""A categorical column whose values match none of its fitted levels is refused; one with some unseen values
is taken with a warning (issue 32, the eighth corpus's A006-A010, A048, A049): 'X' where 'x' was fitted, or
' x', made every row's indicators zero and every model kind predicted without a word."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main
from ordercore.data.tables import Preprocessing

FITTED = pd.DataFrame({"area": [50.0, 80.0, 120.0, 90.0], "kind": ["x", "y", "z", "x"]})

NONE_MATCH = (
    "feature column 'kind' holds none of the levels the model was fitted on ('x', 'y', 'z'): it holds {found} "
    "(case and spaces count): give it the values the model was fitted on, or fit a model on this table"
)


@pytest.fixture
def fitted() -> Preprocessing:
    return Preprocessing.fit(FITTED, ["area", "kind"])


@pytest.mark.parametrize(
    "kinds, found", [(["X", "Y", "Z", "X"], "'X', 'Y', 'Z'"), ([" x", " y", " z", " x"], "' x', ' y', ' z'")]
)
def test_a_column_holding_none_of_its_levels_is_refused_naming_them(fitted, kinds, found):
    with pytest.raises(ValueError) as raised:
        fitted.transform(FITTED.assign(kind=kinds))
    assert str(raised.value) == NONE_MATCH.format(found=found)


def test_some_unseen_values_are_taken_with_a_warning_naming_them(fitted):
    with pytest.warns(UserWarning) as caught:
        X = fitted.transform(FITTED.assign(kind=["x", "w", "z", "W"]))
    assert [str(w.message) for w in caught] == [
        "feature column 'kind' holds values the model was not fitted on at 2 of its 4 rows ('w', 'W'; fitted: 'x', "
        "'y', 'z'): those rows get all-zero kind indicators"
    ]
    assert X[:, 1:].tolist() == [[1, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 0]]  # by hand: x, -, z, -
    np.testing.assert_allclose(X[:, 0], fitted.transform(FITTED)[:, 0])


def test_the_levels_fitted_give_no_warning(fitted):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fitted.transform(FITTED.iloc[::-1]).shape == (4, 4)


@pytest.mark.parametrize("model", ["lp", "two_norm", "gp", "mpmr"])
def test_predict_refuses_it_for_every_model_kind(tmp_path, capsys, model):
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"area": rng.uniform(40, 150, 30), "kind": np.tile(["x", "y", "z"], 10)})
    table["price"] = table["area"] * 2 + table["kind"].map({"x": 0, "y": 10, "z": 20})
    table.to_csv(tmp_path / "t.csv", index=False)
    main(["fit", str(tmp_path / "t.csv"), "--target", "price", "--model", model, "--out", str(tmp_path / "m.npz")])
    table.assign(kind=table["kind"].str.upper()).to_csv(tmp_path / "upper.csv", index=False)
    with pytest.raises(SystemExit) as raised:
        main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "upper.csv"), "--out", str(tmp_path / "p.csv")])
    assert str(raised.value) == "error: " + NONE_MATCH.format(found="'X', 'Y', 'Z'")
    assert not (tmp_path / "p.csv").exists()
    table.assign(kind=["w", *table["kind"][1:]]).to_csv(tmp_path / "one.csv", index=False)
    main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "one.csv"), "--out", str(tmp_path / "p.csv")])
    assert "warning: feature column 'kind' holds values the model was not fitted on at 1 of its 30 rows ('w'" in (
        capsys.readouterr().err
    )
