"""End to end in a real browser (tests/browser.py): the pair and its answer buttons are on screen without
scrolling at 1024 x 768, 1280 x 800 and 1920 x 1080, each button's label on one line (new-user report 12,
F12: at 1024 x 768 the pair's table started at y = 700, below the fold, and three labels wrapped)."""

import pytest

from tests.browser import running_studio, settle, shared_session, type_into

MEASURE = """() => {
  const root = document.querySelector(".answer-keys");
  const box = root.getBoundingClientRect();
  const lines = (button) => {
    const range = document.createRange();
    range.selectNodeContents(button);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
  };
  return {
    pair: [box.left, box.top, box.right, box.bottom],
    rows: root.querySelectorAll("tr").length,
    screen: [window.innerWidth, window.innerHeight],
    labels: [...root.querySelectorAll("button")].map((button) => [button.textContent, lines(button)]),
  };
}"""
"""The answer widget's box (its caption, buttons and table) in the viewport's coordinates, how many table
rows it shows, the viewport's size, and on how many lines each button's label is laid out (the distinct
tops of its text's line boxes)."""


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """One Studio on a session on the sample homes, for every screen size."""
    store_path = tmp_path_factory.mktemp("fits") / "studio.sqlite"
    shared_session(store_path)
    with running_studio(store_path) as studio:
        yield studio


@pytest.mark.parametrize("width,height", [(1024, 768), (1280, 800), (1920, 1080)])
def test_the_pair_and_its_buttons_fit_on_the_screen_each_label_on_one_line(studio, width, height):
    """The whole pair (its caption, buttons and table) inside the viewport as the page opens, and each
    button's label laid out on one line."""
    page = studio.browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(60_000)
    page.goto(studio.url)
    page.get_by_role("textbox", name="Annotator").wait_for()
    settle(page)
    type_into(page, "Annotator", "ann")
    page.get_by_role("link", name="Pairwise").click()
    page.locator(".answer-keys table").wait_for()
    settle(page)
    shown = page.evaluate(MEASURE)
    page.context.close()
    left, top, right, bottom = shown["pair"]
    assert shown["screen"] == [width, height]
    assert shown["rows"] >= 9, shown  # the sample's 8 columns and the header: the whole pair, not a part
    assert 0 <= left and 0 <= top and right <= width and bottom <= height, shown
    assert [label for label, _ in shown["labels"]] == [
        "A higher (A)",
        "B higher (B)",
        "About equal (E)",
        "Skip (S)",
        "Undo my last (U)",
    ]
    assert [lines for _, lines in shown["labels"]] == [1] * 5, shown
