"""Which candidate pairs earlier preferences settle, against a transitive closure computed by hand
(Warshall's algorithm over the strict preferences) on small random preference sets."""

import itertools

import numpy as np
import pytest

from ordercore.pair_scores import Settlement, StrictGraph, rank_unsettled, settled
from ordercore.preferences import ZERO, PreferenceSet


def random_preferences(rng, n: int) -> PreferenceSet:
    """Strict preferences (some repeated, some forming cycles), equalities, closeness, unary bounds and
    preferences of weight 0 over n rows."""
    i, j = rng.integers(0, n, 14), rng.integers(0, n, 14)
    keep = i != j
    strict = PreferenceSet.order(i[keep], j[keep], weight=rng.choice([0.0, 1.0, 2.0], keep.sum(), p=[0.2, 0.4, 0.4]))
    a, b = rng.choice(n, 2, replace=False)
    c, d = rng.choice(n, 2, replace=False)
    return PreferenceSet.concatenate(
        [
            strict,
            PreferenceSet.equal(a, b),
            PreferenceSet.close(c, d, 0.5),
            PreferenceSet.at_least(rng.integers(n), 1.0),
        ]
    )


def settled_by_hand(preferences: PreferenceSet, n: int) -> dict:
    """{(a, b): settled} for every ordered pair of distinct rows, by Warshall's closure."""
    stated = {
        (int(i), int(j))
        for i, j, w in zip(preferences.i, preferences.j, preferences.weight, strict=True)
        if w > 0 and ZERO not in (i, j)
    }
    reach = [[(a, b) in stated and (b, a) not in stated for b in range(n)] for a in range(n)]
    for middle, a, b in itertools.product(range(n), repeat=3):  # Warshall: middle is the outer loop
        reach[a][b] = reach[a][b] or (reach[a][middle] and reach[middle][b])
    return {
        (a, b): (a, b) in stated or (b, a) in stated or reach[a][b] or reach[b][a]
        for a, b in itertools.permutations(range(n), 2)
    }


@pytest.mark.parametrize("seed", range(12))
def test_settled_pairs_are_those_compared_or_implied_by_a_chain(seed):
    rng = np.random.default_rng(seed)
    n = 10
    preferences = random_preferences(rng, n)
    expected = settled_by_hand(preferences, n)
    candidates = np.array(list(expected))
    assert settled(preferences, candidates).tolist() == [expected[tuple(pair)] for pair in candidates.tolist()]


def test_rows_beyond_those_the_preferences_name_are_never_settled():
    preferences = PreferenceSet.order([0, 1], [1, 2])
    mask = settled(preferences, np.array([[2, 0], [0, 7], [9, 8], [0, 1]]))
    assert mask.tolist() == [True, False, False, True]
    assert settled(PreferenceSet.empty(), np.array([[0, 1]])).tolist() == [False]


@pytest.mark.parametrize("seed", range(6))
def test_the_best_unsettled_pairs_are_the_top_scores_among_those_not_settled_by_hand(seed):
    rng = np.random.default_rng(100 + seed)
    n = 10
    preferences = random_preferences(rng, n)
    expected = settled_by_hand(preferences, n)
    candidates = np.array(list(expected))
    scores = rng.permutation(len(candidates)).astype(float)  # distinct: one right answer
    ranked = sorted(
        (score, tuple(pair))
        for score, pair in zip(scores, candidates.tolist(), strict=True)
        if not expected[tuple(pair)]
    )[::-1]
    # candidates hold both (a, b) and (b, a): one question, asked once, the way round that scores higher
    open_pairs, asked = [], set()
    for score, pair in ranked:
        if frozenset(pair) not in asked:
            open_pairs.append((score, pair))
            asked.add(frozenset(pair))
    for k in (1, 3, len(candidates)):
        chosen, chosen_scores = rank_unsettled(scores, candidates, k, preferences)
        assert [tuple(pair) for pair in chosen.tolist()] == [pair for _, pair in open_pairs[:k]]
        assert chosen_scores.tolist() == [score for score, _ in open_pairs[:k]]
    with pytest.raises(ValueError, match="k must be a positive integer"):
        rank_unsettled(scores, candidates, 0, preferences)


@pytest.mark.parametrize("seed", range(8))
def test_a_graph_extended_click_by_click_settles_what_the_closure_by_hand_does(seed):
    """Preferences appended a few at a time (a click: strict answers, some the reverse of earlier ones,
    which makes those pairs two-way; 'about equal'; weight 0) and twice replaced (not an extension: built
    anew): after each step the merged graph is the one built afresh and settles every pair as Warshall's
    closure of all of them does."""
    rng = np.random.default_rng(200 + seed)
    n = 10
    preferences = random_preferences(rng, n)
    graph = StrictGraph.of(preferences, n)
    for step in range(8):
        a, b = rng.choice(n, 2, replace=False)
        click = PreferenceSet.order(a, b, weight=rng.choice([0.0, 1.0], p=[0.2, 0.8]))
        if step % 3 == 2:
            click = PreferenceSet.close(a, b, 0.5)
        if step == 5:
            preferences = preferences[1:]  # an answer taken back: not an extension
        if step == 6:  # the weights of 0 set to 1: the same rows, not an extension either
            weight = np.where(preferences.weight == 0, 1.0, preferences.weight)
            preferences = PreferenceSet(preferences.i, preferences.j, preferences.margin, weight)
        preferences = PreferenceSet.concatenate([preferences, click])
        graph = graph.extended(preferences)
        fresh = StrictGraph.of(preferences, n)
        np.testing.assert_array_equal(graph.codes, fresh.codes)
        np.testing.assert_array_equal(graph.edges, fresh.edges)
        expected = settled_by_hand(preferences, n)
        candidates = np.array(list(expected))
        settlement = Settlement(PreferenceSet.empty(), candidates, graph)
        assert [settlement.settles(k) for k in range(len(candidates))] == [
            expected[tuple(pair)] for pair in candidates.tolist()
        ]
