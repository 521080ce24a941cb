"""Pairwise › *My answers*: an annotator's own answers, newest first, each changed at once or removed
after a confirmation (as a rule is on Rules); what was done is said inside the section, which stays open,
and the list names each answer as now stored."""

import streamlit as st

import app_state
from ordercore.studio.answer_counts import AnswerCounts
from ordercore.studio.broken_answers import last_retrain_breaks

BROKEN = "SSL (the last retrain) orders this pair the other way: it breaks this answer."
# What *My answers* says under an answer the last retrain's SSL breaks (a comment: Streamlit's magic shows
# a bare string).

CHOICE_LABELS = {"a": "A higher", "b": "B higher", "equal": "about equal", "skip": "skip"}

SAID = "history_said"
# What the section says once on its next run: (kind, text), kind 'success' or 'error' (a comment, not a
# docstring: Streamlit's magic would show a bare string).
REMOVING = "history_removing"
# The answer id whose removal waits for 'Yes, remove it'.
OPEN, OPENED = "history_open", "history_opened"
# The section's key (its identity in the browser, whatever its label: a new answer changes the count in
# it), and whether the page has opened it once: 'expanded' then stays True, so the browser keeps the
# user's own opening or closing (a new user's closed by itself after an answer was picked in it: its
# 'expanded', True the run an edit was said, went back to False the next).


def answer_text(data, answer, number: int) -> str:
    """'#3: A bike_id BK1, B bike_id BK2: B higher': the answer by its number in the session."""
    names = data.row_names
    return f"#{number}: A {names.name(answer.row_a)}, B {names.name(answer.row_b)}: {CHOICE_LABELS[answer.choice]}"


def change_answer(engine, annotator: str, answer_id: int, number: int, choice: str) -> None:
    """Change one of this annotator's answers to ``choice``; the list then shows it chosen, as stored."""
    try:
        engine.edit_answer(annotator, answer_id, choice)
    except (ValueError, KeyError) as error:
        st.session_state[SAID] = ("error", str(error).strip("'\""))
        return
    st.session_state[SAID] = ("success", f"Answer #{number} is now '{CHOICE_LABELS[choice]}'.")
    st.session_state.history_answer = answer_id  # the box is given its new label, not the one it kept


def remove_answer(engine, annotator: str, answer_id: int, text: str, shown_next: int | None) -> None:
    """Remove one of this annotator's answers (confirmed), say which went, and show ``shown_next`` (an
    answer that stays) in the box: left alone, the browser kept showing the removed one while the
    buttons acted on the newest."""
    st.session_state.pop(REMOVING, None)
    try:
        engine.remove_answer(annotator, answer_id)
    except (ValueError, KeyError) as error:
        st.session_state[SAID] = ("error", str(error).strip("'\""))
        return
    st.session_state[SAID] = ("success", f"Removed your answer {text}: the models retrain without it.")
    if shown_next is None:
        st.session_state.pop("history_answer", None)
    else:
        st.session_state.history_answer = shown_next


