"""The checks a session's data settings pass before the session opens with them (``data.study_data``)
and before the store keeps them (``store.sessions``): at least one feature, each named once and not the
target, a test share from 0 to 1 (a number: True is no share), a whole seed and labeled budget, and, for
rows stored as lists (labeled, test, or labeled alone when chosen by hand; never test alone, which data()
drew afresh without a word), at least one labeled row, no row named twice, no row both labeled and held
out.  The store checked only names and row ranges, and kept splits that every later ``data()`` refused or
read otherwise (issue 32, S092-S095; corpus 11: S021, S023, S027, L043).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ordercore.inputs.counts import row_numbers, whole_number
from ordercore.inputs.printable import quoted

DEFAULT_TEST_FRACTION = 0.2
"""The share of the rows with a target (beyond the labeled ones) held out, unless the settings say."""


def held_out_share(settings: dict) -> float:
    """settings['test_fraction'] (default ``DEFAULT_TEST_FRACTION``) as a float; ``ValueError`` unless it is a
    number from 0 to 1."""
    value = settings.get("test_fraction", DEFAULT_TEST_FRACTION)
    if isinstance(value, bool | np.bool_):  # float(np.True_) is 1.0, stored as JSON true that data() refuses
        raise ValueError(f"the test share must be between 0 and 1, got {value!r}: a yes/no is not a share")
    try:
        fraction = float(value)
    except (TypeError, ValueError):
        fraction = np.nan
    if not 0 <= fraction <= 1:
        shown = f"{fraction:g}" if np.isfinite(fraction) else quoted(value)
        raise ValueError(f"the test share must be between 0 and 1, got {shown}")
    return fraction


def check_split(settings: Mapping) -> None:
    """``ValueError`` naming the first of a session's data settings no session can open with (module
    docstring); whether its rows are the table's is for the caller, who knows the table."""
    if not isinstance(settings, Mapping):
        raise TypeError(
            f"the data settings must be a dict (features, target, seed, rows …), got a {type(settings).__name__}"
        )
    if settings.get("features") is not None and not list(settings["features"]):  # None: every other column
        raise ValueError("choose at least one feature column (the settings' features list is empty)")
    features = list(settings.get("features") or ())
    repeated = sorted({str(feature) for feature in features if features.count(feature) > 1})
    if repeated:
        raise ValueError(f"feature column(s) {repeated} are named more than once")
    if settings.get("target") is not None and settings["target"] in features:
        raise ValueError(f"the target {settings['target']!r} cannot also be a feature")
    held_out_share(settings)
    whole_number(settings.get("seed", 0), "the seed")
    if "n_labeled" in settings:
        whole_number(settings["n_labeled"], "the labeled budget", 1)
    # The rows stored as lists: both, labeled alone (chosen by hand, the test rows drawn), or none (drawn).
    rows = {key: row_numbers(settings[key], None, f"{key} row") for key in ("labeled", "test") if key in settings}
    if "labeled" in rows and rows["labeled"].size == 0:
        raise ValueError("choose at least one labeled row")
    if "test" in rows and "labeled" not in rows:  # data() drew both and the test rows given were lost
        raise ValueError(
            f"test rows are given ({rows['test'].size} of them) but no labeled rows: a session's test rows are "
            "kept with its labeled rows (give 'labeled' too), or drawn (leave 'test' out)"
        )
    for key, numbers in rows.items():
        values, counts = np.unique(numbers, return_counts=True)
        if (counts > 1).any():
            row, times = values[counts > 1][0], counts[counts > 1][0]
            raise ValueError(f"{key} row {row} is named {times} times; name each row once")
    both = np.intersect1d(rows.get("labeled", []), rows.get("test", []))
    if both.size:
        raise ValueError(f"labeled and test rows overlap: row {both[0]} is both labeled and held out for testing")
