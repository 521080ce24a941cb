"""Tables as the seeds prepare them (or any CSV with a chosen target column).

Preprocessing (seed 000 §Experiments, seed 001 §4.2): numeric features standardized to zero mean
and unit variance; a categorical feature with k values becomes k indicator (0/1) columns.
``Preprocessing`` fits both on one table and applies them to any other (a saved model's new data).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.data.feature_checks import (
    KINDS,
    as_levels,
    category_levels,
    check_levels,
    column_kind,
    empty_texts,
    refuse_infinite,
    refuse_other_kind,
    refuse_stray_text,
)
from ordercore.inputs import csv_floats
from ordercore.inputs.feature_names import listed
from ordercore.inputs.missing_words import READ_OPTIONS, missing_words
from ordercore.inputs.printable import quoted as _cell
from ordercore.inputs.table_width import refuse_wide_header
from ordercore.inputs.text_files import file_path
from ordercore.numerics.magnitudes import standard_deviation


@dataclass
class Dataset:
    """Model-ready features X (n, n_features), target y (n,) (NaN where unknown), the names of
    X's columns, the raw table as read (for rules and display), metadata, and the preprocessing
    that made X (to apply to other tables)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    frame: pd.DataFrame
    metadata: dict = field(default_factory=dict)
    preprocessing: Preprocessing | None = None


