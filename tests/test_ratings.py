"""Ordinal ratings (ordercore.studio.ratings): the warm refit against a cold one, the least-sure order by hand,
cross-validation against a loop of its own, the confusion matrix by counting."""

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold

from ordercore.gp.family import MAX_GRADES as GP_MAX_GRADES
from ordercore.npsvor.estimator import NPSVOR
from ordercore.npsvor.problem import primal_objective
from ordercore.studio.ratings import (
    FOLDS,
    RatingModel,
    cross_validate,
    cross_validation_due,
    least_sure,
    sureness,
    table_items,
    text_items,
    why_no_model,
)

TIGHT = {"epsilon_s": 1e-8, "max_iter": 100_000}
"""NPSVOR solved to optimality, so that two fits of one problem agree whatever their start."""


def graded_items(n=300, seed=0):
    """Items (n, 4) whose grade 1 … 5 is a noisy linear score cut at its quintiles."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    score = X @ np.array([1.0, -0.5, 0.3, 0.0]) + 0.3 * rng.normal(size=n)
    grades = 1 + np.searchsorted(np.quantile(score, [0.2, 0.4, 0.6, 0.8]), score)
    return X, grades


def objectives(model: NPSVOR, X, grades) -> np.ndarray:
    """Eq. (4) of every rank at the fit's w_k = (coef_k, b_k) (intercept_scaling 1)."""
    ranks = np.searchsorted(model.classes_, grades)
    values = []
    for k in range(model.classes_.size):
        w = np.append(model.coef_[k], model.intercept_[k])
        values.append(primal_objective(X @ model.coef_[k] + model.intercept_[k], w, ranks, k, 1.0, 1.0, 0.1))
    return np.array(values)


@pytest.mark.parametrize("change", ["appended", "edited"])
def test_a_warm_refit_reaches_the_cold_fit_on_the_same_grades(change):
    X, grades = graded_items()
    rows = np.arange(0, 120)
    warm = RatingModel(table_items(X), parameters=TIGHT).fit(rows[:100], grades[rows[:100]])
    new_grades = grades[rows].copy()
    if change == "edited":
        rows = rows[:100]
        new_grades = grades[rows].copy()
        new_grades[[3, 50, 77]] = [1, 5, 3]
    warm.fit(rows, new_grades)
    cold = RatingModel(table_items(X), parameters=TIGHT).fit(rows, new_grades)
    assert warm.warm and not cold.warm
    assert warm.estimator is not cold.estimator
    np.testing.assert_allclose(
        objectives(warm.estimator, X[rows], new_grades), objectives(cold.estimator, X[rows], new_grades), rtol=1e-5
    )
    assert np.mean(warm.predict() == cold.predict()) > 0.99


def test_a_removed_grade_refits_cold():
    X, grades = graded_items()
    model = RatingModel(table_items(X)).fit(np.arange(50), grades[:50])
    model.fit(np.arange(49), grades[:49])
    assert not model.warm


def test_sureness_and_the_least_sure_items_by_hand():
    # f_k for 3 ranks; rule (36)'s thresholds g_0 = f_0 + f_1, g_1 = f_1 + f_2.
    scores = np.array(
        [
            [-3.0, -1.0, 2.0],  # g = (-4, 1): nearest threshold 1
            [-1.0, 0.8, 1.0],  # g = (-0.2, 1.8): 0.2
            [-4.0, -2.0, -1.5],  # g = (-6, -3.5): 3.5
            [1.0, -0.7, 3.0],  # g = (0.3, 2.3): 0.3
            [-2.0, 1.8, 0.5],  # g = (-0.2, 2.3): 0.2, tied with item 1
        ]
    )
    sure = sureness(scores, "npsvor")
    np.testing.assert_allclose(sure, [1.0, 0.2, 3.5, 0.3, 0.2])
    assert least_sure(sure, graded=np.array([], dtype=int), n=3).tolist() == [1, 4, 3]
    assert least_sure(sure, graded=np.array([1, 3]), n=3).tolist() == [4, 0, 2]
    # GP: the gap between the two largest latent means
    np.testing.assert_allclose(sureness(np.array([[0.1, 0.5, 0.4], [2.0, -1.0, 0.0]]), "gp"), [0.1, 2.0])


def test_cross_validation_matches_a_loop_over_kfold_and_its_confusion_matrix_a_count():
    X, grades = graded_items(n=80, seed=1)
    rows = np.arange(5, 65)
    cv = cross_validate(RatingModel(table_items(X)), rows, grades[rows], scale=5, seed=3)
    expected_predicted = np.zeros(rows.size, dtype=int)
    expected_mae = []
    for train, test in KFold(FOLDS, shuffle=True, random_state=3).split(rows):
        fit = NPSVOR(C=1.0, random_state=0).fit(X[rows[train]], grades[rows[train]])
        expected_predicted[test] = fit.predict(X[rows[test]])
        expected_mae.append(np.mean(np.abs(expected_predicted[test] - grades[rows[test]])))
    np.testing.assert_array_equal(cv.predicted, expected_predicted)
    np.testing.assert_allclose(cv.fold_mae, expected_mae)
    assert cv.mae == pytest.approx(np.mean(np.abs(expected_predicted - grades[rows])))
    counted = np.zeros((5, 5), dtype=int)
    for true, predicted in zip(grades[rows], expected_predicted, strict=True):
        counted[true - 1, predicted - 1] += 1
    np.testing.assert_array_equal(cv.confusion, counted)


