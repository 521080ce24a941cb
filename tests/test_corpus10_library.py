"""The tenth corpus's library cases (issue 32): the GP's ordinal label graph ordering ranks as NPSVOR does
(L061, L065) and refusing continuous labels in its words (L064); ``branch`` checking lambda1 and lambda2
(L001, L002, L004); feature names that differ invisibly (L018, L019); ``solve_order_preference_lp``'s
arguments (L086-L088, L101, L102)."""

from __future__ import annotations

import functools
import unicodedata

import numpy as np
import pandas as pd
import pytest

from ordercore import GPLabelPreferenceModel, OrderPreferenceRegressor, PreferenceSet, solve_order_preference_lp
from ordercore.lp.engine import IncrementalOrderPreferenceLP
from ordercore.numerics.kernels import kernel_matrix
from tests.test_lp import center_rows, random_problem, reference_objective


@pytest.fixture(scope="module")
def problem():
    """30 rows of 3 features, a linear target, each row's tercile rank 0, 1, 2 (10 rows each)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, 2.0, -1.0]
    rank = np.argsort(np.argsort(y)) // 10
    return X, y, rank


def gp_ordinal(X, labels):
    return GPLabelPreferenceModel(graph="ordinal", random_state=0).fit(X, labels)


@pytest.mark.parametrize(
    "names, numbers",
    [
        (pd.Categorical(["lo", "mid", "hi"], categories=["lo", "mid", "hi"], ordered=True), [0, 1, 2]),
        (np.array(["1", "2", "10"]), [1, 2, 10]),
    ],
    ids=["ordered Categorical", "text numbers"],
)
def test_the_gp_ordinal_graph_orders_ranks_as_npsvor_does(problem, names, numbers):
    """L061, L065: classes_ hi < lo < mid (an ordered Categorical lo < mid < hi) and '1' < '10' < '2', the
    chain of the ordinal graph built over that alphabetical order, with no word."""
    X, _, rank = problem
    labels = names[rank] if isinstance(names, np.ndarray) else pd.Categorical.from_codes(rank, dtype=names.dtype)
    model = gp_ordinal(X, labels)
    assert [str(c) for c in model.classes_] == [str(c) for c in np.asarray(names)]
    by_number = gp_ordinal(X, np.asarray(numbers)[rank])  # numbers order by value: the graph meant
    np.testing.assert_allclose(model.latent_, by_number.latent_)


def test_gp_labels_that_are_not_whole_numbers_are_refused_as_npsvor_refuses_them(problem):
    """L064: labels 1.5, 2.5, 3.5 got scikit-learn's 'Unknown label type: continuous. Maybe you are trying to
    fit a classifier ...'."""
    X, _, rank = problem
    with pytest.raises(ValueError) as raised:
        gp_ordinal(X, rank + 1.5)
    assert str(raised.value).startswith(
        "GPLabelPreferenceModel's labels are ranks, not a continuous target: y holds 3 distinct values, some not "
        f"whole numbers (e.g. {rank[0] + 1.5}); give ranks as whole numbers or text"
    )


@pytest.mark.parametrize(
    "lambda1, lambda2, named", [(-1.0, 1.0, "lambda1"), (np.nan, 1.0, "lambda1"), (1e-3, np.inf, "lambda2")]
)
def test_branch_refuses_a_lambda_the_constructor_refuses(problem, lambda1, lambda2, named):
    """L001, L002, L004: branch(-1, 1), branch(nan, 1), branch(1e-3, inf) ended in HiGHS's errors ('the dual
    LP infeasible', 'refused changeRowsBounds', 'duality gap is nan')."""
    X, y, _ = problem
    labels = np.where(np.arange(30) < 10, y, np.nan)
    model = OrderPreferenceRegressor().fit(X, labels, PreferenceSet([12, 14], [11, 13], 0.5))
    with pytest.raises(ValueError, match=rf"^The '{named}' parameter of OrderPreferenceRegressor must be a float "):
        model.branch(lambda1, lambda2)
    assert (model.lambda1, model.lambda2) == (1e-3, 1.0)  # the model branched from is unchanged


@pytest.mark.parametrize(
    "fitted, given, differ",
    [
        ("caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9"), "Unicode normalisation"),
        ("b ", "b", "spaces at the ends"),
    ],
    ids=["NFC and NFD", "a trailing space"],
)
def test_a_feature_name_that_differs_invisibly_is_shown_escaped_with_what_differs(problem, fitted, given, differ):
    """L018, L019: scikit-learn's 'Feature names unseen at fit time: - café ... seen at fit time, yet now
    missing: - café' printed two names that read alike."""
    X, y, _ = problem
    model = OrderPreferenceRegressor().fit(pd.DataFrame(X, columns=["a", fitted, "c"]), np.where(y > 0, y, np.nan))
    with pytest.raises(ValueError) as raised:
        model.predict(pd.DataFrame(X, columns=["a", given, "c"]))
    shown = {"caf\u00e9": "'caf\\xe9'", "cafe\u0301": "'cafe\\u0301'", "b": "'b'", "b ": "'b '"}
    assert str(raised.value) == (
        f"X's column {shown[given]} is not the feature {shown[fitted]} the model was fitted on: the names differ "
        f"only in {differ}"
        + (" (one composes its accented letters, NFC; the other does not, NFD)" if "Uni" in differ else "")
        + f"; rename it {shown[fitted]}"
    )


