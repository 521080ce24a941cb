"""The Pairwise page in a real browser (tests/browser.py), as a new user found it (report 9): counts that
lag behind quick answers, a 'B − A' header on two lines and an answers table cut at 1024 px, and a
search of *My answers* that lists twenty answers for '#7:'.  Checked against the store and against
counts made by hand from the keys pressed."""

import re

from ordercore.studio.store import Store
from tests.browser import open_page, running_studio, settle, shared_session, type_into
from tests.test_browser_pairwise import annotator_page, wait_for_answers

PREFERENCES_MADE = {"a": 1, "b": 1, "e": 2}
"""Preferences an answer makes: one for 'A higher' or 'B higher', two for 'about equal' (a pair of them)."""

WATCH_COUNTS = """
window.counts = [];
const metric = (label) => {
  const box = [...document.querySelectorAll('[data-testid="stMetric"]')].find((m) => m.innerText.includes(label));
  return box ? box.querySelector('[data-testid="stMetricValue"]').innerText : null;
};
setInterval(() => {
  const stale = document.querySelector('[data-testid="stMain"] [data-stale="true"]') !== null;
  const standing = [...document.querySelectorAll('[data-testid="stCaptionContainer"], [data-testid="stAlert"]')]
    .map((node) => node.innerText).find((text) => /SSL breaks|Updating/.test(text)) || null;
  window.counts.push([stale, metric("Answers given"), metric("Preferences in force"), standing]);
}, 20);
"""
"""Records, every 20 ms, whether any part of the page is still being redrawn (Streamlit marks it stale),
the answers and preferences the page counts, and what it says of SSL and the annotator's answers."""


def test_every_count_agrees_with_the_answers_after_quick_answers(tmp_path):
    """Ann answers 12 pairs quickly, each key as soon as the page counts the answer before.  Whenever the
    page is at rest (no part of it being redrawn), its count of preferences is the one the answers it
    counts make (hand-counted from the keys: one each for A or B, two for E), and what it says of SSL
    breaking her preferences is either of that many of hers or says it is updating (a new user's read 27
    preferences beside 32 answers, and 137 in force for 142, for 15 s).  At the end the counts are the
    store's."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    keys = "abeabbaeabab"
    made = [sum(PREFERENCES_MADE[key] for key in keys[:count]) for count in range(len(keys) + 1)]
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 120_000)
        ann.evaluate(WATCH_COUNTS)
        for count, key in enumerate(keys, start=1):  # each key as soon as the page counts the answer before
            ann.keyboard.press(key)
            ann.wait_for_function(f"window.counts.some(([stale, answers]) => answers === '{count}')")
        wait_for_answers(store_path, session_id, len(keys), timeout=60)
        done = f"window.counts.some(([stale, answers]) => !stale && answers === '{len(keys)}')"
        ann.wait_for_function(done, timeout=120_000)
        ann.wait_for_function(
            "window.counts.slice(-1)[0][3] !== null && !window.counts.slice(-1)[0][3].startsWith('Updating')",
            timeout=120_000,
        )
        counts = ann.evaluate("window.counts")
    store = Store(f"sqlite:///{store_path}")
    preferences = store.preferences(session_id)[0]
    assert len(store.answers(session_id)) == len(keys) and len(preferences) == made[-1]
    at_rest = [(int(answers), prefs, standing) for stale, answers, prefs, standing in counts if not stale and answers]
    assert at_rest[-1][:2] == (len(keys), str(len(preferences)))
    for answers, prefs, standing in at_rest:
        assert prefs == str(made[answers]), (answers, prefs)
        if standing and not standing.startswith("Updating"):
            # counted in answers, as *My answers* counts them (no skip among the keys: each answer counts)
            assert re.search(rf"of ann's {answers} answers? \(skips aside\)", standing), (answers, standing)


def test_at_1024_px_the_pair_and_the_answers_fit_and_an_answer_number_finds_that_answer(tmp_path):
    """At 1024 px (the sidebar open) 'B − A' heads its column on one line, and the answers table shows
    every column (it scrolled its 'from' column out of sight).  Searching *My answers* for '#1:' lists
    answer #1 alone (a fuzzy search listed #10, #11, #12 and #21 … with it)."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 120_000)
        page.set_viewport_size({"width": 1024, "height": 900})
        page.goto(studio.url)
        page.get_by_role("textbox", name="Annotator").wait_for()
        settle(page)
        type_into(page, "Annotator", "ann")
        page.get_by_role("link", name="Pairwise").click()
        page.get_by_role("button", name="A higher").wait_for()
        settle(page)
        page.evaluate("document.activeElement && document.activeElement.blur()")
        for count, key in enumerate("ab" * 6, start=1):
            page.keyboard.press(key)
            wait_for_answers(store_path, session_id, count)
        page.get_by_text("My answers (12)").wait_for()
        settle(page)
        header_lines = page.evaluate(
            """() => {
              const th = [...document.querySelectorAll('.answer-keys th')].find((cell) => cell.innerText === 'B − A');
              const range = document.createRange();
              range.selectNodeContents(th);
              return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
            }"""
        )
        assert header_lines == 1
        wrapping = page.evaluate(
            "[...document.querySelectorAll('.answer-keys tr')]"
            ".map((row) => getComputedStyle(row.lastElementChild).whiteSpace)"
        )
        assert set(wrapping) == {"nowrap"}  # on one line whatever the column's width (short differences: 2 lines)
        grid = page.locator('[data-testid="stDataFrame"]').first
        assert {"by", "answer", "from", "when (UTC)"} <= set(grid.locator("th").all_inner_texts())
        scroll_width, client_width = grid.locator(".dvn-scroller").evaluate(
            "(node) => [node.scrollWidth, node.clientWidth]"
        )
        assert scroll_width <= client_width, (scroll_width, client_width)
        page.get_by_text("My answers (12)").click()
        box = page.get_by_role("combobox", name="Answer")
        box.wait_for()
        settle(page)
        box.click()
        page.keyboard.type("#1:")
        listed = page.get_by_role("option")
        listed.first.wait_for()
        assert [text.split(":")[0] for text in listed.all_inner_texts()] == ["#1"]
