"""The pairs a tab holds ahead (``held_pairs``) when its annotator changes: new-user report 10, Major 1.
Petra answered her audit pairs and some model-led ones; Jonas, named next in the same tab, was handed the
pairs drawn for her (the very pair on screen, then hard close pairs) instead of his own audit pairs.
Checked by the rows alone (``is_audit_pair``: a hash of the two rows), not by what the draw says."""

import numpy as np
import pytest

from ordercore.knowledge import committee_choice
from ordercore.knowledge.expert_accuracy import is_audit_pair
from ordercore.studio.held_pairs import hold_pairs
from ordercore.studio.offers import Offers
from ordercore.studio.session import ACTIVE
from tests.test_session_engine import engines, session_id, start, store  # noqa: F401 (fixtures)

AHEAD = 24


def audits(pairs) -> list[bool]:
    return [bool(v) for v in is_audit_pair(*np.array(pairs, dtype=np.int64).reshape(-1, 2).T)]


def answer_on_screen(engine, offers: Offers, annotator: str, rng) -> tuple[int, int]:
    """Hold the pairs for ``annotator``, then answer the one on screen as the page does."""
    hold_pairs(engine, offers, ACTIVE, annotator, rng, "committee", "any", AHEAD)
    pair = offers.upcoming[0]
    offers.take(pair)
    engine.answer(annotator, pair, "a")
    return pair


def test_a_second_annotator_in_the_same_tab_gets_their_own_audit_pairs_first(
    store,  # noqa: F811 (fixtures)
    session_id,  # noqa: F811
    start,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 0.0)  # after the first AUDIT_START, none
    (engine,) = engines(store, session_id, start, owners=("studio A",))
    engine.wait()
    offers, rng = Offers(), np.random.default_rng(0)
    petra = []
    while sum(audits(petra)) < committee_choice.AUDIT_START:  # her audit pairs answered
        petra.append(answer_on_screen(engine, offers, "petra", rng))
    petra.append(answer_on_screen(engine, offers, "petra", rng))
    hold_pairs(engine, offers, ACTIVE, "petra", rng, "committee", "any", AHEAD)
    petra_held = list(offers.upcoming)
    assert not any(audits(petra_held[:1]))  # she is past her audit pairs: the pair on screen is model-led
    # Jonas is named in the same tab, and the two answer in turns: each gets their own draw.
    jonas = []
    for _ in range(3):
        hold_pairs(engine, offers, ACTIVE, "jonas", rng, "committee", "any", AHEAD)
        held = list(offers.upcoming)
        # not the pair on Petra's screen, and his own audit pairs first (an audit pair may also be among
        # the model-led pairs drawn for her by chance: the audit pairs are one set of row pairs for all)
        assert held[0] != petra_held[0] and all(audits(held[: committee_choice.AUDIT_START - len(jonas)]))
        jonas.append(answer_on_screen(engine, offers, "jonas", rng))
        assert not any(audits([answer_on_screen(engine, offers, "petra", rng)]))
    assert all(audits(jonas))
    answers = engine.answers()
    assert (answers["annotator"] == "jonas").sum() == 3 and (answers["annotator"] == "petra").sum() == len(petra) + 3


def test_a_count_beyond_what_a_tab_holds_and_no_offers_are_refused_in_words(
    store,  # noqa: F811 (fixtures)
    session_id,  # noqa: F811
    start,  # noqa: F811
):
    """Corpus 11, S035 and S045: 10**9 pairs ran out of memory (29.8 GiB); offers None said only that
    None has no 'offered_for'.  Both refused naming the argument; nothing held, nothing stored."""
    (engine,) = engines(store, session_id, start, owners=("studio A",))
    offers, rng = Offers(), np.random.default_rng(0)
    for count in (10**9, 10_001):
        with pytest.raises(ValueError, match=r"count \(the number of pairs\) must be a whole number from 0 to 10,000"):
            hold_pairs(engine, offers, ACTIVE, "ann", rng, "random", "any", count)
    with pytest.raises(TypeError, match="offers must be the Offers a tab holds"):
        hold_pairs(engine, None, ACTIVE, "ann", rng, "random", "any", 2)
    assert offers.upcoming == [] and offers.offered_for is None and len(engine.answers()) == 0
