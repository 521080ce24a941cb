"""End to end in a real browser (tests/browser.py) on the Pairwise page.

Create a session, set up the sample data, answer three pairs by clicking, kill and restart the
server, and find the three answers still there.  Two annotators in two browser contexts on one
session: keys typed ahead of the page, per-annotator undo and edit, the data-switch refusal and a
kill -9 with an answer in flight, each checked against the store.  A reload keeps each annotator's
session and name, and two sessions never swap; a reload on another page keeps the Pairwise choices.
(The README's screenshots come from docs/screenshots/make_screenshots.py.)
"""

import re
import time
from pathlib import Path

from ordercore.studio.data import data_settings, load_source
from ordercore.studio.store import Store
from tests.browser import (
    open_page,
    page_alerts,
    running_studio,
    settle,
    shared_session,
    type_into,
    wait_for_metric,
)


def test_three_answers_survive_a_server_kill(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 60_000)
        page.goto(studio.url)
        page.get_by_role("button", name="Create session").wait_for()
        settle(page)
        type_into(page, "Annotator", "e2e annotator")
        type_into(page, "Session name", "browser session")
        page.get_by_role("button", name="Create session").click()
        settle(page)
        page.get_by_role("button", name="Use this data for the session").click()
        page.get_by_text("Session uses").wait_for()
        page.get_by_role("link", name="Pairwise").click()
        wait_for_metric(page, "Answers given", "0", tmp_path / "failure.png")
        for done in range(1, 4):
            page.get_by_role("button", name="A higher").click()
            wait_for_metric(page, "Answers given", str(done), tmp_path / "failure.png")
        studio.restart()
        # Reopen the app as a user does (its address), then the Pairwise page.
        page.goto(studio.url)
        page.get_by_role("link", name="Pairwise").click()
        wait_for_metric(page, "Answers given", "3", tmp_path / "failure.png")
    store = Store(f"sqlite:///{store_path}")
    answers = store.answers(store.session("browser session").id)
    assert answers["choice"].tolist() == ["a", "a", "a"]
    assert set(answers["annotator"]) == {"e2e annotator"}


def stored_answers(store_path: Path, session_id: int):
    """The session's answers as the store holds them now (read by a fresh handle, as another process)."""
    store = Store(f"sqlite:///{store_path}")
    answers = store.answers(session_id)
    store.engine.dispose()
    return answers


def annotator_page(browser, url: str, name: str, timeout_ms: float):
    """A page in its own browser context (its own Streamlit session), named ``name``, on Pairwise."""
    page = open_page(browser, timeout_ms)
    page.goto(url)
    page.get_by_role("textbox", name="Annotator").wait_for()
    settle(page)
    type_into(page, "Annotator", name)
    page.get_by_role("link", name="Pairwise").click()
    page.get_by_role("button", name="A higher").wait_for()
    settle(page)
    page.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the shortcuts
    return page


RECORD_KEYS = """
window.seen = [];
window.addEventListener("keydown", (event) => {
  const caption = document.querySelector(".answer-keys .caption");
  window.seen.push([event.key, caption && caption.innerText]);
}, true);
"""
"""Records, at each key press, the pair caption on screen as the key goes down (before the app sees it)."""


CHOICES = {"a": "a", "b": "b", "e": "equal"}


PAIR_CAPTION = re.compile(r"^A: home_id (\d+) · B: home_id (\d+)")
"""The pair's caption: its rows named by the sample's id column (row k has home_id k + 1: the CSV)."""


def pair_rows(caption: str) -> tuple[int, int]:
    """The row positions of the pair a caption names."""
    return tuple(int(home_id) - 1 for home_id in PAIR_CAPTION.match(caption).groups())


def shown_pair(page) -> tuple[int, int]:
    """The rows of the pair on screen, from its caption."""
    return pair_rows(page.get_by_text(PAIR_CAPTION).inner_text())


