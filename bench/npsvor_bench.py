"""NPSVOR against the seed-004 authors' C++ code (a LIBLINEAR fork, solver -s 9) on Treebank and on
synthetic sparse data (issue 18): test MAE, accuracy, training time (medians over ``--repeats`` runs,
alternating the two programs so both see the same machine load) and the ratio; peak memory of ours.

The authors' code is copied from ``$ORDERCORE_DATA/../reference/linearnpsvor`` (or ``--reference``)
into a temporary directory and built there with make and g++ (skipped, with a message, when either is
missing).  Their time is the wall time of ``train`` (reading the libsvm file included; a run with
``-e 1e30``, one sweep per rank, shows how much of it is reading).  Ours is ``NPSVOR.fit`` on arrays
already in memory; numba's one-time compilation (or cache load) is the first fit's extra time,
reported apart.  C = 1, ε = 0.1 and ε_s = 0.1 for both; "no bias" is their default (-B −1) against
fit_intercept=False, "bias" their -B 1 against fit_intercept=True.  Ours solves ``--n-jobs`` ranks at
once (default 1, as the authors' code, which solves them one after another; -1: all cores); the fit
is the same for any number.  When ``mord`` is installed (bench only, not a dependency: ``pip install
mord``), its all-threshold and immediate-threshold ordinal logistic models (mord's defaults, α = 1) are
fitted on Treebank once each as a further baseline.

    ORDERCORE_DATA=../shared/data python bench/npsvor_bench.py [--repeats 5] [--n-jobs -1]
        [--sizes 200000x50000 1000000x1000000]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ordercore import NPSVOR  # noqa: E402
from ordercore.datasets import data_directory  # noqa: E402
from ordercore.npsvor.synthetic import synthetic_ordinal  # noqa: E402

C, EPSILON = 1.0, 0.1
THEIR_BIAS = {False: "-1", True: "1"}
"""fit_intercept -> the authors' -B option."""
THEIR_SIZE_LIMIT = 300_000
"""Rows above which the authors' code is not run (the libsvm file would be several GB)."""


def build_reference(source: Path, scratch: Path) -> Path | None:
    """Build the authors' code in ``scratch``; the directory holding train and predict, or None."""
    if not source.is_dir():
        print(f"authors' code not found at {source}: skipped")
        return None
    if shutil.which("g++") is None or shutil.which("make") is None:
        print("g++ or make missing (apt-get install -y g++ make): the authors' code is skipped")
        return None
    target = scratch / "linearnpsvor"
    shutil.copytree(source, target)
    subprocess.run(["make", "-C", str(target)], check=True, capture_output=True)
    return target


