"""GP preference model against BoTorch's ``PairwiseGP`` on identical pairs (issue 4's bench).

Settings (each trial draws fresh pairs; both models see the same ones):

- **Boston** (seed 002 §4.1): 700 random training pairs of rows with different targets, labelled
  by the true target; 20,000 random test pairs; test error rate = share of test pairs ordered
  wrongly by the latent mean.
- **Synthetic** (BoTorch's preference tutorial utility f(x) = Σ_d √d x_d on [0, 1]^4): 500 instances,
  2,000 random training pairs among them; accuracy on 20,000 random pairs of 1,000 fresh points.

Times are whole fits including hyperparameter optimisation: ``GPPreferenceModel().fit`` (by default
ARD with a Gamma prior on the length scales, evidence plus log prior by L-BFGS from 2 starts; also
the seed's plain evidence with either kernel) and ``PairwiseGP`` + ``fit_gpytorch_mll`` (its
default ARD kernel and priors, inputs normalised to the unit cube as BoTorch asks).  BoTorch is
optional, bench-only, and runs with torch allowed every core, as ordercore is (which chooses one
BLAS thread for the exact model, see ``ordercore.gp.evidence.blas_threads``):

    python -m pip install -r requirements-bench.txt   # torch==2.13.0 is a local CPU build here
    ORDERCORE_DATA=../shared/data python bench/gp_bench.py [--trials 5] [--no-botorch]

``--scale`` runs issue 15's scale curve instead: California, n rows (a random sample, or all 20,640),
n random training pairs among them ordered by the true value, 20,000 random test pairs over all rows;
the default model (sparse above 1,000 rows) at n in {2,000, 5,000, 20,640}, the exact model at
2,000 on the same pairs, and the exact model on a 2,000-row sample's pairs as the baseline the
full-table fit must beat.  Each fit runs in a fresh process, which reports its peak resident memory.

    ORDERCORE_DATA=../shared/data python bench/gp_bench.py --scale [--trials 3]

Without torch or BoTorch installed, ``--no-botorch`` is implied (a line says so).  ``--quick`` (either
mode): one trial, no pause between fits, and ``QUICK``'s sizes (200 Boston pairs; 100 synthetic
instances, 300 pairs; the scale curve at 300, 600 and 1,500 rows).

``--rule`` runs issue 30's Studio case instead: California with 60 labelled rows, every preference
seed 000's bedroom rule makes (``ordercore.experiments.bedroom.bedroom_rule``, about 500,000), and
the Studio's GP fit (``ordercore.studio.comparisons.start_gp_fit``'s options) on a uniform sample of
40,000 of them and of ``GP_MAX_PREFERENCES``.  It prints the medians of the whole fit, of placing the
inducing inputs, and of the peak memory (a fresh process per fit), each with its ratio to issue 30's
target (fit ≤ 20 s at 40,000 and ≤ 60 s at the cap, inducing inputs ≤ 2 s, memory ≤ 2 GB).
With ``--rule``, ``--quick`` fits 1,500 preferences once (seconds) to check that the scenario runs.

    ORDERCORE_DATA=../shared/data python bench/gp_bench.py --rule [--trials 3] [--quick]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import multiprocessing
import os
import resource
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore import GPPreferenceModel, PreferenceSet  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402


def random_pairs(y: np.ndarray, n_pairs: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """n_pairs random (winner, loser) row pairs with different y, the higher y winning."""
    winners, losers = [], []
    while sum(map(len, winners)) < n_pairs:
        i, j = rng.integers(len(y), size=(2, 2 * n_pairs))
        keep = y[i] != y[j]
        i, j = i[keep], j[keep]
        winners.append(np.where(y[i] > y[j], i, j))
        losers.append(np.where(y[i] > y[j], j, i))
    return np.concatenate(winners)[:n_pairs], np.concatenate(losers)[:n_pairs]


@dataclass(frozen=True)
class Sizes:
    """The sizes of each setting: the full run's (``FULL``) or the quick mode's (``QUICK``)."""

    boston_pairs: int  # Boston's training pairs
    instances: int  # the synthetic setting's instances and training pairs
    synthetic_pairs: int
    scale_rows: tuple[int, int, int]  # the scale curve's row counts (20,640 and more: every row)
    pause: float  # seconds of quiet before each fit (``quiet_machine``)


FULL = Sizes(boston_pairs=700, instances=500, synthetic_pairs=2_000, scale_rows=(2_000, 5_000, 20_640), pause=1.0)
QUICK = Sizes(boston_pairs=200, instances=100, synthetic_pairs=300, scale_rows=(300, 600, 1_500), pause=0.0)


def boston_trial(seed: int, n_pairs: int = FULL.boston_pairs):
    data = load_dataset("boston")
    rng = np.random.default_rng(seed)
    train = random_pairs(data.y, n_pairs, rng)
    test = random_pairs(data.y, 20_000, rng)
    return data.X, train, data.X, test


def synthetic_trial(seed: int, n_instances: int = FULL.instances, n_pairs: int = FULL.synthetic_pairs):
    rng = np.random.default_rng(seed)
    weights = np.sqrt(np.arange(1, 5))
    X = rng.uniform(size=(n_instances, 4))
    X_test = rng.uniform(size=(1000, 4))
    return X, random_pairs(X @ weights, n_pairs, rng), X_test, random_pairs(X_test @ weights, 20_000, rng)


def ordercore_fit(X, train, seed, **options):
    start = time.perf_counter()
    model = GPPreferenceModel(random_state=seed, **options).fit(X, PreferenceSet.order(*train))
    return time.perf_counter() - start, model.predict


def botorch_fit(X, train, seed):
    import torch

    torch.set_num_threads(len(os.sched_getaffinity(0)))
    from botorch.fit import fit_gpytorch_mll
    from botorch.models.pairwise_gp import PairwiseGP, PairwiseLaplaceMarginalLogLikelihood
    from botorch.models.transforms.input import Normalize

    torch.manual_seed(seed)
    # Only the instances the pairs mention, as GPPreferenceModel uses (BoTorch would otherwise carry
    # every row of X as a latent variable).
    instances, inverse = np.unique(np.concatenate(train), return_inverse=True)
    comparisons = torch.as_tensor(inverse.reshape(2, -1).T.copy())
    train_X = torch.as_tensor(X[instances], dtype=torch.float64)
    bounds = torch.as_tensor(np.vstack([X.min(axis=0), X.max(axis=0)]), dtype=torch.float64)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PairwiseGP(train_X, comparisons, input_transform=Normalize(d=X.shape[1], bounds=bounds))
        fit_gpytorch_mll(PairwiseLaplaceMarginalLogLikelihood(model.likelihood, model))
    seconds = time.perf_counter() - start

    def predict(X_new):
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.posterior(torch.as_tensor(X_new, dtype=torch.float64)).mean.squeeze(-1).numpy()

    return seconds, predict


def quiet_machine(seconds: float = 1.0) -> None:
    """Collect garbage and wait, so that no fit starts while the previous one's garbage or its BLAS /
    OpenMP worker threads (which spin for a while after their work) still take CPU."""
    gc.collect()
    time.sleep(seconds)


def error_rate(predict, X_test, test) -> float:
    """Share of test pairs (winner, loser) whose latent means are not in the winner's favour."""
    f = predict(X_test)
    return float(np.mean(f[test[0]] <= f[test[1]]))


