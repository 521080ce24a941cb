"""The toy cubic's paper setting (seed 001 §4.1) against a brute-force fit of a line, and what its page
shows, without Streamlit."""

import itertools

import numpy as np

from ordercore.studio.toy_cubic import (
    DEMO_SETTING,
    GRID,
    PAPER_SETTING,
    ToyCubicDemo,
    ToyFit,
    cubic_target,
    fit_toy,
    toy_metrics,
)


def line_objective(slope, intercept, training_x, pairs, lambda2):
    """Seed 001 (9) for f(x) = slope x + intercept with lambda1 = 0, eps = 0, d = 0, w = 1."""
    label_loss = np.mean(np.abs(cubic_target(training_x) - slope * training_x - intercept))
    hinges = [max(-slope * (higher - lower), 0.0) for higher, lower in pairs]
    return label_loss + (lambda2 * np.mean(hinges) if pairs else 0.0)


def best_line(training_x, pairs, lambda2):
    """The objective is convex and piecewise linear in (slope, intercept), so its minimum lies where two
    of its kinks cross: a line through two training points, or a flat line (slope 0, where every
    d = 0 hinge kinks) through one. Returns (objective, slope, intercept) of the best candidate."""
    y = cubic_target(training_x)
    candidates = [(0.0, value) for value in y]
    for i, j in itertools.combinations(range(len(training_x)), 2):
        slope = (y[j] - y[i]) / (training_x[j] - training_x[i])
        candidates.append((slope, y[i] - slope * training_x[i]))
    return min((line_objective(a, b, training_x, pairs, lambda2), a, b) for a, b in candidates)


def fitted_line(curve):
    """(slope, intercept) of a curve on GRID that must be a straight line."""
    np.testing.assert_allclose(np.diff(curve, 2), 0.0, atol=1e-9)
    slope = (curve[-1] - curve[0]) / (GRID[-1] - GRID[0])
    return slope, curve[0] - slope * GRID[0]


def test_paper_setting_is_seed_001_section_4_1():
    # "For this experiment we used a linear kernel and set lambda_1 = 0"; SSL is LP (13), which expands
    # f over the labeled points only (eq. (8)).
    assert (PAPER_SETTING.kernel, PAPER_SETTING.lambda1, PAPER_SETTING.centers) == ("linear", 0.0, "labeled")
    demo = ToyCubicDemo.draw(4)
    assert demo.use_paper_pair() == (-0.15, 0.30)  # the target 4x^3 - 3x is higher at -0.15
    assert demo.pairs == [(-0.15, 0.30)]


def test_paper_setting_fits_the_best_line_by_brute_force():
    demo = ToyCubicDemo.draw(4)  # a draw where SVR's line violates the paper's preference, as in Fig. 1(a)
    demo.use_paper_pair()
    fit = fit_toy(demo.training_x, demo.pairs, PAPER_SETTING)
    assert (fit.setting.kernel, fit.setting.lambda1, fit.setting.centers) == ("linear", 0.0, "labeled")

    svr_best, *svr_line = best_line(demo.training_x, [], lambda2=0.0)
    np.testing.assert_allclose(fitted_line(fit.svr), svr_line, atol=1e-7)
    assert fit.svr_violated == 1

    ssl_best, *ssl_line = best_line(demo.training_x, demo.pairs, PAPER_SETTING.lambda2)
    ssl_objective = line_objective(*fitted_line(fit.ssl), demo.training_x, demo.pairs, PAPER_SETTING.lambda2)
    np.testing.assert_allclose(ssl_objective, ssl_best, atol=1e-7)
    assert fit.ssl_violated == 0 and fit.ssl_error < fit.svr_error


def test_the_settings_in_words():
    assert PAPER_SETTING.describe() == "linear kernel, λ1 = 0, λ2 = 1, SSL over the labeled points (paper)"
    assert DEMO_SETTING.describe() == "poly kernel, λ1 = 0.001, λ2 = 1, SSL over every preference point"


def test_the_metrics_beside_the_chart_by_hand():
    curve = np.zeros(GRID.size)
    fit = ToyFit(curve, curve, svr_violated=1234, ssl_violated=0, svr_error=0.5, ssl_error=0.3125, setting=DEMO_SETTING)
    assert toy_metrics(2, fit) == [
        ("Preferences", "2", None),
        ("Violated by SVR", "1,234", None),
        ("Violated by SSL", "0", None),
        ("Error to target (SSL)", "0.312", "-0.188 vs SVR"),  # 0.3125 - 0.5: SSL is closer
    ]
    worse = ToyFit(curve, curve, 0, 3, svr_error=0.25, ssl_error=0.5, setting=DEMO_SETTING)
    assert toy_metrics(1000, worse)[0][1] == "1,000" and toy_metrics(0, worse)[3][2] == "+0.250 vs SVR"


def test_undo_takes_back_the_last_preference_and_clear_every_one():
    demo = ToyCubicDemo.draw(0)
    assert demo.undo() is None and demo.pairs == []
    first, second = demo.add_pair(0.1, 0.5), demo.add_pair(-0.9, -0.2)
    assert demo.undo() == second and demo.pairs == [first]
    demo.add_pair(0.7, 0.8)
    demo.clear()
    assert demo.pairs == []
