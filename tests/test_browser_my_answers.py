"""End to end in a real browser (tests/browser.py): Pairwise › *My answers* after a removal, checked
against the store."""

from contextlib import contextmanager

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import running_studio, settle, shared_session
from tests.test_browser_pairwise import annotator_page, open_my_answers_after, stored_answers, wait_for_answers


def choose_option(page, box, text: str) -> None:
    """Choose the option of a drop-down ``box`` that contains ``text`` (the list is opened again until it
    shows: a rerun of the page's fragments may close it)."""
    option = page.locator('[role="option"]', has_text=text)
    for _ in range(20):
        box.click()
        box.press("ArrowDown")
        try:
            option.click(timeout=2_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"no option {text!r} in the drop-down")


@contextmanager
def my_answers_open(tmp_path):
    """Ann in a shared session on a running Studio, having answered B, A, B, with *My answers* open:
    (her page, the section, the store's path, the session's id)."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        ann = annotator_page(studio.browser, studio.url, "ann", 60_000)
        open_my_answers_after(ann, "bab", store_path, session_id)
        yield ann, ann.locator('[data-testid="stExpander"]', has_text="My answers"), store_path, session_id


def test_after_a_removal_my_answers_shows_an_answer_that_exists_and_acts_on_it(tmp_path):
    """A new user removed an older answer: the box still showed it, and the next button ('skip') changed
    their newest answer instead.  After a removal the box shows one of the remaining answers, and a
    button changes that one (checked against the store)."""
    with my_answers_open(tmp_path) as (ann, section, store_path, session_id):
        choose_option(ann, section.get_by_role("combobox", name="Answer"), "#1: ")
        settle(ann)
        removed = section.get_by_role("combobox", name="Answer").input_value().split(": ", 1)[1]
        section.get_by_role("button", name="Remove…").click()
        section.get_by_role("button", name="Yes, remove it").click()
        wait_for_answers(store_path, session_id, 2)
        settle(ann)
        section = ann.locator('[data-testid="stExpander"]', has_text="My answers (2)")
        section.get_by_text("Removed your answer #1").wait_for(timeout=60_000)
        shown = section.get_by_role("combobox", name="Answer").input_value()
        assert shown.split(": ", 1)[1] != removed, shown  # not the removed answer
        # the confirmation went with the removal (a new user's stale 'Yes, remove it' stayed, and said
        # 'answer #15 is not one of this session's' when clicked)
        assert not section.get_by_role("button", name="Yes, remove it").count()
        assert not section.get_by_text("Remove your answer").count()
        before = stored_answers(store_path, session_id).set_index("id")["choice"]
        section.get_by_role("button", name="skip", exact=True).click()
        settle(ann)
        number = shown.split(":")[0]
        section.get_by_text(f"Answer {number} is now 'skip'.").wait_for(timeout=60_000)
        after = stored_answers(store_path, session_id).set_index("id")["choice"]
        changed = after[after != before]
        assert changed.tolist() == ["skip"]
        assert section.get_by_role("combobox", name="Answer").input_value().startswith(f"{number}: ")
        section.get_by_role("button", name="Remove…").click()  # a new removal asks again
        section.get_by_text(f"Remove your answer {number}:").wait_for(timeout=60_000)
        section.get_by_role("button", name="Cancel").click()
        section.get_by_role("button", name="Remove…").wait_for(timeout=60_000)
        assert stored_answers(store_path, session_id)["id"].size == 2


def test_my_answers_stays_open_after_a_change_a_choice_in_its_box_and_a_new_answer(tmp_path):
    """New-user report 10: *My answers* closed by itself after an answer was picked in its box (it had been
    opened by the change said in it).  Open, it stays open through a change, another answer picked in its
    box and a new answer (which changes its label); closed by the user, it stays closed."""
    with my_answers_open(tmp_path) as (ann, section, store_path, session_id):
        section.get_by_role("button", name="about equal", exact=True).click()
        section.get_by_text("Answer #3 is now 'about equal'.").wait_for()
        choose_option(ann, section.get_by_role("combobox", name="Answer"), "#1: ")
        settle(ann)
        assert section.get_by_role("combobox", name="Answer").input_value().startswith("#1: ")
        assert section.get_by_role("combobox", name="Answer").is_visible()
        ann.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the shortcuts
        ann.keyboard.press("a")
        wait_for_answers(store_path, session_id, 4)
        section = ann.locator('[data-testid="stExpander"]', has_text="My answers (4)")
        section.wait_for()
        settle(ann)
        assert section.get_by_role("combobox", name="Answer").is_visible()
        section.get_by_text("My answers (4)").click()  # closed by the user
        settle(ann)
        ann.evaluate("document.activeElement && document.activeElement.blur()")
        ann.keyboard.press("b")
        wait_for_answers(store_path, session_id, 5)
        ann.locator('[data-testid="stExpander"]', has_text="My answers (5)").wait_for()
        settle(ann)
        assert not ann.get_by_role("combobox", name="Answer").is_visible()
