""" "Roughly equal" rules: one rule creates many order preferences at once (seed 000, the California
bedroom rule: "within 25 miles, median age within 10 years, median income within $1000, the block
with more bedrooms is worth more").

A rule is data, never code: conditions that make two rows roughly equal, an ordering that says
which of the two has the higher target, a margin d and a weight w.  It round-trips through JSON.

``conditions``: the "roughly equal" tests, their registry and the candidate pairs each generates;
``rule``: ``Ordering`` and ``Rule``, with its JSON; ``forms``: what the Rules page offers for a
condition and the conditions a new rule starts from; ``generation``: the preferences a rule creates
over a table, never forming all n² pairs.  Their public names are importable from here.
"""

from ordercore.knowledge.rules.conditions import (
    CONDITIONS,
    Condition,
    Near,
    RelativeWithin,
    SameCategory,
    Within,
    amount_field,
    column_field,
)
from ordercore.knowledge.rules.forms import (
    ConditionParameter,
    column_spread,
    condition_form,
    condition_pairs,
    default_direction,
    default_ordering,
    offered_conditions,
    ordering_form,
    rank_correlation,
    rank_correlation_interval,
    rule_columns,
    rule_name,
    spread_amount,
    suggested_conditions,
)
from ordercore.knowledge.rules.generation import SCOPES, RulePreferences, complete_values, generate, makes
from ordercore.knowledge.rules.rule import RULE_FORMAT, RULE_VERSION, Ordering, Rule

__all__ = [
    "CONDITIONS",
    "RULE_FORMAT",
    "RULE_VERSION",
    "SCOPES",
    "Condition",
    "ConditionParameter",
    "Near",
    "Ordering",
    "RelativeWithin",
    "Rule",
    "RulePreferences",
    "SameCategory",
    "Within",
    "amount_field",
    "column_field",
    "column_spread",
    "complete_values",
    "condition_form",
    "condition_pairs",
    "default_direction",
    "default_ordering",
    "generate",
    "makes",
    "offered_conditions",
    "rank_correlation",
    "rank_correlation_interval",
    "rule_columns",
    "rule_name",
    "ordering_form",
    "spread_amount",
    "suggested_conditions",
]
