"""Model: SVR (labels only) against SSL (labels and preferences), retrained after every change."""

import streamlit as st
from scipy.stats import spearmanr

import app_state
from app_pages.model_trust import SOURCE_WIDTH, mae_scale, mae_unit, path_settings, trust_section
from ordercore.knowledge.label_curve import LABEL_COST
from ordercore.knowledge.source_weights import CLICKS
from ordercore.studio.answer_counts import AnswerCounts
from ordercore.studio.click_standing import ClickStanding
from ordercore.studio.comparisons import (
    EPSILON_IN_SD,
    OMEGA_WORDS,
    boosting_note,
    median_mae,
    monotone_boosting_mae,
    mpmr_comparison,
)
from ordercore.studio.data import readable
from ordercore.studio.figures import (
    against_figure,
    answers_bought_figure,
    latent_band_figure,
    mae_history_figure,
    tube_against_figure,
)
from ordercore.studio.held_out_change import HeldOutChange
from ordercore.studio.monotone import monotone_column
from ordercore.studio.numbers import (
    change,
    duration,
    gp_progress_text,
    gp_starting_text,
    memory_size,
    metric_delta,
    significant,
    solve_start_words,
    to_digits_of,
    wrapped_row_height,
)
from ordercore.studio.source_standing import broken_more_words
from ordercore.studio.training import violations_by_source
from ordercore.studio.verdicts import FEW_ROWS, few_rows_warning
from ordercore.studio.workbench import studio_models

