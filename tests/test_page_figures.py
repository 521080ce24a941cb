"""AppTests of issue 33's item 4, figures at a glance: SVR and SSL in the Okabe–Ito colours on every
chart, the MAE history against model runs, no signed zero change, numbers with separators and never
an exponent, long work with a total and an estimate, and gradient boosting's monotone column chosen
from the data.  Expectations are independent of the code: the palette from Okabe & Ito's RGB values,
numbers formatted by hand, the boosting column from the store's rules or a rank correlation."""

import base64
import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ordercore.studio.store import Store
from tests.studio_app import APP, add_default_rule, engine, metric

# Okabe & Ito (2008), "Color Universal Design": blue (0, 114, 178) and vermillion (213, 94, 0).
SVR_RGB, SSL_RGB = (0, 114, 178), (213, 94, 0)


def values(array) -> list[float]:
    """A Plotly JSON array: a list, or {"dtype", "bdata"} (base64 of the raw numbers)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).astype(float).tolist()
    return [float(value) for value in array]


def hex_of(rgb) -> str:
    return "#" + "".join(f"{channel:02x}" for channel in rgb)


def charts(at) -> dict:
    """Every Plotly chart on the page: its key -> its figure (JSON)."""
    return {str(element.proto.id): json.loads(element.proto.spec) for element in at.get("plotly_chart")}


def colour(trace) -> str | None:
    """A trace's colour as drawn: its line's, else its markers'."""
    for part in ("line", "marker"):
        value = trace.get(part, {}).get("color")
        if isinstance(value, str):
            return value.lower()
    return None


def model_traces(figures) -> list[tuple[str, str | None]]:
    """(model, colour) of every trace naming SVR or SSL, on every chart."""
    found = []
    for figure in figures:
        for trace in figure["data"]:
            for model in ("SVR", "SSL"):
                if model in trace.get("name", ""):
                    found.append((model, colour(trace)))
    return found


def faded(figures) -> list[str]:
    """The SVR and SSL traces drawn lighter than their colour (an opacity below 1, the trace's or its
    markers'): a new user saw the held-out scatter's sky-blue and orange beside the other charts' blue
    and vermillion."""
    return [
        trace["name"]
        for figure in figures
        for trace in figure["data"]
        if any(model in trace.get("name", "") for model in ("SVR", "SSL"))
        and min(trace.get("opacity", 1), trace.get("marker", {}).get("opacity", 1)) < 1
    ]


def assert_okabe_ito(found, at_least: int) -> None:
    assert len(found) >= at_least, found
    expected = {"SVR": hex_of(SVR_RGB), "SSL": hex_of(SSL_RGB)}
    assert [(model, expected[model]) for model, _ in found] == found


def delta_of(at, label):
    return next(m for m in at.metric if m.label == label).proto


def test_svr_and_ssl_take_the_okabe_ito_blue_and_vermillion_on_every_chart(ready):
    engine(ready).set_model(automatic_trust=False)
    at = ready.switch_page("app_pages/model.py").run()
    add_default_rule(at)
    at = at.switch_page("app_pages/model.py").run()
    assert not at.exception
    model_charts = charts(at)
    assert_okabe_ito(model_traces(model_charts.values()), at_least=4)  # scatter and history, SVR and SSL each
    assert faded(model_charts.values()) == []
    at.switch_page("app_pages/toy_cubic.py").run()
    assert not at.exception
    assert_okabe_ito(model_traces(charts(at).values()), at_least=2)


def test_experiment_figures_take_the_same_colours(store_path):
    from ordercore.experiments.figures import session_figure, sweep_figure

    points = [{"value": v, "svr_mae_mean": 5.0, "svr_mae_std": 1.0, "ssl_mae_mean": 4.0, "ssl_mae_std": 1.0}
              for v in (10, 100)]  # fmt: skip
    sweep = json.loads(sweep_figure({"dataset": "boston", "vary": "p", "points": points}).to_json())
    checkpoints = [{"answers": a, "svr_mae": 5.0, "ssl_mae": 4.0} for a in (0, 10)]
    session = json.loads(
        session_figure({"dataset": "boston", "arms": {"uncertainty": {"checkpoints": checkpoints}}}).to_json()
    )
    assert_okabe_ito(model_traces([sweep, session]), at_least=3)  # the arms are named by how pairs are chosen


