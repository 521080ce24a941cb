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
500k; incremental: 2 s at 40k), and the full assessment's CPU time, in this process and in the fold
workers (``resource.RUSAGE_CHILDREN`` once the pool is shut down): on a loaded machine the wall clock
says little, and this process's CPU plus the workers' shared over the cores is about the wall clock
the machine would give it alone.  --serial also times the full assessment without workers, interleaved
with the parallel one (serial, parallel, serial, ...), and prints the ratio.  --fold-walks N also times
one fold's walk of the trust grid three ways on the assessment's first N folds, one thread (as a fold
worker), interleaved, and prints CPU medians, ratios and how far their predictions differ: in one LP
whose bounds change member to member (``label_cv``'s), along ``lp.average.fit_lambda_path`` (SVR apart,
each member branched into a HiGHS instance of its own) and cold fits.  --baseline SRC also runs
``assess_sources`` of another source tree (e.g. ``git archive main | tar -x -C SRC``) on the same inputs
in a child process after each full assessment here (here, there, here, ...), as that tree's version
runs it (on workers if its ``assess_sources`` takes an executor and ``fold_workers`` exists), and prints
its median, the ratio and whether both chose the same weights and blend.  --quick: 1,000 pairs of the
bedroom rule, one repeat (seconds), for tests/test_benches.py.

Run: ORDERCORE_DATA=../shared/data python bench/trust_bench.py [--preferences 40k|500k] [--repeats 3]
[--serial] [--fold-walks N] [--baseline SRC] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from click_bench import SCENARIOS  # noqa: E402

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.experiments.bedroom import bedroom_rule  # noqa: E402
from ordercore.knowledge.label_cv import _fold_predictions, cv_sample  # noqa: E402
from ordercore.knowledge.quality import labeled_check  # noqa: E402
from ordercore.knowledge.rules import generate  # noqa: E402
from ordercore.knowledge.source_weights import SourceCheck, rule_source  # noqa: E402
from ordercore.knowledge.trust import assess_sources, reassess_sources, trust_grid  # noqa: E402
from ordercore.lp.average import fit_lambda_path  # noqa: E402
from ordercore.lp.estimator import OrderPreferenceRegressor  # noqa: E402
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


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def full(inputs, parallel: bool):
    """``assess_sources`` with effects, on fold workers or in turn; (its result, seconds, CPU seconds in
    this process, CPU seconds in the fold workers)."""
    start, cpu, workers = time.perf_counter(), time.process_time(), children_cpu()
    if not parallel:
        assessed = assess_sources(*inputs, np.random.default_rng(SEED), LAMBDA1)
    else:
        with fold_workers() as executor:
            assessed = assess_sources(*inputs, np.random.default_rng(SEED), LAMBDA1, executor=executor)
    return assessed, time.perf_counter() - start, time.process_time() - cpu, children_cpu() - workers


