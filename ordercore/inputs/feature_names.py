"""Feature names at predict that differ from those seen at fit only in ways that do not show when
printed: Unicode normalisation (NFC 'café' against NFD 'café'), spaces at the ends, letter case.
scikit-learn's message lists both names, which then read alike; this one says what differs."""

from __future__ import annotations

import unicodedata

import pandas as pd


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
