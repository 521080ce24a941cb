"""No row dominates the questions (new-user report 9, Major 3: one car in 11 of the first 36 pairs): the
choices led by the models ask no row of the annotator's last ``window`` questions unless no other pair is
left (``pair_scores.RecentRows``, ``rank_unsettled``; ``Workbench.next_pairs``).  Checked against a brute
force that recomputes every choice from scratch, on hand-made scores where one outlier row has the widest
score against every partner, and on a Workbench whose committee says the fit errs on one row only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge import committee_choice, pair_choice
from ordercore.knowledge.committee_choice import FamilyCommittee
from ordercore.knowledge.pair_choice import recent_window
from ordercore.pair_scores import RecentRows, rank_unsettled
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, study_data
from ordercore.studio.workbench import PAIR_STRATEGIES, Workbench

NONE = PreferenceSet.empty()


def outlier_scores(n_rows: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of ``n_rows`` rows (m, 2) and scores (m,): each pair with row 0 above every other pair."""
    first, second = np.triu_indices(n_rows, 1)
    pairs = np.column_stack([first, second])
    scores = rng.random(len(pairs)) + 10.0 * (first == 0)
    return pairs, scores


def by_brute_force(pairs, scores, asked, window, taken) -> int:
    """The candidate to ask next: the best-scoring one not ``taken`` whose rows are not in the last ``window``
    of ``asked``; if none, the one whose rows were asked longest ago (then the best-scoring)."""

    def ago(pair):  # questions since a row of ``pair`` was last asked (window + 1: not in the window)
        for back, question in enumerate(reversed(asked[-window:] if window else []), start=1):
            if set(pair) & set(question):
                return back
        return window + 1

    left = [k for k in range(len(pairs)) if k not in taken]
    return max(left, key=lambda k: (ago(tuple(pairs[k])), scores[k]))


def test_since_counts_questions_back_within_the_window():
    recent = RecentRows(np.array([[0, 1], [2, 3], [1, 4]]), window=2)
    since = recent.since(np.array([[1, 9], [2, 9], [0, 9], [4, 3]]))
    # row 1: last asked 1 question ago; row 2: 2 ago; row 0: 3 ago, beyond the window of 2 (3); row 9: never
    assert since.tolist() == [[1, 3], [2, 3], [3, 3], [1, 2]]
    assert RecentRows(np.zeros((0, 2), dtype=np.int64), 5).since(np.array([[0, 1]])).tolist() == [[6, 6]]
    assert RecentRows(np.array([[0, 1]]), 0).since(np.array([[0, 1]])).tolist() == [[1, 1]]


def test_without_a_window_the_outlier_row_is_asked_again_and_again():
    pairs, scores = outlier_scores(30, np.random.default_rng(0))
    chosen, _ = rank_unsettled(scores, pairs, 20, NONE)
    assert (chosen == 0).any(axis=1).all()  # row 0 in all of the 20 questions


@pytest.mark.parametrize("window", [1, 5, 12])
def test_with_a_window_the_outlier_row_is_asked_at_most_once_per_window(window):
    """One question at a time (as the Pairwise page asks), each the brute force's choice; row 0 returns as
    soon as the window lets it (every window + 1 questions: its pairs score highest), never sooner."""
    rng = np.random.default_rng(window)
    pairs, scores = outlier_scores(30, rng)
    asked, taken = [], set()
    for _ in range(60):
        recent = RecentRows(np.array(asked, dtype=np.int64).reshape(-1, 2), window)
        left = np.array(sorted(set(range(len(pairs))) - taken))
        chosen, _ = rank_unsettled(scores[left], pairs[left], 1, NONE, recent=recent)
        expected = by_brute_force(pairs, scores, asked, window, taken)
        assert tuple(chosen[0]) == tuple(pairs[expected])
        asked.append(tuple(pairs[expected]))
        taken.add(expected)
    asked = np.array(asked)
    for k in range(len(asked)):  # no row of a question in the window before it
        assert not set(asked[k]) & set(asked[max(k - window, 0) : k].ravel())
    with_outlier = np.flatnonzero((asked == 0).any(axis=1))
    assert with_outlier.tolist() == list(range(0, 60, window + 1))[:29]  # (29 pairs with row 0)


def one_at_a_time(pairs, scores, history, window: int, n: int) -> list[tuple]:
    """The n pairs ``by_brute_force`` asks one question at a time after ``history`` (m, 2)."""
    asked, taken = [tuple(pair) for pair in history], set()
    for _ in range(n):
        expected = by_brute_force(pairs, scores, asked, window, taken)
        asked.append(tuple(pairs[expected]))
        taken.add(expected)
    return asked[len(history) :]


def test_a_batch_is_what_one_question_at_a_time_would_ask():
    """The page draws pairs ahead: a batch of 24 keeps its own earlier pairs' rows out as the annotator's."""
    rng = np.random.default_rng(3)
    pairs, scores = outlier_scores(40, rng)
    history = np.array([[5, 6], [0, 7]])
    batch, _ = rank_unsettled(scores, pairs, 24, NONE, recent=RecentRows(history, 6))
    assert [tuple(pair) for pair in batch] == one_at_a_time(pairs, scores, history, 6, 24)


