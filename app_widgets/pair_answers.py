"""The pair on screen and its answer keys, in the browser: a key (or a click) answers the pair shown
when it went down, and the next of the pairs the server sent ahead shows at once, so that an expert
who reads fast never waits for the server nor loses a key.  Each answer is an *event* (an id, the
pair, the choice) the browser keeps sending in its state value until the server confirms it; the
server applies each event once (``app_pages/pairwise.py``).  A Streamlit v2 component: no iframe,
its code served by the app."""

import html
from pathlib import Path

import streamlit as st

KEY = "pair_answers"

BUTTONS = [
    # choice, label with its key, primary
    ("a", "A higher (A)", True),
    ("b", "B higher (B)", True),
    ("equal", "About equal (E)", False),
    ("skip", "Skip (S)", False),
    ("undo", "Undo my last (U)", False),
]

_HERE = Path(__file__).parent
_HTML = (
    '<div class="pair-answers"><div class="caption"></div><div class="buttons">'
    + "".join(
        f'<button type="button" data-choice="{choice}" class="{"primary" if primary else ""}">{label}</button>'
        for choice, label, primary in BUTTONS
    )
    + '</div><div class="table"></div></div>'
)
_mount = st.components.v2.component(
    "ordercore_pair_answers",
    html=_HTML,
    css=(_HERE / "pair_answers.css").read_text(),
    js=(_HERE / "pair_answers.js").read_text(),
    isolate_styles=False,  # in the page's DOM (its CSS names only .pair-answers): tests and tools read it as text
)


def pair_entry(pair: tuple[int, int], caption: str, head: list[str], rows: list[tuple]) -> dict:
    """What the browser shows of one pair: its caption, and its table (``head``: the column names;
    ``rows``: (feature, A, B, B − A, sign of B − A)), escaped (the values come from the user's data)."""
    text = [[html.escape(str(cell)) for cell in row[:4]] + [int(row[4])] for row in rows]
    return {
        "pair": [int(pair[0]), int(pair[1])],
        "caption": caption,
        "head": [html.escape(h) for h in head],
        "rows": text,
    }


def pair_answers(entries: list[dict], confirmed: list[str], enabled: bool) -> None:
    """Mount the widget: ``entries`` (``pair_entry``) the pairs to show in turn, ``confirmed`` the ids of
    the events the server has read (the browser stops sending them)."""
    _mount(
        key=KEY,
        data={"pairs": entries, "confirmed": confirmed, "enabled": enabled},
        default={"events": []},
        on_events_change=_read_on_next_run,
        height="content",
    )


def _read_on_next_run() -> None:
    """The events are read at the start of the next run (``sent_events``), where nothing can cut them short."""


def sent_events() -> list[dict]:
    """The events the browser sent, as this run received them: dicts with an ``id`` (str), a ``choice``
    (a, b, equal, skip or undo) and a ``pair`` (two ints; None for undo), malformed ones left out."""
    value = st.session_state.get(KEY) or {}
    events = value.get("events") if isinstance(value, dict) else None
    return [event for event in events or [] if _well_formed(event)]


def _well_formed(event) -> bool:
    if not isinstance(event, dict) or not isinstance(event.get("id"), str) or len(event["id"]) > 64:
        return False
    pair, choice = event.get("pair"), event.get("choice")
    if choice == "undo":
        return pair is None
    return (
        choice in {"a", "b", "equal", "skip"}
        and isinstance(pair, list)
        and len(pair) == 2
        and all(isinstance(row, int) and not isinstance(row, bool) for row in pair)
    )
