"""An annotator's accuracy from their agreement with SVR's order (ordercore/knowledge/expert_accuracy.py)
and what automatic trust does with it (issue 31): checked against simulations whose accuracies are set by
hand, a least-squares fit by NumPy, and the settings ``click_grid`` names."""

import numpy as np
import pytest
from scipy.special import ndtr

from ordercore.knowledge.expert_accuracy import AgreementEstimate, ReferenceOrder, answered_pairs
from ordercore.knowledge.trust import FULL_WEIGHT_ANSWERS, assess_sources
from ordercore.preferences import PreferenceSet
from tests.test_lp import random_problem


def test_tau_is_the_scale_of_the_references_errors():
    """Labels y = f + N(0, sigma^2): f orders a pair rightly with probability Phi(|df| / (sqrt(2) sigma))."""
    rng = np.random.default_rng(0)
    f = rng.normal(size=600)
    y = f + rng.normal(scale=0.4, size=600)
    order = ReferenceOrder.fit(f, y, rng)
    assert order.tau == pytest.approx(np.sqrt(2) * 0.4, rel=0.08)


def test_answers_that_share_rows_have_a_wider_standard_error_by_hand():
    """tau = 1 and every |df| = 1: c = 2 Phi(1) - 1 for each of four answers, two agreeing with the reference
    and two not: the estimate is 1/2 and the bound 1 / (2 sqrt(4 c²)) = 1 / (4c) when no row repeats.
    Rows 0 and 1 each in two answers (0 agreeing twice, 1 disagreeing twice): terms ±c/2, row sums c, -c
    and ±c/2 at the four others, design effect (2c² + c² - c²) / c² = 2, so the bound is √2 / (4c)."""
    c = 2 * ndtr(1.0) - 1
    apart = AgreementEstimate.of(
        ReferenceOrder(np.array([1.0, 0, 1, 0, 0, 1, 0, 1]), 1.0), np.array([0, 2, 4, 6]), np.array([1, 3, 5, 7])
    )
    assert (apart.accuracy, apart.standard_error) == pytest.approx((0.5, 1 / (4 * c)))
    shared = AgreementEstimate.of(
        ReferenceOrder(np.array([1.0, 1, 0, 0, 2, 2]), 1.0), np.array([0, 0, 1, 1]), np.array([2, 3, 4, 5])
    )
    assert (shared.accuracy, shared.standard_error) == pytest.approx((0.5, np.sqrt(2) / (4 * c)))


def test_too_few_or_perfect_labels_measure_nothing():
    f = np.arange(6.0)
    assert ReferenceOrder.fit(f, f.copy(), np.random.default_rng(0)).tau is None  # every pair right
    y = np.full(6, np.nan)
    y[:1] = 1.0
    order = ReferenceOrder.fit(f, y, np.random.default_rng(0))
    estimate = AgreementEstimate.of(order, np.array([1]), np.array([0]))
    assert order.tau is None and estimate.standard_error == np.inf and not estimate.informative


def simulated_answers(accuracy, m, rng, tau=1.0):
    """m pairs of a reference with predictions f and error scale tau, and the rows an annotator right with
    probability ``accuracy`` prefers, independently of the reference's errors."""
    f = rng.normal(scale=1.5, size=2 * m)
    a, b = np.arange(m), np.arange(m, 2 * m)
    reference_right = rng.random(m) < ndtr(np.abs(f[a] - f[b]) / tau)
    higher_by_reference = np.where(f[a] > f[b], a, b)
    truly_higher = np.where(reference_right, higher_by_reference, a + b - higher_by_reference)
    annotator_right = rng.random(m) < accuracy
    winner = np.where(annotator_right, truly_higher, a + b - truly_higher)
    return ReferenceOrder(f, tau), winner, a + b - winner


@pytest.mark.parametrize("accuracy", [0.5, 0.65, 0.8, 0.95])
def test_the_estimate_finds_the_accuracy_set_by_hand(accuracy):
    rng = np.random.default_rng(int(accuracy * 100))
    estimates = [AgreementEstimate.of(*simulated_answers(accuracy, 400, rng)) for _ in range(300)]
    values = np.array([e.accuracy for e in estimates])
    errors = np.array([e.standard_error for e in estimates])
    assert values.mean() == pytest.approx(accuracy, abs=3 * errors.mean() / np.sqrt(len(values)))
    assert values.std() <= errors.mean() * 1.1  # the standard error bounds the spread (sampling: +-8 %)


def test_the_estimate_is_the_least_squares_fit():
    """P(agree) - 1/2 = (a - 1/2)(2 s - 1): the slope through the origin NumPy fits."""
    order, winner, loser = simulated_answers(0.7, 50, np.random.default_rng(1))
    certainty = 2 * ndtr(np.abs(order.predictions[winner] - order.predictions[loser]) / order.tau) - 1
    agree = (order.predictions[winner] > order.predictions[loser]) - 0.5
    slope = np.linalg.lstsq(certainty[:, None], agree, rcond=None)[0][0]
    estimate = AgreementEstimate.of(order, winner, loser)
    assert estimate.accuracy == pytest.approx(0.5 + slope)
    assert estimate.standard_error == pytest.approx(0.5 / np.linalg.norm(certainty))
    assert estimate.answers == 50


