"""The app's shared state: the store handle, the current session, its data and its models.

Only Streamlit plumbing lives here (caches and ``st.session_state``); the logic is in
``ordercore.studio.store`` and ``ordercore.studio.data``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import streamlit as st

from ordercore.exceptions import SolverError
from ordercore.knowledge.agreement import annotator_weights, weigh_clicks
from ordercore.knowledge.quality import rule_checks
from ordercore.knowledge.trust import FOLDS, SourceCheck, labeled_pair_check, rule_source, source_names
from ordercore.studio.data import StudyData, load_source, study_data
from ordercore.studio.store import DEFAULT_RATING_SCALE, Store, store_url
from ordercore.studio.workbench import DEFAULT_TIME_LIMIT, Workbench, studio_models


@st.cache_resource
def _store(url: str) -> Store:
    return Store(url)


def store() -> Store:
    """The configured store (ORDERCORE_STORE_URL / ORDERCORE_STORE), one handle per URL."""
    return _store(store_url())


def annotator() -> str:
    return (st.session_state.get("annotator") or "").strip()


def current_session():
    """The SessionInfo the sidebar selected, or None."""
    name = st.session_state.get("session_name")
    if not name:
        return None
    try:
        return store().session(name)
    except KeyError:
        return None


@st.cache_data(max_entries=8, show_spinner="Loading data…")
def _table(source: str, dataset_id: int | None, url: str) -> pd.DataFrame:
    content = _store(url).dataset(dataset_id)["content"] if source == "upload" else None
    return load_source(source, content)[0]


def session_data(session) -> StudyData | None:
    """The session's prepared data and split, or None before the Data page has set it up."""
    settings = session.settings
    if not settings.get("source"):
        return None
    frame = _table(settings["source"], session.dataset_id, store_url())
    # The labelling and rating options (goal, annotator weights, scale) do not change the data: leave them
    # out of the key.
    data_settings = {name: value for name, value in settings.items() if name not in ("labelling", "ratings")}
    key = ("study", session.id, json.dumps(data_settings, sort_keys=True))
    if st.session_state.get("study_key") != key:
        st.session_state.study_key = key
        st.session_state.study = study_data(frame, settings["target"], settings["features"], settings)
        st.session_state.pop("workbench", None)
    return st.session_state.study


def model_choice() -> tuple[str, dict]:
    """The regressor the Model page chose (a key of ``studio_models()``, kept under a plain key that
    outlives the page's widgets) and its settings."""
    model = st.session_state.get("model_key", "lp")
    return model, studio_models()[model].settings(st.session_state.get("model_params", {}))


def time_limit() -> float:
    """Seconds a retrain may take (the Model page's setting, kept under a plain key)."""
    return st.session_state.get("retrain_time_limit", DEFAULT_TIME_LIMIT)


def workbench(session, data: StudyData) -> Workbench:
    """The session's SVR/SSL pair, kept across reruns (rebuilt when its data, model, settings or time
    limit change)."""
    model, params = model_choice()
    key = (session.id, st.session_state.get("study_key"), model, json.dumps(params, sort_keys=True), time_limit())
    if st.session_state.get("workbench_key") != key:
        st.session_state.workbench_key = key
        st.session_state.workbench = Workbench(data, model, params, time_limit())
        st.session_state.retrain_history = []
    return st.session_state.workbench


def memo(name: str, key, compute):
    """``compute()``, recomputed only when ``key`` changes (one value per name, in session state)."""
    cached = st.session_state.get(name)
    if cached is None or cached[0] != key:
        cached = (key, compute())
        st.session_state[name] = cached
    return cached[1]


def preferences_key(session) -> tuple:
    """Names the session's current preferences: it changes with every write of rules or answers."""
    return session.id, store().revision(session.id)


def labelling(session) -> dict:
    """The session's labelling options (stored with its settings): 'goal', the number of answers
    aimed at (0: none), and 'weigh_annotators', whether clicks weigh by their annotator's agreement."""
    return {"goal": 0, "weigh_annotators": False} | session.settings.get("labelling", {})


def set_labelling(session, **options) -> None:
    """Store changed labelling options with the session's settings (its data stays as it is)."""
    _set_options(session, "labelling", labelling, options)