@dataclass(frozen=True)
class Preprocessing:
    """The seeds' feature preprocessing fitted on one table: each numeric column standardized by that
    table's mean and standard deviation (scale 1 for a constant column), each categorical column
    turned into one indicator per level (as text) seen there.  ``transform`` applies the same to any
    table with those columns, so a model fitted on one table can predict on another, and refuses a
    column holding another kind of values than it held (``kinds``: numbers, True/False or text; numbers
    in ``ranges``, low and high); both are () in files written before they were recorded."""

    numeric: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    categorical: tuple[tuple[str, tuple[str, ...]], ...] = ()
    kinds: tuple[str, ...] = ()
    """Per column, numeric then categorical: what it held (``feature_checks.KINDS``)."""
    ranges: tuple[tuple[float, float], ...] = ()
    """Per numeric column: its smallest and largest value."""

    @classmethod
    def fit(cls, frame: pd.DataFrame, features, categorical=()) -> Preprocessing:
        """Fit on ``frame``'s ``features``; text columns, and those named in ``categorical``, become
        indicators.  Raises ``ValueError`` on unknown columns, missing or infinite values, and text
        columns with more than ``feature_checks.MAX_CATEGORIES`` values."""
        features = list(features)
        unknown = [c for c in features if c not in frame.columns]
        if unknown:
            raise ValueError(f"feature column(s) {unknown} are not in the table")
        if not features:
            raise ValueError("choose at least one feature column")
        repeated = sorted({c for c in features if features.count(c) > 1}, key=str)
        if repeated:
            raise ValueError(f"feature column(s) {repeated} are named more than once")
        named = set(categorical or ())
        categorical = named | {c for c in features if not pd.api.types.is_numeric_dtype(frame[c])}
        for column in sorted(categorical - named, key=features.index):
            refuse_stray_text(frame[column])
        missing = [c for c in features if frame[c].isna().any() or empty_texts(frame[c])]
        if missing:  # (an empty text reads back from a CSV as missing: refused now, not when the store reads it)
            raise ValueError(f"feature column(s) {missing} have missing values or empty texts; fill or drop them first")
        numeric = [c for c in features if c not in categorical]
        values = frame[numeric].to_numpy(dtype=np.float64)
        refuse_infinite(values, numeric)
        levels = tuple((c, category_levels(frame[c], c in named)) for c in features if c in categorical)
        std = standard_deviation(values, axis=0)
        with np.errstate(over="ignore", invalid="ignore"):  # a mean beyond float64: transform refuses
            mean, scale = values.mean(axis=0), np.where(std > 0, std, 1.0)
        kinds = tuple(column_kind(frame[c]) for c in [*numeric, *(column for column, _ in levels)])
        low, high = (values.min(axis=0), values.max(axis=0)) if len(values) else ((), ())
        ranges = tuple(zip(map(float, low), map(float, high), strict=True))
        return cls(tuple(numeric), tuple(map(float, mean)), tuple(map(float, scale)), levels, kinds, ranges)

    @property
    def feature_names(self) -> list[str]:
        """Names of ``transform``'s columns: the numeric columns, then 'column=level' indicators."""
        return list(self.numeric) + [f"{column}={level}" for column, levels in self.categorical for level in levels]

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """Features of ``frame`` (n, len(feature_names)); a level not seen by ``fit`` gives all-zero
        indicators, with a warning, and a column holding none of its levels is refused (``check_levels``).
        Raises ``ValueError`` naming missing columns, missing or non-numeric values, and a
        column holding another kind of values than ``fit`` saw (``feature_checks.refuse_other_kind``)."""
        columns = list(self.numeric) + [column for column, _ in self.categorical]
        absent = [c for c in columns if c not in frame.columns]
        if absent:
            raise ValueError(f"the table lacks the feature column(s) {absent} that the model was fitted on")
        missing = [c for c in columns if frame[c].isna().any()]
        if missing:
            raise ValueError(f"feature column(s) {missing} have missing values; fill or drop them first")
        kinds = dict(zip(columns, self.kinds, strict=True)) if self.kinds else {}
        ranges = dict(zip(self.numeric, self.ranges, strict=True)) if self.ranges else {}
        for column, mean in zip(self.numeric, self.mean, strict=True):
            refuse_other_kind(frame[column], kinds.get(column), ranges.get(column), mean=mean)
        for column, levels in self.categorical:
            refuse_other_kind(frame[column], kinds.get(column), levels=levels)
            check_levels(frame[column], levels)
        values = frame[list(self.numeric)].to_numpy(dtype=np.float64)
        refuse_infinite(values, self.numeric)
        # x~ = (x - mean) / scale, the fitting table's mean and scale
        with np.errstate(over="ignore", invalid="ignore"):
            blocks = [(values - np.array(self.mean)) / np.array(self.scale)]
        wide = [
            column
            for column, finite in zip(self.numeric, np.isfinite(blocks[0]).all(axis=0), strict=True)
            if not finite
        ]
        if wide:
            raise ValueError(f"feature column(s) {wide} span too wide a range for float64 to standardise; rescale them")
        for column, levels in self.categorical:
            blocks.append((as_levels(frame[column], levels)[:, None] == np.array(levels)[None, :]).astype(float))
        return np.hstack(blocks)

    def to_dict(self) -> dict:
        """A JSON-safe dictionary that ``from_dict`` reads back."""
        columns = list(self.numeric) + [column for column, _ in self.categorical]
        if not all(isinstance(c, str) for c in columns):
            raise TypeError(f"column names must be text to be saved, got {columns}")
        written = {
            "numeric": list(self.numeric),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "categorical": [{"column": column, "levels": list(levels)} for column, levels in self.categorical],
        }
        if self.kinds:
            written["kinds"] = dict(zip(columns, self.kinds, strict=True))
        if self.ranges:
            written["ranges"] = {column: list(pair) for column, pair in zip(self.numeric, self.ranges, strict=True)}
        return written

    @classmethod
    def from_dict(cls, data) -> Preprocessing:
        """The preprocessing ``to_dict`` wrote (``kinds`` and ``ranges`` absent from files written before
        they were recorded); raises ``ValueError`` on anything else."""
        required = {"numeric", "mean", "scale", "categorical"}
        if not isinstance(data, dict) or not required <= set(data) <= required | {"kinds", "ranges"}:
            raise ValueError(
                "preprocessing must be a dictionary of numeric, mean, scale and categorical (and kinds and ranges)"
            )
        numeric = _texts(data["numeric"], "preprocessing numeric")
        mean, scale = _numbers(data["mean"], "preprocessing mean"), _numbers(data["scale"], "preprocessing scale")
        if not len(numeric) == len(mean) == len(scale) or not all(value > 0 for value in scale):
            raise ValueError("preprocessing needs one mean and one positive scale per numeric column")
        if not isinstance(data["categorical"], list):
            raise ValueError("preprocessing categorical must be a list")
        categorical = []
        for entry in data["categorical"]:
            if not isinstance(entry, dict) or set(entry) != {"column", "levels"}:
                raise ValueError("each preprocessing categorical entry must hold a column and its levels")
            column = _texts([entry["column"]], "preprocessing categorical column")[0]
            categorical.append((column, _texts(entry["levels"], f"levels of {_cell(column)}")))
        columns = list(numeric) + [column for column, _ in categorical]
        if not columns or len(set(columns)) != len(columns):
            raise ValueError(f"preprocessing columns must be distinct and at least one, got {columns}")
        kinds = _kinds(data.get("kinds"), columns)
        ranges = _ranges(data.get("ranges"), numeric)
        return cls(numeric, mean, scale, tuple(categorical), kinds, ranges)


