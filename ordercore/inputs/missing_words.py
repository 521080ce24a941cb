"""Which cells of a CSV table are missing (issue 32, corpus 9 L62, C33): an empty cell always; pandas'
words for a missing value ('NA', 'None', 'null', 'N/A', 'NaN', …, ``NA_WORDS``) only in a column of
numbers or of true/false, where they cannot be values.  In a column of text they are the texts written:
'NA' is North America, 'None' a kind of heating (pandas read them as missing, and the table was refused
for missing values no one could find)."""

from __future__ import annotations

import numpy as np
import pandas as pd

NA_WORDS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A"}
    | {"NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)
"""The cells pandas reads as missing by default (its ``STR_NA_VALUES``)."""

TRUE_WORDS, FALSE_WORDS = {"True", "TRUE", "true"}, {"False", "FALSE", "false"}
"""The texts pandas reads as booleans."""

READ_OPTIONS = {"keep_default_na": False, "na_values": [""]}
"""``pd.read_csv``'s options that read only empty cells as missing; ``missing_words`` then does the rest."""


def missing_words(frame: pd.DataFrame, text_columns=()) -> pd.DataFrame:
    """``frame`` (read with ``READ_OPTIONS``) with the ``NA_WORDS`` of each column of numbers or booleans
    read as missing, as pandas would have read them; text columns (and ``text_columns``) kept as written."""
    for column in frame.columns:
        values = frame[column]
        if column in text_columns or pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        words = values.isin(NA_WORDS).to_numpy()
        if not words.any():
            continue
        missing = words | values.isna().to_numpy()
        rest = values[~missing]
        if pd.to_numeric(rest, errors="coerce").notna().all():
            frame[column] = [np.nan if gone else float(v) for v, gone in zip(values, missing, strict=True)]
        elif rest.isin(TRUE_WORDS | FALSE_WORDS).all():
            flags = [np.nan if gone else v in TRUE_WORDS for v, gone in zip(values, missing, strict=True)]
            frame[column] = pd.Series(flags, index=frame.index, dtype=object)
    return frame
