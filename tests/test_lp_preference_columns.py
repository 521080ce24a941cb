"""The preferences as the dual LP's columns (ordercore/lp/preference_columns.py) and the duality-gap
certificate (ordercore/lp/solution.py), against the kernel and sums written out entry by entry."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from ordercore.exceptions import SolverNumericalError
from ordercore.lp.kernel_rows import KernelRowCache
from ordercore.lp.preference_columns import PreferenceColumns
from ordercore.lp.problem import TargetScaling
from ordercore.lp.solution import LPSolution, check_duality_gap
from ordercore.preferences import ZERO, PreferenceSet

GAMMA, KERNEL_SCALE = 0.5, 2.0


def kernel(A, B):
    return rbf_kernel(A, B, gamma=GAMMA)


def setting(seed=0):
    """X (12, 2), the centers (rows 0, 1, 2), preferences over rows 3 .. 11 and one unary (i over
    ZERO), a scaling, and columns indexed over the first 5 preferences, then the rest added."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 2))
    preferences = PreferenceSet(
        [3, 5, 4, 9, 7, 11, 6, 8], [4, 3, ZERO, 10, 3, 5, 9, 11], rng.uniform(0, 2, 8), rng.uniform(0.5, 2, 8)
    )
    cache = KernelRowCache(X, kernel, KERNEL_SCALE)
    centers = np.array([0, 1, 2])
    cache.set_centers(centers)
    scaling = TargetScaling(center=0.5, scale=2.0)
    columns = PreferenceColumns(cache)
    columns.index(preferences[:5], scaling)
    columns.index(preferences, scaling, first=5)  # rows 6, 8, 11 are new: the first five renumber
    return X, centers, preferences, scaling, columns


def f_at(X, centers, row_dual, row):
    """f~(x_row) = alpha_0 + sum_c alpha_c K(x_row, x_c) / kernel_scale; 0 at ZERO."""
    if row == ZERO:
        return 0.0
    kernel_values = [kernel(X[[row]], X[[c]])[0, 0] for c in centers]
    return row_dual[0] + sum(a * k for a, k in zip(row_dual[1:], kernel_values, strict=True)) / KERNEL_SCALE


def test_each_column_is_the_unary_sign_over_the_kernel_differences():
    X, centers, preferences, _, columns = setting()
    block = columns.block(np.arange(len(preferences)))
    assert block.shape == (1 + centers.size, len(preferences))
    for q, (i, j) in enumerate(zip(preferences.i, preferences.j, strict=True)):
        assert block[0, q] == int(i != ZERO) - int(j != ZERO)
        for k, c in enumerate(centers):
            k_i = 0.0 if i == ZERO else kernel(X[[i]], X[[c]])[0, 0] / KERNEL_SCALE
            k_j = 0.0 if j == ZERO else kernel(X[[j]], X[[c]])[0, 0] / KERNEL_SCALE
            assert block[1 + k, q] == pytest.approx(k_i - k_j, abs=1e-15)


def test_indexing_in_two_steps_places_every_row_and_scales_every_margin():
    _, _, preferences, scaling, columns = setting()
    assert columns.rows.tolist() == sorted({3, 4, 5, 6, 7, 8, 9, 10, 11})
    padded = np.append(columns.rows, ZERO)
    np.testing.assert_array_equal(padded[columns.position_i], preferences.i)
    np.testing.assert_array_equal(padded[columns.position_j], preferences.j)
    # d~ = (d - center u) / scale: the unary preference (i over ZERO) moves by the center
    u = (preferences.i != ZERO).astype(float) - (preferences.j != ZERO)
    np.testing.assert_allclose(columns.margins, (preferences.margin - 0.5 * u) / 2.0, rtol=1e-15)


def test_the_shortfall_is_the_scaled_margin_minus_the_difference_of_f():
    X, centers, preferences, scaling, columns = setting()
    row_dual = np.array([0.3, 1.5, -0.7, 0.4])  # (alpha_0, alpha) over the three centers
    expected = [
        d - (f_at(X, centers, row_dual, i) - f_at(X, centers, row_dual, j))
        for d, i, j in zip(columns.margins, preferences.i, preferences.j, strict=True)
    ]
    np.testing.assert_allclose(columns.shortfall(row_dual), expected, rtol=1e-12, atol=1e-14)


def test_the_weighted_sum_and_the_net_weights_add_up_preference_by_preference():
    X, centers, preferences, _, columns = setting()
    indices, weight = np.array([0, 2, 4, 5, 7]), np.array([0.5, 2.0, 1.0, 3.0, 0.25])
    by_hand = sum(w * columns.block(np.array([q]))[:, 0] for q, w in zip(indices, weight, strict=True))
    np.testing.assert_allclose(columns.weighted_sum(indices, weight), by_hand, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(columns.weighted_sum(indices, weight, slice(1, None)), by_hand[2:], rtol=1e-12)
    net = np.zeros(len(X))
    for q, w in zip(indices, weight, strict=True):
        for row, sign in ((preferences.i[q], 1), (preferences.j[q], -1)):
            if row != ZERO:
                net[row] += sign * w
    np.testing.assert_allclose(columns.net_at_points(indices, weight), net, atol=1e-15)


def test_kept_preferences_keep_their_rows_and_the_compared_rows_follow():
    _, _, preferences, _, columns = setting()
    keep = np.array([True, False, True, True, False, True, False, False])
    columns.keep(keep)
    kept = preferences[keep]
    padded = np.append(columns.rows, ZERO)
    np.testing.assert_array_equal(padded[columns.position_i], kept.i)
    np.testing.assert_array_equal(padded[columns.position_j], kept.j)
    # rows 6, 7 and 8 are still indexed but no kept preference compares them
    assert columns.compared_rows().tolist() == [3, 4, 5, 9, 10, 11]


def test_the_certificate_accepts_an_honest_gap_and_refuses_hotstart_3194s():
    check_duality_gap(1000.0, 1000.0 * (1 + 1e-11))  # honest optima agree to ~1e-11
    check_duality_gap(0.5, 0.5 + 9e-9)  # below |primal| = 1 the gap is absolute
    for primal, dual in ((1000.0, 1000.0 * (1 + 1.1e-7)), (0.5, 0.5 + 2e-8), (1.0, float("nan"))):
        with pytest.raises(SolverNumericalError, match="duality gap"):
            check_duality_gap(primal, dual)


def test_a_solution_comes_back_in_the_units_of_y():
    scaling = TargetScaling(center=100.0, scale=10.0)
    row_dual, shortfall = np.array([0.5, 2.0, -1.0]), np.array([0.1, -0.3])
    solution = LPSolution.unscaled(
        scaling, 4.0, np.array([2, 5]), row_dual, 0.25, shortfall, iterations=7, seconds=0.5, start="hot"
    )
    # f = scale (alpha_0 + sum alpha~ K / kernel_scale) + center: alpha = scale / kernel_scale alpha~
    np.testing.assert_allclose(solution.dual_coef, [5.0, -2.5])
    assert solution.intercept == 105.0 and solution.objective == 2.5
    np.testing.assert_allclose(solution.violation, [1.0, 0.0])
    assert (solution.iterations, solution.seconds, solution.start) == (7, 0.5, "hot")