def test_when_every_pair_has_a_recent_row_the_one_asked_longest_ago_is_asked():
    """Four rows, a window of 5 questions: nothing is free after the second question, and the choice falls
    back on the pairs whose rows were asked longest ago; every pair is still asked once."""
    pairs, scores = outlier_scores(4, np.random.default_rng(1))
    history = np.array([[0, 1]])
    chosen, _ = rank_unsettled(scores, pairs, 6, NONE, recent=RecentRows(history, 5))
    assert len({tuple(pair) for pair in chosen}) == 6
    assert [tuple(pair) for pair in chosen] == one_at_a_time(pairs, scores, history, 5, 6)


def test_settled_pairs_stay_out_whatever_the_window():
    pairs, scores = outlier_scores(10, np.random.default_rng(2))
    answered = PreferenceSet([0, 0, 0], [1, 2, 3])  # row 0 above 1, 2 and 3: those pairs are settled
    chosen, _ = rank_unsettled(scores, pairs, len(pairs), answered, recent=RecentRows(np.array([[8, 9]]), 3))
    assert not {(0, 1), (0, 2), (0, 3)} & {tuple(pair) for pair in chosen}
    assert len(chosen) == len(pairs) - 3


def test_a_small_pool_keeps_a_shorter_window():
    assert recent_window(3000) == pair_choice.RECENT_QUESTIONS == 20
    assert recent_window(144) == 18  # the used cars' pool: 144 // 8
    assert recent_window(20) == 2 and recent_window(3) == 0


@pytest.fixture(scope="module")
def bench():
    frame = pd.read_csv(SAMPLE_PATH).iloc[:400].reset_index(drop=True)
    data = study_data(frame, "price", SAMPLE_FEATURES, {"n_labeled": 30, "test_fraction": 0.2, "seed": 3})
    return Workbench(data, "lp", {"gamma": 0.1, "lambda1": 1e-3, "lambda2": 1.0}, None)


def one_row_dissent(bench) -> int:
    """Make the bench's committee say the fit errs on one pool row only, by far, against every partner (the
    pool's highest by the fit; every member predicts it far below the rest); that row."""
    outlier = int(bench.data.pool[np.argmax(bench.svr_all[bench.data.pool])])
    members = np.tile(bench.svr_all, (3, 1))
    members[:, outlier] = bench.svr_all.min() - 1e6
    bench._family_committee = FamilyCommittee(members)
    return outlier


def ask(bench, questions: int, window: bool) -> np.ndarray:
    """``questions`` pairs asked one at a time by the Studio's default, each after the ones before."""
    rng, asked = np.random.default_rng(0), np.zeros((0, 2), dtype=np.int64)
    for _ in range(questions):
        recent = asked if window else None
        pair = bench.next_pairs("committee", rng, 1, exclude=asked, audited=40, recent=recent)
        asked = np.vstack([asked, pair])
    return asked


def test_the_studios_default_asks_the_outlier_again_and_again_without_the_window(bench, monkeypatch):
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 0.0)
    monkeypatch.setattr(pair_choice, "RECENT_QUESTIONS", 0)  # no window: the choice before the fix
    outlier = one_row_dissent(bench)
    asked = ask(bench, 40, window=False)
    assert (asked == outlier).any(axis=1).mean() > 0.8


def test_the_studios_default_asks_the_outlier_at_most_once_per_window(bench, monkeypatch):
    monkeypatch.setattr(committee_choice, "AUDIT_SHARE", 0.0)
    outlier = one_row_dissent(bench)
    window = recent_window(bench.data.pool.size)
    assert window == 20
    asked = ask(bench, 50, window=True)
    with_outlier = np.flatnonzero((asked == outlier).any(axis=1))
    assert len(with_outlier) >= 2 and np.diff(with_outlier).min() > window  # asked, but once per window
    for k in range(len(asked)):
        assert not set(asked[k]) & set(asked[max(k - window, 0) : k].ravel())


@pytest.mark.parametrize("strategy", [s for s in PAIR_STRATEGIES if s != "random"])
@pytest.mark.parametrize("candidates", ["any", "neighbours"])
def test_every_choice_led_by_the_models_spreads_a_batch_over_the_rows(bench, strategy, candidates):
    """The window is the choice's, not a strategy's: a batch of 24 of any model-led strategy repeats no row
    within 20 questions, after the annotator's own last questions."""
    window = recent_window(bench.data.pool.size)
    history = np.array(bench.data.pool[:6]).reshape(3, 2)
    chosen = bench.next_pairs(strategy, np.random.default_rng(4), 24, candidates, audited=40, recent=history)
    asked = np.vstack([history, chosen])
    assert len(chosen) == 24
    for k in range(3, len(asked)):
        assert not set(asked[k]) & set(asked[max(k - window, 0) : k].ravel())
