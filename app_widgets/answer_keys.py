"""What is being answered (a pair on Pairwise, an item on Ratings) and its answer keys, in the browser:
a key (or a click) answers the *target* shown when it went down, and the next of the targets the
server sent ahead shows at once, so that an expert who reads fast never waits for the server nor
loses a key.  Each answer is an *event* (an id, the target, the choice) the browser keeps sending in
its state value until the server confirms it; the page applies each event once.  A Streamlit v2
component: no iframe, its code served by the app (no network)."""

import html
from pathlib import Path

import streamlit as st

from ordercore.studio.offers import UNDO

_HERE = Path(__file__).parent
_mount = st.components.v2.component(
    "ordercore_answer_keys",
    html='<div class="answer-keys"><div class="caption"></div><div class="note" hidden></div>'
    '<div class="text" hidden></div><div class="buttons"></div><div class="table"></div></div>',
    css=(_HERE / "answer_keys.css").read_text(),
    js=(_HERE / "answer_keys.js").read_text(),
    isolate_styles=False,  # in the page's DOM (its CSS names only .answer-keys): tests and tools read it as text
)


def entry(
    target: tuple[int, ...],
    caption: str,
    head: list[str],
    rows: list[tuple],
    shades=None,
    text: str | None = None,
    short_head: list[str] | None = None,
) -> dict:
    """What the browser shows of one target (a pair (a, b) or an item (row,)): its caption, its text if
    any, and its table (``head``: the column names; ``rows``: (name, values...); ``shades``: per row, how
    its last value is coloured, −1 … 1: its sign the hue, its size the strength (a pair's difference
    B − A); ``short_head``: the head over a table of many rows shown in two halves side by side, each
    half's columns narrow (the caption names the rows)), escaped (the values come from the user's data)."""
    return {
        "target": [int(v) for v in target],
        "caption": caption,
        "text": text,
        "head": [html.escape(str(h)) for h in head],
        "short_head": None if short_head is None else [html.escape(str(h)) for h in short_head],
        "rows": [[html.escape(str(cell)) for cell in row] for row in rows],
        "shades": None if shades is None else [round(float(shade), 3) for shade in shades],
    }


def answer_keys(
    key: str,
    entries: list[dict],
    confirmed: list[str],
    enabled: bool,
    buttons: list[tuple],
    context: str = "",
    note: str = "",
    switches: tuple[str, ...] = (),
) -> None:
    """Mount the widget under ``key``: ``entries`` (``entry``) the targets to show in turn, ``confirmed``
    the ids of the events the server has read (the browser stops sending them), ``buttons`` (choice,
    label, key, primary) the answers (the choice ``UNDO`` needs no target).  The target on screen stays
    until answered while ``context`` (what the targets were offered for) is the same, even when
    ``entries`` no longer hold it; a new context shows ``entries`` afresh.  ``note`` is said under the caption
    of this context's targets only (drawn with them: an audit's words never stand above another source's
    pair); ``switches`` the keys of the page's widgets that start a new context: once one is changed, the
    target on screen is marked as the old choice's and no other target of the old context is shown."""
    _mount(
        key=key,
        data={
            "name": key,
            "context": context,
            "note": note,
            "switches": list(switches),
            "entries": entries,
            "confirmed": confirmed,
            "enabled": enabled,
            "buttons": [
                [choice, f"{label} ({shortcut.upper()})", primary] for choice, label, shortcut, primary in buttons
            ],
            "keys": {shortcut.lower(): choice for choice, _, shortcut, _ in buttons},
        },
        default={"events": []},
        on_events_change=_read_on_next_run,
        height="content",
    )


def _read_on_next_run() -> None:
    """The events are read by the next run (``sent_events``), where nothing can cut them short."""


def sent_events(key: str, choices: set[str], size: int) -> list[dict]:
    """The events the browser sent to the widget ``key``, as this run received them: dicts with an
    ``id`` (str), a ``choice`` (one of ``choices``, or ``UNDO``), a ``target`` (``size`` ints; None
    for ``UNDO``) and ``next``, the target the browser showed next (``size`` ints, or None); malformed
    ones left out (a malformed ``next`` read as None)."""
    value = st.session_state.get(key) or {}
    events = value.get("events") if isinstance(value, dict) else None
    return [
        event | {"next": event.get("next") if _is_target(event.get("next"), size) else None}
        for event in events or []
        if _well_formed(event, choices, size)
    ]


def _well_formed(event, choices: set[str], size: int) -> bool:
    if not isinstance(event, dict) or not isinstance(event.get("id"), str) or len(event["id"]) > 64:
        return False
    target, choice = event.get("target"), event.get("choice")
    if choice == UNDO:
        return target is None
    return choice in choices and _is_target(target, size)


def _is_target(target, size: int) -> bool:
    return (
        isinstance(target, list)
        and len(target) == size
        and all(isinstance(v, int) and not isinstance(v, bool) for v in target)
    )
