"""The seeds' benchmark protocol (seed 001 §4.2, Table 1, Fig. 2; seed 000 §Experiments).

Each trial splits the data into l labeled, u unlabeled and test points (seed 001 Table 1);
samples p = 1000 pairs with replacement from the unlabeled points and prefers
f(x_i) - f(x_j) >= beta (y_i - y_j), y_i >= y_j, beta = 0.5 (eq. (14)); tunes the RBF gamma and
lambda1 for SVR by 5-fold cross-validation on the labeled points over a 9 x 9 logarithmic grid
1e-4 ... 1e4; fixes lambda2 = 1; and reports the test MAE of SVR (lambda2 = 0) and SSL.  SVR and
SSL share every trial, so they are compared by a paired t-test.

Beyond the paper (``tune='preferences'``): gamma, lambda1 and lambda2 for SSL chosen by
cross-validation on held-out *preferences* (the fraction violated); where repeated cross-validation
on the labels finds the choice clearly worse than SVR (by one corrected standard error), the trial's
SSL is SVR (that guard, issue 14, keeps an unstable choice from ruining a trial).  With
``norm=2`` the same protocol runs seed 001's 2-norm variant (eq. (7), ``TwoNormOrderPreferenceRegressor``)
for both SVR (lambda2 = 0) and SSL, its own gamma and lambda1 tuned by the same cross-validation.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from joblib import delayed
from scipy import stats
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold

from ordercore.data.benchmarks import BENCHMARKS
from ordercore.data.tables import Dataset
from ordercore.experiments.parallel import trial_backend
from ordercore.knowledge.oracle import oracle_preferences
from ordercore.knowledge.quality import labeled_check, weights_from_accuracy
from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate
from ordercore.knowledge.trust import choose_trust, clearly_worse_than_svr, weighted
from ordercore.lp.average import AveragedOrderPreferenceRegressor
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.lp.two_norm import TwoNormOrderPreferenceRegressor
from ordercore.preferences import PreferenceSet

PARAMETER_GRID = tuple(np.logspace(-4, 4, 9))
"""The seeds' 9-point logarithmic grid, for both gamma (their sigma) and lambda1."""
QUICK_GRID = (1e-2, 1e-1, 1.0)
LAMBDA2_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
"""lambda2 candidates for preference-based tuning."""
NEIGHBOUR_FACTORS = (1 / 3, 1.0, 3.0)
"""Preference-based tuning searches lambda1 at these multiples of the SVR choice."""

REGRESSORS = {1: OrderPreferenceRegressor, 2: TwoNormOrderPreferenceRegressor}
"""The regulariser (``Protocol.norm``) -> the estimator of SVR and SSL: 1, ||alpha||_1 (seed 001's LP
(9), the seeds' experiments); 2, ||f||_H^2 (seed 001's QP (7))."""

TUNINGS = ("svr", "preferences", "labels", "trust")
"""How SSL's settings are chosen (``Protocol.tune``); 'trust' is the rules' default (issue 14)."""

PAPER_TABLE1 = {
    "boston": {"svr": (4.780, 1.351), "ssl": (3.511, 0.376)},
    "abalone": {"svr": (1.856, 0.180), "ssl": (1.685, 0.102)},
    "california": {"svr": (58268, 4435), "ssl": (52120, 1843)},
}
"""Seed 001 Table 1: test MAE, mean and standard deviation over 20 trials."""


