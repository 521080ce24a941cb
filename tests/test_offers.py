"""Offers: the targets a tab was sent ahead, and the answer events applied once each, in order (checked
against hand-written expectations)."""

import pytest

from ordercore.studio.offers import UNDO, Offers


def event(id_, choice, target=None):
    return {"id": id_, "choice": choice, "target": None if target is None else list(target)}


ACTIVE = (1, "active", None)
"""A context: the session, the source, the annotator."""


def offered(pairs, session_id=1):
    offers = Offers()
    offers.offer((session_id, "active", None), [(pair, pair[0] > pair[1]) for pair in pairs])
    return offers


def test_events_are_applied_once_in_order_and_only_to_pairs_offered_and_unanswered():
    offers, given, undone = offered([(1, 2), (4, 3), (5, 6)]), [], []
    events = [event("x1", "a", (4, 3)), event("x2", "b", (1, 2)), event("x3", "a", (4, 3)), event("x4", "a", (7, 8))]
    events.append(event("x5", UNDO))
    read, error = offers.apply(events, 1, lambda *answer: given.append(answer), lambda: undone.append(1))
    assert read == ["x1", "x2", "x3", "x4", "x5"] and undone == [1]
    # (4, 3) twice and (7, 8) never sent: refused
    assert given == [((4, 3), "a", True, ACTIVE), ((1, 2), "b", False, ACTIVE)]
    assert "(7, 8) was not stored" in error  # said; (4, 3) again is no news: its first answer was stored
    assert offers.upcoming == [(5, 6)] and offers.answered == {frozenset((3, 4)), frozenset((1, 2))}
    offers.apply(events, 1, lambda *answer: given.append(answer), lambda: undone.append(1))  # sent again
    assert len(given) == 2 and undone == [1]  # read already: nothing twice, not even the undo


def test_events_for_another_session_are_read_refused_and_said_once():
    offers, given = offered([(1, 2)]), []
    read, error = offers.apply([event("y", "a", (1, 2))], 2, lambda *answer: given.append(answer), lambda: None)
    assert read == ["y"] and given == [] and offers.upcoming == [(1, 2)] and "y" in offers.read
    assert error.startswith("1 answer(s) were not stored")
    _, error = offers.apply([event("y", "a", (1, 2))], 2, lambda *answer: given.append(answer), lambda: None)
    assert error is None  # said once


def test_a_refused_answer_gives_its_target_back_first_and_an_undo_may_show_one_again():
    offers = offered([(1, 2), (3, 4)])

    def refuse(*_):
        raise ValueError("no margin like that")

    read, error = offers.apply([event("z1", "b", (3, 4))], 1, refuse, lambda: None)
    assert error == "no margin like that" and offers.upcoming == [(3, 4), (1, 2)] and (3, 4) in offers.offered
    _, error = offers.apply([event("z2", UNDO)], 1, refuse, lambda: ([9], True))
    assert error is None and offers.upcoming[0] == (9,) and offers.offered[(9,)] is True  # with its extra


def test_offer_keeps_the_target_on_screen_and_tops_up_until_the_model_changes():
    offers = Offers()
    offers.offer((1, "active", None), [((1, 2), False), ((3, 4), False)], basis=0)
    offers.take((1, 2))
    offers.offer((1, "active", None), [((5, 6), False), ((3, 4), False)], basis=0)
    assert offers.upcoming == [(3, 4), (5, 6)]  # kept, topped up
    offers.offer((1, "active", None), [((7, 8), False), ((9, 10), False)], basis=1)
    assert offers.upcoming == [(3, 4), (7, 8)]  # the one on screen kept, the rest drawn afresh
    offers.offer((2, "active", None), [((7, 8), False)], basis=1)
    assert offers.upcoming == [(7, 8)] and offers.answered == set()  # another session starts afresh


def test_what_offer_keeps_is_said_before_the_draw_so_its_rows_count_as_recent():
    """The page passes ``kept`` to the engine as the pairs shown before the ones it draws (``ahead``)."""
    offers, context = Offers(), (1, "active", None)
    offers.offer(context, [((1, 2), False), ((3, 4), False), ((5, 6), False)], basis=0)
    offers.take((1, 2))
    assert offers.kept(context, 0) == [(3, 4), (5, 6)]  # the same model: all held
    assert offers.kept(context, 1) == [(3, 4)]  # the model moved: the one on screen
    assert offers.kept((2, "active", None), 1) == []  # another session: none
    offers.offer(context, [((7, 8), False), ((9, 10), False)], basis=1)
    assert offers.upcoming[:1] == [(3, 4)]


