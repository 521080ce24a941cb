"""Cross-validation on the labels and the blend it chooses (ordercore/knowledge/label_cv.py) against
hand computations and brute-force cross-validation: cold fits on the same folds, written out
independently of the warm-started path."""

import concurrent.futures
import multiprocessing

import numpy as np
import pytest
from sklearn.model_selection import KFold

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.knowledge import label_cv as label_cv_module
from ordercore.knowledge.label_cv import FOLDS, REPEATS, Blend, LabelCV, cross_validate_runs, draw_folds, label_cv
from ordercore.knowledge.trust import trust_grid
from ordercore.lp.working_set import WORKING_SET_MIN
from tests.test_lp import random_problem


def test_the_blend_by_hand():
    """One repeat of 2 folds of 2 labels each, all labels 0: the fold errors, the corrected standard
    error, and alpha where the mixture of SVR and the path's mean errs least."""
    folds, truth = np.array([[0, 0, 1, 1]]), np.zeros(4)
    grid = ((0.1, 0.0), (0.03, 1.0), (0.03, 3.0))
    # SVR 1 1 1 1, the path's mean -1 -1 -1 -1: half of each is 0 0 0 0, no error at all
    cv = LabelCV(grid, np.array([[[1.0] * 4], [[-2.0] * 4], [[0.0] * 4]]), folds, truth)
    np.testing.assert_allclose(cv.errors, [[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]])
    blend = cv.blend()
    assert blend.alpha == pytest.approx(0.5) and blend.weights.tolist() == pytest.approx([0.5, 0.25, 0.25])
    np.testing.assert_allclose(cv.blend_errors(blend), [0.0, 0.0])
    # SVR 1 1 3 3 against the same path: fold errors 1, 3 against 1, 1
    svr = [1.0, 1.0, 3.0, 3.0]
    cv = LabelCV(grid, np.array([[svr], [[-2.0] * 4], [[0.0] * 4]]), folds, truth)
    gain = np.array([1.0, 3.0]) - np.array([1.0, 1.0])
    comparison = cv.comparison(cv.path())
    assert comparison["gain"] == pytest.approx(1.0) and comparison["svr"] == pytest.approx(2.0)
    # Nadeau & Bengio's corrected standard error, 2 folds of 5-fold splits: s sqrt(1/2 + 1/4)
    half_width = comparison["high"] - comparison["gain"]
    assert half_width == pytest.approx(1.959964 * np.std(gain, ddof=1) * np.sqrt(0.75), rel=1e-6)
    # a path worse everywhere (3 3 3 3): the mixture 1 + 2 alpha ... errs least at alpha = 0, SVR
    worse = LabelCV(grid, np.array([[[1.0] * 4], [[3.0] * 4], [[3.0] * 4]]), folds, truth)
    assert worse.blend().alpha == 0.0 and worse.blend().weights.tolist() == [1.0, 0.0, 0.0]
    # a path equal to SVR: every alpha ties, SVR kept
    tie = LabelCV(grid, np.array([[svr], [svr], [svr]]), folds, truth)
    assert tie.blend().alpha == 0.0
    # the weak setting right (-1), the strong one far off (9): the whole path's mean 4 helps nowhere,
    # the path cut after its first setting, half and half with SVR (1), errs nowhere
    cut = LabelCV(grid, np.array([[[1.0] * 4], [[-1.0] * 4], [[9.0] * 4]]), folds, truth)
    assert cut.blend().weights.tolist() == pytest.approx([0.5, 0.5, 0.0])
    np.testing.assert_allclose(cut.blend_errors(cut.blend()), [0.0, 0.0])


def test_a_blend_in_words_and_its_active_settings():
    grid = ((0.1, 0.0), (0.03, 0.3), (0.03, 30.0))
    assert Blend.mixing(grid, 0.0).describe() == "SVR"
    assert Blend.mixing(grid, 0.0).active().settings == ((0.1, 0.0),)
    assert Blend.mixing(grid, 1.0).active().settings == grid[1:]
    assert Blend.mixing(grid, 0.6).describe() == (
        "60% the fit with preferences (λ1 = 0.03, averaged over λ2 = 0.3 … 30) and 40% SVR"
    )
    # a path cut after its weakest fits says of how many (a new user read 0.3 … 10 beside 0.3 … 30)
    longer = ((0.1, 0.0), (0.03, 0.3), (0.03, 10.0), (0.03, 30.0))
    cut = Blend(longer, np.array([0.0, 0.5, 0.5, 0.0]))
    assert (
        cut.describe() == "the fit with preferences (λ1 = 0.03, averaged over λ2 = 0.3 … 10, the weakest of 0.3 … 30)"
    )
    single = Blend(longer, np.array([0.5, 0.5, 0.0, 0.0]))
    assert (
        single.describe() == "50% the fit with preferences (λ1 = 0.03, λ2 = 0.3, the weakest of 0.3 … 30) and 50% SVR"
    )