def fold_walks(assessed, inputs, n_folds: int) -> None:
    """CPU seconds of one fold's walk of ``trust_grid`` on the assessment's weighed preferences, three ways
    interleaved on its first ``n_folds`` folds, one BLAS thread as in a fold worker: ``label_cv``'s (one LP,
    its bounds changed member to member), ``fit_lambda_path`` (SVR fitted apart without preferences, the
    path cold at lambda2 = 0.3 then each member branched from the last) and a cold fit per setting; each
    one's largest prediction difference from ``label_cv``'s, relative to the labels' standard deviation."""
    X, y, preferences, names, _ = inputs
    weighed = preferences.weight * assessed.preference_weights(names)
    preferences = PreferenceSet(preferences.i, preferences.j, preferences.margin, weighed)
    preferences = preferences[cv_sample(len(preferences), np.random.default_rng(SEED))]
    grid, folds = trust_grid(LAMBDA1), assessed.trust.cv.folds
    labeled, scale, n_splits = np.flatnonzero(~np.isnan(y)), np.nanstd(y), int(folds.max()) + 1

    def fold_data(hidden):
        y_fold = y.copy()
        y_fold[hidden] = np.nan
        return y_fold, preferences[~(np.isin(preferences.i, hidden) | np.isin(preferences.j, hidden))]

    def along_the_path(hidden):
        y_fold, kept = fold_data(hidden)
        svr = OrderPreferenceRegressor(lambda1=grid[0][0], lambda2=0.0).fit(X, y_fold)
        return np.array([member.predict(X[hidden]) for member in [svr, *fit_lambda_path(X, y_fold, kept, grid[1:])]])

    def cold(hidden):
        y_fold, kept = fold_data(hidden)
        fits = [OrderPreferenceRegressor(lambda1=lambda1, lambda2=lambda2) for lambda1, lambda2 in grid]
        return np.array([fit.fit(X, y_fold, kept).predict(X[hidden]) for fit in fits])

    walks = {
        "in one LP (label_cv)": lambda hidden: _fold_predictions(X, y, preferences, hidden, grid, {}),
        "fit_lambda_path": along_the_path,
        "cold fits": cold,
    }
    seconds, differences = {name: [] for name in walks}, dict.fromkeys(walks, 0.0)
    with threadpool_limits(1):
        for fold in range(n_folds):
            hidden = labeled[folds[fold // n_splits] == fold % n_splits]
            first = None
            for name, walk in walks.items():
                start = time.process_time()
                predictions = walk(hidden)
                seconds[name].append(time.process_time() - start)
                first = predictions if first is None else first
                differences[name] = max(differences[name], float(np.abs(predictions - first).max() / scale))
    base = statistics.median(seconds["in one LP (label_cv)"])
    for name in walks:
        median = statistics.median(seconds[name])
        print(
            f"a fold's walk of the grid, {name}: median {median:.3f} s CPU of {n_folds}, {median / base:.2f} x "
            f"in one LP; predictions within {differences[name]:.1e} of its (x the labels' std)",
            flush=True,
        )


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


BASELINE_CHILD = """
import inspect, json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from ordercore.knowledge.trust import SourceCheck, assess_sources
from ordercore.preferences import PreferenceSet
arrays = np.load(sys.argv[2], allow_pickle=False)
names = arrays["names"].astype(object)
checks = {str(name): SourceCheck.of(*(arrays[f"check{k}_{part}"] for part in ("winner", "loser", "right")))
          for k, name in enumerate(arrays["check_names"])}
inputs = (arrays["X"], arrays["y"], PreferenceSet(*(arrays[c] for c in ("i", "j", "margin", "weight"))), names, checks)
rng, lambda1 = np.random.default_rng(int(sys.argv[3])), float(sys.argv[4])
start = time.perf_counter()
if "executor" in inspect.signature(assess_sources).parameters:
    from ordercore.studio.jobs.trust import fold_workers
    with fold_workers() as executor:
        assessed = assess_sources(*inputs, rng, lambda1, executor=executor)
else:
    assessed = assess_sources(*inputs, rng, lambda1)
seconds = time.perf_counter() - start
trust = assessed.trust
print(json.dumps({"seconds": seconds, "weights": trust.weights.tolist(), "blend": trust.blend.weights.tolist()}))
"""


def baseline(source: str, inputs) -> dict:
    """``assess_sources`` of the source tree ``source`` on ``inputs`` in a child process: its seconds (the
    child's own wall clock around the call), source weights and blend weights."""
    X, y, preferences, names, checks = inputs
    arrays = {"X": X, "y": y, "names": np.asarray(names, dtype=str), "check_names": np.array(list(checks), dtype=str)}
    arrays |= {column: getattr(preferences, column) for column in ("i", "j", "margin", "weight")}
    for k, check in enumerate(checks.values()):
        arrays |= {f"check{k}_{part}": getattr(check, part) for part in ("winner", "loser", "right")}
    with tempfile.TemporaryDirectory(prefix="trust-bench-") as directory:
        path = Path(directory) / "inputs.npz"
        np.savez(path, **arrays)
        command = [sys.executable, "-c", BASELINE_CHILD, source, str(path), str(SEED), repr(LAMBDA1)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def report(label: str, seconds: list, target: float | None) -> None:
    median = statistics.median(seconds)
    ratio = f", {median / target:.2f} x the target {target:g} s" if target else ""
    print(f"{label}: median {median:.3f} s of {len(seconds)}{ratio}", flush=True)


def report_cpu(label: str, cpu: list, workers: list) -> None:
    """The full assessment's CPU medians, and this process's plus the workers' shared over the cores."""
    cores = joblib.cpu_count()
    alone = statistics.median([main + fold / cores for main, fold in zip(cpu, workers, strict=True)])
    print(
        f"{label}: median CPU {statistics.median(cpu):.3f} s in this process + {statistics.median(workers):.3f} s "
        f"in the fold workers; alone on {cores} cores about {alone:.3f} s (load average {os.getloadavg()[0]:.1f})",
        flush=True,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preferences", choices=("40k", "500k"), default="40k")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--serial", action="store_true", help="also time it in turn, interleaved")
    parser.add_argument("--fold-walks", type=int, default=0, metavar="N", help="time N folds' walks three ways")
    parser.add_argument("--baseline", metavar="SRC", help="also time another source tree's, interleaved")
    args = parse_arguments(parser, argv)  # --quick: 1,000 pairs of the bedroom rule, one repeat
    rules = [(bedroom_rule(), 1_000)] if args.quick else SCENARIOS[args.preferences]
    repeats = 1 if args.quick else args.repeats
    inputs, y_true = session_inputs(rules)
    print(f"{len(inputs[2]):,} preferences from {len(rules)} rule(s), {int(np.sum(~np.isnan(inputs[1])))} labels")
    times, cpu, workers, theirs = {True: [], False: []}, [], [], []
    for _ in range(repeats):
        for parallel in (False, True) if args.serial else (True,):
            assessed, seconds, main_cpu, workers_cpu = full(inputs, parallel)
            times[parallel].append(seconds)
            if parallel:
                cpu.append(main_cpu)
                workers.append(workers_cpu)
        if args.baseline:
            theirs.append(baseline(args.baseline, inputs))
    scenario = "quick" if args.quick else args.preferences
    report(f"full assessment, {scenario}", times[True], TARGETS.get(f"full {scenario}"))
    report_cpu(f"full assessment, {scenario}", cpu, workers)
    if args.serial:
        report(f"full assessment in turn, {scenario}", times[False], None)
        print(f"in turn / on workers: {statistics.median(times[False]) / statistics.median(times[True]):.2f}")
    if theirs:
        report(f"full assessment of {args.baseline}, {scenario}", [run["seconds"] for run in theirs], None)
        ratio = statistics.median(times[True]) / statistics.median([run["seconds"] for run in theirs])
        same = all(
            np.allclose(run["weights"], assessed.trust.weights)
            and np.allclose(run["blend"], assessed.trust.blend.weights)
            for run in theirs
        )
        print(f"here / {args.baseline}: {ratio:.2f}; the same source weights and blend: {same}")
    if args.fold_walks:
        fold_walks(assessed, inputs, args.fold_walks)
    answers = [incremental(assessed, inputs, y_true, k) for k in range(max(repeats, 10))]
    warm = [seconds for seconds in answers if seconds is not None]
    print(f"{len(answers) - len(warm)} of {len(answers)} audit answers moved the weight too far (a full one)")
    if warm:
        report(f"incremental re-assessment, {scenario}", warm, TARGETS.get(f"incremental {scenario}"))


if __name__ == "__main__":
    main()
