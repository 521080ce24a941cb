"""Pairwise: which of two homes is worth more?  Every answer is stored before the next pair."""

import pandas as pd
import streamlit as st

import app_state
from app_pages.pairwise_answers import CHOICE_LABELS, history_section
from app_widgets.answer_keys import UNDO, answer_keys, entry, sent_events
from ordercore.knowledge.quality import audit_accuracy
from ordercore.studio.answer_counts import AnswerCounts, goal_words
from ordercore.studio.click_standing import ClickStanding
from ordercore.studio.figures import rows_map
from ordercore.studio.held_pairs import hold_pairs
from ordercore.studio.numbers import to_digits_of, wrapped_row_height
from ordercore.studio.row_names import session_numbers, without_defaults
from ordercore.studio.session import ACTIVE, QUEUE
from ordercore.studio.store import MAX_COPIES
from ordercore.studio.workbench import PAIR_STRATEGIES

NUMBERED = (
    "Answers are numbered 1, 2, 3 … in the order given in this session; a number stays with its answer (a "
    "removed answer leaves a gap, and the next answer after an undo of the newest takes its number)."
)

STRATEGY_LABELS = {  # short, on one line at 1024 px; what each means in STRATEGY_HELP
    "committee": "Where other models say the fit errs",
    "random": "Random",
    "correction": "Likely corrections",
    "margin": "Least certain order (SSL)",
    "disagreement": "Where SSL and SVR disagree",
}
STRATEGY_HELP = (
    "Where other models say the fit errs: models of other families, fitted on the labels, order the pair against "
    "the fit by the widest gap (what bought the most in simulated sessions). Likely corrections: pairs SSL may order "
    "wrongly, far enough apart to judge. Least certain order: where SSL is least sure of the order. Where SSL and "
    "SVR disagree: pairs the two models order differently."
)
STRATEGIES = {name: STRATEGY_LABELS[name] for name in PAIR_STRATEGIES}  # the library's order: its default first


CANDIDATES = {
    "any": "Any two rows",
    "neighbours": "Similar rows",
}

ANSWER_COLUMNS = {  # the answers table's columns: (label, width in px, help); the long labels as help
    "answer": ("#", 50, "the answer's number in this session"),
    "annotator": ("by", 70, "annotator"),
    "A": ("A", 75, None),
    "B": ("B", 75, None),
    "answer given": ("answer", 70, "answer given"),
    "confidence": ("confidence", 85, None),
    "margin": ("margin", 60, None),
    "from": ("from", 75, "where the pair came from"),
    "when (UTC)": ("when (UTC)", 95, None),
}

# The "pairs from" choices are ACTIVE (the pairs the strategy below picks), QUEUE (the shared queue: each
# pair to k annotators), or a rule's id.  Comments, not docstrings: Streamlit's magic would print a bare
# string on the page.


def take_sent(engine) -> list[str]:
    """Apply the answers the browser sent (``Offers.apply``) with the confidence and margin set now, as
    answers of the annotator and from the source their pairs were offered for (``PairContext``: a key
    pressed while another source's pairs were on their way answered the pair it was shown); the ids read."""
    screen, state, annotator = app_state.screen(), st.session_state, app_state.annotator()
    weight, margin = float(state.get("pair_weight", 1.0)), float(state.get("pair_margin", 0.0))

    def answer(pair, choice, swapped, context) -> None:
        rule_id = None if context.source in (ACTIVE, QUEUE) else int(context.source)
        engine.answer(context.annotator, pair, choice, weight=weight, margin=margin, rule_id=rule_id, swapped=swapped)

    def undo():  # the undone pair is shown again, first, its sides as answered: the expert answers it anew
        answers = engine.answers()
        numbers, answers = session_numbers(answers), answers.set_index("id")
        undone = engine.undo_answer(annotator)
        if undone is None or undone not in answers.index:  # (given meanwhile in another tab: not read above)
            screen.notice = "Undid your last answer." if undone else "You have no answer in this session to undo."
            return None
        given, names = answers.loc[undone], engine.data().row_names
        pair = f"A {names.name(given['row_a'])}, B {names.name(given['row_b'])}"
        said = f"#{numbers[undone]} ({pair}: {CHOICE_LABELS[given['choice']]})"
        screen.notice = f"Undid your answer {said}; it is shown again."
        swapped = None if pd.isna(given["swapped"]) else bool(given["swapped"])
        return (int(given["row_a"]), int(given["row_b"])), swapped

    read, error = screen.pairs.apply(sent_events(KEY, set(CHOICE_LABELS), 2), engine.id, answer, undo)
    screen.error = error or screen.error
    return read


