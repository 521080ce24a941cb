""" "Roughly equal" rules against a brute-force enumeration of all pairs on small hand-made tables."""

import itertools
import json
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import (
    CONDITIONS,
    Condition,
    Near,
    Ordering,
    RelativeWithin,
    Rule,
    SameCategory,
    Within,
    column_field,
    generate,
)


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame(
        {
            "lat": 34 + rng.uniform(0, 1.0, n),
            "lon": -118 + rng.uniform(0, 1.0, n),
            "age": rng.integers(0, 40, n).astype(float),
            "income": rng.uniform(1, 5, n),
            "town": rng.choice(["a", "b", "c"], n),
            "bedrooms": rng.integers(1, 6, n),
            "price": rng.normal(size=n),
        }
    )


def miles(lat1, lon1, lat2, lon2):
    """Great-circle distance, written independently of ordercore (spherical law of cosines)."""
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    cosine = math.sin(p1) * math.sin(p2) + math.cos(p1) * math.cos(p2) * math.cos(dl)
    return 3958.8 * math.acos(min(1.0, max(-1.0, cosine)))


def brute_force(frame, labeled, scope, close, ordering_column, direction="higher", min_difference=0.0):
    expected = set()
    for i, j in itertools.combinations(range(len(frame)), 2):
        a, b = frame.iloc[i], frame.iloc[j]
        if not close(a, b):
            continue
        difference = a[ordering_column] - b[ordering_column]
        if difference == 0 or abs(difference) < min_difference:
            continue
        both = labeled[i] and labeled[j]
        if (scope == "training" and both) or (scope == "labeled" and not both):
            continue
        higher_wins = (difference > 0) == (direction == "higher")
        expected.add((i, j) if higher_wins else (j, i))
    return expected


