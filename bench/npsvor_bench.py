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

``--datasets`` adds the files of ``python -m ordercore experiments npsvor``: the movie snippets (TF-IDF
fitted on the split's training rows), Abalone and California cut into 5 or 10 quantile ranks
(standardised features), each split drawn by ``npsvor_experiments.trial_split`` for trials 0 …
``--trials``−1 with the seed of its ``docs/results/npsvor_*.json``, written to libsvm files (1-based
indices, 16 significant digits, labels 1 … K).  Both programs fit with the experiments' bias feature
(fit_intercept=True, -B 1), ε = 0.1, ε_s = 0.1, at C = 1 and at the C that the experiment's CV chose
for rule (36) in that trial; ours with the experiment's random_state, so its test MAE at the chosen C
is the JSON's.  Times are medians of ``--repeats`` runs (the same fit each time).  ε_s = 0.1 stops
both programs early, each in its own random order of coordinates: ours' MAE range over random_state
0 … ``--seeds``−1 shows how far that alone moves the answer.  ``--tight 1e-6`` refits both at that
ε_s at C = 1 (ours with up to 100,000 sweeps; theirs keeps its fixed cap of 1,000) and prints the
largest difference of their weights (w and b of every rank).

    ORDERCORE_DATA=../shared/data python bench/npsvor_bench.py [--repeats 5] [--n-jobs -1]
        [--sizes 200000x50000 1000000x1000000]
        [--datasets treebank snippets abalone5 abalone10 california5 california10] [--trials 1] [--quick]

``--quick``: one run per program, synthetic 2,000 x 500, and the authors' code only where it is built
already (``train`` and ``predict`` in ``--reference``): it is never built in quick mode.
"""

from __future__ import annotations

import argparse
import json
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
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore import NPSVOR  # noqa: E402
from ordercore.data.benchmarks import data_directory  # noqa: E402
from ordercore.experiments.npsvor import load_ordinal, ordinal_errors, trial_split  # noqa: E402
from ordercore.npsvor.synthetic import synthetic_ordinal  # noqa: E402

C, EPSILON = 1.0, 0.1
THEIR_BIAS = {False: "-1", True: "1"}
"""fit_intercept -> the authors' -B option."""
THEIR_SIZE_LIMIT = 300_000
"""Rows above which the authors' code is not run (the libsvm file would be several GB)."""
EXPERIMENT_FILES = {
    "snippets": ("snippets", 5, "npsvor_snippets.json"),
    "abalone5": ("abalone", 5, "npsvor_abalone_5.json"),
    "abalone10": ("abalone", 10, "npsvor_abalone_10.json"),
    "california5": ("california", 5, "npsvor_california_5.json"),
    "california10": ("california", 10, "npsvor_california_10.json"),
}
"""--datasets name -> (load_ordinal's name, n_ranks, the experiment's results in docs/results/)."""
RESULTS_DIRECTORY = Path(__file__).resolve().parents[1] / "docs" / "results"
TREEBANK_FILES = ("Treebank.train", "Treebank.test")
"""The authors' Treebank split, in ``$ORDERCORE_DATA/treebank``."""


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


def built_reference(source: Path) -> Path | None:
    """``source`` if the authors' train and predict are built there (the quick mode, which never builds
    them), else None, with a message."""
    if all(os.access(source / program, os.X_OK) for program in ("train", "predict")):
        return source
    print(f"authors' code not built at {source}: skipped (--quick never builds it; a full run does)")
    return None


def run_theirs(
    program: Path, train: Path, test: Path, fit_intercept: bool, extra=(), c: float = C
) -> tuple[float, np.ndarray]:
    """(wall seconds of train, predictions on ``test``: predict writes "true predicted" per line)."""
    model, output = train.with_suffix(".model"), train.with_suffix(".out")
    command = [str(program / "train"), "-s", "9", "-c", repr(c), "-p", str(EPSILON), "-B", THEIR_BIAS[fit_intercept]]
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


def their_weights(model: Path, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """(w (K, n_features), b (K,)) of the authors' model file: the rows after the line "w" hold one
    weight per rank, one row per feature (features beyond the training file's largest index get 0),
    then, when the line "bias B" has B ≥ 0, the bias feature's row, b = B × that row."""
    lines = model.read_text().splitlines()
    bias = float(next(line.split()[1] for line in lines if line.startswith("bias ")))
    rows = np.array([line.split() for line in lines[lines.index("w") + 1 :]], dtype=float)
    w, b = (rows[:-1], bias * rows[-1]) if bias >= 0 else (rows, np.zeros(rows.shape[1]))
    return np.vstack([w, np.zeros((n_features - len(w), w.shape[1]))]).T, b


def compile_seconds(X, y) -> float:
    """The first fit's extra time in this process: numba's compilation or cache load, for X's layout
    and index types (scipy's slicing may narrow int64 indices to int32, which numba compiles apart)."""
    head = X[:50]
    if sp.issparse(X):
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


def compare_experiment(key: str, program, scratch: Path, options) -> None:
    """Ours against theirs on an experiment's splits 0 … ``options.trials``−1, at C = 1 and at the C
    that the experiment's CV chose (its JSON's)."""
    name, n_ranks, file = EXPERIMENT_FILES[key]
    results = json.loads((RESULTS_DIRECTORY / file).read_text())
    data = load_ordinal(name, n_ranks)
    for trial in range(options.trials):
        split = trial_split(data, trial, results["seed"])
        files = scratch / f"{key}_{trial}.train", scratch / f"{key}_{trial}.test"
        for X, ranks, path in ((split[0], split[1], files[0]), (split[2], split[3], files[1])):
            dump_svmlight_file(X, ranks + 1, str(path), zero_based=False)
        compile_seconds(split[0], split[1])
        recorded = next((row["results"]["npsvor_order"] for row in results["trials"] if row["trial"] == trial), None)
        for c in sorted({1.0, recorded["C"]} if recorded else {1.0}):
            label = f"{data.name} trial {trial}, C = {c:g}"
            cv_mae = recorded["mae"] if recorded and c == recorded["C"] else None
            compare_at(label, c, split, files, cv_mae, program, options)


def compare_at(label: str, c: float, split, files, cv_mae, program, options) -> None:
    """Print our test MAE / MSE, median fit seconds and sweeps (and the JSON's MAE ``cv_mae`` when C is
    the CV's), our MAE range over seeds, theirs and the time ratio, and the ``options.tight`` refits."""
    X, ranks, X_test, ranks_test, seed = split
    ours, theirs = [], []
    for _ in range(options.repeats):
        model = NPSVOR(C=c, epsilon=EPSILON, random_state=seed, n_jobs=options.n_jobs)
        start = time.perf_counter()
        model.fit(X, ranks)
        ours.append(time.perf_counter() - start)
        if program is not None:
            seconds, their_labels = run_theirs(program, *files, True, c=c)
            theirs.append(seconds)
    errors = ordinal_errors(ranks_test, model.predict(X_test))
    print(
        f"{label + (' (CV)' if cv_mae is not None else ''):<36} ours: MAE {errors['mae']:.4f}, MSE {errors['mse']:.4f},"
        f" fit {statistics.median(ours):.3f} s, sweeps per rank {model.n_iter_.tolist()}"
        + (f" (JSON: MAE {cv_mae:.4f})" if cv_mae is not None else "")
    )
    if options.seeds > 0:
        spread = [errors] + [
            ordinal_errors(ranks_test, NPSVOR(C=c, epsilon=EPSILON, random_state=s).fit(X, ranks).predict(X_test))
            for s in range(options.seeds)
        ]
        mae = [e["mae"] for e in spread]
        print(f"{'':<36} ours with this and random_state 0-{options.seeds - 1}: MAE {min(mae):.4f}-{max(mae):.4f}")
    if program is None:
        return
    errors = ordinal_errors(ranks_test, their_labels - 1)
    print(
        f"{'':<36} theirs: MAE {errors['mae']:.4f}, MSE {errors['mse']:.4f}, train {statistics.median(theirs):.3f} s;"
        f" time ratio ours/theirs {statistics.median(ours) / statistics.median(theirs):.2f}"
    )
    if options.tight is not None and c == 1.0:
        tight(program, files, split, c, options.tight)


def tight(program, files, split, c: float, epsilon_s: float) -> None:
    """Both programs at the stopping threshold ``epsilon_s``: test MAE, our sweeps, largest |Δw|, |Δb|."""
    X, ranks, X_test, ranks_test, seed = split
    model = NPSVOR(C=c, epsilon=EPSILON, epsilon_s=epsilon_s, max_iter=100_000, random_state=seed).fit(X, ranks)
    _, labels = run_theirs(program, *files, True, ("-e", repr(epsilon_s)), c=c)
    w, b = their_weights(files[0].with_suffix(".model"), X.shape[1])
    ours, theirs = (ordinal_errors(ranks_test, predicted)["mae"] for predicted in (model.predict(X_test), labels - 1))
    print(
        f"{'':<36} both at eps_s = {epsilon_s:g}: MAE ours {ours:.4f},"
        f" theirs {theirs:.4f}; ours' sweeps {model.n_iter_.tolist()}"
        f" (theirs stop at 1000); max |w ours - w theirs| {np.abs(model.coef_ - w).max():.1e},"
        f" max |b ours - b theirs| {np.abs(model.intercept_ - b).max():.1e}"
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


def treebank(data: Path, program, repeats: int, n_jobs: int, scratch: Path) -> None:
    """Both programs on the authors' Treebank files, without and with bias, and mord's models.  The files
    are copied to ``scratch``, where the authors' code writes its model and predictions beside them."""
    train_file, test_file = (Path(shutil.copy(data / "treebank" / name, scratch)) for name in TREEBANK_FILES)
    X, y = load_svmlight_file(str(train_file))
    X_test, y_test = load_svmlight_file(str(test_file), n_features=X.shape[1])
    print(f"numba compilation or cache load (first fit in a process): {compile_seconds(X, y):.2f} s")
    name = "Treebank (C = 1, eps = 0.1)"
    compare(name, X, y, X_test, y_test, train_file, test_file, program, repeats, n_jobs)
    compare_mord(X, y, X_test, y_test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="runs per program on Treebank (default 5)")
    parser.add_argument("--sizes", nargs="*", default=["200000x50000"], help="synthetic rows x features")
    parser.add_argument("--n-jobs", type=int, default=1, help="our ranks solved at once (default 1; -1: all cores)")
    parser.add_argument("--reference", type=Path, default=None, help="the authors' code (default: beside the data)")
    parser.add_argument(
        "--datasets",
        nargs="*",
        default=["treebank"],
        choices=["treebank", *EXPERIMENT_FILES],
        help="Treebank (and mord on it) and/or the experiments' files (default: treebank)",
    )
    parser.add_argument("--trials", type=int, default=1, help="the experiments' splits 0 … trials−1 (default 1)")
    parser.add_argument("--seeds", type=int, default=5, help="our seeds for the MAE range on those (default 5)")
    parser.add_argument("--tight", type=float, default=None, help="refit both at this eps_s at C = 1 (e.g. 1e-6)")
    args = parse_arguments(parser, repeats=1, sizes=["2000x500"])
    data = data_directory()
    if data is None:
        sys.exit("set ORDERCORE_DATA to the data directory (it holds treebank/)")
    print(
        f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores;"
        f" ours with n_jobs={args.n_jobs}"
    )
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        reference = args.reference or data.parent / "reference" / "linearnpsvor"
        program = built_reference(reference) if args.quick else build_reference(reference, scratch)
        if "treebank" in args.datasets:
            treebank(data, program, args.repeats, args.n_jobs, scratch)
        for key in args.datasets:
            if key != "treebank":
                compare_experiment(key, program, scratch, args)
        synthetic(args.sizes, program, scratch, args.n_jobs)
    print(f"load average after:  {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
