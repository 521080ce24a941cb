"""sample_data/homes.csv is what its generator makes, and is the kind of data the rules are for."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.data.tables import load_csv
from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"


def test_committed_file_matches_the_generator(tmp_path):
    spec = importlib.util.spec_from_file_location("generate_homes", SAMPLE / "generate_homes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--out", str(tmp_path / "homes.csv")])
    assert (tmp_path / "homes.csv").read_bytes() == (SAMPLE / "homes.csv").read_bytes()


def test_bedroom_rule_is_right_often_but_not_always():
    frame = pd.read_csv(SAMPLE / "homes.csv")
    assert len(frame) == 3000 and frame.notna().all().all()
    rule = Rule(
        "bedrooms", [Near("latitude", "longitude", 2.0), Within("age", 10), Within("income", 10)], Ordering("bedrooms")
    )
    preferences = generate(rule, frame, max_pairs=None).preferences
    price = frame["price"].to_numpy()
    accuracy = np.mean(price[preferences.i] > price[preferences.j])
    assert len(preferences) > 1000 and 0.65 < accuracy < 0.95
    dataset = load_csv(
        SAMPLE / "homes.csv",
        target="price",
        features=["latitude", "longitude", "age", "income", "bedrooms", "rooms", "floor_area"],
    )
    assert dataset.X.shape == (3000, 7)