TIME_LIMITS = (5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
# Evidence evaluations after which a GP search usually has ended (7–35 on the seeds' data sets): the
# progress line's estimate of the time left.  (A comment: Streamlit draws a page's bare strings.)
USUAL_EVALUATIONS = 35


def gp_section(engine, data) -> None:
    """The GP preference model, fitted in a background process: a button starts it (refused at once,
    saying why, when it cannot be fitted), a progress line with a cancel button follows it, and its
    latent mean ± sd against the target shows when it is done.  A fit outlives later clicks (it says
    when the preferences have changed since); a change of the session's data drops it."""
    fit = engine.gp_fit()
    running = fit is not None and fit["start"].job.status().state == "running"
    if st.button("Fit the GP preference model", key="model_fit_gp", disabled=running):
        try:
            engine.start_gp()
        except ValueError as error:
            st.error(str(error))
            return
        fit, running = engine.gp_fit(), True
    if fit is None:
        st.caption(
            "The GP preference model: a Gaussian process fitted to the pairwise preferences alone (sparse beyond "
            "1,000 rows); it runs in the background while you work on."
        )
        return
    st.caption(gp_plan_text(fit["start"]))
    if fit["revision"] != engine.revision():
        st.caption("The session's preferences have changed since this fit started: fit again to include them.")
    if running:
        gp_progress(engine)
    else:
        gp_result(data, fit["start"])


def gp_plan_text(start) -> str:
    plan = start.plan
    model = f"sparse, {plan.n_inducing} inducing inputs" if plan.method == "sparse" else "exact"
    sample = f" (a uniform sample of the {start.n_available:,})" if start.n_available > plan.n_pairs else ""
    return (
        f"GP ({model}) over the {plan.n_latent:,} rows touched by {plan.n_pairs:,} pairwise preferences{sample}; "
        f"about {memory_size(plan.memory)}."
    )


@st.fragment(run_every=1.0)
def gp_progress(engine) -> None:
    """The running fit's progress and its cancel button, refreshed every second; the whole page reruns
    once the fit has ended."""
    job = engine.gp_fit()["start"].job
    status = job.status()
    if status.state != "running":
        st.rerun()
    done, most = status.evaluations, status.most_evaluations
    if done == 0:
        plan = engine.gp_fit()["start"].plan
        st.info(f"Starting in the background: {gp_starting_text(plan.method, plan.n_inducing, most, status.seconds)}.")
    else:
        progress = gp_progress_text(done, most, status.seconds, USUAL_EVALUATIONS)
        st.info(f"Fitting in the background: {progress}; best log evidence {status.log_evidence:,.1f}.")
    if st.button("Cancel the GP fit", key="model_cancel_gp"):
        job.cancel()
        st.rerun()


def gp_result(data, start) -> None:
    """A finished fit's latent mean ± sd against the target (held-out rows if the data has them, else
    the labeled rows) with its rank correlation, or why it stopped."""
    status = start.job.status()
    if status.state == "cancelled":
        st.info(
            f"GP fit cancelled after {duration(status.seconds)} ({status.evaluations} of at most "
            f"{status.most_evaluations} evidence evaluations)."
        )
        return
    if status.state == "failed":
        st.error(f"The GP fit failed: {status.message}")
        return
    rows, where = (data.test, "held-out rows (demo)") if data.test.size else (data.labeled, "labeled rows")
    mean, std = start.job.model().predict(data.dataset.X[rows], return_std=True)
    target = data.dataset.metadata["target"]
    left, right = st.columns([3, 1])
    right.metric(f"Rank correlation with {target}", f"{spearmanr(mean, data.y_true[rows]).statistic:.3f}")
    right.caption(
        f"Spearman's, on the {rows.size:,} {where}; 1 is the target's own order. Fitted in {duration(status.seconds)} "
        f"({status.evaluations} of at most {status.most_evaluations} evidence evaluations)."
    )
    if few := few_rows_warning("The rank correlation is", rows.size, where.removesuffix(" (demo)"), plural=False):
        right.warning(few)
    figure = latent_band_figure(data.y_true[rows], mean, std, f"GP latent mean ± sd on {where}", target)
    left.plotly_chart(figure, key="model_gp")


def violations_section(engine, bench, trust) -> None:
    """How many preferences of each source SVR and SSL break, and for each annotator whose answers SSL
    breaks more often than SVR, why and what would change it (``click_standing.ClickStanding``), and so for each
    rule or import (``source_standing.broken_more_words``)."""
    st.subheader("Preferences violated, by source")
    names = engine.sources()
    table = violations_by_source(bench, names)
    st.dataframe(  # a long source name wraps in its column: at 1024 px a rule's long name widened the table
        table,
        key="model_violations",
        hide_index=True,
        width="stretch",
        column_config=app_state.compact(table, source=st.column_config.Column(width=SOURCE_WIDTH)),
        row_height=wrapped_row_height(table["source"], SOURCE_WIDTH),
    )
    violations = bench.violations  # read once: a retrain may replace it
    if violations is None or not violations.fits(names):
        return
    annotators = {str(n).removeprefix(CLICKS) for n in names if str(n).startswith(CLICKS)}
    for annotator in sorted(annotators if violations.answer_ids is not None else ()):
        why = ClickStanding.from_violations(annotator, violations, trust).why()
        if why:
            st.warning(app_state.plain(why))
    for source in sorted({str(n) for n in names if not str(n).startswith(CLICKS)}):
        if why := broken_more_words(source, names, violations.svr, violations.ssl, trust):
            st.warning(app_state.plain(why))


def mpmr_section(engine, data) -> None:
    """MPMR (minimax probability machine regression) on the labels, at a chosen ε: the bound it states
    beside the share of held-out rows its tube ± ε holds, and the tube on those rows.  Fitted on the
    button; the fit stays on the page (other buttons rerun it) until ε or the session's data change."""
    width = st.select_slider(
        "Tube half-width ε, in standard deviations of the labels",
        EPSILON_IN_SD,
        value=0.5,
        format_func=lambda value: f"{value:g}",
        key="model_mpmr_epsilon",
    )
    pressed = st.button("Fit MPMR", key="model_fit_mpmr")
    try:
        key = (engine.id, engine.data_key(), width)
        result = app_state.kept_result(
            f"model_mpmr_result {engine.id}", key, pressed, lambda: mpmr_comparison(data, width)
        )
    except ValueError as problem:
        st.error(str(problem))
        return
    st.caption(  # before any figure: Ω and ρ defined where first shown (new-user pass 10, Minor 8)
        "Minimax probability machine regression, from the labels alone: a fit f, and Ω, a lower bound on "
        "P(|f − y| ≤ ε) over every distribution with the labels' means and covariances; ρ, its ridge penalty "
        "(larger: a smoother fit)."
    )
    if result is None:
        return
    numbers = st.columns(4)
    numbers[0].metric("P(|f − y| ≤ ε) ≥ Ω", f"{result.omega:.3f}", help=OMEGA_WORDS)
    numbers[1].metric("Within ε on held-out rows", f"{result.coverage:.3f}", help=f"{result.actual.size:,} rows")
    numbers[2].metric(
        "Within ε, leave-one-out",
        f"{result.loo_coverage:.3f}",
        help="Labels left out one at a time: each labeled row predicted by the fit without it, an estimate "
        "from the labels alone, not the paper's.",
    )
    numbers[3].metric("Test MAE, MPMR (demo)", to_digits_of(result.mae, mae_scale(data)), help=mae_unit(data))
    if result.warning:
        st.warning(app_state.plain(result.warning))
    st.caption(
        f"Ridge penalty ρ = {significant(result.rho, 2)}, chosen from the labels (least leave-one-out squared error)."
    )
    target = data.dataset.metadata["target"]
    title = f"Held-out rows (demo): MPMR ± ε (ε = {readable(result.epsilon)}) against actual"
    st.plotly_chart(
        tube_against_figure(result.actual, result.predicted, result.epsilon, title, target), key="model_mpmr"
    )


def difference(a: float, b: float) -> float:
    """a - b, 0 where it is rounding noise (SSL at lambda2 = 0 is SVR up to the solver's last digits)."""
    return 0.0 if abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0) else a - b