def brute_force_folds(X, y, preferences, seed, grid, sample=None, **options):
    """The same folds as label_cv (the same random draws), written out: per fold, the labels
    hidden, the preferences that touch a hidden row dropped (one by one), and the grid walked with
    a warm-started model, as label_cv does (an LP's optimum need not be unique, so a cold fit may
    land on another optimal vertex with other predictions; the solver's own optimality is tested in
    tests/test_lp.py).  [(the hidden labels (m,), each setting's predictions there (len(grid), m))]."""
    rng = np.random.default_rng(seed)
    if sample is not None:  # label_cv's draw of CV_PREFERENCES preferences, first from the same stream
        preferences = preferences[np.sort(rng.choice(len(preferences), sample, replace=False))]
    labeled = np.flatnonzero(~np.isnan(y))
    result = []
    for _ in range(REPEATS):
        folds = KFold(FOLDS, shuffle=True, random_state=int(rng.integers(2**31))).split(labeled)
        for _, held_out in folds:
            hidden = labeled[held_out]
            y_fold = y.copy()
            y_fold[hidden] = np.nan
            away = np.array([q.i not in hidden and q.j not in hidden for q in preferences.to_frame().itertuples()])
            predictions, model = [], OrderPreferenceRegressor(warm_start=True, **options)
            for lambda1, lambda2 in grid:
                model.set_params(lambda1=lambda1, lambda2=lambda2).fit(X, y_fold, preferences[away])
                predictions.append(model.predict(X[hidden]))
            result.append((y[hidden], np.array(predictions)))
    return result


def errors_of(folds) -> np.ndarray:
    """Held-out MAE (len(grid), n_folds) of ``brute_force_folds``."""
    return np.array([np.mean(np.abs(truth - predictions), axis=1) for truth, predictions in folds]).T


def brute_force_errors(X, y, preferences, seed, grid, sample=None, **options):
    return errors_of(brute_force_folds(X, y, preferences, seed, grid, sample, **options))


def test_label_cv_against_cold_fits_on_the_same_folds():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=40)
    grid = ((0.01, 0.0), (0.01, 0.5), (0.01, 3.0), (0.003, 0.5))
    cv = label_cv(X, y, preferences, np.random.default_rng(9), grid, gamma=0.4)
    expected = brute_force_errors(X, y, preferences, 9, grid, gamma=0.4)
    assert cv.errors.shape == (4, FOLDS * REPEATS)
    np.testing.assert_allclose(cv.errors, expected, rtol=1e-6, atol=1e-9)


def test_each_folds_warm_walk_gives_the_errors_of_cold_fits_through_the_working_set(monkeypatch):
    """A fold walks the trust grid in one LP, only its bounds changed member to member (through the
    working set here: every fold keeps more than ``WORKING_SET_MIN`` preferences, most of them out of
    the LP); the held-out errors are those of a cold fit of each setting on the fold written out (its
    labels hidden, every preference touching them dropped), to solver tolerance.  The preferences are a
    noisy expert's, as a rule's are: random ones in conflict leave the LP a face of optima at lambda2 = 30
    (equal objectives, predictions 0.1 apart), where no two solvers need agree."""
    monkeypatch.setattr(label_cv_module, "REPEATS", 1)
    X, y, truth, _ = random_problem(0, n=300, n_labeled=30, n_preferences=0)
    rng = np.random.default_rng(0)
    i, belief = rng.integers(0, 300, 2_400), truth + rng.normal(0, 0.3, 300)
    j = (i + rng.integers(1, 300, 2_400)) % 300
    winner, loser = np.where(belief[i] > belief[j], i, j), np.where(belief[i] > belief[j], j, i)
    preferences = PreferenceSet(winner, loser, rng.uniform(0, 0.2, 2_400), rng.uniform(0.2, 2.0, 2_400))
    grid = trust_grid(0.01)
    folds = draw_folds(y, np.random.default_rng(4))
    cv = cross_validate_runs(X, y, folds, [(preferences, grid)], {"gamma": 0.4})[0]
    labeled, cold = np.flatnonzero(~np.isnan(y)), np.zeros((len(grid), FOLDS))
    for fold in range(FOLDS):
        hidden = labeled[folds[0] == fold]
        y_fold = y.copy()
        y_fold[hidden] = np.nan
        pairs = zip(preferences.i, preferences.j, strict=True)
        away = np.array([i not in hidden and j not in hidden for i, j in pairs])
        assert away.sum() >= WORKING_SET_MIN
        for k, (lambda1, lambda2) in enumerate(grid):
            model = OrderPreferenceRegressor(lambda1=lambda1, lambda2=lambda2, gamma=0.4)
            cold[k, fold] = np.abs(model.fit(X, y_fold, preferences[away]).predict(X[hidden]) - y[hidden]).mean()
    np.testing.assert_allclose(cv.errors, cold, rtol=1e-7, atol=1e-9)


