"""The label GP's Laplace fit at seed 002 Table 2's size (300 samples, L labels, Fig. 1(a) graphs) with
its block-diagonal prior kept as one block (``BlockFactor``) against the same fit on the dense prior
I ⊗ K₀ (n·L, n·L), at fixed hyperparameters: median seconds of interleaved repeats, the ratio, and the
largest difference of the log evidence (12).

    python bench/gp_label_bench.py [--labels 3 5 10] [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.gp.covariance import SquaredExponential  # noqa: E402
from ordercore.gp.evidence import blas_threads  # noqa: E402
from ordercore.gp.labels import label_preference_graph  # noqa: E402
from ordercore.gp.laplace import PairData, laplace_fit  # noqa: E402

N_SAMPLES = 300


def problem(n_labels: int) -> tuple[np.ndarray, PairData]:
    """K₀ (300, 300) over digits of the first n_labels classes, and their multiclass label preferences."""
    X, y = load_digits(return_X_y=True)
    rows = np.random.default_rng(0).choice(np.flatnonzero(y < n_labels), N_SAMPLES, replace=False)
    X = StandardScaler().fit_transform(X[rows])
    K = SquaredExponential(np.array([np.sqrt(X.shape[1])]), 1.0)(X, X)
    winner, loser, sample = label_preference_graph(y[rows], n_labels, "multiclass")
    n = N_SAMPLES
    return K, PairData(winner * n + sample, loser * n + sample, np.ones(winner.size), n_labels * n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, nargs="+", default=[3, 5, 10])
    parser.add_argument("--repeats", type=int, default=3)
    args = parse_arguments(parser, labels=[2], repeats=1)
    print("| labels | latent values | dense I⊗K₀ (s) | block (s) | ratio | max |Δ log evidence| |")
    print("|---|---|---|---|---|---|")
    for n_labels in args.labels:
        K, pairs = problem(n_labels)
        prior = np.kron(np.eye(n_labels), K)
        times, evidence = {"dense": [], "block": []}, {"dense": [], "block": []}
        with blas_threads():
            for _ in range(args.repeats):
                for name, (covariance, blocks) in (("dense", (prior, 1)), ("block", (K, n_labels))):
                    start = time.perf_counter()
                    evidence[name].append(laplace_fit(covariance, pairs, 0.5, n_blocks=blocks).log_evidence)
                    times[name].append(time.perf_counter() - start)
        dense, block = np.median(times["dense"]), np.median(times["block"])
        gap = np.max(np.abs(np.subtract(evidence["dense"], evidence["block"])))
        print(f"| {n_labels} | {n_labels * N_SAMPLES} | {dense:.2f} | {block:.2f} | {dense / block:.1f} | {gap:.1e} |")


if __name__ == "__main__":
    main()
