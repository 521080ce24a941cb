"""The seeds' data sets, read from the directory in the environment variable ORDERCORE_DATA.

California falls back to scikit-learn's ``fetch_california_housing`` (a download, then cached)
when ORDERCORE_DATA is unset, mapped to the columns and units of ``cal_housing.csv``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ordercore.data.tables import Dataset, prepare, read_csv
from ordercore.inputs.printable import quoted

DATA_ENVIRONMENT_VARIABLE = "ORDERCORE_DATA"


@dataclass(frozen=True)
class DatasetSpec:
    """Where a benchmark lives, what it predicts, the seeds' partition (seed 001 Table 1), and the features
    its file holds beside the target."""

    file: str
    target: str
    units: str
    n_labeled: int
    n_unlabeled: int
    features: tuple[str, ...]
    categorical: tuple[str, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The file's columns: the features and the target."""
        return (*self.features, self.target)


BENCHMARKS = {
    "boston": DatasetSpec(
        "boston_housing.csv", "medv", "thousands of USD", 20, 200,
        ("crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax", "ptratio", "bbtown", "lstat"),
    ),
    "abalone": DatasetSpec(
        "abalone.csv", "Rings", "rings", 30, 1000,
        ("Gender", "Length", "Diameter", "Height", "Whole weight", "Shucked weight", "Viscera weight", "Shell weight"),
        categorical=("Gender",),
    ),
    "california": DatasetSpec(
        "cal_housing.csv", "median_house_value", "USD", 60, 1000,
        ("longitude", "latitude", "housing_median_age", "total_rooms", "total_bedrooms", "population", "households",
         "median_income"),
    ),
}  # fmt: skip


def data_directory() -> Path | None:
    value = os.environ.get(DATA_ENVIRONMENT_VARIABLE)
    return Path(value) if value else None


def data_file(relative: str, name: str) -> Path:
    """The path of ``relative`` (a file of the data set ``name``) in ORDERCORE_DATA; ``FileNotFoundError``
    naming the variable, the file and the data set when it is unset or holds no such file."""
    directory = data_directory()
    if directory is None:
        raise FileNotFoundError(
            f"set {DATA_ENVIRONMENT_VARIABLE} to the directory that holds {relative} (the {name} data set)"
        )
    if not (directory / relative).is_file():
        raise FileNotFoundError(f"{DATA_ENVIRONMENT_VARIABLE}={directory} holds no {relative} (the {name} data set)")
    return directory / relative


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
        raise ValueError(f"unknown data set {quoted(name)}; choose one of {sorted(BENCHMARKS)}")
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
    _check_columns(frame, spec, name, source)
    dataset = prepare(frame, spec.target, categorical=spec.categorical, name=name)
    dataset.metadata.update(source=source, units=spec.units)
    return dataset


def _check_columns(frame: pd.DataFrame, spec: DatasetSpec, name: str, source: str) -> None:
    """``ValueError`` naming the file and the columns it lacks or holds beyond the data set's (an abalone.csv
    without its Gender column ran on the other columns, its results called Abalone's)."""
    missing = [c for c in spec.columns if c not in frame.columns]
    extra = [str(c) for c in frame.columns if c not in spec.columns]
    if missing or extra:
        wrong = [f"it lacks the column(s) {missing}"] * bool(missing) + [f"it holds the column(s) {extra}"] * bool(
            extra
        )
        raise ValueError(
            f"{source} is not the {name} data set: {' and '.join(wrong)}; the {name} data set's columns are "
            f"{list(spec.columns)}"
        )
