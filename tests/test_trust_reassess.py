"""The incremental re-assessment after a click (``trust.reassess_sources``, issue 30, item 2) against a
full one (``assess_sources``) with the same checks and seed: equal where it claims equality (the names,
checks, reference and every weight; all of it when no weight moved), the last full assessment's blend and
unchanged sources' effects elsewhere, and None (a full one needed) when its basis no longer holds."""

from dataclasses import replace

import numpy as np
import pytest

from ordercore import PreferenceSet
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.knowledge.trust import MAX_INCREMENTAL_STEPS, assess_sources, reassess_sources
from tests.test_lp import random_problem

RULE, CLICKS, IMPORTED = "rule #1: a", "rule #0: b", "imported"


def checked(pairs, right) -> SourceCheck:
    return SourceCheck.of([a for a, _ in pairs], [b for _, b in pairs], right)


@pytest.fixture(scope="module")
def session():
    """Three sources (the rule 24 preferences, a second rule (``CLICKS``, sorted first: in the tests below
    it stands for any small source) and the import 3 each), the rule checked on 20
    labeled pairs SVR orders the other way (14 right: its weight 1, the prior's accuracy), its full
    assessment, and the labeled pairs SVR orders as a source would (``agree``) and not (``against``)."""
    X, y, _, preferences = random_problem(7, n=40, n_labeled=15, n_preferences=30)
    names = np.array([RULE] * 24 + [CLICKS] * 3 + [IMPORTED] * 3, dtype=object)
    reference = assess_sources(X, y, preferences, names, {}, np.random.default_rng(3), 0.01, gamma=0.4).trust.reference
    labeled = np.flatnonzero(~np.isnan(y))
    pairs = [(a, b) for a in labeled for b in labeled if a != b]
    agree = [(a, b) for a, b in pairs if reference[a] > reference[b]]
    against = [(a, b) for a, b in pairs if reference[a] <= reference[b]]
    checks = {RULE: checked(against[:20], [True] * 14 + [False] * 6)}
    first = assess_sources(X, y, preferences, names, checks, np.random.default_rng(3), 0.01, gamma=0.4)
    assert first.trust.weights.tolist() == pytest.approx([1.0, 1.0, 1.0])  # imported, the second rule, the rule
    return X, y, preferences, names, checks, first, agree, against


def reassess(previous, X, y, preferences, names, checks, seed=3, **options):
    return reassess_sources(
        previous, X, y, preferences, names, checks, np.random.default_rng(seed), 0.01, **({"gamma": 0.4} | options)
    )


def assert_same_trust(mine, theirs, effects=True):
    assert mine.names == theirs.names
    for a, b in zip(mine.checks, theirs.checks, strict=True):
        assert (a is None and b is None) or a.key() == b.key()
    np.testing.assert_array_equal(mine.trust.weights, theirs.trust.weights)
    np.testing.assert_array_equal(mine.trust.reference, theirs.trust.reference)
    assert mine.trust.blend.settings == theirs.trust.blend.settings
    np.testing.assert_array_equal(mine.trust.blend.weights, theirs.trust.blend.weights)
    np.testing.assert_array_equal(mine.trust.cv.predictions, theirs.trust.cv.predictions)
    if effects:
        np.testing.assert_array_equal(mine.effects, theirs.effects)


def test_a_click_that_moves_no_weight_gives_the_full_assessment(session):
    """An audit answer to a pair SVR orders as the rule does moves no weight (``where_contradicting``):
    the re-assessment is the full one with the new checks, every part of it, one step on."""
    X, y, preferences, names, checks, first, agree, _ = session
    again = reassess(first, X, y, preferences, names, checks)
    assert_same_trust(again, first)
    assert again.basis == replace(first.basis, steps=1)
    clicked = checks | {RULE: checked(against_and_agree(checks[RULE], agree[:1]), [*checks[RULE].right, False])}
    incremental = reassess(again, X, y, preferences, names, clicked)
    full = assess_sources(X, y, preferences, names, clicked, np.random.default_rng(3), 0.01, gamma=0.4)
    assert_same_trust(incremental, full)
    assert incremental.basis.steps == 2 and full.basis.steps == 0


def against_and_agree(check: SourceCheck, more) -> list:
    return [*zip(check.winner, check.loser, strict=True), *more]


