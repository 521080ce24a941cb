"""Issue 33's item 4 in a real browser (tests/browser.py): on the Model page of a session on the sample
homes, a change of zero reads "no change" (no arrow, not red); once a rule is added, every chart draws
SVR in Okabe–Ito blue and SSL in vermillion, the MAE history's axis counts model runs, no tick shows an
exponent or an SI suffix, gradient boosting starts at the rule's column and shows its error with
separators, and a finished GP fit says how many of its most evaluations it took.  Every expectation is
independent of the code: the palette from Okabe & Ito's RGB values, counts from the store."""

import re

import numpy as np

from ordercore.knowledge.rules import Ordering, Rule, generate
from ordercore.knowledge.rules.conditions import Within
from ordercore.studio.data import load_source
from ordercore.studio.store import Store
from tests.browser import open_page, running_studio, settle, shared_session

# Okabe & Ito (2008), "Color Universal Design": blue (0, 114, 178) and vermillion (213, 94, 0).
EXPECTED = {"SVR": "rgb(0, 114, 178)", "SSL": "rgb(213, 94, 0)"}

TRACES = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => plot._fullData.map(trace => [
    trace.name, (trace.line && trace.line.color) || (trace.marker && trace.marker.color) || null]))"""

TICKS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => ({
    names: plot._fullData.map(trace => trace.name),
    x: [...plot.querySelectorAll('.xtick text')].map(t => t.textContent),
    y: [...plot.querySelectorAll('.ytick text')].map(t => t.textContent)}))"""

DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(plot => plot._fullData &&
    plot._fullData.some(trace => /SVR|SSL/.test(trace.name || ''))).length >= 2"""
"""Two charts drawn with SVR and SSL: the scatter and the history (CI once read the page when a
second chart of another kind was drawn and the history was not yet)."""

HISTORY_DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].some(plot => plot._fullData &&
    new Set(plot._fullData.map(trace => trace.name)).size === 2 &&
    plot._fullData.every(trace => trace.name === 'SVR' || trace.name === 'SSL'))"""
"""The history chart drawn, its traces SVR and SSL alone (CI once read the page when the scatter and the
answers-bought chart were drawn and the history not yet)."""

RGB_OF = """colour => { const probe = document.createElement('div'); probe.style.color = colour;
    document.body.appendChild(probe); const rgb = getComputedStyle(probe).color; probe.remove(); return rgb; }"""


def rule_of_rooms() -> Rule:
    return Rule("more rooms, dearer", (Within("floor_area", 50.0),), Ordering("rooms"))


def boosting_choice(page) -> str:
    return page.get_by_role("combobox", name="Gradient boosting, monotone increasing in").input_value()


def test_the_model_page_reads_at_a_glance(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    store = Store(f"sqlite:///{store_path}")
    settings = store.session("shared").settings
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 120_000)
        page.goto(studio.url)
        page.get_by_role("link", name="Model").click()
        page.get_by_text("Test MAE, SSL (demo)").wait_for()
        settle(page, 120)
        # No preferences: SSL is SVR, and says so without a sign, an arrow or red.
        for label in ("Test MAE, SSL (demo)", "Violated by SSL"):
            delta = page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricDelta")
            assert delta.inner_text().strip() == "no change"
            assert delta.locator("svg").count() == 0
            red, green, blue = map(int, re.findall(r"\d+", delta.evaluate("e => getComputedStyle(e).color"))[:3])
            assert not (red > 150 and green < 100 and blue < 100), (red, green, blue)
        assert boosting_choice(page) == "no constraint"  # no rule states an order (new user 10: "age_years")

        frame, _, _ = load_source("sample")
        labeled = np.zeros(len(frame), dtype=bool)
        labeled[settings["labeled"]] = True
        made = generate(rule_of_rooms(), frame, labeled, random_state=0).preferences
        store.add_rule(session_id, rule_of_rooms(), made, "e2e")
        page.reload()
        page.get_by_text("Test MAE, SSL (demo)").wait_for()
        settle(page, 120)
        page.wait_for_function(DRAWN)  # the scatter and the history, each with its traces
        page.wait_for_function(HISTORY_DRAWN)

        traces = [trace for plot in page.evaluate(TRACES) for trace in plot]
        models = [(name, colour) for name, colour in traces if "SVR" in name or "SSL" in name]
        assert len(models) >= 4, traces
        for name, colour in models:
            model = "SVR" if "SVR" in name else "SSL"
            assert page.evaluate(RGB_OF, colour) == EXPECTED[model], (name, colour)

        n_runs = len(store.model_runs(session_id))
        plots = page.evaluate(TICKS)
        history = next(plot for plot in plots if set(plot["names"]) == {"SVR", "SSL"})
        assert history["x"] and all(re.fullmatch(r"\d+", tick) for tick in history["x"]), history["x"]
        assert {int(tick) for tick in history["x"]} <= set(range(0, n_runs + 1)), (history["x"], n_runs)
        for plot in plots:
            for tick in plot["x"] + plot["y"]:
                assert not re.search(r"\de[+-−]?\d|\d[kMGTmµ]$", tick), (plot["names"], tick)

        assert boosting_choice(page) == "rooms"
        page.get_by_role("button", name="Fit gradient boosting").click()
        settle(page, 120)
        shown = page.get_by_test_id("stMetric").filter(has_text="gradient boosting").get_by_test_id("stMetricValue")
        assert re.fullmatch(r"\d{1,3}(,\d{3})+", shown.inner_text().strip()), shown.inner_text()

        page.get_by_role("button", name="Fit the GP preference model").click()
        running = page.get_by_text(re.compile(r"Fitting in the background: evidence evaluation \d+ of at most \d+"))
        running.wait_for(timeout=120_000)  # the page redraws it every second while the search runs
        assert re.search(r"at most \d[\d hmins]* more; \d[\d hmins]* so far", running.inner_text())
        page.get_by_text("Fitted in").wait_for(timeout=300_000)
        assert re.search(
            r"Fitted in .*\(\d+ of at most \d+ evidence evaluations\)", page.get_by_text("Fitted in").inner_text()
        )
