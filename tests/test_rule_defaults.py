"""The Rules page's defaults and preview, without Streamlit (ordercore.knowledge.rules.forms,
ordercore.studio.rule_view), against brute force and pandas on small tables: a column's spread, the
tolerance a "within" starts from, the pairs a condition holds for, the column a new rule orders by,
the preview's random sample, and the overlaps table in words."""

import itertools
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy.stats import f_oneway, spearmanr

from ordercore.knowledge.quality import rule_quality
from ordercore.knowledge.rules import (
    Near,
    Ordering,
    Rule,
    SameCategory,
    Within,
    column_spread,
    condition_form,
    condition_pairs,
    default_direction,
    default_ordering,
    generate,
    offered_conditions,
    rank_correlation,
    rank_correlation_interval,
    rule_name,
    spread_amount,
    suggested_conditions,
)
from ordercore.knowledge.rules.forms import category_share
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.preferences import PreferenceSet
from ordercore.studio.rule_view import checked_line, direction_reason, preview_sample, quality_words


def test_the_spread_is_the_interquartile_range_over_1_349_and_the_sd_where_it_is_0():
    rng = np.random.default_rng(0)
    values = pd.Series(np.r_[rng.normal(0, 0.8, 400), [1e6]])  # one outlier moves the SD, not the IQR
    low, high = values.quantile([0.25, 0.75])
    assert column_spread(values) == pytest.approx((high - low) / 1.349)
    assert column_spread(values) == pytest.approx(0.8, rel=0.15) and values.std() > 1000
    mostly_zero = pd.Series([0.0] * 90 + [1.0] * 10)
    assert column_spread(mostly_zero) == pytest.approx(mostly_zero.std(ddof=0))
    assert column_spread(pd.Series([3.0, 3.0, np.nan])) == 0.0 and spread_amount(pd.Series([3.0, 3.0])) == 0.0
    assert spread_amount(values) == pytest.approx(0.25 * column_spread(values), rel=0.05)
    # Whole numbers, the nearest whole tolerance: floors' quartiles 2.75 and 6.25, (3.5 / 1.349) / 4 = 0.65
    # → 1, not 0.65; years 1950 … 2020, (35 / 1.349) / 4 = 6.49 → 6; a 0/1 column's 0.046 → 0 (the same value)
    floors = pd.Series([0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 3, 5])
    assert spread_amount(floors) == 1.0 and spread_amount(pd.Series(range(1950, 2021))) == 6.0
    assert spread_amount(pd.Series([0, 0, 0, 1] * 5)) == 0.0


def test_a_within_tolerance_follows_the_chosen_column_unless_the_start_is_on_it():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"small": rng.normal(0, 0.01, 300), "large": rng.normal(0, 500, 300)})
    for column in frame:
        (_, tolerance) = condition_form("within", frame, chosen={"column": column})
        assert tolerance.default == pytest.approx(0.25 * column_spread(frame[column]), rel=0.05)
    start = Within("large", 7.0)
    assert condition_form("within", frame, start=start, chosen={"column": "large"})[1].default == 7.0
    assert condition_form("within", frame, start=start, chosen={"column": "small"})[1].default < 0.01


@pytest.mark.parametrize(
    "condition",
    [Within("x", 0.3), SameCategory("group"), Near("latitude", "longitude", 5.0)],
)
def test_the_pairs_a_condition_holds_for_are_counted_as_brute_force_counts_them(condition):
    rng = np.random.default_rng(2)
    n = 150
    frame = pd.DataFrame(
        {
            "x": rng.normal(0, 1, n),
            "group": rng.choice(list("abcd"), n),
            "latitude": rng.uniform(40, 40.5, n),
            "longitude": rng.uniform(-105.5, -105, n),
        }
    )
    frame.loc[3, "x"] = np.nan  # a row with a missing value pairs with none
    complete = frame[condition.columns()].notna().all(axis=1).to_numpy()
    rows = np.flatnonzero(complete)
    i, j = np.triu_indices(rows.size, k=1)
    if isinstance(condition, Within):
        x = frame["x"].to_numpy()[rows]
        holds = np.abs(x[i] - x[j]) <= condition.tolerance
    elif isinstance(condition, SameCategory):
        g = frame["group"].to_numpy()[rows]
        holds = g[i] == g[j]
    else:
        lat, lon = np.radians(frame["latitude"].to_numpy()), np.radians(frame["longitude"].to_numpy())
        h = np.sin((lat[i] - lat[j]) / 2) ** 2 + np.cos(lat[i]) * np.cos(lat[j]) * np.sin((lon[i] - lon[j]) / 2) ** 2
        holds = 2 * 3958.8 * np.arcsin(np.sqrt(h)) <= condition.miles
    assert condition_pairs(condition, frame) == (holds.sum(), i.size)


