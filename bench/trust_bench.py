"""Automatic trust's assessment of a session's sources, full and incremental (issue 30, item 2).

California as the Data page makes it (all 20,640 rows, l = 60 labeled, a 20 % hidden test split,
seed 0) with the rules of ``click_bench.py``'s scenarios: 40k, two rules of 20,000 pairs each (seed
000's bedroom rule and "more rooms"); 500k, the bedroom rule with every pair it matches (498,794).
Each rule is checked on the labeled pairs it orders (``quality.labeled_check``), as the session does.

- full: ``trust.assess_sources`` with effects, as the background job runs it (its folds on one worker
  process per core, ``jobs.trust.fold_workers``, the pool's start included);
- incremental: ``trust.reassess_sources`` warm from the full one after an audit answer (the true
  order) to one of the first rule's pairs SVR orders the other way (its weight moves, the others'
  stay), each answer alone; an answer that moves the weight too far falls back (None: counted).

Prints the median of each over --repeats, with its ratio to the target (full: 10 s at 40k, 60 s at
500k; incremental: 2 s at 40k).  --serial also times the full assessment without workers, interleaved
with the parallel one (serial, parallel, serial, ...), and prints the ratio.  --quick: 1,000 pairs of
the bedroom rule, one repeat (seconds), for tests/test_benches.py.

Run: ORDERCORE_DATA=../shared/data python bench/trust_bench.py [--preferences 40k|500k] [--repeats 3]
[--serial] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from click_bench import SCENARIOS  # noqa: E402

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.experiments.bedroom import bedroom_rule  # noqa: E402
from ordercore.knowledge.quality import labeled_check  # noqa: E402
from ordercore.knowledge.rules import generate  # noqa: E402
from ordercore.knowledge.trust import SourceCheck, assess_sources, reassess_sources, rule_source  # noqa: E402
from ordercore.preferences import PreferenceSet  # noqa: E402
from ordercore.studio.data import data_settings, load_source  # noqa: E402
from ordercore.studio.jobs.trust import fold_workers  # noqa: E402

TARGETS = {"full 40k": 10.0, "full 500k": 60.0, "incremental 40k": 2.0}
LAMBDA1, SEED = 1e-3, 0


def session_inputs(rules) -> tuple:
    """X, y (NaN: unlabeled or test), the rules' preferences, their source names and checks; y_true."""
    frame, target, features = load_source("california")
    split = {"n_labeled": 60, "test_fraction": 0.2, "seed": 0}
    _, data = data_settings(frame, "california", target, features, split)
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[data.labeled] = True
    y = data.y_train()
    made, names, checks = [], [], {}
    for number, (rule, cap) in enumerate(rules, 1):
        preferences = generate(rule, frame, labeled, max_pairs=cap, random_state=0).preferences
        name = rule_source(number, rule.name)
        made.append(preferences)
        names += [name] * len(preferences)
        checks[name] = labeled_check(rule, frame, y)
    inputs = data.dataset.X, y, PreferenceSet.concatenate(made), np.array(names, dtype=object), checks
    return inputs, data.y_true


def full(inputs, parallel: bool):
    """``assess_sources`` with effects, on fold workers or in turn; (its result, seconds)."""
    start = time.perf_counter()
    if not parallel:
        return assess_sources(*inputs, np.random.default_rng(SEED), LAMBDA1), time.perf_counter() - start
    with fold_workers() as executor:
        assessed = assess_sources(*inputs, np.random.default_rng(SEED), LAMBDA1, executor=executor)
    return assessed, time.perf_counter() - start


def audit_answer(assessed, inputs, y_true, k: int) -> dict:
    """The checks after the expert answers the k-th of the first rule's pairs that SVR orders the other
    way (so the answer moves the rule's weight) with their true order."""
    X, y, preferences, names, checks = inputs
    rule = assessed.names[0]
    reference, own = assessed.trust.reference, preferences[names == rule]
    against = np.flatnonzero(reference[own.i] <= reference[own.j])
    i, j = own.i[against[k % against.size]], own.j[against[k % against.size]]
    return checks | {rule: SourceCheck.concatenate([checks[rule], SourceCheck.of([i], [j], [y_true[i] > y_true[j]])])}


def incremental(assessed, inputs, y_true, k: int) -> float | None:
    """Seconds of ``reassess_sources`` after ``audit_answer`` k; None if it fell back to a full one."""
    X, y, preferences, names, _ = inputs
    checks = audit_answer(assessed, inputs, y_true, k)
    start = time.perf_counter()
    again = reassess_sources(assessed, X, y, preferences, names, checks, np.random.default_rng(SEED), LAMBDA1)
    return None if again is None else time.perf_counter() - start


def report(label: str, seconds: list, target: float | None) -> None:
    median = statistics.median(seconds)
    ratio = f", {median / target:.2f} x the target {target:g} s" if target else ""
    print(f"{label}: median {median:.3f} s of {len(seconds)}{ratio}", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preferences", choices=("40k", "500k"), default="40k")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--serial", action="store_true", help="also time it in turn, interleaved")
    args = parse_arguments(parser, argv)  # --quick: 1,000 pairs of the bedroom rule, one repeat
    rules = [(bedroom_rule(), 1_000)] if args.quick else SCENARIOS[args.preferences]
    repeats = 1 if args.quick else args.repeats
    inputs, y_true = session_inputs(rules)
    print(f"{len(inputs[2]):,} preferences from {len(rules)} rule(s), {int(np.sum(~np.isnan(inputs[1])))} labels")
    times = {True: [], False: []}
    for _ in range(repeats):
        for parallel in (False, True) if args.serial else (True,):
            assessed, seconds = full(inputs, parallel)
            times[parallel].append(seconds)
    scenario = "quick" if args.quick else args.preferences
    report(f"full assessment, {scenario}", times[True], TARGETS.get(f"full {scenario}"))
    if args.serial:
        report(f"full assessment in turn, {scenario}", times[False], None)
        print(f"in turn / on workers: {statistics.median(times[False]) / statistics.median(times[True]):.2f}")
    answers = [incremental(assessed, inputs, y_true, k) for k in range(max(repeats, 10))]
    warm = [seconds for seconds in answers if seconds is not None]
    print(f"{len(answers) - len(warm)} of {len(answers)} audit answers moved the weight too far (a full one)")
    if warm:
        report(f"incremental re-assessment, {scenario}", warm, TARGETS.get(f"incremental {scenario}"))


if __name__ == "__main__":
    main()
