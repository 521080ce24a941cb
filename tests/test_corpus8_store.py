"""The eighth corpus's Studio-engine cases (issue 32): a rule on the id column is refused before it is
stored, as the CLI refuses it (A202); a rule file's infinite margin names the rule and the field (A206);
sessions whose names differ get different export file names (A111)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from tests.test_corpus4_library import state
from tests.test_store_refusals import engine, store  # noqa: F401 (fixtures)


def made_by(engine, rule):  # noqa: F811
    """The preferences ``rule`` makes on the session's training pairs, as the Rules page makes them."""
    data = engine.data()
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    return generate(rule, data.frame, labeled).preferences


@pytest.mark.parametrize(
    "rule",
    [
        Rule("ids near", [Within("home_id", 5)], Ordering("rooms", "higher")),
        Rule("by id", [Within("age", 5)], Ordering("home_id", "lower")),
    ],
    ids=["condition", "ordering"],
)
def test_a_rule_on_the_id_column_is_refused_before_it_is_stored(store, engine, rule):  # noqa: F811
    said = (
        f"rule {rule.name!r}: column 'home_id' is the table's id column, which names the rows: it cannot be a "
        "rule's column"
    )
    made = made_by(engine, rule)
    assert len(made) > 0  # the rule makes preferences on this table: only the check refuses it
    before = state(store, engine.id)
    with pytest.raises(ValueError) as raised:
        engine.add_rule("ann", rule, made)
    assert str(raised.value) == said
    with pytest.raises(ValueError) as raised:
        engine.import_file("r.json", json.dumps([rule.to_dict()]).encode(), "ann")
    assert str(raised.value) == f"rule 1 of the file: {said}; nothing was imported"
    assert state(store, engine.id) == before


@pytest.mark.parametrize("margin", ["1e400", "-1e400"])
def test_a_rule_files_infinite_margin_names_the_rule_and_the_field(store, engine, margin):  # noqa: F811
    rule = Rule("edited", [Within("age", 5)], Ordering("rooms", "higher"))
    text = json.dumps([rule.to_dict()]).replace('"margin": 0.0', f'"margin": {margin}')
    assert margin in text  # the file's margin reads as ±inf
    before = state(store, engine.id)
    with pytest.raises(ValueError) as raised:
        engine.import_file("r.json", text.encode(), "ann")
    assert str(raised.value) == "rule 'edited': the margin must be finite"
    assert state(store, engine.id) == before
