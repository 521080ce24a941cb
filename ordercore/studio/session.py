"""The labelling session engine: one object per session over the store, with no Streamlit in it.

A page draws what the engine holds and forwards the expert's actions to it.  Every write (an answer, an
undo or edit, a rule, a grade, an import) is checked (``session_checks``) and committed to the store
first; then the sources of preferences have changed, so automatic trust assesses them again
(``session_trust``), and the next ``trained()`` refits SSL, warm (``training``).  What an engine holds
in memory is rebuilt from the store on demand: two engines over one store see the same session."""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid

import numpy as np
import pandas as pd

from ordercore.knowledge.agreement import annotator_weights, intransitive_triples, kappa_table, weigh_clicks
from ordercore.knowledge.label_curve import LabelCurve
from ordercore.knowledge.label_cv import FOLDS
from ordercore.knowledge.quality import check_preference_graph, rule_checks, rule_quality, rule_trust
from ordercore.knowledge.rules import Rule
from ordercore.knowledge.source_weights import SourceCheck, labeled_pair_check, rule_source, source_names
from ordercore.preferences import PreferenceSet
from ordercore.studio import session_checks as checks
from ordercore.studio.answer_counts import AnswerCounts
from ordercore.studio.data import StudyData, load_source, study_data
from ordercore.studio.grading import SessionGrading
from ordercore.studio.jobs.trust import BackgroundAssessment
from ordercore.studio.offers import AnnotatorHistory
from ordercore.studio.ratings import default_items
from ordercore.studio.session_checks import check_file, check_model, check_options, check_rule, in_session, stored_ok
from ordercore.studio.session_files import export_session_file, import_session_file, read_session_file
from ordercore.studio.session_trust import AssessmentInputs, SessionTrust
from ordercore.studio.shared_queue import open_queued_pairs, queue_summary
from ordercore.studio.store import DEFAULT_RATING_SCALE, SessionInfo, Store, check_annotator
from ordercore.studio.training import ModelSettings, SessionModels
from ordercore.studio.workbench import PAIR_CANDIDATES, PAIR_STRATEGIES, Workbench

OPTION_GROUPS = ("labelling", "ratings", "model")
"""Settings stored with a session that do not change its data."""

LABELLING = {"goal": 0, "weigh_annotators": False}
"""The labelling options and their defaults: the number of answers aimed at (0: none), and whether each
annotator's clicks weigh by their agreement with the others (``agreement.weigh_clicks``)."""

RATINGS = {"scale": DEFAULT_RATING_SCALE, "text": None}
"""The rating options and their defaults: the number of grades K (1 … K), and the text column graded (None: rows)."""

ACTIVE, QUEUE = checks.PAIR_SOURCES
"""Where the next pair comes from besides a rule's id: the active choice, or the shared queue."""