RBF = functools.partial(kernel_matrix, kernel="rbf", gamma=0.4)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"labeled": np.zeros(40, bool)}, "labeled names no row: at least one labeled row is needed"),
        ({"kernel": "rbf"}, "kernel must be a callable K(A, B) -> kernel matrix"),
        ({"labeled": np.arange(30) < 8}, "labeled is a boolean mask of 30 entries but X has 40 rows"),
        ({"y": "nan at row 3"}, "y holds nan at 1 labeled row(s) (the first: row 3 of X)"),
        ({"labeled": [3, 3]}, "labeled names row 3 more than once"),
        ({"labeled": [0.5]}, "labeled must be row positions (integers) or a boolean mask of X's rows"),
        ({"y": np.ones(12)}, "y has shape (12,), but labeled names 8 rows of X's 40"),
        ({"labeled": [3, 40]}, "labeled names row 40, which X's 40 rows (0 ... 39) do not have"),
        ({"X": "inf at row 5"}, "X holds NaN or ±inf in 1 row(s) (the first: row 5): features must be finite"),
        ({"preferences": [(1, 2)]}, "preferences must be an ordercore.PreferenceSet, got list"),
        ({"lambda1": -1.0}, "lambda1 must be a finite number >= 0, got -1.0"),
    ],
    ids=[
        "no labeled row",
        "kernel 'rbf'",
        "short mask",
        "NaN label",
        "a row twice",
        "fractions",
        "y's length",
        "row 40 of 40",
        "X infinite",
        "preference pairs",
        "lambda1 -1",
    ],
)
def test_solve_order_preference_lp_names_a_bad_argument(change, message):
    """L086, L087, L101, L102: scikit-learn's 'Found array with 0 sample(s)', "'str' object is not callable",
    numpy's 'boolean index did not match', and a NaN label called 'too close to float64's limit'."""
    X, y, _, preferences = random_problem(1)
    arguments = {"X": X, "labeled": ~np.isnan(y), "y": y, "kernel": RBF, "preferences": preferences}
    arguments |= {"lambda1": 1e-2} | change
    if isinstance(arguments["y"], str):
        arguments["y"] = np.where(np.arange(40) == 3, np.nan, np.nan_to_num(y))
        arguments["labeled"] = np.union1d(np.flatnonzero(~np.isnan(y)), [3])
    if isinstance(arguments["X"], str):
        arguments["X"] = X.copy()
        arguments["X"][5, 1] = np.inf
    with pytest.raises((TypeError, ValueError)) as raised:
        solve_order_preference_lp(**arguments, lambda2=2.0)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize("as_mask", [False, True], ids=["positions", "mask"])
def test_solve_order_preference_lp_reads_a_target_per_row_of_x_at_the_labeled_rows(as_mask):
    """L088: labeled positions with y for every row of X ended in numpy's 'all the input array dimensions
    ... must match'; a mask with such a y solved another problem (the mask taken as 40 center rows)."""
    X, y, _, preferences = random_problem(2)
    labeled = ~np.isnan(y) if as_mask else np.flatnonzero(~np.isnan(y))
    solution = solve_order_preference_lp(X, labeled, y, preferences, RBF, lambda1=1e-2, lambda2=2.0)
    expected = reference_objective(X, y, preferences, center_rows("labeled", y, preferences), 1e-2, 2.0, 0.0, 0.4)
    assert solution.objective == pytest.approx(expected, rel=1e-6)
    assert solution.center_rows.tolist() == np.flatnonzero(~np.isnan(y)).tolist()


def test_the_lp_calls_a_nan_label_what_it_is():
    """L102: IncrementalOrderPreferenceLP, given a NaN among the labeled targets, said 'the labels reach nan,
    too close to float64's limit ... rescale the target'."""
    X, y, _, _ = random_problem(3)
    labeled = np.flatnonzero(~np.isnan(y))
    targets = y[labeled]
    targets[2] = np.nan
    with pytest.raises(ValueError) as raised:
        IncrementalOrderPreferenceLP(X, labeled, targets, RBF, lambda1=1e-2, lambda2=2.0)
    assert str(raised.value) == (
        "the labeled targets y hold nan at 1 of their 8 entries (the first: entry 2): every labeled row needs a "
        "finite target"
    )
