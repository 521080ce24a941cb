"""The eleventh corpus's library cases (issue 32): ``solve_order_preference_lp``'s options and its kernel's
output (L029, L053-L056, L059); internal helpers given arguments that do not match (L038, L049, L052, L071)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from ordercore import PreferenceSet, solve_order_preference_lp
from ordercore.inputs.lengths import one_length
from ordercore.knowledge.rules.forms import rank_correlation
from ordercore.numerics.kernels import kernel_matrix
from ordercore.studio.broken_answers import broken_answers
from ordercore.studio.held_out_change import HeldOutChange
from ordercore.studio.rule_edits import audit_split
from tests.test_lp import random_problem, reference_objective

RBF = functools.partial(kernel_matrix, kernel="rbf", gamma=0.4)

OPTIONS = "the options are lambda1, lambda2, epsilon, centers, method, time_limit"


def solve(kernel=RBF, **options):
    """``solve_order_preference_lp`` on a 40-row problem with 8 labeled rows and 30 preferences."""
    X, y, _, preferences = random_problem(1)
    labeled = np.flatnonzero(~np.isnan(y))
    return solve_order_preference_lp(X, labeled, y[labeled], preferences, kernel, **options)


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"lamda1": 1.0, "lambda1": 0.1, "lambda2": 1.0},
            f"solve_order_preference_lp has no option 'lamda1' (did you mean lambda1?); {OPTIONS}",
        ),
        (
            {"lamda": 1.0, "lambda1": 0.1, "lambda2": 1.0},
            f"solve_order_preference_lp has no option 'lamda' (did you mean lambda1 or lambda2?); {OPTIONS}",
        ),
        (
            {"solver": "highs", "lambda1": 0.1, "lambda2": 1.0},
            f"solve_order_preference_lp has no option 'solver'; {OPTIONS}",
        ),
        (
            {},
            "solve_order_preference_lp needs lambda1 (the weight of ‖α‖₁ against the labels' errors) and lambda2 "
            "(of the preferences' violations); lambda1 and lambda2 not given",
        ),
        (
            {"lambda1": 0.1},
            "solve_order_preference_lp needs lambda1 (the weight of ‖α‖₁ against the labels' errors) and lambda2 "
            "(of the preferences' violations); lambda2 not given",
        ),
    ],
    ids=["lamda1", "lamda", "solver", "no lambdas", "no lambda2"],
)
def test_an_unknown_option_or_a_missing_lambda_is_named_with_the_options(options, message):
    """L056, L029: 'IncrementalOrderPreferenceLP.__init__() got an unexpected keyword argument' and '... missing 2
    required keyword-only arguments', naming an internal class and not the options there are."""
    with pytest.raises(TypeError) as raised:
        solve(**options)
    assert str(raised.value) == message


@pytest.mark.parametrize("time_limit", [-1, 0, float("nan"), True, "10"], ids=["-1", "0", "nan", "True", "text"])
def test_a_time_limit_that_is_no_positive_number_of_seconds_is_refused_before_solving(time_limit):
    """L055: time_limit=-1 was taken, and the solve then 'reached time_limit=-1 s before the optimum; ... (the
    last fit is kept)', of a cold solve that has no last fit."""
    with pytest.raises(ValueError) as raised:
        solve(lambda1=1e-2, lambda2=2.0, time_limit=time_limit)
    assert str(raised.value) == (f"time_limit must be a number of seconds > 0, or None (no limit); got {time_limit!r}")