def ratings(session) -> dict:
    """The session's rating options (stored with its settings): 'scale', the number of grades K (grades
    are 1 … K), and 'text', the text column whose texts are graded (None: the table's rows)."""
    return {"scale": DEFAULT_RATING_SCALE, "text": None} | session.settings.get("ratings", {})


def set_ratings(session, **options) -> None:
    """Store changed rating options with the session's settings; ``ValueError`` from the store (a scale
    off 2 … 9, or changed once grades are held)."""
    _set_options(session, "ratings", ratings, options)


def _set_options(session, name: str, current, options: dict) -> None:
    """Store settings[name] = current(session) | options, the settings read afresh so that a change
    made meanwhile elsewhere is kept."""
    session = store().session_by_id(session.id)
    settings = dict(session.settings)
    settings[name] = current(session) | options
    store().update_settings(session.id, settings)


def session_preferences(session):
    """The session's preferences and their provenance, read from the store only when they changed;
    with 'weigh_annotators' on, each click weighs by its annotator's agreement with the others
    (``agreement.weigh_clicks``)."""
    weigh = labelling(session)["weigh_annotators"]

    def read():
        preferences, provenance = store().preferences(session.id)
        if weigh:
            preferences = weigh_clicks(preferences, provenance, annotator_weights(store().answers(session.id)))
        return preferences, provenance

    return memo("preferences_cache", (*preferences_key(session), weigh), read)


def automatic_trust() -> bool:
    """Whether SSL weighs its sources and chooses lambda1, lambda2 itself (the Model page's switch, on
    by default; kept under a plain key)."""
    return st.session_state.get("automatic_trust", True)


def source_checks(session, data: StudyData, preferences, names: np.ndarray) -> dict:
    """Each source's ``SourceCheck`` by name: a rule's labeled pairs that meet its conditions and the
    audit answers to its pairs (``quality.rule_checks``); clicks' and imports' own preferences between
    two labeled rows.  Computed once per write of the session."""
    key = (st.session_state.get("study_key"), preferences_key(session))
    return memo("source_checks", key, lambda: _source_checks(session, data, preferences, names))


def _source_checks(session, data: StudyData, preferences, names: np.ndarray) -> dict:
    stored = store().rules(session.id)
    checks = {}
    for (rule_id, rule), pair in zip(
        stored, rule_checks(stored, data.frame, data.y_train(), store().answers(session.id)), strict=True
    ):
        checks[rule_source(rule_id, rule.name)] = SourceCheck.concatenate(pair)
    for name in set(names) - set(checks):
        checks[name] = labeled_pair_check(preferences[names == name], data.y_train())
    return checks


def session_sources(session, provenance) -> np.ndarray:
    """The source name of each of the session's preferences (p,), ``trust.source_names``: once per
    write of the session (a Model page rerun asks three times)."""

    def names() -> np.ndarray:
        return source_names(provenance, {rule_id: rule.name for rule_id, rule in store().rules(session.id)})

    return memo("source_names", preferences_key(session), names)


def assess_trust(session, data: StudyData, bench: Workbench, preferences, provenance):
    """Automatic trust for the session (the Model page, when on), in a background process
    (``Workbench.start_trust``): started when the model settings, the sources or what measures them
    change (a click of an annotator already assessed does not), once per change; one per browser
    session, a newer one cancelling an older.  Once it is done, its result is in force.  The
    ``SourceTrust`` in force: the last finished assessment (of these sources, or of earlier ones
    while one runs, after a cancel or a failure), or None (none yet, or nothing to assess)."""
    if not bench.trust_applies or not len(preferences) or np.count_nonzero(~np.isnan(data.y_train())) < 2 * FOLDS:
        stop_trust(bench)
        return None
    names = session_sources(session, provenance)
    checks = source_checks(session, data, preferences, names)
    key = (st.session_state.workbench_key, tuple(sorted((name, check.key()) for name, check in checks.items())))
    started = st.session_state.get("trust_job")
    if started is not None and started["key"] != key:
        stop_trust()
        started = None
    if st.session_state.get("trust_for") == key and bench.trust is not None:
        return bench.trust
    if started is None:
        started = {"key": key, "job": bench.start_trust(preferences, names, checks, seed=0)}
        st.session_state.trust_job = started
    if started["job"].status().state == "done":
        bench.use_trust(started["job"].result())
        st.session_state.trust_for = key
        st.session_state.pop("trust_job")
    return bench.trust