def run(setting, trials, contenders, pause: float = FULL.pause):
    rows = {name: {"seconds": [], "error": []} for name in contenders}
    for seed in range(trials):
        X, train, X_test, test = setting(seed)
        line = [f"  trial {seed}:"]
        for name, fit in contenders.items():
            quiet_machine(pause)
            seconds, predict = fit(X, train, seed)
            error = error_rate(predict, X_test, test)
            rows[name]["seconds"].append(seconds)
            rows[name]["error"].append(error)
            line.append(f"{name} {100 * error:.2f}% in {seconds:.2f} s;")
        print(" ".join(line), flush=True)
    for name, row in rows.items():
        errors = 100 * np.array(row["error"])
        print(
            f"  {name:<24} error {errors.mean():.2f}% ± {errors.std(ddof=1) if len(errors) > 1 else 0:.2f}"
            f"  (accuracy {1 - errors.mean() / 100:.4f})   fit median {statistics.median(row['seconds']):.2f} s"
        )
    return rows


def scale_fit(job) -> tuple[float, float, float, str]:
    """One fit of the scale curve, in a fresh process: (seconds, peak RSS in GB, test error, method)."""
    seed, rows, options = job
    data = load_dataset("california")
    rng = np.random.default_rng(seed)
    test = random_pairs(data.y, 20_000, rng)
    sample = np.arange(len(data.y)) if rows >= len(data.y) else np.sort(rng.choice(len(data.y), rows, replace=False))
    train = random_pairs(data.y[sample], len(sample), rng)
    start = time.perf_counter()
    model = GPPreferenceModel(random_state=seed, **options).fit(data.X[sample], PreferenceSet.order(*train))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB
    return seconds, peak, error_rate(model.predict, data.X, test), model.method_


