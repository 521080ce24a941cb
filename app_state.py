"""Streamlit glue: the process's cached workspace (its store and one engine per labelling session), where
this tab is (session and annotator, kept in the URL), and per-tab memos.  No decisions live here: the
session engine (``ordercore.studio.session``) makes them."""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from ordercore.studio.data import StudyData
from ordercore.studio.offers import Offers
from ordercore.studio.session import SessionEngine
from ordercore.studio.store import SessionInfo, Store, store_url
from ordercore.studio.workspace import Workspace

AST_LOCK = threading.RLock()
"""Held while ``ast.parse`` runs: one thread at a time (``locked_parse``)."""


def locked_parse(*args, _parse=ast.parse, **kwargs):
    """``ast.parse`` one thread at a time.  CPython 3.11 counts the AST constructor's recursion in state
    that every thread shares (python/cpython#106905), so a page compiled by Streamlit (its "magic" parses
    the script) while a background thread read a stored trust assessment (``np.load`` parses each
    array's header with ``ast.literal_eval``) failed: "SystemError: AST constructor recursion depth
    mismatch", and the page showed a script compilation error."""
    with AST_LOCK:
        return _parse(*args, **kwargs)


if ast.parse.__name__ != "locked_parse":  # once per process (a reloaded module keeps the first)
    ast.parse = locked_parse  # ast.literal_eval calls the module's parse: it is serialised too

MODELS_IN_WORDS = (
    "**SVR**: the model fitted on the labels alone (support vector regression). **SSL**: the same model "
    "fitted on the labels and your preferences (rules, answers, imports). **MAE**: mean absolute error, in "
    "the target's units."
)
"""SVR, SSL and MAE in one short sentence each: where a page first names them, and the sidebar's terms."""

LAMBDAS_IN_WORDS = (
    "**λ1**: what a complex fit costs (the 1-norm of its kernel weights) against the labels' errors; **λ2**: what "
    "SSL pays for each violated preference (λ2 = 0: SSL is SVR)."
)
"""λ1 and λ2 in a sentence, where the Model page first names them (new-user pass 10, Minor 8)."""

WEIGHT = {"weight": st.column_config.NumberColumn(format="%.2f")}
"""A table's column of sources' weights (0 … 1) shown to two decimals ('0.53', not '0.5334')."""

SHORT_HEADERS = {
    "accuracy (95 % interval)": "accuracy",
    "accuracy from": "from",
    "right where SVR disagrees": "right vs SVR",
    "effect (CV MAE without it − with it)": "effect",
    "rows in its pairs": "rows",
    "shared with other rules": "shared: rules",
    "reversed by other rules": "reversed: rules",
    "shared with answers": "shared: answers",
    "reversed by answers": "reversed: answers",
    "right on labeled pairs": "right on labeled",
    "target higher by at least": "margin",
}
"""Long headers of the Rules and Model tables, and the short label each is shown under (the long one is
its tooltip): a table as wide as the page, nothing cut off."""


def compact(table, **extra) -> dict:
    """``column_config`` for ``st.dataframe(table)``: the ``SHORT_HEADERS`` of its columns (their long
    names as help), and ``extra`` column configs."""
    short = {
        column: st.column_config.Column(SHORT_HEADERS[column], help=column)
        for column in table.columns
        if column in SHORT_HEADERS
    }
    return short | extra


MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:"
"""What Markdown (and Streamlit's LaTeX and emoji) reads as markup: ``plain`` escapes each."""


def plain(text) -> str:
    """``text`` (a session, rule or annotator name, an error naming one) shown as typed in Streamlit's
    Markdown: each character of ``MARKDOWN_SPECIALS`` backslash-escaped, so '**x**' is not bold."""
    return "".join("\\" + c if c in MARKDOWN_SPECIALS else c for c in str(text))


@st.cache_resource
def _workspace(url: str) -> Workspace:
    return Workspace(Store(url))


def workspace() -> Workspace:
    """The configured store's workspace (ORDERCORE_STORE_URL / ORDERCORE_STORE), one per process."""
    return _workspace(store_url())


def store() -> Store:
    return workspace().store


def annotator() -> str:
    """The name this tab answers under (the sidebar's, kept in the URL)."""
    return (st.session_state.get("annotator") or "").strip()


def current_session() -> SessionInfo | None:
    """The session this tab works in (the sidebar's, kept in the URL), or None."""
    name = st.session_state.get("session_name")
    if not name:
        return None
    try:
        return store().session(name)
    except KeyError:
        return None


def engine() -> SessionEngine | None:
    """The engine of this tab's session, shared with every tab working in it, or None."""
    session = current_session()
    return None if session is None else workspace().engine(session.id)


def session_data(session: SessionInfo) -> StudyData | None:
    """The session's prepared data and split, or None before the Data page has set it up."""
    return workspace().engine(session.id).data()


def need_engine_and_data() -> tuple[SessionEngine, StudyData]:
    """(engine, data) of this tab's session, or stop the page with what to do first."""
    found = engine()
    if found is None:
        st.info("Create or resume a labelling session in the sidebar first.")
        st.stop()
    data = found.data()
    if data is None:
        st.info("Choose this session's data on the **Data** page first.")
        st.stop()
    return found, data


