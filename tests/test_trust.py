"""Automatic trust (ordercore/knowledge/trust.py) against hand computations and brute-force cross-validation:
cold fits on the same folds (tests/test_label_cv.py), written out independently of the warm-started path."""

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.knowledge import source_weights as source_weights_module
from ordercore.knowledge.label_cv import ALPHAS, FOLDS, REPEATS, Blend
from ordercore.knowledge.source_effects import source_effects
from ordercore.knowledge.source_weights import SourceCheck, reference_predictions, source_weights, weighted
from ordercore.knowledge.trust import LAMBDA1_FACTORS, LAMBDA2_GRID, choose_trust, clearly_worse_than_svr, trust_grid
from tests.test_label_cv import brute_force_errors, brute_force_folds, errors_of
from tests.test_lp import random_problem


def counted(correct: int, total: int) -> SourceCheck:
    """A check of ``total`` pairs (2k over 2k + 1, k = 0 ..), the first ``correct`` of them right."""
    winner = 2 * np.arange(total)
    return SourceCheck.of(winner, winner + 1, np.arange(total) < correct)


def test_source_weights_by_hand():
    # posterior mean under Beta(7, 3): (7 + 7) / 20 = 0.7, the prior's own -> 1; (3 + 7) / 20 = 1/2,
    # a coin -> 0; (1 + 7) / 20 = 0.4 -> 0, never negative; (10 + 7) / 20 = 0.85 -> ln(17/3) / ln(7/3);
    # unmeasured (None, or 0 of 0) -> the prior -> 1
    checks = [counted(7, 10), counted(3, 10), counted(1, 10), counted(10, 10), None, counted(0, 0)]
    np.testing.assert_allclose(source_weights(checks), [1.0, 0.0, 0.0, np.log(17 / 3) / np.log(7 / 3), 1.0, 1.0])
    with pytest.raises(ValueError, match="correct <= total"):
        source_weights_module.source_weight(3, 2)


def test_only_the_pairs_svr_orders_the_other_way_weigh_a_source():
    """Pairs (0 over 1), (2 over 3), (4 over 5), (6 over 7), right, wrong, wrong, right; SVR's reference
    orders 0 above 1 and 4 above 5 (agrees), 3 above 2 (disagrees), 6 and 7 alike (a tie does not
    order the source's way: disagrees).  Where it disagrees: 1 of 2 right."""
    check = SourceCheck.of([0, 2, 4, 6], [1, 3, 5, 7], [True, False, False, True])
    reference = np.array([2.0, 1.0, 0.0, 1.0, 5.0, 4.0, 3.0, 3.0])
    assert check.counts() == (2, 4)
    assert check.where_contradicting(reference) == (1, 2)
    assert check.where_contradicting(None) == (2, 4)
    # 1 of 6 right where SVR agrees on all but none: nothing says the source adds to SVR -> the prior
    hard = counted(1, 6)
    agreeing = np.tile([1.0, 0.0], 6)  # rows 2k above 2k + 1
    np.testing.assert_allclose(source_weights([hard], agreeing), [1.0])
    np.testing.assert_allclose(source_weights([hard]), [0.0])
    # wrong on every pair SVR orders the other way: 0 of 6 -> (0 + 7) / 16 < 1/2 -> 0
    np.testing.assert_allclose(source_weights([counted(0, 6)], -agreeing), [0.0])


def test_reference_predictions_hold_each_labeled_row_out():
    """A labeled row's reference prediction does not see its own label (changing it changes nothing)
    but sees the others' (changing one in another fold moves it); an unlabeled row's is SVR's on
    every label."""
    X, y, _, _ = random_problem(5, n=40, n_labeled=15, n_preferences=0)
    options = {"gamma": 0.4}
    base = reference_predictions(X, y, np.random.default_rng(0), 0.01, **options)
    labeled = np.flatnonzero(~np.isnan(y))
    changed = y.copy()
    changed[labeled[0]] += 10.0
    moved = reference_predictions(X, changed, np.random.default_rng(0), 0.01, **options)
    assert moved[labeled[0]] == pytest.approx(base[labeled[0]], abs=1e-9)
    assert np.max(np.abs(moved[labeled[1:]] - base[labeled[1:]])) > 1e-3
    unlabeled = np.flatnonzero(np.isnan(y))
    svr = OrderPreferenceRegressor(lambda1=0.01, lambda2=0.0, **options).fit(X, y)
    np.testing.assert_allclose(base[unlabeled], svr.predict(X[unlabeled]), atol=1e-9)
    assert reference_predictions(X[:9], y[:9], np.random.default_rng(0), 0.01, **options) is None  # < 2 x FOLDS