def _kinds(kinds, columns: list[str]) -> tuple[str, ...]:
    """A preprocessing's ``kinds`` (column -> one of ``KINDS``) as a tuple in ``columns``' order; () when absent."""
    if kinds is None:
        return ()
    if not isinstance(kinds, dict) or set(kinds) != set(columns) or not all(kinds[c] in KINDS for c in columns):
        raise ValueError(f"preprocessing kinds must name each of the columns {columns} one of {list(KINDS)}")
    return tuple(kinds[c] for c in columns)


def _ranges(ranges, numeric: tuple[str, ...]) -> tuple[tuple[float, float], ...]:
    """A preprocessing's ``ranges`` (numeric column -> [low, high]) in ``numeric``'s order; () when absent."""
    if ranges is None:
        return ()
    if not isinstance(ranges, dict) or set(ranges) != set(numeric):
        raise ValueError(f"preprocessing ranges must give the low and high of each of {list(numeric)}")
    pairs = tuple(_numbers(ranges[c], f"the range of {_cell(c)}") for c in numeric)
    if not all(len(pair) == 2 and pair[0] <= pair[1] for pair in pairs):
        raise ValueError("each preprocessing range must be [low, high] with low <= high")
    return pairs


def _texts(values, what: str) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise ValueError(f"{what} must be a list of text")
    return tuple(values)


def _numbers(values, what: str) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(
        isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value) for value in values
    ):
        raise ValueError(f"{what} must be a list of finite numbers")
    return tuple(float(value) for value in values)


def target_values(frame: pd.DataFrame, target: str) -> np.ndarray:
    """The target column as floats (n,), NaN in empty cells (unlabeled rows); ``ValueError`` for
    text or infinite values."""
    y = pd.to_numeric(frame[target], errors="coerce")
    bad = frame[target].notna() & y.isna()
    if bad.any():
        raise ValueError(f"target column {_cell(target)} is not numeric (e.g. {_cell(frame[target][bad].iloc[0])})")
    if np.isinf(y).any():
        raise ValueError(f"target column {_cell(target)} contains infinite values")
    return y.to_numpy(dtype=np.float64)


def prepare(frame: pd.DataFrame, target: str, features=None, categorical=None, name: str = "data") -> Dataset:
    """Features and target from a table: the seeds' preprocessing of ``features`` (default: every
    column but the target), fitted on this table (``Preprocessing``).  Text columns, and those named
    in ``categorical``, become indicators."""
    if target not in frame.columns:
        raise ValueError(f"target column {_cell(target)} is not in the table; columns are {listed(frame.columns)}")
    features = [c for c in frame.columns if c != target] if features is None else list(features)
    if target in features:
        raise ValueError(f"the target {_cell(target)} cannot also be a feature")
    y = target_values(frame, target)
    preprocessing = Preprocessing.fit(frame, features, categorical or ())
    categorical = set(categorical or ()) | {column for column, _ in preprocessing.categorical}
    return Dataset(
        X=preprocessing.transform(frame),
        y=y,
        feature_names=preprocessing.feature_names,
        frame=frame,
        metadata={"name": name, "target": target, "features": features, "categorical": sorted(categorical)},
        preprocessing=preprocessing,
    )


MAX_CSV_BYTES = 200 * 2**20
"""The largest CSV ``read_csv`` reads (200 MB; the Studio's uploads stop at 50 MB): beyond it a table
takes more memory than a 2-core machine's session should, and a file that large is most likely not
the table meant."""

DELIMITERS = (",", ";", "\t", "|")
"""The column separators ``read_csv`` recognises, from the header line: the one it holds most of."""


COMPRESSED = {b"\x1f\xef\xbf\xbd": "gzip", b"PK\x03\x04": "zip", b"BZh": "bzip2", b"\xef\xbf\xbd7zXZ": "xz"}
"""The first bytes of compressed files, as ``_first_line``'s text (a byte not UTF-8 read as U+FFFD) holds them."""


