"""The Model page's answer to "do the preferences help?": the session's assessment of its sources, its
progress while it runs in the background, and the one in force (cross-validation on the labels, what
automatic trust decided, each source's weight and effect)."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.knowledge.trust import FULL_WEIGHT_ANSWERS, LAMBDA1_FACTORS, LAMBDA2_GRID
from ordercore.studio.assessment_age import answers_since, preferences_then_and_now, since_words
from ordercore.studio.cv_headline import CVHeadline
from ordercore.studio.numbers import change, metric_delta, significant, to_digits_of, work_done, wrapped_row_height
from ordercore.studio.verdicts import (
    GAIN_WAY,
    assessment_words,
    effect_words,
    gain_verdict,
    hurting_sources,
    made_words,
    raised_error_advice,
    zero_weight_reasons,
)


def path_settings() -> str:
    """The settings automatic trust averages, in words: 'λ2 = 0.3 … 30 at λ1 = 0.33 × SVR's'
    (``trust.trust_grid``)."""
    factors = ", ".join(f"{factor:.2g}" for factor in LAMBDA1_FACTORS)
    return f"λ2 = {LAMBDA2_GRID[0]:g} … {LAMBDA2_GRID[-1]:g} at λ1 = {factors} × SVR's"


def mae_scale(data) -> float:
    """What every MAE of the Model page (cross-validated and test, their changes, gains and intervals) is
    shown to the digits of, so that all read alike: the labels' spread (a new user read 'CV MAE 123' beside
    '133.6', and test MAEs of two decimals beside CV MAEs of one); 0 (three decimals) without one."""
    spread = float(np.std(data.y_true[data.labeled])) if data.labeled.size else 0.0
    return spread if np.isfinite(spread) else 0.0


def mae_unit(data) -> str:
    """Every MAE's help on the Model page: its unit, the target's (a new user read 'CV MAE, SVR 85.4' and
    asked: in what?)."""
    return f"In {data.dataset.metadata['target']}, the target's units, as every MAE on this page."


def ssl_metric(cell, label: str, compared: dict, scale: float, unit: str) -> None:
    """SSL's CV MAE of ``compared`` (``cv.comparison``) and its change from SVR's, to the digits of
    ``scale`` (``mae_scale``), the change grey while its interval spans 0; ``unit`` its help."""
    noise = compared["low"] <= 0 <= compared["high"]
    delta = metric_delta(change(-compared["gain"], scale), within_noise=noise)
    cell.metric(label, to_digits_of(compared["ssl"], scale), help=unit, **delta)


def gain_interval(compared: dict, in_digits) -> str:
    """The gain's 95 % interval, saying which way it runs (``GAIN_WAY``), as every interval of the page."""
    return f"95 % interval of the gain (SVR − SSL): {in_digits(compared['low'])} to {in_digits(compared['high'])}"


def cv_summary(trust, status, origin: str, scale: float, unit: str) -> None:
    """SVR against the blend in force (the headline: what the preferences do to the model in use) and
    against the fit with preferences unblended (a secondary figure), by cross-validation of ``trust`` (the
    assessment in force), worded by ``CVHeadline`` led by ``origin`` (``verdict_origin``); when the
    unblended fit surely raises the error, which sources of the same assessment's table show it, by name,
    and what to do (``raised_error_advice``, with the state of the sources' assessment ``status``); every
    figure to the digits of ``scale``."""
    cv, blend = trust.trust.cv, trust.trust.blend
    headline = CVHeadline(cv.comparison(blend), cv.comparison(cv.path()), blend.alpha)
    mixed, path = headline.in_force, headline.unblended
    columns = [*st.columns(3), *st.columns(3)]  # three a row: at 1024 px four cut "CV MAE, with prefer…"
    in_digits = partial(to_digits_of, of=scale)
    columns[0].metric("CV MAE, SVR", in_digits(path["svr"]), help=unit)
    columns[1].metric("CV MAE, SSL in force", in_digits(mixed["ssl"]), help=unit, **headline.in_force_delta(scale))
    columns[2].metric("CV gain, SSL in force", in_digits(mixed["gain"]), help=f"{GAIN_WAY}. {unit}")
    columns[2].caption(gain_interval(mixed, in_digits))
    ssl_metric(columns[3], "CV MAE, unblended", path, scale, unit)
    columns[4].metric("CV gain, unblended", in_digits(path["gain"]), help=f"{GAIN_WAY}. {unit}")
    columns[4].caption(gain_interval(path, in_digits))
    decision = f"SSL is {blend.describe()}." if blend.alpha > 0 else ""
    advice = app_state.plain(raised_error_advice(trust, next_full(status))) if headline.unblended_raises else ""
    getattr(st, headline.kind())(" ".join(filter(None, (f"{origin}{headline.words(scale)}", decision, advice))))
    st.caption(
        f"With preferences unblended: the fits at {path_settings()} (SVR's is the λ1 under *Model and "
        "hyperparameters*), averaged (one of them chosen by so few labels would be chosen by noise). SSL in force, "
        "the model in use: the average of the weakest of those fits (from the smallest λ2 up, as many as "
        "cross-validate best) mixed with SVR in the share that cross-validates best, both chosen on these same "
        "folds, so its CV MAE flatters it a little."
    )


