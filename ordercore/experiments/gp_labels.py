"""Seed 002's label-preference experiments (Chu & Ghahramani, *Preference Learning with Gaussian
Processes*, ICML 2005, §4.2–4.3): the GP of §3 (``GPLabelPreferenceModel``) against the SVMs of
``label_svms``.

- **Table 2**: multiclass classification through label preferences (Fig. 1(a)), 300 training and 500
  test rows per partition; label error and preference error of the GP, the pairwise-coupling SVM (PW)
  and CC-SVM, all with the Gaussian kernel.  The seed's five sets (Wu et al. 2004's) are not here;
  ``TABLE2_DATASETS`` says what stands in for them.
- **Figure 3**: label ranking in the expected-utility setting (Fürnkranz & Hüllermeier 2003): 10 world
  states, probability vectors p uniform on the simplex as the features, a utility matrix U (labels ×
  states) uniform on [0, 1], labels ranked by expected utility U p; 50 training samples each with the
  chain of its ranking (L − 1 preferences), 2–10 labels; test preference error over all label pairs and
  Spearman's correlation on 500 test samples.  CC-SVM uses the linear kernel, as the seed; the GP has
  the Gaussian kernel with evidence-chosen width by default, or the seed's linear kernel
  (``gp_kernel="linear"``: σ_k² p·p' on the raw probability vectors, as CC-SVM sees them).

Every trial draws from its own ``SeedSequence([seed, trial])`` (Figure 3: ``[seed, L, trial]``).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy.stats import ranksums
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler

from ordercore.data.benchmarks import DATA_ENVIRONMENT_VARIABLE, data_directory, load_dataset
from ordercore.experiments.label_svms import (
    COARSE_POINTS,
    FINE_POINTS,
    ConstraintClassificationSVM,
    coarse_to_fine,
    folds,
    label_error,
    pairwise_coupling_probabilities,
    pairwise_coupling_svm,
    preference_error,
    ranking_errors,
)
from ordercore.experiments.npsvor import quantile_ranks
from ordercore.gp.labels import GPLabelPreferenceModel

N_TRAIN, N_TEST = 300, 500
SIGNIFICANCE = 0.01
"""The seed's p-value threshold of Wilcoxon's rank-sum test."""

TABLE2_DATASETS = {
    "waveform": "Breiman et al. (1984)'s waveform generator, 3 classes, 21 features (one of the seed's five)",
    "waveform-noise": "the same with 19 pure-noise features (UCI's waveform+noise), 3 classes, 40 features",
    "abalone-sex": "ORDERCORE_DATA abalone.csv: Gender (M / F / I) from the 8 other columns, 3 classes",
    "california-5": "California housing, the value cut into 5 quantile classes, 8 features",
    "digits": "scikit-learn's 8 × 8 handwritten digits, 10 classes, 64 features (stands in for USPS)",
}
PAPER_TABLE2 = {
    "waveform": {"pw_label": 16.23, "cc_svm_label": 16.76},
    "satimage": {"pw_label": 14.23, "cc_svm_label": 15.21, "fragment": "4.84"},
}
"""Seed 002 Table 2 as far as the transcript reads: the Waveform and Satimage rows' first two label
error rates (%); the GP's columns, and the other rows' names, are lost."""

MODELS = ("gp", "pw_svm", "cc_svm")
FIGURE3_STATES, FIGURE3_TRAIN, FIGURE3_TEST = 10, 50, 500
FIGURE3_LABELS = tuple(range(2, 11))


# ------------------------------------------------------------------------------------------------ data
def waveform(n: int, rng, noise_features: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's waveform data: class c mixes two of three triangular waves h (21 points) with u ~ U(0, 1),
    x = u h_a + (1 − u) h_b + N(0, 1) noise; then ``noise_features`` N(0, 1) columns.  (n, 21 + noise), (n,)."""
    h1 = np.maximum(6.0 - np.abs(np.arange(1, 22) - 11.0), 0.0)
    waves = np.stack([h1, np.roll(h1, 4), np.roll(h1, -4)])
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    y = rng.integers(3, size=n)
    u = rng.uniform(size=(n, 1))
    X = u * waves[pairs[y, 0]] + (1 - u) * waves[pairs[y, 1]] + rng.normal(size=(n, 21))
    return np.hstack([X, rng.normal(size=(n, noise_features))]), y