def test_a_pair_drawn_again_the_other_way_round_keeps_the_side_it_was_offered_with():
    """The browser went past (3, 4) (its answer is on the way) when the model changed; the new draw has
    the same pair reversed.  It stays (3, 4) with its mapping, so the browser, which holds an answer to
    "3-4", does not show it again as "4-3", and both that answer and one to the next pair count."""
    offers, given = Offers(), []
    offers.offer((1, "active", None), [((1, 2), False), ((3, 4), False), ((5, 6), True)], basis=0)
    offers.offer((1, "active", None), [((4, 3), True), ((8, 7), True), ((1, 2), False)], basis=1)
    assert offers.upcoming == [(1, 2), (3, 4), (8, 7)] and offers.offered[(3, 4)] is False
    assert (4, 3) not in offers.offered
    events = [event("w1", "a", (1, 2)), event("w2", "b", (3, 4)), event("w3", "a", (8, 7))]
    offers.apply(events, 1, lambda *answer: given.append(answer), lambda: None)
    assert given == [((1, 2), "a", False, ACTIVE), ((3, 4), "b", False, ACTIVE), ((8, 7), "a", True, ACTIVE)]


def test_the_target_the_browser_shows_next_goes_first_and_stays_through_a_redraw():
    """The browser, ahead of the server, shows (5, 6) after answering (1, 2) while the server's list
    starts elsewhere (redrawn after a retrain): the server puts (5, 6) first, so a redraw keeps it and
    the page's pair on screen is the browser's.  A next never offered here moves nothing, nor does one
    before an undo."""
    offers = Offers()
    offers.offer((1, "active", None), [((1, 2), False), ((3, 4), False), ((5, 6), False)], basis=0)
    given = []
    answered = {**event("w1", "a", (1, 2)), "next": [5, 6]}
    offers.apply([answered], 1, lambda *answer: given.append(answer), lambda: None)
    assert given == [((1, 2), "a", False, ACTIVE)] and offers.upcoming == [(5, 6), (3, 4)]
    offers.offer((1, "active", None), [((7, 8), False), ((9, 10), False)], basis=1)
    assert offers.upcoming == [(5, 6), (7, 8)]
    stray = {**event("w2", "b", (7, 8)), "next": [11, 12]}  # (11, 12) was never offered here
    offers.apply([stray], 1, lambda *answer: given.append(answer), lambda: None)
    assert offers.upcoming == [(5, 6)]
    # an answer then an undo that gives its target back: the undone target goes first, not the answer's next
    offers.offer((1, "active", None), [((13, 14), False), ((15, 16), False)], basis=1)
    answered_then_undone = [{**event("w4", "a", (5, 6)), "next": [13, 14]}, event("w5", UNDO)]
    offers.apply(answered_then_undone, 1, lambda *answer: given.append(answer), lambda: ((5, 6), None))
    assert offers.upcoming[0] == (5, 6)


def test_a_key_pressed_while_a_new_context_arrives_answers_its_pair_in_the_context_it_was_shown():
    """Ann switches from a rule's audit to the active choice; before the browser sees the new pairs she
    answers the audit pair on screen (3, 4) and the next one (5, 6): both count, as audit answers of
    hers, not refused, and each once; the new context's pairs are untouched.  A refused one stays
    answerable in its own context; another session keeps none of them."""
    audit, given = (1, 7, "ann"), []
    offers = Offers()
    offers.offer(audit, [((3, 4), False), ((5, 6), True), ((9, 10), False)])
    offers.offer(ACTIVE, [((1, 2), False), ((7, 8), False)])
    events = [event("k1", "a", (3, 4)), event("k2", "b", (5, 6)), event("k3", "a", (3, 4))]
    read, error = offers.apply(events, 1, lambda *answer: given.append(answer), lambda: None)
    assert error is None and read == ["k1", "k2", "k3"]
    assert given == [((3, 4), "a", False, audit), ((5, 6), "b", True, audit)]
    assert offers.upcoming == [(1, 2), (7, 8)] and offers.offered_for == ACTIVE

    def refuse(*_):
        raise ValueError("no margin like that")

    _, error = offers.apply([event("k4", "b", (9, 10))], 1, refuse, lambda: None)
    assert error == "no margin like that" and offers.upcoming == [(1, 2), (7, 8)]
    offers.apply([event("k5", "b", (9, 10))], 1, lambda *answer: given.append(answer), lambda: None)
    assert given[-1] == ((9, 10), "b", False, audit)
    offers.offer(ACTIVE, [((11, 12), False)])
    offers.offer((2, "active", None), [((13, 14), False)])  # another session: the first's pairs are gone
    _, error = offers.apply([event("k6", "a", (1, 2))], 2, lambda *answer: given.append(answer), lambda: None)
    assert "(1, 2) was not stored" in error and len(given) == 3


