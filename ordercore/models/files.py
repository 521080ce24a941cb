"""Model files: a fitted estimator, its feature preprocessing and free metadata in one ``.npz``
that loads without unpickling or evaluating anything.

The archive holds plain numeric arrays (the estimator's fitted arrays) and one entry ``metadata``,
a JSON document (UTF-8 bytes as uint8) naming the format and its version, the estimator class
(one the registered model families save: ``registry.saved_classes``), its parameters and fitted
scalars, the array entries, the preprocessing and the caller's metadata.  Each estimator declares
what it keeps in ``_saved_arrays`` (entry -> (dtype, shape in named dimensions)) and
``_saved_scalars`` (entry -> type), and writes and reads it with ``_saved_state()`` and
``_restore_state(arrays, scalars)``.

Reading checks everything before it builds the estimator: every failure is one
``ModelFileError`` naming the file and what is wrong.  ``OSError`` (e.g. no such file) passes
through.
"""

from __future__ import annotations

import json
import math
import os
import uuid
import zipfile
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ordercore.data.tables import Preprocessing
from ordercore.exceptions import ModelFileError
from ordercore.inputs.text_files import file_path, parse_json
from ordercore.models.registry import saved_classes
from ordercore.preferences import COLUMNS, PreferenceSet

FORMAT = "ordercore-model"
FORMAT_VERSION = 1
"""Version of the layout written here; a reader refuses files of a later version."""

PREFERENCE_DTYPES = dict(zip(COLUMNS, ("int64", "int64", "float64", "float64"), strict=True))
"""A saved array of dtype 'preferences' is a PreferenceSet, kept as one entry per column."""

COMMON_SCALARS = {"n_features_in": int, "feature_names_in": (list, type(None))}
"""Scalars every model file keeps: scikit-learn's n_features_in_ and feature_names_in_."""

ARCHIVE_ERRORS = (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError)
"""What ``zipfile`` raises on a cut or damaged archive (OSError: a seek outside the file;
RuntimeError: a member marked encrypted)."""
READ_ERRORS = (ValueError, TypeError, IndexError, KeyError)

MAY_BE_NAN = {"y"}
"""Float arrays where NaN is a value a fit writes: the LP's y marks an unlabeled row with NaN (never inf)."""

DIAGNOSTICS = {
    "objective",
    "solve_time",
    "duality_gap",
    "log_evidence",
    "fitted_rho",
    "loo_coverage",
    "initial_violation",
}
"""Fitted numbers no prediction reads (reports on the fit), left unchecked: an old MPMR file's ρ is NaN."""


@dataclass(frozen=True)
class ModelFile:
    """What a model file holds: the fitted estimator, the preprocessing of its features (or None) and
    the caller's metadata (e.g. target and feature columns)."""

    estimator: object
    preprocessing: Preprocessing | None = None
    metadata: dict = field(default_factory=dict)