def table2_rows(name: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """n rows (X, y) of a ``TABLE2_DATASETS`` set, drawn with rng."""
    if name.startswith("waveform"):
        return waveform(n, rng, 19 if name == "waveform-noise" else 0)
    if name == "digits":
        X, y = load_digits(return_X_y=True)
    elif name == "abalone-sex":
        directory = data_directory()
        if directory is None:
            raise FileNotFoundError(f"set {DATA_ENVIRONMENT_VARIABLE} to the directory holding abalone.csv")
        frame = pd.read_csv(directory / "abalone.csv")
        X, y = frame.drop(columns="Gender").to_numpy(float), frame["Gender"].to_numpy()
    elif name == "california-5":
        data = load_dataset("california")
        X, y = data.X, quantile_ranks(data.y, 5)[0]
    else:
        raise ValueError(f"unknown Table 2 data set {name!r}; choose one of {list(TABLE2_DATASETS)}")
    rows = rng.choice(len(y), n, replace=False)
    return X[rows], y[rows]


# ---------------------------------------------------------------------------------------------- models
GP_STARTS = ((1.0, 1.0), (0.1, 1.0))
"""Starts (noise σ, length scale in units of √d) of the GP's evidence searches; the fit of higher evidence
is kept.  From (1, √d) alone the search can end at σ ≈ 5 with evidence ≈ −p ln 2, every preference at
probability ½, where a better optimum exists (Figure 3, 5 labels, trial 1: −138.2, against −114.6 from
σ = 0.1).  Sometimes that flat fit is the evidence's true maximum (Figure 3, 10 labels, trial 6: −311.2,
against −320.5 at the informative optimum, ℓ = 37, σ = 0.006, found from (0.1, 10√d)), and no start
helps: the Gaussian kernel's Occam factor for 10 latent functions outweighs the fit."""


GP_KERNELS = ("rbf", "linear")
"""Kernels of Figure 3's GP: the Gaussian one (the default here), or the seed's linear one."""


def gp_scores(X, y, X_test, graph: str, seed: int, kernel: str = "rbf") -> tuple[np.ndarray, dict]:
    """The label GP's predictive means (n_test, L) and its evidence-chosen hyperparameters (the best of
    the searches from ``GP_STARTS``).  kernel : 'rbf' on standardised features, or 'linear' on the
    features as given (``normalize=False``: centring would take away each label's constant, which
    f_a(p) = w_a·p carries through Σ p = 1 on probability vectors)."""
    linear = kernel == "linear"
    fits = [
        GPLabelPreferenceModel(
            graph=graph, kernel=kernel, method="exact", noise=noise, length_scale=scale * np.sqrt(X.shape[1]),
            normalize=not linear, random_state=seed,
        )
        for noise, scale in GP_STARTS
    ]  # fmt: skip
    model = max((fit.fit(X, y) for fit in fits), key=lambda fit: fit.log_evidence_)
    scores = model.decision_function(X_test)
    if scores.ndim == 1:  # two labels: f_1 − f_0
        scores = np.column_stack([np.zeros_like(scores), scores])
    length_scale = None if linear else float(model.length_scale_[0])
    chosen = {"length_scale": length_scale, "noise": model.noise_, "evidence": model.log_evidence_}
    return scores, chosen


def _kernels(X: np.ndarray):
    """log₁₀ κ ↦ k(X, X) = exp(−κ/2 |x − x'|²), computed once per κ."""
    cache = {}

    def k(log_kappa: float) -> np.ndarray:
        if log_kappa not in cache:
            cache[log_kappa] = rbf_kernel(X, X, gamma=10.0**log_kappa / 2)
        return cache[log_kappa]

    return k


def cc_svm_table2(X, y, X_test, seed: int, grid) -> tuple[np.ndarray, dict]:
    """CC-SVM's label scores (n_test, L) at (C, κ) of least 5-fold CV label error."""
    kernel, splits = _kernels(np.vstack([X, X_test])), folds(len(y), seed, y)
    n = len(y)

    def cv_error(point):
        log_c, log_kappa = point
        model, k = ConstraintClassificationSVM(C=10.0**log_c), kernel(log_kappa)
        return np.mean([label_error(y[v], model.fit(X[t], y[t], k[np.ix_(t, t)]).predict(None, k[np.ix_(v, t)]))
                        for t, v in splits])  # fmt: skip

    best, tried = coarse_to_fine(cv_error, (0.0, np.log10(1.0 / X.shape[1])), *grid)
    k = kernel(best[1])
    model = ConstraintClassificationSVM(C=10.0 ** best[0]).fit(X, y, k[:n, :n])
    return model.decision_function(None, k[n:, :n]), {"log10_C": best[0], "log10_kappa": best[1], "grid": len(tried)}


def pw_svm_table2(X, y, X_test, seed: int, grid) -> tuple[np.ndarray, dict]:
    """The pairwise-coupling SVM's class probabilities (n_test, L) at (C, κ) of least 5-fold CV label error
    (the search fits without probabilities, predicting by one-vs-one votes)."""
    splits = folds(len(y), seed, y)

    def cv_error(point):
        svm = pairwise_coupling_svm(10.0 ** point[0], 10.0 ** point[1] / 2)
        return np.mean([label_error(y[v], svm.fit(X[t], y[t]).predict(X[v])) for t, v in splits])

    best, tried = coarse_to_fine(cv_error, (0.0, np.log10(1.0 / X.shape[1])), *grid)
    probabilities = pairwise_coupling_probabilities(X, y, X_test, 10.0 ** best[0], 10.0 ** best[1] / 2, seed)
    return probabilities, {"log10_C": best[0], "log10_kappa": best[1], "grid": len(tried)}


def cc_svm_ranking(X, rankings, utilities, X_test, seed: int, grid) -> np.ndarray:
    """Linear CC-SVM's label scores (n_test, L) at the C of least 5-fold CV preference error."""
    splits = folds(len(X), seed)

    def cv_error(point):
        model = ConstraintClassificationSVM(C=10.0 ** point[0], kernel="linear", graph="ranking")
        return np.mean([ranking_errors(model.fit(X[t], rankings[t]).decision_function(X[v]), utilities[v])[0]
                        for t, v in splits])  # fmt: skip

    best, _ = coarse_to_fine(cv_error, (0.0,), *grid)
    model = ConstraintClassificationSVM(C=10.0 ** best[0], kernel="linear", graph="ranking").fit(X, rankings)
    return model.decision_function(X_test), best[0]


# ---------------------------------------------------------------------------------------------- trials
def table2_trial(name: str, trial: int, seed: int, grid=(COARSE_POINTS, FINE_POINTS), sizes=(N_TRAIN, N_TEST)) -> dict:
    """One partition into sizes = (training, test) rows: each model's label and preference error (test),
    its chosen parameters and seconds."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, trial]))
    X_all, y_all = table2_rows(name, sum(sizes), rng)
    classes, index = np.unique(y_all, return_inverse=True)
    train, test = np.arange(sizes[0]), np.arange(sizes[0], sum(sizes))
    scaler = StandardScaler().fit(X_all[train])
    X, X_test = scaler.transform(X_all[train]), scaler.transform(X_all[test])
    model_seed = int(rng.integers(2**31 - 1))
    results = {}
    for model, run in (
        ("gp", lambda: gp_scores(X, index[train], X_test, "multiclass", model_seed)),
        ("pw_svm", lambda: pw_svm_table2(X, index[train], X_test, model_seed, grid)),
        ("cc_svm", lambda: cc_svm_table2(X, index[train], X_test, model_seed, grid)),
    ):
        start = time.perf_counter()
        scores, chosen = run()
        results[model] = {
            "label_error": label_error(index[test], np.argmax(scores, axis=1)),
            "preference_error": preference_error(scores, index[test]),
            "seconds": time.perf_counter() - start,
            **chosen,
        }
    return {"trial": trial, "n_classes": int(classes.size), "n_features": int(X.shape[1]), "results": results}


def figure3_trial(
    n_labels: int, trial: int, seed: int, grid=(COARSE_POINTS, FINE_POINTS), gp_kernel: str = "rbf"
) -> dict:
    """One draw of the expected-utility task with n_labels actions: each model's test preference error
    and mean Spearman correlation (the GP with ``gp_kernel``, one of ``GP_KERNELS``)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, n_labels, trial]))
    utility = rng.uniform(size=(n_labels, FIGURE3_STATES))
    P = rng.dirichlet(np.ones(FIGURE3_STATES), size=FIGURE3_TRAIN + FIGURE3_TEST)
    utilities = P @ utility.T
    rankings = np.argsort(-utilities, axis=1, kind="stable")
    train, test = slice(0, FIGURE3_TRAIN), slice(FIGURE3_TRAIN, None)
    model_seed = int(rng.integers(2**31 - 1))
    gp, chosen = gp_scores(P[train], rankings[train], P[test], "ranking", model_seed, gp_kernel)
    cc, log_c = cc_svm_ranking(P[train], rankings[train], utilities[train], P[test], model_seed, grid)
    results = {}
    for model, scores in (("gp", gp), ("cc_svm", cc)):
        error, spearman = ranking_errors(scores, utilities[test])
        results[model] = {"preference_error": error, "spearman": spearman}
    results["gp"].update(chosen)
    results["cc_svm"]["log10_C"] = log_c
    return {"n_labels": n_labels, "trial": trial, "results": results}


