"""Speed of the order-preference LP on California (issue 2's bench).

Setting: l = 60 labeled, u = 1000 unlabeled, p = 1000 oracle preferences
f(x_i) - f(x_j) >= 0.5 (y_i - y_j) (seed 001 eq. (14)), standardized features, RBF gamma = 0.01,
lambda1 = 1e-3, lambda2 = 1.  Prints medians of: the cold fit; the same LP (13) built densely and
solved by scipy.optimize.linprog(method="highs") (the naive baseline); a warm re-solve after
adding one preference; their ratios.  Then the scale curve (issue 13): l = 60, u = 19,000,
p = 10^3 .. 10^6 oracle preferences, each p in a fresh process: the cold fit (working set), the
median warm add of one preference, peak memory, and the cold fit with every preference a column
(all at once) where it finishes in reasonable time (p <= 10^5), with the ratio and the objectives'
relative difference.  Then centers='all' at u = 5,000, p = 20,000 (cold, warm add, peak memory,
active / candidate centers), and how long a fit given time_limit takes to give up, against the
allowed 1.1 limit + 0.1 s.  Last, the compute behind one click on the Pairwise page at 40,000 and
about 500,000 preferences (bench/click_bench.py, in a fresh process each).  After the scale curve:
the blend's lambda2 path at p = 100,000, cold member by member against warm member to member
(``fit_lambda_path``, one thread and two).  --quick: p = 1,000 and the path at 2,000 only.

Run: ORDERCORE_DATA=../shared/data python bench/lp_bench.py [--repeats 7] [--max-p 1000000] [--quick]
(--quick: 2 repeats and ``QUICK``'s sizes: u = p = 200; the scale curve at p = 1,000 over u = 2,000;
centers='all' at u = 500, p = 2,000; one time limit; bench/click_bench.py --quick)
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore import OrderPreferenceRegressor, SolverTimeLimitError  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402
from ordercore.knowledge.oracle import oracle_preferences  # noqa: E402
from ordercore.lp.average import fit_lambda_path  # noqa: E402
from tests.reference_lp import solve_paper_lp  # noqa: E402

GAMMA, LAMBDA1, LAMBDA2 = 0.01, 1e-3, 1.0


def setting(n_labeled, n_unlabeled, n_preferences, seed):
    """X, y with NaN for unlabeled rows (first n_labeled rows labeled), the true y, preferences."""
    data = load_dataset("california")
    rng = np.random.default_rng(seed)
    rows = rng.permutation(len(data.y))[: n_labeled + n_unlabeled]
    X, y_true = data.X[rows], data.y[rows]
    y = y_true.copy()
    y[n_labeled:] = np.nan
    preferences = oracle_preferences(np.arange(n_labeled, n_labeled + n_unlabeled), y_true, n_preferences, rng=rng)
    return X, y, y_true, preferences


def median_seconds(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def naive_fit(X, y, preferences):
    labeled = np.flatnonzero(~np.isnan(y))
    return solve_paper_lp(
        rbf_kernel(X[labeled], gamma=GAMMA),
        y[labeled],
        rbf_kernel(X[preferences.i], X[labeled], gamma=GAMMA),
        rbf_kernel(X[preferences.j], X[labeled], gamma=GAMMA),
        preferences.margin,
        preferences.weight,
        LAMBDA1,
        LAMBDA2,
    )[0]


SCALE_P = (1_000, 10_000, 100_000, 1_000_000)
WHOLE_MAX_P = 100_000
"""All-at-once solves run up to this p (measured on main before the working set: 300,000 took 99 s,
10^6 gave no answer in 300 s)."""


def warm_adds(model, y_true, n_unlabeled: int, repeats: int) -> list[float]:
    """Seconds of each of ``repeats`` warm adds of one oracle preference among the unlabeled rows
    60 .. 60 + n_unlabeled (the rows ``setting`` lays out)."""
    rng, seconds = np.random.default_rng(1), []
    for _ in range(repeats):
        extra = oracle_preferences(np.arange(60, 60 + n_unlabeled), y_true, 1, rng=rng)
        start = time.perf_counter()
        model.add_preferences(extra)
        seconds.append(time.perf_counter() - start)
    return seconds


def scale_point(n_preferences: int, whole: bool, repeats: int, sizes: Sizes):
    """Run in a child process: cold fit and warm adds at l = 60, u = ``sizes.scale_unlabeled``,
    p = n_preferences; ``whole``: every preference a column (the working set off)."""
    from ordercore.lp import working_set

    if whole:
        working_set.WORKING_SET_MIN = n_preferences
    X, y, y_true, preferences = setting(60, sizes.scale_unlabeled, n_preferences, seed=0)
    start = time.perf_counter()
    model = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2).fit(X, y, preferences)
    seconds, objective = time.perf_counter() - start, model.objective_
    warm = warm_adds(model, y_true, sizes.scale_unlabeled, repeats)
    state = np.bincount(model._lp.working.state, minlength=3)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "warm_ms": 1e3 * statistics.median(warm),
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
                "objective": objective,  # of the cold fit
                "columns": int(state[1]),
                "fixed": int(state[2]),
            }
        )
    )


def print_scale_curve(max_p: int, repeats: int, sizes: Sizes) -> None:
    print(f"Scale curve: California, l=60, u={sizes.scale_unlabeled:,}, oracle preferences, each p in a fresh process")
    print(
        "        p   cold (s)  warm add (ms)  peak (MB)  columns/fixed at the end   all at once (s)  ratio  rel. diff"
    )
    for p in [p for p in SCALE_P if p <= max_p]:
        point = run_child(sizes, "scale", str(p), "--repeats", str(repeats))
        line = (
            f"  {p:>9,}  {point['seconds']:8.2f}  {point['warm_ms']:13.1f}  {point['peak_mb']:9.0f}  "
            f"{point['columns']:>10,} / {point['fixed']:<11,}"
        )
        if p <= WHOLE_MAX_P:
            whole = run_child(sizes, "scale", str(p), "--repeats", "1", "--whole")
            difference = abs(point["objective"] - whole["objective"]) / abs(whole["objective"])
            line += f"  {whole['seconds']:15.2f}  {whole['seconds'] / point['seconds']:5.1f}  {difference:9.1e}"
        print(line)


def centers_all_point(repeats: int, sizes: Sizes) -> None:
    """Run in a child process: centers='all' at l = 60, u = ``sizes.all_unlabeled``, p = ``sizes.all_preferences``."""
    X, y, y_true, preferences = setting(60, sizes.all_unlabeled, sizes.all_preferences, seed=0)
    model = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2, centers="all")
    start = time.perf_counter()
    model.fit(X, y, preferences)
    seconds, n_centers = time.perf_counter() - start, len(model.centers_)
    warm = warm_adds(model, y_true, sizes.all_unlabeled, repeats)
    candidates = np.union1d(np.arange(60), np.concatenate([preferences.i, preferences.j])).size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "seconds": seconds,
                "warm_ms": 1e3 * statistics.median(warm),
                "peak_mb": peak,
                "centers": n_centers,
                "candidates": int(candidates),
            }
        )
    )


def time_limit_point(n_preferences: int, centers: str, limit: float, sizes: Sizes) -> None:
    """Run in a child process: seconds until a fit with ``time_limit=limit`` returns or gives up."""
    n_unlabeled = sizes.scale_unlabeled if centers == "labeled" else sizes.all_unlabeled
    X, y, _, preferences = setting(60, n_unlabeled, n_preferences, seed=0)
    model = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2, centers=centers, time_limit=limit)
    start = time.perf_counter()
    try:
        model.fit(X, y, preferences)
        outcome = "finished"
    except SolverTimeLimitError:
        outcome = "stopped"
    print(json.dumps({"seconds": time.perf_counter() - start, "outcome": outcome}))


PATH_LAMBDA2 = (0.3, 1.0, 3.0, 10.0, 30.0)
"""The lambda2 path of automatic trust's blend (``knowledge.trust.LAMBDA2_GRID``), at lambda1 / 3."""


