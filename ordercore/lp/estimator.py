"""``OrderPreferenceRegressor``: kernel regression with order preferences (Zhu & Goldberg, seed 000
eq. (6)-(7); Goldberg & Zhu, seed 001 eq. (9)-(13)) as a scikit-learn estimator.

With ``lambda2 = 0`` (or no preferences) it is the 1-norm support vector regression baseline
the seeds call SVR; with preferences it is their SSL.
"""

from __future__ import annotations

import functools
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context, clone
from sklearn.utils import column_or_1d
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ordercore.inputs.fit_inputs import (
    LabelsScored,
    NumbersNotBooleans,
    check_rows,
    infinite_labels,
    real_numbers,
    validate_data,
)
from ordercore.inputs.flags import true_or_false
from ordercore.lp.engine import CENTERS, IncrementalOrderPreferenceLP
from ordercore.lp.highs import SIMPLEX_STRATEGIES
from ordercore.lp.problem import referenced_rows
from ordercore.lp.solution import LPSolution
from ordercore.models.files import save_model
from ordercore.numerics.kernels import KERNELS, kernel_matrix
from ordercore.numerics.magnitudes import check_gamma_resolves, check_kernel_input, check_label_spread
from ordercore.pair_scores import suggest_by_order
from ordercore.preferences import VIOLATION_TOLERANCE, PreferenceSet


def _same(a: tuple, b: tuple) -> bool:
    """Whether two fit problems (tuples of arrays and scalars) are equal."""
    return all(
        np.array_equal(x, y, equal_nan=True) if isinstance(x, np.ndarray) else type(x) is type(y) and x == y
        for x, y in zip(a, b, strict=True)
    )


def _as_preferences(preferences) -> PreferenceSet:
    if preferences is None:
        return PreferenceSet.empty()
    if not isinstance(preferences, PreferenceSet):
        raise TypeError(f"preferences must be an ordercore.PreferenceSet, got {type(preferences).__name__}")
    return preferences


