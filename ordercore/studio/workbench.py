"""The models of a labelling session, retrained as its preferences change.

A ``Workbench`` holds two fits of one regressor: ``svr``, on the labels alone (the seeds' SVR
baseline when the regressor is the order-preference LP), and ``ssl``, on the labels and the
session's preferences.  It talks to the regressor only through ``PreferenceRegressor``, and makes it
through the model registry: a family that declares what the Workbench uses (``studio_models``) is on
the Model page.  A retrain has a time limit:
past it the last fit stays in use, and the report says so.  Nothing here imports Streamlit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold

from ordercore.exceptions import SolverTimeLimitError
from ordercore.knowledge.committee_choice import FamilyCommittee, audit_slots, committee_scores
from ordercore.knowledge.pair_choice import NeighbourPairs, recent_window
from ordercore.knowledge.source_weights import weighted
from ordercore.knowledge.trust import SourceTrust
from ordercore.lp.average import AveragedOrderPreferenceRegressor
from ordercore.models.registry import Learns, ModelFamily, Offer, families
from ordercore.pair_scores import RecentRows, StrictGraph, expected_correction, order_scores, rank_unsettled
from ordercore.preferences import COLUMNS, PreferenceSet, is_in, pair_codes
from ordercore.studio.data import StudyData

N_CANDIDATES = 400
"""Random pool pairs the next-question scorer ranks at each step."""

PAIR_STRATEGIES = ("committee", "random", "correction", "margin", "disagreement")
"""How ``Workbench.next_pairs`` ranks its candidates; the first is the Studio's default.  'committee'
(where models of other families say the fit errs, ``knowledge.committee_choice``) bought the most of
an expert right on 80 % of typical pairs: 300 answers gained 13.2 % over SVR on the sample homes and
10.2 % on California, random pairs 9.1 % and 6.2 %, which 'committee' reached within 100 and 50
answers (``experiments session``, 20 trials; docs/REPRODUCTION.md, "What an expert's hour buys")."""

COMMITTEE_FOLDS = 5
"""The labels' folds whose fits make the committee ``Committee`` (each fitted without one fold)."""

PAIR_CANDIDATES = ("any", "neighbours")
"""Where ``Workbench.next_pairs`` draws its candidates: any two pool rows (the default), or
nearest-neighbour pairs (roughly equal in the other features, "all else equal").  Neighbours are close
in value too, so an expert errs more on them and their answers buy less: on California, 300 answers of
an expert right on 80 % of typical pairs gained 2.9 % over SVR from random neighbour pairs against
6.1 % from random pairs (``experiments session``, docs/REPRODUCTION.md)."""

DEFAULT_TIME_LIMIT = 30.0
"""Seconds a retrain may take by default (the Model page's setting); past it the last fit stays."""


class PreferenceRegressor(Protocol):
    """What the Workbench uses of a regressor (``OrderPreferenceRegressor`` is one): what a family
    declares with ``WORKBENCH_OFFERS``.  ``time_limit`` (seconds, or None): a ``fit`` or
    ``update_preferences`` that reaches it raises ``SolverTimeLimitError`` and leaves the last fit in
    place."""

    time_limit: float | None
    preferences_: PreferenceSet
    """The preferences of the fit in force."""
    solve_start_: str
    """How the last solve started: 'cold', 'hot', ..."""

    def fit(self, X, y, preferences=None): ...

    def update_preferences(self, preferences: PreferenceSet):
        """Make ``preferences`` the set in force, warm where the regressor can."""

    def predict(self, X) -> np.ndarray: ...

    def violated(self, preferences: PreferenceSet) -> np.ndarray:
        """Boolean mask (p,) of the preferences the fit violates (``PreferenceSet.violated``)."""

    def get_params(self, deep=True) -> dict: ...


WORKBENCH_OFFERS = frozenset({Offer.UPDATE_PREFERENCES, Offer.TIME_LIMIT})
"""What a family's estimator offers so that the Workbench can retrain it (``PreferenceRegressor``); the
Workbench chooses pairs from its predictions (``pair_scores.order_scores``, ``rank_unsettled``)."""


def studio_models() -> dict[str, ModelFamily]:
    """The regressors the Studio can train (the Model page's choice), by key: every registered family
    that learns from labels and preferences and offers ``WORKBENCH_OFFERS``."""
    return families(learns={Learns.LABELS, Learns.PREFERENCES}, offers=WORKBENCH_OFFERS)


