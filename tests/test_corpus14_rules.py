"""The fourteenth corpus's rule case (issue 32, "nothing silently wrong"): ``Rule``'s arguments used before
they were checked, so one condition given alone said "'Within' object is not iterable" (R16: RG17), and a
margin, weight or min_difference of text, True or an array met numpy's words or was taken for 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, Within, generate

WITHIN, ORDERING = Within("age", 5), Ordering("rooms", "higher")


@pytest.mark.parametrize(
    "conditions, given",
    [(WITHIN, "Within"), ("age", "str"), ({WITHIN: 1}, "dict"), (None, "NoneType"), (5, "int")],
    ids=["one condition (RG17)", "text", "a dict", "None", "a number"],
)
def test_conditions_must_be_a_list_of_conditions(conditions, given):
    with pytest.raises(TypeError, match=rf"^rule 'r': conditions must be a list of conditions \(e\.g\. .*got {given} "):
        Rule("r", conditions, ORDERING)


@pytest.mark.parametrize("conditions", [[WITHIN], (WITHIN,), {WITHIN}, (c for c in [WITHIN])])
def test_any_collection_of_conditions_makes_the_same_rule(conditions):
    assert Rule("r", conditions, ORDERING) == Rule("r", [WITHIN], ORDERING)


@pytest.mark.parametrize("margin", ["1", None, True, np.array([1.0])])
def test_the_margin_must_be_a_number(margin):
    """margin=True made a rule of margin True (read as 1); '1' and None met numpy's 'ufunc isfinite'."""
    with pytest.raises(ValueError, match=r"^rule 'r': the margin must be a number, got "):
        Rule("r", [WITHIN], ORDERING, margin=margin)


@pytest.mark.parametrize("weight", ["1", None, True, np.array([1.0, 2.0])])
def test_the_weight_must_be_a_number(weight):
    with pytest.raises(ValueError, match=r"^rule 'r': the weight must be a number in \[0, "):
        Rule("r", [WITHIN], ORDERING, weight=weight)


@pytest.mark.parametrize("min_difference", ["1", None, True])
def test_the_orderings_min_difference_must_be_a_number(min_difference):
    with pytest.raises(ValueError, match=r"^Ordering min_difference must be a finite number >= 0, got "):
        Rule("r", [WITHIN], Ordering("rooms", "higher", min_difference))


def test_a_name_that_is_no_text_is_said_so():
    with pytest.raises(ValueError, match=r"^a rule's name must be text, got int 5$"):
        Rule(5, [WITHIN], ORDERING)


def test_numpy_numbers_are_numbers():
    """np.float64 and np.int64 amounts (a table's cells) make the rule their Python values make."""
    rule = Rule("r", [WITHIN], Ordering("rooms", "higher", np.float64(2.0)), margin=np.float64(0.5), weight=np.int64(2))
    assert rule == Rule("r", [WITHIN], Ordering("rooms", "higher", 2.0), margin=0.5, weight=2)


@pytest.mark.parametrize("max_pairs", [True, False, np.bool_(True)])
def test_generate_refuses_a_boolean_max_pairs(max_pairs):
    """max_pairs=True met numpy's 'Booleans unacceptable as partition index'."""
    frame = pd.DataFrame({"age": np.arange(20) % 5, "rooms": np.arange(20)})
    with pytest.raises(ValueError, match=r"^max_pairs must be a non-negative integer or None, got "):
        generate(Rule("r", [Within("age", 1)], ORDERING), frame, max_pairs=max_pairs)
