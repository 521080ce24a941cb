"""End to end in a real browser (tests/browser.py): a second annotator named in the sidebar of the same
tab (new-user report 10, Major 1: the colleague handed the laptop got the first annotator's pair on
screen and her hard pairs, not their own audit pairs).  Checked by the rows alone (``is_audit_pair``)."""

import numpy as np

from ordercore.knowledge.committee_choice import AUDIT_START
from ordercore.knowledge.expert_accuracy import is_audit_pair
from tests.browser import running_studio, shared_session, type_into
from tests.test_browser_pairwise import annotator_page, shown_pair, stored_answers, wait_for_answers

SHOWN_PAIR = "(document.querySelector('.answer-keys .caption') || {}).innerText"


def audits(pairs) -> list[bool]:
    return [bool(v) for v in is_audit_pair(*np.array(pairs, dtype=np.int64).reshape(-1, 2).T)]


def test_a_name_typed_in_the_sidebar_gets_its_own_audit_pairs_not_the_last_annotators(tmp_path):
    """Petra answers until she is past her audit pairs; then 'jonas' is typed in the same tab's sidebar.
    The pair on screen changes, and it and his next two are audit pairs."""
    store_path = tmp_path / "studio.sqlite"
    session_id = shared_session(store_path)
    with running_studio(store_path) as studio:
        page = annotator_page(studio.browser, studio.url, "petra", 60_000)
        answered = 0
        while sum(audits(stored_answers(store_path, session_id)[["row_a", "row_b"]].to_numpy())) < AUDIT_START:
            page.keyboard.press("a")
            answered += 1
            wait_for_answers(store_path, session_id, answered)
        page.wait_for_function(f"({SHOWN_PAIR} || '').startsWith('A: ')")
        hers = page.evaluate(SHOWN_PAIR)
        type_into(page, "Annotator", "jonas")
        changed = f"({SHOWN_PAIR} || '').startsWith('A: ') && {SHOWN_PAIR} !== {hers!r}"
        page.wait_for_function(changed, timeout=20_000)
        first = shown_pair(page)
        page.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the shortcuts
        for key in "aba":
            page.keyboard.press(key)
            answered += 1
            wait_for_answers(store_path, session_id, answered)
    answers = stored_answers(store_path, session_id)
    his = answers[answers["annotator"] == "jonas"][["row_a", "row_b"]].to_numpy()
    assert len(his) == 3 and tuple(his[0]) in {first, first[::-1]}
    assert audits(his) == [True, True, True], his