def test_a_positive_time_limit_and_checked_kernel_reach_the_reference_optimum():
    """The checks change nothing for good options: the optimum is linprog's on LP (13)."""
    X, y, _, preferences = random_problem(1)
    expected = reference_objective(X, y, preferences, np.flatnonzero(~np.isnan(y)), 1e-2, 2.0, 0.0, 0.4)
    solution = solve(lambda1=1e-2, lambda2=2.0, time_limit=600)
    assert solution.objective == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize(
    "kernel, error, message",
    [
        (
            lambda A, B: np.ones((2, 2)),
            ValueError,
            "kernel(A, B) returned shape (2, 2) for A of 8 rows and B of 8: it must return K(A, B), shape "
            "(len(A), len(B)) = (8, 8), such as functools.partial(ordercore.numerics.kernels.kernel_matrix, "
            "kernel='rbf', gamma=0.5)",
        ),
        (
            lambda A, B: RBF(A, B).T[:, :-1],
            ValueError,
            "kernel(A, B) returned shape (8, 7) for A of 8 rows and B of 8",
        ),
        (
            lambda A, B: np.full((len(A), len(B)), np.nan),
            ValueError,
            "kernel(A, B) returned NaN or ±inf in 64 of the 64 entries of a (8, 8) block: a kernel's values must be "
            "finite",
        ),
        (
            lambda A, B: np.where(np.eye(len(A), len(B), dtype=bool), np.inf, RBF(A, B)),
            ValueError,
            "kernel(A, B) returned NaN or ±inf in 8 of the 64 entries of a (8, 8) block",
        ),
        (
            lambda A, B: np.full((len(A), len(B)), "a"),
            TypeError,
            "kernel(A, B) returned <U1 values: it must return numbers, K(A, B)",
        ),
    ],
    ids=["(2, 2)", "one column short", "NaN", "inf on the diagonal", "text"],
)
def test_a_kernel_returning_no_kernel_matrix_is_named_with_what_it_returned(kernel, error, message):
    """L053, L054, L059: numpy's 'all the input array dimensions except for the concatenation axis must match',
    HiGHS's 'refused passModel' and numpy's "ufunc 'absolute' did not contain a loop"; the 8 x 8 block is the
    labeled rows' (the kernel's first call)."""
    with pytest.raises(error) as raised:
        solve(kernel, lambda1=1e-2, lambda2=2.0)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: HeldOutChange.of(np.arange(5.0), np.arange(4.0), np.arange(5.0)),
            "HeldOutChange.of: truth, svr and ssl must have one length (a value per held-out row); got truth 5, svr 4, "
            "ssl 5",
        ),
        (
            lambda: broken_answers(pd.DataFrame({"answer_id": [1, 2, None]}), [True, False], [True, True, True]),
            "broken_answers: provenance, ssl_violated and svr_violated must have one length (an entry per "
            "preference); got provenance 3, ssl_violated 2, svr_violated 3",
        ),
        (
            lambda: audit_split(pd.DataFrame({"row_a": [1], "row_b": [2]}), 1, PreferenceSet([0], [1])),
            "audit_split: answers lacks the column(s) ['rule_id']; it needs row_a, row_b and rule_id (the session's "
            "answers), and has ['row_a', 'row_b']",
        ),
    ],
    ids=["HeldOutChange", "broken_answers", "audit_split"],
)
def test_an_internal_helper_given_arguments_that_do_not_match_names_them(call, message):
    """L038, L049, L052: numpy's 'operands could not be broadcast together with shapes (4,) (5,)' and pandas'
    bare KeyError 'rule_id'."""
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == message


def test_one_length_names_every_argument_and_passes_arrays_of_one_length():
    """The helper itself: equal lengths pass (a list, an array, a Series, a frame's rows), others are named."""
    one_length("f", "a value per row", a=[1, 2], b=np.zeros(2), c=pd.Series([3, 4]), d=pd.DataFrame({"x": [5, 6]}))
    with pytest.raises(ValueError, match=r"^f: a and b must have one length \(a value per row\); got a 2, b 0$"):
        one_length("f", "a value per row", a=[1, 2], b=[])


def test_rank_correlation_of_values_and_labels_of_two_lengths_names_both():
    """L071: numpy's 'operands could not be broadcast together with shapes (3,) (2,)'."""
    with pytest.raises(ValueError) as raised:
        rank_correlation(pd.Series([1, 2, 3]), np.array([1.0, 2.0]))
    assert str(raised.value) == (
        "rank_correlation: values and labels must have one length (a value per row); got values 3, labels 2"
    )
