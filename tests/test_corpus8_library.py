"""The eighth corpus's library cases (issue 32): the LP's and the 2-norm QP's fit name the rows of an
infinite label, as every other family does since the seventh corpus (A117, A118, A123, A125)."""

from __future__ import annotations

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor
from ordercore.preferences import PreferenceSet


@pytest.mark.parametrize("make", [OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor], ids=["lp", "two_norm"])
@pytest.mark.parametrize(
    "rows, value, dtype, said",
    [
        ([3], np.inf, np.float64, "1 row(s) (the first: row 3, inf)"),
        ([4], -np.inf, np.float64, "1 row(s) (the first: row 4, -inf)"),
        ([6, 1], np.inf, np.float32, "2 row(s) (the first: row 1, inf)"),
    ],
)
def test_fit_names_the_rows_of_an_infinite_label(make, rows, value, dtype, said):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = (2 * X[:, 0]).astype(dtype)
    y[[0, 5]] = np.nan  # unlabeled rows: taken
    y[rows] = value
    with pytest.raises(ValueError) as raised:
        make().fit(X, y, PreferenceSet.order([0], [5]))
    assert str(raised.value) == (
        f"y holds an infinite value at {said}: labels must be finite numbers; use np.nan to mark unlabeled rows"
    )