def path_point(n_preferences: int, sizes: Sizes) -> None:
    """Run in a child process: the blend's lambda2 path at l = 60, u = sizes.scale_unlabeled, p =
    n_preferences, fitted cold member by member, then along ``fit_lambda_path`` (workers 1 and 2),
    interleaved."""
    X, y, _, preferences = setting(60, sizes.scale_unlabeled, n_preferences, seed=0)
    settings = [(LAMBDA1 / 3, lambda2) for lambda2 in PATH_LAMBDA2]

    def cold():
        return [OrderPreferenceRegressor(gamma=GAMMA, lambda1=a, lambda2=b).fit(X, y, preferences) for a, b in settings]

    times, fits = {"cold": [], "path": [], "path2": []}, {}
    for _ in range(2):
        for name, fit in (
            ("cold", cold),
            ("path", lambda: fit_lambda_path(X, y, preferences, settings, gamma=GAMMA)),
            ("path2", lambda: fit_lambda_path(X, y, preferences, settings, gamma=GAMMA, workers=2)),
        ):
            start = time.perf_counter()
            fits[name] = fit()
            times[name].append(time.perf_counter() - start)
    gap = max(
        abs(a.objective_ - b.objective_) / abs(a.objective_)
        for name in ("path", "path2")
        for a, b in zip(fits["cold"], fits[name], strict=True)
    )
    print(json.dumps({name: statistics.median(t) for name, t in times.items()} | {"gap": gap}))