def scale(trials: int, sizes: Sizes = FULL) -> None:
    small, middle, large = sizes.scale_rows
    largest = "all 20,640" if large >= 20_640 else f"{large:,}"
    settings = [
        (f"default, {small:,} rows", small, {}),
        (f"exact, same {small:,} rows", small, {"method": "exact"}),
        (f"default, {middle:,} rows", middle, {}),
        (f"default, {largest} rows", large, {}),
    ]
    print(f"California scale curve ({trials} trials; {len(os.sched_getaffinity(0))} cores; a fresh process per fit)")
    rows = {name: [] for name, _, _ in settings}
    context = multiprocessing.get_context("spawn")
    for seed in range(trials):
        for name, n, options in settings:
            quiet_machine(sizes.pause)
            with context.Pool(1) as pool:
                result = pool.apply(scale_fit, ((seed, n, options),))
            rows[name].append(result)
            print(
                f"  trial {seed}: {name}: {result[3]} fit {result[0]:.1f} s, peak {result[1]:.2f} GB, "
                f"test pair error {100 * result[2]:.2f}%",
                flush=True,
            )
    for name, results in rows.items():
        seconds, peaks, errors, _ = zip(*results, strict=True)
        print(
            f"  {name:<26} fit median {statistics.median(seconds):6.1f} s   "
            f"peak median {statistics.median(peaks):.2f} GB   error {100 * np.mean(errors):.2f}%"
        )
    sparse, exact, _, whole = (np.array([result[2] for result in rows[name]]) for name, _, _ in settings)
    print(f"  sparse - exact at {small:,} rows: {100 * np.mean(sparse - exact):+.2f} points (mean over trials)")
    print(
        f"  {'all' if large >= 20_640 else f'{large:,}'} rows - exact on a {small:,}-row sample: "
        f"{100 * np.mean(whole - exact):+.2f} points"
    )


def botorch_installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("torch", "botorch"))


RULE_TARGETS = {"fit_40k": 20.0, "fit_cap": 60.0, "inducing": 2.0, "memory_gb": 2.0}
"""Issue 30's targets for the GP on a rule's preferences (seconds, and GB of peak memory)."""


def rule_preferences() -> tuple[np.ndarray, PreferenceSet]:
    """X of California as the Studio holds it (60 labelled rows, seed 0) and every preference seed
    000's bedroom rule makes over its unlabelled rows."""
    from ordercore.experiments.bedroom import bedroom_rule
    from ordercore.knowledge.rules.generation import generate
    from ordercore.studio.data import data_settings, load_source

    frame, target, features = load_source("california")
    _, data = data_settings(frame, "california", target, features, {"n_labeled": 60, "test_fraction": 0.2})
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[data.labeled] = True
    return data.dataset.X, generate(bedroom_rule(), frame, labeled, random_state=0).preferences


def rule_fit(job) -> tuple[float, float, float, int]:
    """One Studio GP fit on a uniform sample of n of the rule's preferences, in a fresh process:
    (fit seconds, inducing inputs' seconds, peak RSS in GB, rows touched)."""
    from ordercore.gp import estimator
    from ordercore.studio.comparisons import GP_MEMORY_LIMIT_GB

    seed, n = job
    X, preferences = rule_preferences()
    sample = preferences[np.sort(np.random.default_rng(seed).choice(len(preferences), n, replace=False))]
    placing = []
    place = estimator.inducing_inputs

    def timed_inducing_inputs(*args):
        start = time.perf_counter()
        inducing = place(*args)
        placing.append(time.perf_counter() - start)
        return inducing

    estimator.inducing_inputs = timed_inducing_inputs
    start = time.perf_counter()
    model = GPPreferenceModel(random_state=0, memory_limit=GP_MEMORY_LIMIT_GB).fit(X, sample)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB
    return seconds, sum(placing), peak, model.instances_.size