def read_csv(source, max_rows: int = 200_000, text_columns=()) -> pd.DataFrame:
    """A CSV from a path, a file object or bytes, as data only (no code runs); at most ``max_rows``.
    Columns separated by commas, or by the ``DELIMITERS`` mark the header line holds most of; the
    ``text_columns`` read as written (an id '00041' is not the number 41).  Empty cells are missing, and
    words such as 'NA' or 'None' only in a column of numbers: in text they are levels (``missing_words``)."""
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    elif isinstance(source, str | Path) and not file_path(source).is_file():  # a NUL in it: said, not pathlib's
        source = _read_once(source)
    size = _size(source)
    if size > MAX_CSV_BYTES:
        raise ValueError(
            f"the CSV holds {size:,} bytes; at most {MAX_CSV_BYTES:,} ({MAX_CSV_BYTES / 2**20:g} MB) are read"
        )
    first = _first_line(source)
    packed = next(
        (kind for magic, kind in COMPRESSED.items() if first.encode("utf-8", "replace").startswith(magic)), None
    )
    if packed is not None:  # pandas unpacked a .gz path, the separator was looked for in its packed bytes
        raise ValueError(f"the file is {packed}-compressed, not CSV text: decompress it first")
    if re.fullmatch(r'"?sep=.?"?', first.strip()):
        raise ValueError(f"line 1 is Excel's {first.strip()[:40]!r} line, not a header: remove it")
    try:
        return _parse(source, max_rows, text_columns)
    except ValueError as error:
        if first.lstrip().startswith("#"):
            raise ValueError(f"{error} (line 1, {_cell(first.strip())}, was taken as the header)") from None
        raise


def _read_once(path) -> io.BytesIO:
    """The bytes of a path that is no regular file (a pipe: /dev/stdin, <(...)), which can be read only once."""
    with open(path, "rb") as file:
        raw = file.read(MAX_CSV_BYTES + 1)
    return io.BytesIO(raw)


def _parse(source, max_rows: int, text_columns) -> pd.DataFrame:
    """``read_csv``'s table from ``source``, a path or a seekable file object."""
    sep, start = delimiter(source), source.tell() if hasattr(source, "read") else 0
    refuse_wide_header(source, sep)  # before pandas reads the header, at 0.1 ms a column
    try:
        names = _header(source, sep)
        text = dict.fromkeys(text_columns, str)
        frame = csv_floats.read_csv(source, nrows=max_rows + 1, sep=sep, dtype=text, **READ_OPTIONS)
    except UnicodeDecodeError:
        raise ValueError(
            f"could not read the CSV: it is not UTF-8 text ({bad_byte(source, start)}); save it as UTF-8"
        ) from None
    except pd.errors.EmptyDataError:
        raise ValueError("could not read the CSV: the file is empty (no header, no rows)") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise ValueError(f"could not read the CSV: {error}") from None
    if len(frame) > max_rows:
        raise ValueError(f"the CSV has more than {max_rows} rows")
    if frame.shape[1] < 2:
        raise ValueError("the CSV needs a header and at least two columns (a target and a feature)")
    if frame.empty:
        raise ValueError(f"the CSV has a header ({', '.join(map(str, frame.columns[:5]))}) but no rows")
    _check_names(names, frame)
    _refuse_second_header(frame)
    return _wide_integers(missing_words(frame, text_columns), text_columns)


def _refuse_second_header(frame: pd.DataFrame) -> None:
    """``ValueError`` naming the line (the header is line 1) of a row that repeats the header: two files
    pasted together, whose second header was read as a row ("feature column 'latitude' is not numeric")."""
    first = frame.iloc[:, 0]
    if pd.api.types.is_numeric_dtype(first):
        return
    names = np.asarray([str(c) for c in frame.columns], dtype=object)
    for row in np.flatnonzero(first.astype(str).eq(names[0]).to_numpy()):
        if (frame.iloc[row].astype(str).to_numpy() == names).all():
            raise ValueError(f"line {row + 2} repeats the header line (two files pasted together?): remove it")


WHOLE_NUMBER = re.compile(r"\s*[+-]?[0-9]+\s*")
"""A cell pandas left as text though it is a whole number (one beyond int64: pandas 2 keeps its column's
cells as text, pandas 3 as Python ints)."""


def _wide_integers(frame: pd.DataFrame, text_columns=()) -> pd.DataFrame:
    """``frame`` with each column of whole numbers pandas left as 'object' (an integer beyond int64, e.g.
    99999999999999999999999, does that to the whole column) read as floats, as a decimal point would
    read it: a number, never a category; ``text_columns`` (asked for as text) stay.  One beyond float64's
    range reads as inf, which the preprocessing refuses naming its row."""
    for column in frame.columns[[dtype == np.dtype(object) for dtype in frame.dtypes]]:
        present = frame[column].dropna()
        if column not in text_columns and len(present) and all(map(_whole, present)):
            frame[column] = [np.nan if pd.isna(v) else _float(int(v)) for v in frame[column]]
    return frame


