"""A session's models, kept trained: the ``Workbench`` (SVR on the labels, SSL on labels and
preferences) for the session's model settings, retrained once per change of its preferences or of the
trust in force, warm where the regressor can; the history of retrains; the GP fit in the background.

``ModelSettings`` are the session's own (stored with its settings, the same for every annotator).  A
setting the current mode does not use never restarts work: under automatic trust SSL is the blend the
assessment chose, so lambda2 matters only until the first assessment is in force (then SSL is refitted,
nothing else); the time limit applies to the next retrain without a refit.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pandas as pd

from ordercore.exceptions import SolverError
from ordercore.knowledge.trust import SourceTrust
from ordercore.models.registry import Offer
from ordercore.preferences import PreferenceSet
from ordercore.studio.comparisons import GPFitStart, start_gp_fit
from ordercore.studio.data import StudyData
from ordercore.studio.model_moves import RetrainCause
from ordercore.studio.workbench import DEFAULT_TIME_LIMIT, Workbench, studio_models

HISTORY_LENGTH = 1_000
"""Retrains kept in memory (the Model page plots the stored model runs, not these)."""


@dataclass(frozen=True)
class ModelSettings:
    """The session's model: ``family`` (a key of ``studio_models()``), its ``parameters`` (the page's
    settings; the estimator's defaults for the others), whether ``automatic_trust`` weighs the sources
    and chooses SSL's blend, and the seconds a retrain may take."""

    family: str = "lp"
    parameters: dict = field(default_factory=dict)
    automatic_trust: bool = True
    time_limit: float = DEFAULT_TIME_LIMIT

    @classmethod
    def from_settings(cls, settings: dict) -> ModelSettings:
        """The settings stored with a session (its defaults where nothing is stored, or a family no longer
        registered is named)."""
        stored, models = settings.get("model", {}), studio_models()
        family = stored.get("family") if stored.get("family") in models else "lp"
        parameters = models[family].settings(stored.get("parameters", {}))
        return cls(
            family,
            parameters,
            bool(stored.get("automatic_trust", True)),
            float(stored.get("time_limit", DEFAULT_TIME_LIMIT)),
        )

    def to_settings(self) -> dict:
        return asdict(self)

    def changed(self, **changes) -> ModelSettings:
        """These settings with ``changes``; ``ValueError`` for an unknown family or setting."""
        new, models = replace(self, **changes), studio_models()
        if new.family not in models:
            raise ValueError(f"unknown model {new.family!r}; choose one of {sorted(models)}")
        unknown = set(new.parameters) - set(models[new.family].studio_settings)
        if unknown:
            raise ValueError(f"{models[new.family].label} has no setting {sorted(unknown)}")
        return replace(new, parameters=models[new.family].settings(new.parameters), time_limit=float(new.time_limit))

    def trust_applies(self) -> bool:
        """Whether automatic trust can cross-validate this family (it offers it)."""
        return Offer.AUTOMATIC_TRUST in studio_models()[self.family].offers

    def svr_key(self) -> tuple:
        """What SVR depends on: the family and every setting but those that only weigh the preferences."""
        declared = studio_models()[self.family].studio_settings
        used = ((k, v) for k, v in self.parameters.items() if not declared[k].weighs_preferences)
        return self.family, tuple(sorted(used, key=lambda item: item[0]))


