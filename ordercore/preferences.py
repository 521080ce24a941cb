"""Order preferences (i, j, d, w): "f(x_i) - f(x_j) >= d, held with confidence w".

Zhu & Goldberg (seed 000, §"Regression with order preferences"; seed 001 §2): a preference
is a tuple (i, j, d, w) over rows of the data; it is soft, penalised by the shifted hinge
``w * max(d - (f(x_i) - f(x_j)), 0)``.  Equality, closeness and ranges are pairs of such
tuples; unary preferences f(x_i) >= g, <= g, = g use the constant-zero point ``ZERO`` as the
other side, so that every preference is one row of the same LP.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.inputs.counts import whole_number
from ordercore.inputs.csv_floats import read_csv, repeated_column
from ordercore.inputs.preference_cells import refuse_empty_cells
from ordercore.inputs.printable import quoted
from ordercore.inputs.row_values import positive_scale, row_values
from ordercore.inputs.table_width import refuse_wide_records
from ordercore.inputs.text_files import JSONLinesError, parse_json, read_utf8

ZERO = -1
"""Index of the constant function 0: ``(i, ZERO, g)`` reads f(x_i) - 0 >= g."""

COLUMNS = ("i", "j", "margin", "weight")

EXPORT_COLUMNS = ("source", "rule_number", "rule_id", "answer_id", "annotator", "i_fingerprint", "j_fingerprint")
"""Columns a preference file may hold beside ``COLUMNS``: the Studio's export of who made each and how
(``Store.export_preferences``; a rule by its number in the session, by its store id in exports made before)
and of the rows' fingerprints (the Studio's import and the CLI's ``fit`` check
them; ``PreferenceSet`` reads past them), and the rows' ids as ``<id>_i``, ``<id>_j`` beside i and j."""

AS_TEXT = {"i_fingerprint": str, "j_fingerprint": str}
"""A CSV's columns read as written: a fingerprint '0687991417410372' is no number."""

MAX_WEIGHT = 1e6
"""The largest weight a preference may have.  A weight is a confidence relative to a label's (1); the
LP's optimum cannot be certified beyond about 1e7 (its duality gap exceeds the tolerance at 1e8), so
larger ones are refused where they come in (a rule's weight, an answer's, a file's) rather than making
every later fit fail."""

JSON_FORMAT = "ordercore.preferences"
JSON_VERSION = 1


VIOLATION_TOLERANCE = 1e-6
"""A preference counts as violated when its shortfall max(d - (f_i - f_j), 0) exceeds this fraction
of the target's scale (the LP's feasibility tolerance is 1e-7 in those units)."""


def _index_array(values, name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(values))
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds {array.max()}, too large for a row index")
    missing = np.flatnonzero(pd.isna(array)) if array.dtype.kind in "fO" else []
    if len(missing):  # a NaN or NA was reported as "got float64, e.g. 1.0", a valid value
        raise ValueError(
            f"{name} is missing (empty, NaN or NA) at position {missing[0]} (counting from 0; {len(missing)} in all): "
            f"each preference names a row, or ZERO = {ZERO} for a unary one's constant 0"
        )
    if array.size and not np.issubdtype(array.dtype, np.integer):
        if not np.issubdtype(array.dtype, np.number) or not np.all(np.isfinite(array)):
            example = next((v for v in array.tolist() if not isinstance(v, int) or isinstance(v, bool)), array[0])
            raise ValueError(f"{name} must hold row indices (integers), got {array.dtype}, e.g. {quoted(example)}")
        if np.any(array != np.round(array)):
            raise ValueError(f"{name} must hold row indices (integers), got fractional values")
    return array.astype(np.int64)


def _real_array(values, name: str) -> np.ndarray:
    raw = np.asarray(values)
    if raw.dtype == bool or (raw.dtype == object and any(isinstance(v, bool) for v in raw.ravel().tolist())):
        raise ValueError(f"{name} must be numeric, got a boolean (true or false)")
    try:
        array = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be numeric: {error}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be a scalar or one-dimensional, got shape {array.shape}")
    return array


