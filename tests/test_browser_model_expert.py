"""New-user report 12 (issue 33, "the Studio as an expert would want it") in a real browser (tests/browser.py),
one test per finding, on a session of the sample homes with 30 labels, 400 pairs ordered by the true price
(imported) and alice's answers, three of them skips: the headline says what happens to the model in use (F3),
the trust assessment says how many answers came after it (F4), skips are counted apart (F5), gradient
boosting on too few labels says so (F8), and the regressors are named in words (F10).  Every expectation is
worked out here from the store and the data, not read from the code."""

import contextlib
import re

import numpy as np

from ordercore.preferences import PreferenceSet
from ordercore.studio.data import data_settings, load_source
from ordercore.studio.store import Store
from tests.browser import open_page, page_alerts, running_studio, settle
from tests.test_browser_pairwise import annotator_page

SKIPS = 3


def expert_session(store_path) -> int:
    """The session (30 labels, 20 % held out), the oracle's import and alice's 20 answers (right) and
    ``SKIPS`` skips, all between unlabeled rows; its id."""
    frame, target, features = load_source("sample")
    settings, data = data_settings(frame, "sample", target, features, {"n_labeled": 30, "test_fraction": 0.2})
    store = Store(f"sqlite:///{store_path}")
    session_id = store.create_session("expert", settings=settings).id
    price, rng = frame[target].to_numpy(), np.random.default_rng(0)
    i, j = rng.integers(0, len(frame), 400), rng.integers(0, len(frame), 400)
    keep = price[i] != price[j]
    winner, loser = np.where(price[i] > price[j], i, j)[keep], np.where(price[i] > price[j], j, i)[keep]
    store.import_preferences(session_id, PreferenceSet(winner, loser, 0.0, 1.0), "oracle")
    pool = np.asarray(data.pool)
    for k in range(20 + SKIPS):
        a, b = int(pool[2 * k]), int(pool[2 * k + 1])
        choice = "skip" if k % 7 == 3 else "a" if price[a] > price[b] else "b"
        store.add_answer(session_id, a, b, choice, "alice")
    store.engine.dispose()
    return session_id


@contextlib.contextmanager
def model_page(tmp_path):
    """The Studio on the expert session, with the Model page open once automatic trust has cross-validated:
    (the page, the store's path, the session's id)."""
    store_path = tmp_path / "studio.sqlite"
    session_id = expert_session(store_path)
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 300_000)
        page.goto(studio.url)
        page.get_by_role("link", name="Model").click()
        page.get_by_text("CV MAE, SSL in force").first.wait_for()
        settle(page, 120)
        yield page, store_path, session_id, studio


def metric(page, label: str):
    return page.locator('[data-testid="stMetric"]', has_text=label).first


def number(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def test_f3_the_headline_says_what_happens_to_the_model_in_use(tmp_path):
    with model_page(tmp_path) as (page, *_):
        svr = number(metric(page, "CV MAE, SVR").locator('[data-testid="stMetricValue"]').inner_text())
        in_force = metric(page, "CV MAE, SSL in force")
        ssl = number(in_force.locator('[data-testid="stMetricValue"]').inner_text())
        headline = page.locator('[data-testid="stAlert"]', has_text="SSL in force").first.inner_text()
        assert re.match(r"^(At the last full assessment .*?: )?SSL in force", headline), page_alerts(page)
        assert "unblended (not in use)" in headline  # the fit with all the preferences: a secondary figure
        if ssl == svr:
            return
        way = "below" if ssl < svr else "above"
        assert re.search(rf"error is [\d.,]+ {way} SVR's", headline), headline
        assert re.search(r"within the noise|surely lower|surely higher", headline)
        colour = in_force.locator('[data-testid="stMetricDelta"]').evaluate("e => getComputedStyle(e).color")
        red, green, blue = (int(v) for v in re.findall(r"\d+", colour)[:3])
        # a falling error shows as good (green), a rising one red: never grey (r = g = b)
        assert (green > red) if ssl < svr else (red > green), colour


def test_f4_answers_after_the_assessment_are_counted_and_the_table_says_as_of_when(tmp_path):
    with model_page(tmp_path) as (page, store_path, session_id, _):
        page.get_by_text("One assessment, made at").wait_for()
        store = Store(f"sqlite:///{store_path}")
        frame, target, _ = load_source("sample")
        labeled = set(store.session("expert").settings["labeled"])
        answered = {int(r) for r in store.answers(session_id)[["row_a", "row_b"]].to_numpy().ravel()}
        free = [r for r in range(len(frame) - 1, 0, -1) if r not in labeled and r not in answered][:4]
        price = frame[target].to_numpy()
        for a, b in ((free[0], free[1]), (free[2], free[3])):  # two more, within alice's size class: no new assessment
            store.add_answer(session_id, a, b, "a" if price[a] > price[b] else "b", "alice")
        store.engine.dispose()
        page.reload()
        page.get_by_text("2 answers since this assessment (not yet assessed)").wait_for()
        page.get_by_text("What each weight rests on, as of the assessment").wait_for()
        table = page.locator('[data-testid="stTable"]', has_text="accuracy checked").first
        row = table.locator("tr", has_text="clicks: alice").inner_text()
        assert "20 → 22" in row, row  # her ordered answers: 20 at the assessment, 22 now


def test_f5_skips_are_counted_apart(tmp_path):
    with model_page(tmp_path) as (page, store_path, session_id, studio):
        answers = Store(f"sqlite:///{store_path}").answers(session_id)
        given = int(np.count_nonzero(answers["choice"] != "skip"))
        assert given == 20 and len(answers) == 20 + SKIPS
        page.get_by_text(f"{given:,} answers given in the session; {SKIPS} skipped, not counted").wait_for()
        alice = annotator_page(studio.browser, studio.url, "alice", 120_000)
        alice.get_by_text(f"My answers ({20 + SKIPS}): change or remove one ({SKIPS} of them skips)").wait_for()


def test_f8_gradient_boosting_on_too_few_labels_says_so(tmp_path):
    with model_page(tmp_path) as (page, *_):
        page.get_by_role("button", name="Fit gradient boosting").click()
        page.get_by_text("Test MAE, labels' median").wait_for()
        settle(page)
        page.get_by_text("With 30 labels gradient boosting cannot learn").wait_for()


def test_f10_the_regressors_are_named_in_the_experts_words(tmp_path):
    with model_page(tmp_path) as (page, *_):
        page.locator('[data-testid="stExpander"] summary', has_text="Model and hyperparameters").click()
        box = page.get_by_role("combobox", name="Regressor")
        box.click()
        options = page.locator('[role="option"]').all_inner_texts()
        page.keyboard.press("Escape")
        assert "Regression with order preferences (sparse)" in options, options
        shown = " ".join([page.locator("body").inner_text(), *options])
        assert not re.search(r"\bseeds? 00\d|eq\. \(", shown, re.IGNORECASE), re.findall(
            r".{30}seeds? 00\d.{10}", shown
        )
