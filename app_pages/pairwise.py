"""Pairwise: which of two homes is worth more?  Every answer is stored before the next pair."""

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.figures import rows_map

STRATEGIES = {
    "margin": "Least certain order (SSL)",
    "disagreement": "Where SSL and SVR disagree",
    "random": "Random",
}


def answer(session_id: int, pair: tuple[int, int], choice: str) -> None:
    """Store the answer (committed before the page moves on), then ask for a new pair."""
    store = app_state.store()
    store.add_answer(
        session_id,
        *pair,
        choice,
        app_state.annotator() or "anonymous",
        weight=float(st.session_state.pair_weight),
        margin=float(st.session_state.pair_margin),
    )
    st.session_state.current_pair = None


def undo(session_id: int) -> None:
    app_state.store().undo_answer(session_id)
    st.session_state.current_pair = None


ANSWERS = [
    # label, key, shortcut, choice (None: undo), primary
    ("A higher", "answer_a", "A", "a", True),
    ("B higher", "answer_b", "B", "b", True),
    ("About equal", "answer_equal", "E", "equal", False),
    ("Skip", "answer_skip", "S", "skip", False),
    ("Undo last", "answer_undo", "U", None, False),
]


def comparison(data, pair) -> pd.DataFrame:
    """The two rows' features side by side, with their difference (B − A) for numeric columns."""
    features = data.dataset.metadata["features"]
    rows = data.frame.loc[list(pair), features].T
    rows.columns = ["A", "B"]
    rows["B − A"] = pd.to_numeric(rows["B"], errors="coerce") - pd.to_numeric(rows["A"], errors="coerce")
    return rows


def main() -> None:
    st.title("Pairwise")
    session, data = app_state.need_session_and_data()
    bench, preferences, _ = app_state.retrain(session, data)
    app_state.warn_if_retrain_stopped()
    strategy = st.radio("Next pair", list(STRATEGIES), format_func=STRATEGIES.get, key="pair_strategy", horizontal=True)
    if st.session_state.get("current_pair") is None or st.session_state.get("pair_session") != session.id:
        st.session_state.current_pair = bench.next_pair(strategy, app_state.rng())
        st.session_state.pair_session = session.id
    pair = st.session_state.current_pair
    if pair is None:
        st.warning("The unlabeled pool has fewer than two rows: nothing left to compare.")
        return
    st.caption(
        f"Rows {pair[0]} (A) and {pair[1]} (B). Keys: **A**, **B**, **E** (about equal), **S** (skip), **U** (undo)."
    )
    st.dataframe(
        comparison(data, pair)
        .style.highlight_between(subset=["B − A"], left=1e-12, color="#c8e6c9")
        .highlight_between(subset=["B − A"], right=-1e-12, color="#ffcdd2"),
        key="pair_table",
        width="stretch",
    )
    if {"latitude", "longitude"} <= set(data.frame.columns):
        figure = rows_map(
            data.frame["latitude"], data.frame["longitude"], marked={"A": pair[0], "B": pair[1]}, height=320
        )
        st.plotly_chart(figure, key="pair_map")
    controls = st.columns([1, 1])
    controls[0].slider("Confidence (weight)", 0.1, 3.0, 1.0, 0.1, key="pair_weight")
    controls[1].number_input("Margin (target units; closeness for 'about equal')", 0.0, value=0.0, key="pair_margin")
    for cell, (label, key, shortcut, choice, primary) in zip(st.columns(len(ANSWERS)), ANSWERS, strict=True):
        callback, args = (undo, (session.id,)) if choice is None else (answer, (session.id, pair, choice))
        cell.button(
            label,
            key=key,
            type="primary" if primary else "secondary",
            shortcut=shortcut,
            on_click=callback,
            args=args,
            width="stretch",
        )
    answers = app_state.store().answers(session.id)
    history = st.session_state.get("retrain_history", [])
    progress = st.columns(3)
    progress[0].metric("Answers given", len(answers))
    progress[1].metric("Preferences in force", len(preferences))
    moved = history[-1]["moved"] if history else float("nan")
    progress[2].metric("Model moved (mean |Δ| on test rows)", "—" if not np.isfinite(moved) else f"{moved:,.4g}")
    if len(answers):
        st.dataframe(answers.tail(10).iloc[::-1], key="answers_table", width="stretch", hide_index=True)


main()
