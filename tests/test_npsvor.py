"""NPSVOR (seed 004) against independent checks: each rank's primal (4) solved as a general QP by
HiGHS's QP solver, DCD-1 against DCD-2, the prediction rules (36) and (5) on hand-worked values, label coding,
warm starts against cold fits, bad input, and model files."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from ordercore import NPSVOR, ModelFileError, load
from ordercore.npsvor.coordinate_descent import dual_coordinate_descent, squared_norms
from ordercore.npsvor.problem import dual_variables, predict_nearest, predict_order
from ordercore.npsvor.solver import NO_TRACE
from ordercore.npsvor.synthetic import synthetic_ordinal
from tests.reference_qp import solve_qp

TIGHT = {"epsilon_s": 1e-10, "max_iter": 100_000}
"""A stopping rule tight enough that the dual optimum is reached to rounding."""


def ordinal_data(n=36, d=3, K=3, seed=0):
    """A small ordinal problem: ranks 0 … K−1 from cut points on a noisy linear score."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X @ rng.normal(size=d) + 0.5 * rng.normal(size=n)
    ranks = np.searchsorted(np.quantile(score, np.linspace(0, 1, K + 1)[1:-1]), score)
    return X, ranks


def primal_by_qp(X, ranks, k, C1, C2, epsilon):
    """min ½‖w‖² + C1 Σ_{I_k}(ξ⁺ + ξ⁻) + C2 Σ η subject to eq. (2)'s constraints, solved by HiGHS's QP
    solver (tests/reference_qp.py) over (w, ξ⁺, ξ⁻, η), X already augmented by the bias feature;
    returns the optimal value."""
    n, d = X.shape
    inside, outside = np.flatnonzero(ranks == k), np.flatnonzero(ranks != k)
    l, m = inside.size, outside.size  # noqa: E741 (the paper names |I_k| l)
    n_var = d + 2 * l + m
    # rows: wᵀx − ξ⁺ ≤ ε and −wᵀx − ξ⁻ ≤ ε on I_k; −ỹ wᵀx − η ≤ −1 elsewhere
    signs = np.where(ranks[outside] > k, 1.0, -1.0)
    A = np.zeros((2 * l + m, n_var))
    A[:l, :d], A[:l, d : d + l] = X[inside], -np.eye(l)
    A[l : 2 * l, :d], A[l : 2 * l, d + l : d + 2 * l] = -X[inside], -np.eye(l)
    A[2 * l :, :d], A[2 * l :, d + 2 * l :] = -signs[:, None] * X[outside], -np.eye(m)
    upper = np.concatenate([np.full(2 * l, epsilon), -np.ones(m)])
    cost = np.concatenate([np.zeros(d), np.full(2 * l, C1), np.full(m, C2)])
    hessian = np.diag(np.concatenate([np.ones(d), np.zeros(n_var - d)]))  # ½‖w‖²
    column_lower = np.concatenate([np.full(d, -np.inf), np.zeros(n_var - d)])
    z = solve_qp(hessian, cost, A, column_lower, np.full(n_var, np.inf), np.full(len(upper), -np.inf), upper)
    return 0.5 * z[:d] @ z[:d] + cost @ z


def primal_value(w, X, ranks, k, C1, C2, epsilon):
    """Eq. (4) at w, written out here (X augmented by the bias feature)."""
    margins = X @ w
    tube = sum(max(abs(margins[i]) - epsilon, 0.0) for i in range(len(ranks)) if ranks[i] == k)
    hinge = sum(
        max(1.0 - (1.0 if ranks[i] > k else -1.0) * margins[i], 0.0) for i in range(len(ranks)) if ranks[i] != k
    )
    return 0.5 * w @ w + C1 * tube + C2 * hinge


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_each_rank_reaches_the_qp_optimum_of_its_primal(solver, fit_intercept):
    X, ranks = ordinal_data()
    X[5] = 0.0  # an empty row: A_i = 0 without the bias feature
    C1, C2, epsilon = 0.7, 1.3, 0.2
    model = NPSVOR(C1=C1, C2=C2, epsilon=epsilon, solver=solver, fit_intercept=fit_intercept, random_state=0, **TIGHT)
    model.fit(X, ranks)
    augmented = np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X
    for k in range(3):
        w = np.append(model.coef_[k], model.intercept_[k]) if fit_intercept else model.coef_[k]
        assert model.intercept_[k] == 0.0 or fit_intercept
        optimum = primal_by_qp(augmented, ranks, k, C1, C2, epsilon)
        assert primal_value(w, augmented, ranks, k, C1, C2, epsilon) == pytest.approx(optimum, abs=1e-6, rel=1e-6)


