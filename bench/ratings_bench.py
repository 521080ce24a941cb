"""One grade on the Ratings page at 10,000 items (issue 18 item 6: ≤ 300 ms per grade).

Items: the first 10,000 movie snippets as TF-IDF texts (``ordercore.studio.ratings.text_items``), and
California's first 10,000 rows (8 standardised features); each item's grade is its target cut at
the quintiles (1 … 5), standing in for the expert.  With m items graded (in a random order), each of
--grades further grades is timed as the page spends it: the warm NPSVOR refit with the grade appended
plus scoring all 10,000 items and choosing the least sure (``refit``), a cold refit on the same
grades for comparison, and the 5-fold cross-validation (``cv``), which the page runs with every grade.
Prints medians in ms.

Run: ORDERCORE_DATA=../shared/data python bench/ratings_bench.py [--graded 200 1000 5000] [--grades 7] [--items N]
     [--quick]   (--quick: 1,000 items, 2 grades after 50)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.data.benchmarks import data_directory, load_dataset  # noqa: E402
from ordercore.experiments.npsvor import SNIPPETS_FILE, quantile_ranks  # noqa: E402
from ordercore.studio.ratings import RatingModel, cross_validate, least_sure, table_items, text_items  # noqa: E402

N_ITEMS = 10_000


def item_sets(n_items: int = N_ITEMS) -> dict:
    """{name: (items, grades (n_items,))} for the first n_items snippets' texts and California's rows."""
    snippets = pd.read_csv(data_directory() / SNIPPETS_FILE).iloc[:n_items]
    california = load_dataset("california")
    snippet_grades = 1 + quantile_ranks(snippets["mean_rating"].to_numpy(), 5)[0]
    return {
        "snippets (TF-IDF)": (text_items(snippets["text"]), snippet_grades),
        "california (rows)": (table_items(california.X[:n_items]), 1 + quantile_ranks(california.y[:n_items], 5)[0]),
    }


def one_grade(model: RatingModel, rows, grades) -> None:
    """What the page does after a grade: refit (warm when ``model`` has the earlier grades), score every
    item, choose the least sure."""
    model.fit(rows, grades)
    least_sure(model.uncertainty(), rows, 1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graded", type=int, nargs="+", default=[200, 1000, 5000])
    parser.add_argument("--grades", type=int, default=7)
    parser.add_argument("--items", type=int, default=N_ITEMS, help=f"the first this many items (default {N_ITEMS:,})")
    args = parse_arguments(parser, argv, graded=[50], grades=2, items=1_000)
    print(f"{'items':<20} {'graded':>7} {'refit warm':>11} {'refit cold':>11} {'cv':>8} {'warm+cv':>8}  (ms, median)")
    for name, (items, grades) in item_sets(args.items).items():
        order = np.random.default_rng(0).permutation(items.n)
        for graded in args.graded:
            warm_ms, cold_ms, cv_ms = time_grades(items, grades, order, graded, args.grades)
            print(f"{name:<20} {graded:>7,} {warm_ms:>11.1f} {cold_ms:>11.1f} {cv_ms:>8.1f} {warm_ms + cv_ms:>8.1f}")


def time_grades(items, grades, order, graded: int, n_grades: int) -> tuple[float, float, float]:
    """Median ms of the warm refit, a cold one and the cross-validation over ``n_grades`` grades added
    one by one after the first ``graded`` items of ``order``."""
    model = RatingModel(items)
    model.fit(order[:graded], grades[order[:graded]])
    times = {"warm": [], "cold": [], "cv": []}
    for k in range(graded + 1, graded + 1 + n_grades):
        rows = order[:k]
        start = time.perf_counter()
        one_grade(model, rows, grades[rows])
        times["warm"].append(time.perf_counter() - start)
        assert model.warm
        start = time.perf_counter()
        one_grade(RatingModel(items), rows, grades[rows])
        times["cold"].append(time.perf_counter() - start)
        start = time.perf_counter()
        cross_validate(model, rows, grades[rows], 5)
        times["cv"].append(time.perf_counter() - start)
    return tuple(1000 * statistics.median(times[name]) for name in ("warm", "cold", "cv"))


if __name__ == "__main__":
    main()