@dataclass(frozen=True)
class Protocol:
    """Everything one trial needs besides the data and its seed."""

    n_labeled: int
    n_unlabeled: int
    n_preferences: int = 1000
    beta: float = 0.5
    lambda2: float = 1.0
    grid: tuple = PARAMETER_GRID
    folds: int = 5
    tune: str = "svr"  # 'svr': the seeds'; 'preferences': SSL tuned on held-out preferences; 'labels': lambda2 by
    # label CV; 'trust': source weights from accuracy and lambda2 by label CV, weak evidence -> SVR (trust.py)
    centers: str = "labeled"
    rules: tuple = ()  # Rule.to_dict()s: preferences from these rules instead of the oracle's (seed 000)
    rule_weights: str = "rule"  # 'rule': the rule's own w; 'accuracy': log-odds of its labeled-pair accuracy
    norm: int = 1  # the regulariser, a key of REGRESSORS: 1 the seeds' LP (9), 2 the QP (7)

    @classmethod
    def create(cls, n_labeled: int, n_unlabeled: int, quick: bool = False, **changes) -> Protocol:
        """The seeds' protocol with l and u; ``quick``: a 3 x 3 grid and 3 folds."""
        protocol = cls(n_labeled, n_unlabeled)
        if quick:
            protocol = replace(protocol, grid=QUICK_GRID, folds=3)
        return replace(protocol, **changes)

    @classmethod
    def for_benchmark(cls, name: str, quick: bool = False, **changes) -> Protocol:
        """The protocol with the benchmark's l and u (seed 001 Table 1) unless ``changes`` set them."""
        spec = BENCHMARKS[name]
        sizes = {"n_labeled": spec.n_labeled, "n_unlabeled": spec.n_unlabeled, **changes}
        return cls.create(quick=quick, **sizes)

    def check(self, n_rows: int) -> None:
        """``ValueError`` unless a trial's l labeled and u unlabeled rows leave test rows among n_rows,
        and the regulariser is known and (for the 2-norm) tuned as the seeds tune (``tune='svr'``)."""
        if self.tune not in TUNINGS:
            raise ValueError(f"tune must be one of {TUNINGS}, got {self.tune!r}")
        if self.norm not in REGRESSORS:
            raise ValueError(f"norm must be one of {sorted(REGRESSORS)}, got {self.norm!r}")
        if self.norm != 1 and self.tune != "svr":
            raise ValueError("the 2-norm runs the seeds' tuning only (tune 'svr'); warm lambda paths are the LP's")
        for name, least in (("n_labeled", 2), ("n_unlabeled", 0), ("n_preferences", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not (np.isfinite(value) and float(value).is_integer() and value >= least):
                raise ValueError(f"{name} must be a whole number >= {least}, got {value!r}")
        if not (np.isfinite(self.beta) and self.beta >= 0):
            raise ValueError(f"beta must be finite and >= 0, got {self.beta!r}")
        if self.n_labeled + self.n_unlabeled >= n_rows:
            raise ValueError(
                f"l + u = {self.n_labeled} + {self.n_unlabeled} leaves no test rows among the table's {n_rows}"
            )


@dataclass
class TrialResult:
    trial: int
    seed: int
    svr_mae: float
    ssl_mae: float
    gamma: float  # chosen for SVR by cross-validation on labels
    lambda1: float
    ssl_gamma: float  # used by SSL (= gamma unless tuned on preferences)
    ssl_lambda1: float
    lambda2: float  # under automatic trust: the largest of the blend's (0: SVR), whose share is alpha
    n_preferences: int
    preference_accuracy: float  # share of preferences the true target orders the same way (report only)
    preference_weight: float  # the mean weight SSL gave the preferences (the rules', from accuracy, or trust)
    svr_violated: int  # of the training preferences
    ssl_violated: int
    tune_seconds: float
    svr_seconds: float
    ssl_seconds: float
    alpha: float = 1.0  # the share of SSL that fits the preferences (automatic trust's Blend; 1 otherwise)


def split(n: int, n_labeled: int, n_unlabeled: int, rng: np.random.Generator):
    """Random disjoint labeled (l,), unlabeled (u,) and test (rest) row indices."""
    if n_labeled + n_unlabeled >= n:
        raise ValueError(f"l + u = {n_labeled + n_unlabeled} leaves no test points among {n}")
    order = rng.permutation(n)
    return order[:n_labeled], order[n_labeled : n_labeled + n_unlabeled], order[n_labeled + n_unlabeled :]


def tune_on_labels(
    X, y, grid, folds: int, rng, regressor=OrderPreferenceRegressor, gammas=None
) -> tuple[float, float, float]:
    """(gamma, lambda1, cv MAE) minimising the k-fold MAE of SVR (``regressor`` with lambda2 = 0) on
    the labeled points, over ``grid`` for lambda1 and ``gammas`` (default: ``grid``) for gamma; a
    kernel without a width (linear) passes ``gammas=(None,)``.

    Ties go to the smaller gamma and then the larger lambda1 (the smoother, sparser fit)."""
    splits = list(KFold(min(folds, len(y)), shuffle=True, random_state=int(rng.integers(2**31))).split(X))
    best = (np.inf, None, None)
    for gamma in sorted(grid if gammas is None else gammas, key=lambda g: -np.inf if g is None else g):
        for lambda1 in sorted(grid, reverse=True):
            errors = []
            for train, held_out in splits:
                model = regressor(gamma=gamma, lambda1=lambda1, lambda2=0.0).fit(X[train], y[train])
                errors.append(mean_absolute_error(y[held_out], model.predict(X[held_out])))
            error = float(np.mean(errors))
            if error < best[0]:
                best = (error, gamma, lambda1)
    return best[1], best[2], best[0]


def tune_on_preferences(X, y, preferences: PreferenceSet, gammas, lambda1, folds: int, rng, centers="labeled"):
    """(gamma, lambda1, lambda2) for SSL minimising the fraction of held-out preferences violated,
    over ``gammas`` (the protocol's grid), lambda1 near the SVR choice (``NEIGHBOUR_FACTORS``) and
    ``LAMBDA2_GRID``; spends no labels.  For each fold and gamma the lambdas move along a
    warm-started path (only LP bounds change).

    gamma is searched over the whole grid, not near SVR's: with 30 labels, label cross-validation
    sometimes picks a kernel width (Abalone: gamma = 100) the preferences can judge far better, and
    on Abalone (20 trials) the whole grid gave 1.682 against 1.764 near SVR's choice
    (docs/REPRODUCTION.md, Table 1)."""
    splits = list(KFold(folds, shuffle=True, random_state=int(rng.integers(2**31))).split(preferences.i))
    gammas = sorted(gammas)
    lambda1s = sorted((lambda1 * f for f in NEIGHBOUR_FACTORS), reverse=True)
    violated = np.zeros((len(gammas), len(lambda1s), len(LAMBDA2_GRID)))
    for train, held_out in splits:
        for a, g in enumerate(gammas):
            model = OrderPreferenceRegressor(gamma=g, centers=centers, warm_start=True)
            for b, l1 in enumerate(lambda1s):
                for c, l2 in enumerate(LAMBDA2_GRID):
                    model.set_params(lambda1=l1, lambda2=l2).fit(X, y, preferences[train])
                    violated[a, b, c] += np.mean(model.violated(preferences[held_out])) / len(splits)
    a, b, c = np.unravel_index(np.argmin(violated), violated.shape)  # ties: smaller gamma, larger lambda1
    return gammas[a], lambda1s[b], LAMBDA2_GRID[c]


LABEL_LAMBDA2_GRID = (0.0, 0.3, 1.0, 2.0, 3.0, 5.0, 10.0)
"""lambda2 candidates for label-based tuning; 0 lets cross-validation fall back to SVR."""

LABEL_CV_REPEATS = 3
"""Label-based tuning averages this many k-fold splits: with l = 60, one split's folds hold only
12 labels each, and the chosen lambda2 jumped between 0 and 10 across trials."""


def tune_lambda2_on_labels(X, y, preferences: PreferenceSet, gamma, lambda1, folds: int, rng, centers="labeled"):
    """lambda2 for SSL minimising the k-fold MAE on the labeled points (averaged over
    ``LABEL_CV_REPEATS`` random splits), with every preference in force and gamma, lambda1 from the
    SVR tuning: each fold hides some labels (those rows stay in the preferences as unlabeled
    points).  Ties go to the smaller lambda2.  Each fold's lambda2 path is warm-started (only LP
    bounds change)."""
    labeled = np.flatnonzero(~np.isnan(y))
    errors = np.zeros(len(LABEL_LAMBDA2_GRID))
    for _ in range(LABEL_CV_REPEATS):
        splits = KFold(min(folds, labeled.size), shuffle=True, random_state=int(rng.integers(2**31))).split(labeled)
        for _, held_out in splits:
            hidden = labeled[held_out]
            y_fold = y.copy()
            y_fold[hidden] = np.nan
            model = OrderPreferenceRegressor(gamma=gamma, lambda1=lambda1, centers=centers, warm_start=True)
            for c, l2 in enumerate(LABEL_LAMBDA2_GRID):
                model.set_params(lambda2=l2).fit(X, y_fold, preferences)
                errors[c] += mean_absolute_error(y[hidden], model.predict(X[hidden]))
    return LABEL_LAMBDA2_GRID[int(np.argmin(errors))]


def run_trial(data: Dataset, variants: list[tuple[object, Protocol]], trial: int, seed: int):
    """One random trial for every (label, protocol) in ``variants``, which share l and u: one split
    and one tuning on labels, then per variant its preferences, any preference tuning, SVR and SSL.
    Returns [(label, TrialResult)].  The split, the preferences and the tuning folds draw from
    separate streams of ``seed``, so variants differ only where their protocols do."""
    first = variants[0][1]
    shared = ("n_labeled", "n_unlabeled", "grid", "folds", "norm")
    if any(
        tuple(getattr(p, name) for name in shared) != tuple(getattr(first, name) for name in shared)
        for _, p in variants
    ):
        raise ValueError("variants of one trial must share l, u, the grid, the folds and the norm")
    regressor = REGRESSORS[first.norm]
    split_stream, preference_stream, tuning_stream = np.random.SeedSequence(seed).spawn(3)
    labeled, unlabeled, test = split(
        len(data.y), first.n_labeled, first.n_unlabeled, np.random.default_rng(split_stream)
    )
    training = np.concatenate([labeled, unlabeled])
    X, y_true = data.X[training], data.y[training]
    y = y_true.copy()
    y[first.n_labeled :] = np.nan
    start = time.perf_counter()
    gamma, lambda1, _ = tune_on_labels(
        X[: first.n_labeled],
        y[: first.n_labeled],
        first.grid,
        first.folds,
        np.random.default_rng(tuning_stream),
        regressor,
    )
    label_tuning_seconds = time.perf_counter() - start
    svr = regressor(gamma=gamma, lambda1=lambda1, lambda2=0.0).fit(X, y)
    svr_mae = float(mean_absolute_error(data.y[test], svr.predict(data.X[test])))
    results = []
    for label, protocol in variants:
        rng = np.random.default_rng(preference_stream)
        preferences, source, checks = trial_preferences(data, protocol, training, y, rng)
        start = time.perf_counter()
        ssl_gamma, ssl_lambda1, lambda2 = gamma, lambda1, protocol.lambda2
        averaged = None
        if protocol.tune == "preferences":
            ssl_gamma, ssl_lambda1, lambda2 = tune_on_preferences(
                X, y, preferences, protocol.grid, lambda1, protocol.folds, rng, protocol.centers
            )
            tuned = {"gamma": ssl_gamma, "lambda1": ssl_lambda1, "lambda2": lambda2, "centers": protocol.centers}
            if clearly_worse_than_svr(X, y, preferences, {"gamma": gamma, "lambda1": lambda1}, tuned, rng):
                ssl_gamma, ssl_lambda1, lambda2 = gamma, lambda1, 0.0  # the labels see it harm: SVR
        elif protocol.tune == "labels":
            lambda2 = tune_lambda2_on_labels(X, y, preferences, gamma, lambda1, protocol.folds, rng, protocol.centers)
        elif protocol.tune == "trust":
            trust = choose_trust(X, y, preferences, source, checks, rng, lambda1, gamma=gamma, centers=protocol.centers)
            preferences = weighted(preferences, source, trust.weights)
            averaged = trust.blend.active()
            ssl_lambda1, lambda2 = averaged.settings[-1][0], max(lambda2 for _, lambda2 in averaged.settings)
        tune_seconds = label_tuning_seconds + time.perf_counter() - start
        start = time.perf_counter()
        if averaged is None:
            ssl = regressor(gamma=ssl_gamma, lambda1=ssl_lambda1, lambda2=lambda2, centers=protocol.centers)
        else:
            ssl = AveragedOrderPreferenceRegressor(**averaged.parameters(), gamma=gamma, centers=protocol.centers)
        ssl.fit(X, y, preferences)
        ssl_seconds = time.perf_counter() - start
        results.append(
            (
                label,
                TrialResult(
                    trial=trial,
                    seed=seed,
                    svr_mae=svr_mae,
                    ssl_mae=float(mean_absolute_error(data.y[test], ssl.predict(data.X[test]))),
                    gamma=gamma,
                    lambda1=lambda1,
                    ssl_gamma=ssl_gamma,
                    ssl_lambda1=ssl_lambda1,
                    lambda2=lambda2,
                    n_preferences=len(preferences),
                    preference_accuracy=float(np.mean(y_true[preferences.i] > y_true[preferences.j]))
                    if len(preferences)
                    else float("nan"),
                    preference_weight=float(np.mean(preferences.weight)) if len(preferences) else float("nan"),
                    svr_violated=int(np.sum(svr.violated(preferences))),
                    ssl_violated=ssl.n_violated_,
                    tune_seconds=tune_seconds,
                    svr_seconds=svr.solve_time_,
                    ssl_seconds=ssl_seconds,
                    alpha=1.0 if averaged is None else float(averaged.alpha),
                ),
            )
        )
    return results


def trial_preferences(data: Dataset, protocol: Protocol, training: np.ndarray, y: np.ndarray, rng):
    """A trial's preferences over its ``training`` rows (labels y, NaN for unlabeled), which source
    each comes from (p,), and each source's labeled pairs (``quality.labeled_check``, or None where
    nothing can check it): the oracle's p pairs (seed 001, one source), or every rule's."""
    if not protocol.rules:
        rows = np.arange(protocol.n_labeled, training.size)
        preferences = oracle_preferences(rows, data.y[training], protocol.n_preferences, protocol.beta, rng)
        return preferences, np.zeros(len(preferences), dtype=np.int64), [None]
    rules = [Rule.from_dict(rule) for rule in protocol.rules]
    frame = data.frame.iloc[training].reset_index(drop=True)
    made = rule_preferences(rules, frame, y, protocol)
    source = np.repeat(np.arange(len(rules)), [len(m) for m in made])
    return PreferenceSet.concatenate(made), source, [labeled_check(rule, frame, y) for rule in rules]


def rule_preferences(rules: list[Rule], frame: pd.DataFrame, y: np.ndarray, protocol: Protocol) -> list:
    """Every preference each of the ``rules`` makes over a trial's training rows (seed 000: pairs with
    at least one unlabeled row; no cap), one PreferenceSet per rule.  frame : those rows of the raw table; y : their
    labels, NaN for unlabeled.  With ``rule_weights='accuracy'`` each rule's weight is the log-odds
    of its accuracy on the labeled-labeled pairs, which only the labels decide."""
    frame = frame.reset_index(drop=True)
    if protocol.rule_weights == "accuracy":
        rules = weights_from_accuracy(rules, frame, y)
    return [generate(rule, frame, ~np.isnan(y), max_pairs=None).preferences for rule in rules]


def trial_seeds(seed: int, trials: int) -> list[int]:
    """Independent per-trial seeds; the same (seed, trials) give the same trials everywhere."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(trials)]


def run_trials(
    data: Dataset,
    variants: list[tuple[object, Protocol]],
    trials: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    *,
    scheduler: str | None = None,
) -> list[tuple[object, TrialResult]]:
    """``trials`` trials of every (label, protocol) in ``variants``, in parallel over trials and groups of
    variants that share l and u; every variant sees the same trial seeds, so results pair across
    variants.  ``progress(done, total)`` is called as trials finish.  Results in input order.

    ``jobs`` worker processes on this machine (-1: all cores), or, with ``scheduler`` the address of
    a Dask scheduler (``tcp://HOST:8786``), the workers of that cluster (``jobs`` then unused; see
    ``ordercore.experiments.parallel.trial_backend``).  Either way the results are those of ``jobs=1``."""
    groups: dict[tuple, list] = {}
    for label, protocol in variants:
        groups.setdefault((protocol.n_labeled, protocol.n_unlabeled), []).append((label, protocol))
    tasks = [(group, k, s) for group in groups.values() for k, s in enumerate(trial_seeds(seed, trials))]
    results = []
    with trial_backend(jobs, scheduler) as runner:
        for done, outputs in enumerate(runner(delayed(run_trial)(data, group, k, s) for group, k, s in tasks), 1):
            results.extend(outputs)
            if progress is not None:
                progress(done, len(tasks))
    order = {label: position for position, (label, _) in enumerate(variants)}
    return sorted(results, key=lambda item: (order[item[0]], item[1].trial))


def summarize(results: list[TrialResult]) -> dict:
    """Mean and std of each model's test MAE, the relative improvement, and a paired t-test."""
    svr = np.array([r.svr_mae for r in results])
    ssl = np.array([r.ssl_mae for r in results])
    summary = {
        "n_trials": len(results),
        "svr_mae_mean": float(svr.mean()),
        "svr_mae_std": float(svr.std(ddof=1)) if svr.size > 1 else 0.0,
        "ssl_mae_mean": float(ssl.mean()),
        "ssl_mae_std": float(ssl.std(ddof=1)) if ssl.size > 1 else 0.0,
        "improvement": float(1 - ssl.mean() / svr.mean()),
        "ssl_wins": int(np.sum(ssl < svr)),
        "n_preferences_mean": float(np.mean([r.n_preferences for r in results])),
        "preference_accuracy_mean": float(np.nanmean([r.preference_accuracy for r in results])),
    }
    if svr.size > 1 and np.any(svr != ssl):
        test = stats.ttest_rel(svr, ssl)
        summary.update(t_statistic=float(test.statistic), p_value=float(test.pvalue))
    return summary


def table1(
    data: Dataset,
    name: str,
    protocol: Protocol,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 001 Table 1 for one data set: per-trial results, summary, and the paper's numbers.
    ``jobs``, ``progress``, ``scheduler``: as ``run_trials``."""
    results = [
        r for _, r in run_trials(data, [("table1", protocol)], trials, seed, jobs, progress, scheduler=scheduler)
    ]
    return _result("table1", name, protocol, seed, results, PAPER_TABLE1.get(name))


def rules_experiment(data: Dataset, name: str, protocol: Protocol, trials: int, seed: int, *args, **kwargs) -> dict:
    """Table 1's protocol with the preferences of ``protocol.rules`` (any rule file) instead of the
    oracle's, per-trial results like ``table1``'s (the other arguments are its)."""
    if not protocol.rules:
        raise ValueError("the rules experiment needs at least one rule (protocol.rules)")
    target = data.metadata.get("target")
    for rule in map(Rule.from_dict, protocol.rules):
        rule.check_columns(data.frame)
        if target in rule.columns():
            raise ValueError(
                f"rule {rule.name!r} reads the target column {target!r}: its preferences would leak labels"
            )
    return {**table1(data, name, protocol, trials, seed, *args, **kwargs), "experiment": "rules", "paper": None}


def _result(experiment: str, name: str, protocol: Protocol, seed: int, results: list[TrialResult], paper) -> dict:
    """The document an experiment of one protocol writes: per-trial results, summary, the paper's."""
    return {
        "experiment": experiment,
        "dataset": name,
        "protocol": asdict(protocol),
        "seed": seed,
        "trials": [asdict(r) for r in results],
        "summary": summarize(results),
        "paper": paper,
    }


SWEEPS = {
    "p": ("n_preferences", (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)),
    "l": ("n_labeled", None),  # multiples of the data set's l, see sweep_values
    "beta": ("beta", (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)),
}
"""Seed 001 Fig. 2: the protocol field each sweep varies and its default values."""


def sweep_values(vary: str, protocol: Protocol) -> tuple:
    if vary == "l":
        return tuple(int(round(protocol.n_labeled * f)) for f in (0.5, 1, 2, 4, 8))
    return SWEEPS[vary][1]


def figure2(
    data: Dataset,
    name: str,
    protocol: Protocol,
    vary: str,
    values,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 001 Fig. 2: test MAE of SVR and SSL as p, l or beta varies, on shared trial seeds.
    ``jobs``, ``progress``, ``scheduler``: as ``run_trials``."""
    if vary not in SWEEPS:
        raise ValueError(f"--vary must be one of {sorted(SWEEPS)}")
    field_name = SWEEPS[vary][0]
    values = tuple(values) if values else sweep_values(vary, protocol)
    protocols = [(value, replace(protocol, **{field_name: value})) for value in values]
    for _, varied in protocols:
        varied.check(len(data.y))
    results = run_trials(data, protocols, trials, seed, jobs, progress, scheduler=scheduler)
    points = []
    for value in values:
        chosen = [r for label, r in results if label == value]
        points.append({"value": value, **summarize(chosen), "trials": [asdict(r) for r in chosen]})
    return {
        "experiment": "figure2",
        "dataset": name,
        "vary": vary,
        "protocol": asdict(protocol),
        "seed": seed,
        "points": points,
    }


def report_table(results: list[dict]) -> str:
    """A Markdown table of Table 1 results (the JSON of ``table1``): per data set and configuration,
    the regulariser, SVR and SSL test MAE (mean ± std), the improvement, the paired t-test, and the
    paper's SSL (its LP, so only beside 1-norm rows)."""
    lines = [
        "| data set | norm | SSL centers | tuning | trials | SVR MAE | SSL MAE | improvement | paired t-test p "
        "| paper SSL |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in _table1_results(results):
        summary, protocol, paper = result["summary"], result["protocol"], result.get("paper") or {}
        norm = protocol.get("norm", 1)
        digits = _digits(summary["svr_mae_mean"])
        paper_ssl = (
            f"{paper['ssl'][0]:.{digits}f} ± {paper['ssl'][1]:.{digits}f}" if "ssl" in paper and norm == 1 else "—"
        )
        lines.append(
            f"| {result['dataset']} | {norm} | {protocol['centers']} | {protocol['tune']} | {summary['n_trials']} "
            f"| {_mean_sd([t['svr_mae'] for t in result['trials']], digits)} "
            f"| {_mean_sd([t['ssl_mae'] for t in result['trials']], digits)} "
            f"| {100 * summary['improvement']:.1f}% | {summary.get('p_value', float('nan')):.1e} | {paper_ssl} |"
        )
    return "\n".join(lines)


TABLE1_LIKE = ("table1", "sentiment", "rules")
"""Experiments whose JSON has Table 1's shape (one protocol, SVR and SSL per trial), which
``report_table`` reads."""


def _table1_results(results: list[dict]) -> list[dict]:
    if any(result.get("experiment") not in TABLE1_LIKE for result in results):
        raise ValueError("report takes Table 1 results (JSON written by 'experiments table1' or 'sentiment')")
    return results


def _digits(mae: float) -> int:
    return 0 if mae > 1000 else 3


def _mean_sd(values, digits: int) -> str:
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.{digits}f} ± {sd:.{digits}f}"


def _paired_p(a, b) -> float:
    """Two-sided paired t-test p-value of equal means (NaN with fewer than two trials or no difference)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(stats.ttest_rel(a, b).pvalue) if a.size > 1 and np.any(a != b) else float("nan")


def norm_comparison_table(results: list[dict]) -> str:
    """Seed 001's 2-norm (7) beside its LP (9) on the same trials: for each data set, one Table 1 result
    of each norm (same seed and protocol but the norm), trials paired by their seeds.  Columns: test MAE
    (mean ± std) of each norm's SVR and SSL, and paired t-tests of SSL 2-norm against its own SVR, against
    SSL 1-norm, and against SVR 1-norm.  ``ValueError`` unless the two runs share every trial seed and
    their protocols (as far as both files record them) differ only in the norm."""
    by_dataset: dict[str, dict[int, dict]] = {}
    for result in _table1_results(results):
        norm = result["protocol"].get("norm", 1)
        if norm in by_dataset.setdefault(result["dataset"], {}):
            raise ValueError(f"two {norm}-norm results for {result['dataset']}; give one of each norm")
        by_dataset[result["dataset"]][norm] = result
    lines = [
        "| data set | trials | SVR 1-norm | SSL 1-norm | SVR 2-norm | SSL 2-norm | SSL 2-norm vs SVR 2-norm: p "
        "| SSL 2-norm vs SSL 1-norm: p | SSL 2-norm vs SVR 1-norm: p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for dataset, runs in by_dataset.items():
        if set(runs) != {1, 2}:
            raise ValueError(f"{dataset}: give one 1-norm and one 2-norm result, got norms {sorted(runs)}")
        protocols = [runs[norm]["protocol"] for norm in (1, 2)]
        differing = sorted(
            k for k in set(protocols[0]) & set(protocols[1]) - {"norm"} if protocols[0][k] != protocols[1][k]
        )
        if differing:
            raise ValueError(f"{dataset}: the two runs' protocols differ in {differing}, not only in the norm")
        one, two = ({t["seed"]: t for t in runs[norm]["trials"]} for norm in (1, 2))
        if set(one) != set(two):
            raise ValueError(f"{dataset}: the two runs do not share their trials (different --seed or --trials?)")
        seeds = sorted(one)
        svr1, ssl1, svr2, ssl2 = (
            [trials[s][key] for s in seeds]
            for trials, key in ((one, "svr_mae"), (one, "ssl_mae"), (two, "svr_mae"), (two, "ssl_mae"))
        )
        digits = _digits(np.mean(svr1))
        lines.append(
            f"| {dataset} | {len(seeds)} | {_mean_sd(svr1, digits)} | {_mean_sd(ssl1, digits)} "
            f"| {_mean_sd(svr2, digits)} | {_mean_sd(ssl2, digits)} | {_paired_p(ssl2, svr2):.1e} "
            f"| {_paired_p(ssl2, ssl1):.1e} | {_paired_p(ssl2, svr1):.1e} |"
        )
    return "\n".join(lines)


PAPER_BEDROOM = {"n_preferences": 1200, "preference_accuracy": 0.70, "svr": 58268, "ssl": 54664}
"""Seed 000's California bedroom experiment: about 1200 preferences, 70% accurate, test MAE
58268 (SVR) and 54664 (SSL), a 6% reduction."""

BEDROOM_READINGS = {
    "total": "total_bedrooms",
    "per_household": "bedrooms_per_household",
    "per_person": "bedrooms_per_person",
    "rooms_per_household": "rooms_per_household",
}
"""How "number of bedrooms" is read from the block-level census table: the block's total (the
plain reading, which mostly measures how big the block is), bedrooms per household (the size of
a typical home), bedrooms per resident (room to live in), or all rooms per household."""


def with_household_columns(data: Dataset) -> Dataset:
    """California with bedrooms_per_household, bedrooms_per_person and rooms_per_household added to
    the raw table (for rules only; the model's features X are unchanged)."""
    frame = data.frame
    frame = frame.assign(
        bedrooms_per_household=frame["total_bedrooms"] / frame["households"],
        bedrooms_per_person=frame["total_bedrooms"] / frame["population"],
        rooms_per_household=frame["total_rooms"] / frame["households"],
    )
    return replace(data, frame=frame)


def bedroom_rule(reading: str = "total") -> Rule:
    """Seed 000: within 25 miles, median age within 10 years, median income within $1000 (0.1 in the
    data's units of $10,000) -> the block with more bedrooms is worth more; d = 0, w = 1."""
    if reading not in BEDROOM_READINGS:
        raise ValueError(f"reading must be one of {sorted(BEDROOM_READINGS)}, got {reading!r}")
    return Rule(
        f"more bedrooms ({reading})",
        [Near("latitude", "longitude", 25.0), Within("housing_median_age", 10.0), Within("median_income", 0.1)],
        Ordering(BEDROOM_READINGS[reading]),
    )


def bedroom(
    data: Dataset,
    protocol: Protocol,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 000's California experiment: Table 1's protocol (l = 60, u = 1000, SVR tuned on labels)
    with the preferences of ``protocol.rules`` instead of the oracle's.  ``jobs``, ``progress``,
    ``scheduler``: as ``run_trials``."""
    if not protocol.rules:
        raise ValueError("the bedroom experiment needs protocol.rules")
    household = with_household_columns(data)
    results = [
        r for _, r in run_trials(household, [("bedroom", protocol)], trials, seed, jobs, progress, scheduler=scheduler)
    ]
    return _result("bedroom", "california", protocol, seed, results, PAPER_BEDROOM)


EXPERIMENTS = ("table1", "figure2", "bedroom", "rules")

RESULT_NUMBERS = {
    "summary": ("svr_mae_mean", "ssl_mae_mean", "improvement"),
    "trials": ("svr_mae", "ssl_mae"),
    "points": ("value", "svr_mae_mean", "svr_mae_std", "ssl_mae_mean", "ssl_mae_std"),
}
"""The numbers a result file must hold where the Experiments page reads it: per field of the document,
the names each record (the summary, every trial, every point of a sweep) has."""


def read_result(content: bytes) -> dict:
    """A result file written by ``python -m ordercore experiments`` (its bytes), parsed as JSON and
    checked to have the shape the Experiments page reads; ``ValueError`` saying what is wrong."""
    try:
        result = json.loads(content)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a JSON file ({error})") from None
    except RecursionError:
        raise ValueError("not a result file: its JSON is nested too deeply") from None
    if not isinstance(result, dict) or result.get("experiment") not in (*EXPERIMENTS, *TABLE1_LIKE):
        raise ValueError("not a result of 'python -m ordercore experiments' (its 'experiment' field names none)")
    if not isinstance(result.get("protocol"), dict):
        raise ValueError("'protocol' must be an object (the settings the experiment ran with)")
    if result["experiment"] != "figure2":
        _check_numbers(result, "summary", many=False)
        _check_numbers(result, "trials", many=True)
        if not isinstance(result["summary"].get("p_value", 0.0), int | float | None):
            raise ValueError(f"summary.p_value must be a number, got {result['summary']['p_value']!r}")
        return result
    if result.get("vary") not in SWEEPS or not isinstance(result.get("dataset"), str):
        raise ValueError(f"a figure2 result names its data set and what it varies (one of {sorted(SWEEPS)})")
    _check_numbers(result, "points", many=True)
    return result


def _check_numbers(result: dict, field: str, many: bool) -> None:
    """``ValueError`` unless result[field] is an object (``many``: a list of objects) holding every
    number ``RESULT_NUMBERS[field]`` names."""
    records = result.get(field)
    if not (isinstance(records, list) if many else isinstance(records, dict)):
        kind = "a list of objects" if many else "an object"
        raise ValueError(f"'{field}' must be {kind}, got {type(records).__name__}")
    for position, record in enumerate(records if many else [records]):
        where = f"{field}[{position}]" if many else field
        if not isinstance(record, dict):
            raise ValueError(f"{where} must be an object, got {type(record).__name__}")
        for name in RESULT_NUMBERS[field]:
            value = record.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{where}.{name} must be a number, got {value!r}")


def run_experiment(
    kind: str,
    data: Dataset,
    name: str,
    protocol: Protocol,
    trials: int,
    seed: int = 0,
    jobs: int = 1,
    progress=None,
    *,
    vary: str | None = None,
    values=None,
    scheduler: str | None = None,
) -> dict:
    """One of ``EXPERIMENTS`` on ``data`` (the bedroom rule: California with its household columns),
    as the command line and the Experiments page run it; figure2 varies ``vary`` over ``values``.
    ``ValueError`` before any trial runs when l + u leave no test rows."""
    protocol.check(len(data.y))
    if kind == "bedroom":
        return bedroom(data, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "rules":
        return rules_experiment(data, name, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "table1":
        return table1(data, name, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "figure2":
        return figure2(data, name, protocol, vary, values, trials, seed, jobs, progress, scheduler=scheduler)
    raise ValueError(f"experiment must be one of {EXPERIMENTS}, got {kind!r}")
