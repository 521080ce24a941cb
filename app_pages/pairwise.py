"""Pairwise: which of two homes is worth more?  Every answer is stored before the next pair."""

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.agreement import intransitive_triples, kappa_table
from ordercore.figures import rows_map
from ordercore.quality import audit_accuracy
from ordercore.studio import readable

STRATEGIES = {
    "margin": "Least certain order (SSL)",
    "disagreement": "Where SSL and SVR disagree",
    "random": "Random",
}


# The "pairs from" choice that asks the pairs the strategy below picks (any other is a rule's id).  A
# comment, not a docstring: Streamlit's magic would print a bare string on the page.
ACTIVE = "active"


def answer(session_id: int, pair: tuple[int, int], choice: str, rule_id: int | None) -> None:
    """Store the answer for ``pair``, the pair on screen when the button was drawn (committed before
    the page moves on; linked to the rule whose pair it is, an audit of that rule), then ask for a new
    pair.  A press for a pair no longer on screen (keys typed ahead of the page) is ignored."""
    if st.session_state.get("current_pair") != pair:
        return
    try:
        app_state.store().add_answer(
            session_id,
            *pair,
            choice,
            app_state.annotator(),
            weight=float(st.session_state.pair_weight),
            margin=float(st.session_state.pair_margin),
            rule_id=rule_id,
            swapped=st.session_state.get("pair_swapped"),
        )
    except ValueError as error:
        st.session_state.pair_error = str(error)
        return
    st.session_state.current_pair = None


def undo(session_id: int) -> None:
    """Remove this annotator's own last answer (another annotator's stay)."""
    try:
        app_state.store().undo_answer(session_id, app_state.annotator())
    except ValueError as error:
        st.session_state.pair_error = str(error)
        return
    st.session_state.current_pair = None


CHOICE_LABELS = {"a": "A higher", "b": "B higher", "equal": "about equal", "skip": "skip"}

