"""What the estimators' ``fit`` checks before scikit-learn's validation, said in words: X's rows of
different lengths (numpy's 'inhomogeneous shape'), targets that are not numbers (numpy's
UFuncTypeError; dates, durations and complex numbers, which numpy casts to nanoseconds or to their real
part), and ordinal labels mixing numbers and text or missing (scikit-learn's 'Unknown
label type: unknown')."""

from __future__ import annotations

import datetime
import numbers

import numpy as np
import pandas as pd
from sklearn.utils._param_validation import Interval, InvalidParameterError
from sklearn.utils.validation import validate_data as sklearn_validate_data

from ordercore.inputs.feature_names import check_feature_names
from ordercore.inputs.printable import quoted


def check_rows(X) -> None:
    """``ValueError`` naming the first row of a list-like X whose length is not the first row's."""
    if not isinstance(X, (list, tuple)) or not X:
        return
    lengths = [len(row) if hasattr(row, "__len__") and not isinstance(row, str) else None for row in X]
    bad = next((k for k, length in enumerate(lengths) if length != lengths[0]), None)
    if bad is not None:
        raise ValueError(
            f"X's rows have different lengths: row 0 has {_length(lengths[0])}, row {bad} has {_length(lengths[bad])}"
        )


def _length(length: int | None) -> str:
    return "a single value" if length is None else f"{length} value{'' if length == 1 else 's'}"


NOT_REAL = {
    "M": ("dates or times", "convert them to numbers first (e.g. days since a start date)"),
    "m": ("durations", "convert them to numbers first (e.g. in days or hours)"),
    "c": (
        "complex numbers",
        "Complex data not supported; give real numbers (the real part, if the imaginary part is 0)",
    ),
}
"""What y must not hold, by numpy's dtype kind (its words, what to do instead): numpy casts dates and
durations to nanoseconds and complex numbers to their real part, so y of them was fitted and scored
silently (1.6e15 predicted of dates).  Complex y says scikit-learn's words of complex X too."""


def real_numbers(y, name: str = "y") -> None:
    """``ValueError`` naming ``name`` and its dtype when y holds dates or times, durations or complex numbers
    (``NOT_REAL``: a numpy or pandas dtype, or such values in an object array, naming the first row).  Every
    estimator's fit and score checks y with this first."""
    if y is None or isinstance(y, str | bytes):
        return
    try:
        values = np.asarray(y)
    except (TypeError, ValueError):  # rows of different lengths: the shape's checks say so
        return
    if values.dtype.kind in NOT_REAL:
        words, advice = NOT_REAL[values.dtype.kind]
        raise ValueError(f"{name} must hold real numbers, got {words} ({values.dtype}): {advice}")
    if values.dtype.kind != "O":
        return
    kinds = [_kind(value) for value in values.ravel()]
    bad = next((k for k, kind in enumerate(kinds) if kind is not None), None)
    if bad is not None:
        row = np.unravel_index(bad, values.shape)[0] if values.ndim else 0
        words, advice = NOT_REAL[kinds[bad]]
        raise ValueError(
            f"{name} must hold real numbers, got {words}: row {row} holds {quoted(values.ravel()[bad])}: {advice}"
        )


def _kind(value) -> str | None:
    """The ``NOT_REAL`` kind of one value (numpy's, pandas' or the datetime module's dates, periods and
    durations, Python's and numpy's complex numbers), or None."""
    if isinstance(value, datetime.timedelta | np.timedelta64):
        return "m"
    if isinstance(value, datetime.date | datetime.time | np.datetime64 | pd.Period):
        return "M"
    return "c" if isinstance(value, complex | np.complexfloating) else None


def numeric_targets(y) -> None:
    """``ValueError`` naming the first entry of y that is not a number (text, None), after ``real_numbers``."""
    real_numbers(y)
    values = np.asarray(y)
    if y is None or values.dtype.kind not in "OUS":  # None: scikit-learn's 'requires y to be passed'
        return
    values = values.astype(object).ravel()
    bad = next((k for k, v in enumerate(values) if not _is_number(v)), None)
    if bad is not None:
        raise ValueError(f"y must hold numbers: row {bad} holds {quoted(values[bad])}")


