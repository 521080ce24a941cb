"""Rules: "everything roughly equal, the one with more X is worth more" — many preferences at once."""

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

import app_state
from ordercore.datasets import read_csv
from ordercore.figures import rows_map
from ordercore.preferences import PreferenceSet
from ordercore.quality import check_preference_graph, rule_quality
from ordercore.rules import Near, Ordering, RelativeWithin, Rule, SameCategory, Within, generate

PREVIEW_PAIRS = 300


def build_rule(data) -> Rule | None:
    frame = data.frame
    numeric = [
        c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and c != data.dataset.metadata["target"]
    ]
    others = [c for c in frame.columns if c not in numeric and c != data.dataset.metadata["target"]]
    name = st.text_input("Rule name", "more bedrooms", key="rule_name")
    conditions = []
    st.markdown("**Roughly equal when**")
    geo = [c for c in ("latitude", "longitude") if c in frame.columns]
    if len(geo) == 2 and st.checkbox("within a distance", True, key="rule_use_near"):
        miles = st.number_input("miles", 0.0, 500.0, 2.0, key="rule_miles")
        conditions.append(Near("latitude", "longitude", miles))
    # Defaults: the seed's kind of rule on whatever of age and income the table has.
    suggested = [c for c in ("age", "housing_median_age", "income", "median_income") if c in numeric][:3]
    for k in range(3):
        left, middle, right = st.columns([2, 1, 1])
        options = ["—"] + numeric
        default = options.index(suggested[k]) if k < len(suggested) else 0
        column = left.selectbox(f"column {k + 1}", options, index=default, key=f"rule_within_column_{k}")
        kind = middle.radio("as", ["absolute", "relative"], key=f"rule_within_kind_{k}", horizontal=True)
        amount = right.number_input(
            "within", 0.0, value=0.1 if kind == "relative" else 10.0, key=f"rule_within_amount_{k}"
        )
        if column != "—":
            conditions.append(
                Within(column, amount) if kind == "absolute" else RelativeWithin(column, min(amount, 0.99))
            )
    if others:
        category = st.selectbox("same category in", ["—"] + others, key="rule_category")
        if category != "—":
            conditions.append(SameCategory(category))
    st.markdown("**then the one with**")
    left, middle, right = st.columns([1, 2, 1])
    direction = left.radio(
        "direction", ["higher", "lower"], key="rule_direction", horizontal=True, label_visibility="collapsed"
    )
    default = numeric.index("bedrooms") if "bedrooms" in numeric else 0
    ordering = middle.selectbox("value of", numeric, index=default, key="rule_ordering")
    min_difference = right.number_input("by at least", 0.0, value=0.0, key="rule_min_difference")
    st.markdown("**has the higher target** (margin d, weight w)")
    left, right = st.columns(2)
    margin = left.number_input("margin d", value=0.0, key="rule_margin")
    weight = right.number_input("weight w", 0.0, value=1.0, key="rule_weight")
    try:
        return Rule(name, conditions, Ordering(ordering, direction, min_difference), margin, weight)
    except (ValueError, TypeError) as error:
        st.error(f"This rule is not complete: {error}")
        return None


def export_and_import(session, data) -> None:
    """Preferences as CSV or JSON and rules as JSON, out; a preferences CSV in (checked first)."""
    store = app_state.store()
    with st.expander("Export and import"):
        cells = st.columns(3)
        # Callables: the files are made when a button is pressed, not on every rerun.
        cells[0].download_button(
            "Preferences (CSV)",
            partial(store.export_preferences, session.id, "csv"),
            "preferences.csv",
            key="export_csv",
        )
        cells[1].download_button(
            "Preferences (JSON)",
            partial(store.export_preferences, session.id, "json"),
            "preferences.json",
            key="export_json",
        )
        cells[2].download_button(
            "Rules (JSON)", partial(store.export_rules, session.id), "rules.json", key="export_rules"
        )
        file = st.file_uploader(
            "Import preferences (CSV with columns i, j, margin, weight)", type=["csv"], key="import_csv"
        )
        if file is not None and st.button("Import these preferences", key="import_apply"):
            try:
                made = PreferenceSet.from_frame(read_csv(file.getvalue()))
                made.check_indices(len(data.frame))
                count = store.import_preferences(session.id, made, app_state.annotator() or "anonymous")
            except (ValueError, KeyError) as error:
                st.error(f"Nothing was imported: {error}")
            else:
                st.success(f"Imported {count} preferences.")


def main() -> None:
    st.title("Rules")
    session, data = app_state.need_session_and_data()
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    build, preview = st.columns([1, 1])
    with build:
        rule = build_rule(data)
    if rule is not None:
        try:
            made = app_state.memo(
                "rule_preview",
                (st.session_state.study_key, rule.to_json()),
                lambda: generate(rule, data.frame, labeled, max_pairs=20_000, random_state=0),
            )
        except ValueError as error:
            preview.error(str(error))
            made = None
        if made is not None:
            with preview:
                st.metric(
                    "Pairs this rule makes",
                    len(made.preferences),
                    help=f"{made.n_matched} matched before the 20,000 cap",
                )
                if {"latitude", "longitude"} <= set(data.frame.columns) and len(made.preferences):
                    shown = made.preferences[:PREVIEW_PAIRS]
                    figure = rows_map(
                        data.frame["latitude"],
                        data.frame["longitude"],
                        pairs=(shown.i, shown.j),
                        title=f"First {len(shown)} pairs",
                    )
                    st.plotly_chart(figure, key="rule_map")
                st.dataframe(made.preferences.to_frame().head(50), key="rule_pairs", hide_index=True)
            if st.button(
                "Add this rule to the session", type="primary", key="rule_add", disabled=not len(made.preferences)
            ):
                app_state.store().add_rule(session.id, rule, made.preferences, app_state.annotator() or "anonymous")
                st.success(f"Added {rule.name!r}: {len(made.preferences)} preferences.")
    export_and_import(session, data)
    stored = app_state.store().rules(session.id)
    st.subheader("The session's rules")
    if not stored:
        st.caption("No rules yet.")
        return
    preferences, provenance = app_state.session_preferences(session)

    def checks():
        clicks = preferences[(provenance["source"] == "click").to_numpy()]
        sources = np.where(provenance["source"] == "rule", provenance["rule_id"].astype(str), provenance["source"])
        return (
            rule_quality([r for _, r in stored], data.frame, data.y_train(), clicks=clicks),
            check_preference_graph(preferences, sources),
        )

    # Every rule is generated again for its table: only when rules or answers change.
    key = (st.session_state.study_key, app_state.preferences_key(session))
    quality, report = app_state.memo("rule_checks", key, checks)
    st.dataframe(quality, key="rule_quality", hide_index=True, width="stretch")
    st.caption(
        f"Preference graph: {len(report.cycles)} cycles, {len(report.conflicts)} conflicting pairs, "
        f"{len(report.duplicates)} duplicates."
    )
    for rule_id, stored_rule in stored:
        if st.button(f"Remove {stored_rule.name!r}", key=f"rule_remove_{rule_id}"):
            app_state.store().remove_rule(rule_id)
            st.rerun()


main()
