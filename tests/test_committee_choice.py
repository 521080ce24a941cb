"""Pairs chosen where other models say the fit errs, and the audit pairs that keep an annotator measured
(ordercore/knowledge/committee_choice.py, expert_accuracy's audit pairs; issue 31): checked by brute force
over every pair, hand-computed gaps, and simulations whose accuracy is set by hand."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

from ordercore.knowledge import committee_choice
from ordercore.knowledge.committee_choice import FamilyCommittee, audit_slots, committee_scores
from ordercore.knowledge.expert_accuracy import AUDIT_EVERY, AgreementEstimate, ReferenceOrder, is_audit_pair
from ordercore.pair_scores import rank_unsettled
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, study_data
from ordercore.studio.offers import audited_answers
from ordercore.studio.workbench import PAIR_STRATEGIES, Workbench


def test_one_pair_in_four_is_an_audit_pair_either_way_round_and_for_good():
    first, second = np.triu_indices(500, 1)  # every pair of 500 rows: 124,750
    audit = is_audit_pair(first, second)
    assert np.array_equal(audit, is_audit_pair(second, first))
    assert audit.mean() == pytest.approx(1 / AUDIT_EVERY, abs=0.01)
    shares = pd.Series(audit[first < 50]).groupby(first[first < 50]).mean()  # each row's 450+ pairs
    assert shares.between(0.18, 0.32).all()  # no row's pairs all or none audit pairs
    assert [bool(v) for v in is_audit_pair(np.array([3, 7, 11]), np.array([5, 2, 900]))] == [
        bool(v) for v in is_audit_pair(np.array([5, 2, 900]), np.array([3, 7, 11]))
    ]


def chosen_for_the_references_errors(accuracy, m, rng, tau=1.0):
    """An annotator right with probability ``accuracy`` asked 3m pairs among 4m candidates of a reference
    (predictions f, error scale tau): the audit pairs at random, the others only where the reference
    orders them wrongly (a choice made for its errors, as the committee's is)."""
    f = rng.normal(scale=1.5, size=8 * m)
    a, b = np.arange(4 * m), np.arange(4 * m, 8 * m)
    reference_right = rng.random(4 * m) < ndtr(np.abs(f[a] - f[b]) / tau)
    asked = is_audit_pair(a, b) | ~reference_right
    a, b, reference_right = a[asked], b[asked], reference_right[asked]
    higher_by_reference = np.where(f[a] > f[b], a, b)
    truly_higher = np.where(reference_right, higher_by_reference, a + b - higher_by_reference)
    winner = np.where(rng.random(a.size) < accuracy, truly_higher, a + b - truly_higher)
    return ReferenceOrder(f, tau), winner, a + b - winner


@pytest.mark.parametrize("accuracy", [0.5, 0.8])
def test_answers_chosen_for_svrs_errors_read_low_and_their_audit_pairs_read_true(accuracy):
    rng = np.random.default_rng(7)
    every, annotator = [], []
    for _ in range(100):
        answers = chosen_for_the_references_errors(accuracy, 400, rng)
        every.append(AgreementEstimate.of(*answers))
        annotator.append(AgreementEstimate.of_annotator(*answers))
    measured = np.array([e.accuracy for e in annotator])
    error = np.mean([e.standard_error for e in annotator])
    assert measured.mean() == pytest.approx(accuracy, abs=3 * error / np.sqrt(len(measured)))
    if accuracy > 0.5:  # over all answers, an 80 % annotator reads lower, and weighs less
        assert np.mean([e.accuracy for e in every]) < accuracy - 0.05
        assert np.mean([e.weight for e in annotator]) > np.mean([e.weight for e in every]) + 0.2


def test_an_annotator_is_measured_by_the_better_bounded_look():
    order, winner, loser = chosen_for_the_references_errors(0.9, 300, np.random.default_rng(3))
    audit = is_audit_pair(winner, loser)
    looks = [AgreementEstimate.of(order, winner, loser), AgreementEstimate.of(order, winner[audit], loser[audit])]
    best = max(looks, key=lambda e: e.lower_bound)
    found = AgreementEstimate.of_annotator(order, winner, loser)
    assert best is looks[1] and (found.accuracy, found.standard_error, found.answers) == (
        best.accuracy,
        best.standard_error,
        best.answers,
    )
    assert found.ordered == winner.size > found.answers  # on the audit pairs among all the answers


def test_dissent_is_the_widest_gap_by_which_a_member_orders_a_pair_against_the_fit():
    committee = FamilyCommittee(np.array([[0.0, 1.0, 2.0, 5.0], [3.0, 1.0, 0.5, 5.0]]))
    fitted = np.array([0.0, 1.0, 2.0, 3.0])
    pairs = np.array([[0, 2], [2, 0], [1, 3], [0, 1]])
    # (0, 2): the fit says 2 higher; member 0 agrees by 2 (-2), member 1 says 0 higher by 2.5.
    # (1, 3): both members agree with the fit, by 4 and 4: -4.  (0, 1): member 1 against by 2.
    assert committee.dissent(pairs, fitted) == pytest.approx([2.5, 2.5, -4.0, 2.0])
    assert FamilyCommittee(np.zeros((0, 4))).dissent(pairs, fitted) == pytest.approx([0, 0, 0, 0])


def test_the_committee_is_fitted_on_the_labels_alone():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = X @ np.array([2.0, -1.0, 0.5])
    labels = y.copy()
    labels[40:] = np.nan
    committee = FamilyCommittee.fit(X, labels)
    assert committee.predictions.shape == (3, 80)
    assert np.corrcoef(committee.predictions[2, 40:], y[40:])[0, 1] > 0.99  # ridge finds the plane
    labels[1:] = np.nan
    assert FamilyCommittee.fit(X, labels).predictions.shape == (0, 80)  # one label: no committee


def test_audit_slots_are_what_the_start_lacks_then_each_place_by_chance(monkeypatch):
    rng = np.random.default_rng(0)
    assert audit_slots(10, 0, rng).all()
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 0.0)
    assert [audit_slots(10, audited, rng).tolist() for audited in (15, 19, 20, 400)] == [
        [True] * 5 + [False] * 5,
        [True] + [False] * 9,
        [False] * 10,
        [False] * 10,
    ]
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 1.0)
    assert audit_slots(10, 400, rng).all()