def test_a_coin_is_rarely_informative_an_expert_is():
    rng = np.random.default_rng(2)
    coins = [AgreementEstimate.of(*simulated_answers(0.5, 300, rng)).informative for _ in range(200)]
    experts = [AgreementEstimate.of(*simulated_answers(0.8, 300, rng)).informative for _ in range(50)]
    assert np.mean(coins) < 0.06 and all(experts)


def test_answers_on_labeled_pairs_are_checked_by_the_labels_about_equal_too():
    """Issue 33, Minor 5: an "about equal" was never checked.  Labels 5, 3, 4, 4 on rows 0-3 and 10, 12 on rows
    8, 9.  Answers: 0 > 1 twice (right, 5 > 3, once); 2 ~ 3 within 0 (right: 4 = 4); 8 ~ 9 within 1 (wrong:
    |10 - 12| = 2); 0 ~ 9 within 10 (right: 7); 4 ~ 5 (unlabeled: nothing checks it); 6 > 7 (unlabeled: for the
    reference); 3 > 2 of weight 0 and a unary one left out.  With a reference that orders every labeled pair
    rightly (tau unmeasured) the labels alone measure them: 3 of 4, c = 1 each, so a = 1/2 + (3/2 - 1/2) / 4 =
    0.75, standard error 1 / (2 √4) = 0.25 (residuals 1/4, 1/4, 1/4, -3/4; row sums 1/2, 1/4, 1/4, 1/4, -1/2,
    -3/4 at rows 0, 1, 2, 3, 9, 8: 1.25 - 0.75 < 0.75, design effect 1)."""
    from ordercore.knowledge.source_weights import click_agreement

    y = np.array([5.0, 3, 4, 4, np.nan, np.nan, np.nan, np.nan, 10, 12])
    preferences = PreferenceSet.concatenate(
        [
            PreferenceSet.order([0, 0, 6, 3], [1, 1, 7, 2], 0.0, [1.0, 1.0, 1.0, 0.0]),
            PreferenceSet.close([2, 8, 0, 4], [3, 9, 9, 5], [0.0, 1.0, 10.0, 0.0]),
            PreferenceSet([1], [-1], [1.0], [1.0]),
        ]
    )
    winner, loser, labeled = answered_pairs(preferences, y)
    assert list(zip(winner.tolist(), loser.tolist(), strict=True)) == [(6, 7)]
    checked = set(zip(labeled.a.tolist(), labeled.b.tolist(), labeled.right.tolist(), strict=True))
    assert checked == {(0, 1, True), (2, 3, True), (8, 9, False), (0, 9, True)}
    reference = np.nan_to_num(y)  # orders every labeled pair of different labels rightly
    (row,) = click_agreement(reference, y, preferences, np.zeros(len(preferences), int), ["clicks: Jonas"], 0)
    assert row[:3] == pytest.approx([0.75, 0.25, 4])


def clicks_problem(accuracy, answers=150, seed=3):
    X, y, truth, _ = random_problem(seed, n=200, n_labeled=30, n_preferences=1)
    rng = np.random.default_rng(seed)
    a, b = rng.choice(200, answers), rng.choice(200, answers)
    keep = a != b
    a, b = a[keep], b[keep]
    right = rng.random(a.size) < accuracy
    winner = np.where((truth[a] > truth[b]) == right, a, b)
    preferences = PreferenceSet(winner, a + b - winner)
    return X, y, preferences, np.full(len(preferences), "clicks: ann", dtype=object)


def test_the_weight_rises_from_a_coin_to_the_full_accuracy():
    """(lower bound - 1/2) / (0.7 - 1/2), clipped: by hand at three lower bounds."""
    assert AgreementEstimate(0.6, 0.05, 100).weight == 0.0  # lower bound 0.5
    assert AgreementEstimate(0.7, 0.05, 100).weight == pytest.approx(0.5)  # 0.6
    assert AgreementEstimate(0.95, 0.1, 100).weight == 1.0  # 0.75
    assert AgreementEstimate(0.5, np.inf, 0).weight == 0.0


def test_an_informative_annotators_clicks_are_fitted_at_lambda2_growing_with_answers():
    X, y, preferences, names = clicks_problem(0.9)
    assessed = assess_sources(X, y, preferences, names, {}, np.random.default_rng(0), 0.01, gamma=0.4)
    estimate = AgreementEstimate(*assessed.agreement[0])
    assert estimate.answers == len(preferences) and estimate.weight > 0
    assert assessed.trust.weights.tolist() == [estimate.weight]
    lambda2 = min(1.0, len(preferences) / FULL_WEIGHT_ANSWERS)
    assert assessed.trust.blend.active().settings == ((0.01, lambda2),)  # SVR's lambda1, not a third of it
    assert assessed.trust.cv.grid == ((0.01, 0.0), (0.01, lambda2))


def test_a_coins_clicks_weigh_nothing():
    X, y, preferences, names = clicks_problem(0.5)
    assessed = assess_sources(X, y, preferences, names, {}, np.random.default_rng(0), 0.01, gamma=0.4)
    assert assessed.trust.weights.tolist() == [0.0] and assessed.trust.blend.alpha == 0
    assert not AgreementEstimate(*assessed.agreement[0]).informative