CASES = {
    "near": ([Near("lat", "lon", 20.0)], lambda a, b: miles(a.lat, a.lon, b.lat, b.lon) <= 20.0),
    "within": ([Within("age", 5)], lambda a, b: abs(a.age - b.age) <= 5),
    "relative": (
        [RelativeWithin("income", 0.1)],
        lambda a, b: abs(a.income - b.income) <= 0.1 * max(a.income, b.income),
    ),
    "category": ([SameCategory("town")], lambda a, b: a.town == b.town),
    "category of numbers": ([SameCategory("age")], lambda a, b: a.age == b.age),  # 60 ages of 40: repeats
    "all four": (
        [Within("age", 15), SameCategory("town"), Near("lat", "lon", 40.0), RelativeWithin("income", 0.5)],
        lambda a, b: (
            abs(a.age - b.age) <= 15
            and a.town == b.town
            and miles(a.lat, a.lon, b.lat, b.lon) <= 40.0
            and abs(a.income - b.income) <= 0.5 * max(a.income, b.income)
        ),
    ),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("scope", ["training", "labeled", "all"])
def test_each_condition_matches_brute_force(table, case, scope):
    conditions, close = CASES[case]
    labeled = np.zeros(len(table), dtype=bool)
    labeled[::3] = True
    rule = Rule("r", conditions, Ordering("bedrooms"), margin=0.5, weight=2.0)
    result = generate(rule, table, labeled, scope=scope, max_pairs=None)
    got = set(zip(result.preferences.i.tolist(), result.preferences.j.tolist(), strict=True))
    assert got == brute_force(table, labeled, scope, close, "bedrooms")
    assert result.n_matched == len(got)
    assert np.all(result.preferences.margin == 0.5) and np.all(result.preferences.weight == 2.0)


def test_ordering_direction_and_minimum_difference(table):
    rule = Rule("r", [Within("age", 10)], Ordering("bedrooms", direction="lower", min_difference=2))
    got = generate(rule, table, max_pairs=None).preferences
    expected = brute_force(
        table, np.zeros(len(table), bool), "training", lambda a, b: abs(a.age - b.age) <= 10, "bedrooms", "lower", 2
    )
    assert set(zip(got.i.tolist(), got.j.tolist(), strict=True)) == expected
    assert np.all(table.bedrooms.to_numpy()[got.i] <= table.bedrooms.to_numpy()[got.j] - 2)


def test_one_degree_of_latitude_is_69_miles():
    frame = pd.DataFrame({"lat": [0.0, 1.0], "lon": [0.0, 0.0], "rooms": [1, 2]})
    assert len(generate(Rule("r", [Near("lat", "lon", 69.2)], Ordering("rooms")), frame).preferences) == 1
    assert len(generate(Rule("r", [Near("lat", "lon", 69.0)], Ordering("rooms")), frame).preferences) == 0


def test_cap_takes_a_uniform_sample_of_the_matches(table):
    rule = Rule("r", [Within("age", 20)], Ordering("bedrooms"))
    full = generate(rule, table, max_pairs=None).preferences
    all_pairs = set(zip(full.i.tolist(), full.j.tolist(), strict=True))
    capped = generate(rule, table, max_pairs=50, random_state=1)
    pairs = set(zip(capped.preferences.i.tolist(), capped.preferences.j.tolist(), strict=True))
    assert len(pairs) == 50 and pairs <= all_pairs and capped.n_matched == len(all_pairs)
    assert capped.preferences == generate(rule, table, max_pairs=50, random_state=1).preferences
    # Uniform: over many seeds every pair is drawn about 50/len(all) of the time.
    counts = dict.fromkeys(all_pairs, 0)
    for seed in range(400):
        sample = generate(rule, table, max_pairs=50, random_state=seed).preferences
        for pair in zip(sample.i.tolist(), sample.j.tolist(), strict=True):
            counts[pair] += 1
    rate = np.array(list(counts.values())) / 400
    assert abs(rate.mean() - 50 / len(all_pairs)) < 1e-9
    assert rate.std() < 3 * math.sqrt(rate.mean() * (1 - rate.mean()) / 400)


def test_small_chunks_give_the_same_pairs(table, monkeypatch):
    import ordercore.knowledge.rules.conditions

    rule = Rule("r", [Near("lat", "lon", 30.0), Within("age", 12)], Ordering("bedrooms"))
    whole = generate(rule, table, max_pairs=None).preferences
    monkeypatch.setattr(ordercore.knowledge.rules.conditions, "CHUNK_PAIRS", 7)
    assert generate(rule, table, max_pairs=None).preferences == whole


def test_missing_values_never_pair():
    frame = pd.DataFrame({"age": [1.0, np.nan, 1.5, 2.0], "rooms": [1, 2, np.nan, 3]})
    got = generate(Rule("r", [Within("age", 5)], Ordering("rooms")), frame).preferences
    assert set(zip(got.i.tolist(), got.j.tolist(), strict=True)) == {(3, 0)}


def test_rules_round_trip_through_json():
    rule = Rule(
        "bedrooms",
        [Near("latitude", "longitude", 25), Within("age", 10), RelativeWithin("income", 0.1), SameCategory("town")],
        Ordering("bedrooms", "higher", 1.0),
        margin=0.0,
        weight=0.7,
    )
    assert Rule.from_json(rule.to_json()) == rule


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Rule("r", [Near("lat", "lon", -1)], Ordering("bedrooms")), "miles"),
        (lambda: Rule("r", [Within("age", -2)], Ordering("bedrooms")), "tolerance"),
        (lambda: Rule("r", [RelativeWithin("income", 1.5)], Ordering("bedrooms")), "fraction"),
        (lambda: Rule("r", [], Ordering("bedrooms")), "at least one"),
        (lambda: Rule("r", [Within("age", 1)], Ordering("bedrooms", "sideways")), "direction"),
        (lambda: Rule("", [Within("age", 1)], Ordering("bedrooms")), "name"),
        (lambda: Rule("r", [Within("age", 1)], Ordering("bedrooms"), weight=-1), "weight"),
    ],
)
def test_bad_rule_specs_raise(build, match):
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda doc: doc["conditions"][0].update(tolerance=True), "tolerance must be a number, got True"),
        (lambda doc: doc["conditions"][0].update(tolerance="10"), "tolerance must be a number, got '10'"),
        (lambda doc: doc.update(conditions="within age"), "conditions must be a list of objects"),
        (lambda doc: doc.update(conditions=["within"]), "conditions must be a list of objects"),
        (lambda doc: doc.update(weight=True), "weight must be a number, got True"),
        (lambda doc: doc.update(margin="0.5"), "margin must be a number"),
    ],
)
def test_a_rule_document_whose_values_are_not_what_they_say_is_refused(change, match):
    """JSON's true, a number as text, conditions as a string: refused naming the value (true was read as 1)."""
    document = json.loads(Rule("r", [Within("age", 1.0)], Ordering("bedrooms")).to_json())
    change(document)
    with pytest.raises(ValueError, match=match):
        Rule.from_dict(document)


