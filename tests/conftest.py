"""Shared fixtures: the benchmark data directory (from ORDERCORE_DATA, else ../shared/data), and
empty databases for the store on SQLite and on PostgreSQL (from ORDERCORE_TEST_POSTGRES_URL), with a
store on them.  Also those of the modules the tests share: the Studio under AppTest (tests/studio_app.py:
``store_path``, ``ready``) and the GP's small problem (tests/gp_problems.py: ``small_problem``)."""

import os
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

from ordercore.studio.store import Store
from tests.gp_problems import small_problem  # noqa: F401 (a fixture)
from tests.studio_app import ready, store_path  # noqa: F401 (fixtures)

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

POSTGRES_URL = os.environ.get("ORDERCORE_TEST_POSTGRES_URL")
"""A PostgreSQL database the tests may make schemas in (.ci/postgres sets one up), or None."""


@pytest.fixture
def data_directory(monkeypatch):
    """Point ORDERCORE_DATA at the benchmark files, or skip when they are not on this machine."""
    directory = Path(os.environ.get("ORDERCORE_DATA", SHARED_DATA))
    if not (directory / "boston_housing.csv").is_file():
        pytest.skip("benchmark data not found: set ORDERCORE_DATA")
    monkeypatch.setenv("ORDERCORE_DATA", str(directory))
    return directory


@pytest.fixture(params=["sqlite", "postgresql"])
def new_database(request, tmp_path):
    """A function giving the URL of a new, empty database on the backend of the parameter: a SQLite
    file in tmp_path, or a schema of its own in the ORDERCORE_TEST_POSTGRES_URL database (its name
    set as the connections' search_path and application_name).  Afterwards the PostgreSQL schemas
    are dropped, and the connections the test left open to them closed."""
    if request.param == "sqlite":
        files = iter(tmp_path / f"studio-{k}.sqlite" for k in range(1_000))
        yield lambda: f"sqlite:///{next(files)}"
        return
    if POSTGRES_URL is None:
        pytest.skip("PostgreSQL variant: set ORDERCORE_TEST_POSTGRES_URL to a database (.ci/postgres sets one up)")
    admin = sa.create_engine(POSTGRES_URL, poolclass=sa.pool.NullPool)
    schemas = []

    def new() -> str:
        schema = f"test_{uuid.uuid4().hex}"
        with admin.begin() as connection:
            connection.execute(sa.schema.CreateSchema(schema))
        schemas.append(schema)
        url = sa.make_url(POSTGRES_URL).update_query_dict(
            {"options": f"-csearch_path={schema}", "application_name": schema}
        )
        return url.render_as_string(hide_password=False)

    yield new
    with admin.begin() as connection:
        for schema in schemas:
            connection.execute(
                sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = :name"),
                {"name": schema},
            )
            connection.execute(sa.schema.DropSchema(schema, cascade=True))
    admin.dispose()


@pytest.fixture
def database_url(new_database) -> str:
    """The URL of an empty database, on SQLite and on PostgreSQL (see ``new_database``)."""
    return new_database()


@pytest.fixture
def store(database_url):
    """A store on an empty database, on SQLite and on PostgreSQL."""
    return Store(database_url)


STUDIO_TESTS = ("test_app", "test_page_", "test_browser_", "test_screenshots", "test_benches")
"""Test modules that run the Studio (AppTests, a server and chromium) or the benches."""


def pytest_collection_modifyitems(items):
    """Under pytest-xdist's ``--dist loadgroup`` (the README's test command), the ``STUDIO_TESTS`` go to
    one worker, one after another as without it (their waits are sized for one Studio at a time), while
    the other worker runs the library's tests."""
    for item in items:
        if item.path.name.startswith(STUDIO_TESTS):
            item.add_marker(pytest.mark.xdist_group("studio"))


SAMPLE_HOMES = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"


def labeled_homes_csv(directory: Path, rows: int, every: int) -> Path:
    """The first ``rows`` sample homes with the price kept on every ``every``-th row only, as a CSV in
    ``directory``; its path (the CLI's tests' table)."""
    frame = pd.read_csv(SAMPLE_HOMES).head(rows)
    frame.loc[frame.index % every != 0, "price"] = np.nan
    path = directory / "homes.csv"
    frame.to_csv(path, index=False)
    return path