def rule(trials: int, quick: bool) -> None:
    from ordercore.studio.comparisons import GP_MAX_PREFERENCES

    sizes = {"40,000": (40_000, "fit_40k"), f"cap {GP_MAX_PREFERENCES:,}": (GP_MAX_PREFERENCES, "fit_cap")}
    if quick:
        sizes, trials = {"quick 1,500": (1_500, "fit_40k")}, 1  # over 1,000 rows: the sparse fit
    print(f"California, bedroom rule, Studio GP fit ({trials} trials; {len(os.sched_getaffinity(0))} cores)")
    context = multiprocessing.get_context("spawn")
    for name, (n, target) in sizes.items():
        results = []
        for seed in range(trials):
            quiet_machine()
            with context.Pool(1) as pool:
                results.append(pool.apply(rule_fit, ((seed, n),)))
            print(
                f"  {name}, trial {seed}: fit {results[-1][0]:.1f} s, inducing inputs {results[-1][1]:.2f} s",
                flush=True,
            )
        seconds, placing, peaks, rows = (statistics.median(column) for column in zip(*results, strict=True))
        print(
            f"  {name} preferences ({rows:,.0f} rows): fit median {seconds:.1f} s "
            f"({seconds / RULE_TARGETS[target]:.2f}x the {RULE_TARGETS[target]:.0f} s target), "
            f"inducing inputs median {placing:.2f} s ({placing / RULE_TARGETS['inducing']:.2f}x), "
            f"peak median {peaks:.2f} GB ({peaks / RULE_TARGETS['memory_gb']:.2f}x)"
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--no-botorch", action="store_true", help="only GPPreferenceModel")
    parser.add_argument("--scale", action="store_true", help="the scale curve on California (issue 15)")
    parser.add_argument("--rule", action="store_true", help="the Studio's GP on a rule's preferences (issue 30)")
    args = parse_arguments(parser, argv, trials=1)
    if args.rule:
        rule(args.trials, args.quick)
        return
    sizes = QUICK if args.quick else FULL
    if args.scale:
        scale(args.trials, sizes)
        return
    if not args.no_botorch and not botorch_installed():
        print("torch or BoTorch not installed (python -m pip install -r requirements-bench.txt): --no-botorch implied")
        args.no_botorch = True
    print(f"{len(os.sched_getaffinity(0))} cores; BoTorch's torch may use all of them")

    boston = {
        "GP default (ARD+prior)": {},
        "GP rbf, plain evidence": {"kernel": "rbf", "length_scale_prior": None},
        "GP ard, plain evidence": {"kernel": "ard", "length_scale_prior": None},
    }
    synthetic = {
        "GP default (ARD+prior)": {},
        "GP ard, plain evidence": {"kernel": "ard", "length_scale_prior": None},
    }
    for title, setting, configurations in [
        (
            f"Boston, {sizes.boston_pairs:,} training pairs, 20,000 test pairs",
            lambda seed: boston_trial(seed, sizes.boston_pairs),
            boston,
        ),
        (
            f"Synthetic: {sizes.instances:,} instances, {sizes.synthetic_pairs:,} pairs, 4 features, ARD",
            lambda seed: synthetic_trial(seed, sizes.instances, sizes.synthetic_pairs),
            synthetic,
        ),
    ]:
        print(f"{title} ({args.trials} trials)")
        contenders = {
            name: (lambda X, train, seed, options=options: ordercore_fit(X, train, seed, **options))
            for name, options in configurations.items()
        }
        if not args.no_botorch:
            contenders["BoTorch PairwiseGP"] = botorch_fit
        rows = run(setting, args.trials, contenders, sizes.pause)
        if not args.no_botorch:
            botorch = rows["BoTorch PairwiseGP"]
            for name in configurations:
                ratio = statistics.median(botorch["seconds"]) / statistics.median(rows[name]["seconds"])
                wins = np.mean(np.array(rows[name]["error"]) <= np.array(botorch["error"]))
                print(
                    f"  {name}: BoTorch / ours fit time (medians) {ratio:.1f}x; "
                    f"error <= BoTorch's in {wins:.0%} of trials"
                )
        print()


if __name__ == "__main__":
    main()