def test_bad_columns_and_documents_raise(table):
    with pytest.raises(ValueError, match="unknown column"):
        generate(Rule("r", [Within("floors", 1)], Ordering("bedrooms")), table)
    with pytest.raises(ValueError, match="must be numeric"):
        generate(Rule("r", [Within("town", 1)], Ordering("bedrooms")), table)
    with pytest.raises(ValueError, match="must be numeric"):
        generate(Rule("r", [SameCategory("town")], Ordering("town")), table)
    with pytest.raises(ValueError, match="scope"):
        generate(Rule("r", [Within("age", 1)], Ordering("bedrooms")), table, scope="everything")
    with pytest.raises(ValueError, match="does not parse"):
        Rule.from_json("{not json")
    with pytest.raises(ValueError, match="unknown condition kind"):
        Rule.from_json(
            '{"format": "ordercore.rule", "version": 1, "name": "r", "conditions": [{"kind": "exec"}],'
            ' "ordering": {"column": "x"}}'
        )
    with pytest.raises(ValueError, match="not an ordercore rule"):
        Rule.from_dict({"name": "r"})


@pytest.fixture
def gappy_table(table):
    """The table with several missing values in every column a rule can use."""
    frame = table.copy()
    frame["town"] = frame["town"].astype(object)
    rng = np.random.default_rng(1)
    for column in ("lat", "lon", "age", "income", "town", "bedrooms"):
        frame.loc[rng.choice(len(frame), 6, replace=False), column] = None
    return frame


@pytest.mark.parametrize("case", CASES)
def test_rows_with_missing_values_never_pair(gappy_table, case):
    conditions, close = CASES[case]
    rule = Rule("r", conditions, Ordering("bedrooms"))
    columns = rule.columns()

    def complete_and_close(a, b):
        return not (a[columns].isna().any() or b[columns].isna().any()) and close(a, b)

    labeled = np.zeros(len(gappy_table), dtype=bool)
    got = generate(rule, gappy_table, labeled, max_pairs=None).preferences
    assert set(zip(got.i.tolist(), got.j.tolist(), strict=True)) == brute_force(
        gappy_table, labeled, "training", complete_and_close, "bedrooms"
    )


def test_coordinates_out_of_range_are_an_error(table):
    rule = Rule("r", [Near("lat", "lon", 5.0)], Ordering("bedrooms"))
    for column, value in (("lat", 340.0), ("lon", -181.0)):
        frame = table.copy()
        frame.loc[3, column] = value
        with pytest.raises(ValueError, match=f"{column}.*degrees"):
            generate(rule, frame)


def test_a_new_condition_is_one_class(table):
    """A condition with no candidate generator of its own: registered by its class alone, read back
    from JSON, said in words by its label and columns, and paired over all pairs."""

    @dataclass(frozen=True)
    class SameParity(Condition):
        column: str = column_field()
        kind: ClassVar[str] = "same_parity"
        label: ClassVar[str] = "same parity"

        def holds(self, values, i, j):
            return values[self.column][i] % 2 == values[self.column][j] % 2

    try:
        rule = Rule("r", [SameParity("age")], Ordering("bedrooms"))
        assert CONDITIONS["same_parity"] is SameParity
        assert Rule.from_json(rule.to_json()) == rule
        assert rule.words("price") == "same parity (age); then the one with higher bedrooms has the higher price"
        got = generate(rule, table, max_pairs=None).preferences
        expected = brute_force(
            table, np.zeros(len(table), bool), "training", lambda a, b: a.age % 2 == b.age % 2, "bedrooms"
        )
        assert set(zip(got.i.tolist(), got.j.tolist(), strict=True)) == expected
    finally:
        CONDITIONS.pop("same_parity")


