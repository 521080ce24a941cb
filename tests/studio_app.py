"""The Studio under AppTest, shared by the page tests (tests/test_page_*.py, tests/test_registry.py): the
app, a store in a temporary file, a session 's1' on the sample homes (l = 60), the session's engine,
and the widgets the tests drive and the metrics they read.  tests/conftest.py exposes its fixtures."""

import itertools
import json
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


_EVENT_IDS = itertools.count()


def send_key(at, widget: str, choice: str, target):
    """Answer ``choice`` for ``target`` as the browser's answer keys send it (app_widgets/answer_keys.py:
    an event with an id, the target, the choice) to the widget ``widget``, and run the page."""
    event = {
        "id": f"test-{next(_EVENT_IDS)}",
        "choice": choice,
        "target": None if target is None else [*map(int, target)],
    }
    at.session_state[widget] = {"events": [event]}
    return at.run()


def press(at, choice: str, pair=None):
    """On Pairwise, answer ``choice`` (a, b, equal, skip; undo) for ``pair`` (default: the pair on
    screen), as the browser sends it."""
    if choice != "undo" and pair is None:
        pair = at.session_state["screen"].pair
    return send_key(at, "pair_answers", choice, pair)


def pairs_sent(at) -> list[dict]:
    """On Pairwise, what the page sent the browser's answer keys: the pairs to show in turn."""
    return sent_to(at, "pair_answers")


def sent_to(at, widget: str, part: str = "entries"):
    """What the page sent the browser's answer keys ``widget``: by default the targets to show in turn,
    each with its caption, text and table (``app_widgets.answer_keys.entry``); ``part='buttons'`` its
    buttons (choice, label, primary)."""
    sent = (json.loads(w.proto.json) for w in at.get("bidi_component"))
    return next(data for data in sent if data["name"] == widget)[part]


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


def remove_rule(at, rule_id: int):
    """On Rules, remove a stored rule: Remove, then the confirmation."""
    at.switch_page("app_pages/rules.py").run()
    at.button(key=f"rule_remove_{rule_id}").click().run()
    at.button(key=f"rule_remove_confirm_{rule_id}").click().run()
    return at


def upload(at, name: str, content: bytes):
    next(widget for widget in at.radio if widget.label == "Data set").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv")).run()
    return at


def bikes_table(seed: int = 77):
    """A new user's used bicycles (their report nu7): 240 rows, an id ``bike_id`` (BK1000 …), a note
    per row, a ``category`` (Road … Kids), five numeric columns and ``asking_price``, known for 50
    rows (blank for the others), made by a formula: the category sets the base price; a younger,
    lower-mileage bike with more gears and less weight is worth more."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = 240
    category = rng.choice(["Road", "Gravel", "Mountain", "City", "Kids"], n, p=[0.25, 0.2, 0.25, 0.2, 0.1])
    weight = np.round(rng.normal(11, 2.5, n).clip(6.5, 18), 2)
    age, km = rng.integers(0, 15, n), np.round(rng.gamma(2, 3000, n), 0)
    gears = rng.choice([1, 3, 7, 11, 18, 21, 22, 24], n)
    base = pd.Series(category).map({"Road": 900, "Gravel": 800, "Mountain": 750, "City": 350, "Kids": 150})
    price = base.to_numpy() * 0.9**age * (1 - km / 60000).clip(0.3, 1) * (1 + gears / 60) * (1.4 - weight / 40)
    price = np.round((price + rng.normal(0, 30, n)).clip(20), 0)
    price[rng.permutation(n)[50:]] = np.nan
    return pd.DataFrame(
        {
            "bike_id": [f"BK{k}" for k in rng.choice(np.arange(1000, 9999), n, replace=False)],
            "listing_note": [
                f"{c.lower()} bike; {rng.choice(['new chain', 'rust spots', 'one owner'])}." for c in category
            ],
            "category": category,
            "frame_cm": rng.choice([48, 50, 52, 54, 56, 58, 60], n),
            "weight_kg": weight,
            "age_years": age,
            "odometer_km": km,
            "gears": gears,
            "asking_price": price,
        }
    )
