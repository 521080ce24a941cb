"""Seed 004's experiments (Shi, Wang, Shen & Niu, *A Novel Large-scale Ordinal Regression Model*, §4):
linear NPSVOR against linear baselines on ordinal data.

- **Table 2**: NPSVOR's prediction rule (36), 'order', against rule (5), 'nearest' (test MAE and MSE).
- **Table 4**: NPSVOR against scikit-learn's LinearSVC (one-vs-rest classes), LinearSVR on the rank
  number (its prediction rounded and clipped to the rank range) and LogisticRegression (multinomial,
  by SAGA: L-BFGS took 15–44 s a fit on Treebank at C ≥ 1, SAGA 0.06–0.3 s to the same MAE ± 0.003).
  The paper's fourth model, linear RedSVM, is not here (no library fits it).
- **Table 5**: each model's training time on the training rows at its chosen C.

As in §4.2, C of every model is chosen from 2⁻⁵ … 2⁵ by 5-fold cross-validated MAE on the training
rows (stratified folds; for the two NPSVOR rules, C is chosen per rule from the same fits); ε = 0.1 for
NPSVOR and LinearSVR.  Errors count in ranks: MAE = mean |r̂ − r|, MSE = mean (r̂ − r)² (eqs. (37)–(38)).

Data (``load_ordinal``): Treebank with its fixed train / test split; the movie snippets' ``mean_rating``
cut at its quantiles into 5 ranks, TF-IDF of unigrams and bigrams fitted on each split's training rows;
California and Abalone with the target cut into 5 or 10 quantile ranks, features standardised by the
training rows.  Random splits are 80 / 20; every trial draws from its own ``SeedSequence([seed, trial])``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC, LinearSVR

from ordercore.data.benchmarks import DATA_ENVIRONMENT_VARIABLE, data_directory, load_dataset
from ordercore.data.texts import SNIPPET_TFIDF
from ordercore.npsvor.estimator import NPSVOR

C_GRID = tuple(2.0**power for power in range(-5, 6))
"""§4.2: C ∈ {2⁻⁵, 2⁻⁴, …, 2⁵}."""
FOLDS = 5
EPSILON = 0.1
"""ε of NPSVOR and of LinearSVR (§4.2, §4.3)."""
TEST_SHARE = 0.2
BASELINE_MAX_ITER = 10_000
"""Iteration cap of LinearSVC, LinearSVR and LogisticRegression (scikit-learn's 1000, 100 stop short at
large C on these data); fits that still stop short are counted in ``not_converged``."""

ORDINAL_DATASETS = ("treebank", "snippets", "california", "abalone")
SNIPPETS_FILE = "sentiment/movie_snippets.csv"
TREEBANK_FILES = ("treebank/Treebank.train", "treebank/Treebank.test")

PAPER_TREEBANK = {
    "table2": {"mae": {"nearest": 0.830, "order": 0.827}, "mse": {"nearest": 1.242, "order": 1.230}},
    "table4": {
        "mae": {"svc": 0.937, "svr": 0.823, "redsvm": 0.803, "npsvor": 0.827},
        "mse": {"svc": 1.701, "svr": 1.175, "redsvm": 1.159, "npsvor": 1.230},
    },
    "table5_seconds": {"svc": 0.012, "svr": 0.006, "redsvm": 0.010, "npsvor": 0.061},
}
"""Seed 004's Treebank rows of Tables 2, 4 and 5 (the snippets' nearest relative there, MovieReview, is
Pang & Lee's whole reviews in 4 ranks, not these sentences: its row is quoted in docs/REPRODUCTION.md)."""


@dataclass(frozen=True)
class OrdinalData:
    """An ordinal data set: ``split(rng)`` gives (X_train, r_train, X_test, r_test), X dense or CSR,
    ranks coded 0 … K−1; ``fixed`` when every trial gets the same split (Treebank's)."""

    name: str
    n_ranks: int
    split: Callable
    fixed: bool
    metadata: dict


