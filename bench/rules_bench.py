"""Speed and memory of one "roughly equal" rule over all 20,640 California rows (issue 13, deliverable 4).

The seed-000 bedroom rule: within 25 miles, median age within 10 years, median income within
$1000 (0.1 in the data's units) -> more bedrooms, higher value; every matching pair kept (no cap).
Prints the median over --repeats of generating its pairs and of storing them as the Rules page
does (``Store.add_rule`` into a new SQLite file, committed), the pairs, and this process's peak
memory (run it as a fresh process: the figure is the whole process's, data and imports included).

Run: ORDERCORE_DATA=../shared/data python bench/rules_bench.py [--repeats 3] [--rows N] [--quick]
(--rows: a random sample of N rows; --quick: one repeat over 4,000 rows)
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402
from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402

BEDROOM_RULE = Rule(
    "more bedrooms",
    [Near("latitude", "longitude", 25.0), Within("housing_median_age", 10.0), Within("median_income", 0.1)],
    Ordering("total_bedrooms"),
)


def peak_megabytes() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None, help="a random sample of this many rows")
    args = parse_arguments(parser, argv, repeats=1, rows=4_000)
    frame = load_dataset("california").frame
    if args.rows is not None:
        frame = frame.sample(args.rows, random_state=0).reset_index(drop=True)
    before = peak_megabytes()
    generation, writes = [], []
    with tempfile.TemporaryDirectory() as directory:
        for repeat in range(args.repeats):
            start = time.perf_counter()
            result = generate(BEDROOM_RULE, frame)
            generation.append(time.perf_counter() - start)
            store = Store(f"sqlite:///{Path(directory) / f'bench{repeat}.sqlite'}")
            session = store.create_session("bench", settings={"n_rows": len(frame)})
            start = time.perf_counter()
            store.add_rule(session.id, BEDROOM_RULE, result.preferences, "bench")
            writes.append(time.perf_counter() - start)
            store.engine.dispose()
    after = peak_megabytes()
    print(f"rows {len(frame)}; pairs matched and kept {result.n_matched:,}")
    print(f"generation median {statistics.median(generation):.2f} s over {args.repeats} runs (target <= 5 s)")
    print(f"store write median {statistics.median(writes):.2f} s over {args.repeats} runs (target <= 5 s)")
    print(f"peak memory {after:.0f} MB (target <= 1 GB), of which generating and storing added {after - before:.0f} MB")


if __name__ == "__main__":
    main()
