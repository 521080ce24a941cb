"""The compute behind one answer on the Pairwise page, part by part (issue 13, deliverable 5).

A California session as the Data page makes it (all 20,640 rows, l = 60 labeled, a 20 % hidden
test split, seed 0), in a SQLite store in a temporary directory, with rules over it: --preferences
40k is two rules of 20,000 pairs each (the bedroom rule of seed 000 and "within 10 miles, age within
5 years, more rooms is worth more"), 500k the bedroom rule with every pair it matches (498,794),
2k 2,000 pairs of it (what --quick runs, with 2 clicks), none no rule (the page's own cost).
The models are fitted once (cold, no time limit).  Then each of --clicks answers does what a click
does in the app, without a browser (the calls of app_pages/pairwise.py and app_state.py):

- store write: ``Store.add_answer`` (committed), and after the retrain ``Store.add_model_run``;
- store read: the session's revision and its preferences (``Store.preferences``);
- retrain: SSL's warm re-solve (``Workbench.update``, the part ``Retrain.seconds`` times);
- plot data: the rest of ``Workbench.update`` (test predictions, violations of every preference);
- next pair: ``Workbench.next_pair`` (the Studio's default strategy, 'correction');
- page data: what the page lays out besides (the last answers, the map of the two rows).

The answer is the true order of the pair.  Prints the median of each part and of the total.
With --trust, SSL is what automatic trust fits when it takes the preferences (issue 14): SVR mixed
half and half with the fits at every lambda2 of ``trust.LAMBDA2_GRID`` averaged (fitted along the
lambda2 path, ``lp.average.fit_lambda_path``), each of which a click re-solves warm; the first fit and
the click's total are printed with their ratios to issue 30's targets (20 s and 150 ms at 500k), the first
fit also with its CPU time (every thread of this process: the comparable figure on a shared machine).
Then, interleaved: each member's warm add of one more answer, pricing only the preferences added
since f last moved (what the engine does) against pricing every one (a twin branched from it, its
last pricing dropped before each add), CPU time of each add alone (``time.process_time``).

Run: ORDERCORE_DATA=../shared/data python bench/click_bench.py [--preferences none|2k|40k|500k] [--clicks 20] [--trust]
     [--max-pairs N] [--rows N] [--quick]   (--quick: 3 clicks, 1,000 pairs per rule over 4,000 rows)
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

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.experiments.bedroom import bedroom_rule  # noqa: E402
from ordercore.knowledge.label_cv import Blend  # noqa: E402
from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate  # noqa: E402
from ordercore.knowledge.trust import SourceTrust, Trust, trust_grid  # noqa: E402
from ordercore.preferences import PreferenceSet  # noqa: E402
from ordercore.studio.data import data_settings, load_source  # noqa: E402
from ordercore.studio.figures import rows_map  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402
from ordercore.studio.workbench import PAIR_STRATEGIES, Workbench  # noqa: E402

ROOMS_RULE = Rule(
    "more rooms", [Near("latitude", "longitude", 10.0), Within("housing_median_age", 5.0)], Ordering("total_rooms")
)
SCENARIOS = {
    "none": [],
    "2k": [(bedroom_rule(), 2_000)],
    "40k": [(bedroom_rule(), 20_000), (ROOMS_RULE, 20_000)],
    "500k": [(bedroom_rule(), None)],
}
FIRST_FIT_TARGET = {("500k", True): 20.0}
"""Seconds the first fit may take (issue 30: the blend at 500,000 preferences)."""
CLICK_TARGET = {("500k", True): 150, ("500k", False): 500}
"""Milliseconds a click's compute may take (issues 13 and 30); 100 elsewhere."""
PARTS = ("store write", "store read", "retrain", "plot data", "next pair", "page data")
MEMBER_ADDS = 6
"""Answers added to every member and its twin in the interleaved comparison (--quick: 2)."""


def session_with_rules(store: Store, scenario: str, max_pairs: int | None = None, rows: int | None = None):
    """A California session as the Data page sets it up, with the scenario's rules added.  The quick
    mode's sizes, if given: each rule keeps at most ``max_pairs`` pairs, over a random sample of ``rows``
    rows."""
    frame, target, features = load_source("california")
    if rows is not None:
        frame = frame.sample(rows, random_state=0).reset_index(drop=True)
    split = {"n_labeled": 60, "test_fraction": 0.2, "seed": 0}
    settings, data = data_settings(frame, "california", target, features, split)
    session = store.create_session("bench", settings=settings)
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[data.labeled] = True
    for rule, cap in SCENARIOS[scenario]:
        cap = min((c for c in (cap, max_pairs) if c is not None), default=None)
        made = generate(rule, frame, labeled, max_pairs=cap, random_state=0).preferences
        store.add_rule(session.id, rule, made, "bench")
    return session, data