def test_dcd1_and_dcd2_find_the_same_hyperplanes_and_duals():
    X, ranks = ordinal_data(n=60, d=4, K=4, seed=1)
    fits = [NPSVOR(C=2.0, solver=solver, random_state=3, **TIGHT).fit(X, ranks) for solver in ("dcd2", "dcd1")]
    np.testing.assert_allclose(fits[0].coef_, fits[1].coef_, atol=1e-7)
    np.testing.assert_allclose(fits[0].intercept_, fits[1].intercept_, atol=1e-7)
    # w = Σ ỹ α x (eq. (19)) from each solver's duals, ỹ = +1 above rank k, −1 otherwise
    for fit in fits:
        for k in range(4):
            signs = np.where(ranks > k, 1.0, -1.0)
            np.testing.assert_allclose(X.T @ (signs * fit.dual_coef_[k]), fit.coef_[k], atol=1e-9)


def test_rule_36_and_rule_5_by_hand():
    # f_k(x) per row, K = 3.  Rule (36) counts g_k = f_k + f_{k+1} > 0; rule (5) takes argmin |f_k|.
    decision = np.array(
        [
            [-1.2, -0.3, 0.8],  # g = (−1.5, 0.5): rank 1 + 1 = 2;  |f| smallest 0.3: rank 2
            [2.0, -0.4, -0.3],  # g = (1.6, −0.7): rank 2;  |f| smallest 0.3: rank 3
            [-2.0, -1.5, -0.1],  # g = (−3.5, −1.6): rank 1;  |f| smallest 0.1: rank 3
            [1.5, 0.9, 0.2],  # g = (2.4, 1.1): rank 3;  rank 3
            [0.5, -0.5, 0.5],  # g = (0, 0), not > 0: rank 1;  a tie of all three, the first: rank 1
        ]
    )
    np.testing.assert_array_equal(predict_order(decision), [1, 1, 0, 2, 0])
    np.testing.assert_array_equal(predict_nearest(decision), [1, 2, 2, 2, 0])


def test_the_estimator_predicts_ranks_by_either_rule():
    X, ranks = ordinal_data(K=3)
    labels = np.array([10, 20, 30])[ranks]
    model = NPSVOR(random_state=0).fit(X, labels)
    # a fitted model given hand-set hyperplanes f_k(x) = x_0 + b_k, b = (1, −1.4, −1.3): the row
    # x = (1, 5, −5) has f = (2, −0.4, −0.3), so rule (36)'s g = (1.6, −0.7) gives the second rank, 20,
    # and rule (5)'s nearest hyperplane (|−0.3|) the third, 30.
    model.coef_ = np.array([[1.0, 0, 0], [1.0, 0, 0], [1.0, 0, 0]])
    model.intercept_ = np.array([1.0, -1.4, -1.3])
    row = np.array([[1.0, 5.0, -5.0]])
    np.testing.assert_allclose(model.decision_function(row), [[2.0, -0.4, -0.3]])
    assert model.predict(row)[0] == 20
    model.prediction = "nearest"
    assert model.predict(row)[0] == 30


