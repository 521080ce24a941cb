"""What an expert's answers buy: the Studio's labelling loop run end to end through the session engine,
answered by a simulated expert (issue 31).

Each trial is a labelling session as the Studio makes it (``SessionEngine`` over a store of its own): the
session's data with l labeled rows drawn by the trial's seed and a held-out test split, the pairs chosen
by the engine's ``next_pairs`` (the strategy and candidates the Pairwise page offers), each answered by a
``ProbitExpert`` and stored as the page stores it, SSL retrained warm and automatic trust assessed as in
the Studio (here in the trial's own thread: ``InlineAssessment``; the expert never pauses, so the full
assessment the Studio runs once the answers pause after a warm one never starts).  The page holds pairs
ahead and redraws them when the model changes; the trial asks ``batch`` pairs at a time from the last
fit, then lets the engine catch up.  Every ``every`` answers it records the test MAE of SVR and SSL and
the cross-validated MAE the Studio shows (the assessment's, NaN before there is one).

The **labels-instead** arm spends the same expert time on value labels: a label costs ``label_cost``
answers, so at a checkpoint of a answers SVR is fitted on l + floor(a / label_cost) labels (the extra
rows drawn from the pool by the trial's seed).
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import delayed
from scipy import stats
from sklearn.metrics import mean_absolute_error

from ordercore.experiments.parallel import trial_backend
from ordercore.experiments.protocol import trial_seeds
from ordercore.knowledge.experts import ProbitExpert
from ordercore.knowledge.label_curve import LABEL_COST
from ordercore.studio.data import data_settings
from ordercore.studio.jobs.trust import InlineAssessment
from ordercore.studio.splits import DEFAULT_TEST_FRACTION
from ordercore.studio.training import ModelSettings
from ordercore.studio.workbench import PAIR_CANDIDATES, PAIR_STRATEGIES, Workbench

NEEDS_APP = "experiments session runs the Studio's session engine over a store: pip install 'ordercore[app]'"

EXPERT = "simulated expert"
"""The annotator name the simulated expert's answers are stored under."""

LABELS_INSTEAD = "labels instead"
"""The arm that spends the expert's time on value labels (``SessionProtocol(strategy='labels')``)."""


@dataclass(frozen=True)
class SessionProtocol:
    """One arm of the session experiment: l labeled rows, ``clicks`` answers chosen by ``strategy`` among
    ``candidates`` (``Workbench.next_pairs``; 'labels' for the labels-instead arm), asked ``batch`` at a
    time, recorded every ``every`` answers; the expert's noise and tolerance as fractions of the target's
    standard deviation, and the share of pairs they skip; a label's cost in answers.  ``lambda2``: None,
    automatic trust (the Studio's default); a number, automatic trust off and SSL at that lambda2 (the
    Model page's setting; lambda1 and gamma stay the Studio's defaults)."""

    n_labeled: int = 60
    clicks: int = 300
    strategy: str = PAIR_STRATEGIES[0]
    candidates: str = PAIR_CANDIDATES[0]
    expert_noise: float = 0.7
    expert_tolerance: float = 0.05
    expert_skip: float = 0.05
    batch: int = 10
    every: int = 25
    label_cost: float = LABEL_COST
    test_fraction: float = DEFAULT_TEST_FRACTION
    lambda2: float | None = None

    def check(self) -> None:
        """``ValueError`` for a protocol no trial can run."""
        if self.strategy != "labels" and self.strategy not in PAIR_STRATEGIES:
            raise ValueError(f"strategy must be one of {(*PAIR_STRATEGIES, 'labels')}, got {self.strategy!r}")
        if self.candidates not in PAIR_CANDIDATES:
            raise ValueError(f"candidates must be one of {PAIR_CANDIDATES}, got {self.candidates!r}")
        for name in ("n_labeled", "clicks", "batch", "every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)!r}")
        if not self.label_cost > 0:
            raise ValueError(f"label_cost must be > 0 answers, got {self.label_cost!r}")
        ProbitExpert(self.expert_noise, self.expert_tolerance, self.expert_skip)  # its own checks

    def checkpoints(self) -> list[int]:
        """The numbers of answers at which a trial records its errors: 0, every ``every``, and ``clicks``."""
        return sorted({*range(0, self.clicks, self.every), self.clicks})


@dataclass(frozen=True)
class SessionSource:
    """The table a trial's session is made from: the Studio's data source ('sample' or a benchmark
    name) with its target and features, or 'upload' with the CSV's bytes."""

    source: str
    frame: pd.DataFrame
    target: str
    features: list
    content: bytes | None = None


