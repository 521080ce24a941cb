"""Pairwise: which of two homes is worth more?  Every answer is stored before the next pair."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import app_state

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


def comparison(data, pair) -> pd.DataFrame:
    """The two rows' features side by side, with their difference (B − A) for numeric columns."""
    features = data.dataset.metadata["features"]
    rows = data.frame.loc[list(pair), features].T
    rows.columns = ["A", "B"]
    numeric = pd.to_numeric(rows["A"], errors="coerce").notna() & pd.to_numeric(rows["B"], errors="coerce").notna()
    rows["B − A"] = np.where(
        numeric, pd.to_numeric(rows["B"], errors="coerce") - pd.to_numeric(rows["A"], errors="coerce"), np.nan
    )
    return rows


def pair_map(data, pair) -> go.Figure:
    """Where A and B sit among all rows (latitude/longitude)."""
    frame = data.frame
    figure = go.Figure()
    figure.add_scattergeo(
        lat=frame["latitude"],
        lon=frame["longitude"],
        mode="markers",
        marker={"size": 3, "color": "lightgray"},
        name="rows",
    )
    for label, row in zip("AB", pair, strict=True):
        figure.add_scattergeo(
            lat=[frame["latitude"].iloc[row]],
            lon=[frame["longitude"].iloc[row]],
            mode="markers+text",
            text=[label],
            textposition="top center",
            marker={"size": 12},
            name=label,
        )
    figure.update_geos(fitbounds="locations")
    figure.update_layout(height=320, margin={"l": 0, "r": 0, "t": 10, "b": 0}, showlegend=False)
    return figure


def main() -> None:
    st.title("Pairwise")
    session, data = app_state.need_session_and_data()
    app_state.retrain(session, data)
    bench = app_state.workbench(session, data)
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
        st.plotly_chart(pair_map(data, pair), key="pair_map")
    controls = st.columns([1, 1])
    controls[0].slider("Confidence (weight)", 0.1, 3.0, 1.0, 0.1, key="pair_weight")
    controls[1].number_input("Margin (target units; closeness for 'about equal')", 0.0, value=0.0, key="pair_margin")
    buttons = st.columns(5)
    buttons[0].button(
        "A higher",
        key="answer_a",
        type="primary",
        shortcut="A",
        on_click=answer,
        args=(session.id, pair, "a"),
        width="stretch",
    )
    buttons[1].button(
        "B higher",
        key="answer_b",
        type="primary",
        shortcut="B",
        on_click=answer,
        args=(session.id, pair, "b"),
        width="stretch",
    )
    buttons[2].button(
        "About equal",
        key="answer_equal",
        shortcut="E",
        on_click=answer,
        args=(session.id, pair, "equal"),
        width="stretch",
    )
    buttons[3].button(
        "Skip",
        key="answer_skip",
        shortcut="S",
        on_click=answer,
        args=(session.id, pair, "skip"),
        width="stretch",
    )
    buttons[4].button("Undo last", key="answer_undo", shortcut="U", on_click=undo, args=(session.id,), width="stretch")
    answers = app_state.store().answers(session.id)
    preferences, _ = app_state.store().preferences(session.id)
    history = st.session_state.get("retrain_history", [])
    progress = st.columns(3)
    progress[0].metric("Answers given", len(answers))
    progress[1].metric("Preferences in force", len(preferences))
    moved = history[-1]["moved"] if history else float("nan")
    progress[2].metric("Model moved (mean |Δ| on test rows)", "—" if not np.isfinite(moved) else f"{moved:,.4g}")
    if len(answers):
        st.dataframe(answers.tail(10).iloc[::-1], key="answers_table", width="stretch", hide_index=True)


main()