def trust_job():
    """The Model page's automatic trust job (``trust_background.BackgroundAssessment``) of the sources
    now (running, or cancelled or failed), or None when the assessment in force is theirs."""
    started = st.session_state.get("trust_job")
    return None if started is None else started["job"]


def stop_trust(bench: Workbench | None = None) -> None:
    """Cancel the automatic trust job, if any, and forget it (the next Model page run starts one
    again); with ``bench``, also drop its assessment in force (SSL is fitted with the page's settings)."""
    started = st.session_state.pop("trust_job", None)
    if started is not None:
        started["job"].cancel()
    if bench is not None and bench.trust is not None:
        bench.clear_trust()


def trust_reference() -> np.ndarray | None:
    """The SVR predictions (n,) the Model page's last trust assessment compared each source's checks
    with (``trust.reference_predictions``), or None before one: then a weight counts every check."""
    bench = st.session_state.get("workbench")
    return None if bench is None or bench.trust is None else bench.trust.trust.reference


def retrain(session, data: StudyData):
    """The session's Workbench with SSL re-solved for the stored preferences, once per change (a
    rerun with nothing new reuses it, also after one that stopped at the time limit), and those
    preferences with their provenance.  Under automatic trust each preference's weight is multiplied
    by its source's (``Workbench.trust``, from the Model page's last assessment).  Each finished
    retrain is recorded as a model run (its test MAE over the number of preferences feeds the Model
    page)."""
    bench = workbench(session, data)
    preferences, provenance = session_preferences(session)
    if not automatic_trust():
        stop_trust(bench)
    trusted = bench.trust is not None
    signature = (
        st.session_state.workbench_key,
        st.session_state.preferences_cache[0],
        st.session_state.get("trust_for"),
        trusted,
    )
    if st.session_state.get("retrained_for") != signature:
        st.session_state.retrained_for = signature
        try:
            report = bench.update(preferences, session_sources(session, provenance) if trusted else None)
        except (ValueError, SolverError) as error:
            st.session_state.retrain_error = str(error)
            return bench, preferences, provenance
        st.session_state.retrain_error = None
        st.session_state.retrain_history.append({"preferences": len(preferences), **report.__dict__})
        if data.test.size and not report.timed_out:
            model, params = model_choice()
            if trusted and bench.trust is not None:  # what was fitted: automatic trust's blend, not the page's λ
                params = {**params, "trust_blend": bench.trust.trust.blend.active().parameters()}
            store().add_model_run(
                session.id,
                model,
                params,
                {"svr_mae": report.svr_mae, "ssl_mae": report.ssl_mae, "seconds": report.seconds},
                len(preferences),
            )
    return bench, preferences, provenance


def warn_if_retrain_stopped() -> None:
    """Say so when the last retrain failed or stopped at the time limit, what the model shown is, and
    what to do."""
    failed = st.session_state.get("retrain_error")
    if failed:
        st.error(
            f"The model could not be trained on this session's preferences: {failed}. The last model stays; "
            "remove what caused it (your answer under **My answers**, a rule or an import on **Rules**)."
        )
    history = st.session_state.get("retrain_history") or []
    if history and history[-1]["timed_out"]:
        last = history[-1]
        st.warning(
            f"Retraining on {last['preferences']:,} preferences stopped at the time limit of {time_limit():g} s. "
            f"The model shown is the last one fitted, on {last['fitted']:,} preferences; every preference is "
            "stored. To train on all of them, cap or remove a rule on the **Rules** page, or raise the retrain "
            "time limit under **Model** → *Model and hyperparameters*."
        )


def need_session_and_data():
    """(session, data) or stop the page with what to do first."""
    session = current_session()
    if session is None:
        st.info("Create or resume a labelling session in the sidebar first.")
        st.stop()
    data = session_data(session)
    if data is None:
        st.info("Choose this session's data on the **Data** page first.")
        st.stop()
    return session, data


def rng() -> np.random.Generator:
    if "pair_rng" not in st.session_state:
        st.session_state.pair_rng = np.random.default_rng(0)
    return st.session_state.pair_rng
