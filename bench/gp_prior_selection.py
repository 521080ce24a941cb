"""How ``GPPreferenceModel``'s default length-scale prior was chosen (docs/GP.md, "The default prior").

Development trials only, on seeds that ``gp_bench.py`` (seeds 0-4) never uses:

- **Boston**: the bench's protocol (700 training pairs over the 506 rows, 20,000 test pairs), seeds
  100-119;
- **Abalone** and **California**: 500 random rows per trial, 700 training pairs and 20,000 test pairs
  among them, seeds 100-109.

For each candidate Gamma(2.4, rate) prior on the ARD length scales (in standard deviations of the
features), and for the seed's plain evidence with either kernel, it prints the mean test-pair error;
with ``--botorch`` also the mean difference from BoTorch's ``PairwiseGP`` on the same pairs, with its
standard error, and in how many trials ours was at least as good.  About 5 minutes, 15 with BoTorch:

    ORDERCORE_DATA=../shared/data python bench/gp_prior_selection.py [--botorch] [--rates 1.08 2.16]
        [--trials N] [--pairs 700] [--quick]   (--quick: one rate, one trial per data set, 200 pairs)
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gp_bench import boston_trial, botorch_fit, error_rate, ordercore_fit, random_pairs  # noqa: E402

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.data.benchmarks import load_dataset  # noqa: E402

SHAPE = 2.4
"""Shape of every candidate Gamma prior (BoTorch's, whose default rate on [0, 1] inputs is 2.7)."""


def sample_trial(name: str, n_pairs: int = 700):
    """A trial on 500 random rows of a larger data set, as ``boston_trial`` does on Boston's 506."""
    data = load_dataset(name)

    def trial(seed: int):
        rng = np.random.default_rng(seed)
        rows = rng.choice(len(data.y), size=500, replace=False)
        X, y = data.X[rows], data.y[rows]
        return X, random_pairs(y, n_pairs, rng), X, random_pairs(y, 20_000, rng)

    return trial


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[1.08, 1.62, 2.16, 4.32])
    parser.add_argument("--botorch", action="store_true", help="also BoTorch's PairwiseGP on the same pairs")
    parser.add_argument("--trials", type=int, default=None, help="trials per data set (default 20 on Boston, else 10)")
    parser.add_argument("--pairs", type=int, default=700, help="training pairs per trial (default 700)")
    args = parse_arguments(parser, argv, rates=[2.16], trials=1, pairs=200)

    configurations = {f"ard, Gamma({SHAPE}, {rate})": {"length_scale_prior": (SHAPE, rate)} for rate in args.rates}
    configurations["ard, plain evidence"] = {"length_scale_prior": None}
    configurations["rbf, plain evidence"] = {"kernel": "rbf", "length_scale_prior": None}
    settings = [
        ("boston", lambda seed: boston_trial(seed, args.pairs), range(100, 100 + (args.trials or 20))),
        ("abalone", sample_trial("abalone", args.pairs), range(100, 100 + (args.trials or 10))),
        ("california", sample_trial("california", args.pairs), range(100, 100 + (args.trials or 10))),
    ]
    for name, trial, seeds in settings:
        errors = {configuration: [] for configuration in configurations}
        reference = []
        for seed in seeds:
            X, train, X_test, test = trial(seed)
            for configuration, options in configurations.items():
                _, predict = ordercore_fit(X, train, seed, **options)
                errors[configuration].append(100 * error_rate(predict, X_test, test))
            if args.botorch:
                _, predict = botorch_fit(X, train, seed)
                reference.append(100 * error_rate(predict, X_test, test))
        print(f"{name} ({len(seeds)} development trials, seeds {seeds.start}-{seeds.stop - 1})")
        if args.botorch:
            print(f"  {'BoTorch PairwiseGP':<24} error {statistics.mean(reference):.3f}%")
        for configuration, values in errors.items():
            line = f"  {configuration:<24} error {statistics.mean(values):.3f}%"
            if args.botorch:
                difference = np.array(values) - np.array(reference)
                line += (
                    f"   vs BoTorch {difference.mean():+.3f} ± {difference.std(ddof=1) / np.sqrt(difference.size):.3f}"
                    f" (at least as good in {np.sum(difference <= 0)}/{difference.size})"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
