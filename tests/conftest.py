"""Shared fixtures: the benchmark data directory (from ORDERCORE_DATA, else ../shared/data)."""

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def data_directory(monkeypatch):
    """Point ORDERCORE_DATA at the benchmark files, or skip when they are not on this machine."""
    directory = Path(os.environ.get("ORDERCORE_DATA", SHARED_DATA))
    if not (directory / "boston_housing.csv").is_file():
        pytest.skip("benchmark data not found: set ORDERCORE_DATA")
    monkeypatch.setenv("ORDERCORE_DATA", str(directory))
    return directory
