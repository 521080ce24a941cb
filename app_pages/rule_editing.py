"""Editing a stored rule on the Rules page (new-user report 9, Minor 10): its Edit button fills the rule form
with the rule's settings; while it is edited, Save replaces it (``ordercore.studio.rule_edits``) and the
page says first what saving does to its audit answers."""

from dataclasses import fields

import streamlit as st

import app_state
from ordercore.knowledge.rules import Rule
from ordercore.studio.rule_edits import audit_split, edit_rule, rule_number

CONDITION_SLOTS = 4
NO_CONDITION = "—"


def fill_form(rule_id: int | None, rule: Rule) -> None:
    """Fill the rule form's widgets with ``rule``'s settings, as edits of stored rule ``rule_id`` (None: as a
    new rule), a callback: before the widgets are drawn.  Values are set, never deleted: a widget whose key
    is deleted keeps its value in the browser while the server starts it from its default, and the form
    then showed one rule and made another (new-user report 12, Major 1)."""
    st.session_state.update(form_values(rule))
    st.session_state["rule_editing"] = rule_id


def form_values(rule: Rule) -> dict:
    """The rule form's widget values (by their keys, as the widgets make them) that show ``rule``."""
    values = {f"rule_kind_{slot}": NO_CONDITION for slot in range(CONDITION_SLOTS)}
    for slot, condition in enumerate(rule.conditions):
        values[f"rule_kind_{slot}"], chosen = condition.kind, {}
        for field in fields(condition):
            key = f"rule_{slot}_{condition.kind}_{field.name}"
            if field.metadata.get("spread") is not None:  # an amount keyed by its column (condition_widgets)
                key += "_" + "_".join(str(v) for v in chosen.values())
            value = getattr(condition, field.name)
            chosen[field.name] = values[key] = value if "column" in field.metadata else float(value)
    ordering = rule.ordering
    return values | {
        "rule_name": rule.name,
        "rule_direction": ordering.direction,
        "rule_ordering": ordering.column,
        f"rule_min_difference_{ordering.column}": float(ordering.min_difference),
        "rule_margin": float(rule.margin),
        "rule_weight": float(rule.weight),
    }


def edit_actions(engine, rule_id: int, rule, made, left) -> None:
    """While a stored rule is edited: what saving does to its audit answers, then Save and Stop editing
    (the form then shows the rule saved, or as stored, as a new rule)."""
    with left:
        number = rule_number(engine, rule_id)  # in the session, as users see it
        if made is not None:
            kept, unlinked = audit_split(engine.answers(), rule_id, made.preferences)
            st.info(
                f"Editing rule #{number}: saving replaces its preferences with these {len(made.preferences):,} and "
                f"keeps its number. Its audit answers to pairs it still makes stay its audits ({kept:,}); those to "
                f"pairs it no longer makes stay as answers but no longer audit it ({unlinked:,})."
            )
        save, stop = st.columns([2, 1])
        save.button(
            f"Save changes to rule #{number}",
            type="primary",
            key="rule_save",
            disabled=made is None,
            on_click=save_edit,
            args=(engine, rule_id, rule, None if made is None else made.preferences),
        )
        stored = dict(engine.rules())[rule_id]
        stop.button("Stop editing", key="rule_edit_stop", on_click=fill_form, args=(None, stored))
        if error := st.session_state.pop("rule_edit_error", None):
            st.error(error)


def save_edit(engine, rule_id: int, rule, preferences) -> None:
    """Save's callback: replace the rule, then show it in the form as a new rule (``fill_form``); what
    happened is said in this run."""
    try:
        words = edit_rule(engine, rule_id, app_state.annotator(), rule, preferences)
    except (ValueError, KeyError) as error:
        st.session_state["rule_edit_error"] = app_state.plain(f"The rule was not changed: {error}")
        return
    fill_form(None, rule)
    st.session_state["rule_removed"] = app_state.plain(f"Changed {words}.")