def model_page_after_a_rule(ready, store_path):
    """The Model page (trust off) after the default rule is added, and the session's stored model runs."""
    engine(ready).set_model(automatic_trust=False)
    at = ready.switch_page("app_pages/model.py").run()
    add_default_rule(at)
    at = at.switch_page("app_pages/model.py").run()
    store = Store(f"sqlite:///{store_path}")
    return at, store.model_runs(store.session("s1").id)


def test_the_mae_history_runs_along_model_runs_not_preference_counts(ready, store_path):
    at, runs = model_page_after_a_rule(ready, store_path)
    n_runs = len(runs)
    assert n_runs >= 2
    history = next(figure for key, figure in charts(at).items() if "model_history" in key)
    for trace in history["data"]:
        assert values(trace["x"]) == list(range(1, n_runs + 1))
    axis = history["layout"]["xaxis"]
    assert "run" in axis["title"]["text"]
    assert axis.get("tickformat") == ",d" and axis.get("dtick", 1) >= 1  # whole runs, never 1.5 or 46.499k


def test_a_zero_change_reads_no_change_without_sign_arrow_or_colour(ready):
    at = ready.switch_page("app_pages/model.py").run()  # no preferences: SSL is SVR
    assert not at.exception
    for label in ("Test MAE, SSL (demo)", "Violated by SSL"):
        proto = delta_of(at, label)
        assert proto.delta == "no change", (label, proto.delta)
        assert proto.color == 2 and proto.direction == 2, (label, proto.color, proto.direction)  # gray, none


def test_the_toy_cubic_says_no_change_before_any_preference(store_path):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at = at.switch_page("app_pages/toy_cubic.py").run()
    proto = delta_of(at, "Error to target (SSL)")
    assert proto.delta == "no change" and proto.color == 2 and proto.direction == 2


def test_result_numbers_have_separators_not_exponents(store_path):
    result = {
        "experiment": "table1",
        "protocol": {},
        "summary": {"svr_mae_mean": 62460.25, "ssl_mae_mean": 61234.4, "improvement": 0.0196, "p_value": 0.03},
        "trials": [{"svr_mae": 62460.25, "ssl_mae": 61234.4}],
    }
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("app_pages/experiments.py").run()
    at.file_uploader(key="experiment_file").set_value(("r.json", json.dumps(result).encode(), "application/json"))
    at.run()
    assert not at.exception
    assert metric(at, "SVR test MAE") == "62,460" and metric(at, "SSL test MAE") == "61,234"
    trials = next(figure for key, figure in charts(at).items() if "trials_chart" in key)
    for axis in ("xaxis", "yaxis"):
        assert trials["layout"][axis].get("exponentformat") == "none"
        assert trials["layout"][axis].get("separatethousands") is True


@pytest.mark.parametrize(
    "value, shown",
    [(1e-7, "0.0000001"), (0.000012346, "0.00001235"), (62460.25, "62,460"), (12.3456789, "12.35"), (-3.0, "-3")],
)
def test_readable_numbers_never_use_an_exponent(value, shown):
    from ordercore.studio.data import readable

    assert readable(value) == shown


def boosting_column_by_hand(at, store_path) -> str | None:
    """The column an expert has stated an order in: the first rule's ordering column; else None, no
    constraint (new-user pass 10: 'increasing in age_years' by default, a relation nobody stated)."""
    store = Store(f"sqlite:///{store_path}")
    rules = store.rules(store.session("s1").id)
    return rules[0][1].ordering.column if rules else None