def test_a_fold_whose_training_part_has_one_grade_predicts_that_grade():
    X = np.arange(10.0).reshape(-1, 1)
    grades = np.array([2] * 9 + [4])
    cv = cross_validate(RatingModel(table_items(X)), np.arange(10), grades, scale=5)
    held_out_alone = np.flatnonzero(grades == 4)[0]
    assert cv.predicted[held_out_alone] == 2  # its fold trained on grade 2 only
    assert cv.confusion.sum() == 10 and cv.confusion[3, 1] == 1


@pytest.mark.parametrize(
    "grades, model, message",
    [
        (np.array([3, 3, 3]), "npsvor", "two different grades"),
        (np.arange(GP_MAX_GRADES + 1) % 5 + 1, "gp", f"at most {GP_MAX_GRADES} grades"),
    ],
)
def test_what_a_model_lacks_is_said(grades, model, message):
    assert message in why_no_model(grades, model)
    X = np.random.default_rng(0).normal(size=(grades.size, 2))
    with pytest.raises(ValueError, match=message):
        RatingModel(table_items(X), model).fit(np.arange(grades.size), grades)


def test_too_few_grades_to_cross_validate_are_refused():
    X, grades = graded_items(n=20)
    with pytest.raises(ValueError, match="needs ≥ 10 grades"):
        cross_validate(RatingModel(table_items(X)), np.arange(9), grades[:9], scale=5)


def test_the_gp_grades_a_nonlinear_scale_better_than_chance():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(200, 2))
    grades = 1 + np.searchsorted([1.0, 2.5], np.hypot(*X.T) ** 2)  # rings: no linear order
    model = RatingModel(table_items(X), "gp").fit(np.arange(60), grades[:60])
    assert model.scores().shape == (200, 3)
    assert np.mean(model.predict()[60:] == grades[60:]) > 0.6  # chance: about 1/3
    assert least_sure(model.uncertainty(), np.arange(60), 5).size == 5


def test_texts_are_items_by_their_words():
    texts = pd.Series(["good film", "bad film", "good plot", "bad plot", "good acting", "bad acting"] * 2, name="t")
    items = text_items(texts)
    assert items.n == 12 and items.text == "t" and items.dense().shape[0] == 12
    with pytest.raises(ValueError, match="share too few words"):
        text_items(pd.Series(["one", "two", "three"], name="t"))


def test_cross_validation_runs_every_grade_then_every_few(monkeypatch):
    monkeypatch.setattr("ordercore.studio.ratings.CV_EVERY_GRADE_UP_TO", 100)
    monkeypatch.setattr("ordercore.studio.ratings.CV_STEP", 10)
    assert cross_validation_due(12, None) and cross_validation_due(100, 99)
    assert not cross_validation_due(101, 100) and not cross_validation_due(109, 100)
    assert cross_validation_due(110, 100) and cross_validation_due(120, None)


def stopped_fit(self, X, y):
    """NPSVOR.fit stopped before it set anything."""
    raise RuntimeError("stopped")


def test_a_fit_that_did_not_finish_leaves_the_last_fit_in_place(monkeypatch):
    """A refit stopped part-way (an error, or the Studio's overlapping reruns sharing the model) keeps the
    previous fit: the next refit works (it raised AttributeError on the half-made estimator's classes_)."""
    X, grades = graded_items()
    model = RatingModel(table_items(X), parameters=TIGHT).fit(np.arange(20), grades[:20])
    before = model.predict()
    with monkeypatch.context() as patched:
        patched.setattr(NPSVOR, "fit", stopped_fit)
        for rows in (np.arange(30), np.arange(10)):  # a warm refit, then a cold one
            with pytest.raises(RuntimeError):
                model.fit(rows, grades[rows])
            np.testing.assert_array_equal(model.rows, np.arange(20))
            np.testing.assert_array_equal(model.predict(), before)
    model.fit(np.arange(30), grades[:30])
    assert model.warm and model.rows.size == 30
    cold = RatingModel(table_items(X), parameters=TIGHT).fit(np.arange(30), grades[:30])
    assert np.mean(model.predict() == cold.predict()) > 0.99


def test_a_fresh_model_whose_first_fit_did_not_finish_fits_next_time(monkeypatch):
    X, grades = graded_items()
    model = RatingModel(table_items(X))
    with monkeypatch.context() as patched:
        patched.setattr(NPSVOR, "fit", stopped_fit)
        with pytest.raises(RuntimeError):
            model.fit(np.arange(20), grades[:20])
    model.fit(np.arange(20), grades[:20])
    assert not model.warm and model.predict().shape == (len(X),)


def test_the_default_items_are_a_column_of_phrases_if_the_table_has_one():
    """By hand: 'text' (sentences) over 'ratings' (no spaces), 'kind' (short) and the numbers; none in a
    table without phrases."""
    from ordercore.studio.ratings import default_text_column

    frame = pd.DataFrame(
        {
            "id": [1, 2, 3, 4],
            "kind": ["a b", "c d", "e f", "g h"],
            "ratings": ["3;2;2;4;0;1;3;3;2", "1;1;2;0;4;4;3;2;2", "0;0;1;2;2;3;4;4;1", "2;2;2;2;2;2;2;2;2"],
            "text": ["a film of great beauty", "dull and far too long", "I laughed, then I cried", None],
        }
    )
    assert default_text_column(frame) == "text"
    assert default_text_column(frame.drop(columns="text")) is None
