"""CSV files read back with every float exactly as written, on each pandas the project supports.

pandas 2's default C parser ("high" precision) reads about a third of 17-digit floats one unit in the
last place off, so a stored label or preference margin came back changed; ``float_precision=
"round_trip"`` reads them exactly.  pandas 3 reads them exactly by default and deprecates the argument
(a ``Pandas4Warning``), so it is passed only before pandas 3."""

from __future__ import annotations

import pandas as pd

EXACT = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
"""The keyword ``pd.read_csv`` needs to read floats exactly on the installed pandas."""


def read_csv(source, **options) -> pd.DataFrame:
    """``pd.read_csv(source, **options)`` with floats read exactly (``EXACT``)."""
    return pd.read_csv(source, **options, **EXACT)
