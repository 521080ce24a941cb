"""The seeds' benchmark protocol (seed 001 §4.2, Table 1, Fig. 2; seed 000 §Experiments): one trial
and many, and their summary.

Each trial splits the data into l labeled, u unlabeled and test points (seed 001 Table 1);
samples p = 1000 pairs with replacement from the unlabeled points and prefers
f(x_i) - f(x_j) >= beta (y_i - y_j), y_i >= y_j, beta = 0.5 (eq. (14)); tunes the RBF gamma and
lambda1 for SVR by 5-fold cross-validation on the labeled points over a 9 x 9 logarithmic grid
1e-4 ... 1e4; fixes lambda2 = 1; and reports the test MAE of SVR (lambda2 = 0) and SSL.  SVR and
SSL share every trial, so they are compared by a paired t-test.

Beyond the paper (``tune='preferences'``): gamma, lambda1 and lambda2 for SSL chosen by
cross-validation on held-out *preferences* (the fraction violated); where repeated cross-validation
on the labels finds the choice clearly worse than SVR (by one corrected standard error), the trial's
SSL is SVR (that guard, issue 14, keeps an unstable choice from ruining a trial).  The tunings are
``ordercore.experiments.tuning``.  SVR and SSL are the estimator of a registered model family
(``Protocol.model``, the order-preference LP by default): with ``norm=2`` the same protocol runs seed
001's 2-norm variant (eq. (7), ``TwoNormOrderPreferenceRegressor``) for both SVR (lambda2 = 0) and
SSL, its own gamma and lambda1 tuned by the same cross-validation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd
from joblib import delayed
from scipy import stats
from sklearn.metrics import mean_absolute_error

from ordercore.data.benchmarks import BENCHMARKS
from ordercore.data.tables import Dataset
from ordercore.experiments.parallel import trial_backend
from ordercore.experiments.tuning import tune_lambda2_on_labels, tune_on_labels, tune_on_preferences
from ordercore.knowledge.oracle import oracle_preferences
from ordercore.knowledge.quality import labeled_check, weights_from_accuracy
from ordercore.knowledge.rules import Rule, generate
from ordercore.knowledge.source_weights import weighted
from ordercore.knowledge.trust import choose_trust, clearly_worse_than_svr
from ordercore.lp.average import AveragedOrderPreferenceRegressor
from ordercore.models.registry import Learns, ModelFamily, Offer, families
from ordercore.preferences import PreferenceSet

PARAMETER_GRID = tuple(np.logspace(-4, 4, 9))
"""The seeds' 9-point logarithmic grid, for both gamma (their sigma) and lambda1."""
QUICK_GRID = (1e-2, 1e-1, 1.0)

NORMS = {1: "lp", 2: "two_norm"}
"""Seed 001's two regularisers (``norm``, the command line's ``--norm``) by the model family that fits
each: 1, ||alpha||_1 (its LP (9), the seeds' experiments); 2, ||f||_H^2 (its QP (7))."""


def trial_families() -> dict[str, ModelFamily]:
    """The model families a trial can run as SVR and SSL, by key: every registered family that learns
    from labels and preferences and offers the seeds' protocol."""
    return families(learns={Learns.LABELS, Learns.PREFERENCES}, offers={Offer.SEEDS_PROTOCOL})


