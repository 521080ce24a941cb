"""Ids in a preference or answer file read as the table's ids (issue 32, corpus 9 S43, S49, C05): the
command line and the Studio read them alike."""

from __future__ import annotations

import pandas as pd

WHOLE_FLOAT = r"(-?\d+)\.0+"
"""A whole number written as a float, '115.0': what a spreadsheet's re-save makes of the id 115."""


def as_held_ids(ids, held) -> pd.Series:
    """``ids`` (k,) as text naming the ``held`` ids (the table's, as text): stripped of surrounding
    spaces, and '115.0' read as '115' where the table holds 115 and not 115.0; others as they are."""
    text = pd.Series(ids, dtype=object).astype(str).str.strip()
    held = pd.Index(held)
    whole = text.str.fullmatch(WHOLE_FLOAT) & ~text.isin(held)
    integer = text.str.extract(f"^{WHOLE_FLOAT}$", expand=False)
    return text.where(~(whole & integer.isin(held)), integer)
