"""End to end in a real browser (tests/browser.py): each block of the Pairwise page shows once (new-user
report 10, Major 2: after the goal was set part-way, an old copy of the counts and of the agreement stayed
below the current ones for 18 s, '33 of them yours … weight 0.80' beside '40 … weight 1.00').  The page
is watched throughout, every 20 ms, while answers, an undo and the goal change it."""

from tests.browser import running_studio, settle, shared_session
from tests.test_browser_pairwise import annotator_page, wait_for_answers

WATCH_BLOCKS = """
window.blocks = [];
setInterval(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return;
  const yours = (main.innerText.match(/\\d+ of them yours \\(/g) || []).length;
  const agreement = [...main.querySelectorAll('[data-testid="stExpander"] summary')]
    .filter((node) => node.innerText.includes('Annotators: agreement and consistency')).length;
  const mine = [...main.querySelectorAll('[data-testid="stExpander"] summary')]
    .filter((node) => node.innerText.includes('My answers (')).length;
  window.blocks.push([yours, agreement, mine]);
}, 20);
"""
"""Records, every 20 ms, how many times the page shows the counts' 'n of them yours (name)', the
*Annotators: agreement and consistency* expander and the *My answers* one."""


def test_the_counts_and_the_agreement_show_once_while_answers_undo_and_the_goal_change_them(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        page = annotator_page(studio.browser, studio.url, "petra", 120_000)
        page.evaluate(WATCH_BLOCKS)
        answered = 0
        for keys in ("abab", "u", "ab", "u", "a"):
            for key in keys:
                page.keyboard.press(key)
                answered += -1 if key == "u" else 1
                wait_for_answers(store_path, session_id, answered)
            if keys == "ab":  # the goal set part-way, as the new user did
                goal = page.get_by_role("spinbutton", name="Goal (answers; 0: none)")
                goal.fill("40")
                goal.press("Enter")
                page.get_by_text("of 40 answers").first.wait_for()
                page.evaluate("document.activeElement && document.activeElement.blur()")
        settle(page)
        at_rest = "window.blocks.length > 0 && window.blocks.slice(-1)[0].join() === '1,1,1'"
        page.wait_for_function(at_rest)
        blocks = page.evaluate("window.blocks")
    shown = [tuple(seen) for seen in blocks if any(seen)]
    assert shown and max(yours for yours, _, _ in shown) == 1 and max(agreement for _, agreement, _ in shown) == 1
    assert max(mine for _, _, mine in shown) == 1
    assert shown[-1] == (1, 1, 1)