def save_model(path, estimator, preprocessing: Preprocessing | None = None, metadata: dict | None = None) -> None:
    """Write a fitted estimator (of a class a registered family saves) to ``path`` as an ``.npz``, atomically: the
    archive is written beside ``path`` and renamed over it, so ``path`` is never half written.

    Raises ``NotFittedError`` for an unfitted estimator, ``TypeError`` for another class, a
    parameter JSON cannot hold, metadata that is not a JSON object, preprocessing that is not a
    ``Preprocessing`` or a path that is no path; ``ValueError`` for a NUL in the path."""
    path = file_path(path)  # pathlib's bare 'embedded null byte' named no argument
    if not isinstance(preprocessing, Preprocessing | None):  # ended in AttributeError 'to_dict'
        raise TypeError(
            "preprocessing must be a Preprocessing (ordercore.data.tables.Preprocessing.fit(frame, features)) or "
            f"None, got {type(preprocessing).__name__}"
        )
    name, allowed = type(estimator).__name__, saved_classes()
    if allowed.get(name) is not type(estimator):
        raise TypeError(f"cannot save a {name}; model files hold one of {sorted(allowed)}")
    if not isinstance(metadata, dict | None):
        raise TypeError(f"metadata must be a dict, got {type(metadata).__name__}")
    check_is_fitted(estimator)
    arrays, scalars = estimator._saved_state()
    entries = _flatten(arrays, estimator._saved_arrays)
    names = getattr(estimator, "feature_names_in_", None)
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "ordercore_version": _package_version(),
        "estimator": name,
        "params": {key: _json_value(key, value) for key, value in estimator.get_params(deep=False).items()},
        "scalars": {
            **scalars,
            "n_features_in": int(estimator.n_features_in_),
            "feature_names_in": None if names is None else [str(n) for n in names],
        },
        "arrays": sorted(entries),
        "preprocessing": None if preprocessing is None else preprocessing.to_dict(),
        "metadata": {} if metadata is None else metadata,
    }
    try:
        text = json.dumps(document, default=_numpy_scalar)
    except TypeError as error:
        raise TypeError(f"the model's metadata must be JSON data (text, numbers, lists, dicts): {error}") from None
    entries["metadata"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    _write_atomically(path, entries)


def read_model(path) -> ModelFile:
    """The estimator, preprocessing and metadata of a file written by ``save_model``; raises
    ``ModelFileError`` naming the file and the problem, and never unpickles; ``TypeError`` for a path
    that is no path (None: "stat: path should be string, bytes, os.PathLike or integer")."""
    if not isinstance(path, str | bytes | os.PathLike):
        raise TypeError(f"a model file is read from a path (text or pathlib.Path), got {type(path).__name__}")
    if "\x00" in os.fsdecode(path):  # open's bare 'embedded null byte'
        raise ValueError(f"a model file's path holds a NUL byte, which no file name holds: {os.fsdecode(path)!r}")
    if os.path.isdir(path):
        raise ModelFileError(f"{path} is a directory, not a model file")
    with open(path, "rb") as file:  # OSError (no such file, no permission) passes through
        start = file.read(6)
    try:
        _check_start(start)
        with np.load(path, allow_pickle=False) as archive:
            return _read(archive, os.path.getsize(path))
    except ARCHIVE_ERRORS as error:
        raise ModelFileError(f"{path} is a damaged or truncated archive: {error} ({type(error).__name__})") from error
    except READ_ERRORS as error:
        raise ModelFileError(f"{path} is not a readable ordercore model file: {error}") from error


def load(path):
    """The fitted estimator saved in ``path`` (see ``read_model``)."""
    return read_model(path).estimator


# ---------------------------------------------------------------------- writing
def _entry_dtypes(spec: dict) -> dict[str, tuple[str, str, str | None]]:
    """entry -> (array it belongs to, dtype, PreferenceSet column or None) for an ``_saved_arrays``."""
    entries = {}
    for name, (dtype, _) in spec.items():
        if dtype == "preferences":
            entries.update({f"{name}.{c}": (name, PREFERENCE_DTYPES[c], c) for c in COLUMNS})
        else:
            entries[name] = (name, dtype, None)
    return entries


def _flatten(arrays: dict, spec: dict) -> dict[str, np.ndarray]:
    """The archive's entries: each array in its declared dtype, a PreferenceSet as one per column."""
    return {
        entry: np.ascontiguousarray(arrays[name] if column is None else getattr(arrays[name], column), dtype)
        for entry, (name, dtype, column) in _entry_dtypes(spec).items()
    }


def _json_value(key: str, value):
    """A parameter as JSON holds it (tuples as lists); ``TypeError`` if it cannot."""
    if isinstance(value, tuple):
        return [_json_value(key, v) for v in value]
    if isinstance(value, np.bool_ | np.integer | np.floating):
        return value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"parameter {key}={value!r} cannot be saved in a model file; use a number, text or None")


def _numpy_scalar(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _package_version() -> str | None:
    try:
        return version("ordercore")
    except PackageNotFoundError:
        return None


def _write_atomically(path: Path, entries: dict[str, np.ndarray]) -> None:
    """np.savez to a new file in path's directory, flushed to disk, then renamed over path (over a
    symbolic link's target: the link stays, as a CSV or JSON written through it)."""
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot write {path}: no directory {path.parent}")
    if path.is_dir():  # os.replace said so naming the temporary file
        raise IsADirectoryError(f"cannot write {path}: it is a directory")
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "xb") as file:
            np.savez(file, **entries)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


