"""Speed and memory of one "roughly equal" rule over all 20,640 California rows (issue 5's bench).

The seed-000 bedroom rule: within 25 miles, median age within 10 years, median income within
$1000 (0.1 in the data's units) -> more bedrooms, higher value.  Prints the median time over
--repeats generations, the pairs matched and kept (cap 20,000), and the peak memory the
generation added, measured in a fresh process.

Run: ORDERCORE_DATA=../shared/data python bench/rules_bench.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ordercore.datasets import load_dataset  # noqa: E402
from ordercore.rules import Near, Ordering, Rule, Within, generate  # noqa: E402

BEDROOM_RULE = Rule(
    "more bedrooms",
    [Near("latitude", "longitude", 25.0), Within("housing_median_age", 10.0), Within("median_income", 0.1)],
    Ordering("total_bedrooms"),
)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    frame = load_dataset("california").frame
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for seed in range(args.repeats):
        start = time.perf_counter()
        result = generate(BEDROOM_RULE, frame, max_pairs=20_000, random_state=seed)
        times.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"rows {len(frame)}; pairs matched {result.n_matched}; kept {len(result.preferences)}")
    print(f"generation median {statistics.median(times):.2f} s over {args.repeats} runs (target <= 10 s)")
    print(f"peak memory {after:.0f} MB, of which generation added {after - before:.0f} MB")


if __name__ == "__main__":
    main()