class KernelPreferenceRegressor(NumbersNotBooleans, LabelsScored, RegressorMixin, BaseEstimator):
    """What the kernel regressors with order preferences share (the 1-norm LP here, the 2-norm QP in
    two_norm.py): the input checks, f(x) = K(x, centers_) dual_coef_ + intercept_, which preferences
    f violates, the next pairs to ask, and model files.  A subclass says where its training X
    (``_fit_X``) and its target scale (``_target_scale``, for the violation tolerance) are."""

    _fit_X: np.ndarray
    _target_scale: float

    def _kernel(self):
        """K(A, B) with this estimator's kernel settings."""
        return functools.partial(
            kernel_matrix, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0
        )

    def _training_data(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """X (n, n_features) and y (n,) checked as ``fit`` needs them."""
        if y is None:
            raise ValueError("requires y to be passed, but the target y is None")
        real_numbers(y)
        check_rows(X)
        X = validate_data(self, X, dtype=np.float64, copy=True)  # kept for add_preferences and warm starts
        try:  # pd.NA in a list marks an unlabeled row, as in a Float64 Series
            y = np.asarray([np.nan if v is pd.NA else v for v in y] if isinstance(y, list) else y, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"y must hold numbers (labels; NaN marks an unlabeled row): {error}") from None
        y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
        infinite_labels(y, "; use np.nan to mark unlabeled rows")
        if np.isnan(y).all():
            raise ValueError("y has no labeled row (all NaN); at least one label is needed")
        check_kernel_input(X, self.kernel, self.gamma, self.degree, self.coef0)
        check_gamma_resolves(X, self.kernel, self.gamma)
        check_label_spread(y[~np.isnan(y)])
        return X, y

    def predict(self, X):
        """f(x) = K(x, centers_) dual_coef_ + intercept_, shape (n,)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        check_kernel_input(X, self.kernel, self.gamma, self.degree, self.coef0)
        kernel = kernel_matrix(X, self.centers_, self.kernel, self.gamma, self.degree, self.coef0)
        return kernel @ self.dual_coef_ + self.intercept_

    def violated(self, preferences: PreferenceSet) -> np.ndarray:
        """Boolean mask (p,): which ``preferences`` (indices into the X given to ``fit``, in force or
        not) the fitted f violates, by the tolerance of ``n_violated_``."""
        check_is_fitted(self)
        preferences = _as_preferences(preferences)
        if preferences == self.preferences_:
            return self.violated_.copy()
        preferences.check_indices(self._fit_X.shape[0])
        return self._violated_by_prediction(preferences)

    def _violated_by_prediction(self, preferences: PreferenceSet) -> np.ndarray:
        """``preferences.violated`` of f predicted on the rows of the fit's X they compare (p,)."""
        X = self._fit_X
        rows = referenced_rows(preferences)
        f = np.full(X.shape[0], np.nan)
        if rows.size:
            f[rows] = self.predict(X[rows])
        return preferences.violated(f, self._target_scale)

    def _saved_inputs(self, arrays: dict) -> tuple:
        """(X, y, center rows, preferences) of a model file's arrays, checked as ``fit`` checks them."""
        X, y = self._training_data(arrays["X"], arrays["y"])
        rows, preferences = arrays["center_rows"], arrays["preferences"]
        preferences.check_indices(X.shape[0])
        if np.any((rows < 0) | (rows >= X.shape[0])):
            raise ValueError(f"center rows must lie in [0, {X.shape[0]})")
        return X, y, rows, preferences

    def suggest_pairs(self, candidate_pairs, k=1, *, reference=None, return_scores=False):
        """The k candidate pairs to ask next, best first, skipping pairs ``preferences_`` settle
        (``ordercore.pair_scores.suggest_by_order``): without ``reference`` the pair whose order the fit
        is least sure of, with a fitted ``reference`` model (e.g. the SVR beside this SSL fit) the
        pair on which the two differ most.  candidate_pairs : int array (m, 2) of rows of the X
        given to ``fit``.  Returns an int array (≤ k, 2), and with ``return_scores`` also the scores."""
        check_is_fitted(self)
        chosen, scores = suggest_by_order(self, self._fit_X, candidate_pairs, k, self.preferences_, reference)
        return (chosen, scores) if true_or_false(return_scores, "return_scores") else chosen

    def save(self, path, preprocessing=None, metadata=None) -> None:
        """Write the fit to ``path`` (.npz, no pickle; see ``ordercore.models.files.save_model``).

        The file keeps the solution and the X, y and preferences it was fitted on, not the solver's
        state: the loaded model predicts, scores and answers ``violated`` and ``suggest_pairs`` as
        this one does, and its first change of preferences (or warm-started refit) solves cold."""
        save_model(path, self, preprocessing, metadata)


class OrderPreferenceRegressor(KernelPreferenceRegressor):
    """Regression from few labels plus order preferences f(x_i) - f(x_j) >= d with weight w.

    Solves seed 001's objective (9) as a linear program with HiGHS:

        min (1/l) sum_labeled |y_i - f(x_i)|_epsilon + lambda1 ||alpha||_1
            + (lambda2 / p) sum_q w_q max(d_q - (f(x_iq) - f(x_jq)), 0),
        f(x) = K(x, centers) alpha + alpha_0.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly'}; gamma, degree, coef0 as in ``sklearn.metrics.pairwise``
        (gamma=None means 1 / n_features).
    lambda1 : float >= 0, weight of the 1-norm of alpha.
    lambda2 : float >= 0, weight of the preference penalty; 0 gives the SVR baseline.
    epsilon : float >= 0, width of the epsilon-insensitive loss, in units of y.
    centers : 'labeled' expands f over the labeled rows (the seeds' sparse form); 'all' also over
        every row a preference compares (seed 001 Theorem 1).
    method : 'dual' or 'primal' simplex (HiGHS) on the LP's dual form; 'dual' restarts hot.
    time_limit : seconds allowed to each fit, re-solve or preference edit (every HiGHS run and
        every round of pricing), or None; exceeding it raises ``SolverTimeLimitError`` and leaves
        the last fit in place.
    warm_start : when True, a ``fit`` on the same X, y and preferences with the same kernel, epsilon
        and centers as the last one, only lambda1 or lambda2 changed, re-solves from the last
        basis instead of from scratch (the same optimum, found faster).

    Attributes
    ----------
    centers_ : ndarray (m, n_features), the rows of X carrying dual coefficients.  With
        centers='all', only those the LP held as rows: every other candidate's alpha is 0 at the
        optimum (lp/center_set.py).
    dual_coef_ : ndarray (m,), alpha.  intercept_ : float, alpha_0.
    objective_ : float, optimal value of objective (9), in the units of y.
    solve_time_ : float, seconds HiGHS ran for the last (re-)solve.  n_iter_ : its simplex iterations.
    solve_start_ : str, how the last solve started: 'cold'; 'hot', HiGHS pivoting from the previous
        basis; or 'kept', the previous basis still optimal (checked without HiGHS, see lp/basis.py).
    preferences_ : PreferenceSet in force.  violation_ : ndarray (p,), each preference's shortfall
        max(d - (f_i - f_j), 0) at the fit.  violated_ : bool ndarray (p,), shortfalls above
        tolerance; n_violated_ : int, their number.
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "lambda1": [Interval(Real, 0, None, closed="left")],
        "lambda2": [Interval(Real, 0, None, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "centers": [StrOptions(set(CENTERS))],
        "method": [StrOptions(set(SIMPLEX_STRATEGIES))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "warm_start": ["boolean"],
    }

    def __init__(
        self,
        *,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        lambda1=1e-3,
        lambda2=1.0,
        epsilon=0.0,
        centers="labeled",
        method="dual",
        time_limit=None,
        warm_start=False,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.epsilon = epsilon
        self.centers = centers
        self.method = method
        self.time_limit = time_limit
        self.warm_start = warm_start

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, preferences=None):
        """Fit on X (n, n_features) with targets y (n,), ``np.nan`` marking unlabeled rows.

        preferences : PreferenceSet whose i, j index rows of X, or None (then this is SVR)."""
        X, y = self._training_data(X, y)
        preferences = _as_preferences(preferences)
        preferences.check_indices(X.shape[0])
        problem = self._fit_problem(X, y)
        if (
            self.warm_start
            and getattr(self, "_problem", None) is not None
            and _same(problem, self._problem)
            and preferences == self._lp.preferences
        ):
            self._set_solution(self._lp.set_regularization(self.lambda1, self.lambda2))
            return self
        lp = self._new_lp(X, y)
        solution = lp.solve_cold(preferences)  # a failure here leaves the last fit in place
        self._lp, self._problem = lp, problem
        self._set_solution(solution)
        return self

    def _fit_problem(self, X: np.ndarray, y: np.ndarray) -> tuple:
        """What a warm start must find unchanged: the data and every setting but lambda1, lambda2."""
        return (
            X,
            y,
            self.kernel,
            self.gamma,
            self.degree,
            self.coef0,
            self.epsilon,
            self.centers,
            self.method,
            self.time_limit,
        )

    def _new_lp(self, X: np.ndarray, y: np.ndarray) -> IncrementalOrderPreferenceLP:
        """The LP over X (n, n_features) and the labeled rows of y (n,), not yet solved."""
        labeled = np.flatnonzero(~np.isnan(y))
        return IncrementalOrderPreferenceLP(
            X,
            labeled,
            y[labeled],
            self._kernel(),
            lambda1=self.lambda1,
            lambda2=self.lambda2,
            epsilon=self.epsilon,
            centers=self.centers,
            method=self.method,
            time_limit=self.time_limit,
        )

    def branch(self, lambda1: float, lambda2: float) -> OrderPreferenceRegressor:
        """A new fitted regressor at (lambda1, lambda2), every other parameter, the data and the
        preferences this one's, solved from this fit's optimal basis and working set in a HiGHS
        instance of its own (``IncrementalOrderPreferenceLP.branch``): the same optimum as a cold fit,
        found faster.  This one is left as it was; each re-solves warm on its own from then on.  The
        constructor's checks apply to lambda1 and lambda2 (HiGHS's words for a negative, NaN or
        infinite one were no help)."""
        check_is_fitted(self)
        branched = clone(self).set_params(lambda1=lambda1, lambda2=lambda2)
        branched._validate_params()
        if self._lp._highs is None:  # read from a file or unpickled: no basis to start from
            return branched.fit(*self._problem[:2], self.preferences_)
        lp, solution = self._lp.branch(lambda1, lambda2)
        branched._lp, branched._problem = lp, self._problem
        branched.n_features_in_ = self.n_features_in_
        if hasattr(self, "feature_names_in_"):
            branched.feature_names_in_ = self.feature_names_in_
        branched._set_solution(solution)
        return branched

    def update_preferences(self, preferences: PreferenceSet):
        """Make ``preferences`` the set in force: a warm re-solve when it extends the current set or
        is a prefix of it (an answer added, an undo), a cold solve on the same X and y otherwise
        (a rule removed).  A model read from a file keeps no solver state: its first change solves cold."""
        check_is_fitted(self)
        preferences = _as_preferences(preferences)
        current, n = self._lp.preferences, len(preferences)
        if n >= len(current) and preferences[: len(current)] == current:
            if n > len(current):
                self._extend(preferences, len(current))
        elif current[:n] == preferences:
            self.remove_preferences(np.arange(n, len(current)))
        else:
            self.fit(self._problem[0], self._problem[1], preferences)
        return self

    def add_preferences(self, preferences: PreferenceSet):
        """Add preferences (indices into the X given to ``fit``) and re-solve warm."""
        check_is_fitted(self)
        preferences = _as_preferences(preferences)
        preferences.check_indices(self._lp.X.shape[0])
        self._set_solution(self._lp.add(preferences))
        return self

    def _extend(self, preferences: PreferenceSet, first: int) -> None:
        """Make ``preferences``, the set in force with more from ``first`` on, the set in force: a warm
        re-solve handed the whole set, so that it is not copied again."""
        added = preferences[first:]
        added.check_indices(self._lp.X.shape[0])
        self._set_solution(self._lp.add(added, preferences))

    def remove_preferences(self, positions):
        """Remove the preferences at ``positions`` of ``preferences_`` (e.g. ``-1`` to undo the
        last) and re-solve warm."""
        check_is_fitted(self)
        self._set_solution(self._lp.remove(positions))
        return self

    def _set_solution(self, solution: LPSolution) -> None:
        self.centers_ = self._lp.X[solution.center_rows]
        self.dual_coef_ = solution.dual_coef
        self.intercept_ = solution.intercept
        self.objective_ = solution.objective
        self.solve_time_ = solution.seconds
        self.n_iter_ = solution.iterations
        self.solve_start_ = solution.start
        self.preferences_ = self._lp.preferences
        self.violation_ = solution.violation
        self.violated_ = solution.violation > VIOLATION_TOLERANCE * self._lp.scaling.scale
        self.n_violated_ = int(np.count_nonzero(self.violated_))

    # What a model file keeps (ordercore/models/files.py): entry -> (dtype, shape in named dimensions).
    _saved_arrays = {
        "X": ("float64", ("n_samples", "n_features")),
        "y": ("float64", ("n_samples",)),
        "center_rows": ("int64", ("n_centers",)),
        "dual_coef": ("float64", ("n_centers",)),
        "preferences": ("preferences", ("n_preferences",)),
        "violation": ("float64", ("n_preferences",)),
    }
    _saved_scalars = {"intercept": float, "objective": float, "solve_time": float, "n_iter": int, "solve_start": str}

    def _saved_state(self) -> tuple[dict, dict]:
        """The arrays and scalars declared in ``_saved_arrays`` and ``_saved_scalars``."""
        X, y = self._problem[:2]
        arrays = {
            "X": X,
            "y": y,
            "center_rows": self._lp.center_rows,
            "dual_coef": self.dual_coef_,
            "preferences": self.preferences_,
            "violation": self.violation_,
        }
        scalars = {
            "intercept": float(self.intercept_),
            "objective": float(self.objective_),
            "solve_time": float(self.solve_time_),
            "n_iter": int(self.n_iter_),
            "solve_start": self.solve_start_,
        }
        return arrays, scalars

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        """The fit ``_saved_state`` described, over an LP rebuilt on its X and y but not solved."""
        X, y, rows, preferences = self._saved_inputs(arrays)
        self._lp, self._problem = self._new_lp(X, y), self._fit_problem(X, y)
        self._lp.preferences, self._lp.center_rows = preferences, rows
        solution = LPSolution(
            center_rows=rows,
            dual_coef=arrays["dual_coef"],
            intercept=scalars["intercept"],
            objective=scalars["objective"],
            violation=arrays["violation"],
            iterations=scalars["n_iter"],
            seconds=scalars["solve_time"],
            start=scalars["solve_start"],
        )
        self._set_solution(solution)

    @property
    def _fit_X(self) -> np.ndarray:
        return self._lp.X

    @property
    def _target_scale(self) -> float:
        return self._lp.scaling.scale