# ---------------------------------------------------------------------- reading
def _check_start(start: bytes) -> None:
    """Refuse a file whose first bytes are not a zip's before numpy reads it (numpy would take them
    for a .npy array or a pickle)."""
    if start == b"\x93NUMPY":
        raise ValueError("it is a single .npy array, not an .npz archive")
    if not start.startswith(b"PK\x03\x04"):
        raise ValueError("it is not an .npz archive (a zip file); an empty, cut or foreign file?")


def _read(archive, file_size: int) -> ModelFile:
    """Check the archive's metadata, then its arrays and scalars, then build the estimator."""
    if "metadata.npy" not in archive.zip.namelist():
        raise ValueError("it has no 'metadata' entry, so it is not an ordercore model (a foreign .npz?)")
    document = _document(_entry(archive, "metadata", "uint8", file_size))
    cls = saved_classes()[document["estimator"]]
    estimator = _estimator(cls, document["params"])
    scalars = _scalars(document["scalars"], {**cls._saved_scalars, **COMMON_SCALARS}, _later(cls, "scalars"))
    dims = {"n_features": scalars["n_features_in"]}
    arrays = _arrays(archive, document["arrays"], cls._saved_arrays, dims, file_size)
    _refuse_non_finite(arrays, scalars)
    preprocessing = None if document["preprocessing"] is None else Preprocessing.from_dict(document["preprocessing"])
    if not isinstance(document["metadata"], dict):
        raise ValueError("its metadata must be a JSON object")
    estimator._restore_state(arrays, scalars)
    estimator.n_features_in_ = scalars["n_features_in"]
    if scalars["feature_names_in"] is not None:
        estimator.feature_names_in_ = _feature_names(scalars["feature_names_in"], scalars["n_features_in"])
    return ModelFile(estimator, preprocessing, document["metadata"])


