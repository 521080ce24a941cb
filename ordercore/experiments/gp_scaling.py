"""Seed 002's scaling study (Chu & Ghahramani, ICML 2005, §4.1, Fig. 2): test error and CPU time of
CC-SVM and of the GP preference model against the number p of training pairs.

The seed used OHSUMED's query 3 (201 documents in 3 relevance levels, unit-length TF-IDF vectors, a
linear kernel): training pairs of documents with different levels, p = 100 … 1000, tested on the
remaining pairs, 20 trials.  OHSUMED is not here; Treebank's sentences stand in, their 5 sentiment
levels as relevance, the seed-004 authors' TF-IDF vectors scaled to unit length.  Each trial draws
``n_instances`` sentences and fixes them while p grows (training pairs are nested prefixes of one random
order of the pairs), so the GP's cost, which depends on the distinct instances and not on p (§2.4),
should stay flat, while CC-SVM's quadratic programme over 2p examples grows with p.

CC-SVM uses the linear kernel and C from 5-fold cross validation on the coarse-then-fine grid
(``cc_svm``).  The GP has the seed's linear kernel with ``gp_kernel="linear"`` (σ by the evidence), or
by default the Gaussian one: on unit vectors |x − x'|² = 2 − 2 x·x', so exp(−(1 − x·x')/ℓ²) is a
monotone function of the linear one (and nearly affine in it once ℓ is large); ℓ and σ come from the
evidence.  Timed as in the seed, in CPU seconds: CC-SVM's quadratic
programme solved once at the chosen C (the solver alone; the whole fit, with the pairwise kernel, is kept
too as 'fit_seconds'); the GP's MAP solve (10) with its evidence (12) once at the chosen hyperparameters.
The seed does not name its QP solver: the timed solve is libsvm's SMO (``cc_svm_solver="libsvm"``) or
HiGHS's general-purpose active-set QP (``"qp"``), the same dual; C's cross validation uses libsvm either
way, so both draw the same trials and choose the same C.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.preprocessing import normalize

from ordercore.data.benchmarks import data_file
from ordercore.experiments.cc_svm import ConstraintClassificationSVM, pair_error, select_by_cross_validation
from ordercore.gp.estimator import GPPreferenceModel
from ordercore.preferences import PreferenceSet

PAIR_COUNTS = (100, 200, 300, 400, 500, 600, 700, 800, 900, 1000)
"""Fig. 2's training sizes, p = 100, …, 1000."""
TREEBANK_FILES = ("treebank/Treebank.train", "treebank/Treebank.test")
PAPER_EXPONENTS = {"cc_svm": 2.2, "gp": "almost independent of p"}
"""§4.1: CC-SVM's cost grows with p with 'scaling exponent about 2.2' (the digits read '22' in our
transcript); the GP's is 'almost independent of the number of training preference pairs'."""


def load_treebank():
    """Treebank's sentences, train and test files together: X (n, n_features) CSR, rows of unit length,
    and their levels (n,)."""
    train, test = (data_file(file, "treebank") for file in TREEBANK_FILES)
    X, levels = load_svmlight_file(str(train))
    X_test, levels_test = load_svmlight_file(str(test), n_features=X.shape[1])
    return normalize(sp.vstack([X, X_test]).tocsr()), np.concatenate([levels, levels_test])


TIMING_REPEATS = 3
"""Each timed fit runs this often and the least CPU time counts (the machine is shared)."""


def _cpu_seconds(fit, *args) -> float:
    """The least CPU seconds of ``TIMING_REPEATS`` calls fit(*args)."""
    seconds = []
    for _ in range(TIMING_REPEATS):
        start = time.process_time()
        fit(*args)
        seconds.append(time.process_time() - start)
    return min(seconds)


GP_KERNELS = ("rbf", "linear")
"""Kernels of Fig. 2's GP: the Gaussian one (the default here), or the seed's linear one."""
GP_KERNEL_NAMES = {"rbf": "Gaussian on unit-length TF-IDF", "linear": "linear on unit-length TF-IDF (the seed's)"}
CC_SVM_SOLVER_NAMES = {"libsvm": "libsvm's SMO (SVC, precomputed kernel)", "qp": "HiGHS's active-set QP, dense Hessian"}
"""The solvers of CC-SVM's timed dual (``ConstraintClassificationSVM(solver=...)``)."""