AHEAD = 24
# How many pairs the browser holds ahead of the one on screen: keys typed faster than the server answers
# each go to the next of them at once (a comment: Streamlit's magic would show a string here).

KEY = "pair_answers"
SWITCHES = ("pair_source", "pair_strategy", "pair_candidates")  # start a new context (not the name box: blur)
BUTTONS = [
    # choice, label, key, primary
    ("a", "A higher", "A", True),
    ("b", "B higher", "B", True),
    ("equal", "About equal", "E", False),
    ("skip", "Skip", "S", False),
    (UNDO, "Undo my last", "U", False),
]


def choose_source(rules: dict, numbers: dict):
    """The "Pairs from" choice: ``ACTIVE``, ``QUEUE`` or a rule's id (named by ``numbers``; kept in the URL)."""
    names = {ACTIVE: "active choice", QUEUE: "shared queue (each pair to several annotators)"}
    app_state.kept_choice("pair_source", "pairs_from", [ACTIVE, QUEUE, *rules])
    source = st.selectbox(
        "Pairs from",
        [ACTIVE, QUEUE, *rules],
        format_func=lambda k: names.get(k) or f"{rule_words(k, rules, numbers)} (audit it)",
        key="pair_source",
        help="Answering a rule's pairs measures how often the rule is right (shown on the Rules page). The shared "
        "queue hands each annotator the pairs others have not finished, so that several people judge the same "
        "pairs (agreement needs them).",
    )
    app_state.keep_choice("pair_source", "pairs_from")
    return source


def add_to_queue(engine, bench, screen) -> None:
    """Queue the pairs the active choice picks now (the form's number, strategy and candidates)."""
    state = st.session_state
    pairs = bench.next_pairs(state.queue_strategy, app_state.rng(), int(state.queue_n), state.queue_candidates)
    if not len(pairs):
        screen.error = "No pairs to queue: the unlabeled pool has fewer than two rows."
        return
    try:
        added = engine.queue_pairs(pairs, int(state.queue_copies), app_state.annotator())
    except ValueError as error:
        screen.error = str(error)
        return
    held = len(pairs) - added
    screen.message = f"Queued {added:,} new pair{'' if added == 1 else 's'}" + (
        f" ({held:,} {'was' if held == 1 else 'were'} queued already)." if held else "."
    )


@st.fragment(run_every=2.0)
def queue_progress(engine) -> dict:
    """The shared queue's progress, redrawn every 2 s: other annotators' answers count at once."""
    summary = engine.queue_summary(app_state.annotator())
    if summary["queued"]:
        st.progress(
            summary["done"] / summary["queued"],
            text=f"Shared queue: {summary['done']:,} of {summary['queued']:,} pairs done; {summary['wanted']:,} "
            f"answers still wanted; {summary['left_for_you']:,} pairs left for you.",
        )
    return summary