class SessionEngine:
    """One labelling session over ``store``.  ``owner`` names this engine in the store's claims (host,
    process and a random part by default); ``start_assessment`` makes automatic trust's job (a test may
    count or replace it).  Thread-safe: one engine serves every tab of a Studio process."""

    def __init__(self, store: Store, session_id: int, owner: str | None = None, start_assessment=BackgroundAssessment):
        self.store, self.id = store, store.session_by_id(session_id).id  # KeyError: an unknown id, True, 1.0
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.trust = SessionTrust(store, self.id, self.owner, start_assessment, on_change=self.changed)
        self.models = SessionModels(self._record_run)
        self.grading = SessionGrading()
        self._lock, self._memos = threading.RLock(), {}  # memos: name -> (key, value)
        self._follow_up = threading.Condition()
        self._wanted = False  # a follow-up is asked for
        self._follower: threading.Thread | None = None

    # ------------------------------------------------------------------------------ the stored session
    def info(self) -> SessionInfo:
        return self.store.session_by_id(self.id)

    def revision(self) -> int:
        """Changes with every write of the session's rules, answers or preferences."""
        return self.store.revision(self.id)

    def memo(self, name: str, key, compute):
        """``compute()``, recomputed only when ``key`` changes (one value per name, shared by every tab).
        No lock is held while it computes: two threads may both compute a new value, never wait."""
        cached = self._memos.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        value = compute()
        with self._lock:
            self._memos[name] = (key, value)
        return value

    # ------------------------------------------------------------------------------ data
    def data_settings(self, settings: dict | None = None) -> dict:
        """The settings that make the session's data (its source, target, features and split)."""
        settings = self.info().settings if settings is None else settings
        return {name: value for name, value in settings.items() if name not in OPTION_GROUPS}

    def data_key(self) -> str:
        return json.dumps(self.data_settings(), sort_keys=True)

    def data(self) -> StudyData | None:
        """The session's prepared data and split, or None before its data is chosen."""
        info = self.info()
        settings = self.data_settings(info.settings)
        if not settings.get("source"):
            return None

        def prepare() -> StudyData:
            content = self.store.dataset(info.dataset_id)["content"] if settings["source"] == "upload" else None
            frame = load_source(settings["source"], content)[0]
            return study_data(frame, settings["target"], settings["features"], settings)

        return self.memo("data", (info.dataset_id, json.dumps(settings, sort_keys=True)), prepare)

    # ------------------------------------------------------------------------------ options
    def options(self, group: str) -> dict:
        """A group of options stored with the session ('labelling' or 'ratings'), defaults filled in."""
        defaults = check_options(group, {"labelling": LABELLING, "ratings": RATINGS})
        return defaults | self.info().settings.get(group, {})

    def set_options(self, group: str, **changes) -> None:
        """Store changed options (read afresh, so that a change made meanwhile elsewhere is kept);
        ``ValueError`` from the store (a rating scale off 2 … 9, or changed once grades are held)."""
        settings = dict(self.info().settings)
        check_options(group, {"labelling": LABELLING, "ratings": RATINGS}, changes, self.data())
        settings[group] = self.options(group) | changes
        self.store.update_settings(self.id, settings)
        self.changed()

    def model_settings(self) -> ModelSettings:
        return ModelSettings.from_settings(self.info().settings)

    def set_model(self, **changes) -> ModelSettings:
        """Store the session's model settings with ``changes`` (``ModelSettings`` fields); every annotator
        trains with them.  Work starts only where a setting in use changed; ``ValueError``: one not offered."""
        current = self.model_settings()
        check_model(changes.get("family", current.family), changes)
        new = current.changed(**changes)
        if new != current:
            settings = dict(self.info().settings)
            settings["model"] = new.to_settings()
            self.store.update_settings(self.id, settings)
            self.changed()
        return new

    # ------------------------------------------------------------------------------ reads
    def preferences(self) -> tuple[PreferenceSet, pd.DataFrame]:
        """The session's preferences (p,) and their provenance, read once per write; with 'weigh_annotators'
        on, each click weighs by its annotator's agreement with the others."""
        weigh = self.options("labelling")["weigh_annotators"]

        def read():
            preferences, provenance = self.store.preferences(self.id)
            if weigh:
                preferences = weigh_clicks(preferences, provenance, annotator_weights(self.store.answers(self.id)))
            return preferences, provenance

        return self.memo("preferences", (self.revision(), weigh), read)

    def answers(self) -> pd.DataFrame:
        return self.memo("answers", self.revision(), lambda: self.store.answers(self.id))

    def rules(self) -> list[tuple[int, Rule]]:
        return self.memo("rules", self.revision(), lambda: self.store.rules(self.id))

    def grades(self) -> pd.DataFrame:
        return self.store.grades(self.id)

    def sources(self) -> np.ndarray:
        """The source name of each preference (p,): 'rule #NUMBER: NAME', 'clicks: ANNOTATOR' or 'imported'."""
        return self.preferences_by_source()[1]

    def preferences_by_source(self) -> tuple[PreferenceSet, np.ndarray]:
        """The preferences (p,) and their ``sources`` (p,) of one read (apart, 115 met 116 names: nu14 F2)."""
        return (read := self.preferences())[0], self._source_names(read[1])

    def _source_names(self, provenance: pd.DataFrame) -> np.ndarray:
        """The sources of one read's ``provenance``, once per read (the memo holds it: its id names no other)."""

        def named():
            rules = {rule_id: rule.name for rule_id, rule in self.rules()}
            return provenance, source_names(provenance, rules, self.store.rule_numbers(self.id))

        return self.memo("sources", id(provenance), named)[1]

    def source_checks(self, data: StudyData) -> dict[str, SourceCheck]:
        """Each source's ``SourceCheck`` by name: a rule's labeled pairs that meet its conditions and the
        audit answers to its pairs; clicks' and imports' own preferences between two labeled rows."""

        def checks() -> dict:
            stored, y, numbers = self.rules(), data.y_train(), self.store.rule_numbers(self.id)
            found = {
                rule_source(numbers[rule_id], rule.name): SourceCheck.concatenate(pair)
                for (rule_id, rule), pair in zip(
                    stored, rule_checks(stored, data.frame, y, self.answers()), strict=True
                )
            }
            preferences, names = self.preferences_by_source()
            for name in set(names) - set(found):
                found[name] = labeled_pair_check(preferences[names == name], y)
            return found

        return self.memo("checks", (self.data_key(), self.revision()), checks)

    # ------------------------------------------------------------------------------ writes
    def answer(self, annotator: str, pair, choice: str, *, weight=1.0, margin=0.0, rule_id=None, swapped=None) -> int:
        """Store ``annotator``'s answer to ``pair`` (rows (a, b) as shown): 'a', 'b', 'equal' or 'skip'."""
        row_a, row_b = checks.check_answer(self._need_data(), pair, margin)
        answer_id = self.store.add_answer(
            self.id, row_a, row_b, choice, annotator, weight=weight, margin=margin, rule_id=rule_id, swapped=swapped
        )
        self.changed()
        return answer_id

    def undo_answer(self, annotator: str) -> int | None:
        """Remove ``annotator``'s own last answer (another annotator's stay); its id, or None."""
        return self._changed(self.store.undo_answer(self.id, annotator))

    def edit_answer(self, annotator: str, answer_id: int, choice: str) -> None:
        self._changed(self.store.edit_answer(in_session(answer_id, self.answers()["id"], "answer"), annotator, choice))

    def remove_answer(self, annotator: str, answer_id: int) -> None:
        self._changed(self.store.remove_answer(in_session(answer_id, self.answers()["id"], "answer"), annotator))

    def add_rule(self, annotator: str, rule: Rule, made: PreferenceSet) -> int:
        """Store ``rule`` with the preferences it made; ``ValueError`` (nothing stored) for a margin the
        models cannot fit, a rule the session holds, or ``made`` it does not make (``rule_preferences``)."""
        check_rule(self._need_data(), rule, made)  # made checked: count, margin, weight and a sample of pairs
        return self._changed(self.store.add_rule(self.id, rule, made, annotator))

    def remove_rule(self, rule_id: int) -> None:
        self._changed(self.store.remove_rule(in_session(rule_id, [k for k, _ in self.rules()], "rule")))

    def import_file(self, name: str, content: bytes, annotator: str) -> str:
        """Import an exported file (preferences, answers, rules or grades), checked whole before anything
        is written; what happened, in words.  ``ValueError``/``KeyError`` for a bad file."""
        data = self._need_data()
        labeled = np.isin(np.arange(len(data.frame)), data.labeled)
        file = read_session_file(name, content, data.row_names)
        check_file(file, data)
        return self._changed(import_session_file(self.store, self.id, file, data.frame, labeled, annotator))

    def export(self, kind: str, format: str | None = None) -> str:
        """The session's ``kind`` file, rows by id (``session_files.export_session_file``)."""
        return export_session_file(self.store, self.id, kind, self._need_data().row_names, format)

    def queue_pairs(self, pairs: np.ndarray, copies: int, annotator: str) -> int:
        """Add pairs (k, 2) to the shared queue, each for ``copies`` annotators; how many were new."""
        return self.store.queue_pairs(self.id, pairs, copies, annotator)

    def queue_summary(self, annotator: str) -> dict:
        return queue_summary(self.store.queued_pairs(self.id), self.answers(), annotator)

    def grade(self, annotator: str, row: int, value: int) -> int:
        return self.store.add_grade(self.id, row, value, annotator)

    def undo_grade(self, annotator: str) -> int | None:
        """Remove ``annotator``'s own last grade; the row it graded, or None."""
        own = self.grades().loc[lambda grades: grades["annotator"] == check_annotator(annotator)]
        return None if self.store.undo_grade(self.id, annotator) is None else int(own["row"].iloc[-1])

    def edit_grade(self, annotator: str, grade_id: int, value: int) -> None:
        self.store.edit_grade(in_session(grade_id, self.grades()["id"], "grade"), annotator, value)

    def remove_grade(self, annotator: str, grade_id: int) -> None:
        self.store.remove_grade(in_session(grade_id, self.grades()["id"], "grade"), annotator)

    # ------------------------------------------------------------------------------ grades
    def rating_options(self) -> dict:
        """The rating options; before any choice or grade, a table of texts starts on its texts
        (``default_items``; stored, so that grades keep it)."""
        if "text" not in self.info().settings.get("ratings", {}) and self.grades().empty:
            data = self.data()
            if data is not None:
                self.set_options("ratings", text=default_items(data))
        return self.options("ratings")

    def rating_items(self, text: str | None):
        """What is graded (``ratings.RatingItems``); ``ValueError`` when these items cannot be graded."""
        return self.grading.items(self._need_data(), self.data_key(), text)

    def rating_fit(self, text: str | None, model_name: str, wait: bool = False) -> dict:
        """The rating model as last fitted on the session's grades; a refit of the grades now runs in the
        background (``SessionGrading.fit``; with ``wait``, awaited)."""
        scale, items = self.options("ratings")["scale"], self.rating_items(text)
        return self.grading.fit(items, (self.data_key(), text), model_name, self.grades(), scale, wait)

    def _changed(self, result):
        """After a write: what follows (``changed``), and the write's own result."""
        self.changed()
        return result

    def _need_data(self) -> StudyData:
        if (data := self.data()) is None:
            raise ValueError("choose this session's data on the Data page first")
        return data

    # ------------------------------------------------------------------------------ automatic trust
    def assessment_inputs(self) -> AssessmentInputs | None:
        """What automatic trust assesses now, or None: it is off, the model cannot be cross-validated
        this way, there are no preferences, or fewer than 2 labels per fold."""
        settings, data = self.model_settings(), self.data()
        if data is None or not settings.automatic_trust or not settings.trust_applies():
            return None
        lambda1, gamma = settings.parameters["lambda1"], settings.parameters["gamma"]
        while True:  # the preferences and the answers that check them, of one revision
            revision = self.revision()  # before the reads: a write meanwhile shows, and they are read again
            preferences, names = self.preferences_by_source()
            if not len(preferences) or np.count_nonzero(~np.isnan(data.y_train())) < 2 * FOLDS:
                return None
            key = (self.data_key(), revision, len(preferences), lambda1, gamma)
            found = self.memo(
                "assessment_inputs", key,
                lambda p=preferences, names=names: AssessmentInputs(
                    data.dataset.X, data.y_train(), p, names, self.source_checks(data), lambda1, {"gamma": gamma}
                ),
            )  # fmt: skip
            if self.revision() == revision:  # (an answer between the reads gave two warm steps for one)
                return found

    def sync_trust(self) -> None:
        """Tell automatic trust the sources now: it starts their assessment if it is new."""
        self.trust.update(self.assessment_inputs())

    # ------------------------------------------------------------------------------ the models
    def changed(self) -> None:
        """Something was written or asked for: in a background thread of the engine, assess the sources
        again if they changed (``sync_trust``) and retrain SSL if its preferences, settings or trust
        changed (``catch_up``).  Never waits: the click that caused it moves on at once; requests
        while it works are folded into one more round."""
        with self._follow_up:
            self._wanted = True
            if self._follower is None:
                # daemon=False (not inherited from a daemon caller): exit waits for the round (a daemon in HiGHS aborts)
                self._follower = threading.Thread(target=self._follow, daemon=False, name=f"session-{self.id}")
                self._follower.start()

    def _follow(self) -> None:
        while True:
            with self._follow_up:
                if not self._wanted:
                    self._follower = None
                    self._follow_up.notify_all()
                    return
                self._wanted = False
            try:
                self.catch_up()
            except Exception as error:  # noqa: BLE001 - a follow-up's failure is the page's to say, not a lost thread
                self.models.error = f"{type(error).__name__}: {error}"

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every follow-up asked for so far has run (the Model page, scripts, tests); False
        if ``timeout`` seconds passed first."""
        with self._follow_up:
            return self._follow_up.wait_for(lambda: self._follower is None, timeout)

    def catch_up(self) -> Workbench | None:
        """Assess the sources again if they changed, and refit SSL for the preferences and the trust in
        force if either changed (in the calling thread); the Workbench, or None before the data."""
        data = self.data()
        if data is None:
            return None
        self.sync_trust()
        settings = stored_ok(self.model_settings())
        bench = self.models.bench(data, self.data_key(), settings)
        trust = self.trust.in_force() if settings.automatic_trust else None
        revision = self.revision()  # before the preferences: a write meanwhile makes it stale, never them
        preferences, provenance = self.preferences()  # names and answer ids of this read (nu14 F2)
        names, answer_ids = self._source_names(provenance), provenance["answer_id"]
        self.models.retrain(bench, revision, preferences, names, trust, settings, answer_ids)
        bench.committee()  # the default pair choice's: fitted here once, not on a page's first draw
        return bench

    def trained(self, wait: bool = False) -> Workbench | None:
        """The session's SVR/SSL pair as last fitted (None before the data is chosen), and a retrain
        asked for in the background if the preferences or the trust in force changed since.  With
        ``wait``, once it has run.  ``models.error`` says why a retrain failed (the last fit stays)."""
        data = self.data()
        if data is None:
            return None
        bench = self.models.bench(data, self.data_key(), stored_ok(self.model_settings()))
        self.changed()
        if wait:
            self.wait()
        return self.models.workbench or bench

    def _record_run(self, settings: ModelSettings, report, n_preferences: int, trust) -> None:
        parameters = dict(settings.parameters)
        if trust is not None:  # what was fitted: automatic trust's blend, not the page's lambdas
            parameters["trust_blend"] = trust.trust.blend.active().parameters()
        metrics = {"svr_mae": report.svr_mae, "ssl_mae": report.ssl_mae, "seconds": report.seconds}
        metrics |= AnswerCounts.of(self.answers()).metrics()  # skips apart: the answers-bought chart's x
        if trust is not None and trust.trust.cv is not None:  # the cross-validated errors the Model page shows
            compared = trust.trust.cv.comparison(trust.trust.blend)
            metrics |= {"cv_svr_mae": compared["svr"], "cv_ssl_mae": compared["ssl"]}
        self.store.add_model_run(self.id, settings.family, parameters, metrics, n_preferences)

    def label_curve(self) -> LabelCurve | None:
        """SVR's learning curve on the session's labels (``LabelCurve``), once per data and model
        settings; None before the data, with fewer than 8 labels, or for a family without lambda1."""
        data, settings = self.data(), self.model_settings()
        if data is None or np.count_nonzero(~np.isnan(data.y_train())) < 8 or "lambda1" not in settings.parameters:
            return None
        lambda1, gamma = settings.parameters["lambda1"], settings.parameters.get("gamma")

        def measure() -> LabelCurve:
            return LabelCurve.measure(data.dataset.X, data.y_train(), lambda1, np.random.default_rng(0), gamma=gamma)

        return self.memo("label_curve", (self.data_key(), lambda1, gamma), measure)

    def next_pair(
        self,
        source,
        annotator: str,
        rng: np.random.Generator,
        strategy=PAIR_STRATEGIES[0],
        candidates=PAIR_CANDIDATES[0],
    ):
        """``next_pairs``'s first (pair, swapped) from ``source``, or (None, False)."""
        found = self.next_pairs(source, annotator, rng, strategy, candidates)
        return found[0] if found else (None, False)

    def next_pairs(
        self,
        source,
        annotator: str,
        rng,
        strategy=PAIR_STRATEGIES[0],
        candidates=PAIR_CANDIDATES[0],
        count=1,
        exclude=(),
        ahead=(),
    ) -> list[tuple[tuple[int, int], bool]]:
        """Up to ``count`` distinct (pair, swapped) to show next from ``source`` (``ACTIVE``, ``QUEUE`` or a rule's
        id; all checked by ``session_checks.pair_request``), none of the row pairs ``exclude`` (offered already,
        either way round), in order, from the last finished fit (a retrain under way holds nothing up); the active
        choice keeps out the rows of the annotator's last questions, then of ``ahead``.  Sides in random order."""
        source, rng, count, exclude, ahead = checks.pair_request(source, rng, count, exclude, ahead, self.rules())
        bench = self.trained() or self._need_data()  # before the data: said in words
        offered = {frozenset(pair) for pair in exclude}
        if source not in (ACTIVE, QUEUE) or count == 0:
            return self._rule_pairs(bench, source, rng, count, exclude) if count else []
        if source == ACTIVE:
            history = AnnotatorHistory.of(self.answers(), annotator, exclude, ahead, strategy == "committee")
            found = bench.next_pairs(strategy, rng, count, candidates, self.preferences()[0], *history)
        else:
            found = open_queued_pairs(self.store.queued_pairs(self.id), self.answers(), annotator)
        pairs = [(int(a), int(b)) for a, b in found if frozenset((int(a), int(b))) not in offered][:count]
        flips = rng.random(len(pairs)) < 0.5
        return [((pair[::-1] if flip else pair), bool(flip)) for pair, flip in zip(pairs, flips, strict=True)]

    def _rule_pairs(self, bench, rule_id: int, rng, count: int, exclude) -> list[tuple[tuple[int, int], bool]]:
        """A rule's pairs to audit (``next_pairs``): not answered for it, not in ``exclude``."""
        preferences, provenance = self.preferences()
        made = preferences[(provenance["rule_id"] == rule_id).to_numpy(dtype=bool, na_value=False)]
        answers = self.answers()
        audited = answers[(answers["rule_id"] == rule_id).to_numpy(bool, na_value=False)]
        asked = np.vstack([audited[["row_a", "row_b"]].to_numpy(dtype=np.int64), np.reshape(list(exclude), (-1, 2))])
        return bench.next_rule_pairs(made, asked, rng, count)

    def start_gp(self):
        """Start the GP fit on the session's pairwise preferences in the background (``GPFitStart``)."""
        return self.models.start_gp(self._need_data(), self.data_key(), self.preferences()[0], self.revision())

    def gp_fit(self) -> dict | None:
        return self.models.gp_fit(self.data_key())

    # ------------------------------------------------------------------------------ tables the pages show
    def agreement(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
        """Cohen's κ table, intransitive triples and each annotator's weight, once per write."""
        answers = self.answers()
        return self.memo(
            "agreement",
            self.revision(),
            lambda: (kappa_table(answers), intransitive_triples(answers), annotator_weights(answers)),
        )

    def rule_tables(self, data: StudyData):
        """(trust table, quality table, preference graph report) of the stored rules, once per write or
        trust assessment (the reference predictions its weights use)."""
        stored = self.rules()
        in_force = self.trust.in_force() if self.model_settings().automatic_trust else None
        reference = None if in_force is None else in_force.trust.reference

        def tables():
            preferences, provenance = self.preferences()
            owners = provenance["rule_id"].to_numpy(dtype=np.float64, na_value=np.nan)
            y = data.y_train()
            trust = rule_trust(stored, data.frame, y, preferences, provenance, self.answers(), reference=reference)
            clicks = preferences[(provenance["source"] == "click").to_numpy()]
            made = [preferences[owners == rule_id] for rule_id, _ in stored]
            quality = rule_quality([rule for _, rule in stored], data.frame, y, clicks=clicks, made=made)
            sources = np.where(provenance["source"] == "rule", provenance["rule_id"].astype(str), provenance["source"])
            return trust, quality, check_preference_graph(preferences, sources)

        return self.memo("rule_tables", (self.data_key(), self.revision(), id(in_force)), tables)

    def close(self) -> None:
        """Stop this engine's background work (its trust claim passes to another engine at once)."""
        self.trust.close()
        self.models.cancel_gp()