# --------------------------------------------------------------------------------------------- summary
def compare(rows: list[dict], measure: str, models=MODELS) -> dict:
    """Mean and std of ``measure`` per model over rows' results, and Wilcoxon's rank-sum p of each
    other model against the GP (significant: p < ``SIGNIFICANCE``)."""
    values = {m: np.array([row["results"][m][measure] for row in rows]) for m in models if m in rows[0]["results"]}
    summary = {}
    for m, v in values.items():
        summary[m] = {"mean": float(v.mean()), "std": float(v.std(ddof=1)) if v.size > 1 else 0.0}
        if m != "gp":
            p = float(ranksums(v, values["gp"]).pvalue) if v.size > 1 else 1.0
            summary[m].update(p_vs_gp=p, significant=p < SIGNIFICANCE)
    return summary


def _run(trial_function, tasks: list[tuple], jobs: int, progress) -> list[dict]:
    """trial_function(*task) for every task, ``jobs`` at a time, calling progress(done, total)."""
    from joblib import Parallel, delayed

    from ordercore.experiments.parallel import workers

    rows = []
    for row in Parallel(n_jobs=workers(jobs, len(tasks)), return_as="generator")(
        delayed(trial_function)(*task) for task in tasks
    ):
        rows.append(row)
        if progress is not None:
            progress(len(rows), len(tasks))
    return rows


