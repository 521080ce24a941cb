"""Feature names at predict that differ from those seen at fit only in ways that do not show when
printed: Unicode normalisation (NFC 'café' against NFD 'café'), spaces at the ends, letter case.
scikit-learn's message lists both names, which then read alike; this one says what differs.  So too for
a column the CLI is told to use and the table lacks (``missing_columns``)."""

from __future__ import annotations

import unicodedata

import pandas as pd

from ordercore.inputs.printable import quoted


def _composed(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _trimmed(name: str) -> str:
    return _composed(name).strip()


def _folded(name: str) -> str:
    return _trimmed(name).casefold()


def _differences(given: str, fitted: str) -> list[str]:
    """What tells ``given`` from ``fitted``, two names equal once composed, trimmed and case-folded."""
    said = []
    if _composed(given) != given or _composed(fitted) != fitted:
        said.append("Unicode normalisation (one composes its accented letters, NFC; the other does not, NFD)")
    if _trimmed(given) != _composed(given) or _trimmed(fitted) != _composed(fitted):
        said.append("spaces at the ends")
    if _trimmed(given) != _trimmed(fitted):
        said.append("letter case")
    return said


def check_feature_names(estimator, X) -> None:
    """``ValueError`` when the DataFrame X lacks a feature ``estimator`` was fitted on and has a column
    whose name differs from it only in Unicode normalisation, spaces at the ends or letter case, showing
    both names escaped (``ascii``), so that the difference shows, and saying what differs.  Other
    mismatches are left to scikit-learn's message."""
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None or not isinstance(X, pd.DataFrame):
        return
    given = [name for name in X.columns if isinstance(name, str)]
    unseen = [name for name in given if name not in set(fitted)]
    for name in (name for name in fitted if name not in set(given)):
        alike = next((other for other in unseen if _folded(other) == _folded(name)), None)
        if alike is not None:
            raise ValueError(
                f"X's column {ascii(alike)} is not the feature {ascii(name)} the model was fitted on: the names "
                f"differ only in {' and '.join(_differences(alike, name))}; rename it {ascii(name)}"
            )


SHOWN_COLUMNS = 20
"""Columns a refusal lists: a table's further columns are counted, not listed."""


def missing_columns(named, columns) -> str | None:
    """Words for the first of the ``named`` columns the table's ``columns`` lack, or None: when a column
    differs from it only in Unicode normalisation, spaces at the ends or letter case, both names escaped
    (``ascii``) and what differs ('âge' in NFC and NFD print alike); else the names missing and the
    table's columns, each quoted short (``quoted``: a name of 10,000 characters was echoed whole)."""
    columns = list(columns)
    unknown = [name for name in named if name not in columns]
    if not unknown:
        return None
    for name in unknown:
        alike = next((c for c in columns if isinstance(c, str) and _folded(c) == _folded(str(name))), None)
        if alike is not None:
            return (
                f"no column {ascii(name)}: the column {ascii(alike)} differs from it only in "
                f"{' and '.join(_differences(str(name), alike))}; name it as the table does, {ascii(alike)}"
            )
    return f"no column(s) [{', '.join(quoted(name) for name in unknown)}]; the columns are {listed(columns)}"


def listed(columns) -> str:
    """A table's ``columns`` as a refusal lists them: "['a', 'b', …] and 980 more", each quoted short, at
    most ``SHOWN_COLUMNS`` of them."""
    columns = list(columns)
    more = f" and {len(columns) - SHOWN_COLUMNS:,} more" if len(columns) > SHOWN_COLUMNS else ""
    return f"[{', '.join(quoted(c) for c in columns[:SHOWN_COLUMNS])}]{more}"
