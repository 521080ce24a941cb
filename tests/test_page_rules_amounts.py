"""AppTests of the Rules form's "by at least" on a table of used cars (new-user report 9, Major 2): it belongs to
the column the rule orders by (10,000 typed for mileage_km does not stay when the rule orders by age_years), it
starts at 0 in that column's steps, and a rule that makes no pairs because of it says so, with the gaps worked
out here by brute force over the pairs of uploaded rows."""

import itertools

import numpy as np
import pandas as pd

from tests.studio_app import engine, metric, upload


def cars(n: int = 120, seed: int = 9) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 16, n)
    return pd.DataFrame(
        {
            "car_id": [f"C{1000 + k}" for k in range(n)],
            "make": rng.choice(["BMW", "Toyota", "Skoda"], n),
            "age_years": age,
            "mileage_km": age * 15_000 + rng.integers(0, 20_000, n),
            "price_eur": (30_000 * 0.88**age + rng.normal(0, 1_200, n)).round(),
        }
    )


def cars_rules_page(at):
    at = at.switch_page("app_pages/data.py").run()
    upload(at, "cars.csv", cars().to_csv(index=False).encode())
    at.button(key="data_apply").click().run()
    at.switch_page("app_pages/rules.py").run()
    for slot in range(4):  # one condition: the same make
        at.selectbox(key=f"rule_kind_{slot}").set_value("same_category" if slot == 0 else "—").run()
    at.selectbox(key="rule_0_same_category_column").set_value("make").run()
    assert not at.exception
    return at


def test_by_at_least_belongs_to_the_ordering_column_and_a_gap_too_wide_is_said_to_be_the_cause(ready):
    at = cars_rules_page(ready)
    at.selectbox(key="rule_ordering").set_value("mileage_km").run()
    km = at.number_input(key="rule_min_difference_mileage_km")
    assert km.value == 0.0 and km.step >= 1_000  # steps of 1,000 km, not 0.01
    km.set_value(10_000.0).run()
    at.selectbox(key="rule_ordering").set_value("age_years").run()
    years = at.number_input(key="rule_min_difference_age_years")
    assert years.value == 0.0 and years.step == 1.0 and years.format == "%.0f"
    assert metric(at, "Pairs this rule makes") != "0"
    years.set_value(10_000.0).run()
    assert metric(at, "Pairs this rule makes") == "0"
    # by hand: the pairs of the same make with at least one row outside the labeled ones, and their gaps in age
    data, table = engine(at).data(), cars()
    labeled = set(data.labeled.tolist())
    gaps = [
        abs(table.age_years[i] - table.age_years[j])
        for i, j in itertools.combinations(range(len(table)), 2)
        if table.make[i] == table.make[j] and table.age_years[i] != table.age_years[j] and not {i, j} <= labeled
    ]
    said = " ".join(w.value for w in at.warning)
    assert "by at least' 10,000" in said and f"{len(gaps):,} pairs meet its conditions" in said, said
    assert f"typically {np.median(gaps):,.3g}, at most {max(gaps):,.3g}" in said, said