TUNINGS = ("svr", "preferences", "labels", "trust")
"""How SSL's settings are chosen (``Protocol.tune``); 'trust' is the rules' default (issue 14)."""


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
    model: str = "lp"  # the model family of SVR and SSL, a key of trial_families(); NORMS names the seeds' two

    @property
    def norm(self) -> int | None:
        """Seed 001's name of the regulariser (``NORMS``): 1 or 2, None for another family."""
        return {key: norm for norm, key in NORMS.items()}.get(self.model)

    def family(self) -> ModelFamily:
        """The model family of SVR and SSL; ``ValueError`` unless it is one a trial runs."""
        models = trial_families()
        if self.model not in models:
            raise ValueError(f"model must be one of {sorted(models)}, got {self.model!r}")
        return models[self.model]

    @classmethod
    def create(
        cls, n_labeled: int, n_unlabeled: int, quick: bool = False, norm: int | None = None, **changes
    ) -> Protocol:
        """The seeds' protocol with l and u; ``quick``: a 3 x 3 grid and 3 folds; ``norm``: the family
        of seed 001's regulariser 1 or 2 (``NORMS``)."""
        protocol = cls(n_labeled, n_unlabeled)
        if quick:
            protocol = replace(protocol, grid=QUICK_GRID, folds=3)
        if norm is not None:
            if norm not in NORMS:
                raise ValueError(f"norm must be one of {sorted(NORMS)}, got {norm!r}")
            changes["model"] = NORMS[norm]
        return replace(protocol, **changes)

    @classmethod
    def for_benchmark(cls, name: str, quick: bool = False, **changes) -> Protocol:
        """The protocol with the benchmark's l and u (seed 001 Table 1) unless ``changes`` set them."""
        spec = BENCHMARKS[name]
        sizes = {"n_labeled": spec.n_labeled, "n_unlabeled": spec.n_unlabeled, **changes}
        return cls.create(quick=quick, **sizes)

    def check(self, n_rows: int) -> None:
        """``ValueError`` unless a trial's l labeled and u unlabeled rows leave test rows among n_rows,
        and the model family is one a trial runs, tuned as the seeds tune (``tune='svr'``) unless it
        offers automatic trust (the other tunings move along the LP's warm lambda paths)."""
        if self.tune not in TUNINGS:
            raise ValueError(f"tune must be one of {TUNINGS}, got {self.tune!r}")
        family = self.family()
        if self.tune != "svr" and Offer.AUTOMATIC_TRUST not in family.offers:
            raise ValueError(
                f"the {family.label} runs the seeds' tuning only (tune 'svr'); warm lambda paths are the LP's"
            )
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


def run_trial(data: Dataset, variants: list[tuple[object, Protocol]], trial: int, seed: int):
    """One random trial for every (label, protocol) in ``variants``, which share l and u: one split
    and one tuning on labels, then per variant its preferences, any preference tuning, SVR and SSL.
    Returns [(label, TrialResult)].  The split, the preferences and the tuning folds draw from
    separate streams of ``seed``, so variants differ only where their protocols do."""
    first = variants[0][1]
    shared = ("n_labeled", "n_unlabeled", "grid", "folds", "model")
    if any(
        tuple(getattr(p, name) for name in shared) != tuple(getattr(first, name) for name in shared)
        for _, p in variants
    ):
        raise ValueError("variants of one trial must share l, u, the grid, the folds and the model")
    regressor = first.family().estimator
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
    with trial_backend(jobs, scheduler, tasks=len(tasks)) as runner:
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
        "preference_accuracy_mean": _mean_known([r.preference_accuracy for r in results]),
    }
    if svr.size > 1 and np.any(svr != ssl):
        test = stats.ttest_rel(svr, ssl)
        summary.update(t_statistic=float(test.statistic), p_value=float(test.pvalue))
    return summary


def _mean_known(values) -> float:
    """The mean of the values that are not NaN; NaN (and no warning) when none is, e.g. no trial had preferences."""
    known = [value for value in values if not np.isnan(value)]
    return float(np.mean(known)) if known else float("nan")


def protocol_record(protocol) -> dict:
    """A protocol as result files keep it: its fields and seed 001's name of its regulariser, ``norm``
    (``experiments report`` and ``compare`` read it; None for a family of neither)."""
    return {**asdict(protocol), "norm": protocol.norm}


def result_document(experiment: str, name: str, protocol, seed: int, results: list[TrialResult], paper) -> dict:
    """The document an experiment of one protocol writes: per-trial results, summary, the paper's."""
    return {
        "experiment": experiment,
        "dataset": name,
        "protocol": protocol_record(protocol),
        "seed": seed,
        "trials": [asdict(r) for r in results],
        "summary": summarize(results),
        "paper": paper,
    }