@dataclass
class Retrain:
    """What one retrain did: seconds, how it started (the regressor's ``solve_start_``: 'cold', 'hot',
    ...; 'time limit' when it stopped there), test MAE of SVR and SSL (NaN without a test split),
    preferences violated by each, and how far SSL's test predictions moved (mean absolute change).
    ``timed_out``: it stopped at the time limit, and SSL is the last fit, on ``fitted`` preferences
    (SVR's own fit, on none, when no SSL fit has finished yet)."""

    seconds: float
    start: str
    svr_mae: float
    ssl_mae: float
    svr_violated: int
    ssl_violated: int
    moved: float
    timed_out: bool
    fitted: int


class Violations(NamedTuple):
    """Which preferences (p,) the last retrain's SVR and SSL violate (bool), set at once: a page reading
    it while another thread retrains never pairs one retrain's SVR with the next one's SSL; ``names``
    (p,) their sources and ``revision`` the store's revision they were read at (None: not said), so that
    a page tells figures of the answers now from those of a fit that has not caught up."""

    svr: np.ndarray
    ssl: np.ndarray
    names: np.ndarray | None = None
    revision: int | None = None
    answer_ids: np.ndarray | None = None  # (p,) the answer each preference comes from (NA: a rule's, an import's)

    def fits(self, names) -> bool:
        """Whether these are of the preferences ``names`` (p,) name (a newer answer is not in them yet)."""
        return len(self.svr) == len(names)


@dataclass(frozen=True)
class Committee:
    """Fits of the labels-only model, each without one of ``COMMITTEE_FOLDS`` folds of the labels:
    their ``predictions`` on every row (k, n) and ``scale``, sqrt(2) times the root mean square of
    their held-out residuals (a typical pair's error: the 'correction' strategy's stand-in for how far
    an expert's view of a difference errs)."""

    predictions: np.ndarray
    scale: float

    @classmethod
    def fit(cls, make, X: np.ndarray, y: np.ndarray) -> Committee:
        """The committee of ``make()`` fitted on y (n,; NaN: unlabeled) without each fold in turn."""
        labeled = np.flatnonzero(~np.isnan(y))
        folds = KFold(min(COMMITTEE_FOLDS, labeled.size), shuffle=True, random_state=0)
        predictions, residuals = [], []
        for _, held_out in folds.split(labeled):
            y_fold = y.copy()
            y_fold[labeled[held_out]] = np.nan
            predicted = make().fit(X, y_fold).predict(X)
            predictions.append(predicted)
            residuals.append(predicted[labeled[held_out]] - y[labeled[held_out]])
        return cls(np.array(predictions), float(np.sqrt(2 * np.mean(np.concatenate(residuals) ** 2))))

    def spread(self, pairs: np.ndarray) -> np.ndarray:
        """The committee's standard deviation of f(a) - f(b) for each pair (m, 2), shape (m,)."""
        return (self.predictions[:, pairs[:, 0]] - self.predictions[:, pairs[:, 1]]).std(axis=0)