def main() -> None:
    st.title("Model")
    st.caption(f"{app_state.MODELS_IN_WORDS} {app_state.LAMBDAS_IN_WORDS}")
    engine, data = app_state.need_engine_and_data()
    with st.expander("Model and hyperparameters", expanded=False):
        settings_section(engine)
    bench = engine.trained(wait=True)  # the page shows the model: it waits for a retrain due
    status = engine.trust.status()
    app_state.warn_if_retrain_stopped(engine)
    if engine.models.error:
        return
    trust_section(engine, status, mae_scale(data))
    last = engine.models.last()
    if last is None:
        return
    held_out = HeldOutChange.of(data.y_true[data.test], bench.svr_test, bench.ssl_test)
    metrics_section(last, held_out, mae_scale(data), mae_unit(data))
    if few := few_rows_warning("The test MAEs are", data.test.size):
        st.warning(few)
    if data.test.size:
        fits_section(engine, bench, data)
    violations_section(engine, bench, status.in_force)
    st.subheader("MPMR (regression with a probability bound): a tube with a probability")
    mpmr_section(engine, data)
    st.subheader("The GP preference model")
    gp_section(engine, data)
    st.subheader("Gradient boosting")
    boosting_section(engine, data)


def fits_section(engine, bench, data) -> None:
    """SVR and SSL against the truth on the held-out rows, and test MAE as preferences grew (a
    demonstration: a real session has no test labels)."""
    predictions = {"SVR (labels only)": bench.svr_test, "SSL (labels + preferences)": bench.ssl_test}
    title, target = "Held-out rows (demo): predicted against actual", data.dataset.metadata["target"]
    axes = (f"actual {target}", f"predicted {target}")  # in the target's own name (and units)
    scatter = against_figure(data.y_true[data.test], predictions, title, *axes, diagonal="perfect")
    st.plotly_chart(scatter, key="model_scatter")  # one above the other: side by side, 60 px wide at 1024 px
    runs = engine.store.model_runs(engine.id)
    st.plotly_chart(mae_history_figure(runs, target), key="model_history")
    answers_bought_section(engine, runs, data)


def answers_bought_section(engine, runs, data) -> None:
    """The session's cross-validated error against the number of answers, beside the labels-instead
    estimate (issue 31): what the expert's time bought, seen without test labels."""
    cost = st.number_input(
        "A value label costs … answers", 1, 1000, int(LABEL_COST), step=1, key="label_cost",
        help="How many pairwise answers an expert gives in the time one value label takes (the "
        "labels-instead line). A value has to be looked up or estimated from the whole row: about ten answers.",
    )  # fmt: skip
    target = data.dataset.metadata["target"]
    figure = answers_bought_figure(runs, engine.label_curve(), cost, data.labeled.size, target)
    if figure is None:
        st.caption("What the answers bought shows once automatic trust has cross-validated a retrain with answers.")
        return
    st.plotly_chart(figure, key="answers_bought")
    counts = AnswerCounts.of(engine.answers())
    st.caption(f"{counts.given:,} answers given in the session{counts.skipped_words()} (a skip buys nothing).")


def set_model(engine, **changes) -> None:
    """Store a change of the session's model settings (a callback)."""
    engine.set_model(**changes)


def settings_section(engine) -> None:
    """The session's model and its settings (every annotator's): widgets show the stored values and
    store what the user changes."""
    settings, state, models = engine.model_settings(), st.session_state, studio_models()
    state.model_select = settings.family
    st.selectbox(
        "Regressor",
        list(models),
        format_func=lambda key: models[key].label,
        key="model_select",
        help="Sparse: the fit rests on few rows, a linear programme (the default). Smooth: a quadratic penalty "
        "instead, a smoother fit. docs/LP.md gives the papers they come from.",
        on_change=lambda: set_model(engine, family=state.model_select, parameters={}),
    )
    for name, setting in models[settings.family].studio_settings.items():
        key = f"model_{settings.family}_{name}"
        state[key] = settings.parameters[name]
        trusted = settings.automatic_trust and name == "lambda2"  # automatic trust sets SSL's λ2 itself
        st.select_slider(
            setting.label,
            setting.values,
            format_func=lambda value: "auto" if value is None else significant(value, 3),
            key=key,
            disabled=trusted,
            help="Not used under automatic trust, which weighs each source itself: turn it off below to set λ2."
            if trusted
            else setting.help,
            on_change=lambda name=name, key=key: set_model(
                engine, parameters={**engine.model_settings().parameters, name: state[key]}
            ),
        )
    state.model_automatic_trust = settings.automatic_trust
    st.toggle(
        "Automatic trust: weigh each source of preferences by its measured accuracy, and mix SVR with the "
        f"fits with preferences at {path_settings()}, averaged, in the share that cross-validates best on the "
        "labels (SVR unless the preferences lower the cross-validated error)",
        key="model_automatic_trust",
        on_change=lambda: set_model(engine, automatic_trust=state.model_automatic_trust),
        help="On: SVR takes the λ1 above and the fits with preferences a share of it; the λ2 above is not used. "
        "Off: SSL uses both and the stored weights. The session's setting: every annotator trains with it.",
    )
    state.model_time_limit = settings.time_limit
    st.select_slider(
        "Retrain time limit (seconds; past it the last model stays)",
        TIME_LIMITS,
        format_func=lambda value: f"{value:g}",
        key="model_time_limit",
        on_change=lambda: set_model(engine, time_limit=state.model_time_limit),
    )


