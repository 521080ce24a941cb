"""End to end in a real browser (tests/browser.py) on the Ratings page: grade three items with the
number keys, undo and change a grade, each checked against the store."""

import re
import time
from pathlib import Path

from ordercore.studio.store import Store
from tests.browser import open_page, running_studio, settle, shared_session, type_into, wait_for_metric

ITEM_CAPTION = re.compile(r"^home_id (\d+)$")
"""The item's caption: its row named by the sample's id (row k has home_id k + 1: the CSV)."""


def stored_grades(store_path: Path, session_id: int, count: int, timeout: float = 30.0):
    """The session's grades once there are ``count`` of them (an AssertionError after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        store = Store(f"sqlite:///{store_path}")
        grades = store.grades(session_id)
        store.engine.dispose()
        if len(grades) == count or time.monotonic() > deadline:
            assert len(grades) == count, grades
            return grades
        time.sleep(0.2)


def grades_said(element) -> list[str]:
    """Every grade an element of the page names ('grade 3', also in its inputs' values)."""
    values = element.locator("input").evaluate_all("inputs => inputs.map(input => input.value)")
    return re.findall(r"grade (\d)", element.inner_text() + " " + " ".join(values))


def shown_item(page) -> int:
    """The row on the Ratings page's screen, from its caption 'home_id k'."""
    return int(ITEM_CAPTION.match(page.locator(".answer-keys .caption").inner_text()).group(1)) - 1


def test_ratings_are_given_with_the_number_keys_and_undone(tmp_path):
    """On the Ratings page, grade three items with the keys 3, 5 and 1: each stored grade is the item on
    screen when its key was pressed; U removes the last and shows its item again."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 60_000)
        page.goto(studio.url)
        page.get_by_role("textbox", name="Annotator").wait_for()
        settle(page)
        type_into(page, "Annotator", "ann")
        page.get_by_role("link", name="Ratings").click()
        page.locator(".answer-keys .caption").get_by_text(ITEM_CAPTION).wait_for()
        settle(page)
        page.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the shortcuts
        shown = []
        for count, key in enumerate("351", start=1):
            shown.append(shown_item(page))
            page.keyboard.press(key)
            stored_grades(store_path, session_id, count)
            wait_for_metric(page, "Grades given", str(count), tmp_path / "failure.png")
        grades = stored_grades(store_path, session_id, 3)
        assert list(zip(grades["row"], grades["grade"], strict=True)) == list(zip(shown, [3, 5, 1], strict=True))
        assert set(grades["annotator"]) == {"ann"} and len(set(shown)) == 3
        page.keyboard.press("u")
        stored_grades(store_path, session_id, 2)
        wait_for_metric(page, "Grades given", "2", tmp_path / "failure.png")
        assert shown_item(page) == shown[-1]
        page.get_by_text("My grades (2)").click()  # change the grade chosen there (3 or 5) to 2
        history = page.locator('[data-testid="stExpander"]').filter(has_text="My grades")
        edit = history.get_by_role("button", name="2", exact=True)
        edit.wait_for()
        settle(page)  # a click while the expander's content is still drawn can be lost
        edit.click()
        deadline = time.monotonic() + 30
        while sorted(stored_grades(store_path, session_id, 2)["grade"]) not in ([2, 3], [2, 5]):
            assert time.monotonic() < deadline, "the edit never reached the store"
            time.sleep(0.2)
        deadline = time.monotonic() + 30
        while "2" not in (said := grades_said(history)):  # the page redrawn after the edit
            assert time.monotonic() < deadline, f"the page never showed the new grade; it says {said}"
            page.wait_for_timeout(200)
        assert said == ["2"]  # the selectbox kept saying 'grade 3' (or 5) beside it