def click_summary(cv, blend, origin: str, scale: float, unit: str) -> None:
    """What SSL does with an expert's answers alone: the fit it uses, and its cross-validated errors
    beside SVR's (shown, not used to decide), their verdict led by ``origin`` (``verdict_origin``); every
    figure to the digits of ``scale``."""
    compared = cv.comparison(blend)
    columns = st.columns(3)
    in_digits = partial(to_digits_of, of=scale)
    columns[0].metric("CV MAE, SVR", in_digits(compared["svr"]), help=unit)
    in_force_delta = CVHeadline(compared, compared, blend.alpha).in_force_delta(scale)
    columns[1].metric("CV MAE, SSL in force", in_digits(compared["ssl"]), help=unit, **in_force_delta)
    columns[2].metric("CV gain over SVR", in_digits(compared["gain"]), help=f"{GAIN_WAY}. {unit}")
    columns[2].caption(gain_interval(compared, in_digits))
    kind, words = gain_verdict(compared["gain"], compared["low"], compared["high"], compared["svr"], scale)
    getattr(st, kind)(f"{origin}{words}")
    st.info(
        f"SSL fits the answers: {blend.describe()}, λ2 growing with the answers to 1 at "
        f"{FULL_WEIGHT_ANSWERS}, each annotator weighted by their agreement with SVR (below). These "
        "cross-validated errors do not decide it: on a few dozen labels they choose by noise, and a good "
        "expert's answers lost most of their gain to that choice (docs/REPRODUCTION.md)."
    )


def trust_section(engine, status, scale: float) -> None:
    """Do the preferences help?  The assessment of the sources now while it is queued or runs in the
    background (``assessment_status``), then the one in force: which assessment it is (when it was made
    and, if the sources changed since, what changed: ``assessment_words``), SVR against the best fit with
    preferences by cross-validation on the labels (no test labels), the decision automatic trust took,
    and each source's weight and effect; every MAE to the digits of ``scale`` (``mae_scale``)."""
    st.subheader("Do the preferences help? (cross-validation on the labels)")
    assessment_status(engine, status)
    trust = status.in_force
    if trust is None:
        if status.state == "off":
            st.caption(
                "Automatic trust is off, or there is nothing to assess yet: it needs the order-preference LP, "
                "some preferences and at least 10 labeled rows."
            )
        return
    stale, words = assessment_words(trust, source_sizes(engine), status.state == "assessed")
    if stale:
        st.info(f"{app_state.plain(words)} {full_status_words(status)}")
    else:
        st.caption(words)
    if trust.is_full and (since := since_words(answers_since(engine.answers(), made_at(trust)))):
        st.info(since)  # a warm one in force: what changed since its full one is said above
    origin = verdict_origin(trust) if stale else ""
    cv = trust.trust.cv
    if cv is None:
        st.warning(
            "No source is measured better than a coin yet (rules and imports: where SVR disagrees with them; "
            "an annotator's clicks: by their agreement with SVR's order): SSL is SVR (λ2 = 0)."
        )
    elif trust.clicks_only:
        click_summary(cv, trust.trust.blend, origin, scale, mae_unit(engine.data()))
    else:
        cv_summary(trust, status, origin, scale, mae_unit(engine.data()))
    sources_table(engine, trust, scale)
    for reason in zero_weight_reasons(trust):
        st.info(app_state.plain(reason))
    for reason in hurting_sources(trust, scale):
        st.warning(app_state.plain(reason))


EFFECT = "effect (CV MAE without it − with it)"
EFFECT_SHOWN = "effect, + helps (95 % together)"  # which way it runs, as the gain; short: the table fits 1024 px
EFFECT_WORDS = "effect, in words"
SOURCE_WIDTH = 200  # px, Streamlit's "medium": the table fits 1024 px; a longer name wraps