def test_gradient_boosting_starts_without_a_constraint_and_shows_its_error_beside_svrs(ready, store_path):
    """No rule: no constraint by default; its test MAE, fitted here with scikit-learn, is shown with separators
    beside SVR's test MAE on the same held-out rows (the page's 'Test MAE, SVR (demo)')."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.metrics import mean_absolute_error

    at = ready.switch_page("app_pages/model.py").run()
    assert boosting_column_by_hand(at, store_path) is None
    box = at.selectbox(key="model_monotone")
    assert box.value is None and box.format_func(box.value) == "no constraint" and "no rule" in box.help
    at.button(key="model_fit_hgb").click().run()
    data = engine(at).data()
    numeric = data.numeric_features()
    model = HistGradientBoostingRegressor(random_state=0)
    model.fit(data.frame.loc[data.labeled, numeric], data.y_true[data.labeled])
    error = mean_absolute_error(data.y_true[data.test], model.predict(data.frame.loc[data.test, numeric]))
    shown = metric(at, "Test MAE, gradient boosting (same labels)")
    assert error >= 1000 and shown == f"{round(error):,}"
    assert metric(at, "Test MAE, SVR (same labels)") == metric(at, "Test MAE, SVR (demo)")


def test_gradient_boosting_follows_the_first_rule(ready, store_path):
    at = ready.switch_page("app_pages/model.py").run()
    add_default_rule(at)
    at = at.switch_page("app_pages/model.py").run()
    expected = boosting_column_by_hand(at, store_path)
    box = at.selectbox(key="model_monotone")
    assert box.value == expected and "rule" in box.help


@pytest.mark.parametrize(
    "done, total, seconds, unit, text",
    [
        (3, 10, 30.0, "trials", "3 of 10 trials, 30 s so far, about 1 min 10 s left"),
        (0, 4, 2.0, "folds", "0 of 4 folds, 2 s so far"),
        (10, 10, 95.0, "trials", "10 of 10 trials in 1 min 35 s"),
    ],
)
def test_long_work_says_its_total_and_an_estimate(done, total, seconds, unit, text):
    from ordercore.studio.numbers import work_done

    assert work_done(done, total, seconds, unit) == text


def test_gp_progress_gives_the_most_evaluations_and_the_time_left():
    from ordercore.studio.numbers import gp_progress_text

    text = gp_progress_text(done=14, most=60, seconds=70.0, usual=35)
    # 5 s an evaluation: 21 more to the usual end of a search (105 s), 46 more at most (230 s).
    assert text.startswith("evidence evaluation 14 of at most 60")
    assert "about 1 min 45 s left" in text and "at most 3 min 50 s" in text
    assert re.search(r"1 min 10 s so far", text)


def test_the_experiments_progress_ends_with_its_total_and_time(store_path, data_directory):
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/experiments.py").run()
    at.selectbox(key="experiment_dataset").set_value("boston").run()
    at.button(key="experiment_run").click().run()
    assert not at.exception
    (bar,) = at.get("progress")
    assert re.fullmatch(r"2 of 2 trials in \d+ (s|min( \d+ s)?)", bar.proto.text), bar.proto.text


def test_a_finished_gp_fit_says_how_many_of_its_most_evaluations_it_took(ready):
    from ordercore.gp.evidence import MAX_EVALUATIONS

    engine(ready).set_model(automatic_trust=False)
    at = ready.switch_page("app_pages/model.py").run()
    add_default_rule(at)
    at.switch_page("app_pages/model.py").run()
    at.button(key="model_fit_gp").click().run()
    status = engine(at).gp_fit()["start"].job.wait(300)
    assert status.state == "done"
    at.run()
    expected = f"{status.evaluations} of at most {MAX_EVALUATIONS} evidence evaluations"
    assert any(expected in caption.value for caption in at.caption), [caption.value for caption in at.caption]


@pytest.mark.parametrize(
    "delta, of, text",
    [
        (3.675, 1928.4, "+4"),  # the new user's "1,928 ↑ 3.675": a dollar error shown whole, its change too
        (-12_345.6, 62_460.0, "−12,346"),  # the true minus, as plotly's ticks (a new user saw both kinds)
        (0.01234, 0.5234, "+0.0123"),  # 0.5234 shows 4 decimals
        (0.4, 12.35, "+0.40"),  # 12.35 shows 2
        (0.0004, 1928.0, "+0"),  # reads as no change (metric_delta)
    ],
)
def test_a_change_is_shown_to_the_last_digit_of_what_it_changes(delta, of, text):
    from ordercore.studio.numbers import change, reads_as_zero

    assert change(delta, of) == text
    assert reads_as_zero(change(delta, of)) == (round(delta) == 0 and abs(of) >= 1000)


@pytest.mark.parametrize(
    "value, of, text",
    [
        (9.2e-11, 12_000.0, "0"),  # a new user's "Model moved 0.000000000092": solver noise beside a 12,000 error
        (3.663e-9, 0.52, "0"),  # 0.52 shows 4 decimals
        (1234.4, 12_000.0, "1,234"),
        (0.01234, 0.5234, "0.0123"),
        (-26.94, 85.4, "−26.94"),  # a new user's "-26.9 to 8.4" beside plot ticks reading "−0.5"
        (float("nan"), 1.0, "—"),
    ],
)
def test_a_model_move_is_shown_to_the_digits_of_its_error(value, of, text):
    from ordercore.studio.numbers import to_digits_of

    assert to_digits_of(value, of) == text


def test_the_held_out_scatter_names_its_axes_by_the_target(ready):
    """A new user's axes read 'actual' and 'predicted': of what?  They name the session's target."""
    at = ready.switch_page("app_pages/model.py").run()
    assert not at.exception
    titled = {figure["layout"]["title"]["text"]: figure["layout"] for figure in charts(at).values()}
    layout = titled["Held-out rows (demo): predicted against actual"]
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("actual price", "predicted price")


def test_every_figure_of_held_out_truth_says_it_is_a_demonstration(ready):
    """A new user read the held-out scatter and the test-MAE history as the session's own results: a
    real session has no test labels, so each figure drawn from them says '(demo)' in its title."""
    at = ready.switch_page("app_pages/model.py").run()
    titles = [figure["layout"]["title"]["text"] for figure in charts(at).values()]
    of_truth = [title for title in titles if "held-out" in title.lower() or "test mae" in title.lower()]
    assert len(of_truth) >= 2 and all("(demo)" in title for title in of_truth), titles


@pytest.mark.parametrize(
    "value, digits, text",
    [
        (1e-6, 2, "0.000001"),  # a new user's "ρ = 1e-06"
        (0.00001235, 4, "0.00001235"),
        (62_460.25, 4, "62,460"),  # every digit left of the point kept
        (0.5, 3, "0.5"),  # trailing zeros dropped
        (0.0, 2, "0"),
        (float("nan"), 2, "—"),
    ],
)
def test_a_setting_reads_in_plain_decimals_never_an_exponent(value, digits, text):
    from ordercore.studio.numbers import significant

    assert significant(value, digits) == text


def test_a_scatter_of_thousands_of_rows_draws_a_named_sample_of_them():
    """California's 4,116 held-out rows of SVR and SSL were one brown mass: a scatter draws 1,000 rows at
    random, the same rows for both models, says so in its title, and keeps the whole range's diagonal;
    the MPMR tube's legend still counts every row."""
    from ordercore.studio.figures import against_figure, tube_against_figure

    rng = np.random.default_rng(5)
    actual = rng.normal(200_000, 50_000, 4116)
    series = {"SVR": actual + rng.normal(0, 30_000, 4116), "SSL": actual + rng.normal(0, 20_000, 4116)}
    figure = against_figure(actual, series, "Held-out rows", "actual", "predicted", diagonal="perfect")
    svr, ssl, diagonal = figure.data
    assert len(svr.x) == len(ssl.x) == 1000 and list(svr.x) == list(ssl.x)
    position = {value: k for k, value in enumerate(actual)}
    rows = [position[value] for value in svr.x]  # each drawn point is one row's actual and prediction
    assert list(svr.y) == list(series["SVR"][rows]) and list(ssl.y) == list(series["SSL"][rows])
    assert figure.layout.title.text == "Held-out rows, a random 1,000 of 4,116 rows"
    everything = np.concatenate([actual, *series.values()])
    assert list(diagonal.x) == [everything.min(), everything.max()]
    tube = tube_against_figure(actual, series["SSL"], 25_000.0, "MPMR", "actual")
    inside = int(np.sum(np.abs(series["SSL"] - actual) <= 25_000.0))
    assert [trace.name for trace in tube.data[:2]] == [f"within ε ({inside})", f"outside ε ({4116 - inside})"]
    assert len(tube.data[0].x) + len(tube.data[1].x) == 1000
    small = against_figure(actual[:600], {"SVR": series["SVR"][:600]}, "Held-out rows", "actual", "predicted")
    assert len(small.data[0].x) == 600 and small.layout.title.text == "Held-out rows"