@dataclass
class Workbench:
    """One regressor of ``studio_models()`` (``model``, its key) fitted twice on a session's data: ``svr``
    on the labels alone, ``ssl`` on labels and preferences.  ``update(preferences)`` retrains ``ssl``
    through ``update_preferences`` (warm for a click or an undo) within ``time_limit`` seconds (None: no
    limit) and keeps what the pages plot: both fits' predictions on every row (``svr_all``, ``ssl_all``,
    (n,)) and on the held-out rows (``svr_test``, ``ssl_test``), and which preferences each violates
    (``violations``).  The next pair is chosen from those predictions, never from the
    models themselves, so it can be drawn while another thread retrains SSL."""

    data: StudyData
    model: str = "lp"
    parameters: dict = field(default_factory=dict)
    time_limit: float | None = DEFAULT_TIME_LIMIT
    family: ModelFamily = field(init=False)
    svr: PreferenceRegressor = field(init=False)
    ssl: PreferenceRegressor | None = field(init=False, default=None)
    svr_all: np.ndarray = field(init=False)
    ssl_all: np.ndarray | None = field(init=False, default=None)
    svr_test: np.ndarray = field(init=False)
    ssl_test: np.ndarray | None = field(init=False, default=None)
    violations: Violations | None = field(init=False, default=None)
    trust: SourceTrust | None = field(init=False, default=None)
    _svr_checked: PreferenceSet = field(init=False, default_factory=PreferenceSet.empty)
    _neighbours: NeighbourPairs | None = field(init=False, default=None)
    _committee: Committee | None = field(init=False, default=None)
    _family_committee: FamilyCommittee | None = field(init=False, default=None)
    _settled: StrictGraph | None = field(init=False, default=None)

    def __post_init__(self):
        models = studio_models()
        if self.model not in models:
            raise ValueError(f"unknown model {self.model!r}; choose one of {sorted(models)}")
        self.family = models[self.model]
        X, y = self.data.dataset.X, self.data.y_train()
        self.svr = self._make().fit(X, y)
        self.svr_all = self.svr.predict(X)
        self.svr_test = self.svr_all[self.data.test]

    def _make(self, trusted: bool = False) -> PreferenceRegressor:
        """A new regressor with the page's settings; ``trusted``: the blend of lambda1, lambda2 settings
        ``trust`` chose (``AveragedOrderPreferenceRegressor``, at the page's gamma)."""
        if trusted and self.trust is not None:
            gamma = self.family.settings(self.parameters)["gamma"]
            blend = self.trust.trust.blend.parameters()  # members of weight 0 are not fitted
            return AveragedOrderPreferenceRegressor(**blend, gamma=gamma, time_limit=self.time_limit)
        return self.family.make(self.parameters, self.time_limit)

    @property
    def trust_applies(self) -> bool:
        """Whether automatic trust can cross-validate this regressor (its family offers it)."""
        return Offer.AUTOMATIC_TRUST in self.family.offers

    def use_trust(self, trust: SourceTrust) -> None:
        """From now on SSL is fitted with the weights and lambda1, lambda2 ``trust`` chose (the next
        ``update`` fits cold)."""
        self.trust, self.ssl = trust, None

    def clear_trust(self) -> None:
        """Back to the page's own lambda1, lambda2 and the stored weights (the next ``update`` fits cold)."""
        self.trust, self.ssl = None, None

    def _retrain(self, preferences: PreferenceSet) -> bool:
        """Fit ``ssl`` to ``preferences`` (warm where it can); False if it stopped at the time limit,
        which leaves the last fit (or none) in place."""
        try:
            if self.ssl is None:
                X, y = self.data.dataset.X, self.data.y_train()
                self.ssl = self._make(trusted=True).fit(X, y, preferences)
            else:
                self.ssl.update_preferences(preferences)
        except SolverTimeLimitError:
            return False
        return True

    def _svr_violations(self, preferences: PreferenceSet) -> np.ndarray:
        """``svr.violated(preferences)`` (p,), checking only preferences the last call did not see in the
        same place: SVR never changes, and a click or an undo only adds or drops the last few."""
        checked = self._svr_checked
        n = min(len(checked), len(preferences))
        shared = all(np.array_equal(getattr(checked, name)[:n], getattr(preferences, name)[:n]) for name in COLUMNS)
        known = self.violations.svr[:n] if n and shared else np.zeros(0, dtype=bool)
        self._svr_checked = preferences
        return np.concatenate([known, self.svr.violated(preferences[known.size :])])

    def update(
        self,
        preferences: PreferenceSet,
        names: np.ndarray | None = None,
        revision: int | None = None,
        answer_ids=None,
    ) -> Retrain:
        """Retrain SSL for ``preferences`` (p,) and recompute the plot data for them: with the new
        fit, or with the last one if the retrain stopped at the time limit.  ``names`` (p,) says each
        preference's source (with ``trust`` assessed, its weight multiplies the preference's);
        ``revision``, the store's revision they were read at, and ``answer_ids`` (p,), the answer each comes
        from (NA: a rule's or an import's), are kept with the ``violations``."""
        start = time.perf_counter()
        if self.trust is not None and names is not None:
            preferences = weighted(preferences, np.arange(len(preferences)), self.trust.preference_weights(names))
        finished = self._retrain(preferences)
        seconds = time.perf_counter() - start
        serving = self.svr if self.ssl is None else self.ssl
        self.ssl_all = serving.predict(self.data.dataset.X)
        previous, self.ssl_test = self.ssl_test, self.ssl_all[self.data.test]
        self.violations = Violations(
            self._svr_violations(preferences), serving.violated(preferences), names, revision, answer_ids
        )
        svr_mae = ssl_mae = moved = float("nan")
        if self.data.test.size:
            truth = self.data.y_true[self.data.test]
            svr_mae = float(mean_absolute_error(truth, self.svr_test))
            ssl_mae = float(mean_absolute_error(truth, self.ssl_test))
            if previous is not None:
                moved = float(np.mean(np.abs(self.ssl_test - previous)))
        return Retrain(
            seconds=seconds,
            start=serving.solve_start_ if finished else "time limit",
            svr_mae=svr_mae,
            ssl_mae=ssl_mae,
            svr_violated=int(self.violations.svr.sum()),
            ssl_violated=int(self.violations.ssl.sum()),
            moved=moved,
            timed_out=not finished,
            fitted=len(serving.preferences_),
        )

    def next_pairs(
        self,
        strategy: str,
        rng: np.random.Generator,
        n: int = 1,
        candidates: str = PAIR_CANDIDATES[0],
        preferences: PreferenceSet | None = None,
        exclude: np.ndarray | None = None,
        audited: int = 0,
        recent: np.ndarray | None = None,
    ) -> np.ndarray:
        """Up to n distinct pairs of pool rows (≤ n, 2) to ask next, none of ``exclude`` ((k, 2) row pairs,
        either way round), in the order to ask them: 'committee' (where other models order a pair
        against the fit by the widest gap, with audit pairs where ``audit_slots`` puts them for an
        annotator with ``audited`` answers on them: ``committee_choice``), 'correction' (an answer most
        likely corrects SSL: ``pair_scores.expected_correction`` with the labels' ``Committee``), 'margin'
        (SSL least sure of the order), 'disagreement' (SSL and SVR differ most) or 'random', ranked among
        ``N_CANDIDATES`` (at least 4n) candidates: 'neighbours' (a row and one of its close pool
        neighbours of its category: ``NeighbourPairs.alike``) or 'any' (two pool rows at
        random).  Scored from the last finished fits' predictions (SVR's before SSL's first), skipping
        pairs ``preferences`` (the session's now, which may be newer than the fit; default: SSL's) settle.
        The choices led by the models (all but 'random') ask no row of the annotator's last
        ``recent_window`` questions (``recent`` (k, 2): the row pairs they were asked, oldest first, then
        those chosen before, ``pair_scores.RecentRows``) unless no other pair is left.
        Empty when the pool has < 2 rows."""
        if strategy not in PAIR_STRATEGIES:
            raise ValueError(f"strategy must be one of {PAIR_STRATEGIES}, got {strategy!r}")
        if candidates not in PAIR_CANDIDATES:
            raise ValueError(f"candidates must be one of {PAIR_CANDIDATES}, got {candidates!r}")
        pool = self.data.pool
        if pool.size < 2:
            return np.zeros((0, 2), dtype=np.int64)
        pairs = self._candidates(candidates, max(N_CANDIDATES, 4 * n), rng)
        if exclude is not None and len(exclude):
            rows, exclude = len(self.data.y_true), np.asarray(exclude, dtype=np.int64).reshape(-1, 2)
            asked = np.sort(pair_codes(exclude[:, 0], exclude[:, 1], rows)[0])
            pairs = pairs[~is_in(pair_codes(pairs[:, 0], pairs[:, 1], rows)[0], asked)]
        if preferences is None:
            preferences = PreferenceSet.empty() if self.ssl is None else self.ssl.preferences_
        fitted = self.svr_all if self.ssl_all is None else self.ssl_all
        kinds = slots = None
        if strategy == "random":  # in the candidates' random order, none the preferences settle (answered)
            scores = np.zeros(len(pairs))
        elif strategy == "committee":
            dissent = self.family_committee().dissent(pairs, fitted)
            certainty = np.abs(self.svr_all[pairs[:, 0]] - self.svr_all[pairs[:, 1]])
            scores, kinds = committee_scores(pairs, dissent, certainty)
            slots = audit_slots(n, audited, rng)
        elif strategy == "correction":
            committee = self.committee()
            difference = fitted[pairs[:, 0]] - fitted[pairs[:, 1]]
            scores = expected_correction(difference, committee.spread(pairs), committee.scale)
        else:
            scores = order_scores(fitted, pairs, self.svr_all if strategy == "disagreement" else None)
        window = None  # random pairs spread over the rows by themselves; the models' choices do not
        if strategy != "random":
            asked = np.reshape(np.zeros((0, 2)) if recent is None else recent, (-1, 2)).astype(np.int64)
            window = RecentRows(asked, recent_window(pool.size))
        graph = self._strict_graph(preferences)
        chosen, _ = rank_unsettled(scores, pairs, n, preferences, graph, recent=window, kinds=kinds, slots=slots)
        return chosen if len(chosen) else pairs[:n]

    def _strict_graph(self, preferences: PreferenceSet) -> StrictGraph:
        """The ``StrictGraph`` of ``preferences``, merged from the last draw's when they extend its set."""
        if self._settled is None:
            self._settled = StrictGraph.of(preferences, len(self.data.y_true))
        else:
            self._settled = self._settled.extended(preferences)
        return self._settled

    def committee(self) -> Committee:
        """The labels-only model's ``Committee``, fitted once (the labels do not change)."""
        if self._committee is None:
            self._committee = Committee.fit(self._make, self.data.dataset.X, self.data.y_train())
        return self._committee

    def family_committee(self) -> FamilyCommittee:
        """Other model families fitted on the labels (``FamilyCommittee``), once."""
        if self._family_committee is None:
            self._family_committee = FamilyCommittee.fit(self.data.dataset.X, self.data.y_train())
        return self._family_committee

    def _candidates(self, kind: str, m: int, rng: np.random.Generator) -> np.ndarray:
        """m candidate pairs of pool rows (distinct unordered pairs, ≤ m, 2), drawn as ``next_pairs`` says."""
        pool = self.data.pool
        if kind == "neighbours":
            if self._neighbours is None:
                self._neighbours = NeighbourPairs.alike(self.data.dataset, pool)
            pairs = self._neighbours.draw(m, rng)
        else:
            pairs = np.column_stack([rng.choice(pool, m), rng.choice(pool, m)])
            pairs = pairs[pairs[:, 0] != pairs[:, 1]]
        _, first = np.unique(np.sort(pairs, axis=1), axis=0, return_index=True)
        return pairs[np.sort(first)]

    def next_pair(
        self,
        strategy: str,
        rng: np.random.Generator,
        candidates: str = PAIR_CANDIDATES[0],
        preferences: PreferenceSet | None = None,
    ) -> tuple[int, int] | None:
        """``next_pairs(strategy, rng, 1, candidates, preferences)``'s pair, or None when the pool has < 2 rows."""
        pairs = self.next_pairs(strategy, rng, 1, candidates, preferences)
        return tuple(int(v) for v in pairs[0]) if len(pairs) else None

    def next_rule_pair(
        self, made: PreferenceSet, answered: np.ndarray, rng: np.random.Generator
    ) -> tuple[int, int] | None:
        """``next_rule_pairs(made, answered, rng, 1)``'s pair, or None when none is left."""
        pairs = self.next_rule_pairs(made, answered, rng, 1)
        return pairs[0][0] if pairs else None

    def next_rule_pairs(
        self, made: PreferenceSet, answered: np.ndarray, rng: np.random.Generator, count: int
    ) -> list[tuple[tuple[int, int], bool]]:
        """Up to ``count`` distinct (pair, swapped) to audit a rule with: the rule's preferences ``made`` whose two
        rows are in the pool (never a held-out test row) and not yet answered (``answered``: row pairs
        (k, 2) already asked of this rule, or offered, either way round), drawn uniformly without
        replacement; A is the rule's winner half the time (swapped: A is the loser), so the order shown
        gives nothing away."""
        n = len(self.data.y_true)
        in_pool = np.zeros(n, dtype=bool)
        in_pool[self.data.pool] = True
        pairwise = (made.i >= 0) & (made.j >= 0)
        i, j = made.i[pairwise], made.j[pairwise]
        keep = in_pool[i] & in_pool[j]
        answered = np.asarray(answered, dtype=np.int64).reshape(-1, 2)
        if answered.size:
            keep &= ~is_in(pair_codes(i, j, n)[0], np.sort(pair_codes(answered[:, 0], answered[:, 1], n)[0]))
        candidates = np.flatnonzero(keep)
        chosen = rng.choice(candidates, size=min(count, candidates.size), replace=False)
        flip = rng.random(chosen.size) >= 0.5
        return [
            (((int(j[k]), int(i[k])) if back else (int(i[k]), int(j[k]))), bool(back))
            for k, back in zip(chosen, flip, strict=True)
        ]