def ordinal_labels(y) -> None:
    """``ValueError`` for labels with a missing one (None, NaN) or mixing numbers and text, naming an
    example of each and its row, after ``real_numbers``."""
    if y is None:  # scikit-learn's 'requires y to be passed'
        return
    real_numbers(y)
    values = np.asarray(y)
    if values.dtype.kind == "f" and np.isnan(values).any():
        values = values.astype(object)
    if values.dtype.kind != "O":
        return
    values = values.ravel()
    missing = next((k for k, v in enumerate(values) if _is_missing(v)), None)
    if missing is not None:
        raise ValueError(
            f"y holds a missing label ({quoted(values[missing])}) at row {missing}; every row needs its rank"
        )
    number = next((k for k, v in enumerate(values) if _is_number(v)), None)
    text = next((k for k, v in enumerate(values) if not _is_number(v)), None)
    if number is not None and text is not None:
        raise ValueError(
            f"y mixes numbers and text: row {number} holds the number {quoted(values[number])}, row {text} the "
            f"text {quoted(values[text])}; give every rank as a number or every rank as text"
        )


def finite_labels(y, action: str = "score") -> None:
    """``ValueError`` naming the rows where numeric labels y (n,) or rankings (n, L) hold NaN or ±inf:
    ``action`` (score, fit) needs a finite label for every row (scikit-learn said 'Input contains NaN.',
    naming neither y nor the row), after ``real_numbers``.  Text labels pass (there is nothing to check)."""
    real_numbers(y)
    values = np.asarray(y) if y is not None else np.array([])
    if values.dtype.kind == "O":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):  # text labels; missing ones are ``ordinal_labels``'
            return
    if values.dtype.kind not in "fc" or values.ndim == 0 or values.size == 0:
        return
    rows = values.reshape(len(values), -1)
    missing = np.flatnonzero(np.isnan(rows).any(axis=1))
    if missing.size:
        raise ValueError(
            f"y holds NaN at {missing.size} row(s) (the first: row {missing[0]}): {action} needs a label for every "
            "row; pass only the labeled rows"
        )
    infinite_labels(rows)


def infinite_labels(y: np.ndarray, hint: str = "") -> None:
    """``ValueError`` naming how many rows of float labels y (n,) or rankings (n, L) hold ±inf, and the
    first; ``hint`` follows the message (the LP's: NaN marks an unlabeled row)."""
    rows = y.reshape(len(y), -1)
    infinite = np.flatnonzero(np.isinf(rows).any(axis=1))
    if infinite.size:
        first = rows[infinite[0]]
        raise ValueError(
            f"y holds an infinite value at {infinite.size} row(s) (the first: row {infinite[0]}, "
            f"{first[np.isinf(first)][0]}): labels must be finite numbers{hint}"
        )


def check_sample_weight(sample_weight, y) -> np.ndarray | None:
    """sample_weight (n,) as float64 weights of the n rows of y, or None: ``ValueError`` for another length
    ('inconsistent numbers of samples: [30, 30, 3]' before), for weights that are no numbers, negative, NaN or
    infinite (scikit-learn's R² and accuracy took -1 for every row as if it were 1), or all 0 (no row counts)."""
    if sample_weight is None:
        return None
    n_weights, n_labels = np.shape(sample_weight), np.shape(y)[:1]
    if n_weights != n_labels:
        raise ValueError(
            f"sample_weight must hold a weight per row of y ({n_labels[0] if n_labels else 'a scalar y'}), got "
            f"shape {n_weights}"
        )
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        for row, cell in enumerate(np.asarray(sample_weight, dtype=object).ravel()):
            try:
                float(cell)
            except (TypeError, ValueError):
                raise ValueError(f"sample_weight must hold numbers, got {quoted(cell)} at row {row}") from None
        raise
    bad = np.flatnonzero(~(np.isfinite(weights) & (weights >= 0)))
    if bad.size:
        raise ValueError(
            f"sample_weight must hold finite weights >= 0, got {weights[bad[0]]:g} at row {bad[0]} ({bad.size} row(s) "
            "negative, NaN or infinite)"
        )
    if weights.size and not weights.sum() > 0:
        raise ValueError(f"sample_weight gives every one of the {weights.size} rows weight 0: no row would count")
    return weights