@dataclass
class SessionTrial:
    """One trial's record: its number and seed, the expert's accuracy on typical pairs, and a checkpoint
    record per entry of ``SessionProtocol.checkpoints``: answers, svr_mae, ssl_mae (test), cv_svr_mae,
    cv_ssl_mae (the assessment's, NaN without one), preferences, alpha (the blend's share of the fit
    with preferences, ``Blend.alpha``; NaN without an assessment); and the expert's ``answers`` in
    order, [row_a, row_b, choice] each."""

    trial: int
    seed: int
    expert_accuracy: float
    checkpoints: list = field(default_factory=list)
    answers: list = field(default_factory=list)


def session_trial(source: SessionSource, protocol: SessionProtocol, trial: int, seed: int) -> SessionTrial:
    """One trial of ``protocol`` on ``source`` (module docstring), in a store in a temporary directory."""
    rng = np.random.default_rng(seed)
    split = {"n_labeled": protocol.n_labeled, "test_fraction": protocol.test_fraction, "seed": seed}
    settings, data = data_settings(source.frame, source.source, source.target, source.features, split)
    expert = ProbitExpert.relative(data.y_true, protocol.expert_noise, protocol.expert_tolerance, protocol.expert_skip)
    record = SessionTrial(trial, seed, expert.accuracy(data.y_true[data.pool], seed=seed))
    if protocol.strategy == "labels":
        record.checkpoints = _labels_instead(data, protocol, rng)
        return record
    try:  # the app extra (sqlalchemy): imported here, so that the protocol and the report need only the core
        from ordercore.studio.session import ACTIVE, SessionEngine
        from ordercore.studio.store import Store
    except ImportError as error:
        raise ValueError(NEEDS_APP) from error
    with tempfile.TemporaryDirectory(prefix="ordercore-session-") as directory:
        store = Store(f"sqlite:///{Path(directory) / 'session.sqlite'}")
        dataset_id = None
        if source.content is not None:
            dataset_id = store.add_dataset("upload", source.frame, source.content)
        session = store.create_session("experiment", dataset_id, settings)
        engine = SessionEngine(store, session.id, owner="experiment", start_assessment=InlineAssessment)
        engine.trust.refine_after = None  # the simulated expert never pauses: no full one follows a warm one
        if protocol.lambda2 is not None:
            parameters = engine.model_settings().parameters | {"lambda2": float(protocol.lambda2)}
            engine.set_model(automatic_trust=False, parameters=parameters)
        try:
            record.checkpoints = _answer_pairs(engine, ACTIVE, expert, protocol, rng, record.answers)
        finally:
            engine.close()
            store.engine.dispose()
    return record


def _answer_pairs(engine, source, expert: ProbitExpert, protocol: SessionProtocol, rng, given) -> list[dict]:
    """The loop of one trial: pairs from the engine's ``source`` (its active choice), answers from the
    expert (appended to ``given``), checkpoints on the way."""
    y, asked, records = engine.data().y_true, [], []
    checkpoints = protocol.checkpoints()
    while True:
        _settle(engine)
        if len(asked) in checkpoints:
            records.append(_checkpoint(engine, len(asked)))
        if len(asked) >= protocol.clicks:
            return records
        next_checkpoint = min(c for c in checkpoints if c > len(asked))  # the last is protocol.clicks
        wanted = min(protocol.batch, next_checkpoint - len(asked))
        drawn = engine.next_pairs(source, EXPERT, rng, protocol.strategy, protocol.candidates, wanted, exclude=asked)
        if not drawn:
            raise ValueError(f"the pool ran out of pairs to ask after {len(asked)} answers")
        for (a, b), swapped in drawn:
            choice = str(expert.answer(y[a], y[b], rng)[0])
            engine.answer(EXPERT, (a, b), choice, swapped=swapped)
            asked.append((a, b))
            given.append([int(a), int(b), choice])


def _settle(engine) -> None:
    """Let the engine catch up as the Studio does between pairs: the assessment of the sources now, and
    SSL retrained with it."""
    engine.trained(wait=True)
    engine.trust.wait()
    engine.trained(wait=True)


def _checkpoint(engine, answers: int) -> dict:
    bench, data = engine.models.workbench, engine.data()
    truth = data.y_true[data.test]
    ssl_test = bench.svr_test if bench.ssl_test is None else bench.ssl_test
    in_force = engine.trust.in_force()
    cv, alpha = {"svr": float("nan"), "ssl": float("nan")}, float("nan")
    if in_force is not None and in_force.trust.cv is not None:
        cv, alpha = in_force.trust.cv.comparison(in_force.trust.blend), in_force.trust.blend.alpha
    return {
        "answers": answers,
        "svr_mae": float(mean_absolute_error(truth, bench.svr_test)),
        "ssl_mae": float(mean_absolute_error(truth, ssl_test)),
        "cv_svr_mae": float(cv["svr"]),
        "cv_ssl_mae": float(cv["ssl"]),
        "preferences": len(engine.preferences()[0]),
        "alpha": alpha,
    }