def print_path(sizes: Sizes) -> None:
    n_unlabeled, n_preferences = sizes.scale_unlabeled, sizes.path_preferences
    point = run_child(sizes, "path", str(n_preferences))
    print(
        f"the blend's lambda2 path {PATH_LAMBDA2}, l=60, u={n_unlabeled:,}, p={n_preferences:,} (fresh process, "
        "median of 2)"
    )
    print(
        f"  cold member by member {point['cold']:.2f} s; warm member to member {point['path']:.2f} s "
        f"(ratio {point['path'] / point['cold']:.2f}), on two threads from the middle {point['path2']:.2f} s "
        f"(ratio {point['path2'] / point['cold']:.2f}); max objectives' relative difference {point['gap']:.1e}"
    )


def run_child(sizes: Sizes, *arguments: str) -> dict:
    command = [sys.executable, __file__, "--child", *arguments, *(["--quick"] if sizes == QUICK else [])]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(output.splitlines()[-1])  # the last line: HiGHS may print its banner first


def print_centers_all(repeats: int, sizes: Sizes) -> None:
    point = run_child(sizes, "all", "--repeats", str(repeats))
    print(f"centers='all', California, l=60, u={sizes.all_unlabeled:,}, p={sizes.all_preferences:,} (fresh process)")
    print(
        f"  cold fit {point['seconds']:.2f} s (target <= 5), warm add median {point['warm_ms']:.1f} ms, "
        f"peak {point['peak_mb']:.0f} MB (target <= 2048), active centers {point['centers']:,} "
        f"of {point['candidates']:,} candidates"
    )


TIME_LIMITS = (
    (100_000, "labeled", 0.3),
    (1_000_000, "labeled", 0.5),
    (1_000_000, "labeled", 3.0),
    (20_000, "all", 0.5),
    (20_000, "all", 1.5),
)
"""(p, centers, time_limit) points at which the bench times a fit that is given a time limit."""


@dataclass(frozen=True)
class Sizes:
    """The sizes of each part: the full run's (``FULL``) or the quick mode's (``QUICK``)."""

    unlabeled: int  # the first part's u and p
    preferences: int
    scale_unlabeled: int  # the scale curve's u, and the time limits' with centers='labeled'
    all_unlabeled: int  # centers='all': u and p (the time limits' u)
    all_preferences: int
    time_limits: tuple  # (p, centers, time_limit) points
    path_preferences: int  # the blend's lambda2 path: its p (its u is scale_unlabeled)
    clicks: tuple  # (scenario, bench/click_bench.py's further arguments)


FULL = Sizes(
    unlabeled=1000,
    preferences=1000,
    scale_unlabeled=19_000,
    all_unlabeled=5_000,
    all_preferences=20_000,
    time_limits=TIME_LIMITS,
    path_preferences=100_000,
    clicks=(("40k", ("--clicks", "20")), ("500k", ("--clicks", "15"))),
)
QUICK = Sizes(
    unlabeled=200,
    preferences=200,
    scale_unlabeled=2_000,
    all_unlabeled=500,
    all_preferences=2_000,
    time_limits=((2_000, "all", 0.5),),
    path_preferences=2_000,
    clicks=(("40k", ("--quick",)),),
)
"""The quick mode's: the same path on the smallest inputs (its --max-p is 1,000: one point of the scale curve)."""


def print_time_limits(sizes: Sizes) -> None:
    print("time_limit: seconds until the fit returns (fresh process each)")
    for n_preferences, centers, limit in sizes.time_limits:
        point = run_child(sizes, "limit", str(n_preferences), centers, str(limit))
        allowed = 1.1 * limit + 0.1
        print(
            f"  p={n_preferences:>9,} centers={centers:<7} time_limit={limit:4.1f} s: {point['outcome']} after "
            f"{point['seconds']:5.2f} s (allowed {allowed:.2f} s)"
        )