def test_a_new_rule_orders_by_a_bedroom_column_else_one_it_does_not_pair_rows_on():
    frame = pd.DataFrame(
        {"longitude": [1.0, 2], "latitude": [3.0, 4], "age": [1, 2], "bedrooms": [5, 6], "value": [1, 2]}
    )
    assert default_ordering(frame, exclude=["value"]) == "bedrooms"
    no_bedrooms = frame.drop(columns="bedrooms").assign(size=[7.0, 8])
    assert default_ordering(no_bedrooms, exclude=["value"]) == "size"  # not longitude, latitude or age


def test_californias_rule_orders_blocks_by_median_income_never_by_a_blocks_total():
    """California's columns: a block's total_bedrooms and total_rooms count its homes (they follow its
    population), so 'more bedrooms' ordered blocks by size; an expert orders them by median income."""
    columns = ["longitude", "latitude", "housing_median_age", "total_rooms", "total_bedrooms", "population"]
    frame = pd.DataFrame({c: [1.0, 2.0] for c in [*columns, "households", "median_income", "median_house_value"]})
    ordering = default_ordering(frame, exclude=["median_house_value"])
    assert ordering == "median_income" and rule_name(ordering) == "more median_income"
    without_income = frame.drop(columns="median_income")
    assert default_ordering(without_income, exclude=["median_house_value"]) == "population"  # the first but totals
    assert rule_name("rm") == "more rm" and rule_name("crim", "lower") == "less crim"


def test_the_preview_is_a_uniform_sample_of_the_rules_pairs():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": np.sort(rng.normal(0, 1, 400)), "y": rng.integers(0, 9, 400)})
    made = generate(Rule("r", [Within("x", 0.5)], Ordering("y")), frame).preferences
    shown = preview_sample(made, 300)
    assert len(shown) == 300 and len(made) > 3000
    pairs = set(zip(made.i.tolist(), made.j.tolist(), strict=True))
    assert set(zip(shown.i.tolist(), shown.j.tolist(), strict=True)) <= pairs
    # The rows of a uniform sample spread as the rule's do: mean row within four standard errors
    rows = np.minimum(made.i, made.j)
    assert abs(np.minimum(shown.i, shown.j).mean() - rows.mean()) < 4 * rows.std() / np.sqrt(300)
    assert len(preview_sample(made[:10], 300)) == 10


def test_the_overlaps_table_is_in_words():
    frame = pd.DataFrame({"x": np.arange(8.0), "y": [3, 1, 4, 1, 5, 9, 2, 6]})
    y = np.array([1.0, np.nan, 2, np.nan, np.nan, 3, np.nan, np.nan])
    rules = [Rule("a", [Within("x", 2)], Ordering("y")), Rule("b", [Within("x", 1)], Ordering("y"))]
    table = quality_words(rule_quality(rules, frame, y, made=[generate(r, frame).preferences for r in rules]), [3, 5])
    assert all("_" not in column for column in table.columns)
    assert table[["#", "rule"]].values.tolist() == [["#3", "a"], ["#5", "b"]]  # issue 33, nu13 F3: by number
    assert not table.isna().any().any() and "None" not in table.astype(str).to_numpy()
    assert table["shared with other rules"].tolist()[1] == str(len(generate(rules[1], frame).preferences))


def test_near_is_offered_only_with_columns_named_for_degrees_and_never_on_the_id():
    """A table of cars (an id of 5001 …, mileage, condition, a note) has no place for "near (miles)": the
    page offered it, filled latitude and longitude with car_id, and the rule could not be added."""
    cars = pd.DataFrame(
        {
            "car_id": [5001, 5002, 5003],
            "mileage": [1e4, 5e4, 2e5],
            "condition": [0.1, 0.5, 0.9],
            "note": ["one owner", "new tyres", "dent"],
            "price": [9e3, 7e3, 2e3],
        }
    )
    offered = offered_conditions(cars, exclude=["price", "car_id"])
    assert offered == ["within", "relative_within"]  # three notes of three rows are free text, no categories
    assert all("car_id" not in p.options for p in condition_form("within", cars, ["price", "car_id"]) if p.options)
    homes = cars.assign(Latitude=[40.0, 40.1, 40.2], LON=[-105.0, -105.1, -105.2])
    assert "near" in offered_conditions(homes, exclude=["price", "car_id"])
    columns = [p.default for p in condition_form("near", homes, ["price", "car_id"]) if p.options]
    assert columns == ["Latitude", "LON"]
    assert offered_conditions(cars[["car_id", "price"]], exclude=["price", "car_id"]) == []  # nothing to compare


