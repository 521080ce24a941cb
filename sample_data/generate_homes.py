"""Generate sample_data/homes.csv: a synthetic housing table for rules, demos and the app.

3,000 homes in 12 neighbourhoods of a made-up city (around 40°N, 105°W).  Every draw comes from one
seeded generator, so the file is identical on every machine: rerun this script after changing it
and commit both.  What the columns mean and how price depends on them: sample_data/README.md.

Run: python sample_data/generate_homes.py [--out sample_data/homes.csv]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261121
N_NEIGHBOURHOODS = 12
HOMES_PER_NEIGHBOURHOOD = 250


def generate_homes(seed: int = SEED) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # Neighbourhoods: a centre within ~20 miles of downtown, a desirability (price multiplier),
    # a typical household income (thousands of USD) and a typical construction year.
    centre_lat = 40.0 + rng.normal(0, 0.12, N_NEIGHBOURHOODS)
    centre_lon = -105.0 + rng.normal(0, 0.15, N_NEIGHBOURHOODS)
    desirability = np.exp(rng.normal(0, 0.25, N_NEIGHBOURHOODS))
    typical_income = rng.uniform(45, 140, N_NEIGHBOURHOODS)
    typical_age = rng.uniform(5, 60, N_NEIGHBOURHOODS)

    hood = np.repeat(np.arange(N_NEIGHBOURHOODS), HOMES_PER_NEIGHBOURHOOD)
    n = hood.size
    latitude = centre_lat[hood] + rng.normal(0, 0.015, n)
    longitude = centre_lon[hood] + rng.normal(0, 0.02, n)
    age = np.clip(np.round(typical_age[hood] + rng.normal(0, 8, n)), 0, 110)
    income = np.round(typical_income[hood] * np.exp(rng.normal(0, 0.3, n)), 1)
    # Richer households have more bedrooms, but every neighbourhood has all sizes.
    bedrooms = np.clip(1 + rng.poisson(1.2 + income / 60), 1, 7)
    rooms = bedrooms + 2 + rng.poisson(1.0, n)
    floor_area = np.round(
        np.clip(450 + 330 * bedrooms + 60 * (rooms - bedrooms) + rng.normal(0, 260, n), 350, None), -1
    )

    # Price (USD): floor area with diminishing returns, a premium for the neighbourhood and for
    # income around it, depreciation with age, and a bedroom term that turns negative when
    # bedrooms are squeezed into little space; plus 18% multiplicative noise.  So "more bedrooms,
    # higher price" holds often among similar homes, but not always.
    space_per_bedroom = floor_area / bedrooms
    price = (
        desirability[hood] * 620 * floor_area**0.85 * np.exp(-0.006 * age) * (1 + 0.25 * np.log(income / 80))
        + 20000 * bedrooms * np.tanh((space_per_bedroom - 300) / 120)
    ) * np.exp(rng.normal(0, 0.18, n))
    return pd.DataFrame(
        {
            "home_id": np.arange(1, n + 1),
            "latitude": np.round(latitude, 5),
            "longitude": np.round(longitude, 5),
            "neighbourhood": [f"N{k + 1:02d}" for k in hood],
            "age": age.astype(int),
            "income": income,
            "bedrooms": bedrooms.astype(int),
            "rooms": rooms.astype(int),
            "floor_area": floor_area.astype(int),
            "price": np.round(price, -2).astype(int),
        }
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("homes.csv"))
    args = parser.parse_args(argv)
    generate_homes().to_csv(args.out, index=False, lineterminator="\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