def wait_for_answers(store_path: Path, session_id: int, count: int, timeout: float = 30.0):
    """The stored answers once there are ``count`` of them (an AssertionError after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        answers = stored_answers(store_path, session_id)
        if len(answers) == count or time.monotonic() > deadline:
            assert len(answers) == count, answers
            return answers
        time.sleep(0.2)


def test_two_annotators_type_ahead_undo_edit_and_a_kill_lose_nothing(tmp_path):
    """Two annotators in two browser contexts on one session.  Ann presses A, B, E 100 ms apart: each
    is stored for the pair on screen when its key went down, no pair twice.  Bob answers; Ann's undo
    then removes her own last answer, not Bob's later one; Bob changes his to 'about equal' in his
    history, Ann's stay as they were.  The Data page refuses to switch the session's data.  A kill -9
    of the server while Ann's next key is in flight loses none of the answers the store had confirmed,
    and a reopened page shows them.  Checked against the store."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    settings = Store(f"sqlite:///{store_path}").session("shared").settings
    failure = tmp_path / "failure.png"
    with running_studio(store_path) as studio:
        ann, bob = (
            annotator_page(studio.browser, studio.url, "ann", 60_000),
            annotator_page(studio.browser, studio.url, "bob", 60_000),
        )

        ann.evaluate(RECORD_KEYS)
        for key in "abe":  # faster than the page moves on
            ann.keyboard.press(key)
            ann.wait_for_timeout(100)
        settle(ann)
        typed = wait_for_answers(store_path, session_id, 3)
        assert set(typed["annotator"]) == {"ann"}
        stored = list(zip(typed["choice"], zip(typed["row_a"], typed["row_b"], strict=True), strict=True))
        seen = [(CHOICES[key], pair_rows(caption)) for key, caption in ann.evaluate("window.seen")]
        # Each answer is for the pair on screen when its key went down, and no pair is answered twice.
        assert stored == seen
        assert len({frozenset(pair) for _, pair in stored}) == len(stored)
        wait_for_metric(ann, "Answers given", str(len(typed)), failure)

        bob_pair = shown_pair(bob)
        bob.get_by_role("button", name="B higher").click()
        answers = wait_for_answers(store_path, session_id, len(typed) + 1)
        assert answers.iloc[-1][["row_a", "row_b", "choice", "annotator"]].tolist() == [*bob_pair, "b", "bob"]

        ann.keyboard.press("u")  # undo: Ann's last answer goes, Bob's stays
        answers = wait_for_answers(store_path, session_id, len(typed))
        assert answers["id"].tolist() == [*typed["id"].iloc[:-1], answers["id"].iloc[-1]]
        assert answers["annotator"].tolist().count("bob") == 1

        bob.get_by_text("My answers (1)").click()
        bob.get_by_role("button", name="about equal", exact=True).click()
        settle(bob)
        deadline = time.monotonic() + 60
        while stored_answers(store_path, session_id).set_index("annotator").loc["bob", "choice"] != "equal":
            assert time.monotonic() < deadline, f"Bob's edit never reached the store; his page: {page_alerts(bob)}"
            time.sleep(0.2)
        edited = stored_answers(store_path, session_id)
        ann_rows = ["id", "row_a", "row_b", "choice"]
        assert edited[edited["annotator"] == "ann"][ann_rows].equals(answers[answers["annotator"] == "ann"][ann_rows])

        ann.get_by_role("link", name="Data").click()
        ann.get_by_text("its data is fixed").wait_for()
        assert ann.get_by_role("button", name="Use this data for the session").count() == 0
        assert Store(f"sqlite:///{store_path}").session("shared").settings == settings

        ann.get_by_role("link", name="Pairwise").click()
        wait_for_metric(ann, "Answers given", str(len(edited)), failure)
        ann.evaluate("document.activeElement && document.activeElement.blur()")
        confirmed = stored_answers(store_path, session_id)
        ann.keyboard.press("a")
        studio.restart()  # kill -9 while that answer is in flight
        after = stored_answers(store_path, session_id)
        assert set(confirmed["id"]) <= set(after["id"]) and len(after) <= len(confirmed) + 1
        kept = after.set_index("id").loc[confirmed["id"], ["row_a", "row_b", "choice", "annotator"]]
        assert kept.equals(confirmed.set_index("id")[["row_a", "row_b", "choice", "annotator"]])
        bob.goto(studio.url)  # a reopened page shows what the store holds
        bob.get_by_role("link", name="Pairwise").click()
        wait_for_metric(bob, "Answers given", str(len(after)), failure)