def table2_experiment(
    datasets, trials: int, seed: int = 0, jobs: int = 1, grid=None, sizes=(N_TRAIN, N_TEST), progress=None
) -> dict:
    """Table 2's protocol on each data set over ``trials`` partitions: per-trial results and summary."""
    grid = (COARSE_POINTS, FINE_POINTS) if grid is None else grid
    tasks = [(name, trial, seed, grid, sizes) for name in datasets for trial in range(trials)]
    rows = _run(table2_trial, tasks, jobs, progress)
    per_set = {}
    for name in datasets:
        found = [row for row, task in zip(rows, tasks, strict=True) if task[0] == name]
        per_set[name] = {
            "source": TABLE2_DATASETS[name],
            "n_classes": found[0]["n_classes"],
            "n_features": found[0]["n_features"],
            "label_error": compare(found, "label_error"),
            "preference_error": compare(found, "preference_error"),
            "seconds_median": {m: float(np.median([r["results"][m]["seconds"] for r in found])) for m in MODELS},
            "trials": found,
            "paper": PAPER_TABLE2.get(name),
        }
    return {
        "experiment": "gp-table2",
        "protocol": _protocol(grid, n_train=sizes[0], n_test=sizes[1], graph="multiclass (Fig. 1(a))"),
        "seed": seed,
        "datasets": per_set,
        "paper_readable": PAPER_TABLE2,
    }


def figure3_experiment(
    labels, trials: int, seed: int = 0, jobs: int = 1, grid=None, progress=None, gp_kernel: str = "rbf"
) -> dict:
    """Figure 3's protocol for each number of labels over ``trials`` draws: per-trial results and summary;
    the GP with ``gp_kernel`` ('rbf', or the seed's 'linear')."""
    if gp_kernel not in GP_KERNELS:
        raise ValueError(f"gp_kernel must be one of {GP_KERNELS}, got {gp_kernel!r}")
    grid = (COARSE_POINTS, FINE_POINTS) if grid is None else grid
    tasks = [(n_labels, trial, seed, grid, gp_kernel) for n_labels in labels for trial in range(trials)]
    rows = _run(figure3_trial, tasks, jobs, progress)
    points = []
    for n_labels in labels:
        found = [row for row in rows if row["n_labels"] == n_labels]
        points.append(
            {
                "n_labels": n_labels,
                "preference_error": compare(found, "preference_error", ("gp", "cc_svm")),
                "spearman": compare(found, "spearman", ("gp", "cc_svm")),
                "trials": found,
            }
        )
    protocol = _protocol(grid, n_train=FIGURE3_TRAIN, n_test=FIGURE3_TEST, graph="chain of each ranking")
    gp_described = "rbf (evidence)" if gp_kernel == "rbf" else "linear, raw features (noise by evidence)"
    protocol.update(world_states=FIGURE3_STATES, cc_svm_kernel="linear", gp_kernel=gp_described)
    return {"experiment": "gp-figure3", "protocol": protocol, "seed": seed, "points": points}


