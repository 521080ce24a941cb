"""Seed 000's California experiment: Table 1's protocol with the preferences of the bedroom rule
("within 25 miles, age and income alike, more bedrooms is worth more"), under the readings of "number
of bedrooms" the block-level census table allows.
"""

from __future__ import annotations

from dataclasses import replace

from ordercore.data.tables import Dataset
from ordercore.experiments.protocol import Protocol, result_document, run_trials
from ordercore.knowledge.rules import Near, Ordering, Rule, Within

PAPER_BEDROOM = {"n_preferences": 1200, "preference_accuracy": 0.70, "svr": 58268, "ssl": 54664}
"""Seed 000's California bedroom experiment: about 1200 preferences, 70% accurate, test MAE
58268 (SVR) and 54664 (SSL), a 6% reduction."""


BEDROOM_READINGS = {
    "total": "total_bedrooms",
    "per_household": "bedrooms_per_household",
    "per_person": "bedrooms_per_person",
    "rooms_per_household": "rooms_per_household",
}
"""How "number of bedrooms" is read from the block-level census table: the block's total (the
plain reading, which mostly measures how big the block is), bedrooms per household (the size of
a typical home), bedrooms per resident (room to live in), or all rooms per household."""


def with_household_columns(data: Dataset) -> Dataset:
    """California with bedrooms_per_household, bedrooms_per_person and rooms_per_household added to
    the raw table (for rules only; the model's features X are unchanged)."""
    frame = data.frame
    frame = frame.assign(
        bedrooms_per_household=frame["total_bedrooms"] / frame["households"],
        bedrooms_per_person=frame["total_bedrooms"] / frame["population"],
        rooms_per_household=frame["total_rooms"] / frame["households"],
    )
    return replace(data, frame=frame)


def bedroom_rule(reading: str = "total") -> Rule:
    """Seed 000: within 25 miles, median age within 10 years, median income within $1000 (0.1 in the
    data's units of $10,000) -> the block with more bedrooms is worth more; d = 0, w = 1."""
    if reading not in BEDROOM_READINGS:
        raise ValueError(f"reading must be one of {sorted(BEDROOM_READINGS)}, got {reading!r}")
    return Rule(
        f"more bedrooms ({reading})",
        [Near("latitude", "longitude", 25.0), Within("housing_median_age", 10.0), Within("median_income", 0.1)],
        Ordering(BEDROOM_READINGS[reading]),
    )


def bedroom(
    data: Dataset,
    protocol: Protocol,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 000's California experiment: Table 1's protocol (l = 60, u = 1000, SVR tuned on labels)
    with the preferences of ``protocol.rules`` instead of the oracle's.  ``jobs``, ``progress``,
    ``scheduler``: as ``run_trials``."""
    if not protocol.rules:
        raise ValueError("the bedroom experiment needs protocol.rules")
    household = with_household_columns(data)
    results = [
        r for _, r in run_trials(household, [("bedroom", protocol)], trials, seed, jobs, progress, scheduler=scheduler)
    ]
    return result_document("bedroom", "california", protocol, seed, results, PAPER_BEDROOM)