def test_twenty_keys_as_fast_as_keys_repeat_are_twenty_answers_each_on_its_own_pair(tmp_path):
    """Ann types 20 answers 30 ms apart (a key held down repeats about that fast), far faster than the
    server stores each and retrains: all 20 are stored, in the order typed, each for the pair on screen
    when its key went down, 20 different pairs.  Checked against the store."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    keys = "abeab" * 4
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        ann.evaluate(RECORD_KEYS)
        for key in keys:
            ann.keyboard.press(key)
            ann.wait_for_timeout(30)
        typed = wait_for_answers(store_path, session_id, len(keys), timeout=60)
        seen = [(CHOICES[key], pair_rows(caption)) for key, caption in ann.evaluate("window.seen")]
    stored = list(zip(typed["choice"], zip(typed["row_a"], typed["row_b"], strict=True), strict=True))
    assert [choice for choice, _ in seen] == [CHOICES[key] for key in keys]
    assert stored == seen and len({frozenset(pair) for _, pair in stored}) == len(keys)


def press_a_and_b(page, store_path: Path, session_id: int) -> tuple[list, list]:
    """Press A, then B, 300 ms apart: the (choice, (row A, row B)) stored, and those the keys answered
    (the pair on screen when each key went down)."""
    page.evaluate(RECORD_KEYS)
    for key in "ab":
        page.keyboard.press(key)
        page.wait_for_timeout(300)
    typed = wait_for_answers(store_path, session_id, 2, timeout=30)
    seen = [(CHOICES[key], pair_rows(caption)) for key, caption in page.evaluate("window.seen")]
    return list(zip(typed["choice"], zip(typed["row_a"], typed["row_b"], strict=True), strict=True)), seen


def test_keys_still_answer_after_a_click_on_a_radio_button(tmp_path):
    """Ann picks 'Similar rows' among the candidates (the radio button keeps the keyboard's focus) and
    presses A, B: two answers stored, each for the pair on screen when its key went down.  (The keys
    stay off only in a field one types into.)"""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        radio = ann.get_by_role("radio", name=re.compile("^Similar rows"))
        radio.click(force=True)
        settle(ann)
        if ann.evaluate("document.activeElement.type") != "radio":
            radio.focus()  # a run cut short by the next (a loaded machine) may have drawn the radio anew
        assert ann.evaluate("document.activeElement.type") == "radio"
        typed, seen = press_a_and_b(ann, store_path, session_id)
    assert typed == seen


def named_session(store_path: Path, name: str) -> int:
    """A session on the sample homes (l = 60) named ``name``, as the Data page sets it up; its id."""
    frame, target, features = load_source("sample")
    settings, _ = data_settings(frame, "sample", target, features, {"n_labeled": 60, "test_fraction": 0.2})
    store = Store(f"sqlite:///{store_path}")
    session_id = store.create_session(name, settings=settings).id
    store.engine.dispose()
    return session_id


def choose_session(page, name: str) -> None:
    """Pick a session in the sidebar's *Resume session* box, as a user does."""
    page.locator('[data-testid="stSelectbox"]', has_text="Resume session").click()
    page.get_by_role("option", name=name).click()
    settle(page)


def answer_once(page, store_path: Path, session_id: int, count: int, failure: Path) -> None:
    """Press A on the Pairwise page and wait until the session holds ``count`` answers and the page has
    moved on to the next pair."""
    page.get_by_role("button", name="A higher").click()
    wait_for_answers(store_path, session_id, count)
    wait_for_metric(page, "Answers given", str(count), failure)


def test_a_reload_keeps_the_session_and_annotator_and_two_sessions_never_swap(tmp_path):
    """Ann works in session 'first', Bob in 'second', each in a browser context of their own, each
    session chosen in the sidebar.  Bob answers last (his session is the one touched last); then both
    reload: each lands in their own session under their own name (the sidebar, the URL, and the next
    answer, stored under that name in that session).  Ann's address opened in a new context (a shared
    link) opens her session under her name; a link to a session the store does not hold says so and
    opens none."""
    store_path = tmp_path / "studio.sqlite"
    first, second = named_session(store_path, "first"), named_session(store_path, "second")
    failure = tmp_path / "failure.png"
    with running_studio(store_path) as studio:
        pages = {}
        for name, session, session_id in (("ann", "first", first), ("bob", "second", second)):
            page = open_page(studio.browser, 60_000)
            page.goto(studio.url)
            page.get_by_role("textbox", name="Annotator").wait_for()
            settle(page)
            type_into(page, "Annotator", name)
            choose_session(page, session)
            page.get_by_role("link", name="Pairwise").click()
            page.get_by_role("button", name="A higher").wait_for()
            settle(page)
            answer_once(page, store_path, session_id, 1, failure)
            pages[name] = page
        answer_once(pages["bob"], store_path, second, 2, failure)  # 'second' is now the session touched last
        for name, session, session_id, count in (("ann", "first", first, 2), ("bob", "second", second, 3)):
            page = pages[name]
            page.reload()
            page.get_by_role("button", name="A higher").wait_for()
            settle(page)
            assert f"session={session}" in page.url and f"annotator={name}" in page.url
            assert page.get_by_role("textbox", name="Annotator").input_value() == name
            answer_once(page, store_path, session_id, count, failure)
        for session_id, name, count in ((first, "ann", 2), (second, "bob", 3)):
            answers = stored_answers(store_path, session_id)
            assert len(answers) == count and set(answers["annotator"]) == {name}
        shared = open_page(studio.browser, 60_000)
        shared.goto(pages["ann"].url)
        shared.get_by_role("button", name="A higher").wait_for()
        settle(shared)
        assert shared.get_by_role("textbox", name="Annotator").input_value() == "ann"
        answer_once(shared, store_path, first, 3, failure)
        missing = open_page(studio.browser, 60_000)
        missing.goto(f"{studio.url}/?session=nowhere&annotator=ann")
        missing.get_by_text("which this store does not hold").wait_for()
        missing.get_by_role("link", name="Pairwise").click()
        missing.get_by_text("Create or resume a labelling session").wait_for()


def test_a_reload_on_another_page_keeps_the_pairwise_choices(tmp_path):
    """Ann chooses likely corrections between similar rows, goes to Rules (a page link drops the URL's
    other parameters) and reloads there; back on Pairwise her choices are as she left them (a new user's
    went back to Random and Any two rows)."""
    store_path = tmp_path / "studio.sqlite"
    shared_session(store_path)
    with running_studio(store_path) as studio:
        page = annotator_page(studio.browser, studio.url, "ann", 60_000)
        for label in (CORRECTIONS, SIMILAR):
            page.get_by_text(label, exact=True).click()
            settle(page)
        page.wait_for_url("**candidates=neighbours**", timeout=10_000)
        page.get_by_role("link", name="Rules").click()
        page.wait_for_url("**/rules?**")
        settle(page)
        page.reload()
        page.get_by_role("link", name="Pairwise").wait_for()
        settle(page)
        page.get_by_role("link", name="Pairwise").click()
        page.get_by_role("button", name="A higher").wait_for()
        settle(page)
        assert "next_pair=correction" in page.url and "candidates=neighbours" in page.url
        assert page.get_by_role("radio", name=CORRECTIONS).is_checked()
        assert page.get_by_role("radio", name=SIMILAR).is_checked()


def test_the_undo_key_shows_the_undone_pair_again(tmp_path):
    """Ann answers two pairs by keys, then U: the second pair is on screen again (the browser drops the
    pair it shows once the page has read an undo) and her next key answers it anew (checked against the
    store; a new user's undo left the next pair on screen)."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        page = annotator_page(studio.browser, studio.url, "ann", 60_000)
        page.keyboard.press("a")
        wait_for_metric(page, "Answers given", "1", tmp_path / "failure.png")
        second = shown_pair(page)
        page.keyboard.press("b")
        wait_for_metric(page, "Answers given", "2", tmp_path / "failure.png")
        assert shown_pair(page) != second
        page.keyboard.press("u")
        wait_for_metric(page, "Answers given", "1", tmp_path / "failure.png")
        page.get_by_text("it is shown again").wait_for(timeout=10_000)
        assert shown_pair(page) == second
        page.keyboard.press("a")
        answers = wait_for_answers(store_path, session_id, 2)
    assert answers[["row_a", "row_b", "choice"]].values.tolist()[1] == [*second, "a"]


CORRECTIONS = "Likely corrections"
SIMILAR = "Similar rows"


WATCH_CAPTION = """
window.keyed = false; window.changes = [];
window.addEventListener("keydown", () => { window.keyed = true; }, true);
let last = null;
setInterval(() => {
  const node = document.querySelector(".answer-keys .caption");
  const text = node ? node.innerText : null;
  if (text !== last) { window.changes.push([last, text, window.keyed]); last = text; }
  window.keyed = false;
}, 5);
"""
"""Records every change of the pair caption on screen (polled every 5 ms; a busy page polls later) and
whether a key went down since the last look."""


def test_the_pair_on_screen_changes_only_when_a_key_answers_it(tmp_path):
    """Ann answers 24 pairs 150 ms apart, faster than the server stores each and retrains (each retrain
    makes the server draw the pairs behind the one on screen afresh): the pair she reads never changes by
    itself under her eyes, only when a key answers it (else she would answer a pair she never read).
    Every answer is still for the pair on screen when its key went down.  Checked against the store."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    keys = "ab" * 12
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        ann.evaluate(RECORD_KEYS)
        ann.evaluate(WATCH_CAPTION)
        for key in keys:
            ann.keyboard.press(key)
            ann.wait_for_timeout(150)
        typed = wait_for_answers(store_path, session_id, len(keys), timeout=60)
        ann.wait_for_timeout(3000)  # the retrains of the last answers arrive
        changes = ann.evaluate("window.changes")
        seen = [(CHOICES[key], pair_rows(caption)) for key, caption in ann.evaluate("window.seen")]
    by_itself = [
        (before, after)
        for before, after, keyed in changes
        if not keyed and before and after and PAIR_CAPTION.match(before) and PAIR_CAPTION.match(after)
    ]
    assert by_itself == []
    stored = list(zip(typed["choice"], zip(typed["row_a"], typed["row_b"], strict=True), strict=True))
    assert stored == seen


def test_keys_answer_after_an_option_is_chosen_in_a_drop_down(tmp_path):
    """A new user chose 'active choice' in *Pairs from* (a drop-down whose search field keeps the focus)
    and pressed A: it typed "a" into the field and stored nothing.  A closed drop-down takes no letters:
    the keys answer, each the pair on screen."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        ann.get_by_role("combobox", name=re.compile("Pairs from")).click()
        ann.get_by_role("option", name="active choice").click()
        settle(ann)
        assert ann.evaluate("document.activeElement.getAttribute('role')") == "combobox"
        typed, seen = press_a_and_b(ann, store_path, session_id)
    assert typed == seen


def open_my_answers_after(page, keys: str, store_path, session_id) -> None:
    """Answer one pair per key on ``page`` (each stored before the next), then open *My answers*."""
    for count, key in enumerate(keys, start=1):
        page.keyboard.press(key)
        wait_for_answers(store_path, session_id, count)
        settle(page)
    page.get_by_text(f"My answers ({len(keys)})").click()


def test_my_answers_shows_a_change_at_once_and_asks_before_removing(tmp_path):
    """Ann changes an answer under *My answers*: the section stays open, says so, and its box names the
    answer as now stored (a new user's kept the old answer until a reload, the section closed with no
    word).  Remove asks first; 'Yes, remove it' removes it and says which.  Checked against the store."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        open_my_answers_after(ann, "ba", store_path, session_id)
        ann.get_by_role("button", name="about equal", exact=True).click()
        while stored_answers(store_path, session_id)["choice"].iloc[-1] != "equal":
            time.sleep(0.2)
        settle(ann)
        section = ann.locator('[data-testid="stExpander"]', has_text="My answers")
        section.get_by_text("Answer #2 is now 'about equal'.").wait_for(timeout=10_000)
        shown = section.get_by_role("combobox", name="Answer").input_value()
        assert shown.startswith("#2: ") and shown.endswith(": about equal"), shown
        section.get_by_role("button", name="Remove…").click()
        section.get_by_text("Remove your answer #2").wait_for(timeout=10_000)
        assert len(stored_answers(store_path, session_id)) == 2
        section.get_by_role("button", name="Yes, remove it").click()
        wait_for_answers(store_path, session_id, 1)
        settle(ann)
        ann.locator('[data-testid="stExpander"]', has_text="My answers (1)").get_by_text(
            "Removed your answer #2"
        ).wait_for(timeout=10_000)
