"""Editing a stored rule on the Rules page (new-user report 9, Minor 10): its Edit button fills the rule form
with the rule's settings; while it is edited, Save replaces it (``ordercore.studio.rule_edits``) and the
page says first what saving does to its audit answers."""

import re
from dataclasses import fields

import streamlit as st

import app_state
from ordercore.knowledge.rules import Rule
from ordercore.studio.rule_edits import audit_split, edit_rule, rule_number

CONDITION_SLOTS = 4
NO_CONDITION = "—"
FORM_KEYS = re.compile(r"rule_(kind_|\d+_|min_difference_|name|direction|ordering|margin|weight|max_pairs)")


def clear_form(rule_id: int | None = None, rule: Rule | None = None) -> None:
    """Empty the rule form's widgets, so that they start again from a new rule's defaults, or fill them
    with stored rule ``rule_id``'s settings (a callback: before the widgets are drawn)."""
    for key in [k for k in st.session_state if FORM_KEYS.match(str(k))]:
        del st.session_state[key]
    if rule is not None:
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
    """While a stored rule is edited: what saving does to its audit answers, then Save and Stop editing."""
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
        saved = save.button(f"Save changes to rule #{number}", type="primary", key="rule_save", disabled=made is None)
        stop.button("Stop editing", key="rule_edit_stop", on_click=clear_form)
    if saved:
        try:
            words = edit_rule(engine, rule_id, app_state.annotator(), rule, made.preferences)
        except (ValueError, KeyError) as error:
            st.error(app_state.plain(f"The rule was not changed: {error}"))
            return
        clear_form()
        st.session_state["rule_removed"] = app_state.plain(f"Changed {words}.")  # said on the next run
        st.rerun()