def run_theirs(program: Path, train: Path, test: Path, fit_intercept: bool, extra=()) -> tuple[float, np.ndarray]:
    """(wall seconds of train, predictions on ``test``: predict writes "true predicted" per line)."""
    model, output = train.with_suffix(".model"), train.with_suffix(".out")
    command = [str(program / "train"), "-s", "9", "-c", str(C), "-p", str(EPSILON), "-B", THEIR_BIAS[fit_intercept]]
    start = time.perf_counter()
    subprocess.run([*command, *extra, "-q", str(train), str(model)], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    subprocess.run([str(program / "predict"), str(test), str(model), str(output)], check=True, capture_output=True)
    return seconds, np.loadtxt(output, ndmin=2)[:, 1]


def run_ours(X, y, X_test, fit_intercept: bool, seed: int, n_jobs: int) -> tuple[float, np.ndarray]:
    """(seconds of NPSVOR.fit, predictions on X_test)."""
    model = NPSVOR(C=C, epsilon=EPSILON, fit_intercept=fit_intercept, random_state=seed, n_jobs=n_jobs)
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start, model.predict(X_test)


def compile_seconds(X, y) -> float:
    """The first fit's extra time in this process: numba's compilation or cache load, for X's index
    types (scipy's slicing may narrow int64 indices to int32, which numba compiles apart)."""
    head = X[:50]
    head.indices, head.indptr = head.indices.astype(X.indices.dtype), head.indptr.astype(X.indptr.dtype)
    start = time.perf_counter()
    NPSVOR(max_iter=1).fit(head, y[:50])
    return time.perf_counter() - start


def compare(name, X, y, X_test, y_test, train_file, test_file, program, repeats, n_jobs) -> None:
    """Print MAE, accuracy and median training times of both programs for both bias settings."""
    for fit_intercept in (False, True):
        ours, theirs, our_mae, our_accuracy = [], [], [], []
        their_mae = their_accuracy = None
        for seed in range(repeats):
            seconds, predicted = run_ours(X, y, X_test, fit_intercept, seed, n_jobs)
            ours.append(seconds)
            our_mae.append(np.abs(predicted - y_test).mean())
            our_accuracy.append((predicted == y_test).mean())
            if program is not None:
                seconds, predicted = run_theirs(program, train_file, test_file, fit_intercept)
                theirs.append(seconds)
                their_mae, their_accuracy = np.abs(predicted - y_test).mean(), (predicted == y_test).mean()
        label = f"{name}, {'bias' if fit_intercept else 'no bias'}"
        print(
            f"{label:<28} ours: MAE {statistics.median(our_mae):.4f} (range {min(our_mae):.4f}-{max(our_mae):.4f}),"
            f" accuracy {statistics.median(our_accuracy):.4f}, fit {statistics.median(ours):.3f} s"
        )
        if program is not None:
            reading, _ = run_theirs(program, train_file, test_file, fit_intercept, ("-e", "1e30"))
            ratio = statistics.median(ours) / statistics.median(theirs)
            print(
                f"{'':<28} theirs: MAE {their_mae:.4f}, accuracy {their_accuracy:.4f},"
                f" train {statistics.median(theirs):.3f} s"
                f" (reading + one sweep per rank {reading:.3f} s); time ratio ours/theirs {ratio:.2f}"
            )


def compare_mord(X, y, X_test, y_test) -> None:
    """MAE, accuracy and fit time of mord's LogisticAT and LogisticIT on Treebank, if mord is installed."""
    try:
        import mord
    except ImportError:
        print("mord not installed (pip install mord): its ordinal logistic models are skipped")
        return
    for model in (mord.LogisticAT(), mord.LogisticIT()):
        start = time.perf_counter()
        model.fit(X, y.astype(int))
        seconds = time.perf_counter() - start
        predicted = model.predict(X_test)
        print(
            f"Treebank, mord {type(model).__name__} (alpha = 1): MAE {np.abs(predicted - y_test).mean():.4f},"
            f" accuracy {(predicted == y_test).mean():.4f}, fit {seconds:.3f} s"
        )


def measure_synthetic(n: int, d: int, n_jobs: int, queue) -> None:
    """Our fit on synthetic_ordinal(n, d) in a fresh process: (seconds, CPU seconds of all threads,
    peak GB, train MAE, X's GB, sweeps per rank).  CPU over wall time shows how much of the n_jobs
    cores the fit got on a shared machine."""
    X, y = synthetic_ordinal(n, d, random_state=0)
    compile_seconds(X, y)
    model = NPSVOR(C=C, epsilon=EPSILON, random_state=0, n_jobs=n_jobs)
    start, cpu_start = time.perf_counter(), time.process_time()
    model.fit(X, y)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # ru_maxrss is in KiB on Linux
    size_gb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 1e9
    mae = float(np.abs(model.predict(X) - y).mean())
    queue.put((seconds, cpu_seconds, peak_gb, mae, size_gb, model.n_iter_.tolist()))


def synthetic(sizes, program, scratch: Path, n_jobs: int) -> None:
    """Time and peak memory of ours per size; the authors' time where the file stays small enough."""
    context = multiprocessing.get_context("spawn")
    for size in sizes:
        n, d = (int(v) for v in size.lower().split("x"))
        queue = context.Queue()
        process = context.Process(target=measure_synthetic, args=(n, d, n_jobs, queue))
        process.start()
        seconds, cpu_seconds, peak_gb, mae, size_gb, sweeps = queue.get()
        process.join()
        line = (
            f"synthetic {n:,} x {d:,}: ours fit {seconds:.2f} s (CPU {cpu_seconds:.2f} s), peak {peak_gb:.2f} GB"
            f" (X itself {size_gb:.2f} GB), sweeps per rank {sweeps}"
        )
        if program is not None and n <= THEIR_SIZE_LIMIT:
            X, y = synthetic_ordinal(n, d, random_state=0)
            train_file = scratch / f"synthetic_{n}_{d}.libsvm"
            dump_svmlight_file(X, y, str(train_file), zero_based=False)
            del X
            their_seconds, predicted = run_theirs(program, train_file, train_file, True)
            reading, _ = run_theirs(program, train_file, train_file, True, ("-e", "1e30"))
            their_mae = np.abs(predicted - y).mean()
            line += (
                f"; theirs train {their_seconds:.2f} s (reading + one sweep per rank {reading:.2f} s),"
                f" ratio {seconds / their_seconds:.2f}; train MAE ours {mae:.4f}, theirs {their_mae:.4f}"
            )
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="runs per program on Treebank (default 5)")
    parser.add_argument("--sizes", nargs="*", default=["200000x50000"], help="synthetic rows x features")
    parser.add_argument("--n-jobs", type=int, default=1, help="our ranks solved at once (default 1; -1: all cores)")
    parser.add_argument("--reference", type=Path, default=None, help="the authors' code (default: beside the data)")
    args = parser.parse_args()
    data = data_directory()
    if data is None:
        sys.exit("set ORDERCORE_DATA to the data directory (it holds treebank/)")
    print(
        f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores;"
        f" ours with n_jobs={args.n_jobs}"
    )
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        program = build_reference(args.reference or data.parent / "reference" / "linearnpsvor", scratch)
        train_file, test_file = data / "treebank" / "Treebank.train", data / "treebank" / "Treebank.test"
        X, y = load_svmlight_file(str(train_file))
        X_test, y_test = load_svmlight_file(str(test_file), n_features=X.shape[1])
        print(f"numba compilation or cache load (first fit in a process): {compile_seconds(X, y):.2f} s")
        compare(
            "Treebank (C = 1, eps = 0.1)",
            X,
            y,
            X_test,
            y_test,
            train_file,
            test_file,
            program,
            args.repeats,
            args.n_jobs,
        )
        compare_mord(X, y, X_test, y_test)
        synthetic(args.sizes, program, scratch, args.n_jobs)
    print(f"load average after:  {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