def queue_section(engine, bench, named: bool) -> None:
    """The shared queue's progress, and a form that adds pairs to it."""
    summary = queue_progress(engine)
    message = app_state.screen().message
    if message:
        st.success(message)
        app_state.screen().message = None
    with st.expander("Add pairs to the shared queue", expanded=not summary["queued"]):
        cells = st.columns(2)
        cells[0].number_input("Pairs", 1, 500, 20, key="queue_n")
        cells[1].number_input("Annotators per pair", 1, MAX_COPIES, 2, key="queue_copies")
        st.radio("Chosen by", list(STRATEGIES), format_func=STRATEGIES.get, key="queue_strategy", horizontal=True)
        st.radio("Candidates", list(CANDIDATES), format_func=CANDIDATES.get, key="queue_candidates", horizontal=True)
        st.button(
            "Add to the queue",
            key="queue_add",
            on_click=add_to_queue,
            args=(engine, bench, app_state.screen()),
            disabled=not named,
        )


def main() -> None:
    st.title("Pairwise")
    engine, data = app_state.need_engine_and_data()
    named, unnamed, choices = bool(app_state.annotator()), st.empty(), st.empty()  # places kept (``answer_area``)
    if not named:
        unnamed.info("Type your name as **Annotator** in the sidebar to answer: every answer is stored with it.")
    bench = engine.trained()  # a retrain, if one is due, runs in the background: nothing here waits for it
    rules, numbers = dict(engine.rules()), engine.store.rule_numbers(engine.id)
    with choices.container():
        beside = st.columns(2)  # the candidates beside the source: the pair fits on a 1024 x 768 screen
        with beside[0]:
            source = choose_source(rules, numbers)
        take_sent(engine)  # before the counts below: they include the answers just sent
        if source == ACTIVE:
            choice_widgets(beside[1])
        elif source == QUEUE:
            queue_section(engine, bench, named)
    answer_area(engine, data, source, rules, named)
    model_status(engine)


def rule_words(rule_id: int, rules: dict, numbers: dict) -> str:
    """A rule as the Rules page names it, "rule #3 'name'" (``numbers`` by id; one added meanwhile: its name)."""
    return f"rule {f'#{numbers[rule_id]} ' if rule_id in numbers else ''}{rules[rule_id].name!r}"


@st.fragment
def answer_area(engine, data, source, rules: dict, named: bool) -> None:
    """The pair on screen with its answer keys (the browser shows the next pair the moment a key goes
    down: ``app_widgets.answer_keys``), its confidence, margin and map, the answers so far and this
    annotator's own, and the agreement: an answer reruns this part alone, and the retrain does not hold
    it up.  Every count is drawn in the run that stored the answer (``answer_counts``).  Every part is in
    a place of its own, the same in every run (``st.empty``: what is not said this run is cleared), so
    that the fragments inside it keep their places: one that moved left its old copy on screen, as
    Streamlit's nested ``run_every`` fragments do (streamlit#16708; new-user report 10, Major 2)."""
    screen = app_state.screen()
    read = take_sent(engine)
    offer_pairs(engine, screen.pairs, source)
    said = st.empty()
    if screen.error or screen.notice:
        with said.container():
            say_once(screen)
    note = "" if source in (ACTIVE, QUEUE) else audit_words(engine, data, rules[source], source)
    entries = [pair_entry(data, screen.pairs, pair) for pair in screen.pairs.upcoming]
    answer_keys(KEY, entries, read, named, BUTTONS, repr(screen.pairs.offered_for), note, SWITCHES)
    st.caption(  # under the pair: the pair and its keys fit on a 1024 x 768 screen
        "Keys: **A**, **B**, **E** (about equal), **S** (skip), **U** (undo your last). B − A: blue where B's value "
        "is the larger, orange where it is the smaller, the stronger the larger the difference against the column's "
        "spread (a difference, not better or worse)."
    )
    controls = st.empty()
    if screen.pair is None:
        controls.info(NOTHING_LEFT.get(source, NOTHING_LEFT["rule"]))
    else:
        with controls.container():
            pair_controls(data, screen.pair)
    progress_section(engine)
    answers_list = st.empty()
    answers = engine.answers()
    if len(answers):
        with answers_list.container():
            answers_section(engine, data, answers, rules, named)
    agreement_section(engine)