def _protocol(grid, **sizes) -> dict:
    return {
        **sizes,
        "folds": 5,
        "grid": {"coarse_points": grid[0], "coarse_step": 1.0, "fine_points": grid[1], "fine_step": 0.2},
        "grid_centre": "log10 C = 0, log10 kappa = log10(1/d) (the seed's region is unreadable)",
        "significance": f"Wilcoxon rank-sum against the GP, p < {SIGNIFICANCE}",
        "gp_starts": [{"noise": noise, "length_scale_per_sqrt_d": scale} for noise, scale in GP_STARTS],
    }


def table2_report(result: dict) -> str:
    """A Markdown table: label and preference error (%, mean ± std) per data set and model, and where
    an SVM is significantly worse (*) or better (+) than the GP."""
    lines = [
        "| data set | L | d | label error PW | CC-SVM | GP | pref. error PW | CC-SVM | GP |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, found in result["datasets"].items():
        cells = []
        for measure in ("label_error", "preference_error"):
            gp_mean = found[measure]["gp"]["mean"]
            for model in ("pw_svm", "cc_svm", "gp"):
                s = found[measure][model]
                mark = ("*" if s["mean"] > gp_mean else "+") if s.get("significant") else ""
                cells.append(f"{100 * s['mean']:.2f} ± {100 * s['std']:.2f}{mark}")
        lines.append(f"| {name} | {found['n_classes']} | {found['n_features']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure3_report(result: dict) -> str:
    """A Markdown table: test preference error (%) and Spearman's correlation per number of labels."""
    lines = [
        "| labels | pref. error CC-SVM | GP | Spearman CC-SVM | GP | GP's advantage (error points) |",
        "|---|---|---|---|---|---|",
    ]
    for point in result["points"]:
        error, rho = point["preference_error"], point["spearman"]
        mark = "*" if error["cc_svm"].get("significant") else ""
        lines.append(
            f"| {point['n_labels']} | {100 * error['cc_svm']['mean']:.2f} ± {100 * error['cc_svm']['std']:.2f}{mark} "
            f"| {100 * error['gp']['mean']:.2f} ± {100 * error['gp']['std']:.2f} "
            f"| {rho['cc_svm']['mean']:.3f} ± {rho['cc_svm']['std']:.3f} | {rho['gp']['mean']:.3f} ± "
            f"{rho['gp']['std']:.3f} | {100 * (error['cc_svm']['mean'] - error['gp']['mean']):.2f} |"
        )
    return "\n".join(lines)


def figure3_figure(result: dict):
    """Fig. 3 of the seed: test preference error and Spearman's correlation against the number of labels,
    mean ± std over trials, GP and CC-SVM."""
    from plotly.subplots import make_subplots

    figure = make_subplots(rows=1, cols=2, subplot_titles=("Preference test error rate", "Rank correlation"))
    labels = [point["n_labels"] for point in result["points"]]
    for model, name, colour in (("cc_svm", "CC-SVM", "#d62728"), ("gp", "GP", "#1f77b4")):
        for column, measure in ((1, "preference_error"), (2, "spearman")):
            means = [point[measure][model]["mean"] for point in result["points"]]
            stds = [point[measure][model]["std"] for point in result["points"]]
            figure.add_scatter(
                x=labels, y=means, error_y={"type": "data", "array": stds}, mode="markers+lines", name=name,
                marker_color=colour, showlegend=column == 1, row=1, col=column,
            )  # fmt: skip
    figure.update_xaxes(title_text="Number of labels")
    figure.update_layout(width=800, height=350, margin={"l": 50, "r": 20, "t": 40, "b": 40})
    return figure