def test_same_category_starts_on_a_column_of_categories_not_a_note_or_an_id():
    """A new user's cars: 'same category' started on the free-text note.  Offered: text repeated in few
    values (fuel) alone; never the id or the note (every value its own) nor a number (owners: 'within ± 0'
    is its 'same'; mileage), which a first-time expert was offered too."""
    rng = np.random.default_rng(0)
    n = 40
    cars = pd.DataFrame(
        {
            "car_id": [f"CAR-{1000 + k}" for k in range(n)],
            "note": [f"one owner, serviced {k} times, small dent" for k in range(n)],
            "mileage": rng.uniform(10_000, 200_000, n),
            "owners": rng.integers(1, 5, n),
            "fuel": rng.choice(["petrol", "diesel", "electric"], n),
        }
    )
    (column,) = condition_form("same_category", cars)
    assert column.default == "fuel" and column.options == ["fuel"]
    # a stored rule on another column (made before, or by a file) keeps it when edited
    (column,) = condition_form("same_category", cars, start=SameCategory("owners"))
    assert column.default == "owners" and column.options == ["fuel", "owners"]


def test_the_first_rule_holds_equal_the_category_the_labels_vary_most_between():
    """A first-time expert's bikes were held to the same condition (3 values) where their type (5 values)
    drives the price.  Here the type moves the target by 0-800 and the condition by 0-60 (noise SD 50), and a
    'colour' of 20 values does nothing: over 40 labeled rows the type is chosen, whatever the order of the
    columns, and without labels the fewest values come first as before.  The share of variance between
    categories is checked against scipy's one-way ANOVA F: ε² = (k − 1)(F − 1) / ((k − 1) F + N − k)."""
    rng = np.random.default_rng(7)
    n = 200
    table = pd.DataFrame(
        {
            "condition": rng.choice(["excellent", "good", "fair"], n),
            "colour": rng.choice([f"colour {k}" for k in range(20)], n),
            "bike_type": rng.choice(["road", "gravel", "mountain", "city", "touring"], n),
            "age": rng.uniform(0, 15, n),
        }
    )
    effect = {"road": 800, "gravel": 600, "mountain": 500, "touring": 300, "city": 0}
    bonus = {"excellent": 60, "good": 30, "fair": 0}
    price = table["bike_type"].map(effect) + table["condition"].map(bonus) + rng.normal(0, 50, n)
    labels = np.full(n, np.nan)
    labeled = rng.choice(n, 40, replace=False)
    labels[labeled] = price.to_numpy()[labeled]
    for column in ("bike_type", "condition", "colour"):
        groups = [labels[labeled][(table[column].to_numpy()[labeled] == v)] for v in table[column].unique()]
        groups = [g for g in groups if g.size]
        k, rows, f = len(groups), 40, f_oneway(*groups).statistic
        expected = (k - 1) * (f - 1) / ((k - 1) * f + rows - k)
        assert category_share(table[column], labels) == pytest.approx(expected)
    assert suggested_conditions(table, ["age"], labels=labels)[0] == SameCategory("bike_type")
    assert suggested_conditions(table[["bike_type", "colour", "condition"]], labels=labels)[0].column == "bike_type"
    assert suggested_conditions(table, ["age"])[0] == SameCategory("condition")  # no labels: fewest values
    assert np.isnan(category_share(table["bike_type"], np.full(n, np.nan)))