def say_once(screen) -> None:
    """The error and the notice the answer area says once (read, then forgotten)."""
    if screen.error:
        st.error(screen.error)
        screen.error = None
    if screen.notice:
        st.success(screen.notice)
        screen.notice = None


def answers_section(engine, data, answers, rules: dict, named: bool) -> None:
    """The newest answers of the session, and this annotator's own (*My answers*)."""
    names, queued = {k: r.name for k, r in rules.items()}, engine.store.queued_pairs(engine.id)
    numbers = session_numbers(answers)  # 1, 2, 3 … in this session (the store's ids run across sessions)
    newest, ruled = answers.tail(10).iloc[::-1], engine.store.rule_numbers(engine.id)  # rule id: its number
    shown = without_defaults(data.row_names.answers_table(newest, names, queued, numbers=numbers, rule_numbers=ruled))
    recent_answers(shown)
    st.caption(NUMBERED)
    if named:
        history_section(engine, data, answers, numbers)


def recent_answers(shown) -> None:
    """The newest answers (``answers_table``), each column as narrow as its longest word and its cells
    wrapped: every column fits at 1024 px (a grid scrolled its 'from' column out of sight there)."""
    config = {
        c: st.column_config.Column(label, width=width, help=help) for c, (label, width, help) in ANSWER_COLUMNS.items()
    }
    rows = max(wrapped_row_height(shown[c], ANSWER_COLUMNS[c][1]) or 0 for c in shown.columns)
    st.dataframe(
        shown, key="answers_table", width="stretch", hide_index=True, column_config=config, row_height=rows or None
    )


@st.fragment(run_every=1.0)
def model_status(engine) -> None:
    """How far the last retrain moved the model, and why it ran (they run in the background: this part
    redraws itself every second)."""
    engine.trained()  # asks for a retrain if the trust in force changed meanwhile (another process's)
    app_state.warn_if_retrain_stopped(engine)
    last = engine.models.last()
    moved = to_digits_of(last["moved"], last["ssl_mae"]) if last else "—"  # to the digits of the model's error
    target = engine.data().dataset.metadata["target"]
    st.columns(2)[0].metric(
        f"Model moved ({target}, mean |Δ| on test rows)",
        moved,
        help=f"How far the last retrain moved SSL's predictions, on average over the held-out test rows, in "
        f"{target}, the target's units.",
    )
    if last and moved != "—" and (why := last["cause"].words(moved)):
        st.caption(why)


def own_clicks(engine, annotator: str, revision: int) -> tuple[str, bool]:
    """What SSL and SVR make of ``annotator``'s answers, as of the last retrain, preceded by what that
    retrain had of them while the one of the newest answers runs (``ClickStanding.as_of``); and whether it
    is a warning ('', False: nothing to say)."""
    bench = engine.models.workbench
    violations = None if bench is None else bench.violations  # read once: a retrain may replace it
    if not annotator or violations is None or violations.names is None or violations.answer_ids is None:
        return "", False
    standing = app_state.memo(
        "own_clicks",
        (engine.id, engine.models.version, revision, annotator),
        lambda: ClickStanding.from_violations(annotator, violations, engine.trust.in_force()),
    )
    text = (why := standing.why()) or standing.summary()
    if violations.revision != revision:  # the retrain of the newest answers has not finished: said so
        now = standing.as_of(engine.sources(), engine.preferences()[1]["answer_id"], bool(engine.models.error))
        text = f"{now} {text}".strip()
    return text, bool(why)


NOTHING_LEFT = {
    ACTIVE: "The unlabeled pool has fewer than two rows: nothing left to compare.",
    QUEUE: "Nothing in the shared queue is left for you: add pairs to it above, or choose active choice.",
    "rule": "Every pair of this rule within the unlabeled pool has been answered: choose another source.",
}