@pytest.mark.parametrize(
    "count, noun, text",
    [(1, "conflicting pair", "1 conflicting pair"), (0, "cycle", "0 cycles"), (1204, "duplicate", "1,204 duplicates")],
)
def test_a_count_has_its_noun_in_the_singular_only_for_one(count, noun, text):
    """A new user read '1 conflicting pairs' under the rules' preference graph."""
    from ordercore.studio.numbers import counted

    assert counted(count, noun) == text


@pytest.mark.parametrize(
    "size, text",
    [
        (0.0048e9, "4.8 MB"),  # the new user's 'about 0.0048 GB'
        (2.5e9, "2.5 GB"),
        (512_000, "512 kB"),
        (812, "812 bytes"),
        (999_600_000, "1 GB"),  # 999.6 MB rounds up into the next unit, not to '1,000 MB'
    ],
)
def test_a_memory_size_reads_in_the_unit_its_size_needs(size, text):
    from ordercore.studio.numbers import memory_size

    assert memory_size(size) == text


def test_a_starting_gp_fit_says_its_own_phase_and_its_evaluations_of_the_most():
    from ordercore.studio.numbers import gp_starting_text

    exact = gp_starting_text("exact", 0, 100, 3.2)
    assert "inducing" not in exact and "0 of at most 100 evidence evaluations, 3 s so far" in exact
    assert "placing the 300 inducing inputs" in gp_starting_text("sparse", 300, 100, 3.2)


