"""Data sets as the seeds prepare them, read from the directory in the environment variable
ORDERCORE_DATA (or any CSV with a chosen target column).

Preprocessing (seed 000 §Experiments, seed 001 §4.2): numeric features standardized to zero mean
and unit variance; a categorical feature with k values becomes k indicator (0/1) columns.
California falls back to scikit-learn's ``fetch_california_housing`` (a download, then cached)
when ORDERCORE_DATA is unset, mapped to the columns and units of ``cal_housing.csv``.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

DATA_ENVIRONMENT_VARIABLE = "ORDERCORE_DATA"
MAX_CATEGORIES = 50
"""A text column with more distinct values than this is refused as a feature (likely an id)."""


@dataclass(frozen=True)
class DatasetSpec:
    """Where a benchmark lives, what it predicts, and the seeds' partition (seed 001 Table 1)."""

    file: str
    target: str
    units: str
    n_labeled: int
    n_unlabeled: int
    categorical: tuple[str, ...] = ()


BENCHMARKS = {
    "boston": DatasetSpec("boston_housing.csv", "medv", "thousands of USD", 20, 200),
    "abalone": DatasetSpec("abalone.csv", "Rings", "rings", 30, 1000, categorical=("Gender",)),
    "california": DatasetSpec("cal_housing.csv", "median_house_value", "USD", 60, 1000),
}


@dataclass
class Dataset:
    """Model-ready features X (n, n_features), target y (n,) (NaN where unknown), the names of
    X's columns, the raw table as read (for rules and display), and metadata."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    frame: pd.DataFrame
    metadata: dict = field(default_factory=dict)


def data_directory() -> Path | None:
    value = os.environ.get(DATA_ENVIRONMENT_VARIABLE)
    return Path(value) if value else None


def standardize(X: np.ndarray) -> np.ndarray:
    """Zero mean, unit variance per column; a constant column becomes 0."""
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def prepare(frame: pd.DataFrame, target: str, features=None, categorical=None, name: str = "data") -> Dataset:
    """Features and target from a table: the seeds' preprocessing of ``features`` (default: every
    column but the target).  Text columns, and those named in ``categorical``, become indicators."""
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} is not in the table; columns are {list(frame.columns)}")
    features = [c for c in frame.columns if c != target] if features is None else list(features)
    unknown = [c for c in features if c not in frame.columns]
    if unknown:
        raise ValueError(f"feature column(s) {unknown} are not in the table")
    if target in features:
        raise ValueError(f"the target {target!r} cannot also be a feature")
    if not features:
        raise ValueError("choose at least one feature column")
    y = pd.to_numeric(frame[target], errors="coerce")
    bad = frame[target].notna() & y.isna()
    if bad.any():
        raise ValueError(f"target column {target!r} is not numeric (e.g. {frame[target][bad].iloc[0]!r})")
    if np.isinf(y).any():
        raise ValueError(f"target column {target!r} contains infinite values")
    categorical = set(categorical or ()) | {c for c in features if not pd.api.types.is_numeric_dtype(frame[c])}
    missing = [c for c in features if frame[c].isna().any()]
    if missing:
        raise ValueError(f"feature column(s) {missing} have missing values; fill or drop them first")
    numeric = [c for c in features if c not in categorical]
    blocks, names = [], []
    if numeric:
        values = frame[numeric].to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            raise ValueError("numeric features contain infinite values")
        blocks.append(standardize(values))
        names += numeric
    for column in [c for c in features if c in categorical]:
        levels = sorted(frame[column].astype(str).unique())
        if len(levels) > MAX_CATEGORIES:
            raise ValueError(
                f"column {column!r} has {len(levels)} distinct values; as a categorical feature it may have at "
                f"most {MAX_CATEGORIES} (is it an identifier?)"
            )
        indicators = (frame[column].astype(str).to_numpy()[:, None] == np.array(levels)[None, :]).astype(float)
        blocks.append(indicators)
        names += [f"{column}={level}" for level in levels]
    return Dataset(
        X=np.hstack(blocks),
        y=y.to_numpy(dtype=np.float64),
        feature_names=names,
        frame=frame,
        metadata={"name": name, "target": target, "features": features, "categorical": sorted(categorical)},
    )


def read_csv(source, max_rows: int = 200_000) -> pd.DataFrame:
    """A CSV from a path, a file object or bytes, as data only (no code runs); at most ``max_rows``."""
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    try:
        frame = pd.read_csv(source, nrows=max_rows + 1)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as error:
        raise ValueError(f"could not read the CSV: {error}") from None
    if len(frame) > max_rows:
        raise ValueError(f"the CSV has more than {max_rows} rows")
    if frame.empty or frame.shape[1] < 2:
        raise ValueError("the CSV needs a header and at least two columns (a target and a feature)")
    return frame


def load_csv(source, target: str, features=None, categorical=None, name: str | None = None) -> Dataset:
    """Any CSV with a chosen target column, through the same preprocessing as the benchmarks."""
    frame = read_csv(source)
    dataset = prepare(frame, target, features, categorical, name or getattr(source, "name", "uploaded"))
    dataset.metadata["source"] = str(source) if isinstance(source, str | Path) else "upload"
    return dataset


def _california_from_sklearn() -> pd.DataFrame:
    from sklearn.datasets import fetch_california_housing

    frame = fetch_california_housing(as_frame=True).frame
    # scikit-learn gives per-household averages and the value in units of $100,000
    households = (frame["Population"] / frame["AveOccup"]).round()
    return pd.DataFrame(
        {
            "longitude": frame["Longitude"],
            "latitude": frame["Latitude"],
            "housing_median_age": frame["HouseAge"],
            "total_rooms": (frame["AveRooms"] * households).round(),
            "total_bedrooms": (frame["AveBedrms"] * households).round(),
            "population": frame["Population"],
            "households": households,
            "median_income": frame["MedInc"],
            "median_house_value": frame["MedHouseVal"] * 100_000,
        }
    )


def load_dataset(name: str) -> Dataset:
    """One of ``BENCHMARKS`` ('boston', 'abalone', 'california'), prepared as the seeds do."""
    if name not in BENCHMARKS:
        raise ValueError(f"unknown data set {name!r}; choose one of {sorted(BENCHMARKS)}")
    spec = BENCHMARKS[name]
    directory = data_directory()
    if directory is None:
        if name != "california":
            raise FileNotFoundError(
                f"set {DATA_ENVIRONMENT_VARIABLE} to the directory that holds {spec.file} (the {name} data set)"
            )
        frame, source = _california_from_sklearn(), "sklearn.datasets.fetch_california_housing"
    else:
        path = directory / spec.file
        if not path.is_file():
            raise FileNotFoundError(
                f"{DATA_ENVIRONMENT_VARIABLE}={directory} holds no {spec.file} (the {name} data set)"
            )
        frame, source = read_csv(path), str(path)
    dataset = prepare(frame, spec.target, categorical=spec.categorical, name=name)
    dataset.metadata.update(source=source, units=spec.units)
    return dataset
