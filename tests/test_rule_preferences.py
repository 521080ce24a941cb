"""``check_made`` tests every given preference, not a sample (corpus 13, RE18: a rule edit's preferences with 3
pairs of another rule were stored); ``makes`` agrees with a brute force over every ordered pair of rows."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Ordering, Rule, SameCategory, Within, generate, makes
from ordercore.preferences import PreferenceSet
from ordercore.studio.rule_preferences import check_made


def table(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {"age": rng.integers(0, 40, n).astype(float), "town": rng.choice(["a", "b"], n), "rooms": rng.integers(1, 6, n)}
    )


def test_makes_is_the_brute_force_rule_on_every_ordered_pair():
    frame, labeled = table(40), np.arange(40) % 3 == 0
    frame.loc[5, "age"] = np.nan  # a row with a missing value makes no pair
    rule = Rule("r", [Within("age", 6), SameCategory("town")], Ordering("rooms", "lower", min_difference=2))
    pairs = list(itertools.permutations(range(40), 2))
    a, b = frame.iloc, frame.iloc
    expected = [
        not np.isnan(a[w].age)
        and not np.isnan(b[v].age)
        and abs(a[w].age - b[v].age) <= 6
        and a[w].town == b[v].town
        and a[w].rooms <= b[v].rooms - 2  # lower is worth more, by at least 2
        and not (labeled[w] and labeled[v])
        for w, v in pairs
    ]
    got = makes(rule, frame, labeled, [w for w, _ in pairs], [v for _, v in pairs])
    assert got.tolist() == expected and any(expected)


def test_one_pair_among_many_the_rule_does_not_make_is_refused():
    frame = table(400)
    labeled = np.zeros(400, dtype=bool)
    rule = Rule("r", [Within("age", 3)], Ordering("rooms"))
    made = generate(rule, frame, labeled).preferences
    assert len(made) > 10_000  # a sample of 100 would miss one stray pair 99 times in 100
    winner = int(np.flatnonzero(frame.age.to_numpy() == frame.age.min())[0])
    loser = int(np.flatnonzero(frame.age.to_numpy() >= frame.age.min() + 10)[0])  # 10 years apart: not within 3
    given = PreferenceSet.order(np.r_[made.i, winner], np.r_[made.j, loser])
    with pytest.raises(ValueError, match=f"^rule 'r' does not make the given preference row {winner} over row {loser}"):
        check_made(frame, np.zeros(0, dtype=int), rule, given)
    check_made(frame, np.zeros(0, dtype=int), rule, made)  # its own pairs pass
