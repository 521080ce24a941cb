"""Rules: "everything roughly equal, the one with more X is worth more" — many preferences at once."""

from functools import partial

import numpy as np
import streamlit as st

import app_state
from app_pages.rule_editing import CONDITION_SLOTS, NO_CONDITION, edit_actions, fill_form
from ordercore.knowledge.quality import labeled_check
from ordercore.knowledge.rules import (
    CONDITIONS,
    Condition,
    Ordering,
    Rule,
    condition_form,
    condition_pairs,
    default_direction,
    default_ordering,
    generate,
    offered_conditions,
    ordering_form,
    rank_correlation,
    rule_columns,
    rule_name,
    suggested_conditions,
)
from ordercore.studio.data import identifier_column
from ordercore.studio.figures import rows_map
from ordercore.studio.numbers import counted, wrapped_row_height
from ordercore.studio.rule_edits import rule_number
from ordercore.studio.rule_table import session_rules_table
from ordercore.studio.rule_view import (
    checked_line,
    direction_reason,
    preview_caption,
    preview_rows,
    preview_sample,
    quality_words,
    removal_warning,
    zero_pairs_reason,
)
from ordercore.studio.session_files import ImportChoice, export_file_name, import_refusal

# A condition's kind on a row of its own (half the page), then its columns and amount on the next (wide
# enough for California's column names to show whole in a 1024 px window; one row cut them short). A string
# here would be drawn on the page (Streamlit's magic).
KIND_CELLS = [1, 1]
PARAMETER_CELLS = [3, 3, 2]


def start(key: str, value) -> None:
    """Widget ``key`` starts at ``value`` unless it holds one (drawn before, or filled by Edit): the session state
    is its one source, never also an ``index`` or ``value`` given to the widget (Streamlit warned of the two on
    Save changes to rule #2, nu13 F11)."""
    st.session_state.setdefault(key, value)


def parameter_widget(cell, parameter, key: str):
    """One input of a condition's form (``ordercore.knowledge.rules.condition_form``), or the ordering's
    "by at least" (``ordering_form``); an amount is typed to its ``decimals``, in its ``step``s."""
    if parameter.options is not None:
        start(key, parameter.default if parameter.default in parameter.options else next(iter(parameter.options), None))
        return cell.selectbox(parameter.label, parameter.options, key=key)
    help_text = parameter.help or (f"below {parameter.maximum}" if parameter.below else None)
    start(key, float(parameter.default))
    return cell.number_input(
        parameter.label,
        min_value=parameter.minimum,
        step=parameter.step,
        format=f"%.{parameter.decimals}f",
        key=key,
        help=help_text,
    )


def condition_widgets(slot: int, frame, exclude, suggested) -> Condition | None:
    """The widgets of one "roughly equal" condition: its kind (any registered one), then on a row below its
    parameters (an amount keyed by the column it measures, so that it starts from that column's
    spread), and how many pairs of rows it holds for."""
    kinds = [NO_CONDITION, *offered_conditions(frame, exclude)]
    start(f"rule_kind_{slot}", suggested.kind if suggested is not None and suggested.kind in kinds else NO_CONDITION)
    kind = st.columns(KIND_CELLS)[0].selectbox(
        f"condition {slot + 1}",
        kinds,
        format_func=lambda k: CONDITIONS[k].label if k in CONDITIONS else k,
        key=f"rule_kind_{slot}",
    )
    if kind == NO_CONDITION:
        return None
    values: dict = {}
    for index, cell in enumerate(st.columns(PARAMETER_CELLS)):
        parameters = condition_form(kind, frame, exclude, suggested, chosen=values)
        if index >= len(parameters):
            break
        parameter = parameters[index]
        key = f"rule_{slot}_{kind}_{parameter.name}"
        if parameter.per_spread is not None:
            key += "_" + "_".join(str(v) for v in values.values())
        values[parameter.name] = parameter_widget(cell, parameter, key)
    condition = CONDITIONS[kind](**values)
    try:
        condition.check()
        pairs, of = condition_pairs(condition, frame)
    except (ValueError, TypeError, KeyError):
        return condition  # the rule says what is wrong
    if np.isfinite(pairs) and of:
        about = "about " if kind == "near" and len(frame) > 1000 else ""
        st.caption(f"Holds for {about}{pairs:,.0f} of {of:,} pairs of rows ({pairs / of:.1%}).")
    return condition