def test_choose_trust_weighs_sources_then_cross_validates_the_weighted_preferences():
    """Against the brute-force folds: a rule wrong on every checked pair SVR orders the other way is
    left out, the unmeasured one keeps weight 1, and the blend is the least mean error, on the folds of
    what is left, of the fits with preferences of the path cut after k settings averaged and mixed with SVR
    in the share alpha."""
    X, y, _, preferences = random_problem(5, n=40, n_labeled=15, n_preferences=30)
    source = np.repeat([0, 1], 15)
    reference = reference_predictions(X, y, np.random.default_rng(2).spawn(1)[0], 0.01, gamma=0.4)
    labeled = np.flatnonzero(~np.isnan(y))
    up = reference[labeled[:-1]] > reference[labeled[1:]]  # pairs of consecutive labeled rows, SVR's order
    winner, loser = np.where(up, labeled[1:], labeled[:-1]), np.where(up, labeled[:-1], labeled[1:])
    against_svr = SourceCheck.of(winner, loser, np.zeros(winner.size, bool))  # SVR's opposite, always wrong
    trust_ = choose_trust(X, y, preferences, source, [against_svr, None], np.random.default_rng(2), 0.01, gamma=0.4)
    assert trust_.weights.tolist() == [0.0, 1.0]
    np.testing.assert_allclose(trust_.reference, reference)
    kept = PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight * (source == 1))
    grid = trust_grid(0.01)
    folds = brute_force_folds(X, y, kept, 2, grid, gamma=0.4)
    np.testing.assert_allclose(trust_.cv.errors, errors_of(folds), rtol=1e-6, atol=1e-9)
    cuts = [(k, a) for k in range(1, len(grid)) for a in ALPHAS]  # the path cut after k settings, alpha of it
    mixed = [
        np.mean([np.mean(np.abs(truth - (a * p[1 : k + 1].mean(0) + (1 - a) * p[0]))) for truth, p in folds])
        for k, a in cuts
    ]
    k, alpha = cuts[int(np.argmin(mixed))]
    assert trust_.blend.settings == grid
    expected = [1 - alpha] + [alpha / k] * k + [0.0] * (len(grid) - 1 - k)
    np.testing.assert_allclose(trust_.blend.weights, expected, atol=1e-12)
    # nothing left to trust: SVR, with no cross-validation run
    both = [against_svr, against_svr]
    nothing = choose_trust(X, y, preferences, source, both, np.random.default_rng(2), 0.01, gamma=0.4)
    assert nothing.blend.settings == ((0.01, 0.0),) and nothing.blend.alpha == 0 and nothing.cv is None
    assert nothing.weights.tolist() == [0.0, 0.0]


def test_weighted_multiplies_each_preference_by_its_source_weight():
    preferences = PreferenceSet([0, 1, 2], [1, 2, 3], w=[1.0, 2.0, 3.0])
    result = weighted(preferences, np.array([1, 0, 1]), np.array([0.5, 2.0]))
    assert result.weight.tolist() == [2.0, 1.0, 6.0]
    assert result.i.tolist() == [0, 1, 2] and result.j.tolist() == [1, 2, 3]


def test_the_trust_grid_starts_at_svr_and_pairs_every_lambda1_with_every_lambda2():
    grid = trust_grid(0.3)
    assert grid[0] == (0.3, 0.0)
    expected = {(0.3 * f, l2) for f in LAMBDA1_FACTORS for l2 in LAMBDA2_GRID}
    assert set(grid[1:]) == expected and len(grid) == 1 + len(expected) and all(l2 > 0 for _, l2 in grid[1:])