def test_a_new_rule_starts_in_the_direction_the_labeled_rows_rank():
    """Older bikes are cheaper: over the labeled rows the age ranks against the price, so a rule ordering by
    age starts at 'lower'; a column ranking with the price at 'higher'; the unlabeled rows (NaN) never
    count, however they lie; fewer than 3 labeled rows, or a constant column, start at 'higher'."""
    age = pd.Series([1.0, 3.0, 5.0, 7.0, 9.0, 2.0, 4.0])
    price = np.array([900.0, 700.0, 500.0, 300.0, 100.0, np.nan, np.nan])
    assert default_direction(age, price) == "lower"
    assert default_direction(-age, price) == "higher"
    assert default_direction(age, np.array([100.0, 900.0, np.nan, np.nan, np.nan, 5.0, 6.0])) == "higher"
    assert default_direction(age, np.array([900.0, 700.0] + [np.nan] * 5)) == "higher"
    assert default_direction(pd.Series([2.0] * 7), price) == "higher"


def test_same_category_starts_on_the_column_of_fewest_categories():
    """A new user's bikes: a note written in 12 stock phrases over 40 rows counts as text repeated in few
    values, as the frame type (4 values) does: the frame, of fewer values, comes first."""
    rng = np.random.default_rng(1)
    bikes = pd.DataFrame(
        {
            "seller_note": [f"stock phrase {k % 12}" for k in range(40)],
            "frame": rng.choice(["road", "mountain", "hybrid", "gravel"], 40),
        }
    )
    (column,) = condition_form("same_category", bikes)
    assert column.default == "frame" and column.options == ["frame", "seller_note"]


def test_a_table_without_places_or_ages_starts_from_everything_else_about_equal():
    """A new user's laptops started from one condition, 'ssd within ± 47': the other columns free.  Now
    the same category (the text column of few values, not the note) and each other numeric column
    within a tolerance (age first), at most the form's four; a table of places keeps seed 000's kind of
    rule."""
    from ordercore.knowledge.rules import SameCategory, suggested_conditions

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "code": [f"LT-{k}" for k in range(40)],
            "note": [f"note {k}" for k in range(40)],
            "category": rng.choice(["budget", "gaming", "ultrabook"], 40),
            "ram": rng.choice([8, 16, 32], 40),
            "ssd": rng.choice([256.0, 512.0, 1024.0], 40),
            "cpu": rng.uniform(3000, 12000, 40),
            "age": rng.uniform(0, 6, 40),
            "battery": rng.uniform(50, 100, 40),
            "price": rng.uniform(100, 900, 40),
        }
    )
    made = suggested_conditions(frame, exclude=["price", "code", "ram"])
    assert [type(c).__name__ for c in made] == ["SameCategory", "Within", "Within", "Within"]
    assert made[0] == SameCategory("category") and [c.column for c in made[1:]] == ["age", "ssd", "cpu"]
    assert len(suggested_conditions(frame, exclude=["price", "code", "ram"], slots=2)) == 2
    homes = pd.DataFrame({"latitude": [1.0, 2], "longitude": [3.0, 4], "age": [5.0, 6], "rooms": [1, 2]})
    assert [type(c).__name__ for c in suggested_conditions(homes, exclude=["rooms"])] == ["Near", "Within"]


def test_a_new_rule_orders_by_the_column_ranking_most_strongly_with_the_labels():
    """Over the labeled rows (NaN elsewhere: never counted, however they lie), c ranks exactly against
    the labels (ρ = −1), b with them but for one swap (ρ = 0.9, by hand: 1 − 6·2/(5·24)), a not at all
    (ρ = 1 − 6·20/(5·24) = 0); the location is never the ordering however it ranks; without labels, or where ρ cannot be
    measured, the table's order decides."""
    y = np.array([1.0, 2, 3, 4, 5, np.nan, np.nan])
    frame = pd.DataFrame(
        {
            "a": [2.0, 5, 3, 1, 4, 100, -100],
            "b": [2.0, 1, 3, 4, 5, -9, 9],
            "c": [50.0, 40, 30, 20, 10, 0, 99],
            "latitude": y * 2,
            "longitude": -y,
            "price": y,
        }
    )
    assert rank_correlation(frame["a"], y) == (pytest.approx(0.0), 5)
    assert rank_correlation(frame["b"], y) == (pytest.approx(0.9), 5)
    assert default_ordering(frame, exclude=["price"], labels=y) == "c"
    assert default_ordering(frame.drop(columns="c"), exclude=["price"], labels=y) == "b"
    assert default_ordering(frame, exclude=["price"], labels=y, taken=["c"]) == "b"
    assert default_ordering(frame, exclude=["price"]) == "a"
    assert default_ordering(frame, exclude=["price"], labels=np.full(7, np.nan)) == "a"