def build_rule(data, taken=()):
    """The rule form: its name (the column it orders by, until the expert types one), its conditions
    across the page, then its ordering, margin and weight and the cap on its pairs in the left column.
    (rule or None, the cap or None, the right column for the preview, the left for the Add button)."""
    frame, target = data.frame, data.dataset.metadata["target"]
    exclude = [target, identifier_column(frame, [target])]  # the id names rows: no rule measures it
    numeric = rule_columns(frame, "numeric", exclude)
    ordering_default = default_ordering(frame, exclude, taken, data.y_train())
    name_slot = st.container()
    st.markdown("**Roughly equal when**")
    suggested = suggested_conditions(
        frame, exclude=[*exclude, ordering_default], slots=CONDITION_SLOTS, labels=data.y_train()
    )
    conditions = [
        condition_widgets(slot, frame, exclude, suggested[slot] if slot < len(suggested) else None)
        for slot in range(CONDITION_SLOTS)
    ]
    left, preview = st.columns([1, 1])
    with left:
        st.markdown("**then the one with**")
        ordering_now = st.session_state.get("rule_ordering", ordering_default)
        suggested = default_direction(frame[ordering_now], data.y_train()) if ordering_now in numeric else "higher"
        follow("rule_direction", suggested)
        direction = st.radio(  # a row of its own: in a quarter of the column, 1024 px broke them ('high / er')
            "direction", ["higher", "lower"], key="rule_direction", horizontal=True, label_visibility="collapsed"
        )
        cells = st.columns([5, 2])  # the ordering column's name whole at 1024 px (California's longest)
        start("rule_ordering", ordering_default if ordering_default in numeric else next(iter(numeric), None))
        ordering = cells[0].selectbox("value of", numeric, key="rule_ordering")
        # keyed by the column: 10,000 km typed for mileage never stays as 10,000 years (a new user's rule made 0 pairs)
        min_difference = parameter_widget(cells[1], ordering_form(frame, ordering), f"rule_min_difference_{ordering}")
        if ordering is not None:  # why it starts this way, for every column (it said so only for 'lower')
            reason = direction_reason(ordering, target, *rank_correlation(frame[ordering], data.y_train()))
            st.caption(app_state.plain(reason))
        st.markdown("**has the higher target** (margin d, weight w)")
        cells = st.columns(2)
        start("rule_margin", 0.0)
        start("rule_weight", 1.0)
        margin = cells[0].number_input("margin d", key="rule_margin")
        weight = cells[1].number_input("weight w", 0.0, key="rule_weight")
        cap = st.number_input(
            "At most this many pairs (0: every pair)",
            0,
            value=0,
            step=10_000,
            key="rule_max_pairs",
            help="Beyond it, a uniform sample of the matching pairs is kept.",
        )
    name = name_widget(name_slot, rule_name(ordering, direction) if ordering else "")
    conditions = [c for c in conditions if c is not None]
    if not conditions:
        left.info("Choose at least one 'roughly equal' condition above.")
        return None, None, preview, left
    try:
        rule = Rule(name, conditions, Ordering(ordering, direction, min_difference), margin, weight)
    except (ValueError, TypeError) as error:
        left.error(f"This rule is not complete: {error}")
        return None, None, preview, left
    return rule, int(cap) or None, preview, left


def follow(key: str, suggested) -> None:
    """Widget ``key`` holds ``suggested`` (what the data or the ordering say) until the expert picks
    another value, kept then."""
    if st.session_state.get(key) in (None, st.session_state.get(f"{key}_given")):
        st.session_state[key] = suggested
    st.session_state[f"{key}_given"] = suggested


def name_widget(slot, named: str) -> str:
    """The rule's name: ``named`` (after its ordering) until the expert types another, kept then."""
    follow("rule_name", named)
    return slot.text_input("Rule name", key="rule_name")


