"""Which column gradient boosting's monotone constraint defaults to on the Model page (issue 33): the one
the session's rules order by, higher first; else none (new-user pass 10: a constraint the data merely
suggests, 'increasing in age_years', is no order the expert stated, and it was not compared with SVR)."""

from __future__ import annotations

from ordercore.studio.data import StudyData


def monotone_column(data: StudyData, rules) -> tuple[str | None, str]:
    """(column, why) for a constraint "increasing in column": the column of the first of ``rules``
    ((id, Rule) pairs, oldest first) that orders by a numeric feature, higher first; else (None, why): no
    constraint."""
    numeric = data.numeric_features()
    for _, rule in rules:
        if rule.ordering.column in numeric and rule.ordering.direction == "higher":
            return rule.ordering.column, f"your rule “{rule.name}” orders by it, higher first"
    return None, "no rule of the session orders by a numeric feature, higher first: no constraint"