def click(store: Store, session, data, bench: Workbench, pair, rng) -> dict:
    """One answer to ``pair`` and what the page computes before showing the next: seconds per part."""
    seconds = dict.fromkeys(PARTS, 0.0)
    start = time.perf_counter()
    a, b = pair
    store.add_answer(session.id, a, b, "a" if data.y_true[a] > data.y_true[b] else "b", "bench")
    seconds["store write"] += time.perf_counter() - start
    start = time.perf_counter()
    store.revision(session.id)
    preferences, _ = store.preferences(session.id)
    seconds["store read"] += time.perf_counter() - start
    start = time.perf_counter()
    report = bench.update(preferences)
    seconds["retrain"] += report.seconds
    seconds["plot data"] += time.perf_counter() - start - report.seconds
    start = time.perf_counter()
    store.add_model_run(session.id, "lp", {}, {"svr_mae": report.svr_mae, "ssl_mae": report.ssl_mae}, len(preferences))
    seconds["store write"] += time.perf_counter() - start
    start = time.perf_counter()
    pair = bench.next_pair(PAIR_STRATEGIES[0], rng)
    seconds["next pair"] += time.perf_counter() - start
    start = time.perf_counter()
    store.answers(session.id).tail(10)
    frame = data.frame
    rows_map(frame["latitude"], frame["longitude"], marked={"A": pair[0], "B": pair[1]}, height=320).to_json()
    seconds["page data"] += time.perf_counter() - start
    return seconds, pair


def member_adds(blend, data, rng, n_adds: int) -> None:
    """Print the median CPU ms of a member's warm add of one answer, priced only where new (the member)
    and priced over every preference (its twin), the two in alternating order; and how many kept."""
    members = [member for member in blend.members_ if member.lambda2 > 0]
    twins = [member.branch(member.lambda1, member.lambda2) for member in members]
    seconds, kept, gap = {"new": [], "every": []}, 0, 0.0
    for round_ in range(n_adds):
        a, b = rng.choice(data.pool, 2, replace=False)
        added = PreferenceSet([a], [b]) if data.y_true[a] > data.y_true[b] else PreferenceSet([b], [a])
        for member, twin in zip(members, twins, strict=True):
            twin._lp._columns.priced = None  # no shortfalls to reuse: every preference priced
            for name, model in (("new", member), ("every", twin))[:: 1 if round_ % 2 else -1]:
                start = time.process_time()
                model.add_preferences(added)
                seconds[name].append(1000 * (time.process_time() - start))
            kept += member.solve_start_ == "kept"
            gap = max(gap, abs(member.objective_ - twin.objective_) / max(abs(twin.objective_), 1e-300))
    new, every = (statistics.median(seconds[name]) for name in ("new", "every"))
    print(
        f"a member's warm add, CPU median of {len(seconds['new'])} ({kept} kept): priced where new {new:.1f} ms, "
        f"every preference {every:.1f} ms (ratio {new / every:.2f}); objectives' largest relative difference {gap:.1e}"
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preferences", choices=sorted(SCENARIOS), default="40k")
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--trust", action="store_true", help="SSL as automatic trust fits it: an average of LPs")
    parser.add_argument("--max-pairs", type=int, default=None, help="at most this many pairs per rule")
    parser.add_argument("--rows", type=int, default=None, help="a random sample of this many rows")
    parser.add_argument("--member-adds", type=int, default=MEMBER_ADDS, help="answers in the members' comparison")
    args = parse_arguments(parser, argv, clicks=3, max_pairs=1_000, rows=4_000, member_adds=2)
    with tempfile.TemporaryDirectory() as directory:
        store = Store(f"sqlite:///{Path(directory) / 'bench.sqlite'}")
        session, data = session_with_rules(store, args.preferences, args.max_pairs, args.rows)
        start, cpu = time.perf_counter(), time.process_time()
        bench = Workbench(data, time_limit=None)
        if args.trust:
            blend = Blend.mixing(trust_grid(bench.svr.lambda1), 0.5)
            bench.use_trust(SourceTrust((), (), Trust(np.zeros(0), blend, None), None))
        report = bench.update(store.preferences(session.id)[0])
        first_fit, cpu = time.perf_counter() - start, time.process_time() - cpu
        line = f"first fit (SVR + SSL, cold) on {report.fitted:,} preferences: {first_fit:.1f} s, CPU {cpu:.1f} s"
        target = FIRST_FIT_TARGET.get((args.preferences, args.trust))
        print(line + ("" if target is None else f" (target <= {target:.0f} s: ratio {first_fit / target:.2f})"))
        rng = np.random.default_rng(0)
        pair, timings = bench.next_pair(PAIR_STRATEGIES[0], rng), []
        for _ in range(args.clicks):
            seconds, pair = click(store, session, data, bench, pair, rng)
            timings.append(seconds)
        store.engine.dispose()
        if args.trust:
            member_adds(bench.ssl, data, rng, args.member_adds)
    medians = {part: 1000 * statistics.median(t[part] for t in timings) for part in PARTS}
    totals = [1000 * sum(t.values()) for t in timings]
    target = CLICK_TARGET.get((args.preferences, args.trust), 100)
    total = statistics.median(totals)
    print(f"per click, median of {args.clicks} (ms): " + ", ".join(f"{part} {medians[part]:.1f}" for part in PARTS))
    print(
        f"total median {total:.0f} ms (target <= {target} ms: ratio {total / target:.2f}), worst {max(totals):.0f} ms"
    )


if __name__ == "__main__":
    main()