def export_and_import(engine) -> None:
    """The session's preferences (CSV, JSON), answers (CSV), rules (JSON) and grades (CSV), out; any of
    them in, checked whole before anything is written (``ordercore.studio.session_files``)."""
    with st.expander("Export and import"):
        cells = st.columns(5)
        # Callables: the files are made when a button is pressed, not on every rerun.
        exports = [  # label, kind, format, key
            ("Preferences (CSV)", "preferences", "csv", "export_csv"),
            ("Preferences (JSON)", "preferences", "json", "export_json"),
            ("Answers (CSV)", "answers", "csv", "export_answers"),
            ("Rules (JSON)", "rules", "json", "export_rules"),
            ("Grades (CSV)", "grades", "csv", "export_grades"),
        ]
        session = engine.info().name
        for cell, (label, kind, format, key) in zip(cells, exports, strict=True):
            cell.download_button(  # no rerun on a click: a rerun renews the others' deferred files
                label,
                partial(engine.export, kind, format),
                export_file_name(session, kind, format),
                key=key,
                on_click="ignore",
            )
        st.caption(
            "Exports keep who made each preference, answer or grade and where it came from (rule, click, import). To "
            "move a session's work to another session on the same data, import its rules, its answers and its "
            "grades (on the same rating scale, set on Ratings); a preferences file arrives as imported preferences, "
            "each kept with its annotator."
        )
        file = st.file_uploader(
            "Import an exported file (preferences, answers, rules or grades)",
            type=["csv", "json", "jsonl"],
            key="import_csv",
        )
        choice = st.session_state.setdefault("import_choice", ImportChoice())  # staged until Import (F11)
        replaced = choice.choose(*((file.name, file.file_id) if file is not None else (None, None)))
        if replaced and not st.session_state.get("import_apply"):
            st.warning(app_state.plain(replaced))
        if file is not None and st.button("Import this file", key="import_apply"):
            choice.done()
            try:
                message = engine.import_file(file.name, file.getvalue(), app_state.annotator())
            except (ValueError, KeyError) as error:
                st.error(import_refusal(error))
            else:
                (st.info if message.startswith("Nothing") else st.success)(message)


RULES_COLUMNS = {
    # column: (label, width in px): at 1400 px the weight column was cut off (the rule's name is cut at
    # 230 px rather than the columns after it)
    "#": ("#", 35),
    "rule": ("rule", 230),  # its name, then the rule in words (nu13 F10): they wrap, to RULE_LINES lines
    "pairs": ("pairs", 65),
    "coverage": ("coverage", 70),
    "accuracy (95 % interval)": ("accuracy", 120),
    "labeled pairs": ("labeled", 60),
    "audit answers": ("audits", 55),
    "right where SVR disagrees": ("right vs SVR", 90),
    "weight": ("weight", 55),
    "hint": ("hint", 140),
}
RULE_LINES = 8  # lines a row of the rules table holds: a rule of four conditions in words takes seven
OVERLAPS_COLUMNS = {
    # and the overlaps table cut 'right on labeled pairs'
    "#": ("#", 35),
    "rule": ("rule", 195),  # 35 px to '#' (issue 33, nu13 F3): a long name wraps
    "rows in its pairs": ("rows", 55),
    "shared with other rules": ("shared: rules", 95),
    "reversed by other rules": ("reversed: rules", 110),
    "shared with answers": ("shared: answers", 115),
    "reversed by answers": ("reversed: answers", 125),
    "right on labeled pairs": ("right on labeled pairs", 165),
}


def fitted(table, columns: dict, **extra) -> dict:
    """``column_config`` for a table of the session's rules: each of ``columns`` under its short label (its
    long name as help) and width, so that every column fits beside the sidebar in a 1400 px window."""
    config = app_state.compact(table, **extra)
    for column, (label, width) in columns.items():
        config[column] = {**config.get(column, {}), "label": label, "help": column, "width": width}
    return config


def main() -> None:
    st.title("Rules")
    engine, data = app_state.need_engine_and_data()
    editing = st.session_state.get("rule_editing")
    rule, cap, preview, left = build_rule(data, {rule.ordering.column for _, rule in engine.rules()})
    made = rule_preview(preview, data, rule, cap) if rule is not None else None
    if editing in dict(engine.rules()):
        edit_actions(engine, editing, rule, made, left)
    elif made is not None and left.button(
        "Add this rule to the session", type="primary", key="rule_add", disabled=not len(made.preferences)
    ):
        add_rule(engine, rule, made)
    export_and_import(engine)
    st.subheader("The session's rules")
    if removed := st.session_state.pop("rule_removed", None):
        st.success(removed)
    if not engine.rules():
        st.caption("No rules yet.")
        return
    stored_rules_section(engine, data)


