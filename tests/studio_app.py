"""The Studio under AppTest, shared by the page tests (tests/test_page_*.py, tests/test_registry.py): the
app, a store in a temporary file, a session 's1' on the sample homes (l = 60), the session's engine,
and the widgets the tests drive and the metrics they read.  tests/conftest.py exposes its fixtures."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).parents[1] / "app.py")


@pytest.fixture
def store_path(tmp_path, monkeypatch):
    monkeypatch.delenv("ORDERCORE_STORE_URL", raising=False)
    path = tmp_path / "studio.sqlite"
    monkeypatch.setenv("ORDERCORE_STORE", str(path))
    return path


def answer_button(at, key):
    """The Pairwise page's answer button ``key`` (e.g. 'answer_a') for the pair on screen."""
    pair = at.session_state["current_pair"]
    return at.button(key=f"{key}_{pair[0]}_{pair[1]}")


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def ready(store_path):
    """A session 's1' on the sample homes (l = 60), as a user makes it in the sidebar and on Data."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    # AppTest reruns only the page after the first run, so the sidebar is driven in one go.
    at.text_input(key="annotator_input").input("ann")
    at.text_input(key="new_session_name").input("s1")
    at.button(key="create_session").click().run()
    at.button(key="data_apply").click().run()
    assert not at.exception
    yield at
    engine(at).close()  # no background process outlives its test


def engine(at):
    """The engine of the session the AppTest works in: the one the app's process keeps (its workspace
    is cached per process, and the test runs in the app's process)."""
    import app_state

    return app_state.workspace().engine(app_state.store().session(at.session_state["session_name"]).id)


def add_default_rule(at):
    at.switch_page("app_pages/rules.py").run()
    at.button(key="rule_add").click().run()
    assert not at.exception and "Added" in at.success[0].value


def upload(at, name: str, content: bytes):
    next(widget for widget in at.radio if widget.label == "Data set").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    return at