def ordinal_errors(ranks: np.ndarray, predicted: np.ndarray) -> dict:
    """MAE = mean |r̂ − r| and MSE = mean (r̂ − r)² over ranks (n,) (eqs. (37), (38))."""
    error = np.asarray(predicted, dtype=float) - np.asarray(ranks, dtype=float)
    return {"mae": float(np.abs(error).mean()), "mse": float((error**2).mean())}


def rounded_ranks(values: np.ndarray, n_ranks: int) -> np.ndarray:
    """A regressor's output (n,) as ranks: rounded to the nearest integer, clipped to 0 … K−1."""
    return np.clip(np.rint(values), 0, n_ranks - 1).astype(np.int64)


def quantile_ranks(values: np.ndarray, n_ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 0 … len(cuts) (n,) of ``values`` cut at their ``n_ranks``-quantiles, and the cut points
    used (a value equal to a cut point goes to the higher rank).  Tied values can make quantiles
    coincide or leave a rank empty: such cuts are dropped, so every rank holds values."""
    cuts = np.unique(np.quantile(values, np.linspace(0, 1, n_ranks + 1)[1:-1]))
    # rank j ≥ 1 holds the values in [cuts[j − 1], cuts[j]): keep the cuts that open a non-empty rank
    # other than the lowest (a cut at the minimum leaves rank 0 empty and is dropped so)
    cuts = cuts[np.unique(np.searchsorted(cuts, values, side="right"))[1:] - 1]
    return np.searchsorted(cuts, values, side="right"), cuts


# ---------------------------------------------------------------------------------------------- models
MODELS = ("npsvor", "linear_svc", "linear_svr", "logistic_regression")
RESULTS = ("npsvor_order", "npsvor_nearest", "linear_svc", "linear_svr", "logistic_regression")
"""What each trial reports: NPSVOR under rule (36) and rule (5) (one fit), and the three baselines."""


def _model(name: str, C: float, seed: int):
    if name == "npsvor":
        return NPSVOR(C=C, epsilon=EPSILON, random_state=seed)
    if name == "linear_svc":
        return LinearSVC(C=C, max_iter=BASELINE_MAX_ITER, random_state=seed)
    if name == "linear_svr":
        return LinearSVR(C=C, epsilon=EPSILON, max_iter=BASELINE_MAX_ITER, random_state=seed)
    return LogisticRegression(C=C, solver="saga", max_iter=BASELINE_MAX_ITER, random_state=seed)


def _fit_predict(name: str, C: float, seed: int, X, ranks, X_test, n_ranks: int) -> tuple[dict, float, bool]:
    """{result name: predicted ranks of X_test}, the fit's seconds, and whether it stopped short."""
    model = _model(name, C, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(X, ranks.astype(float) if name == "linear_svr" else ranks)
        seconds = time.perf_counter() - start
    short = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    if name == "npsvor":
        short = bool((model.n_iter_ >= model.max_iter).any())
        predictions = {}
        for rule in ("order", "nearest"):
            predictions[f"npsvor_{rule}"] = model.set_params(prediction=rule).predict(X_test)
        return predictions, seconds, short
    predicted = model.predict(X_test)
    return {name: rounded_ranks(predicted, n_ranks) if name == "linear_svr" else predicted}, seconds, short


def _cross_validated_mae(name: str, X, ranks, n_ranks: int, seed: int, grid) -> dict[str, np.ndarray]:
    """{result name: 5-fold CV MAE per C of ``grid``, shape (len(grid),)}."""
    folds = list(StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(len(ranks)), ranks))
    mae = {}
    for g, C in enumerate(grid):
        for train, test in folds:
            predictions, _, _ = _fit_predict(name, C, seed, X[train], ranks[train], X[test], n_ranks)
            for result, predicted in predictions.items():
                mae.setdefault(result, np.zeros(len(grid)))[g] += ordinal_errors(ranks[test], predicted)["mae"] / FOLDS
    return mae


def trial_split(data: OrdinalData, trial: int, seed: int) -> tuple:
    """Trial ``trial``'s (X_train, r_train, X_test, r_test) and the models' random_state, both drawn
    from ``SeedSequence([seed, trial])``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, trial]))
    X, ranks, X_test, ranks_test = data.split(rng)
    return X, ranks, X_test, ranks_test, int(rng.integers(2**31 - 1))


def run_trial(data: OrdinalData, trial: int, seed: int, grid=C_GRID) -> dict:
    """One split: each model's C by CV, then its test MAE / MSE and training seconds at that C."""
    X, ranks, X_test, ranks_test, model_seed = trial_split(data, trial, seed)
    results = {}
    for name in MODELS:
        for result, cv_mae in _cross_validated_mae(name, X, ranks, data.n_ranks, model_seed, grid).items():
            C = grid[int(np.argmin(cv_mae))]
            predictions, seconds, short = _fit_predict(name, C, model_seed, X, ranks, X_test, data.n_ranks)
            results[result] = {
                "C": C,
                "cv_mae": cv_mae.tolist(),
                **ordinal_errors(ranks_test, predictions[result]),
                "fit_seconds": seconds,
                "not_converged": short,
            }
    return {"trial": trial, "n_train": len(ranks), "n_test": len(ranks_test), "results": results}


def npsvor_experiment(data: OrdinalData, trials: int, seed: int = 0, jobs: int = 1, grid=C_GRID) -> dict:
    """Tables 2, 4 and 5's protocol over ``trials`` splits (``jobs`` in parallel): per-trial results
    and their summary (mean and std of MAE / MSE, median C and training seconds)."""
    from joblib import Parallel, delayed

    from ordercore.experiments.parallel import workers

    rows = Parallel(n_jobs=workers(jobs, trials))(delayed(run_trial)(data, t, seed, grid) for t in range(trials))
    summary = {}
    for result in RESULTS:
        found = pd.DataFrame([row["results"][result] for row in rows])
        summary[result] = {
            "mae_mean": float(found["mae"].mean()),
            "mae_std": float(found["mae"].std(ddof=1)) if trials > 1 else 0.0,
            "mse_mean": float(found["mse"].mean()),
            "mse_std": float(found["mse"].std(ddof=1)) if trials > 1 else 0.0,
            "C_median": float(found["C"].median()),
            "fit_seconds_median": float(found["fit_seconds"].median()),
            "not_converged": int(found["not_converged"].sum()),
        }
    return {
        "experiment": "npsvor",
        "dataset": data.name,
        "n_ranks": data.n_ranks,
        "protocol": {
            "C_grid": list(grid),
            "folds": FOLDS,
            "epsilon": EPSILON,
            "selection": "5-fold CV MAE",
            "test_share": None if data.fixed else TEST_SHARE,
        },
        "data": data.metadata,
        "seed": seed,
        "trials": rows,
        "summary": summary,
        "paper": PAPER_TREEBANK if data.name == "treebank" else None,
    }


def report(result: dict) -> str:
    """A Markdown table of the summary: MAE and MSE (mean ± std over trials), C and seconds."""
    lines = [
        f"{result['dataset']} ({result['n_ranks']} ranks, {len(result['trials'])} trial(s))",
        "",
        "| model | MAE | MSE | C (median) | fit seconds (median) | fits stopped short |",
        "|---|---|---|---|---|---|",
    ]
    for name, s in result["summary"].items():
        lines.append(
            f"| {name} | {s['mae_mean']:.3f} ± {s['mae_std']:.3f} | {s['mse_mean']:.3f} ± {s['mse_std']:.3f} "
            f"| {s['C_median']:g} | {s['fit_seconds_median']:.3f} | {s['not_converged']} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ data
def load_ordinal(name: str, n_ranks: int = 5, directory=None) -> OrdinalData:
    """One of ``ORDINAL_DATASETS`` from ``directory`` (default: ORDERCORE_DATA); ``n_ranks`` applies to
    California and Abalone (Treebank has its 5 labels, the snippets are cut into 5)."""
    if name not in ORDINAL_DATASETS:
        raise ValueError(f"unknown ordinal data set {name!r}; choose one of {list(ORDINAL_DATASETS)}")
    if n_ranks < 2:
        raise ValueError(f"n_ranks must be at least 2, got {n_ranks}")
    directory = data_directory() if directory is None else directory
    if directory is None:
        raise FileNotFoundError(f"set {DATA_ENVIRONMENT_VARIABLE} to the data directory (it holds {name})")
    if name == "treebank":
        return _treebank(directory)
    if name == "snippets":
        return _snippets(directory)
    return _tabular(name, n_ranks)


def _random_split(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    order = rng.permutation(n)
    n_test = round(TEST_SHARE * n)
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def _treebank(directory) -> OrdinalData:
    train_file, test_file = (directory / file for file in TREEBANK_FILES)
    for file in TREEBANK_FILES:
        if not (directory / file).is_file():
            raise FileNotFoundError(f"{DATA_ENVIRONMENT_VARIABLE}={directory} holds no {file} (the treebank data set)")
    X, y = load_svmlight_file(str(train_file))
    X_test, y_test = load_svmlight_file(str(test_file), n_features=X.shape[1])
    # LIBLINEAR's wrappers take 32-bit indices only; load_svmlight_file may give 64-bit ones
    X, X_test = (
        sp.csr_matrix((A.data, A.indices.astype(np.int32), A.indptr.astype(np.int32)), A.shape) for A in (X, X_test)
    )
    classes = np.unique(y)
    ranks, ranks_test = np.searchsorted(classes, y), np.searchsorted(classes, y_test)
    metadata = {"source": [str(train_file), str(test_file)], "labels": classes.tolist(), "n_features": X.shape[1]}
    return OrdinalData("treebank", classes.size, lambda rng: (X, ranks, X_test, ranks_test), True, metadata)


def _snippets(directory) -> OrdinalData:
    frame = pd.read_csv(directory / SNIPPETS_FILE)
    texts = frame["text"].astype(str).to_numpy()
    ranks, cuts = quantile_ranks(frame["mean_rating"].to_numpy(dtype=float), 5)

    def split(rng):
        train, test = _random_split(len(texts), rng)
        vectorizer = TfidfVectorizer(**SNIPPET_TFIDF).fit(texts[train])
        X, X_test = (sp.csr_matrix(vectorizer.transform(texts[rows])) for rows in (train, test))
        return X, ranks[train], X_test, ranks[test]

    metadata = {
        "source": str(directory / SNIPPETS_FILE),
        "target": "mean_rating",
        "cut_points": cuts.tolist(),
        "cut": "quintiles of mean_rating over all snippets",
        "tfidf": {**SNIPPET_TFIDF, "ngram_range": [1, 2]},
        "rank_counts": np.bincount(ranks).tolist(),
    }
    return OrdinalData("snippets", 5, split, False, metadata)


def _tabular(name: str, n_ranks: int) -> OrdinalData:
    dataset = load_dataset(name)
    ranks, cuts = quantile_ranks(dataset.y, n_ranks)

    def split(rng):
        train, test = _random_split(len(ranks), rng)
        scaler = StandardScaler().fit(dataset.X[train])
        return scaler.transform(dataset.X[train]), ranks[train], scaler.transform(dataset.X[test]), ranks[test]

    metadata = {
        **dataset.metadata,
        "cut_points": cuts.tolist(),
        "cut": f"{n_ranks}-quantiles of the target over all rows",
        "rank_counts": np.bincount(ranks).tolist(),
        "features": dataset.feature_names,
    }
    return OrdinalData(f"{name}-{n_ranks}", cuts.size + 1, split, False, metadata)
