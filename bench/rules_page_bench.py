"""What the Rules page computes per rule when rules or answers change, at ~500,000 preferences (issue 14).

The California session of bench/click_bench.py with the bedroom rule's 498,794 pairs and 20 audit
answers to its pairs (the true order, as an expert who is always right would answer).  Times
(median of --repeats): ``rule_trust`` (pairs and coverage from the stored preferences, labeled
pairs among the 60 labeled rows, audit answers), ``rule_quality`` from the stored preferences (what
the page shows now) and generating the rule again (what it did before), and
``Workbench.next_rule_pair`` (one audit pair).

Run: ORDERCORE_DATA=../shared/data python bench/rules_page_bench.py [--repeats 5] [--quick]
(--quick: one repeat, 2,000 of the rule's pairs over 4,000 rows)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.click_bench import session_with_rules  # noqa: E402
from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.knowledge.quality import rule_quality, rule_trust  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402
from ordercore.studio.workbench import Workbench  # noqa: E402


def median_seconds(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-pairs", type=int, default=None, help="at most this many of the rule's pairs")
    parser.add_argument("--rows", type=int, default=None, help="a random sample of this many rows")
    args = parse_arguments(parser, repeats=1, max_pairs=2_000, rows=4_000)
    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"sqlite:///{Path(directory) / 'bench.sqlite'}")
        session, data = session_with_rules(store, "500k", args.max_pairs, args.rows)
        stored = store.rules(session.id)
        ((rule_id, rule),) = stored
        preferences, provenance = store.preferences(session.id)
        made = preferences[(provenance["rule_id"] == rule_id).to_numpy(dtype=bool, na_value=False)]
        bench = Workbench(data)  # SVR on the 60 labels only
        rng = np.random.default_rng(0)
        for _ in range(20):
            pair = bench.next_rule_pair(made, store.answers(session.id)[["row_a", "row_b"]].to_numpy(), rng)
            truth = data.y_true[list(pair)]
            store.add_answer(session.id, *pair, "a" if truth[0] > truth[1] else "b", "bench", rule_id=rule_id)
        answers = store.answers(session.id)
        frame, y = data.frame, data.y_train()
        asked = answers[["row_a", "row_b"]].to_numpy()
        print(f"{len(preferences):,} preferences, {len(answers)} audit answers")
        print(rule_trust(stored, frame, y, preferences, provenance, answers).to_string(index=False))
        timings = {
            "rule_trust": lambda: rule_trust(stored, frame, y, preferences, provenance, answers),
            "rule_quality, stored preferences": lambda: rule_quality([rule], frame, y, made=[made]),
            "rule_quality, generating the rule": lambda: rule_quality([rule], frame, y),
            "next_rule_pair": lambda: bench.next_rule_pair(made, asked, rng),
        }
        for name, call in timings.items():
            print(f"{name:>36}: {median_seconds(call, args.repeats) * 1000:8.1f} ms (median of {args.repeats})")
        store.engine.dispose()


if __name__ == "__main__":
    main()