def test_source_effects_against_zeroing_each_sources_weights_by_hand():
    """Each source's preferences kept at weight 0 (the LP's hinge term is a mean over all of them, so
    its scale stays), on the brute-force folds; a source already of weight 0 has no effect at all,
    where leaving its preferences out would have shown one."""
    X, y, _, preferences = random_problem(4, n=40, n_labeled=15, n_preferences=30)
    source = np.repeat([0, 1, 2], 10)
    one, svr = Blend(((0.01, 2.0),), np.ones(1)), Blend.svr(0.03)
    effects = source_effects(X, y, preferences, source, one, svr, seed=5, gamma=0.4)
    everything = brute_force_errors(X, y, preferences, 5, ((0.01, 2.0),), gamma=0.4).mean()
    for s in range(3):
        zeroed = PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight * (source != s))
        without = brute_force_errors(X, y, zeroed, 5, ((0.01, 2.0),), gamma=0.4).mean()
        assert effects[s] == pytest.approx(without - everything, rel=1e-6, abs=1e-9)
    silent = PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight * (source != 0))
    effects = source_effects(X, y, silent, source, one, svr, seed=5, gamma=0.4)
    assert effects[0] == 0.0
    left_out = brute_force_errors(X, y, silent[source != 0], 5, ((0.01, 2.0),), gamma=0.4).mean()
    with_it = brute_force_errors(X, y, silent, 5, ((0.01, 2.0),), gamma=0.4).mean()
    assert abs(left_out - with_it) > 1e-6  # what the effect used to show for a source of no weight


def test_clearly_worse_than_svr_is_the_one_standard_error_rule_on_shared_folds():
    """Settings that differ in gamma too (as preference tuning picks them), against the brute-force
    folds: the same folds for both, the paired difference, one corrected standard error, by hand."""
    X, y, _, preferences = random_problem(6, n=40, n_labeled=15, n_preferences=40)
    seed = int(np.random.default_rng(8).integers(2**31))
    cases = [
        ({"gamma": 0.4, "lambda1": 0.01}, {"gamma": 4.0, "lambda1": 1.0, "lambda2": 30.0}),
        ({"gamma": 4.0, "lambda1": 1.0}, {"gamma": 0.4, "lambda1": 0.001, "lambda2": 1.0}),
        ({"gamma": 0.4, "lambda1": 0.01}, {"gamma": 0.4, "lambda1": 0.03, "lambda2": 0.3}),  # worse, within 1 SE
    ]
    verdicts = []
    for svr, ssl in cases:
        base = brute_force_errors(X, y, preferences, seed, ((svr["lambda1"], 0.0),), gamma=svr["gamma"])[0]
        tuned = brute_force_errors(X, y, preferences, seed, ((ssl["lambda1"], ssl["lambda2"]),), gamma=ssl["gamma"])[0]
        loss = tuned - base
        expected = loss.mean() > loss.std(ddof=1) * np.sqrt(1 / loss.size + 1 / 4)
        assert clearly_worse_than_svr(X, y, preferences, svr, ssl, np.random.default_rng(8)) == expected
        verdicts.append(expected)
    assert verdicts == [True, False, False]


def test_source_names_and_preference_weights_by_hand():
    """Rules by id (two rules of one name stay apart), clicks by annotator, imports as one source;
    a source the assessment did not see weighs 1 (the prior's)."""
    import pandas as pd

    from ordercore.knowledge.source_weights import source_names
    from ordercore.knowledge.trust import SourceTrust, Trust

    provenance = pd.DataFrame(
        {
            "source": ["rule", "click", "rule", "import", "click", "click", "rule"],
            "rule_id": pd.array([4, None, 9, None, None, None, 4], dtype="Int64"),
            "annotator": ["ann", "ann", "bob", None, "bob", None, "ann"],
        }
    )
    names = source_names(provenance, {4: "beds", 9: "beds"})
    assert names.tolist() == [
        "rule #4: beds",
        "clicks: ann",
        "rule #9: beds",
        "imported",
        "clicks: bob",
        "clicks: anonymous",
        "rule #4: beds",
    ]
    assessed = SourceTrust(
        ("clicks: ann", "rule #4: beds", "rule #9: beds"),
        (None,) * 3,
        Trust(np.array([2.0, 0.5, 0.0]), Blend.svr(1.0), None),
        None,
    )
    assert assessed.preference_weights(names).tolist() == [0.5, 2.0, 0.0, 1.0, 1.0, 1.0, 0.5]