class LabelsScored:
    """A mixin (left of scikit-learn's ``RegressorMixin`` or ``ClassifierMixin``) whose ``score`` says in words
    where y holds NaN or ±inf (``finite_labels``), and a sample_weight that is no set of weights of y's rows
    (``check_sample_weight``), before scikit-learn's R² or accuracy."""

    def score(self, X, y, sample_weight=None) -> float:
        finite_labels(y)
        return super().score(X, y, check_sample_weight(sample_weight, y))


def _is_missing(value) -> bool:
    """None, pd.NA (a pandas 'string' or nullable column's gap: "boolean value of NA is ambiguous"), NaN."""
    return value is None or value is pd.NA or (_is_number(value) and np.isnan(float(value)))


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class NumbersNotBooleans:
    """A mixin (left of ``BaseEstimator``) whose parameter validation refuses True or False for a numeric
    hyperparameter: scikit-learn's ``Interval`` constraints take a bool as an Integral or Real, so
    ``lambda2=True`` fitted silently with 1.0."""

    def _validate_params(self):
        for name, constraints in self._parameter_constraints.items():
            value = getattr(self, name, None)
            if isinstance(value, bool | np.bool_) and _numeric(constraints):
                raise InvalidParameterError(
                    f"The {name!r} parameter of {type(self).__name__} must be a number, not the boolean {bool(value)}."
                )
        super()._validate_params()


def _numeric(constraints) -> bool:
    """Whether a parameter's constraints take numbers (an ``Interval``) and not booleans."""
    return any(isinstance(c, Interval) for c in constraints) and not any(
        c == "boolean" or c is bool for c in constraints
    )


def validate_data(estimator, X, *args, **options):
    """scikit-learn's ``validate_data``, after ``check_table(X)`` and, on a fitted estimator (``reset=False``),
    ``check_feature_names``."""
    check_table(X)
    if options.get("reset") is False:
        check_feature_names(estimator, X)
    return sklearn_validate_data(estimator, X, *args, **options)


def check_table(X) -> None:
    """Say in words what scikit-learn and numpy would say in theirs: X that is no array-like of rows (a
    generator: 'float() argument must be ... not generator'), rows of different lengths (``check_rows``), an
    array of dates, durations or complex numbers (``real_numbers``: scikit-learn read dates as nanoseconds),
    and a DataFrame X with a repeated column name (narwhals' DuplicateError) or a column that is not numbers
    (dates, text categories: 'could not convert string to float', numpy's DTypePromotionError), named."""
    if not (hasattr(X, "__len__") or hasattr(X, "__array__") or X is None or isinstance(X, str)):
        raise TypeError(
            f"X must be an array-like of rows (a list, a numpy array or a DataFrame), not a {type(X).__name__}"
        )
    check_rows(X)
    if not isinstance(X, pd.DataFrame):
        if not hasattr(X, "tocsr"):  # a sparse matrix holds numbers; scikit-learn checks it
            real_numbers(X, "X")  # numpy arrays of dates fitted as nanoseconds (a DataFrame's are named below)
        return
    repeated = X.columns[X.columns.duplicated()]
    if len(repeated):
        raise ValueError(f"X's columns repeat the name {quoted(repeated[0])}: give each column its own name")
    for name in X.columns:
        _numeric_column(X[name])


def _numeric_column(column: pd.Series) -> None:
    """``ValueError`` naming a DataFrame column of dates or times, or of text (categorical or not), and a row."""
    if column.dtype.kind in "mM" or isinstance(column.dtype, pd.PeriodDtype | pd.DatetimeTZDtype):
        raise ValueError(
            f"X's column {quoted(column.name)} holds dates or times ({column.dtype}), not numbers: convert it first"
        )
    values = column.astype(object) if isinstance(column.dtype, pd.CategoricalDtype) else column
    if values.dtype.kind not in "OSU" and not pd.api.types.is_string_dtype(values.dtype):
        return
    bad = np.flatnonzero((pd.to_numeric(values, errors="coerce").isna() & values.notna()).to_numpy())
    if bad.size:
        raise ValueError(
            f"X's column {quoted(column.name)} holds {quoted(values.iloc[bad[0]])} at row {bad[0]}, not a number: "
            "encode text as numbers first (e.g. one indicator column per category)"
        )