ANSWERS = [
    # label, key, shortcut, choice (None: undo), primary
    ("A higher", "answer_a", "A", "a", True),
    ("B higher", "answer_b", "B", "b", True),
    ("About equal", "answer_equal", "E", "equal", False),
    ("Skip", "answer_skip", "S", "skip", False),
    ("Undo my last", "answer_undo", "U", None, False),
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
    named = bool(app_state.annotator())
    if not named:
        st.info("Type your name as **Annotator** in the sidebar to answer: every answer is stored with it.")
    bench, preferences, provenance = app_state.retrain(session, data)
    app_state.warn_if_retrain_stopped()
    rules = dict(app_state.store().rules(session.id))
    answers = app_state.store().answers(session.id)
    source = st.selectbox(
        "Pairs from",
        [ACTIVE, *rules],
        format_func=lambda k: "active choice" if k == ACTIVE else f"rule {rules[k].name!r} (audit it)",
        key="pair_source",
        help="Answering a rule's pairs measures how often the rule is right (shown on the Rules page).",
    )
    rule_id = None if source == ACTIVE else int(source)
    audited = None if rule_id is None else answers[(answers["rule_id"] == rule_id).to_numpy(bool, na_value=False)]
    if rule_id is None:
        strategy = st.radio(
            "Next pair", list(STRATEGIES), format_func=STRATEGIES.get, key="pair_strategy", horizontal=True
        )
    if st.session_state.get("current_pair") is None or st.session_state.get("pair_for") != (session.id, rule_id):
        # Sides in random order, the mapping kept with the answer: an active pair is shown reversed half
        # the time; a rule's pair comes with its winner as A half the time (swapped: A is the loser).
        if rule_id is None:
            pair, swapped = bench.next_pair(strategy, app_state.rng()), app_state.rng().random() < 0.5
            pair = pair[::-1] if pair is not None and swapped else pair
        else:
            made = preferences[(provenance["rule_id"] == rule_id).to_numpy(dtype=bool, na_value=False)]
            asked = audited[["row_a", "row_b"]].to_numpy(dtype=np.int64)
            pair = bench.next_rule_pair(made, asked, app_state.rng())
            swapped = pair is not None and not np.any((made.i == pair[0]) & (made.j == pair[1]))
        st.session_state.current_pair, st.session_state.pair_swapped = pair, bool(swapped)
        st.session_state.pair_for = (session.id, rule_id)
    pair = st.session_state.current_pair
    if rule_id is not None:
        correct, total = audit_accuracy(rules[rule_id], data.frame, audited)
        st.caption(
            f"Auditing rule {rules[rule_id].name!r}: {len(audited)} of its pairs answered, the rule right on "
            f"{correct} of {total} (skips and pairs it does not order do not count). Its accuracy and interval "
            "are on the **Rules** page."
        )
    if pair is None:
        if rule_id is None:
            st.warning("The unlabeled pool has fewer than two rows: nothing left to compare.")
        else:
            st.info("Every pair of this rule within the unlabeled pool has been answered: choose another source.")
        return
    st.caption(
        f"Rows {pair[0]} (A) and {pair[1]} (B). Keys: **A**, **B**, **E** (about equal), **S** (skip), **U** (undo)."
    )
    st.dataframe(
        comparison(data, pair)
        .style.format(readable)
        .highlight_between(subset=["B − A"], left=1e-12, color="#c8e6c9")
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
    error = st.session_state.pop("pair_error", None)
    if error:
        st.error(error)
    for cell, (label, key, shortcut, choice, primary) in zip(st.columns(len(ANSWERS)), ANSWERS, strict=True):
        callback, args = (undo, (session.id,)) if choice is None else (answer, (session.id, pair, choice, rule_id))
        cell.button(
            label,
            # The pair is in the key: a press sent for a pair the page has since replaced names a button
            # that no longer exists, and Streamlit drops it.
            key=key if choice is None else f"{key}_{pair[0]}_{pair[1]}",
            type="primary" if primary else "secondary",
            shortcut=shortcut,
            on_click=callback,
            args=args,
            width="stretch",
            disabled=not named,
        )
    history = st.session_state.get("retrain_history", [])
    progress = st.columns(3)
    progress[0].metric("Answers given", len(answers))
    progress[1].metric("Preferences in force", len(preferences))
    moved = history[-1]["moved"] if history else float("nan")
    progress[2].metric("Model moved (mean |Δ| on test rows)", "—" if not np.isfinite(moved) else f"{moved:,.4g}")
    if len(answers):
        st.dataframe(answers.tail(10).iloc[::-1], key="answers_table", width="stretch", hide_index=True)
        if named:
            history_section(session.id, answers)
        agreement_section(answers)


def change_answer(answer_id: int, choice: str | None) -> None:
    """Change one of this annotator's answers to ``choice``, or remove it (None)."""
    store = app_state.store()
    try:
        if choice is None:
            store.remove_answer(answer_id, app_state.annotator())
        else:
            store.edit_answer(answer_id, app_state.annotator(), choice)
    except (ValueError, KeyError) as error:
        st.session_state.pair_error = str(error).strip("'\"")
        return
    st.session_state.current_pair = None


def history_section(session_id: int, answers) -> None:
    """This annotator's answers, newest first: any of them can be changed or removed."""
    own = answers[answers["annotator"] == app_state.annotator()].iloc[::-1]
    with st.expander(f"My answers ({len(own)}): change or remove one"):
        if own.empty:
            st.caption("You have not answered yet in this session.")
            return
        labels = {
            int(row.id): f"#{row.id}: rows {row.row_a} (A) and {row.row_b} (B), {CHOICE_LABELS[row.choice]}"
            for row in own.itertuples()
        }
        chosen = st.selectbox("Answer", list(labels), format_func=labels.get, key="history_answer")
        columns = st.columns(len(CHOICE_LABELS) + 1)
        for cell, (choice, label) in zip(columns, CHOICE_LABELS.items(), strict=False):
            cell.button(label, key=f"history_{choice}", on_click=change_answer, args=(chosen, choice), width="stretch")
        columns[-1].button("Remove", key="history_remove", on_click=change_answer, args=(chosen, None), width="stretch")


def agreement_section(answers) -> None:
    """Cohen's κ between annotators on the pairs both answered, and each one's intransitive triples."""
    with st.expander("Annotators: agreement and consistency"):
        kappas = kappa_table(answers)
        if kappas.empty:
            st.caption("No pair has been answered by two annotators yet.")
        else:
            st.dataframe(kappas, key="agreement_kappa", hide_index=True, width="stretch")
        st.dataframe(intransitive_triples(answers), key="agreement_triples", hide_index=True, width="stretch")
        st.caption(
            "κ: Cohen's kappa on the pairs both answered (skips left out; 1 is full agreement, 0 what chance "
            "gives). Intransitive: among the triples of rows whose three pairs an annotator ordered, the share "
            "forming a cycle (a over b over c over a)."
        )


main()