def test_a_single_sources_effect_is_the_gain_over_svr_on_the_same_folds():
    """Leaving the only source out leaves SVR: on the folds of the CV table, the effect equals that
    table's SVR error minus that of the settings with preferences averaged (what the Model page shows
    side by side), though their lambda1 is not SVR's."""
    from ordercore.knowledge.trust import assess_sources

    X, y, _, preferences = random_problem(7, n=40, n_labeled=15, n_preferences=30)
    names = np.array(["rule #1: r"] * len(preferences), dtype=object)
    assessed = assess_sources(X, y, preferences, names, {}, np.random.default_rng(3), 0.01, gamma=0.4)
    cv = assessed.trust.cv
    assert cv.grid[1][0] != cv.grid[0][0]
    path_error = np.abs(cv.truth - cv.predictions[1:].mean(axis=0))  # (repeats, l)
    by_fold = [path_error[r, cv.folds[r] == k].mean() for r in range(REPEATS) for k in range(FOLDS)]
    assert assessed.effects[0] == pytest.approx(cv.mean()[0] - np.mean(by_fold), rel=1e-6, abs=1e-9)


def test_an_effects_interval_is_the_headline_gains_from_the_fold_by_fold_differences_by_hand():
    """A single source's effect is the gain over SVR on the CV table's folds; its 95 % interval, by hand
    from the paired fold-by-fold differences (SVR minus the path's average), their standard deviation
    corrected as Nadeau and Bengio's (s * sqrt(1/20 + 1/4): 20 folds sharing training rows, 5-fold)
    times the normal's 1.96, the headline gain's interval."""
    from ordercore.knowledge.trust import assess_sources

    X, y, _, preferences = random_problem(7, n=40, n_labeled=15, n_preferences=30)
    names = np.array(["rule #1: r"] * len(preferences), dtype=object)
    assessed = assess_sources(X, y, preferences, names, {}, np.random.default_rng(3), 0.01, gamma=0.4)
    cv = assessed.trust.cv
    errors = np.abs(cv.truth - np.stack([cv.predictions[0], cv.predictions[1:].mean(axis=0)]))  # SVR, path
    by_fold = np.array([[e[r, cv.folds[r] == k].mean() for r in range(REPEATS) for k in range(FOLDS)] for e in errors])
    differences = by_fold[0] - by_fold[1]
    half = 1.959964 * differences.std(ddof=1) * np.sqrt(1 / (FOLDS * REPEATS) + 1 / (FOLDS - 1))
    expected = [differences.mean() - half, differences.mean() + half]
    assert half > 0 and assessed.effect_intervals()[0] == pytest.approx(expected, rel=1e-5)
    assert cv.comparison(cv.path())["low"] == pytest.approx(expected[0], rel=1e-5)  # the headline's own


def test_labeled_pair_check_by_hand():
    """Only preferences between two labeled rows count; a tie of labels is wrong; unary ones never count."""
    from ordercore.knowledge.source_weights import labeled_pair_check

    y = np.array([3.0, 1.0, np.nan, 1.0, 5.0])
    # 0 over 1 right; 1 over 4 wrong; 3 over 1 a tie (wrong); 2 over 0 unlabeled; 4 over the constant 0
    check = labeled_pair_check(PreferenceSet([0, 1, 3, 2, 4], [1, 4, 1, 0, -1]), y)
    assert check.counts() == (1, 3)
    assert check.winner.tolist() == [0, 1, 3] and check.loser.tolist() == [1, 4, 1]


def test_assess_sources_counts_the_folds_of_the_cross_validation_and_of_each_effect():
    """Two sources: 20 folds of the cross-validation, and 20 of each of the 2 effects' (each left out;
    every source in force is the cross-validation's own table), one call per fold, the total known from
    the first."""
    from ordercore.knowledge.trust import assess_sources

    X, y, _, preferences = random_problem(7, n=40, n_labeled=15, n_preferences=30)
    names = np.repeat(np.array(["rule #1: r", "imported"], dtype=object), 15)
    calls = []
    assessed = assess_sources(
        X, y, preferences, names, {}, np.random.default_rng(3), 0.01, progress=lambda *call: calls.append(call)
    )
    assert assessed.effects is not None
    assert np.all(assessed.trust.weights > 0)  # so zeroing either leaves the other weighing
    total = FOLDS * REPEATS * (1 + 2)
    assert calls == [(done, total) for done in range(1, total + 1)]