def test_the_previews_count_of_labeled_pairs_agrees_with_its_number():
    """'1 pair of labeled rows' (a new user read '1 have'), '2 pairs'; 'its one pair', not 'all its 1 pairs'."""
    labels = np.array([1.0, 2.0, np.nan, 3.0])
    checks = SourceCheck.of([1], [0], [True])
    one = checked_line(PreferenceSet.order([1, 2], [0, 0], 0.0, 1.0), labels, checks, 5)
    assert one.startswith("The table lists 1 of the rule's 5 pairs, and 1 pair of labeled rows"), one
    # new-user report 12, F13: the table lists the rule's only pair of labeled rows: said once, not '…; of its one
    # pair of labeled rows, 1.' after it
    assert one.endswith("the rule orders it rightly (a tie counts as wrong)."), one
    assert "1 pair of labeled rows, the only one it has (they check" in one and "of its one" not in one, one
    # one listed pair is 'it', right or wrong (a first-time expert read 'the rule orders 1 of those 1 rightly')
    assert "the rule orders it rightly (a tie counts as wrong)" in one and "of those" not in one, one
    wrong = checked_line(PreferenceSet.order([0, 2], [1, 0], 0.0, 1.0), labels, checks, 5)
    assert "the rule orders it wrongly" in wrong, wrong
    two = checked_line(PreferenceSet.order([1, 3], [0, 0], 0.0, 1.0), labels, checks, 0)
    assert two.startswith("The rule makes no pairs, and 2 pairs of labeled rows"), two
    assert "the rule orders 2 of those 2 rightly" in two, two
    assert "of all its" not in two, two  # the 2 listed are not all its 1: said apart
    # all its 2 pairs of labeled rows listed (rows 1 > 0 and 3 > 0): said once ('orders 2 of those 2 rightly; of all
    # its 2 pairs of labeled rows, 2' repeated itself); 3 of them, 2 listed: both counts, apart
    both = SourceCheck.of([1, 3], [0, 0], [True, True])
    all_two = checked_line(PreferenceSet.order([1, 3, 2], [0, 0, 0], 0.0, 1.0), labels, both, 1)
    assert all_two == (
        "The table lists all 1 of the rule's pairs, and 2 pairs of labeled rows, all it has (they check the rule "
        "and are not among its preferences): the rule orders 2 of those 2 rightly (a tie counts as wrong)."
    ), all_two
    three = SourceCheck.of([1, 3, 3], [0, 0, 1], [True, True, True])
    some = checked_line(PreferenceSet.order([1, 3], [0, 0], 0.0, 1.0), labels, three, 0)
    assert some.endswith(
        "the rule orders 2 of those 2 rightly (a tie counts as wrong); of all its 3 pairs of labeled rows, 3."
    ), some


def hand_interval(rho: float, rows: int) -> tuple[float, float]:
    """The 95 % interval of Spearman's ρ by Fisher's z, written out: tanh(atanh ρ ± 1.96 √(1.06 / (n − 3)))."""
    z, half = math.atanh(rho), 1.959964 * math.sqrt(1.06 / (rows - 3))
    return math.tanh(z - half), math.tanh(z + half)