def metrics_section(last: dict, held_out: HeldOutChange, scale: float, unit: str) -> None:
    """The last retrain: preferences, test MAE of SVR and SSL (a demonstration, to the digits of ``scale``
    as every MAE of the page; its change grey when its interval ``held_out`` spans 0 or few rows measure it),
    violations (their change grey: breaking fewer preferences is no better when they are wrong), time;
    ``unit`` the MAEs'."""
    metrics = [*st.columns(3), *st.columns(3)]  # three a row: at 1024 px five cut "Test MAE, …" short
    noise = held_out.within_noise() or held_out.rows < FEW_ROWS
    metrics[0].metric("Preferences", f"{last['preferences']:,}")
    demonstration = f"Measured on held-out rows whose truth the models never see: a demonstration figure. {unit}"
    metrics[1].metric("Test MAE, SVR (demo)", to_digits_of(last["svr_mae"], scale), help=demonstration)
    metrics[2].metric(
        "Test MAE, SSL (demo)",
        to_digits_of(last["ssl_mae"], scale),
        help=demonstration,
        **metric_delta(change(difference(last["ssl_mae"], last["svr_mae"]), scale), True, noise),
    )
    if words := held_out.words(scale):
        metrics[2].caption(words)
    metrics[3].metric(
        "Violated by SSL",
        f"{last['ssl_violated']:,}",
        **metric_delta(f"{last['ssl_violated'] - last['svr_violated']:+,d} vs SVR", within_noise=True),
    )
    metrics[4].metric(
        "Last retrain", f"{1000 * last['seconds']:,.0f} ms", help=f"started {solve_start_words(last['start'])}"
    )


def boosting_section(engine, data) -> None:
    """Gradient boosting on the same labels, with no constraint or monotone increasing in a column (the usual
    way to state one order relation), by default in the column a rule of the session orders by
    (``monotone_column``), beside SVR's test MAE.  The result stays on the page until the column or the data
    change."""
    numeric = data.numeric_features()
    default, why = monotone_column(data, engine.rules())
    options = [None, *numeric]
    column = st.selectbox(
        "Gradient boosting, monotone increasing in",
        options,
        index=options.index(default) if default in options else 0,
        format_func=lambda option: "no constraint" if option is None else option,
        key="model_monotone",
        help=f"Starts at {default or 'no constraint'}: {why}.",
    )
    pressed = st.button(
        "Fit gradient boosting",
        key="model_fit_hgb",
        help="scikit-learn's HistGradientBoostingRegressor: a sum of small decision trees, each fitted to what the "
        "trees before it got wrong, on the labels alone.",
    )
    try:
        key = (engine.id, engine.data_key(), column)
        error = app_state.kept_result(
            f"model_hgb_result {engine.id}", key, pressed, lambda: monotone_boosting_mae(data, column)
        )
    except ValueError as problem:
        st.error(str(problem))
        return
    if error is not None:
        scale, cells, last = mae_scale(data), st.columns(3), engine.models.last()
        cells[0].metric("Test MAE, gradient boosting (same labels)", to_digits_of(error, scale), help=mae_unit(data))
        if last is not None:  # beside SVR's, on the same held-out rows
            cells[1].metric("Test MAE, SVR (same labels)", to_digits_of(last["svr_mae"], scale), help=mae_unit(data))
        constant = median_mae(data)
        cells[2].metric(  # short: at 1024 px three labels a row are cut beyond about 24 characters
            "Test MAE, labels' median",
            to_digits_of(constant, scale),
            help=f"The median of the labels predicted for every held-out row: a model that learned nothing. "
            f"{mae_unit(data)}",
        )
        if note := boosting_note(error, constant, data.labeled.size, scale):
            st.info(note)


main()