def test_the_first_of_a_draw_is_an_audit_pair_one_time_in_ten_after_the_start():
    """The Pairwise page draws 24 pairs ahead and, once the model moved, asks the first of a new draw: a
    count of audit pairs put first made that one an audit pair 1 - 0.9^24 = 92 % of the time (new-user report
    9: trivial pairs long after the first 20).  Per place, each is one with chance AUDIT_SHARE."""
    rng = np.random.default_rng(5)
    slots = np.array([audit_slots(24, 20, rng) for _ in range(4000)])
    assert slots[:, 0].mean() == pytest.approx(committee_choice.AUDIT_SHARE, abs=0.015)
    assert slots.mean() == pytest.approx(committee_choice.AUDIT_SHARE, abs=0.005)


def test_the_choice_asks_the_surest_audit_pairs_in_audit_slots_and_the_widest_dissent_elsewhere():
    """Brute force: each slot takes the best remaining pair of its kind (audit pairs by SVR's certainty, the
    others by dissent), in the slots' order."""
    rng = np.random.default_rng(1)
    pairs = np.column_stack([rng.integers(0, 300, 200), rng.integers(300, 600, 200)])
    dissent, certainty = rng.normal(size=200), rng.random(200)
    scores, audit = committee_scores(pairs, dissent, certainty)
    assert np.array_equal(audit, is_audit_pair(pairs[:, 0], pairs[:, 1]))
    slots = np.array([True, False, True, True, False, False])
    chosen, _ = rank_unsettled(scores, pairs, len(slots), PreferenceSet.empty(), kinds=audit, slots=slots)
    audits = sorted(np.flatnonzero(audit), key=lambda k: -certainty[k])
    others = sorted(np.flatnonzero(~audit), key=lambda k: -dissent[k])
    by_hand = [audits[0], others[0], audits[1], audits[2], others[1], others[2]]
    assert [tuple(pair) for pair in chosen] == [tuple(pairs[k]) for k in by_hand]
    only_audits = rank_unsettled(
        scores[audit], pairs[audit], 3, PreferenceSet.empty(), kinds=audit[audit], slots=~slots
    )[0]
    assert len(only_audits) == 3  # no pair of the kind a slot wants: the best of the others


@pytest.fixture(scope="module")
def bench():
    frame = pd.read_csv(SAMPLE_PATH).iloc[:400].reset_index(drop=True)
    data = study_data(frame, "price", SAMPLE_FEATURES, {"n_labeled": 30, "test_fraction": 0.2, "seed": 3})
    return Workbench(data, "lp", {"gamma": 0.1, "lambda1": 1e-3, "lambda2": 1.0}, None)


def test_the_studios_default_asks_sure_audit_pairs_first_then_where_the_committee_dissents(bench, monkeypatch):
    assert PAIR_STRATEGIES[0] == "committee"
    first = bench.next_pairs("committee", np.random.default_rng(0), 10, audited=0)
    assert is_audit_pair(first[:, 0], first[:, 1]).all()
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 0.0)
    later = bench.next_pairs("committee", np.random.default_rng(0), 10, audited=20)
    assert not is_audit_pair(later[:, 0], later[:, 1]).any()
    candidates = bench._candidates("any", 400, np.random.default_rng(0))  # the same draw's candidates
    candidates = candidates[~is_audit_pair(candidates[:, 0], candidates[:, 1])]
    gaps = bench.family_committee().dissent(candidates, bench.svr_all)
    by_hand, seen = [], set()  # the widest dissent first, skipping a pair with a row asked already
    for k in np.argsort(-gaps, kind="stable"):
        if not seen & set(candidates[k]):
            by_hand.append(tuple(candidates[k]))
            seen |= set(candidates[k])
    assert list(map(tuple, later)) == by_hand[:10]


def test_an_annotators_audited_answers_are_their_ordered_clicks_on_audit_pairs():
    first, second = np.triu_indices(40, 1)
    audit = is_audit_pair(first, second)
    rows = np.concatenate([np.flatnonzero(audit)[:6], np.flatnonzero(~audit)[:4]])
    answers = pd.DataFrame(
        {
            "annotator": ["ann"] * 8 + ["bob"] * 2,
            "row_a": first[rows],
            "row_b": second[rows],
            "choice": ["a", "b", "equal", "skip", "a", "b", "a", "a", "a", "b"],
            "rule_id": [None, None, None, None, 4, None, None, None, None, None],
        }
    )
    # ann's audit pairs are the first six rows: 'a', 'b' count; 'equal', 'skip' and the rule's do not;
    # the sixth ('b') counts; her other two are not audit pairs; bob's are not hers.
    assert audited_answers(answers, "ann") == 3
    assert audited_answers(answers, "carol") == 0