def trial_points(
    X, levels, pair_counts, n_instances: int, trial: int, seed: int, quick: bool = False, gp_kernel: str = "rbf",
    cc_svm_solver: str = "libsvm",
) -> list:  # fmt: skip
    """One trial: ``n_instances`` sentences, then per p the two models' test error (%) and CPU seconds (the
    GP with ``gp_kernel``, one of ``GP_KERNELS``; CC-SVM's dual solved by ``cc_svm_solver``)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, trial]))
    rows = np.sort(rng.choice(levels.size, n_instances, replace=False))
    X, levels = X[rows], levels[rows]
    X = X[:, np.flatnonzero(X.getnnz(axis=0))].toarray()  # only the words these sentences use
    first, second = np.triu_indices(n_instances, k=1)
    differ = levels[first] != levels[second]
    order = rng.permutation(np.flatnonzero(differ))
    higher = levels[first[order]] > levels[second[order]]
    winner = np.where(higher, first[order], second[order])
    loser = np.where(higher, second[order], first[order])
    points = []
    for p in pair_counts:
        train, test = PreferenceSet(winner[:p], loser[:p]), PreferenceSet(winner[p:], loser[p:])
        chosen = select_by_cross_validation(X, train.i, train.j, rng, kernel="linear", quick=quick, normalize=False)
        svm = ConstraintClassificationSVM(kernel="linear", C=chosen["C"], normalize=False, solver=cc_svm_solver)
        svm_seconds = _cpu_seconds(svm.fit, X, train)
        gp = GPPreferenceModel(kernel=gp_kernel, length_scale_prior=None, normalize=False, method="exact")
        gp.fit(X, train)
        length_scale = float(gp.length_scale_[0]) if gp.length_scale_.size else None
        once = GPPreferenceModel(
            kernel=gp_kernel, length_scale=length_scale, noise=gp.noise_, optimizer=None, normalize=False
        )
        gp_seconds = _cpu_seconds(once.fit, X, train)
        points.append({
            "p": int(p),
            "n_test": len(test),
            "n_distinct_instances": int(gp.instances_.size),
            "cc_svm": {"error": 100 * pair_error(svm.predict(X), test.i, test.j), "seconds": svm.solve_seconds_,
                       "fit_seconds": svm_seconds,
                       "C": chosen["C"], "n_support": svm.n_support_, "solve_attempts": svm.solve_attempts_},
            "gp": {"error": 100 * pair_error(gp.predict(X), test.i, test.j), "seconds": gp_seconds,
                   "length_scale": length_scale, "noise": gp.noise_},
        })  # fmt: skip
    return points


def time_exponent(pair_counts, seconds) -> float:
    """b of the least-squares fit log t = a + b log p."""
    return float(np.polyfit(np.log(pair_counts), np.log(seconds), 1)[0])


def gp_figure2(pair_counts=PAIR_COUNTS, n_instances: int = 100, trials: int = 20, seed: int = 0, jobs: int = 1,
               quick: bool = False, progress=None, gp_kernel: str = "rbf",
               cc_svm_solver: str = "libsvm") -> dict:  # fmt: skip
    """Fig. 2's protocol over ``trials`` trials: per p the mean ± sd error (%) and median CPU seconds of
    each model, and each model's exponent of time against p; the GP with ``gp_kernel`` ('rbf', or the
    seed's 'linear'), CC-SVM's timed dual by ``cc_svm_solver`` ('libsvm', or HiGHS's QP 'qp')."""
    if gp_kernel not in GP_KERNELS:
        raise ValueError(f"gp_kernel must be one of {GP_KERNELS}, got {gp_kernel!r}")
    if cc_svm_solver not in CC_SVM_SOLVER_NAMES:
        raise ValueError(f"cc_svm_solver must be one of {tuple(CC_SVM_SOLVER_NAMES)}, got {cc_svm_solver!r}")
    from joblib import Parallel, delayed

    from ordercore.experiments.parallel import workers

    X, levels = load_treebank()
    pair_counts = sorted(pair_counts)
    trials_points = []
    for points in Parallel(n_jobs=workers(jobs, trials), return_as="generator")(
        delayed(trial_points)(X, levels, pair_counts, n_instances, t, seed, quick, gp_kernel, cc_svm_solver)
        for t in range(trials)
    ):
        trials_points.append(points)
        if progress is not None:
            progress(len(trials_points), trials)
    summary = []
    for index, p in enumerate(pair_counts):
        at_p = [points[index] for points in trials_points]
        row = {"p": p, "n_distinct_instances_mean": float(np.mean([a["n_distinct_instances"] for a in at_p]))}
        for model in ("cc_svm", "gp"):
            errors = [a[model]["error"] for a in at_p]
            row[model] = {
                "error_mean": float(np.mean(errors)),
                "error_sd": float(np.std(errors, ddof=1)) if trials > 1 else 0.0,
                "seconds_median": float(np.median([a[model]["seconds"] for a in at_p])),
            }
        row["cc_svm"]["fit_seconds_median"] = float(np.median([a["cc_svm"]["fit_seconds"] for a in at_p]))
        summary.append(row)
    exponents = {
        model: time_exponent(pair_counts, [row[model]["seconds_median"] for row in summary])
        for model in ("cc_svm", "gp")
    }
    exponents["cc_svm_whole_fit"] = time_exponent(pair_counts, [row["cc_svm"]["fit_seconds_median"] for row in summary])
    return {
        "experiment": "gp-figure2",
        "dataset": "treebank",
        "protocol": {
            "pair_counts": pair_counts,
            "n_instances": n_instances,
            "quick": quick,
            "kernels": {"cc_svm": "linear", "gp": GP_KERNEL_NAMES[gp_kernel]},
            "cc_svm_solver": cc_svm_solver,
            "cc_svm_solver_name": CC_SVM_SOLVER_NAMES[cc_svm_solver],
            "timing": "CPU seconds (time.process_time): CC-SVM's QP solve, the GP's MAP and evidence once",
        },  # fmt: skip
        "seed": seed,
        "trials": trials_points,
        "summary": summary,
        "time_exponents": exponents,
        "paper": {"time_exponents": PAPER_EXPONENTS, "data": "OHSUMED query 3, 201 documents, 3 levels"},
    }


def figure2_report(result: dict) -> str:
    """A Markdown table of error (%) and median CPU seconds per p, and the two exponents."""
    lines = [
        "| p | instances | CC-SVM error (%) | GP error (%) | CC-SVM s | GP s |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["summary"]:
        svm, gp = row["cc_svm"], row["gp"]
        lines.append(
            f"| {row['p']} | {row['n_distinct_instances_mean']:.0f} | {svm['error_mean']:.2f} ± {svm['error_sd']:.2f} "
            f"| {gp['error_mean']:.2f} ± {gp['error_sd']:.2f} | {svm['seconds_median']:.4f} "
            f"| {gp['seconds_median']:.4f} |"
        )
    exponents, solver = result["time_exponents"], result["protocol"].get("cc_svm_solver", "libsvm")
    lines.append(
        f"\ntime exponents (log-log fit of median CPU seconds on p): CC-SVM ({solver}) {exponents['cc_svm']:.2f}, "
        f"GP {exponents['gp']:.2f} (CC-SVM's whole fit, with its pairwise kernel: {exponents['cc_svm_whole_fit']:.2f})"
    )
    return "\n".join(lines)


def scaling_figure(result: dict):
    """Fig. 2 as a plotly figure: left, test error (mean ± sd) against p; right, median CPU seconds
    against p, log-log.  (plotly is the app extra's: imported here, not with the experiment.)"""
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=2, subplot_titles=("test error (%)", "CPU seconds"))
    p = [row["p"] for row in result["summary"]]
    svm_label = {"libsvm": "CC-SVM", "qp": "CC-SVM (HiGHS QP)"}[result["protocol"].get("cc_svm_solver", "libsvm")]
    for model, label, colour in (("cc_svm", svm_label, "#D55E00"), ("gp", "GP", "#0072B2")):
        rows = [row[model] for row in result["summary"]]
        error_bars = dict(type="data", array=[r["error_sd"] for r in rows], visible=True)
        style = dict(name=label, legendgroup=model, line=dict(color=colour))
        figure.add_scatter(x=p, y=[r["error_mean"] for r in rows], error_y=error_bars, **style, row=1, col=1)
        figure.add_scatter(x=p, y=[r["seconds_median"] for r in rows], showlegend=False, **style, row=1, col=2)
    figure.update_xaxes(title_text="training pairs p")
    figure.update_xaxes(type="log", row=1, col=2)
    figure.update_yaxes(type="log", row=1, col=2)
    figure.update_layout(title="Treebank: error and CPU time against the training pairs (seed 002 Fig. 2)")
    return figure