def choice_widgets(beside) -> None:
    """How the active choice picks the next pair: the candidates (in ``beside``), the strategy (kept in the URL)."""
    app_state.kept_choice("pair_strategy", "next_pair", list(STRATEGIES))
    app_state.kept_choice("pair_candidates", "candidates", list(CANDIDATES))
    beside.radio(
        "Candidates",
        list(CANDIDATES),
        format_func=CANDIDATES.get,
        key="pair_candidates",
        horizontal=True,
        help="Similar rows: rows roughly equal in the other features, a row and one of its ten nearest neighbours "
        "of the same category (on the numeric features, each scaled by its spread) that is also close: within the "
        "closest tenth of that category's pairs, so that 'all else roughly equal' holds.",
    )
    st.radio(
        "Next pair",
        list(STRATEGIES),
        format_func=STRATEGIES.get,
        key="pair_strategy",
        horizontal=True,
        help=STRATEGY_HELP,
    )
    app_state.keep_choice("pair_strategy", "next_pair")
    app_state.keep_choice("pair_candidates", "candidates")


def offer_pairs(engine, offers, source) -> None:
    """Hold ``AHEAD`` pairs for the browser, drawn for this annotator under the choices set now
    (``held_pairs.hold_pairs``: another annotator, strategy or candidates draws afresh)."""
    state = st.session_state
    strategy = state.get("pair_strategy", next(iter(STRATEGIES)))
    candidates = state.get("pair_candidates", next(iter(CANDIDATES)))
    hold_pairs(engine, offers, source, app_state.annotator(), app_state.rng(), strategy, candidates, AHEAD)


def audit_words(engine, data, rule, rule_id) -> str:
    """How far the audit of a rule has come, and how often the rule was right: said with its pairs alone."""
    answers = engine.answers()
    audited = answers[(answers["rule_id"] == rule_id).to_numpy(bool, na_value=False)]
    correct, total = audit_accuracy(rule, data.frame, audited)
    named = rule_words(rule_id, {rule_id: rule}, engine.store.rule_numbers(engine.id))
    return (
        f"Auditing {named}: {len(audited)} of its pairs answered, the rule right on "
        f"{correct} of {total} (skips and pairs it does not order do not count). Its accuracy and interval "
        "are on the Rules page."
    )


def pair_entry(data, offers, pair: tuple[int, int]) -> dict:
    """What the browser shows of ``pair``: its two rows named once (``RowNames``) and every context
    column side by side, each number in its column's decimals, with the difference B − A coloured by
    its sign, as strongly as it is large against the column's spread (``RowNames.shade``; computed once)."""
    if pair not in offers.entries:
        names, frame = data.row_names, data.frame
        a, b = (frame.iloc[row] for row in pair)
        rows = [
            (
                column,
                names.value(column, a[column]),
                names.value(column, b[column]),
                names.difference(column, a[column], b[column]),
            )
            for column in names.columns
        ]
        shades = [names.shade(column, a[column], b[column]) for column in names.columns]
        offers.entries[pair] = entry(
            pair,
            f"A: {names.name(pair[0])} · B: {names.name(pair[1])}",
            ["", f"A: {names.name(pair[0])}", f"B: {names.name(pair[1])}", "B − A"],
            rows,
            shades,
            short_head=["", "A", "B", "B − A"],
        )
    return offers.entries[pair]


def pair_controls(data, pair) -> None:
    """The confidence and margin the next answers carry, and the map of the pair on screen."""
    controls = st.columns([1, 1])
    controls[0].slider("Confidence (weight)", 0.1, 3.0, 1.0, 0.1, key="pair_weight")
    controls[1].number_input("Margin (target units; closeness for 'about equal')", 0.0, value=0.0, key="pair_margin")
    if {"latitude", "longitude"} <= set(data.frame.columns):
        figure = rows_map(
            data.frame["latitude"], data.frame["longitude"], marked={"A": pair[0], "B": pair[1]}, height=320
        )
        st.plotly_chart(figure, key="pair_map")


def set_goal(engine) -> None:
    engine.set_options("labelling", goal=int(st.session_state[f"answer_goal_{engine.id}"]))