def _document(raw: np.ndarray) -> dict:
    """The metadata's JSON document, checked for format, version, estimator and keys."""
    try:
        document = parse_json(raw.tobytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise ValueError(f"its metadata is not valid JSON ({error})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"its metadata does not say format {FORMAT!r}, so it is not an ordercore model")
    found = document.get("version")
    if not isinstance(found, int) or isinstance(found, bool) or found < 1:
        raise ValueError(f"its format version {found!r} is not a positive integer")
    if found > FORMAT_VERSION:
        raise ValueError(
            f"it was written by a newer ordercore ({document.get('ordercore_version')}, format version {found}); "
            f"this ordercore reads version {FORMAT_VERSION}: upgrade ordercore"
        )
    keys = {"version", "ordercore_version", "estimator", "params", "scalars", "arrays", "preprocessing", "metadata"}
    missing = sorted(keys - set(document))
    if missing:
        raise ValueError(f"its metadata lacks {missing}")
    allowed = saved_classes()
    if not isinstance(document["estimator"], str) or document["estimator"] not in allowed:
        raise ValueError(f"unknown estimator class {document['estimator']!r}; model files hold {sorted(allowed)}")
    return document


def _estimator(cls, params):
    """An unfitted ``cls`` with ``params``, as its own parameter validation accepts them.  Parameters
    the class added after a file was written (``_later_params``) may be absent: they take defaults."""
    if isinstance(params, dict):
        params = {**{k: v for k, v in cls().get_params(deep=False).items() if k in _later(cls, "params")}, **params}
    _same_names(f"{cls.__name__} parameters", set(cls().get_params(deep=False)), params)
    estimator = cls().set_params(**{k: tuple(v) if isinstance(v, list) else v for k, v in params.items()})
    estimator._validate_params()
    return estimator


def _later(cls, what: str):
    """What ``cls`` declares it added to model files after format version 1: parameter names
    (``_later_params``) or scalars with the value files written before meant (``_later_scalars``)."""
    return getattr(cls, f"_later_{what}", {} if what == "scalars" else set())


def _scalars(scalars, types: dict, later: dict) -> dict:
    """The fitted scalars, each of its declared type (a float may be written as an integer); those
    in ``later`` may be absent and then take its values."""
    if isinstance(scalars, dict):
        scalars = {**later, **scalars}
    _same_names("scalars", set(types), scalars)
    for name, allowed in types.items():
        value, allowed = scalars[name], allowed if isinstance(allowed, tuple) else (allowed,)
        if float in allowed and isinstance(value, int) and not isinstance(value, bool):
            scalars[name] = value = float(value)
        if not isinstance(value, allowed) or isinstance(value, bool):
            raise ValueError(f"scalar {name!r} is {value!r}; expected {' or '.join(t.__name__ for t in allowed)}")
    return scalars


def _arrays(archive, listed, spec: dict, dims: dict, file_size: int) -> dict:
    """The declared arrays (those the metadata lists and the archive holds), each of its dtype and
    of shapes that agree on every named dimension."""
    entries = _entry_dtypes(spec)
    members = {member.removesuffix(".npy") for member in archive.zip.namelist()}
    _same_names("arrays", set(entries), members - {"metadata"})
    if listed != sorted(entries):
        raise ValueError(f"its metadata lists the arrays {listed!r}, expected {sorted(entries)}")
    columns = {name: {} for name in spec}
    for entry, (name, dtype, column) in entries.items():
        columns[name][column] = _shaped(_entry(archive, entry, dtype, file_size), spec[name][1], dims, entry)
    return {
        name: PreferenceSet(*(found[c] for c in COLUMNS)) if spec[name][0] == "preferences" else found[None]
        for name, found in columns.items()
    }


def _entry(archive, name: str, dtype: str, file_size: int) -> np.ndarray:
    """Entry ``name``, read only once its header shows ``dtype`` (never object) and a size the file
    can hold: an uncompressed member, so that a forged shape cannot make numpy allocate more."""
    info = archive.zip.getinfo(f"{name}.npy")
    if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size or info.file_size > file_size:
        raise ValueError(f"entry {name!r} is compressed or larger than the file (np.savez writes neither)")
    with archive.zip.open(info) as member:
        major_minor = np.lib.format.read_magic(member)
        if major_minor not in ((1, 0), (2, 0)):
            raise ValueError(f"entry {name!r} has .npy format version {major_minor}")
        header = np.lib.format.read_array_header_1_0 if major_minor == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, found = header(member)
    if found.hasobject:
        raise ValueError(f"entry {name!r} holds Python objects, which only unpickling could read (refused)")
    if found != np.dtype(dtype):
        raise ValueError(f"entry {name!r} holds {found}, expected {dtype}")
    if math.prod(shape) * found.itemsize > info.file_size:
        raise ValueError(f"entry {name!r} claims shape {shape}, more than its {info.file_size} bytes hold")
    return archive[name]


def _refuse_non_finite(arrays: dict, scalars: dict) -> None:
    """``ValueError`` naming a float array or scalar holding NaN or inf where no fit writes one."""
    for name, value in arrays.items():
        if name in DIAGNOSTICS or not isinstance(value, np.ndarray) or value.dtype.kind != "f":
            continue
        bad = np.isinf(value) if name in MAY_BE_NAN else ~np.isfinite(value)
        if bad.any():
            raise ValueError(
                f"array {name!r} holds {value[bad][0]} at {np.argwhere(bad)[0].tolist()}; fits write finite numbers"
            )
    for name, value in scalars.items():
        if name not in DIAGNOSTICS and isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"scalar {name!r} is {value}; fits write a finite number")


def _shaped(array: np.ndarray, shape: tuple[str, ...], dims: dict, name: str) -> np.ndarray:
    """``array`` if its shape matches ``shape``, binding each named dimension on first sight."""
    if array.ndim != len(shape):
        raise ValueError(f"array {name!r} has shape {array.shape}, expected {len(shape)} dimension(s) {shape}")
    for size, dim in zip(array.shape, shape, strict=True):
        if dims.setdefault(dim, size) != size:
            raise ValueError(f"array {name!r} has shape {array.shape}, but {dim} is {dims[dim]}")
    return array


def _same_names(what: str, expected: set, found) -> None:
    """Raise ``ValueError`` unless ``found`` (a dict or set) has exactly the names ``expected``."""
    names = set(found) if isinstance(found, dict | set) else set()
    if not isinstance(found, dict | set) or names != expected:
        missing, extra = sorted(expected - names), sorted(names - expected)
        raise ValueError(f"its {what} do not match: missing {missing}, extra {extra}")


def _feature_names(names: list, n_features: int) -> np.ndarray:
    """scikit-learn's feature_names_in_ (n_features,) from a list of text."""
    if len(names) != n_features or not all(isinstance(name, str) for name in names):
        raise ValueError(f"feature_names_in must be {n_features} names (text)")
    return np.asarray(names, dtype=object)