def rule_preview(preview, data, rule, max_pairs):
    """The pairs ``rule`` makes (``RulePreferences``; once per rule and cap), on a map in the ``preview``
    column and in a table of the page's width below; None (and why) when it cannot make them."""
    labeled, labels = np.zeros(len(data.frame), dtype=bool), data.y_train()  # never a held-out target
    labeled[data.labeled] = True
    try:
        made, checks = app_state.memo(
            "rule_preview",
            (id(data), rule.to_json(), max_pairs),
            lambda: (
                generate(rule, data.frame, labeled, max_pairs=max_pairs, random_state=0),
                labeled_check(rule, data.frame, labels),
            ),
        )
    except ValueError as error:
        preview.error(str(error))
        return None
    if not len(made.preferences) and rule.ordering.min_difference > 0:
        reason = app_state.memo(
            "rule_zero", (id(data), rule.to_json()), lambda: zero_pairs_reason(rule, data.frame, labeled)
        )
        if reason:
            preview.warning(app_state.plain(reason))
    with preview:
        sampled = f", a uniform sample of at most {max_pairs:,} kept" if max_pairs else ""
        st.metric("Pairs this rule makes", f"{len(made.preferences):,}", help=f"{made.n_matched:,} matched{sampled}")
        shown = preview_sample(made.preferences)
        if {"latitude", "longitude"} <= set(data.frame.columns) and len(made.preferences):
            figure = rows_map(
                data.frame["latitude"],
                data.frame["longitude"],
                pairs=(shown.i, shown.j),
                title=preview_caption(len(shown), len(made.preferences)),
            )
            st.plotly_chart(figure, key="rule_map")
    # the rule's columns first, then every other context column (notes included)
    own = [rule.ordering.column, *(c for condition in rule.conditions for c in condition.columns())]
    columns = dict.fromkeys([*own, *data.row_names.columns])
    pairs, _ = preview_rows(shown, checks, rule.margin, rule.weight)
    target = data.dataset.metadata["target"]
    table = data.row_names.preferences_table(pairs, data.frame, list(columns), known=(target, labels))
    config = app_state.compact(table)  # below both columns, short headers: every column fits
    st.dataframe(table, key="rule_pairs", hide_index=True, width="stretch", column_config=config)
    st.caption(checked_line(pairs, labels, checks, len(made.preferences)))
    return made


def add_rule(engine, rule, made) -> None:
    """Store the rule with its pairs, or say why not (a margin the models cannot fit, a rule held already)."""
    try:
        engine.add_rule(app_state.annotator(), rule, made.preferences)
    except ValueError as error:
        st.error(app_state.plain(f"The rule was not added: {error}"))
    else:
        st.success(app_state.plain(f"Added {rule.name!r}: {len(made.preferences):,} preferences."))
        st.session_state["rule_name_given"] = st.session_state.get("rule_name")  # a typed name was this rule's:
        # the next rule's name follows its ordering again (a new user's second rule kept the first's name)


