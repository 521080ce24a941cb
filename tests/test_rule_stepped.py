"""A "within" tolerance on a stepped column (new-user report 12, F9): a laptop's storage (128/256/512/1024 GB)
started at "within ± 140" and its RAM (4/8/16/32 GB) at "within ± 4", making 128 GB and 256 GB, 4 GB and 8 GB
"roughly equal".  A column of few distinct values starts at "within ± 0", its "same": no default tolerance
makes two adjacent distinct values of such a column roughly equal.  The gaps are found here by brute force."""

import itertools

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.rules import Within, condition_form, generate, spread_amount, suggested_conditions
from ordercore.knowledge.rules.rule import Ordering, Rule


def laptops(n: int = 200, seed: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "brand": rng.choice(["Acer", "Apple", "Dell", "HP", "Lenovo"], n),
            "ram_gb": rng.choice([4, 8, 16, 32], n),
            "storage_gb": rng.choice([128, 256, 512, 1024], n),
            "age_years": rng.integers(0, 9, n),
            "battery_pct": rng.uniform(40, 100, n).round(1),
            "grade": rng.choice([3.5, 4.0, 4.5, 5.0], n),
            "price": rng.uniform(100, 2000, n),
        }
    )


def smallest_gap(values) -> float:
    """The smallest difference between two distinct values, by brute force over all pairs."""
    distinct = set(np.asarray(values, dtype=float).tolist())
    return min(abs(a - b) for a, b in itertools.combinations(distinct, 2))


@pytest.mark.parametrize("column", ["ram_gb", "storage_gb", "age_years", "grade"])
def test_a_stepped_column_starts_within_0_its_same(column):
    frame = laptops()
    (_, tolerance) = condition_form("within", frame, ["price"], chosen={"column": column})
    assert tolerance.default == 0.0
    assert tolerance.default < smallest_gap(frame[column])  # no two distinct values roughly equal
    assert "same" in tolerance.help and column in tolerance.help
    if column == "storage_gb":  # the quarter spread it no longer starts at joined 128 and 256 (the report's ± 140)
        low, high = np.percentile(frame[column], [25, 75])
        assert round(0.25 * (high - low) / 1.349) >= smallest_gap(frame[column])


def test_the_suggested_rule_holds_stepped_columns_the_same_and_others_within_a_quarter_spread():
    frame = laptops()
    made = suggested_conditions(frame, exclude=["price", "ram_gb"], slots=5)
    tolerances = {c.column: c.tolerance for c in made if isinstance(c, Within)}
    assert tolerances["storage_gb"] == 0.0 and tolerances["age_years"] == 0.0
    low, high = np.percentile(frame["battery_pct"], [25, 75])
    assert tolerances["battery_pct"] == pytest.approx(float(f"{0.25 * (high - low) / 1.349:.2g}"))
    # its pairs, by brute force: no pair of different storage sizes
    rule = Rule("r", [Within("storage_gb", tolerances["storage_gb"])], Ordering("ram_gb"))
    storage = frame["storage_gb"].to_numpy()
    made = generate(rule, frame, scope="all").preferences
    assert made.i.size > 0 and np.array_equal(storage[made.i], storage[made.j])


def test_a_column_of_many_values_or_values_each_held_by_a_row_or_two_keeps_its_tolerance():
    years = pd.Series(range(1950, 2021))  # 71 years: a scale of amounts, within ± 6 years
    assert spread_amount(years) == 6.0
    few_rows = pd.Series([0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 3, 5])  # 10 values in 12 rows: no steps to see
    assert spread_amount(few_rows) == 1.0
    many_repeats = pd.Series(np.tile(np.arange(40.0), 10))  # 40 values: not few
    assert spread_amount(many_repeats) > 0