def rule_values(rule, frame):
    from ordercore.knowledge.rules import complete_values

    return complete_values(rule, frame)[1]


@pytest.mark.parametrize("case", ["near", "within", "relative", "category"])
def test_candidate_counts_are_the_pairs_each_condition_holds_for(table, case):
    """On 60 rows every condition counts exactly (Near samples all rows): the brute-force count of
    pairs its ``holds`` test would pass."""
    conditions, close = CASES[case]
    rule = Rule("r", conditions, Ordering("bedrooms"))
    expected = sum(close(table.iloc[i], table.iloc[j]) for i, j in itertools.combinations(range(len(table)), 2))
    assert conditions[0].candidate_count(rule_values(rule, table), len(table)) == pytest.approx(expected)


def test_near_estimates_its_pairs_from_a_sample_of_rows():
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame({"lat": 34 + rng.uniform(0, 2.0, n), "lon": -118 + rng.uniform(0, 2.0, n), "rooms": 1})
    near = Near("lat", "lon", 15.0)
    # Brute force over all n (n - 1) / 2 pairs, by the spherical law of cosines.
    first, second = np.triu_indices(n, k=1)
    lat, lon = np.radians(frame["lat"].to_numpy()), np.radians(frame["lon"].to_numpy())
    cosine = np.sin(lat[first]) * np.sin(lat[second]) + np.cos(lat[first]) * np.cos(lat[second]) * np.cos(
        lon[first] - lon[second]
    )
    expected = np.sum(3958.8 * np.arccos(np.clip(cosine, -1, 1)) <= 15.0)
    estimate = near.candidate_count(rule_values(Rule("r", [near], Ordering("rooms")), frame), n)
    assert 0.9 * expected < estimate < 1.1 * expected


def test_the_condition_with_the_fewest_candidates_generates_them(table, monkeypatch):
    """Near over 1000 miles holds for every pair, age within 0.5 for few: Within makes the candidates
    whichever comes first in the rule, and the pairs are those brute force finds."""
    called = []
    for condition in (Near, Within):
        original = condition.candidates

        def recording(self, values, n, original=original):
            called.append(type(self).__name__)
            return original(self, values, n)

        monkeypatch.setattr(condition, "candidates", recording)
    close = lambda a, b: abs(a.age - b.age) <= 0.5  # noqa: E731
    expected = brute_force(table, np.zeros(len(table), bool), "training", close, "bedrooms")
    for conditions in (
        [Near("lat", "lon", 1000.0), Within("age", 0.5)],
        [Within("age", 0.5), Near("lat", "lon", 1000.0)],
    ):
        got = generate(Rule("r", conditions, Ordering("bedrooms")), table).preferences
        assert set(zip(got.i.tolist(), got.j.tolist(), strict=True)) == expected
    assert called == ["Within", "Within"]


def test_every_matching_pair_is_kept_by_default():
    """300 rows, all roughly equal: every pair whose bedrooms differ, more than the old cap of 20,000."""
    rng = np.random.default_rng(2)
    bedrooms = rng.integers(1, 6, 300)
    frame = pd.DataFrame({"age": np.zeros(300), "bedrooms": bedrooms})
    sizes = np.bincount(bedrooms)
    expected = 300 * 299 // 2 - int(np.sum(sizes * (sizes - 1) // 2))
    made = generate(Rule("r", [Within("age", 1.0)], Ordering("bedrooms")), frame)
    assert len(made.preferences) == made.n_matched == expected > 20_000
    assert np.all(bedrooms[made.preferences.i] > bedrooms[made.preferences.j])
