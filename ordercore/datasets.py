"""Benchmark data sets, read from the directory named by the environment variable ORDERCORE_DATA.

California housing (Pace & Barry 1997; the seeds' "California") is ``cal_housing.csv`` there,
columns as in ``CALIFORNIA_COLUMNS``; without ORDERCORE_DATA it falls back to scikit-learn's
``fetch_california_housing`` (downloads once, then cached), mapped to the same columns and units.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

DATA_ENVIRONMENT_VARIABLE = "ORDERCORE_DATA"
CALIFORNIA_FILE = "cal_housing.csv"
CALIFORNIA_COLUMNS = [
    "longitude",
    "latitude",
    "housing_median_age",
    "total_rooms",
    "total_bedrooms",
    "population",
    "households",
    "median_income",
]
CALIFORNIA_TARGET = "median_house_value"


@dataclass
class Dataset:
    """Features X (n, n_features), target y (n,), feature names and free-form metadata."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    metadata: dict = field(default_factory=dict)


def data_directory() -> Path | None:
    value = os.environ.get(DATA_ENVIRONMENT_VARIABLE)
    return Path(value) if value else None


def standardize(X: np.ndarray) -> np.ndarray:
    """Zero mean, unit variance per feature (the seeds' preprocessing); constant columns stay 0."""
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _california_frame() -> tuple[pd.DataFrame, str]:
    directory = data_directory()
    if directory is not None:
        path = directory / CALIFORNIA_FILE
        if not path.is_file():
            raise FileNotFoundError(
                f"{DATA_ENVIRONMENT_VARIABLE}={directory} but {CALIFORNIA_FILE} is not there; "
                f"put the file there or unset {DATA_ENVIRONMENT_VARIABLE} to download it with scikit-learn"
            )
        return pd.read_csv(path), str(path)
    from sklearn.datasets import fetch_california_housing

    bunch = fetch_california_housing(as_frame=True)
    frame = bunch.frame
    # scikit-learn gives per-household averages and the value in units of $100,000
    households = (frame["Population"] / frame["AveOccup"]).round()
    mapped = pd.DataFrame(
        {
            "longitude": frame["Longitude"],
            "latitude": frame["Latitude"],
            "housing_median_age": frame["HouseAge"],
            "total_rooms": (frame["AveRooms"] * households).round(),
            "total_bedrooms": (frame["AveBedrms"] * households).round(),
            "population": frame["Population"],
            "households": households,
            "median_income": frame["MedInc"],
            CALIFORNIA_TARGET: frame["MedHouseVal"] * 100_000,
        }
    )
    return mapped, "sklearn.datasets.fetch_california_housing"


def load_california(standardized: bool = True) -> Dataset:
    """California housing: 20640 block groups, 8 features, median house value in USD."""
    frame, source = _california_frame()
    X = frame[CALIFORNIA_COLUMNS].to_numpy(dtype=np.float64)
    return Dataset(
        X=standardize(X) if standardized else X,
        y=frame[CALIFORNIA_TARGET].to_numpy(dtype=np.float64),
        feature_names=list(CALIFORNIA_COLUMNS),
        metadata={"name": "california", "source": source, "target": CALIFORNIA_TARGET, "units": "USD"},
    )