def effect_cells(trust, scale: float) -> tuple[list[str], list[str]]:
    """Each source's effect with its 95 % interval ('-7.5 (-12.9 to -2.1)', to the digits of ``scale``),
    and in words (``effect_words``)."""
    n = len(trust.names)
    effects = trust.effects if trust.effects is not None else np.full(n, np.nan)
    intervals = trust.effect_intervals()
    intervals = intervals if intervals is not None else np.full((n, 2), np.nan)
    shown = partial(to_digits_of, of=scale)
    texts = [
        "not measured"
        if np.isnan(effect)
        else shown(effect)
        if np.isnan(low)
        else f"{shown(effect)} ({shown(low)} to {shown(high)})"
        for effect, (low, high) in zip(effects, intervals, strict=True)
    ]
    return texts, [effect_words(effect, low, high) for effect, (low, high) in zip(effects, intervals, strict=True)]


def sources_table(engine, trust, scale: float) -> None:
    """Each source's weight and effect (what decides and what it does), in a table that fits a narrow
    screen (1024 px wide); then, in a static table of its own whose cells wrap (a grid cut its accuracy in
    words off at 1024 px), what each weight rests on, and a caption of how both are measured."""
    effects, words = effect_cells(trust, scale)
    table = pd.DataFrame({"source": trust.names, "weight": trust.trust.weights, EFFECT: effects, EFFECT_WORDS: words})
    config = app_state.compact(table, **app_state.WEIGHT) | {
        "source": st.column_config.Column(width=SOURCE_WIDTH),
        EFFECT: st.column_config.Column(
            EFFECT_SHOWN,
            help=f"{EFFECT}, with its 95 % interval, together over the sources assessed; positive: the source helps",
        ),
        EFFECT_WORDS: st.column_config.Column(
            "effect says",
            help="helps / hurts: its interval (95 % together) lies above / below 0; within the noise: it spans 0",
        ),
    }
    rows = wrapped_row_height(trust.names, SOURCE_WIDTH)  # a rule's long name wraps, whole
    st.dataframe(
        table, key="model_trust_sources", hide_index=True, width="stretch", column_config=config, row_height=rows
    )
    counts = pd.Series(engine.sources(), dtype=object).value_counts().to_dict()
    checks = pd.DataFrame(
        {
            "source": trust.names,
            "weight": trust.trust.weights,
            "preferences (assessed → now)": preferences_then_and_now(trust, counts, source_sizes(engine)),
            "accuracy checked": ["—" if not m[1] else f"{m[0]} of {m[1]}" for m in trust.checked()],
            "right where SVR disagrees": ["—" if not m[1] else f"{m[0]} of {m[1]}" for m in trust.contradicting()],
            "accuracy from agreement with SVR": trust.agreement_text(),
        }
    )
    st.markdown("**What each weight rests on**, as of the assessment (preferences: then → now where they differ)")
    shown = checks.style.format({"weight": "{:.2f}"})
    st.table(shown, hide_index=True)  # its cells wrap: it fits 1024 px
    st.caption(
        "Weight: a measure of how often the source is right where SVR (labels only, each labeled row predicted out "
        "of fold) orders its checked pairs the other way, the only pairs where its preferences move the fit: 0 when "
        "there it is right no more often than wrong, 1 when right 7 times in 10, 2 at about 84 % (each step of 1 "
        "multiplies its odds of being right by 7/3); it counts as right on 7 of 10 such pairs before any check (1 "
        "when nothing checks it); "
        "an annotator's clicks, times how far their accuracy's lower bound (estimate − 2 standard errors, "
        "from how often they order pairs as SVR does, given how sure SVR is of each) is above a coin, "
        "in full from 0.7. "
        "Effect: the change in cross-validated error when the source's weight is set to 0, on the same folds, "
        "of the fit with preferences (with every weight 0: SVR); positive: the source helps; a source "
        "of weight 0 has none. Its interval is the headline gain's kind (the paired differences over the "
        "same folds), but the intervals of all the sources assessed hold together at 95 % (each at 1 − 0.05 / k "
        "for k sources: testing several at once finds one 'hurts' by chance more often): within the noise when "
        "it spans 0."
    )


def made_at(trust) -> float | None:
    """When the full assessment ``trust`` rests on took its inputs (None: not recorded)."""
    return None if trust.basis is None else trust.basis.made_at


def verdict_origin(trust) -> str:
    """What leads the verdict when its figures are not of the sources now: 'At the last full assessment
    (made at 21:34 UTC): '."""
    made = made_words(trust)
    return f"At the last full assessment{f' ({made})' if made else ''}: "