class SessionModels:
    """The session's SVR/SSL pair and what its retrains did; one per session, shared by every tab.  A
    retrain (``retrain``) runs in the session engine's background thread; the pages read the last
    finished one (``workbench``'s predictions, ``history``, ``error``) and never wait for the next,
    but for the Model page (``SessionEngine.trained(wait=True)``).  ``_fitting`` is held while a
    Workbench changes, so a page never sees one half changed."""

    def __init__(self, record_run):
        self._record_run = record_run  # record_run(settings, report, n_preferences, trust) after a retrain
        self._lock = threading.RLock()
        self._fitting = threading.RLock()
        self.workbench: Workbench | None = None
        self._key: tuple | None = None
        self._signature: tuple | None = None
        self._preferences: PreferenceSet | None = None  # the last retrain's, for what the next one changed
        self.history: list[dict] = []
        self.error: str | None = None
        self.version = 0
        """Changes after every retrain (a page that shows the model redraws)."""
        self.gp: dict | None = None  # {'start': GPFitStart, 'revision': int, 'data': data key}

    def bench(self, data: StudyData, data_key, settings: ModelSettings) -> Workbench:
        """The Workbench for this data and these settings: rebuilt (SVR refitted) only when what SVR
        depends on changes; a preference setting or the time limit changes in place."""
        key = (data_key, settings.svr_key())
        bench = self.workbench
        if self._key == key and bench.parameters == settings.parameters and bench.time_limit == settings.time_limit:
            return bench  # nothing to change: no wait for a retrain running meanwhile
        with self._fitting:
            if self._key != key:
                self.workbench = Workbench(data, settings.family, dict(settings.parameters), settings.time_limit)
                self._key, self._signature, self.history, self.error = key, None, [], None
            bench = self.workbench
            if bench.parameters != settings.parameters:
                bench.parameters = dict(settings.parameters)
                if bench.trust is None:
                    bench.ssl = None  # SSL uses the preference settings: refit it
            if bench.time_limit != settings.time_limit:
                bench.time_limit = settings.time_limit
                for model in (bench.svr, bench.ssl):
                    if model is not None:
                        model.set_params(time_limit=settings.time_limit)
            return bench

    def retrain(
        self,
        bench: Workbench,
        revision,
        preferences: PreferenceSet,
        names: np.ndarray,
        trust: SourceTrust | None,
        settings: ModelSettings,
        answer_ids=None,
    ) -> None:
        """Refit SSL for these preferences (p,) with their source ``names`` (p,) and the answer each comes
        from (``answer_ids`` (p,), NA for a rule's or an import's), weighed by ``trust`` (the assessment in
        force, or None), once per change of any of them; a failure is kept in ``error``."""
        with self._fitting:
            # the preference settings count only without trust in force: the blend replaces them
            used = () if trust is not None else tuple(sorted(bench.parameters.items(), key=lambda item: item[0]))
            signature = (id(bench), revision, None if trust is None else id(trust), used)
            previous, self._signature = self._signature, signature
            if signature == previous:
                return
            cause = RetrainCause.between(
                self._preferences if previous is not None else None,
                preferences,
                previous is not None and previous[2] != signature[2],
                bench.ssl if bench.ssl is not None else bench.svr,
                trust.preference_weights(names) if trust is not None else None,
            )
            if trust is not bench.trust:
                bench.use_trust(trust) if trust is not None else bench.clear_trust()
            try:
                report = bench.update(preferences, names, revision, answer_ids)
            except (ValueError, SolverError) as error:
                self._finished(error=str(error))
                return
            self._preferences = preferences
            entry = {"preferences": len(preferences), **report.__dict__, "cause": replace(cause, finished=time.time())}
            self._finished(history=[*self.history[-HISTORY_LENGTH + 1 :], entry])
        if bench.data.test.size and not report.timed_out:
            self._record_run(settings, report, len(preferences), trust)

    def _finished(self, error: str | None = None, history: list | None = None) -> None:
        with self._lock:
            self.error = error
            if history is not None:
                self.history = history
            self.version += 1

    def last(self) -> dict | None:
        """The last retrain's report (as a dict), or None before the first."""
        return self.history[-1] if self.history else None

    # ------------------------------------------------------------------------------- the GP fit
    def start_gp(self, data: StudyData, data_key, preferences: PreferenceSet, revision) -> GPFitStart:
        """Start fitting the GP on the session's pairwise preferences in the background, cancelling
        the one before; ``ValueError`` (nothing started) when it cannot be fitted."""
        with self._lock:
            self.cancel_gp()
            start = start_gp_fit(data, preferences, np.random.default_rng(0))
            self.gp = {"start": start, "revision": revision, "data": data_key}
            return start

    def gp_fit(self, data_key) -> dict | None:
        """The GP fit of this data ({'start': GPFitStart, 'revision': the preferences' revision it
        started from}), or None; a fit of other data is cancelled and forgotten."""
        with self._lock:
            if self.gp is not None and self.gp["data"] != data_key:
                self.cancel_gp()
            return self.gp

    def cancel_gp(self) -> None:
        with self._lock:
            if self.gp is not None:
                self.gp["start"].job.cancel()
                self.gp = None


def violations_by_source(bench: Workbench, names: np.ndarray) -> pd.DataFrame:
    """Per source (``names``, p,): its preferences and how many SVR and SSL violate (empty until a
    retrain of these preferences has finished)."""
    columns = ["source", "preferences", "violated by SVR", "violated by SSL"]
    violations = bench.violations  # read once: a retrain may replace it
    if violations is None or not len(names) or not violations.fits(names):
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame({"source": names, "svr": violations.svr, "ssl": violations.ssl})
    table = frame.groupby("source").agg(preferences=("svr", "size"), svr=("svr", "sum"), ssl=("ssl", "sum"))
    return table.reset_index().set_axis(columns, axis=1)
