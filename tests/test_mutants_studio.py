"""Tests that kill issue 32's surviving mutants in the Studio: the shared queue's count of answers
still wanted (ordercore/studio/shared_queue.py) counted by hand with a pair answered more often than
asked; the ratings' cross-validated MAE (ordercore/studio/ratings.py) against the mean error over
every grade computed from the predictions, on folds of unequal size; and the warm refit's flag
against the rule it documents (warm only when the previous rows are the first of the new ones),
with the result compared to a cold fit made from scratch."""

import numpy as np
import pandas as pd
import pytest

from ordercore.studio.ratings import CrossValidation, RatingModel, cross_validate, table_items
from ordercore.studio.shared_queue import queue_summary


def queue(rows):
    """A Store.queued_pairs-like frame from (row_a, row_b, copies) tuples, oldest first."""
    return pd.DataFrame(rows, columns=["row_a", "row_b", "copies"])


def answers(rows):
    return pd.DataFrame(rows, columns=["annotator", "row_a", "row_b", "choice"])


def test_an_over_answered_pair_wants_nothing_and_takes_nothing_from_the_others():
    """Pair (1, 2) asks for 1 answer and has 3 (two people answered it at the same moment, which the
    queue allows); pair (3, 4) asks for 2 and has 1; pair (5, 6) asks for 3 and has none.  Wanted,
    by hand: 0 + 1 + 3 = 4 (not 4 - 2, the surplus of (1, 2) is no negative demand)."""
    queued = queue([(1, 2, 1), (3, 4, 2), (5, 6, 3)])
    given = answers([("ann", 1, 2, "a"), ("bob", 2, 1, "b"), ("cy", 1, 2, "skip"), ("bob", 3, 4, "a")])
    assert queue_summary(queued, given, "ann") == {"queued": 3, "done": 1, "wanted": 4, "left_for_you": 2}


def test_cross_validated_mae_weights_each_fold_by_its_size_by_hand():
    """Fold MAEs 1 over 1 grade and 0 over 3 grades: 1 error of 1 in 4 grades, MAE 0.25 (the
    unweighted mean of the folds would say 0.5)."""
    cv = CrossValidation(np.array([1.0, 0.0]), np.array([1, 3]), np.zeros(4, int), np.zeros((2, 2), int))
    assert cv.mae == pytest.approx(0.25)


def test_cross_validated_mae_is_the_mean_error_over_every_grade_with_unequal_folds():
    """13 grades in 5 folds (sizes 3, 3, 3, 2, 2): the MAE must equal mean |predicted - grade| over
    the 13 grades, computed here from the cross-validated predictions themselves."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(13, 2))
    grades = np.array([1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 5, 3])
    cv = cross_validate(RatingModel(table_items(X)), np.arange(13), grades, scale=5, seed=0)
    assert sorted(cv.fold_sizes.tolist()) == [2, 2, 3, 3, 3]
    assert cv.mae == pytest.approx(np.mean(np.abs(cv.predicted - grades)))
    # the test tells a weighted mean from an unweighted one only if the folds' errors differ
    assert np.ptp(cv.fold_mae) > 0.5


def graded_items(n=120, seed=0):
    """Items (n, 4) whose grade 1 ... 5 is a noisy linear score cut at its quintiles."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X @ np.array([1.0, -0.5, 0.3, 0.0]) + 0.3 * rng.normal(size=n)
    return X, 1 + np.searchsorted(np.quantile(score, [0.2, 0.4, 0.6, 0.8]), score)


@pytest.mark.parametrize(
    "change",
    ["other rows", "same rows reordered", "a row replaced, more appended"],
)
def test_a_refit_whose_previous_rows_are_not_its_first_is_cold_and_equals_a_fresh_fit(change):
    """The documented rule: warm only when the previous fit's rows are the first of the new rows.
    Here they are not, so the refit must be cold (``warm`` False) and, cold fits being deterministic,
    give exactly the coefficients of a new model fitted on the same grades."""
    X, grades = graded_items()
    first = np.arange(40)
    rows = {
        "other rows": np.arange(40, 80),
        "same rows reordered": first[::-1].copy(),
        "a row replaced, more appended": np.concatenate([[100], first[1:], np.arange(40, 60)]),
    }[change]
    model = RatingModel(table_items(X)).fit(first, grades[first])
    model.fit(rows, grades[rows])
    fresh = RatingModel(table_items(X)).fit(rows, grades[rows])
    assert not model.warm and not fresh.warm
    np.testing.assert_array_equal(model.estimator.coef_, fresh.estimator.coef_)
    np.testing.assert_array_equal(model.estimator.intercept_, fresh.estimator.intercept_)