def _labels_instead(data, protocol: SessionProtocol, rng) -> list[dict]:
    """The labels-instead arm: SVR (the session's default model) on l + floor(answers / label_cost)
    labels at each checkpoint, the extra rows drawn once, in order, from the pool; recorded as its
    ssl_mae, beside svr_mae, SVR's on the l labels (so that its gain reads as the other arms')."""
    settings = ModelSettings.from_settings({})
    extra = rng.permutation(data.pool)
    truth, records, svr_mae = data.y_true[data.test], [], None
    for answers in protocol.checkpoints():
        bought = min(int(answers // protocol.label_cost), extra.size)
        labeled = np.concatenate([data.labeled, extra[:bought]])
        bench = Workbench(replace(data, labeled=labeled), settings.family, dict(settings.parameters), None)
        mae = float(mean_absolute_error(truth, bench.svr_test))
        svr_mae = mae if svr_mae is None else svr_mae  # SVR on the l labels alone, as the other arms'
        records.append(
            {"answers": answers, "svr_mae": svr_mae, "ssl_mae": mae, "labels": int(labeled.size), "preferences": 0}
        )
    return records


def session_experiment(
    source: SessionSource,
    name: str,
    arms: dict,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Every arm (label -> ``SessionProtocol``) of ``arms`` on the same ``trials`` trial seeds, in
    parallel over arms and trials (``trial_backend``: ``jobs`` local processes or a Dask ``scheduler``);
    ``progress(done, total)`` as trials finish.  The result document: per arm its protocol, its trials
    and the checkpoints averaged over them (``average_checkpoints``)."""
    for protocol in arms.values():
        protocol.check()
    seeds = trial_seeds(seed, trials)
    tasks = [(label, k, s) for label in arms for k, s in enumerate(seeds)]
    done, results = 0, {label: [] for label in arms}
    with trial_backend(jobs, scheduler, tasks=len(tasks)) as runner:
        calls = (delayed(_labelled_trial)(source, label, arms[label], k, s) for label, k, s in tasks)
        for label, result in runner(calls):
            results[label].append(result)
            done += 1
            if progress is not None:
                progress(done, len(tasks))
    return {
        "experiment": "session",
        "dataset": name,
        "target": source.target,
        "features": list(source.features),
        "seed": seed,
        "arms": {
            label: {
                "protocol": asdict(arms[label]),
                "trials": [asdict(r) for r in sorted(results[label], key=lambda r: r.trial)],
                "checkpoints": average_checkpoints(results[label]),
            }
            for label in arms
        },
    }


def _labelled_trial(source, label, protocol, trial, seed) -> tuple:
    return label, session_trial(source, protocol, trial, seed)


def average_checkpoints(trials: list[SessionTrial]) -> list[dict]:
    """Per checkpoint, over the trials: answers, mean svr_mae and ssl_mae, the gain 1 - ssl/svr of the
    means, and the paired t-test's p of SSL against SVR (NaN with fewer than 2 trials or no difference)."""
    records = []
    for position, first in enumerate(trials[0].checkpoints if trials else []):
        svr = np.array([t.checkpoints[position]["svr_mae"] for t in trials])
        ssl = np.array([t.checkpoints[position]["ssl_mae"] for t in trials])
        p_value = float("nan")
        if svr.size > 1 and np.any(svr != ssl):
            p_value = float(stats.ttest_rel(svr, ssl).pvalue)
        records.append(
            {
                "answers": first["answers"],
                "svr_mae": float(svr.mean()),
                "ssl_mae": float(ssl.mean()),
                "gain": float(1 - ssl.mean() / svr.mean()),
                "p_value": p_value,
            }
        )
    return records


def session_report(result: dict) -> str:
    """Each arm's gain over SVR at its last checkpoint (mean test MAE, paired t-test), and how many answers
    it took to reach random's final gain when a random arm ran."""
    arms = result["arms"]
    target = arms["random"]["checkpoints"][-1]["gain"] if "random" in arms else None
    lines = []
    for label, arm in arms.items():
        last = arm["checkpoints"][-1]
        line = (
            f"{label}: {last['answers']} answers, SVR {last['svr_mae']:.4g}, SSL {last['ssl_mae']:.4g}, "
            f"gain {100 * last['gain']:+.1f}% ({_paired_test_words(last['p_value'], len(arm['trials']))})"
        )
        if target is not None and target > 0:
            reached = [c["answers"] for c in arm["checkpoints"] if c["answers"] and c["gain"] >= target]
            line += f"; random's {100 * target:.1f}% reached at {reached[0] if reached else 'no checkpoint'}"
        lines.append(line)
    return "\n".join(lines)


def _paired_test_words(p_value: float, n_trials: int) -> str:
    """'p = 0.031', or why there is no p (``average_checkpoints``' NaN, printed 'p = nan' before): one trial,
    or SSL's error equal to SVR's in every trial."""
    if np.isfinite(p_value):
        return f"p = {p_value:.2g}"
    return "one trial: no test" if n_trials < 2 else "no difference: SSL equals SVR in every trial"
