"""SVR's learning curve on a session's labels (ordercore.knowledge.label_curve) and the Model page's
'what the answers bought' figure, against hand computations."""

import numpy as np
import pandas as pd
import pytest

from ordercore.knowledge.label_curve import FRACTIONS, REPEATS, LabelCurve
from ordercore.studio.figures import answers_bought_figure


def smooth_problem(n=300, n_labeled=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + rng.normal(0, 0.05, n)
    y[rng.permutation(n)[n_labeled:]] = np.nan
    return X, y


def test_the_curve_is_a_least_squares_power_law_of_held_out_errors():
    X, y = smooth_problem()
    curve = LabelCurve.measure(X, y, 1e-3, np.random.default_rng(1), gamma=0.5)
    assert curve.n_labeled == 60 and curve.sizes.tolist() == [m for m in (15, 30, 45) for _ in range(REPEATS)]
    assert len(FRACTIONS) * REPEATS == curve.errors.size
    x, z = np.log(curve.sizes), np.log(curve.errors)
    slope = np.sum((x - x.mean()) * (z - z.mean())) / np.sum((x - x.mean()) ** 2)  # least squares, by hand
    assert curve.exponent == pytest.approx(max(0.0, -slope)) and curve.exponent > 0  # more labels, less error
    assert curve.ratio(240) == pytest.approx(0.25**curve.exponent) and curve.ratio(60) == 1.0


def test_too_few_labels_are_refused():
    X, y = smooth_problem(n_labeled=7)
    with pytest.raises(ValueError, match="at least 8 labels"):
        LabelCurve.measure(X, y, 1e-3, np.random.default_rng(1))


def test_the_figure_scales_svrs_cv_error_by_the_curve_at_the_labels_the_answers_would_buy():
    metrics = [
        {"svr_mae": 1.0, "ssl_mae": 1.0},  # before automatic trust: not drawn
        {"answers": 10, "cv_svr_mae": 4.0, "cv_ssl_mae": 3.9},
        {"answers": 20, "cv_svr_mae": 4.0, "cv_ssl_mae": 3.5},
        {"answers": 20, "cv_svr_mae": 4.0, "cv_ssl_mae": 3.4},  # the last run at 20 answers counts
    ]
    curve = LabelCurve(np.array([15.0]), np.array([1.0]), 0.5, 60)
    figure = answers_bought_figure(pd.DataFrame({"metrics": metrics}), curve, 10.0, 60)
    ssl, svr, instead = figure.data
    assert list(ssl.x) == [10, 20] and list(ssl.y) == [3.9, 3.4]
    # SVR and the labels instead start where the session did, at 0 answers (60 labels: the curve's ratio 1)
    assert list(svr.x) == list(instead.x) == [0, 10, 20] and list(svr.y) == [4.0, 4.0, 4.0]
    np.testing.assert_allclose(instead.y, [4.0, 4.0 * (60 / 61) ** 0.5, 4.0 * (60 / 62) ** 0.5])
    assert answers_bought_figure(pd.DataFrame({"metrics": metrics[:1]}), curve, 10.0, 60) is None


def test_a_first_run_shows_svr_beside_ssl():
    """One cross-validated run is one point: a line of one point drew nothing and left SVR's value off
    the axis (the new user's chart of one orange point)."""
    figure = answers_bought_figure(
        pd.DataFrame({"metrics": [{"answers": 18, "cv_svr_mae": 2912.0, "cv_ssl_mae": 2600.0}]}), None, 10.0, 60
    )
    assert all("markers" in trace.mode for trace in figure.data) and [t.y[-1] for t in figure.data] == [2600.0, 2912.0]
    assert list(figure.data[1].x) == [0, 18]  # SVR from the session's start, the axis from 0