def test_a_click_that_moves_weights_measures_them_all_and_keeps_the_rest(session):
    """An audit answer against the rule where SVR disagrees (its weight 1 -> 0.88) and a wrong answer of
    the second rule there (1 -> 0.66): every weight is the full assessment's; the blend and cross-validation
    are the last full one's; the import's effect (its weight unchanged) is kept, the others' are not
    measured (NaN)."""
    X, y, preferences, names, checks, first, _, against = session
    clicked = {
        RULE: checked(against_and_agree(checks[RULE], against[20:21]), [*checks[RULE].right, False]),
        CLICKS: checked(against[21:22], [False]),
    }
    incremental = reassess(first, X, y, preferences, names, clicked)
    full = assess_sources(X, y, preferences, names, clicked, np.random.default_rng(3), 0.01, gamma=0.4)
    assert full.trust.weights.round(2).tolist() == [1.0, 0.66, 0.88]  # imported, the second rule, the rule
    assert incremental.names == full.names and incremental.basis.steps == 1
    np.testing.assert_array_equal(incremental.trust.weights, full.trust.weights)
    np.testing.assert_array_equal(incremental.trust.reference, full.trust.reference)
    assert [c is None or c.key() for c in incremental.checks] == [c is None or c.key() for c in full.checks]
    assert incremental.trust.blend is first.trust.blend and incremental.trust.cv is first.trust.cv
    assert incremental.effects[0] == first.effects[0] and np.isnan(incremental.effects[[1, 2]]).all()


def test_new_annotators_first_answers_are_incremental(session):
    """One more preference from each of two new annotators: bob's, unchecked, and cy's, wrong on four pairs
    SVR orders the other way, both weigh 0 (one answer cannot show an annotator better than a coin:
    ``expert_accuracy``) and their effects are 0, as the full assessment finds (zeroing them changes
    nothing).  The weights are the full one's; the others' effects and the blend stay."""
    X, y, preferences, names, checks, first, _, against = session
    more = PreferenceSet.concatenate([preferences, PreferenceSet([0, 2], [1, 3])])
    names = np.append(names, ["clicks: bob", "clicks: cy"])
    clicked = checks | {"clicks: cy": checked(against[30:34], [False] * 4)}
    incremental = reassess(first, X, y, more, names, clicked)
    full = assess_sources(X, y, more, names, clicked, np.random.default_rng(3), 0.01, gamma=0.4)
    assert incremental.names == full.names == ("clicks: bob", "clicks: cy", "imported", "rule #0: b", "rule #1: a")
    np.testing.assert_array_equal(incremental.trust.weights, full.trust.weights)
    np.testing.assert_array_equal(incremental.trust.weights, [0.0, 0.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(incremental.effects[2:], first.effects)
    assert (incremental.effects[:2] == 0.0).all() and (full.effects[:2] == 0.0).all()
    assert incremental.trust.blend is first.trust.blend


def test_a_full_assessment_is_needed_when_the_basis_no_longer_holds(session):
    X, y, preferences, names, checks, first, _, against = session
    assert reassess(first, X, y, preferences, names, checks) is not None
    labeled_more = y.copy()
    labeled_more[np.flatnonzero(np.isnan(y))[0]] = 1.0
    assert reassess(first, X, labeled_more, preferences, names, checks) is None  # a new label
    assert reassess(first, X, y, preferences, names, checks, seed=4) is None
    assert reassess(first, X, y, preferences, names, checks, gamma=0.5) is None
    assert reassess(replace(first, basis=None), X, y, preferences, names, checks) is None  # stored before
    assert reassess(replace(first, trust=replace(first.trust, cv=None)), X, y, preferences, names, checks) is None
    tired = replace(first, basis=replace(first.basis, steps=MAX_INCREMENTAL_STEPS))
    assert reassess(tired, X, y, preferences, names, checks) is None
    assert reassess(
        replace(tired, basis=replace(tired.basis, steps=MAX_INCREMENTAL_STEPS - 1)), X, y, preferences, names, checks
    )
    # the rule checked wrong on 10 more pairs SVR orders the other way: its weight 1 -> 0.12, a factor 8
    wrong = checks | {
        RULE: checked(against_and_agree(checks[RULE], against[20:30]), [*checks[RULE].right] + [False] * 10)
    }
    assert reassess(first, X, y, preferences, names, wrong) is None
    new_rule = np.where(np.arange(len(names)) < 8, "rule #2: b", names)  # a new rule: 27 % of them
    assert reassess(first, X, y, preferences, new_rule, checks) is None


def test_a_large_source_that_doubled_is_assessed_in_full_a_small_one_warm(session):
    """More preferences of one source are more evidence, not a rescaled lambda2: the rule (80 % of the
    weighed preferences) with twice its preferences needs a full assessment, with 23 more it does not;
    the second rule (10 %) doubled stay warm; an assessment stored before sizes were kept skips the check."""
    X, y, preferences, names, checks, first, _, _ = session

    def grown(source, extra):
        rows = np.r_[np.arange(len(names)), np.flatnonzero(names == source)[:extra]]
        return preferences[rows], names[rows]

    assert reassess(first, X, y, *grown(RULE, 24), checks) is None
    assert reassess(first, X, y, *grown(RULE, 23), checks) is not None
    assert reassess(first, X, y, *grown(CLICKS, 3), checks) is not None
    unsized = replace(first, basis=replace(first.basis, size=None))
    assert reassess(unsized, X, y, *grown(RULE, 24), checks) is not None
