"""``TwoNormOrderPreferenceRegressor``: the 2-norm variant of kernel regression with order preferences
(Goldberg & Zhu, seed 001 eq. (7)) as a scikit-learn estimator.

Seed 001 states (7) and then replaces ||f||_H^2 by ||alpha||_1 to get the LP (9)-(13) that
``OrderPreferenceRegressor`` solves.  This estimator keeps (7): the RKHS norm, with the same
epsilon-insensitive label loss and shifted-hinge preference term, solved as the convex QP that
``two_norm_qp`` states and certifies (primal-dual interior point, duality-gap certificate).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from ordercore.lp.estimator import KernelPreferenceRegressor, OrderPreferenceRegressor, _as_preferences
from ordercore.lp.two_norm_qp import TwoNormSolution, solve_two_norm
from ordercore.preferences import VIOLATION_TOLERANCE, PreferenceSet


class TwoNormOrderPreferenceRegressor(KernelPreferenceRegressor):
    """Regression from few labels plus order preferences f(x_i) - f(x_j) >= d with weight w, with the
    RKHS norm as regulariser (seed 001 eq. (7)):

        min (1/l) sum_labeled |y_i - f(x_i)|_epsilon + (lambda1 / s) ||f||_H^2
            + (lambda2 / p) sum_q w_q max(d_q - (f(x_iq) - f(x_jq)), 0),
        f(x) = K(x, centers) alpha + alpha_0,   ||f||_H^2 = alpha^T K(centers, centers) alpha,

    s the labels' standard deviation (max(|median|, 1) if they are all equal; ``TargetScaling``): (7)
    on standardized targets, so that lambda1 is dimensionless
    as in ``OrderPreferenceRegressor`` (ordercore/lp/two_norm_qp.py says why).  A convex QP, solved
    exactly by an interior point in the kernel's feature space; every answer is certified by its
    duality gap.  Every solve is cold: adding or removing preferences refits.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly'}; gamma, degree, coef0 as in ``sklearn.metrics.pairwise``
        (gamma=None means 1 / n_features).
    lambda1 : float >= 1e-12, weight of ||f||_H^2 (in units of the labels' spread; smaller is lost to rounding).
    lambda2 : float >= 0, weight of the preference penalty; 0 gives 2-norm support vector regression.
    epsilon : float >= 0, width of the epsilon-insensitive loss, in units of y.
    centers : 'labeled' expands f over the labeled rows (seed 001 eq. (8)); 'all' also over every
        row a preference compares (seed 001 Theorem 1: then f is the minimiser over the whole RKHS).
    time_limit : seconds allowed to one solve, or None; exceeding it raises ``SolverTimeLimitError``.

    Attributes
    ----------
    centers_ : ndarray (m, n_features), the rows of X carrying dual coefficients.
    dual_coef_ : ndarray (m,), alpha.  intercept_ : float, alpha_0.
    objective_ : float, optimal value of the objective above, in the units of y.
    duality_gap_ : float, the relative duality gap certifying it (scaled units).
    solve_time_ : float, seconds of the last solve.  n_iter_ : its interior-point iterations.
    solve_start_ : str, always 'cold'.
    preferences_ : PreferenceSet in force.  violation_ : ndarray (p,), each preference's shortfall
        max(d - (f_i - f_j), 0) at the fit.  violated_ : bool ndarray (p,), shortfalls above
        tolerance; n_violated_ : int, their number.
    """

    # The 1-norm estimator's parameters, less its simplex options, and lambda1 > 0: lambda1 = 0 leaves
    # ||f|| unregularised (then the 1-norm LP, with lambda1 = 0, is the tool).
    _parameter_constraints: dict = {
        **{
            name: constraint
            for name, constraint in OrderPreferenceRegressor._parameter_constraints.items()
            if name not in ("method", "warm_start")
        },
        "lambda1": [Interval(Real, 0, None, closed="neither")],
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
        time_limit=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.epsilon = epsilon
        self.centers = centers
        self.time_limit = time_limit

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, preferences=None):
        """Fit on X (n, n_features) with targets y (n,), ``np.nan`` marking unlabeled rows.

        preferences : PreferenceSet whose i, j index rows of X, or None (then this is 2-norm SVR)."""
        X, y = self._training_data(X, y)
        preferences = _as_preferences(preferences)
        preferences.check_indices(X.shape[0])
        self._set_solution(X, y, preferences, self._solve(X, y, preferences))  # a failure keeps the last fit
        return self

    def _solve(self, X: np.ndarray, y: np.ndarray, preferences: PreferenceSet) -> TwoNormSolution:
        labeled = np.flatnonzero(~np.isnan(y))
        return solve_two_norm(
            X,
            labeled,
            y[labeled],
            preferences,
            self._kernel(),
            lambda1=self.lambda1,
            lambda2=self.lambda2,
            epsilon=self.epsilon,
            centers=self.centers,
            time_limit=self.time_limit,
        )

    def _set_solution(self, X: np.ndarray, y: np.ndarray, preferences: PreferenceSet, solution) -> None:
        self._X, self._y, self._scale = X, y, solution.scale
        self._center_rows = solution.center_rows
        self.centers_ = X[solution.center_rows]
        self.dual_coef_ = solution.dual_coef
        self.intercept_ = solution.intercept
        self.objective_ = solution.objective
        self.duality_gap_ = solution.gap
        self.solve_time_ = solution.seconds
        self.n_iter_ = solution.iterations
        self.solve_start_ = "cold"
        self.preferences_ = preferences
        self.violation_ = solution.violation
        self.violated_ = solution.violation > VIOLATION_TOLERANCE * solution.scale
        self.n_violated_ = int(np.count_nonzero(self.violated_))

    def update_preferences(self, preferences: PreferenceSet):
        """Make ``preferences`` the set in force: a cold refit on the X and y given to ``fit``."""
        check_is_fitted(self)
        preferences = _as_preferences(preferences)
        preferences.check_indices(self._X.shape[0])
        self._set_solution(self._X, self._y, preferences, self._solve(self._X, self._y, preferences))
        return self

    def add_preferences(self, preferences: PreferenceSet):
        """Add preferences (indices into the X given to ``fit``) and refit."""
        check_is_fitted(self)
        return self.update_preferences(self.preferences_ + _as_preferences(preferences))

    def remove_preferences(self, positions):
        """Remove the preferences at ``positions`` of ``preferences_`` (e.g. ``-1`` to undo the last)
        and refit."""
        check_is_fitted(self)
        try:
            kept = np.delete(np.arange(len(self.preferences_)), positions)
        except IndexError:
            raise ValueError(f"no preference at positions {positions!r}; there are {len(self.preferences_)}") from None
        return self.update_preferences(self.preferences_[kept])

    # What a model file keeps (ordercore/models/files.py): entry -> (dtype, shape in named dimensions).
    _saved_arrays = OrderPreferenceRegressor._saved_arrays  # the same arrays: X, y, the solution
    _saved_scalars = {
        "intercept": float,
        "objective": float,
        "scale": float,
        "duality_gap": float,
        "solve_time": float,
        "n_iter": int,
    }

    def _saved_state(self) -> tuple[dict, dict]:
        """The arrays and scalars declared in ``_saved_arrays`` and ``_saved_scalars``."""
        arrays = {
            "X": self._X,
            "y": self._y,
            "center_rows": self._center_rows,
            "dual_coef": self.dual_coef_,
            "preferences": self.preferences_,
            "violation": self.violation_,
        }
        scalars = {
            "intercept": float(self.intercept_),
            "objective": float(self.objective_),
            "scale": float(self._scale),
            "duality_gap": float(self.duality_gap_),
            "solve_time": float(self.solve_time_),
            "n_iter": int(self.n_iter_),
        }
        return arrays, scalars

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        """The fit ``_saved_state`` described, without solving."""
        X, y, rows, preferences = self._saved_inputs(arrays)
        if not scalars["scale"] > 0:
            raise ValueError(f"the target scale must be > 0, got {scalars['scale']!r}")
        solution = TwoNormSolution(
            center_rows=rows,
            dual_coef=arrays["dual_coef"],
            intercept=scalars["intercept"],
            objective=scalars["objective"],
            violation=arrays["violation"],
            scale=scalars["scale"],
            gap=scalars["duality_gap"],
            iterations=scalars["n_iter"],
            seconds=scalars["solve_time"],
        )
        self._set_solution(X, y, preferences, solution)

    @property
    def _fit_X(self) -> np.ndarray:
        return self._X

    @property
    def _target_scale(self) -> float:
        return self._scale