def pair_codes(i: np.ndarray, j: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer names of row pairs, for set operations (``is_in``): keys min·n + max (the same
    two rows either way round) and codes 2·key + (i < j) (also the direction); ``code ^ 1`` is the
    reverse.  i, j : int arrays (p,) of rows in [0, n_rows) (or ``ZERO``); other rows would share codes."""
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    low, top = int(min(i.min(initial=0), j.min(initial=0))), int(max(i.max(initial=0), j.max(initial=0)))
    if top >= n_rows or low < ZERO:
        raise ValueError(
            f"n_rows is {n_rows} but the pairs name row {top if top >= n_rows else low}: n_rows must exceed "
            "every row named (rows 0 … n_rows - 1), or two different pairs would share a code"
        )
    keys = np.minimum(i, j) * n_rows + np.maximum(i, j)
    return keys, 2 * keys + (i < j)


def code_rows(codes: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows (i (k,), j (k,)) of pairs named by direction ``codes`` (k,) (``pair_codes``' inverse)."""
    low, high = np.divmod(np.asarray(codes, dtype=np.int64) >> 1, n_rows)
    upward = (codes & 1).astype(bool)  # the code's low bit: i < j
    return np.where(upward, low, high), np.where(upward, high, low)


def sorted_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (k,) of an int array (n,), sorted, and each value's position among them
    (n,): ``np.unique(values, return_inverse=True)`` by one sort (NumPy 2.4's hash-based unique takes
    30-70 times as long on 500,000 distinct integers)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    first = np.ones(values.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    inverse = np.empty(values.size, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def is_in(values: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Boolean mask (n,): which of ``values`` (n,) are among ``ordered`` (k,), sorted: ``np.isin`` by
    binary search (NumPy 2.4's takes 20-50 times as long against 500,000 distinct integers)."""
    if ordered.size == 0:
        return np.zeros(np.shape(values), dtype=bool)
    return ordered[np.minimum(np.searchsorted(ordered, values), ordered.size - 1)] == values


class PreferenceSet:
    """An immutable set of p order preferences f(x_i) - f(x_j) >= d with weight w.

    Parameters
    ----------
    i, j : array-like of int, shape (p,)
        Row indices into the X later given to ``fit``; ``ZERO`` (-1) stands for the constant 0.
    d : float or array-like, shape (p,)
        The margin d of each preference (units of the target); scalars broadcast.
    w : float or array-like, shape (p,)
        The weight (confidence) w >= 0 of each preference; scalars broadcast.

    Attributes ``i``, ``j``, ``margin`` and ``weight`` are read-only arrays of shape (p,).
    """

    __slots__ = ("i", "j", "margin", "weight")

    def __init__(self, i, j, d=0.0, w=1.0):
        lengths = {np.size(a) for a in (i, j, d, w) if np.ndim(a)}  # a list of one is not a scalar
        i = _index_array(i, "i")
        j = _index_array(j, "j")
        d = _real_array(d, "d (margin)")
        w = _real_array(w, "w (weight)")
        try:
            if len(lengths) > 1:
                raise ValueError
            i, j, d, w = np.broadcast_arrays(i, j, d, w)
        except ValueError:
            raise ValueError(
                f"i, j, d and w must have the same length or be scalars; got lengths "
                f"{i.size}, {j.size}, {d.size}, {w.size}"
            ) from None
        bad = np.flatnonzero((i == ZERO) & (j == ZERO))
        if bad.size:
            raise ValueError(
                f"a preference must name a row: both i and j are the constant 0 at positions {bad[:5].tolist()}"
            )
        bad = np.flatnonzero(i == j)
        if bad.size:
            raise ValueError(f"a preference needs two different points: i == j at positions {bad[:5].tolist()}")
        bad = np.flatnonzero((i < ZERO) | (j < ZERO))
        if bad.size:
            raise ValueError(
                f"indices must be >= 0 (or ZERO = -1 for unary preferences); bad positions {bad[:5].tolist()}"
            )
        bad = np.flatnonzero(~np.isfinite(d))
        if bad.size:
            raise ValueError(f"margin d must be finite; NaN or inf at positions {bad[:5].tolist()}")
        bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
        if bad.size:
            raise ValueError(f"weight w must be finite and >= 0; bad at positions {bad[:5].tolist()}")
        bad = np.flatnonzero(w > MAX_WEIGHT)
        if bad.size:
            raise ValueError(
                f"weight w must be at most {MAX_WEIGHT:g} (a confidence relative to a label's 1); "
                f"{w[bad[0]]:g} at position(s) {bad[:5].tolist()}"
            )
        self._store(i, j, d, w)

    def _store(self, i, j, margin, weight) -> None:
        for name, array in zip(self.__slots__, (i, j, margin, weight), strict=True):
            array = np.array(array)  # own, contiguous copy (also of a broadcast view)
            array.flags.writeable = False
            object.__setattr__(self, name, array)

    @classmethod
    def _trusted(cls, i, j, margin, weight) -> PreferenceSet:
        """A set from arrays taken from valid sets (no re-validation: concatenation, subsets)."""
        preferences = object.__new__(cls)
        preferences._store(i, j, margin, weight)
        return preferences

    def __setattr__(self, name, value):
        raise AttributeError("PreferenceSet is immutable; build a new one")

    def __reduce__(self):
        return PreferenceSet, (self.i, self.j, self.margin, self.weight)

    # ------------------------------------------------------------------ encodings
    @classmethod
    def order(cls, i, j, margin=0.0, weight=1.0) -> PreferenceSet:
        """x_i over x_j by at least ``margin``: f(x_i) - f(x_j) >= margin."""
        return cls(i, j, margin, weight)

    @classmethod
    def equal(cls, i, j, weight=1.0) -> PreferenceSet:
        """f(x_i) = f(x_j), as the pair (i, j, 0, w), (j, i, 0, w) (seed 001 §2)."""
        return cls.close(i, j, 0.0, weight)

    @classmethod
    def close(cls, i, j, epsilon, weight=1.0) -> PreferenceSet:
        """|f(x_i) - f(x_j)| <= epsilon, as (i, j, -eps, w), (j, i, -eps, w) (seed 001 §2)."""
        epsilon = _real_array(epsilon, "epsilon")
        if np.any(epsilon < 0):
            raise ValueError("closeness epsilon must be >= 0")
        return cls.between(i, j, -epsilon, epsilon, weight)

    @classmethod
    def between(cls, i, j, lower, upper, weight=1.0) -> PreferenceSet:
        """lower <= f(x_i) - f(x_j) <= upper, as (i, j, lower, w), (j, i, -upper, w)."""
        lower, upper = _real_array(lower, "lower"), _real_array(upper, "upper")
        if np.any(lower > upper):
            raise ValueError("between needs lower <= upper")
        return cls.concatenate([cls(i, j, lower, weight), cls(j, i, -upper, weight)])

    @classmethod
    def at_least(cls, i, bound, weight=1.0) -> PreferenceSet:
        """Unary f(x_i) >= bound, as (i, ZERO, bound, w)."""
        return cls(i, ZERO, bound, weight)

    @classmethod
    def at_most(cls, i, bound, weight=1.0) -> PreferenceSet:
        """Unary f(x_i) <= bound, as (ZERO, i, -bound, w)."""
        return cls(ZERO, i, -_real_array(bound, "bound"), weight)

    @classmethod
    def exactly(cls, i, value, weight=1.0) -> PreferenceSet:
        """Unary f(x_i) = value, as at_least and at_most together."""
        return cls.concatenate([cls.at_least(i, value, weight), cls.at_most(i, value, weight)])

    @classmethod
    def empty(cls) -> PreferenceSet:
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))

    @classmethod
    def concatenate(cls, sets) -> PreferenceSet:
        """One set holding the preferences of ``sets`` in order."""
        sets = list(sets)
        if not sets:
            return cls.empty()
        if not all(isinstance(s, PreferenceSet) for s in sets):
            raise TypeError("concatenate takes PreferenceSet objects")
        return cls._trusted(*(np.concatenate([getattr(s, name) for s in sets]) for name in cls.__slots__))

    def __add__(self, other: PreferenceSet) -> PreferenceSet:
        if not isinstance(other, PreferenceSet):
            return NotImplemented
        return PreferenceSet.concatenate([self, other])

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return self.i.size

    def __getitem__(self, positions) -> PreferenceSet:
        """The preferences at ``positions`` (int, slice, boolean mask or index array)."""
        mask = np.asarray(positions) if isinstance(positions, list | np.ndarray) else None
        if mask is not None and mask.dtype == bool and mask.shape != (len(self),):
            raise IndexError(f"a mask selects among the {len(self)} preferences, got one of length {mask.size}")
        return PreferenceSet._trusted(*(np.atleast_1d(getattr(self, name)[positions]) for name in self.__slots__))

    def __eq__(self, other) -> bool:
        if not isinstance(other, PreferenceSet):
            return NotImplemented
        return all(np.array_equal(getattr(self, n), getattr(other, n)) for n in self.__slots__)

    __hash__ = None

    def __repr__(self) -> str:
        return f"PreferenceSet(p={len(self)}, unary={int(self.is_unary.sum())})"

    @property
    def is_unary(self) -> np.ndarray:
        """Boolean mask (p,): preferences that compare a point with the constant 0."""
        return (self.i == ZERO) | (self.j == ZERO)

    def check_indices(self, n_samples: int) -> None:
        """Raise ``ValueError`` unless every index is ZERO or in [0, n_samples) (a whole number >= 0)."""
        n_samples = whole_number(n_samples, "n_samples")
        bad = np.flatnonzero((self.i >= n_samples) | (self.j >= n_samples))
        if bad.size:
            raise ValueError(
                f"preference index out of range: X has {n_samples} rows but preferences at positions "
                f"{bad[:5].tolist()} refer to rows up to {int(max(self.i.max(), self.j.max()))}"
            )

    def pair_codes(self, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
        """For pairwise preferences over n_rows rows: keys (p,) naming the two rows in either order,
        and codes (p,) naming them with their direction (see ``pair_codes``)."""
        return pair_codes(self.i, self.j, whole_number(n_rows, "n_rows"))

    def violation(self, f: np.ndarray) -> np.ndarray:
        """Shortfall max(d - (f_i - f_j), 0), shape (p,), for values f of shape (n_samples,)."""
        f = row_values(f, np.concatenate([self.i[self.i != ZERO], self.j[self.j != ZERO]]))
        f_i = np.where(self.i == ZERO, 0.0, f[self.i])
        f_j = np.where(self.j == ZERO, 0.0, f[self.j])
        return np.maximum(self.margin - (f_i - f_j), 0.0)

    def violated(self, f: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """Boolean mask (p,): the preferences f (n_samples,) violates, those whose shortfall exceeds
        ``VIOLATION_TOLERANCE`` times ``scale`` (the target's spread, e.g. the labels' standard
        deviation).  The one definition of "violated" in ordercore."""
        return self.violation(f) > VIOLATION_TOLERANCE * positive_scale(scale)

    # ------------------------------------------------------------------ round trips
    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({name: getattr(self, name) for name in COLUMNS})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> PreferenceSet:
        """From columns i, j and optional margin (default 0) and weight (default 1)."""
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                f"from_frame takes a pandas DataFrame (columns i, j[, margin, weight]), got {type(frame).__name__}"
            )
        repeated = frame.columns[frame.columns.duplicated()]
        if len(repeated):
            raise ValueError(f"the column {quoted(str(repeated[0]))} appears twice: which one is meant?")
        require_pairs(frame.columns)
        refuse_unknown_columns(frame.columns)
        return cls(
            frame["i"].to_numpy(),
            frame["j"].to_numpy(),
            frame["margin"].to_numpy() if "margin" in frame else 0.0,
            frame["weight"].to_numpy() if "weight" in frame else 1.0,
        )

    def to_csv(self, path=None) -> str | None:
        """Write CSV to ``path``, or return it as text when ``path`` is None."""
        return self.to_frame().to_csv(path, index=False, float_format="%.17g")

    @classmethod
    def from_csv(cls, source) -> PreferenceSet:
        """Read from a path (of UTF-8 text), a file object or CSV text (a str containing a newline)."""
        if isinstance(source, str) and not source.strip():  # was read as the path '.', a directory
            raise ValueError("from_csv takes CSV text or a path to a CSV file, got an empty string")
        if isinstance(source, str) and "\n" in source:
            source = io.StringIO(source)
        elif isinstance(source, str | os.PathLike):
            source = io.StringIO(_utf8(source, "CSV"))
        elif not hasattr(source, "read"):
            raise TypeError(
                f"from_csv reads a path (str or pathlib.Path), a file object or CSV text (a str holding a newline), "
                f"got {type(source).__name__}"
            )
        repeated = repeated_column(source) if hasattr(source, "seek") else None  # pandas renames a second i 'i.1'
        if repeated:
            raise ValueError(f"not a readable preference CSV: {repeated}: which one is meant?")
        try:
            frame = read_csv(source, dtype=AS_TEXT)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
            raise ValueError(f"not a readable preference CSV: {error}") from None
        return cls.from_frame(frame)

    def to_json(self, path=None) -> str | None:
        """JSON ``{"format", "version", "i", "j", "margin", "weight"}``; to ``path`` or as text."""
        document = {"format": JSON_FORMAT, "version": JSON_VERSION}
        document.update({name: getattr(self, name).tolist() for name in COLUMNS})
        text = json.dumps(document)
        if path is None:
            return text
        Path(path).write_text(text)
        return None

    @classmethod
    def from_json(cls, source) -> PreferenceSet:
        """Read from a path (of UTF-8 text) or JSON text: ``to_json``'s document, or a list of records
        {"i", "j"[, "margin", "weight"]} (rows by position)."""
        if not isinstance(source, str | os.PathLike):
            raise TypeError(f"from_json reads JSON text or a path (str or pathlib.Path), got {type(source).__name__}")
        if isinstance(source, str) and not source.strip():
            raise ValueError("from_json takes JSON text or a path to a JSON file, got an empty string")
        text = source.removeprefix("\ufeff") if isinstance(source, str) else ""  # a byte-order mark, as from_csv
        is_text = isinstance(source, str) and ("\n" in text or text.lstrip().startswith(("{", "[")))
        document = parse_preference_json(text if is_text else _utf8(source, "JSON"))
        if isinstance(document, list) and all(isinstance(record, dict) for record in document):
            refuse_wide_records(document)
            frame = pd.DataFrame.from_records(document, columns=None if document else ["i", "j"])
            require_pairs(frame.columns)  # before the cells are read (a KeyError 'i' for records without i)
            refuse_empty_cells(frame, "record")
            return cls.from_frame(frame)
        document = preference_document(document)
        return cls(*(document[name] for name in COLUMNS))


def _utf8(path, kind: str) -> str:
    """The text of a preference file; ``ValueError`` 'not a readable preference CSV: it is not UTF-8 ...'."""
    try:
        return read_utf8(path)
    except ValueError as error:
        raise ValueError(f"not a readable preference {kind}: {error}") from None


def parse_preference_json(text: str):
    try:
        return parse_json(text)
    except JSONLinesError as error:
        raise ValueError(f"not valid preference JSON: {error}: name the file .jsonl") from None
    except (ValueError, RecursionError) as error:
        raise ValueError(f"not valid preference JSON: {error}") from None


def preference_document(document) -> dict:
    """``PreferenceSet.to_json``'s parsed document, checked; ``ValueError`` for anything else."""
    if not isinstance(document, dict) or document.get("format") != JSON_FORMAT:
        raise ValueError(f'preference JSON must have "format": "{JSON_FORMAT}" (or be a list of records)')
    if "version" not in document:  # was 'unsupported preference JSON version None', as if None were written
        raise ValueError(f'preference JSON lacks its "version" field ({JSON_VERSION})')
    if document.get("version") != JSON_VERSION:
        raise ValueError(f"unsupported preference JSON version {quoted(document.get('version'))}")
    missing = [c for c in COLUMNS if c not in document]
    if missing:
        raise ValueError(f"preference JSON lacks {missing}")
    if not all(isinstance(document[c], list) for c in COLUMNS):
        raise ValueError(f"preference JSON's {', '.join(COLUMNS)} must be lists")
    lengths = [len(document[c]) for c in COLUMNS]
    if len(set(lengths)) > 1:
        raise ValueError(f"preference JSON's {', '.join(COLUMNS)} must have one length; got {lengths}")
    for column in ("margin", "weight"):
        bad = [v for v in document[column] if isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            raise ValueError(f"preference JSON's {column} must be numbers; got {quoted(bad[0])}")
    return document


def require_pairs(columns) -> None:
    """``ValueError`` for a preference table without the columns i and j, naming the columns it has."""
    missing = [c for c in ("i", "j") if c not in columns]
    if missing:
        found = ", ".join(quoted(str(c)) for c in list(columns)[:6]) + (", ..." if len(columns) > 6 else "")
        spaced = " (remove the spaces around the names)" if any(str(c).strip() in missing for c in columns) else ""
        raise ValueError(f"preference table lacks column(s) {missing}; expected {list(COLUMNS)}, found {found}{spaced}")


def refuse_unknown_columns(columns) -> None:
    """``ValueError`` naming the columns a preference table holds that no preference file has (a typo
    'wieght' was dropped silently, every weight read as 1), and the known ones."""
    names = [str(c) for c in columns]
    ids = {c[:-2] for c in names if c.endswith("_i") and c[:-2] + "_j" in names}
    known = set(COLUMNS) | set(EXPORT_COLUMNS) | {f"{stem}{end}" for stem in ids for end in ("_i", "_j")}
    unknown = [c for c in names if c not in known]
    lonely = next((c for c in unknown if c[-2:] in ("_i", "_j")), None)
    if lonely is not None:
        partner = lonely[:-2] + ("_j" if lonely.endswith("_i") else "_i")
        raise ValueError(f"the column {quoted(lonely)} has no partner {quoted(partner)}: ids come as <id>_i and <id>_j")
    if unknown:
        raise ValueError(
            f"unknown column(s) {', '.join(map(quoted, unknown[:5]))}: a preference file has the columns "
            f"{', '.join(COLUMNS)} (margin and weight optional), and may have {', '.join(EXPORT_COLUMNS)} and "
            "the rows' ids as <id>_i, <id>_j"
        )
