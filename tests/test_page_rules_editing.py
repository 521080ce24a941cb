"""AppTests of editing a stored rule on the Rules page (issue 33, nu13 F11): Streamlit logged 'The widget with key
"rule_kind_0" was created with a default value but also had its value set via the Session State API' on Save
changes to rule #2, the rule form's widgets taking their values both from their defaults and from what Edit and
Save put in the session state.  Each widget now takes its value from one place: no such warning on the new-rule
form, after Edit or after Save, and the form shows the rule (as stored in the store, read directly)."""

import logging

import pytest
from streamlit import runtime
from streamlit.elements.lib import policies

from ordercore.knowledge.rules import Within
from ordercore.studio.store import Store
from tests.studio_app import add_default_rule

DUPLICATED = "was created with a default value but also had its value set via the Session State API"


class Said(logging.Handler):
    """The messages of the records a logger hands it."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def warned(monkeypatch):
    """What Streamlit's widget policies log, every time: under AppTest no server runtime exists, and Streamlit
    skips the check without one and warns once per process with one; both are lifted here."""
    monkeypatch.setattr(policies, "runtime", type("Running", (), {"exists": staticmethod(lambda: True)}))
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    said = Said()
    policies._LOGGER.addHandler(said)
    yield said.messages
    policies._LOGGER.removeHandler(said)
    assert runtime.exists is not None  # the real module untouched


def kinds(at) -> list[str]:
    return [at.selectbox(key=f"rule_kind_{slot}").value for slot in range(4)]


def shows(at, rule) -> None:
    """The form shows ``rule``: its name, each condition's kind and amounts, its ordering, margin and weight."""
    assert at.text_input(key="rule_name").value == rule.name
    assert kinds(at) == [c.kind for c in rule.conditions] + ["—"] * (4 - len(rule.conditions))
    inputs = {widget.key: widget.value for widget in at.number_input}
    for slot, condition in enumerate(rule.conditions):
        if isinstance(condition, Within):
            assert inputs[f"rule_{slot}_within_tolerance_{condition.column}"] == condition.tolerance
        elif condition.kind == "near":
            assert inputs[f"rule_{slot}_near_miles"] == condition.miles
    assert at.selectbox(key="rule_ordering").value == rule.ordering.column
    assert at.radio(key="rule_direction").value == rule.ordering.direction
    assert inputs[f"rule_min_difference_{rule.ordering.column}"] == rule.ordering.min_difference
    assert (inputs["rule_margin"], inputs["rule_weight"]) == (rule.margin, rule.weight)


def test_edit_and_save_fill_the_form_without_a_widget_given_its_value_twice(ready, store_path, warned):
    at = ready
    add_default_rule(at)
    assert not [m for m in warned if DUPLICATED in m], warned  # the new rule's form: its defaults alone
    # the sample homes' default rule (README): near 2 miles, age and income within a quarter of their spread
    assert kinds(at) == ["near", "within", "within", "—"]
    store = Store(f"sqlite:///{store_path}")
    session_id = store.session("s1").id
    ((rule_id, rule),) = store.rules(session_id)
    at.button(key=f"rule_edit_{rule_id}").click().run()
    assert not at.exception and "rule_save" in [b.key for b in at.button]
    shows(at, rule)
    at.text_input(key="rule_name").input("edited").run()
    at.number_input(key="rule_0_near_miles").set_value(1.0).run()
    at.button(key="rule_save").click().run()
    assert not at.exception and "Changed rule #1" in at.success[0].value.replace("\\", "")
    ((_, saved),) = store.rules(session_id)
    store.engine.dispose()
    assert saved.name == "edited" and saved.conditions[0].miles == 1.0 and saved.conditions[1:] == rule.conditions[1:]
    shows(at, saved)  # the form shows the saved rule, as a new rule
    assert "rule_add" in [b.key for b in at.button] and "rule_save" not in [b.key for b in at.button]
    assert not [m for m in warned if DUPLICATED in m], warned
