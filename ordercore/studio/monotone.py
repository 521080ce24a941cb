"""Which column gradient boosting's monotone constraint defaults to on the Model page (issue 33): the one
the session's rules order by, else the one the labels rank with best, so that the default is a relation
the expert stated or the data shows, never the table's first column."""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from ordercore.studio.data import StudyData


def monotone_column(data: StudyData, rules) -> tuple[str | None, str]:
    """(column, why) for a constraint "increasing in column": the column of the first of ``rules``
    ((id, Rule) pairs, oldest first) that orders by a numeric feature, higher first; else the numeric
    feature whose Spearman rank correlation with the labeled rows' target is the highest positive one.
    (None, why) without a numeric feature; the first one when none correlates positively."""
    numeric = data.numeric_features()
    if not numeric:
        return None, "the session has no numeric feature"
    for _, rule in rules:
        if rule.ordering.column in numeric and rule.ordering.direction == "higher":
            return rule.ordering.column, f"your rule “{rule.name}” orders by it, higher first"
    labeled, target = data.labeled, data.y_true[data.labeled]
    best, best_rho = numeric[0], -np.inf
    for name in numeric:
        values = data.frame.loc[labeled, name].to_numpy(dtype=np.float64)
        if np.ptp(values) == 0 or np.ptp(target) == 0:
            continue
        rho = spearmanr(values, target).statistic
        if np.isfinite(rho) and rho > best_rho:
            best, best_rho = name, rho
    if not np.isfinite(best_rho) or best_rho <= 0:
        return best, "no rule orders by a column and no feature rises with the labels: the first column"
    return best, (
        f"no rule orders by a column; of the features it rises most with the {labeled.size:,} labels "
        f"(Spearman rank correlation {best_rho:.2f})"
    )
