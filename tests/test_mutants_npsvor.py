"""Tests that kill issue 32's surviving mutants in NPSVOR's coordinate descent
(ordercore/npsvor/coordinate_descent.py): the paired variable's optimality violation, the stopping
rule's ingredient, against seed 004's eq. (30) evaluated by hand in every branch.

Eq. (30), with g_p = B + eps and g_n = B - eps (eq. (28)), B the variable's gradient:

    v = g_p                         if 0 < alpha < C1
        g_n                         if -C1 < alpha < 0
        min(0, g_n)                 if alpha = -C1
        max(0, g_p)                 if alpha = C1
        max(0, g_n) - min(0, g_p)   if alpha = 0

and the code returns |v| (eq. (31) sums the violations' absolute values)."""

import pytest

from ordercore.npsvor.coordinate_descent import _paired_violation

EPSILON, BOUND = 0.5, 1.0


@pytest.mark.parametrize(
    ("alpha", "gradient", "expected"),
    [
        # interior, alpha > 0: |g_p| = |B + eps|
        (0.4, 0.2, 0.7),
        (0.4, -0.8, 0.3),
        (0.4, -0.5, 0.0),
        # interior, alpha < 0: |g_n| = |B - eps|
        (-0.4, 0.2, 0.3),
        (-0.4, 0.9, 0.4),
        (-0.4, 0.5, 0.0),
        # at the upper bound C1: max(0, g_p)
        (1.0, 0.2, 0.7),
        (1.0, -0.8, 0.0),
        # at the lower bound -C1: |min(0, g_n)|
        (-1.0, 0.2, 0.3),
        (-1.0, 0.9, 0.0),
        # at 0: max(0, g_n) - min(0, g_p)
        (0.0, 0.2, 0.0),  # g_p = 0.7, g_n = -0.3: inside the dead zone
        (0.0, -0.8, 0.3),  # g_p = -0.3
        (0.0, 0.9, 0.4),  # g_n = 0.4
    ],
)
def test_paired_violation_is_eq_30_by_hand(alpha, gradient, expected):
    violation, _ = _paired_violation(alpha, gradient, EPSILON, BOUND, 1e9)
    assert violation == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize(("alpha", "gradient"), [(0.3, 0.1), (0.3, -0.2), (-0.3, 0.1), (-0.3, -0.2)])
def test_interior_violation_is_the_slope_of_the_one_dimensional_objective(alpha, gradient):
    """Independently of (30): the dual's terms in alpha near an interior point are B alpha + eps |alpha|
    (plus a smooth curvature term whose slope is already in B), so the violation is the slope of
    h(a) = B a + eps |a| at alpha, measured here by central differences."""
    step = 1e-6

    def h(a):
        return gradient * a + EPSILON * abs(a)

    slope = (h(alpha + step) - h(alpha - step)) / (2 * step)
    violation, _ = _paired_violation(alpha, gradient, EPSILON, BOUND, 1e9)
    assert violation == pytest.approx(abs(slope), abs=1e-8)