def history_section(engine, data, answers, numbers) -> None:
    """This annotator's answers, newest first (``numbers``: ``session_numbers``): any of them can be
    changed, or removed after a confirmation."""
    annotator = app_state.annotator()
    own = answers[answers["annotator"] == annotator].iloc[::-1]
    said, removing = st.session_state.pop(SAID, None), st.session_state.get(REMOVING)
    if said or removing:  # what was done is said inside: opened (else the user's own opening or closing is kept)
        st.session_state[OPENED] = True
    opened = st.session_state.get(OPENED, False)
    skipped = AnswerCounts.of(own).skipped  # said apart: a skip orders nothing (new-user report 12, F5)
    of_them = f" ({skipped:,} of them {'skips' if skipped > 1 else 'a skip'})" if skipped else ""
    with st.expander(f"My answers ({len(own)}): change or remove one{of_them}", opened, key=OPEN):
        if said:
            (st.success if said[0] == "success" else st.error)(said[1])
        if own.empty:
            st.caption("You have not answered yet in this session.")
            return
        labels = {int(row.id): answer_text(data, row, numbers[row.id]) for row in own.itertuples()}
        if st.session_state.get("history_newest") != own["id"].iloc[0]:  # a new answer: it is chosen, first
            st.session_state.history_newest = st.session_state.history_answer = int(own["id"].iloc[0])
        broken = last_retrain_breaks(engine)
        labels = only_broken(labels, broken)
        if not labels:
            st.caption("SSL orders none of your answers the other way.")
            return
        # "contains", not fuzzy: "#7:" finds answer #7 alone (fuzzy listed #27, #17, #9 … with it)
        chosen = st.selectbox(
            "Answer", list(labels), format_func=labels.get, key="history_answer", filter_mode="contains"
        )
        mark = st.empty()
        if broken is not None and chosen in broken.ssl:
            mark.caption(BROKEN)
        # The question and the buttons in the same places whether asking or not: each run draws over the
        # last, so no 'Yes, remove it' is left standing after a removal (a new user's stale one, clicked,
        # said 'answer #15 is not one of this session's').
        question, columns = st.empty(), st.columns(len(CHOICE_LABELS) + 1)
        if removing in labels:
            shown_next = neighbour(list(labels), removing)
            confirm_removal(question, columns, engine, annotator, removing, labels[removing], shown_next)
            return
        for cell, (choice, label) in zip(columns, CHOICE_LABELS.items(), strict=False):
            args = (engine, annotator, chosen, int(numbers[chosen]), choice)
            cell.button(label, key=f"history_{choice}", on_click=change_answer, args=args, width="stretch")
        columns[-1].button(
            "Remove…",
            key="history_remove",
            on_click=st.session_state.__setitem__,
            args=(REMOVING, chosen),
            width="stretch",
        )


def only_broken(labels: dict, broken) -> dict:
    """The answers' ``labels`` (id: text), or, when its toggle is on, those SSL orders the other way only
    (``BrokenAnswers``; None while SSL is refitted: the toggle is off); the box then shows one of them."""
    count = "" if broken is None else f" ({broken.ssl_share(labels)})"  # the unit of the sentence above it
    only = st.toggle(
        f"Only those SSL orders the other way{count}",
        key="history_broken_only",
        disabled=broken is None,
        help="The answers at least one of whose preferences the last retrain's SSL breaks (the ones its count "
        "above is of): often a slip, sometimes where the labels or a rule disagree with you. Shown once SSL has "
        "been refitted on your newest answers.",
    )
    if not only or broken is None:
        return labels
    kept = {k: text for k, text in labels.items() if k in broken.ssl}
    if kept and st.session_state.get("history_answer") not in kept:
        st.session_state.history_answer = next(iter(kept))
    return kept


def neighbour(ids: list[int], answer_id: int) -> int | None:
    """The answer listed after ``answer_id`` in ``ids`` (the next older), else the one before; None if
    it is the only one."""
    at = ids.index(answer_id)
    rest = ids[at + 1 :] + ids[:at][::-1]
    return rest[0] if rest else None


def confirm_removal(question, columns, engine, annotator: str, answer_id: int, text: str, shown_next) -> None:
    """Ask before removing, as Rules does for a rule, in ``question`` (an ``st.empty``), with 'Yes, remove
    it' and 'Cancel' in the first two of ``columns``, where the answer buttons stand otherwise; once removed,
    the box shows ``shown_next``."""
    question.warning(f"Remove your answer {text}? Its preferences go with it; the models retrain without it.")
    args = (engine, annotator, answer_id, text, shown_next)
    yes, no = columns[:2]
    yes.button("Yes, remove it", type="primary", key="history_remove_confirm", on_click=remove_answer, args=args)
    no.button("Cancel", key="history_remove_cancel", on_click=st.session_state.pop, args=(REMOVING, None))
