"""Compute per click in the app at the seed's scale (issue 6's bench).

California, l = 60 labeled rows, a 20 % hidden test split, and about 1300 preferences from the
seed-000 bedroom rule (bedrooms per resident), as a session holds after adding that rule.  Then
each of --clicks answers is timed as the Model and Pairwise pages spend it: ``Workbench.update``,
the warm SSL re-solve with the new preference and the plot data it keeps (SSL's predictions on the
held-out rows, violations of every preference by SVR and SSL).  Prints the median and the worst.

Run: ORDERCORE_DATA=../shared/data python bench/app_bench.py [--clicks 20] [--rows N] [--quick]
(--rows: a random sample of N rows, the same share held out; --quick: 3 clicks, 4,000 rows)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402
from ordercore.experiments.bedroom import bedroom_rule, with_household_columns  # noqa: E402
from ordercore.knowledge.rules import generate  # noqa: E402
from ordercore.preferences import PreferenceSet  # noqa: E402
from ordercore.studio.data import StudyData  # noqa: E402
from ordercore.studio.workbench import PAIR_STRATEGIES, Workbench  # noqa: E402

TEST_SHARE = 4116 / 20640
"""The held-out share: 4,116 of California's 20,640 rows, as many of a sample's."""


def row_sample(dataset, n_rows: int):
    """A random sample of ``n_rows`` of ``dataset``'s rows (X, y and the table alike)."""
    rows = np.sort(np.random.default_rng(0).choice(len(dataset.y), n_rows, replace=False))
    return replace(dataset, X=dataset.X[rows], y=dataset.y[rows], frame=dataset.frame.iloc[rows].reset_index(drop=True))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--rows", type=int, default=None, help="a random sample of this many rows")
    args = parse_arguments(parser, argv, clicks=3, rows=4_000)
    dataset = with_household_columns(load_dataset("california"))
    if args.rows is not None:
        dataset = row_sample(dataset, args.rows)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(dataset.y))
    n_test = round(TEST_SHARE * len(dataset.y))
    data = StudyData(dataset, np.sort(order[:60]), np.sort(order[60 : 60 + n_test]))
    labeled = np.zeros(len(dataset.y), dtype=bool)
    labeled[data.labeled] = True
    rule_preferences = generate(bedroom_rule("per_person"), dataset.frame, labeled, max_pairs=1300, random_state=0)
    preferences = rule_preferences.preferences
    start = time.perf_counter()
    bench = Workbench(data)
    bench.update(preferences)
    first = time.perf_counter() - start
    test = data.test
    times = []
    for _ in range(args.clicks):
        a, b = bench.next_pair(PAIR_STRATEGIES[0], rng)
        preferences = preferences + PreferenceSet.order(a, b)
        start = time.perf_counter()
        bench.update(preferences)  # the warm re-solve and the plot data (test predictions, violations)
        times.append(time.perf_counter() - start)
    print(
        f"rows {len(dataset.y)}, labeled 60, held out {test.size}, rule preferences {len(rule_preferences.preferences)}"
    )
    print(f"first fit (SVR + SSL, cold): {1000 * first:.0f} ms")
    print(
        f"per click, retrain + plot data: median {1000 * statistics.median(times):.0f} ms, "
        f"worst {1000 * max(times):.0f} ms over {args.clicks} clicks (target <= 300 ms)"
    )


if __name__ == "__main__":
    main()
