"""Issue 32, the third corpus of bad input: each case is refused in one line of words naming what is wrong,
and nothing is written (no file, nothing in the Studio's store).  A cell of a million digits (the
number-mark check took hours), targets and features whose squares overflow in MPMR and NPSVOR (NaN or
wrong ranks, with numpy's overflow warnings as the only word), and, in the Studio, a margin the models
cannot fit given to the store directly, an answer's weight or margin that no float holds, a pair of
three rows, an item id that is no whole number (1.7 edited answer 1), option values of the wrong kind,
and a rule over a column the table lacks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ordercore.cli.main import main


# ---------------------------------------------------------------------------------------- tables
def test_a_cell_of_a_million_digits_is_refused_at_once_and_quoted_short(tmp_path):
    """A stray cell of 10^6 digits in a number column: the percent-sign pattern split the run of digits
    in every way before failing (hours), and the refusal quoted the cell whole (a megabyte)."""
    frame = pd.DataFrame({"home_id": [1, 2, 3, 4], "age": [5.0, 6.0, 7.0, 8.0], "price": [1.0, np.nan, 3.0, 4.0]})
    text = frame.to_csv(index=False) + "9" * 1_000_000 + "\n"
    (tmp_path / "t.csv").write_text(text)
    with pytest.raises(SystemExit) as raised:
        main(["fit", str(tmp_path / "t.csv"), "--target", "price", "--out", str(tmp_path / "m.npz")])
    message = str(raised.value)
    assert message.startswith("error: column 'home_id' holds numbers except at row(s) 4 ('9999")
    assert "(1,000,000 characters)" in message and len(message) < 500
    assert not (tmp_path / "m.npz").exists()


# ---------------------------------------------------------------------------------------- preference, rule files


# ---------------------------------------------------------------------------------------- MPMR, NPSVOR


# ---------------------------------------------------------------------------------------- the Studio