def _whole(value) -> bool:
    """Whether ``value`` is a whole number read as text or a Python int; text of over 400 characters is
    not (beyond float64's 309 digits anyway; int() refuses 4,300 digits, and such a cell is refused by
    the preprocessing, quoted short)."""
    if isinstance(value, str):
        return len(value) <= 400 and WHOLE_NUMBER.fullmatch(value) is not None
    return isinstance(value, int) and not isinstance(value, bool)


def _float(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return np.inf if value > 0 else -np.inf


def _header(source, sep: str) -> list[str]:
    """The header line's names as written ("" for an empty one), ``source`` left where it was."""
    start = source.tell() if hasattr(source, "read") else None
    try:
        first = pd.read_csv(source, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
    finally:
        if start is not None:
            source.seek(start)
    return list(first.iloc[0]) if len(first) else []


def _check_names(names: list[str], frame: pd.DataFrame) -> None:
    """``ValueError`` for a name the header repeats (pandas would rename it 'name.1'), or an empty name:
    over an empty column (a trailing comma on every line), or over values (a row index saved with the
    table: pandas would call it 'Unnamed: 0' and make it a feature)."""
    for position, name in enumerate(names):
        if name == "" and position < frame.shape[1] and frame.iloc[:, position].isna().all():
            raise ValueError(
                f"the header's column {position + 1} has an empty name and no values (a trailing comma on each "
                "line?): remove it"
            )
        if name == "":
            raise ValueError(
                f"the header's column {position + 1} has no name (a row index saved with the table?): name it, "
                "or remove it"
            )
    seen = {}
    for position, name in enumerate(names, 1):
        if name in seen:
            raise ValueError(f"the header names the column {_cell(name)} twice (columns {seen[name]} and {position})")
        seen[name] = position


def bad_byte(source, start: int) -> str:
    """Where the first byte that is not UTF-8 is, from ``start`` of a file object (or a path's start):
    'byte 0xfc on line 5, column 40'."""
    if hasattr(source, "read"):
        source.seek(start)
        raw = source.read()
        source.seek(start)
    else:
        raw = Path(source).read_bytes()
    raw = raw if isinstance(raw, bytes) else raw.encode("utf-8", errors="surrogateescape")
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = raw.rfind(b"\n", 0, error.start) + 1
        line = raw.count(b"\n", 0, error.start) + 1
        column = len(raw[line_start : error.start].decode("utf-8", errors="replace")) + 1
        return f"byte {raw[error.start]:#x} on line {line}, column {column}"
    return "a byte that is not UTF-8"


def _size(source) -> int:
    """The bytes left to read in ``source``, a path or a seekable file object (left where it was)."""
    if not hasattr(source, "read"):
        return Path(source).stat().st_size
    start = source.tell()
    end = source.seek(0, io.SEEK_END)
    source.seek(start)
    return end - start


def delimiter(source) -> str:
    """The ``DELIMITERS`` mark the first line of ``source`` (a path or a seekable file object, read back
    to where it was) holds most of; ',' when it holds none."""
    first = _first_line(source)
    counts = {mark: first.count(mark) for mark in DELIMITERS}
    best = max(DELIMITERS, key=counts.get)
    return best if counts[best] else ","


def _first_line(source) -> str:
    """The first line of ``source`` (a path or a seekable file object, read back to where it was), at most
    64 KiB, as text."""
    if hasattr(source, "read"):
        start = source.tell()
        first = source.readline(65_536)
        source.seek(start)
    else:
        with open(source, "rb") as file:
            first = file.readline(65_536)
    return first.decode("utf-8", errors="replace") if isinstance(first, bytes) else first


def load_csv(source, target: str, features=None, categorical=None, name: str | None = None) -> Dataset:
    """Any CSV with a chosen target column, through the same preprocessing as the benchmarks."""
    frame = read_csv(source)
    dataset = prepare(frame, target, features, categorical, name or getattr(source, "name", "uploaded"))
    dataset.metadata["source"] = str(source) if isinstance(source, str | Path) else "upload"
    return dataset