def print_clicks(sizes: Sizes) -> None:
    """bench/click_bench.py's per-click figures (issue 13, item 5) for the two rule sessions."""
    script = str(Path(__file__).with_name("click_bench.py"))
    for scenario, further in sizes.clicks:
        output = subprocess.run(
            [sys.executable, script, "--preferences", scenario, *further],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        print(f"one click on the Pairwise page, {scenario} preferences (bench/click_bench.py)")
        print("".join(f"  {line}\n" for line in output.splitlines()), end="")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--max-p", type=int, default=SCALE_P[-1], help="largest p of the scale curve")
    parser.add_argument("--whole", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parse_arguments(parser, repeats=2, max_p=1_000)
    sizes = QUICK if args.quick else FULL
    if args.child:  # one point, in a fresh process: its peak memory is its own
        kind, *rest = args.child
        if kind == "scale":
            return scale_point(int(rest[0]), args.whole, args.repeats, sizes)
        if kind == "all":
            return centers_all_point(args.repeats, sizes)
        if kind == "path":
            return path_point(int(rest[0]), sizes)
        return time_limit_point(int(rest[0]), rest[1], float(rest[2]), sizes)

    X, y, y_true, preferences = setting(60, sizes.unlabeled, sizes.preferences, seed=0)
    model = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2)
    cold, _ = median_seconds(lambda: model.fit(X, y, preferences), args.repeats)
    naive, naive_objective = median_seconds(lambda: naive_fit(X, y, preferences), args.repeats)

    # warm: add one preference (timed), then undo it; the cold fits that check each warm optimum run
    # afterwards, so that they do not evict the warm model's data from the caches mid-loop
    rng = np.random.default_rng(1)
    model.fit(X, y, preferences)
    warm_times, warm_starts, warm_results = [], [], []
    for _ in range(5 * args.repeats):
        extra = oracle_preferences(np.arange(60, 60 + sizes.unlabeled), y_true, 1, rng=rng)
        start = time.perf_counter()
        model.add_preferences(extra)
        warm_times.append(time.perf_counter() - start)
        warm_starts.append(model.solve_start_)
        warm_results.append((extra, model.objective_))
        model.remove_preferences(-1)
    gaps = []
    for extra, objective in warm_results:
        cold_model = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2)
        cold_model.fit(X, y, preferences + extra)
        gaps.append(abs(objective - cold_model.objective_) / abs(cold_model.objective_))
    warm = statistics.median(warm_times)
    by_start = {
        kind: [t for t, k in zip(warm_times, warm_starts, strict=True) if k == kind] for kind in ("kept", "hot")
    }
    fitted = OrderPreferenceRegressor(gamma=GAMMA, lambda1=LAMBDA1, lambda2=LAMBDA2).fit(X, y, preferences)

    print(f"California, l=60, u={sizes.unlabeled}, p={sizes.preferences}, RBF gamma=0.01, lambda1=1e-3, lambda2=1")
    print(
        f"  objective (9): ours {fitted.objective_:.6f}, naive linprog {naive_objective:.6f}, "
        f"relative difference {abs(fitted.objective_ - naive_objective) / naive_objective:.1e}"
    )
    print(f"  cold fit                 median {cold * 1e3:8.1f} ms   ({args.repeats} runs)")
    print(f"  naive dense linprog      median {naive * 1e3:8.1f} ms   ({args.repeats} runs)")
    print(
        f"  warm re-solve, +1 pref   median {warm * 1e3:8.1f} ms   ({len(warm_times)} runs; "
        f"max |warm - cold| / cold objective {max(gaps):.1e})"
    )
    for kind, times in by_start.items():
        label = "basis still optimal, no pivots" if kind == "kept" else "HiGHS pivots from the old basis"
        if times:
            print(f"    {kind}: {len(times):2d} runs, median {statistics.median(times) * 1e3:6.2f} ms  ({label})")
    print(f"  ratio cold / naive  {cold / naive:.3f}   (target <= 0.25)")
    print(f"  ratio warm / cold   {warm / cold:.3f}   (target <= 0.1)")

    print_scale_curve(args.max_p, args.repeats, sizes)
    print_path(sizes)
    print_centers_all(args.repeats, sizes)
    print_time_limits(sizes)
    print_clicks(sizes)


if __name__ == "__main__":
    main()