def stored_rules_section(engine, data) -> None:
    """The session's rules: accuracy and weight, overlaps and conflicts, the preference graph's
    problems, and a button to remove each."""
    table, warnings, trust, quality = session_rules_table(engine, data)
    report = engine.rule_tables(data)[2]
    config = fitted(table, RULES_COLUMNS, **app_state.WEIGHT)
    rows = (
        max(  # a rule's name and its words wrap, whole, and so do hints
            wrapped_row_height(table[column], RULES_COLUMNS[column][1], most_lines=RULE_LINES) or 0
            for column in ("rule", "hint")
        )
        or None
    )
    st.dataframe(table, key="rule_trust", hide_index=True, width="stretch", column_config=config, row_height=rows)
    st.caption(
        "Coverage: the share of the table's rows in at least one of the rule's pairs. "
        "Accuracy: how often the rule's order is right, on pairs of labeled rows that meet its conditions and on "
        "the pairs of it you answered (Pairwise page, *Pairs from* the rule), with a 95 % interval: the range its "
        "share right over all such pairs would lie in 19 times in 20, wide enough for pairs that share rows (each "
        "labeled row is in several pairs, so 100 pairs of 40 rows are far fewer than 100 independent checks). "
        "An 'about equal' answer counts as the rule being wrong, a skip not at all. Weight: what automatic trust "
        "(Model page) gives the rule's preferences: the stored weight times a measure of how often the rule is right "
        "on the checked pairs where SVR (labels only, each labeled row predicted out of fold) orders the other way "
        "(only there do its preferences move the fit): 0 when there it is right no more often than wrong, 1 when "
        "right 7 times in 10, 2 at about 84 % (each step of 1 multiplies its odds of being right by 7/3); it counts "
        "as right on 7 of 10 such pairs before any check (1 while nothing checks it). Until the Model page has "
        "assessed trust, the stored weight is in force. Hint: few checks (its accuracy interval is wider than half "
        "the scale), unchecked, no direction (the labeled rows show none between the column it orders by and the "
        "target) or other way (they rank it opposite), and the share of its preferences SVR (fitted on the labels "
        "alone) orders the other way: a large share says the labels disagree with the rule."
    )
    for warning in warnings:  # more often wrong than right; resting on few checks, or on a column without direction
        st.warning(app_state.plain(warning))
    with st.expander("Overlaps, conflicts and the labeled pairs, rule by rule"):
        numbers = engine.store.rule_numbers(engine.id)
        table = quality_words(quality, [numbers[rule_id] for rule_id in trust["rule_id"]])
        st.dataframe(
            table,
            key="rule_quality",
            hide_index=True,
            width="stretch",
            column_config=fitted(table, OVERLAPS_COLUMNS),
            row_height=wrapped_row_height(table["rule"], OVERLAPS_COLUMNS["rule"][1]),
        )
        st.caption(
            "Shared: the rule's pairs that another rule (or an answer on Pairwise) also makes, either way round; "
            "reversed: those it makes only the other way round. Labeled pairs: pairs of labeled rows that meet its "
            "conditions, and how many of them its order gets right."
        )
    st.caption(
        f"Preference graph: {counted(len(report.cycles), 'cycle')}, "
        f"{counted(len(report.conflicts), 'conflicting pair')}, {counted(len(report.duplicates), 'duplicate')}."
    )
    for rule_id, stored_rule in engine.rules():
        remove_buttons(engine, rule_id, stored_rule, trust)


def remove_buttons(engine, rule_id: int, rule: Rule, trust) -> None:
    """Remove, in two steps: the first click says what goes (the rule's preferences) and asks; only
    'Yes, remove it' removes the rule.  Beside it, Edit fills the form with the rule."""
    name, number = rule.name, rule_number(engine, rule_id)
    if st.session_state.get("rule_removing") != rule_id:
        edit, remove_cell = st.columns([1, 4])
        edit.button(
            f"Edit rule #{number}",
            key=f"rule_edit_{rule_id}",
            on_click=fill_form,
            args=(rule_id, rule),
            disabled=len(rule.conditions) > CONDITION_SLOTS,  # (an imported rule may hold more)
            help=f"Fills the form above with the rule; at most {CONDITION_SLOTS} conditions.",
        )
        remove_cell.button(
            app_state.plain(f"Remove rule #{number} {name!r}…"),
            key=f"rule_remove_{rule_id}",
            on_click=st.session_state.__setitem__,
            args=("rule_removing", rule_id),
        )
        return
    row = trust.set_index("rule_id").loc[rule_id]
    st.warning(app_state.plain(removal_warning(number, name, int(row["pairs"]), int(row["audit_answers"]))))
    yes, no = st.columns([1, 6])

    def remove() -> None:
        engine.remove_rule(rule_id)
        st.session_state.pop("rule_removing", None)
        removed = f"Removed rule #{number} {name!r} and its {int(row['pairs']):,} preferences: the models retrain "
        removed += "without them."
        st.session_state["rule_removed"] = app_state.plain(removed)  # said once, on the page's next run

    yes.button("Yes, remove it", type="primary", key=f"rule_remove_confirm_{rule_id}", on_click=remove)
    no.button("Cancel", key=f"rule_remove_cancel_{rule_id}", on_click=st.session_state.pop, args=("rule_removing",))


main()
