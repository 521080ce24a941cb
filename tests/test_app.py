"""The Studio as a whole: every labelling page asks for a session first (an AppTest), the server is
local and hides error details (its configuration), and values are formatted for reading."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.studio_app import APP


def test_pages_ask_for_a_session_first(store_path):
    at = AppTest.from_file(APP, default_timeout=60).run()
    for page in ["app_pages/pairwise.py", "app_pages/ratings.py", "app_pages/rules.py", "app_pages/model.py"]:
        at.switch_page(page).run()
        assert not at.exception and "sidebar" in at.info[0].value


def test_the_server_is_local_hides_error_details_and_does_not_reload_changed_code_by_default():
    import tomllib

    from ordercore.studio.store import MAX_DATASET_BYTES

    config = tomllib.loads((Path(APP).parent / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1" and config["client"]["showErrorDetails"] == "none"
    assert config["server"]["maxUploadSize"] * 2**20 == MAX_DATASET_BYTES
    # modules reloaded under a running Studio met its old objects (a new user's "Add this rule" failed)
    assert config["server"]["fileWatcherType"] == "none" and config["client"]["toolbarMode"] == "viewer"


def test_values_are_formatted_for_reading():
    import numpy as np

    from ordercore.studio.data import readable

    values = (254_321.678, 12.3456789, 0.123456, -3.0, np.float64(1e-7), 7, "old", np.nan, np.inf, None)
    expected = ["254,322", "12.35", "0.1235", "-3", "0.0000001", "7", "old", "—", "—", ""]
    assert [readable(value) for value in values] == expected


def test_a_link_without_a_session_says_it_opened_the_only_one(store_path):
    """The bare URL on a store of one session opens it and says so in the sidebar; a link naming it
    says nothing; with two sessions the bare URL opens none."""
    from ordercore.studio.store import Store

    store = Store(f"sqlite:///{store_path}")
    store.create_session("flats")
    bare = AppTest.from_file(APP, default_timeout=60).run()
    import app_state

    assert [box.value for box in bare.sidebar.info] == [
        app_state.plain("Opened the store's only session, 'flats'; create another below.")
    ]
    assert bare.sidebar.selectbox(key="session_picker").value == "flats"
    linked = AppTest.from_file(APP, default_timeout=60)
    linked.query_params["session"] = "flats"
    assert not linked.run().sidebar.info
    store.create_session("houses")
    assert AppTest.from_file(APP, default_timeout=60).run().sidebar.selectbox(key="session_picker").value is None


def test_names_are_shown_as_typed_not_as_markdown(store_path):
    """A session named '**x** [y](z)': taken twice, the error shows the name with each Markdown mark
    escaped (so it reads as typed), not bold and a link."""
    import app_state

    name = "**x** [y](z)"
    at = AppTest.from_file(APP, default_timeout=60).run()
    for _ in range(2):
        at.text_input(key="new_session_name").input(name)
        at.button(key="create_session").click().run()
    assert not at.exception
    assert at.error[0].value == app_state.plain(
        f"a session named {name!r} already exists; resume it or choose another name"
    )
    assert r"\*\*x\*\* \[y\]\(z\)" in at.error[0].value and app_state.plain("a_b") == r"a\_b"


def test_ast_parse_runs_one_thread_at_a_time_in_the_studio():
    """CPython 3.11's AST constructor shares its recursion count between threads: a page compiled while
    a background thread read a stored assessment (np.load parses array headers) failed with
    "AST constructor recursion depth mismatch".  With the Studio loaded, a parse (and np.load's
    literal_eval) in another thread waits while one is under way, and then runs."""
    import ast
    import io
    import threading

    import numpy as np

    import app_state

    assert ast.parse is app_state.locked_parse
    stored = io.BytesIO()
    np.savez(stored, a=np.arange(3))
    done = []

    def read():
        stored.seek(0)
        done.append(np.load(stored)["a"].tolist())

    with app_state.AST_LOCK:  # as if a page were being parsed
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(0.5)
        assert reader.is_alive() and not done  # np.load's header parse waits its turn
    reader.join(10)
    assert done == [[0, 1, 2]]
