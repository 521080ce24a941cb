"""Model: SVR (labels only) against SSL (labels and preferences), retrained after every change."""

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.figures import against_figure, mae_history_figure
from ordercore.workbench import STUDIO_MODELS, gp_latent, monotone_boosting_mae


def violations_by_source(session, bench, provenance) -> pd.DataFrame:
    """Per rule (by name) and for clicks: preferences, and how many SVR and SSL violate."""
    if len(provenance) == 0:
        return pd.DataFrame(columns=["source", "preferences", "violated by SVR", "violated by SSL"])
    names = {rule_id: rule.name for rule_id, rule in app_state.store().rules(session.id)}
    source = np.where(
        provenance["source"] == "rule", provenance["rule_id"].map(names).astype(str), provenance["source"]
    )
    frame = pd.DataFrame({"source": source, "svr": bench.svr_violated, "ssl": bench.ssl_violated})
    table = (
        frame.groupby("source").agg(preferences=("svr", "size"), svr=("svr", "sum"), ssl=("ssl", "sum")).reset_index()
    )
    return table.rename(columns={"svr": "violated by SVR", "ssl": "violated by SSL"})


TIME_LIMITS = (5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)


def number(value: float) -> str:
    return "—" if not np.isfinite(value) else f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def main() -> None:
    st.title("Model")
    session, data = app_state.need_session_and_data()
    with st.expander("Model and hyperparameters", expanded=False):
        model, params = app_state.model_choice()
        keys = list(STUDIO_MODELS)
        st.session_state.model_key = model = st.selectbox(
            "Regressor", keys, keys.index(model), format_func=lambda key: STUDIO_MODELS[key].label, key="model_select"
        )
        choice = STUDIO_MODELS[model]
        params = choice.settings(params)
        st.session_state.model_params = {
            name: st.select_slider(
                choice.labels.get(name, name),
                values,
                value=params[name],
                format_func=lambda value: "auto" if value is None else f"{value:g}",
                key=f"model_{model}_{name}",
            )
            for name, values in choice.choices.items()
        }
        st.session_state.retrain_time_limit = st.select_slider(
            "Retrain time limit (seconds; past it the last model stays)",
            TIME_LIMITS,
            value=app_state.time_limit(),
            format_func=lambda value: f"{value:g}",
            key="model_time_limit",
        )
    bench, preferences, provenance = app_state.retrain(session, data)
    app_state.warn_if_retrain_stopped()
    history = st.session_state.retrain_history
    if not history:
        return
    last = history[-1]
    metrics = st.columns(5)
    metrics[0].metric("Preferences", last["preferences"])
    metrics[1].metric("Test MAE, SVR", number(last["svr_mae"]))
    metrics[2].metric(
        "Test MAE, SSL",
        number(last["ssl_mae"]),
        delta=number(last["ssl_mae"] - last["svr_mae"]),
        delta_color="inverse",
    )
    metrics[3].metric(
        "Violated by SSL",
        last["ssl_violated"],
        delta=f"{last['ssl_violated'] - last['svr_violated']:+d} vs SVR",
        delta_color="inverse",
    )
    metrics[4].metric("Last retrain", f"{1000 * last['seconds']:.0f} ms", help=f"started {last['start']}")
    if data.test.size:
        left, right = st.columns(2)
        truth = data.y_true[data.test]
        scatter = against_figure(
            truth,
            {"SVR (labels only)": bench.svr_test, "SSL (labels + preferences)": bench.ssl_test},
            "Held-out rows: predicted against actual",
            "actual",
            "predicted",
            diagonal="perfect",
        )
        left.plotly_chart(scatter, key="model_scatter")
        runs = app_state.store().model_runs(session.id)
        maes = pd.DataFrame(runs["metrics"].tolist(), columns=["svr_mae", "ssl_mae"])
        right.plotly_chart(
            mae_history_figure(runs["n_preferences"], maes["svr_mae"], maes["ssl_mae"]), key="model_history"
        )
    st.subheader("Preferences violated, by source")
    st.dataframe(
        violations_by_source(session, bench, provenance), key="model_violations", hide_index=True, width="stretch"
    )
    st.subheader("Other models")
    gp_column, hgb_column = st.columns(2)
    with gp_column:
        if st.button("Fit the GP preference model", key="model_fit_gp") and data.test.size:
            try:
                mean, std = gp_latent(data, preferences, data.test)
            except ValueError as error:
                st.error(str(error))
            else:
                figure = against_figure(
                    data.y_true[data.test],
                    {"GP latent": mean},
                    "GP latent mean ± sd on held-out rows",
                    "actual",
                    "latent f",
                    errors=std,
                )
                st.plotly_chart(figure, key="model_gp")
    with hgb_column:
        column = st.selectbox(
            "Gradient boosting, monotone increasing in", data.numeric_features(), key="model_monotone"
        )
        if st.button("Fit HistGradientBoostingRegressor", key="model_fit_hgb"):
            try:
                error = monotone_boosting_mae(data, column)
            except ValueError as problem:
                st.error(str(problem))
            else:
                st.metric("Test MAE, gradient boosting (same labels)", f"{error:,.4g}")


main()