@pytest.mark.parametrize(
    "failure", [RuntimeError("database connection lost"), OSError(28, "No space left"), TypeError("boom")]
)
def test_an_answer_not_stored_for_an_unexpected_error_stays_unread_and_is_said_then_stored_when_sent_again(failure):
    offers, given = offered([(1, 2), (3, 4), (5, 6)]), []
    events = [event("f1", "a", (1, 2)), event("f2", "b", (3, 4)), event("f3", "a", (5, 6))]

    def fails_on_3_4(target, *rest):
        if target == (3, 4):
            raise failure
        given.append(target)

    read, error = offers.apply(events, 1, fails_on_3_4, lambda: None)
    assert read == ["f1"] and given == [(1, 2)]  # f2 not stored, f3 waits behind it (the order is kept)
    assert "the answer for (3, 4) was not stored" in error and type(failure).__name__ in error
    assert "1 answer(s) sent after it" in error
    assert offers.upcoming == [(3, 4), (5, 6)]  # both still on offer, the one not stored first
    read, error = offers.apply(events, 1, lambda target, *rest: given.append(target), lambda: None)  # sent again
    assert read == ["f1", "f2", "f3"] and error is None and given == [(1, 2), (3, 4), (5, 6)]


def test_an_undo_not_stored_for_an_unexpected_error_is_tried_again_and_one_stored_is_never_repeated():
    offers, undone = offered([(1, 2)]), []

    def lost():
        raise ConnectionError("server closed the connection")

    read, error = offers.apply([event("u1", UNDO)], 1, lambda *answer: None, lost)
    assert read == [] and error.startswith("the undo was not stored (ConnectionError")
    read, error = offers.apply([event("u1", UNDO)], 1, lambda *answer: None, lambda: undone.append(1) or 5)
    assert read == ["u1"] and undone == [1] and "undo() returned 5, not (target, extra)" in error
    offers.apply([event("u1", UNDO)], 1, lambda *answer: None, lambda: undone.append(1))
    assert undone == [1]  # stored once: read, not undone again


@pytest.mark.parametrize(
    "malformed, words",
    [
        ({"id": "m", "choice": "a"}, "its target is None; a target is a list of row numbers"),
        ({"id": "m", "choice": "a", "target": [1, "2"]}, "its target is [1, '2']"),
        ({"id": ["m"], "choice": "a", "target": [1, 2]}, "its id is ['m']; an id is a str or an int"),
        ({"id": "m", "choice": None, "target": [1, 2]}, "its choice is None; a choice is a str"),
        ("m", "answer event 1 was not read: it is a str, not a dict"),
    ],
)
def test_a_malformed_event_is_refused_in_words_and_the_others_are_applied(malformed, words):
    offers, given = offered([(1, 2), (3, 4)]), []
    read, error = offers.apply([malformed, event("ok", "b", (3, 4))], 1, lambda t, *rest: given.append(t), lambda: 0)
    assert words in error and given == [(3, 4)] and "ok" in read
    assert offers.upcoming == [(1, 2)]  # nothing taken for the malformed event


def test_events_not_a_list_are_refused_naming_the_argument():
    offers = offered([(1, 2)])
    with pytest.raises(TypeError, match="events must be a list of answer events .dicts., not dict"):
        offers.apply(event("d", "a", (1, 2)), 1, lambda *answer: None, lambda: None)
    assert offers.read == set() and offers.upcoming == [(1, 2)]


def test_a_run_stopped_during_a_write_leaves_its_event_read_and_the_later_ones_unread():
    offers, given = offered([(1, 2), (3, 4)]), []
    events = [event("s1", "a", (1, 2)), event("s2", "b", (3, 4))]

    def stopped(target, *rest):  # as Streamlit's StopException, which may come after the write
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        offers.apply(events, 1, stopped, lambda: None)
    read, error = offers.apply(events, 1, lambda target, *rest: given.append(target), lambda: None)
    assert read == ["s1", "s2"] and error is None and given == [(3, 4)]  # (1, 2) not answered twice