def test_labels_that_skip_ranks_or_arrive_unsorted_are_coded_in_order():
    X, ranks = ordinal_data(n=45, K=3, seed=4)
    labels = np.array([1, 3, 7])[ranks]  # rank 2, 4, 5, 6 never occur
    coded = NPSVOR(random_state=0, **TIGHT).fit(X, ranks)
    permutation = np.random.default_rng(0).permutation(len(X))  # rows (and labels) in another order
    skipping = NPSVOR(random_state=1, **TIGHT).fit(X[permutation], labels[permutation])
    np.testing.assert_array_equal(skipping.classes_, [1, 3, 7])
    assert skipping.coef_.shape == (3, X.shape[1]) and skipping.intercept_.shape == (3,)
    np.testing.assert_allclose(skipping.coef_, coded.coef_, atol=1e-7)
    np.testing.assert_allclose(skipping.intercept_, coded.intercept_, atol=1e-7)
    np.testing.assert_array_equal(skipping.predict(X), np.array([1, 3, 7])[coded.predict(X)])


def test_text_labels_that_read_as_numbers_order_as_numbers(tmp_path):
    """Labels '1' ... '10' as text: rank order 1, 2, ..., 10 (not '1', '10', '2', ...), the same fit as the
    numbers; two texts that read as one number ('1', '1.0') are refused with a message naming them."""
    X, ranks = ordinal_data(n=110, K=10, seed=6)
    numbers = NPSVOR(random_state=0, **TIGHT).fit(X, ranks + 1)
    text = NPSVOR(random_state=0, **TIGHT).fit(X, np.array([str(r + 1) for r in ranks]))
    assert text.classes_.tolist() == [str(k) for k in range(1, 11)]
    np.testing.assert_allclose(text.coef_, numbers.coef_, atol=1e-7)
    np.testing.assert_array_equal(text.predict(X).astype(int), numbers.predict(X))
    text.save(tmp_path / "text.npz")  # and a model file keeps that order
    np.testing.assert_array_equal(load(tmp_path / "text.npz").predict(X), text.predict(X))
    with pytest.raises(ValueError, match="distinct numbers"):
        NPSVOR().fit(X[:30], np.array(["1", "1.0", "2"] * 10))


def test_text_labels_that_are_not_numbers_order_alphabetically_and_say_so(tmp_path, recwarn):
    """Text ranks such as 'low', 'mid', 'high' sort alphabetically ('high' < 'low' < 'mid'), rarely their
    order: the fit says which order it took, pointing at the caller's line; numeric text says nothing, and
    loading the model file does not warn again."""
    X, ranks = ordinal_data(n=90, K=3, seed=6)
    words = np.array(["low", "mid", "high"])[ranks]
    with pytest.warns(UserWarning, match="alphabetically: 'high' < 'low' < 'mid'; if that is not") as caught:
        model = NPSVOR(random_state=0).fit(X, words)
    assert caught[0].filename == __file__
    assert model.classes_.tolist() == ["high", "low", "mid"]
    model.save(tmp_path / "words.npz")
    recwarn.clear()
    load(tmp_path / "words.npz")
    NPSVOR(random_state=0).fit(X, np.array(["1", "2", "3"])[ranks])
    assert not [w for w in recwarn if "alphabetically" in str(w.message)]


