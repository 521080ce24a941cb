"""Model: SVR (labels only) against SSL (labels and preferences), retrained after every change."""

import numpy as np
import pandas as pd
import streamlit as st
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_absolute_error

import app_state
from ordercore.figures import against_figure, mae_history_figure
from ordercore.studio import gp_latent

LAMBDA_CHOICES = [1e-4, 1e-3, 1e-2, 1e-1, 1.0, 3.0, 10.0]


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


def number(value: float) -> str:
    return "—" if not np.isfinite(value) else f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def main() -> None:
    st.title("Model")
    session, data = app_state.need_session_and_data()
    with st.expander("Hyperparameters", expanded=False):
        params = st.session_state.get("model_params", {"gamma": None, "lambda1": 1e-3, "lambda2": 1.0})
        gamma = st.select_slider(
            "RBF γ (auto = 1 / features)",
            ["auto", 1e-3, 1e-2, 1e-1, 1.0, 10.0],
            value=params["gamma"] or "auto",
            key="model_gamma",
        )
        lambda1 = st.select_slider("λ1 (sparsity)", LAMBDA_CHOICES, value=params["lambda1"], key="model_lambda1")
        lambda2 = st.select_slider(
            "λ2 (weight of preferences)", LAMBDA_CHOICES, value=params["lambda2"], key="model_lambda2"
        )
        st.session_state.model_params = {
            "gamma": None if gamma == "auto" else gamma,
            "lambda1": lambda1,
            "lambda2": lambda2,
        }
    bench, preferences, provenance = app_state.retrain(session, data)
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
        numeric = [c for c in data.dataset.metadata["features"] if pd.api.types.is_numeric_dtype(data.frame[c])]
        column = st.selectbox("Gradient boosting, monotone increasing in", numeric, key="model_monotone")
        if st.button("Fit HistGradientBoostingRegressor", key="model_fit_hgb") and data.test.size:
            constraints = [1 if c == column else 0 for c in numeric]
            model = HistGradientBoostingRegressor(monotonic_cst=constraints, random_state=0)
            model.fit(data.frame.loc[data.labeled, numeric], data.y_true[data.labeled])
            error = mean_absolute_error(data.y_true[data.test], model.predict(data.frame.loc[data.test, numeric]))
            st.metric("Test MAE, gradient boosting (same labels)", f"{error:,.4g}")


main()
