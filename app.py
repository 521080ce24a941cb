"""Order Preference Studio: teach a regression model what you know about order.

Run with ``streamlit run app.py``.  Where a tab is, its session and annotator, lives in the URL
(``?session=NAME&annotator=NAME``): a reload or a shared link lands in the same session, and nothing
switches it but the sidebar."""

import streamlit as st

import app_state
from ordercore.studio.store import ANNOTATOR_MAX_LENGTH, check_annotator

st.set_page_config(page_title="Order Preference Studio", page_icon="↕️", layout="wide")


def create_session() -> None:
    """Create the session named in the sidebar and select it (a callback: runs before the rerun)."""
    name = (st.session_state.get("new_session_name") or "").strip()
    try:
        created = app_state.store().create_session(name)
    except ValueError as error:
        st.session_state.session_error = str(error)
        return
    st.session_state.session_error = st.session_state.session_note = None
    st.session_state.session_name = st.session_state.session_picker = created.name  # as stored: composed (NFC)
    st.session_state.new_session_name = ""
    app_state.forget_choices()  # the new session starts from the default choices


def pick_session() -> None:
    if st.session_state.session_picker != st.session_state.get("session_name"):
        app_state.forget_choices()  # the session switched to starts from the default choices
    st.session_state.session_name = st.session_state.session_picker
    st.session_state.session_error = st.session_state.session_note = None


def name_annotator() -> None:
    """Take the name typed in the sidebar if the store accepts it (else keep the last and say why)."""
    try:
        st.session_state.annotator = check_annotator(st.session_state.annotator_input)
    except ValueError as error:
        st.session_state.annotator_error = str(error)
    else:
        st.session_state.annotator_error = None


def arrive_from_url(names: list[str]) -> None:
    """On a tab's first run, take its session and annotator from the URL (a reload, a shared link); a
    session the store does not hold is said, not replaced by another.  Without one in the URL, the
    store's only session, if it holds one (and the sidebar says so); with several, the user chooses."""
    if "session_name" in st.session_state:
        return
    app_state.arrive_choices()  # the choices kept beside them (Pairwise's "Pairs from", ...)
    wanted, who = st.query_params.get("session"), st.query_params.get("annotator", "")
    if wanted is not None and wanted not in names:
        try:  # the name as stored: 'José' typed with a combining accent names the session 'José'
            wanted = app_state.store().session(wanted).name
        except KeyError:
            pass
    st.session_state.session_name = wanted if wanted in names else None
    if wanted is None and len(names) == 1:
        st.session_state.session_name = names[0]
        st.session_state.session_note = f"Opened the store's only session, {names[0]!r}; create another below."
    if wanted is not None and wanted not in names:
        st.session_state.session_error = f"The link names the session {wanted!r}, which this store does not hold."
    st.session_state.annotator = ""
    if who:
        try:
            st.session_state.annotator = check_annotator(who)
        except ValueError as error:
            st.session_state.annotator_error = f"The link's annotator name was not taken: {error}"


def keep_in_url() -> None:
    """Write this tab's session and annotator, and the choices it keeps beside them, into the URL (only
    what changed: no needless history)."""
    for name, value in (("session", st.session_state.get("session_name")), ("annotator", app_state.annotator())):
        if value and st.query_params.get(name) != value:
            st.query_params[name] = value
        elif not value and name in st.query_params:
            del st.query_params[name]
    app_state.choices_in_url()


# The pages read the plain keys session_name and annotator: widget keys are dropped on runs that
# do not draw the widget, these are not.
names = app_state.workspace().session_names()
arrive_from_url(names)
with st.sidebar:
    st.header("Labelling session")
    if "annotator_input" not in st.session_state:
        st.session_state.annotator_input = st.session_state.get("annotator", "")
    st.text_input(
        "Annotator",
        key="annotator_input",
        placeholder="your name",
        on_change=name_annotator,
        max_chars=ANNOTATOR_MAX_LENGTH,
        help="Stored with every answer, rule and import; undo and edit act on your own answers.",
    )
    if st.session_state.get("annotator_error"):
        st.error(app_state.plain(st.session_state.annotator_error))
    if st.session_state.get("session_name") not in names:
        st.session_state.session_name = None
    st.session_state.session_picker = st.session_state.session_name
    st.selectbox("Resume session", names, key="session_picker", placeholder="choose a session", on_change=pick_session)
    with st.expander("New session", expanded=not names):
        st.text_input("Session name", key="new_session_name")
        st.button("Create session", key="create_session", on_click=create_session, width="stretch")
    if st.session_state.get("session_error"):
        st.error(app_state.plain(st.session_state.session_error))
    elif st.session_state.get("session_name") and st.session_state.get("session_note"):
        st.info(app_state.plain(st.session_state.session_note))
    with st.expander("Terms"):
        st.caption(app_state.MODELS_IN_WORDS)
keep_in_url()

pages = [
    st.Page("app_pages/data.py", title="Data", icon=":material/table:", default=True),
    st.Page("app_pages/rules.py", title="Rules", icon=":material/rule:"),
    st.Page("app_pages/pairwise.py", title="Pairwise", icon=":material/compare_arrows:"),
    st.Page("app_pages/ratings.py", title="Ratings", icon=":material/star_rate:"),
    st.Page("app_pages/model.py", title="Model", icon=":material/monitoring:"),
    st.Page("app_pages/toy_cubic.py", title="Toy cubic", icon=":material/show_chart:"),
    st.Page("app_pages/experiments.py", title="Experiments", icon=":material/science:"),
]
st.navigation(pages).run()