def memo(name: str, key, compute):
    """``compute()`` for this tab, recomputed only when ``key`` changes (one value per name)."""
    cached = st.session_state.get(name)
    if cached is None or cached[0] != key:
        cached = (key, compute())
        st.session_state[name] = cached
    return cached[1]


def kept_result(name: str, key, pressed: bool, compute):
    """What ``compute()`` returned when its button was last ``pressed`` with ``key`` (the inputs it
    used, the session's id among them), kept in the process's workspace, so that another button's rerun
    or a reload does not wipe it (as the GP's fit, kept by the engine); None before, or once the inputs
    changed.  A ``ValueError`` from ``compute`` passes through, nothing kept."""
    if pressed:
        workspace().keep(name, key, compute())
    return workspace().kept(name, key)


URL_CHOICES = ("pairs_from", "next_pair", "candidates")
"""The choices a tab keeps in its URL beside its session and annotator (Pairwise's "Pairs from", "Next
pair" and "Candidates"), so that a reload keeps them (``kept_choice``, ``keep_choice``)."""


def arrive_choices() -> None:
    """On a tab's first run, take the ``URL_CHOICES`` its URL holds (a reload, a shared link): kept for
    the tab whichever page it lands on (a page link drops them from the URL; ``choices_in_url`` puts them
    back)."""
    st.session_state.url_choices = {name: st.query_params[name] for name in URL_CHOICES if name in st.query_params}


def choices_in_url() -> None:
    """Write the tab's kept choices into the URL, on every page (only what changed: no needless history)."""
    for name, value in st.session_state.get("url_choices", {}).items():
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def kept_choice(key: str, param: str, options: list) -> None:
    """Before the widget ``key`` is drawn: when this tab holds no value for it (a reload, or a run that
    did not draw it: Streamlit then drops a widget's value), give it the choice kept as ``param``
    (``keep_choice``; after a reload, the URL's), if it is still one of ``options`` (compared as text: the
    URL holds text); else the widget's default."""
    kept = st.session_state.get("url_choices", {}).get(param)
    offered = {str(option): option for option in options}
    if key not in st.session_state and kept in offered:
        st.session_state[key] = offered[kept]


def keep_choice(key: str, param: str) -> None:
    """After the widget ``key`` is drawn: keep its value for this tab and in the URL as ``param``."""
    if st.session_state.get(key) is not None:
        st.session_state.setdefault("url_choices", {})[param] = str(st.session_state[key])
        st.session_state.setdefault("choice_widgets", {})[param] = key
        choices_in_url()


def forget_choices() -> None:
    """A new or switched-to session starts from the defaults: the kept choices go from the tab, its
    widgets and its URL (one session's rule id named another's rule)."""
    for key in st.session_state.pop("choice_widgets", {}).values():
        st.session_state.pop(key, None)
    st.session_state.url_choices = {}
    for name in URL_CHOICES:
        if name in st.query_params:
            del st.query_params[name]


@dataclass
class Screen:
    """What this tab shows: the pairs (Pairwise) and items (Ratings) sent ahead to the browser
    (``Offers``), and a message or error to say once.  A plain object kept in ``st.session_state``:
    code that reads and writes it, not ``st.session_state``, runs to its end even when a key pressed
    meanwhile asks for another run (Streamlit stops a run only at its own calls), so no answer is lost
    half-way and none is given twice."""

    pairs: Offers = field(default_factory=Offers)
    items: Offers = field(default_factory=Offers)
    error: str | None = None
    message: str | None = None
    notice: str | None = None  # what the answer area says once: an answer undone, changed or removed

    @property
    def pair(self) -> tuple[int, int] | None:
        """The pair the browser shows first."""
        return self.pairs.upcoming[0] if self.pairs.upcoming else None

    @property
    def swapped(self) -> bool:
        return bool(self.pairs.offered.get(self.pair, False))

    @property
    def item(self) -> int | None:
        """The item the browser shows first."""
        return self.items.upcoming[0][0] if self.items.upcoming else None

    def say(self) -> tuple[str | None, str | None]:
        """(error, message) to show once: read, then forgotten."""
        said = self.error, self.message
        self.error = self.message = None
        return said


def screen() -> Screen:
    """This tab's ``Screen``."""
    if "screen" not in st.session_state:
        st.session_state.screen = Screen()
    return st.session_state.screen


def rng() -> np.random.Generator:
    """This tab's random stream (the order of pairs and sides)."""
    if "pair_rng" not in st.session_state:
        st.session_state.pair_rng = np.random.default_rng(0)
    return st.session_state.pair_rng


def warn_if_retrain_stopped(found: SessionEngine) -> None:
    """Say so when the session's last retrain failed or stopped at the time limit, what the model
    shown is, and what to do."""
    if found.models.error:
        st.error(
            f"The model could not be trained on this session's preferences: {found.models.error}. The last model "
            "stays; remove what caused it (your answer under **My answers**, a rule or an import on **Rules**)."
        )
    last = found.models.last()
    if last is not None and last["timed_out"]:
        limit = found.model_settings().time_limit
        st.warning(
            f"Retraining on {last['preferences']:,} preferences stopped at the time limit of {limit:g} s. "
            f"The model shown is the last one fitted, on {last['fitted']:,} preferences; every preference is "
            "stored. To train on all of them, cap or remove a rule on the **Rules** page, or raise the retrain "
            "time limit under **Model** → *Model and hyperparameters*."
        )