def source_sizes(engine) -> dict[str, float]:
    """Each source's preferences now, as the sum of their w, by name (what ``changes_since`` compares)."""
    preferences, names = engine.preferences_by_source()
    return pd.Series(preferences.weight, dtype=float).groupby(pd.Series(names, dtype=object)).sum().to_dict()


def next_full(status) -> str:
    """What will measure the sources now in full, by the state of their assessment (``TrustStatus``): 'the
    full assessment of the sources now, running in the background (above), measures them', queued, in
    another process, or after a cancel or failure *Run again* (above)."""
    return {
        "running": "the full assessment of the sources now, running in the background (above), measures them",
        "elsewhere": "the full assessment of the sources now, running in another Studio process, measures them",
        "queued": "the full assessment of the sources now, queued (above), measures them",
        "cancelled": "it was cancelled: Run again (above) measures them",
        "failed": "it failed: Run again (above) measures them",
    }.get(status.state, "the next full assessment measures them")


def full_status_words(status) -> str:
    """Where the full assessment of the sources now stands, in a sentence, by ``status.state``."""
    return {
        "running": "The full assessment of the sources now runs in the background (above); its figures replace "
        "these when it ends.",
        "elsewhere": "The full assessment of the sources now runs in another Studio process; its figures replace "
        "these when it ends.",
        "queued": "The full assessment of the sources now is queued (above); its figures replace these when it ends.",
        "cancelled": "The full assessment of the sources now was cancelled: Run again (above) computes it.",
        "failed": "The full assessment of the sources now failed: Run again (above) computes it.",
    }.get(status.state, "")


def in_force(engine, trust) -> str:
    """What SSL uses while the sources now have no full assessment of their own."""
    if trust is not None and not trust.is_full:
        return (
            "a quick re-assessment of the sources now (their weights measured anew; the cross-validation and "
            "the unchanged sources' effects of the last full assessment, below)"
        )
    if trust is not None:
        return "the last assessment, of the sources as they were (below)"
    params = engine.model_settings().parameters
    return (
        f"the page's λ1 = {significant(params['lambda1'], 3)} and λ2 = {significant(params['lambda2'], 3)} with the "
        "stored weights "
        "(no assessment has finished yet)"
    )


def assessment_status(engine, status) -> None:
    """The session's full assessment of the sources now, when it is not in force yet: that it is queued
    (it starts once the sources have stood still a few seconds), its progress and a cancel button while it
    runs (here or in another Studio process), or that it was cancelled or failed and a button to run it
    again; and what SSL uses meanwhile."""
    if status.state in ("queued", "running", "elsewhere"):
        assessment_progress(engine, in_force(engine, status.in_force), status.state)
    elif status.state in ("cancelled", "failed"):
        if status.state == "cancelled":
            st.info(f"Automatic trust {status.message}: SSL keeps {in_force(engine, status.in_force)}.")
        else:
            failure = status.message.rstrip(".")
            st.error(
                f"Automatic trust could not assess the preferences: {failure}. "
                f"SSL keeps {in_force(engine, status.in_force)}."
            )
        st.button("Run again", key="model_trust_again", on_click=engine.trust.run_again)


@st.fragment(run_every=1.0)
def assessment_progress(engine, meanwhile: str, drawn: str) -> None:
    """The queued or running assessment's progress and its cancel button, refreshed every second, saying
    what SSL uses ``meanwhile`` (``in_force``); the whole page reruns once its state is no longer
    ``drawn``, the one the page was drawn in (queued to running: the page says it runs; ended: SSL is
    refitted with its weights and λ)."""
    status = engine.trust.status()
    if status.state != drawn:
        st.rerun()
    if status.state == "queued":
        st.progress(
            0.0,
            text="Automatic trust: the full assessment of the sources now (cross-validating on the labels, then "
            f"each source's effect) is queued: it starts in the background once the sources have stood still "
            f"{engine.trust.refine_after:g} s (an answer that changes them starts the wait again). Until it "
            f"finishes, SSL uses {meanwhile}.",
        )
        return
    if status.state == "elsewhere":
        text = "in another Studio process on this store"
    else:
        text = work_done(status.done, status.total, status.seconds, "folds") if status.total else "starting"
    st.progress(
        status.done / status.total if status.total else 0.0,
        text=f"Automatic trust, in the background: cross-validating on the labels, then each source's effect "
        f"({text}). Until it finishes, SSL uses {meanwhile}.",
    )
    if status.state == "running" and st.button("Cancel the assessment", key="model_cancel_trust"):
        engine.trust.cancel()
        st.rerun()