def test_a_rank_correlation_within_the_noise_picks_no_direction_and_never_reads_minus_zero():
    """New-user pass 10, Minor 3: alcohol_pct, which plays no part in the price, read "Spearman's ρ -0.00 over
    40 rows" and the rule started at 'lower', stated as fact.  By hand: x = 1 … 5 against ranks 2, 5, 3, 1,
    4 gives Σd² = 1 + 9 + 0 + 9 + 1 = 20 = n(n² − 1)/6, ρ = 0 exactly; over 40 rows, permutations of ρ
    −0.004 and −0.25 (scipy's Spearman) have a 95 % interval spanning 0: 'higher' by default and said to show
    no direction; ρ −0.50 lies surely below 0: 'lower'.  No ρ reads '-0.00' or with a hyphen-minus."""
    x = pd.Series([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.array([2.0, 5.0, 3.0, 1.0, 4.0])
    assert spearmanr(x, y).statistic == 0.0
    assert default_direction(x, y) == "higher"
    said = direction_reason("alcohol_pct", "price_eur", *rank_correlation(x, y))
    assert said.startswith("Higher to start with, by default: the labeled rows show no direction") and "0.00" in said
    x = pd.Series(np.arange(1.0, 41.0))
    for seed, expected in ((1669, "none"), (502, "none"), (69, "lower")):
        y = np.random.default_rng(seed).permutation(40).astype(float)
        rho = spearmanr(x, y).statistic
        low, high = hand_interval(rho, 40)
        assert (low <= 0 <= high) == (expected == "none"), (seed, rho, low, high)
        assert default_direction(x, y) == ("lower" if expected == "lower" else "higher")
        said = direction_reason("alcohol_pct", "price_eur", *rank_correlation(x, y))
        assert ("show no direction" in said) == (expected == "none")
        assert f"{abs(rho):.2f} over 40 rows" in said and f"{abs(low):.2f} to " in said, said
        assert not re.search(r"-\d|[−-]0\.00\b", said), said  # no hyphen-minus, no signed zero
        assert ("−" + f"{abs(rho):.2f}" in said) == (round(rho, 2) < 0)


@pytest.mark.parametrize("rows", [4, 5, 6])
def test_a_perfect_order_of_a_few_rows_gets_an_interval_as_wide_as_the_permutation_test_says(rows):
    """Bad-input corpus R10 (L064, L065): ρ = ±1 on 4 or 5 rows read "95 % interval −1.00 to −1.00".  A perfect
    order is 2 of the rows! orders of the labels (counted here by brute force over every permutation), so it
    is surely not chance (two-sided p ≤ 0.05) from 5 rows on: the interval spans 0 on 4 rows and not from 5,
    and never reaches ±1.  On 4 rows by hand: ρ = −1 is taken as −0.8 (1 − 12/60), atanh 0.8 = ln 9 / 2 =
    1.098612, half-width 1.959964 √1.06 = 2.017906: (tanh(−3.116518), tanh(0.919294)) = (−0.99608, 0.72556)."""
    x = np.arange(1.0, rows + 1)
    perfect = sum(abs(spearmanr(x, order).statistic) > 1 - 1e-12 for order in itertools.permutations(range(rows)))
    assert perfect == 2
    surely = perfect / math.factorial(rows) <= 0.05
    for sign in (1.0, -1.0):
        low, high = rank_correlation_interval(sign, rows)
        assert -1 < low < high < 1
        assert (low <= 0 <= high) == (not surely)
    if rows == 4:
        assert rank_correlation_interval(-1.0, 4) == pytest.approx((-0.99608, 0.72556), abs=1e-5)
        said = direction_reason("rooms", "price", -1.0, 4)
        assert "−1.00 over 4 rows, 95 % interval −1.00 to 0.73: it spans 0" in said
        assert said.startswith("Higher to start with, by default: the labeled rows show no direction")


@pytest.mark.parametrize("rho", [1.5, -7.0, np.inf, -np.inf, 1 + 1e-12, "0.5", None, True])
def test_a_rho_no_correlation_can_be_is_refused_in_words(rho):
    """ρ lies in [−1, 1]: 1.5, −7 and ±∞ had been clipped to a confident interval (corpus 13 RC08, RC12),
    text met numpy's words (RC09)."""
    with pytest.raises(ValueError, match=r"rank_correlation_interval: rho must be a number from -1 to 1, got"):
        rank_correlation_interval(rho, 10)


@pytest.mark.parametrize("rows", [4.5, -1, np.nan, "ten", None])
def test_rows_that_are_no_whole_number_are_refused_in_words(rows):
    with pytest.raises(ValueError, match=r"rank_correlation_interval: rows must be a whole number >= 0, got"):
        rank_correlation_interval(1.0, rows)


@pytest.mark.parametrize("rows", [np.int32(2000), np.int32(3000), np.int64(3000), 3000.0])
def test_rows_of_any_integer_type_give_the_interval_by_hand(rows):
    """rows**3 overflowed in int32 (corpus 13 RC10: (1.0, 1.0) for np.int32(2000)).  By hand with Python's
    exact integers: |ρ| = 1 − 12 / (n³ − n), tanh(atanh ρ ± 1.959964 √(1.06 / (n − 3)))."""
    n = int(rows)
    nearest = 1 - 12 / (n**3 - n)
    half = 1.959964 * math.sqrt(1.06 / (n - 3))
    expected = (math.tanh(math.atanh(nearest) - half), math.tanh(math.atanh(nearest) + half))
    assert rank_correlation_interval(1.0, rows) == pytest.approx(expected, rel=1e-12)
    assert rank_correlation_interval(0.25, rows) == pytest.approx(
        (math.tanh(math.atanh(0.25) - half), math.tanh(math.atanh(0.25) + half)), rel=1e-12
    )