def test_sparse_and_dense_input_give_the_same_fit():
    X, ranks = ordinal_data(seed=5)
    X[np.abs(X) < 0.5] = 0.0
    dense = NPSVOR(random_state=0).fit(X, ranks)
    sparse = NPSVOR(random_state=0).fit(sp.csr_matrix(X), ranks)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_ranks_solved_in_parallel_threads_give_the_sequential_fit(solver):
    X, y = synthetic_ordinal(3000, 2000, nnz_per_row=20, n_ranks=4, random_state=1)
    fits = [NPSVOR(solver=solver, n_jobs=n_jobs, random_state=0).fit(X, y) for n_jobs in (1, 2, 4, -1)]
    warm = [NPSVOR(solver=solver, n_jobs=n_jobs, warm_start=True, random_state=0) for n_jobs in (1, 3)]
    warm = [model.fit(X[:2000], y[:2000]).fit(X, y) for model in warm]
    for reference, fit in [(fits[0], fit) for fit in fits[1:]] + [(warm[0], warm[1])]:
        for attribute in ("coef_", "intercept_", "dual_coef_", "n_iter_"):
            np.testing.assert_array_equal(getattr(fit, attribute), getattr(reference, attribute))


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_prefetching_changes_no_value(solver):
    # solve_npsvor prefetches only on X of 32 MB or more; here the loop is asked to on a small X
    X, y = synthetic_ordinal(2000, 1000, nnz_per_row=10, n_ranks=3, random_state=2)
    norms = squared_norms(X.indptr, X.data, 1.0)
    variables = dual_variables(y - 1, 1, 1.0, 1.0, 0.1, solver)
    runs = []
    for prefetch in (False, True):
        alpha, w = np.zeros(variables.row.size), np.zeros(X.shape[1] + 1)
        sweeps, initial = dual_coordinate_descent(
            X.indptr, X.indices, X.data, 1.0, norms, *variables, 0.1, 0.1, 1000, alpha, w, -1.0, 5, prefetch,
            NO_TRACE, NO_TRACE,
        )  # fmt: skip
        runs.append((alpha, w, sweeps, initial))
    for unprefetched, prefetched in zip(*runs, strict=True):
        np.testing.assert_array_equal(prefetched, unprefetched)


@pytest.mark.parametrize("solver", ["dcd2", "dcd1"])
def test_warm_start_after_appended_rows_reaches_the_cold_optimum(solver):
    X, ranks = ordinal_data(n=70, d=4, K=3, seed=6)
    for tolerance in (TIGHT, {}):
        warm = NPSVOR(solver=solver, warm_start=True, random_state=0, **tolerance).fit(X[:60], ranks[:60])
        warm.fit(X, ranks)
        cold = NPSVOR(solver=solver, random_state=0, **tolerance).fit(X, ranks)
        if tolerance:  # the same optimum
            np.testing.assert_allclose(warm.coef_, cold.coef_, atol=1e-7)
        else:  # at the default stopping rule, in fewer sweeps
            assert warm.n_iter_.sum() < cold.n_iter_.sum()


def test_warm_start_is_skipped_when_the_ranks_change():
    X, ranks = ordinal_data(n=40, K=3, seed=7)
    model = NPSVOR(warm_start=True, random_state=0, **TIGHT).fit(X, ranks)
    model.fit(X, np.minimum(ranks, 1))  # two ranks now
    cold = NPSVOR(random_state=0, **TIGHT).fit(X, np.minimum(ranks, 1))
    np.testing.assert_allclose(model.coef_, cold.coef_, atol=1e-7)


@pytest.mark.parametrize(
    "params, y, match",
    [
        ({"C": 0.0}, None, "'C' parameter"),
        ({"C1": -1.0}, None, "'C1' parameter"),
        ({"epsilon": -0.1}, None, "'epsilon' parameter"),
        ({"solver": "newton"}, None, "'solver' parameter"),
        ({"prediction": "mean"}, None, "'prediction' parameter"),
        ({"epsilon_s": 0.0}, None, "'epsilon_s' parameter"),
        ({"max_iter": 0}, None, "'max_iter' parameter"),
        ({"n_jobs": 0}, None, "'n_jobs' parameter"),
        ({}, "one rank", "at least 2 ranks"),
        ({}, "continuous", "Unknown label type"),
    ],
)
def test_bad_input_raises_and_keeps_the_previous_fit(params, y, match):
    X, ranks = ordinal_data()
    model = NPSVOR(random_state=0).fit(X, ranks)
    coef = model.coef_.copy()
    targets = {None: ranks, "one rank": np.zeros(len(X)), "continuous": np.linspace(0, 1, len(X))}[y]
    with pytest.raises(ValueError, match=match):
        model.set_params(**params).fit(X, targets)
    np.testing.assert_array_equal(model.coef_, coef)