def progress_section(engine) -> None:
    """The counts (``answer_counts``) and the session's goal."""
    answer_counts(engine)
    st.columns(2)[0].number_input(
        "Goal (answers; 0: none)",
        0,
        1_000_000,
        engine.options("labelling")["goal"],
        10,
        help="How many answers each annotator aims at: your own answers count toward it (the session keeps one "
        "goal for everyone).",
        key=f"answer_goal_{engine.id}",
        on_change=set_goal,
        args=(engine,),
    )


@st.fragment(run_every=2.0)
def answer_counts(engine) -> None:
    """The session's answers by everyone (and this annotator's) toward the goal, the preferences in force,
    and what SSL makes of this annotator's answers: read together, right after the answers just sent are
    stored, and drawn together (apart, the preferences lagged 15 s behind a new user's quick answers);
    redrawn every 2 s, so that other annotators' answers and a retrain that finished show without a key."""
    annotator, revision = app_state.annotator(), engine.revision()
    answers, goal, preferences = engine.answers(), engine.options("labelling")["goal"], engine.preferences()[0]
    own, everyone = AnswerCounts.of(answers, annotator), AnswerCounts.of(answers)
    standing, warn = own_clicks(engine, annotator, revision)
    toward_goal, cells = st.empty(), st.columns(2)  # each in its place in every run (``answer_area``)
    if goal:
        toward_goal.progress(min(own.given / goal, 1.0), text=goal_words(own, goal, everyone))
    cells[0].metric(
        "Answers given in the session, by everyone",
        f"{everyone.given:,}",
        help=f"A higher, B higher or about equal; {everyone.skipped:,} skips not counted.",
    )
    cells[1].metric("Preferences in force", f"{len(preferences):,}", help="Made by the rules, answers and imports.")
    st.caption(f"{own.given:,} of them yours ({annotator}){own.skipped_words()}")
    said = st.empty()
    if standing:
        (said.warning if warn else said.caption)(app_state.plain(standing))


def set_weighing(engine) -> None:
    engine.set_options("labelling", weigh_annotators=bool(st.session_state[f"weigh_annotators_{engine.id}"]))


@st.fragment(run_every=1.0)
def agreement_section(engine) -> None:
    """Cohen's κ between annotators on the pairs both answered, each one's intransitive triples, and the
    choice to weigh each annotator's clicks by their agreement; once there are answers, redrawn every
    second (another annotator's answers count without a key of one's own)."""
    if engine.answers().empty:
        return
    kappas, triples, weights = engine.agreement()
    with st.expander("Annotators: agreement and consistency"):
        if kappas.empty:
            st.caption("No pair has been answered by two annotators yet (the shared queue makes such pairs).")
        else:
            st.dataframe(kappas, key="agreement_kappa", hide_index=True, width="stretch")
        shown = triples.assign(
            **{
                "share intransitive": triples["share intransitive"].map(
                    lambda v: "no triples yet" if pd.isna(v) else f"{v:.0%}"
                )
            }
        )
        st.dataframe(shown, key="agreement_triples", hide_index=True, width="stretch")
        st.caption(
            "κ: Cohen's kappa on the pairs both answered (skips left out; 1 is full agreement, 0 what chance "
            "gives). Intransitive: among the triples of rows whose three pairs an annotator ordered, the share "
            "forming a cycle (a over b over c over a)."
        )
        st.toggle(
            "Weigh each annotator's clicks by their agreement with the others",
            engine.options("labelling")["weigh_annotators"],
            key=f"weigh_annotators_{engine.id}",
            on_change=set_weighing,
            args=(engine,),
            help="Each click's weight is multiplied by its annotator's mean κ with the others (weighted by the "
            "pairs they share; 0 at chance or below, 1 while it cannot be measured). Stored with the session.",
        )
        st.dataframe(weights.reset_index(), key="agreement_weights", hide_index=True)


main()