def test_every_mae_says_its_unit_the_target_and_its_axes_say_they_do_not_start_at_zero(ready):
    """A new user read "CV MAE, SVR 85.4" and an axis "test MAE" from 58.5 up with no unit and no word
    that 0 is off the axis (issue 33, m4 and c4): every MAE metric's help names the target (the sample
    homes' price column, read from the data source), the MAE axes name it and say they do not start at 0."""
    from ordercore.preferences import PreferenceSet
    from ordercore.studio.data import load_source
    from tests.test_page_model import finish_trust

    _, target, _ = load_source("sample")
    data = engine(ready).data()
    order = np.argsort(data.y_true)
    engine(ready).store.import_preferences(engine(ready).id, PreferenceSet(order[7::7], order[:-7:7], 0.0, 1.0), "x")
    at = ready.switch_page("app_pages/model.py").run()
    finish_trust(at)
    maes = [m for m in at.metric if "MAE" in m.label]
    assert {"CV MAE, SVR", "Test MAE, SVR (demo)", "Test MAE, SSL (demo)"} <= {m.label for m in maes}
    assert all(target in m.proto.help for m in maes), [(m.label, m.proto.help) for m in maes]
    history = next(figure for key, figure in charts(at).items() if "model_history" in key)
    title = history["layout"]["yaxis"]["title"]["text"]
    assert target in title and "not from 0" in title, title


@pytest.mark.parametrize(
    "text, lower_is_better, noise, shown, arrow, colour",
    [
        ("-0.6", True, False, "0.6", "down", "green"),  # a new user read "↓ -0.6": the arrow says the sign
        ("+9.3", True, False, "9.3", "up", "red"),
        ("−2 vs SVR", True, True, "2 vs SVR", "down", "gray"),
        ("+4", False, False, "4", "up", "green"),
    ],
)
def test_a_deltas_sign_is_its_arrow_never_both(text, lower_is_better, noise, shown, arrow, colour):
    from ordercore.studio.numbers import metric_delta

    assert metric_delta(text, lower_is_better, noise) == {"delta": shown, "delta_arrow": arrow, "delta_color": colour}


def test_the_model_pages_deltas_carry_no_sign_beside_their_arrow(ready, store_path):
    """The Test MAE delta reads its size, its arrow down exactly when SSL's stored test MAE is below SVR's."""
    from streamlit.proto.Metric_pb2 import Metric

    at, runs = model_page_after_a_rule(ready, store_path)
    last = runs["metrics"].iloc[-1]
    svr, ssl = last["svr_mae"], last["ssl_mae"]
    assert svr != ssl
    proto = delta_of(at, "Test MAE, SSL (demo)")
    assert proto.delta[0].isdigit(), proto.delta
    down = Metric.MetricDirection.DOWN if ssl < svr else Metric.MetricDirection.UP
    assert proto.direction == down
    assert all(not m.proto.delta or m.proto.delta[0] not in "+-−" for m in at.metric), [
        m.proto.delta for m in at.metric
    ]