def test_label_cv_samples_preferences_beyond_its_cap(monkeypatch):
    monkeypatch.setattr(label_cv_module, "CV_PREFERENCES", 25)
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=40)
    grid = ((0.01, 0.0), (0.01, 2.0))
    cv = label_cv(X, y, preferences, np.random.default_rng(9), grid, gamma=0.4)
    np.testing.assert_allclose(
        cv.errors, brute_force_errors(X, y, preferences, 9, grid, sample=25, gamma=0.4), rtol=1e-6
    )


def test_the_grid_must_start_at_svr():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=10)
    with pytest.raises(ValueError, match="must start with SVR"):
        label_cv(X, y, preferences, np.random.default_rng(0), ((0.01, 0.5), (0.01, 1.0)))


def fork_workers(n=2):
    """Worker processes as the background job makes them (forked, modules already imported)."""
    return concurrent.futures.ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"))


def on_workers(executor, X, y, folds, runs, options):
    """``cross_validate_runs`` on ``executor`` (shut down after), and its progress calls."""
    calls = []
    with executor:
        cvs = cross_validate_runs(X, y, folds, runs, options, lambda *call: calls.append(call), executor)
    return cvs, calls


def test_folds_on_workers_are_the_folds_in_turn():
    """Several cross-validations on one set of folds, each fold an independent task: on worker processes
    or threads they give the serial numbers exactly (the same folds, the same fits), every run on the
    folds ``draw_folds`` drew, which are those of brute-force KFold from the same stream; progress counts
    every fold of every run once, the total known from the first call."""
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=40)
    folds = draw_folds(y, np.random.default_rng(9))
    rng, labeled = np.random.default_rng(9), np.flatnonzero(~np.isnan(y))
    for repeat in range(REPEATS):
        splits = KFold(FOLDS, shuffle=True, random_state=int(rng.integers(2**31))).split(labeled)
        for fold, (_, held_out) in enumerate(splits):
            assert np.flatnonzero(folds[repeat] == fold).tolist() == held_out.tolist()
    half = PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight / 2)
    runs = [(preferences, ((0.01, 0.0), (0.01, 1.0))), (half, ((0.003, 0.5), (0.003, 3.0), (0.003, 10.0)))]
    serial = cross_validate_runs(X, y, folds, runs, {"gamma": 0.4})
    np.testing.assert_allclose(serial[0].errors, brute_force_errors(X, y, preferences, 9, runs[0][1], gamma=0.4))
    np.testing.assert_allclose(serial[1].errors, brute_force_errors(X, y, half, 9, runs[1][1], gamma=0.4))
    for workers in (fork_workers(), concurrent.futures.ThreadPoolExecutor(2)):
        parallel, calls = on_workers(workers, X, y, folds, runs, {"gamma": 0.4})
        assert calls == [(done, 2 * FOLDS * REPEATS) for done in range(1, 2 * FOLDS * REPEATS + 1)]
        for mine, theirs in zip(parallel, serial, strict=True):
            assert mine.grid == theirs.grid
            np.testing.assert_array_equal(mine.predictions, theirs.predictions)
            np.testing.assert_array_equal(mine.folds, theirs.folds)


def test_a_failing_fold_on_a_worker_raises_here():
    X, y, _, preferences = random_problem(3, n=40, n_labeled=15, n_preferences=10)
    X[3, 0] = np.nan  # every fold's fit refuses it
    with fork_workers() as executor, pytest.raises(ValueError, match="NaN"):
        cross_validate_runs(
            X, y, draw_folds(y, np.random.default_rng(0)), [(preferences, ((0.01, 0.0),))], {}, None, executor
        )