def test_labels_of_non_whole_numbers_are_refused_as_a_continuous_target_in_words():
    """The corpus' [1.5, 2.5, 3.5] * 10: scikit-learn's bare 'Unknown label type: continuous' now says
    what NPSVOR takes; whole-number floats are ranks as they were."""
    X, _ = ordinal_data()
    y = np.array([1.5, 2.5, 3.5] * (len(X) // 3 + 1))[: len(X)]
    with pytest.raises(ValueError, match=r"labels are ranks, not a continuous target: y holds 3 distinct values, "):
        NPSVOR(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"e\.g\. 1\.5\); give ranks as whole numbers or text \(Unknown label type"):
        NPSVOR(random_state=0).fit(X, y)
    assert NPSVOR(random_state=0).fit(X, np.floor(y)).classes_.tolist() == [1.0, 2.0, 3.0]


def test_bad_arrays_raise_value_errors():
    X, ranks = ordinal_data()
    model = NPSVOR(random_state=0).fit(X, ranks)
    with pytest.raises(ValueError, match="NaN"):
        NPSVOR().fit(np.where(X > 1, np.nan, X), ranks)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        NPSVOR().fit(X, ranks[:-1])


def test_synthetic_data_are_seeded_sparse_unit_rows_with_equal_ranks():
    X, y = synthetic_ordinal(1000, 3000, nnz_per_row=30, n_ranks=4, random_state=3)
    again, y_again = synthetic_ordinal(1000, 3000, nnz_per_row=30, n_ranks=4, random_state=3)
    assert (X != again).nnz == 0 and np.array_equal(y, y_again)
    assert X.shape == (1000, 3000) and np.all(np.diff(X.indptr) == 30)
    assert all(np.all(np.diff(X.indices[X.indptr[i] : X.indptr[i + 1]]) > 0) for i in range(1000))  # distinct
    np.testing.assert_allclose(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()), 1.0)
    np.testing.assert_array_equal(np.bincount(y), [0, 250, 250, 250, 250])
    with pytest.raises(ValueError, match="nnz_per_row"):
        synthetic_ordinal(10, 5, nnz_per_row=6)


# ---------------------------------------------------------------------------------------- model files
@pytest.mark.parametrize("sparse", [False, True])
def test_a_loaded_model_predicts_and_warm_starts_as_the_original(tmp_path, sparse):
    X, ranks = ordinal_data(n=40, d=4, K=4, seed=3)
    X = sp.csr_matrix(X) if sparse else X
    labels = np.array(["a", "b", "c", "d"])[ranks]
    model = NPSVOR(C=0.5, fit_intercept=True, intercept_scaling=2.0, warm_start=True, random_state=1)
    model.fit(X[:30], labels[:30]).save(tmp_path / "npsvor.npz")
    loaded = load(tmp_path / "npsvor.npz")
    assert type(loaded) is NPSVOR and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X), strict=True)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X), strict=True)
    for rule in ("order", "nearest"):
        loaded.set_params(prediction=rule), model.set_params(prediction=rule)
        assert np.array_equal(loaded.predict(X), model.predict(X))
    model.fit(X, labels), loaded.fit(X, labels)  # both warm-start from the same duals
    np.testing.assert_array_equal(loaded.dual_coef_, model.dual_coef_)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda doc, arrays: doc["scalars"].update(classes=[2, 1, 3]), "increasing order"),
        (lambda doc, arrays: doc["scalars"].update(classes=[1, 2]), "one label .* per rank"),
        (lambda doc, arrays: arrays["weights"].__setitem__((0, 0), np.nan), "finite"),
        (lambda doc, arrays: arrays.update(weights=arrays["weights"][:, :-1].copy()), "n_features \\+ 1"),
    ],
)
def test_a_tampered_model_file_is_refused(tmp_path, change, match):
    X, ranks = ordinal_data(n=30, K=3)
    path = tmp_path / "npsvor.npz"
    NPSVOR(random_state=0).fit(X, ranks + 1).save(path)
    with np.load(path) as archive:
        entries = dict(archive)
    document = json.loads(entries["metadata"].tobytes())
    change(document, entries)
    entries["metadata"] = np.frombuffer(json.dumps(document).encode(), dtype=np.uint8)
    np.savez(path, **entries)
    with pytest.raises(ModelFileError, match=match):
        load(path)
