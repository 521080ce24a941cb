"""``NPSVOR``: linear nonparallel support vector ordinal regression trained by dual coordinate descent
(Shi, Wang, Shen & Niu, *A Novel Large-scale Ordinal Regression Model* — seed 004) as a scikit-learn
estimator."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ordercore.inputs.fit_inputs import (
    LabelsScored,
    NumbersNotBooleans,
    check_rows,
    finite_labels,
    ordinal_labels,
    validate_data,
)
from ordercore.inputs.ordinal_ranks import declared_classes, declared_ranks, ordinal_classes, refuse_continuous
from ordercore.models.files import save_model
from ordercore.npsvor.problem import PREDICTION_RULES, SOLVERS
from ordercore.npsvor.solver import NPSVORSolution, solve_npsvor
from ordercore.numerics.magnitudes import check_kernel_input

PAPER_EPSILON_S = 0.1
"""ε_s of the stopping rule ‖vᵗ‖₁ < ε_s ‖v⁰‖₁ (eq. (31)): 0.1, the authors' code's default for NPSVOR."""

PAPER_MAX_ITER = 1000
"""Cap on sweeps over the data per rank: the authors' code's (and LIBLINEAR's) 1000."""

MAX_INTERCEPT_SCALING = 1e6
"""The largest ``intercept_scaling`` b.  The constant feature's b² enters every A_i = x_iᵀx_i + b² (eq. (10))
and its weight every step: from b ≈ 1e2 the descent already needs more than 1,000 sweeps on unit-scale
features, beyond 1/√ε ≈ 1e8 such features' share of A_i is below float64's precision, and beyond 1e154 b²
overflows; the fit then ignores x (1e300 predicted one rank for every row).  1e6 leaves b² = 1e12
with a unit feature still in the sums."""


class NPSVOR(NumbersNotBooleans, LabelsScored, ClassifierMixin, BaseEstimator):
    """One hyperplane f_k(x) = w_kᵀx + b_k per rank k, each from its own problem (eq. (2)/(4)): the
    rows of rank k held within the ε-tube |f_k(x)| ≤ ε (penalty C1), rows of lower ranks pushed to
    f_k(x) ≤ −1 and of higher ranks to f_k(x) ≥ +1 (penalty C2).  Each problem's dual is solved by dual
    coordinate descent (DCD-2, Algorithm 2, or DCD-1, Algorithm 1) over the rows of X, dense or CSR.

    The ranks are the sorted distinct labels of y (``classes_``: any K ≥ 2 orderable labels; numbers
    need not be consecutive; text that reads as numbers orders as those numbers, '2' before '10':
    ``ordinal_classes``), or an ordered pandas Categorical y's categories in their declared order.

    Parameters
    ----------
    C : float > 0, C1 = C2 = C unless ``C1`` or ``C2`` is given.
    C1, C2 : float > 0 or None, the penalties of eq. (2) on the tube (rank k's rows) and on the
        margins (the other ranks' rows).
    epsilon : float >= 0, ε, the tube's half-width (the paper's 0.1).
    solver : {'dcd2', 'dcd1'}: Algorithm 2 (one dual variable per row, soft-thresholding) or
        Algorithm 1 (LIBLINEAR's DCD extended directly: two variables per row of the rank).
    prediction : {'order', 'nearest'}: rule (36), r(x) = 1 + Σ_k I(f_k(x) + f_{k+1}(x) > 0), or
        rule (5), the rank whose hyperplane is nearest, argmin_k |f_k(x)|.
    epsilon_s : float > 0, ε_s of the stopping rule ‖vᵗ‖₁ < ε_s ‖v⁰‖₁ (eq. (31)).
    max_iter : int >= 1, cap on the sweeps over the data per rank; a rank that reaches it before the
        stopping rule (31) is met warns (``ConvergenceWarning``, as LIBLINEAR's estimators: n_iter_ = max_iter).
    fit_intercept : bool, augment x with a constant feature ``intercept_scaling`` (§3: x ← [x, 1]);
        its weight is regularised with w as in the paper.  False: f_k(x) = w_kᵀx.
    intercept_scaling : float in (0, 1e6], the constant feature's value (``MAX_INTERCEPT_SCALING``).
    warm_start : bool, start from the previous fit's duals when its ranks are the same and X has at
        least as many rows (the rows it saw first, new rows appended), as when the data grow.
    random_state : int, RandomState or None, the coordinates' visiting order (Algorithm 2, line 5).
    n_jobs : int or None, ranks solved at once, in threads (the K problems are independent; the fit
        is the same for any n_jobs).  None: 1, or joblib's ``parallel_config(n_jobs=...)`` when set,
        as in scikit-learn (1 by default so that fits run inside parallel cross-validation do not
        oversubscribe the cores); -1: all cores, -2 all but one, and so on (0 is refused).

    Attributes
    ----------
    classes_ : ndarray (K,), the ranks in order.  coef_ : ndarray (K, n_features), w_k.
    intercept_ : ndarray (K,), b_k.  dual_coef_ : ndarray (K, n_samples), α of eq. (20) per rank.
    n_iter_ : ndarray (K,), sweeps made per rank.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "C1": [Interval(Real, 0, None, closed="neither"), None],
        "C2": [Interval(Real, 0, None, closed="neither"), None],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions(set(SOLVERS))],
        "prediction": [StrOptions(set(PREDICTION_RULES))],
        "epsilon_s": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, MAX_INTERCEPT_SCALING, closed="right")],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"), None],
    }
    _later_params = {"n_jobs"}  # model files written before it was added load with its default

    def __init__(
        self,
        *,
        C=1.0,
        C1=None,
        C2=None,
        epsilon=0.1,
        solver="dcd2",
        prediction="order",
        epsilon_s=PAPER_EPSILON_S,
        max_iter=PAPER_MAX_ITER,
        fit_intercept=True,
        intercept_scaling=1.0,
        warm_start=False,
        random_state=None,
        n_jobs=None,
    ):
        self.C = C
        self.C1 = C1
        self.C2 = C2
        self.epsilon = epsilon
        self.solver = solver
        self.prediction = prediction
        self.epsilon_s = epsilon_s
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit on X (n, n_features), dense or CSR, and ordinal labels y (n,) with at least 2 ranks."""
        check_rows(X)
        ordinal_labels(y)
        finite_labels(y, "fit")
        declared = declared_classes(y)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        refuse_continuous(y, "NPSVOR")
        check_classification_targets(y)
        classes, ranks = ordinal_classes(y, "NPSVOR") if declared is None else declared_ranks(y, declared)
        if classes.size < 2:
            raise ValueError(f"NPSVOR needs y with at least 2 ranks; got {classes.size} class")
        X = sp.csr_matrix(X)
        check_kernel_input(X, "linear")  # x_iᵀx_i and wᵀx overflowed silently from |x| near 1e154
        if not X.has_canonical_format:  # duplicate entries would skew A_i = x_iᵀx_i
            X = X.copy()
            X.sum_duplicates()
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max - classes.size)
        solution = solve_npsvor(
            X,
            ranks.astype(np.int64),
            classes.size,
            C1=float(self.C if self.C1 is None else self.C1),
            C2=float(self.C if self.C2 is None else self.C2),
            epsilon=float(self.epsilon),
            solver=self.solver,
            epsilon_s=float(self.epsilon_s),
            max_iter=int(self.max_iter),
            bias=float(self.intercept_scaling) if self.fit_intercept else 0.0,
            seed=int(seed),
            warm_start=self._warm_solution(classes, X.shape[0]),
            n_threads=effective_n_jobs(self.n_jobs),
        )
        self.classes_, self._class_order = classes, "sorted" if declared is None else "declared"
        self._set_solution(solution)
        short = self.classes_[self.n_iter_ >= self.max_iter]
        if short.size:
            warnings.warn(
                f"NPSVOR stopped at max_iter={self.max_iter} sweeps before its stopping rule (31) was met for "
                f"rank{'s' if short.size > 1 else ''} {', '.join(map(str, short.tolist()))}: the fit is not "
                "converged; increase max_iter or epsilon_s",
                ConvergenceWarning,
                stacklevel=3,  # the caller of fit, past scikit-learn's _fit_context
            )
        return self

    def _set_solution(self, solution: NPSVORSolution) -> None:
        """The fitted attributes of ``solution`` (a fit's or a model file's)."""
        self._solution = solution
        self.coef_ = solution.weights[:, :-1]
        self.intercept_ = solution.weights[:, -1] * (self.intercept_scaling if self.fit_intercept else 0.0)
        self.dual_coef_ = solution.dual
        self.n_iter_ = solution.n_iter

    def _warm_solution(self, classes: np.ndarray, n_samples: int) -> NPSVORSolution | None:
        """The previous fit's solution when ``warm_start`` applies to this data, else None."""
        previous = getattr(self, "_solution", None)
        if not self.warm_start or previous is None or previous.dual.shape[1] > n_samples:
            return None
        if not np.array_equal(self.classes_, classes):
            return None
        return previous

    def decision_function(self, X) -> np.ndarray:
        """f_k(x) = w_kᵀx + b_k for every rank, shape (n, K): x's signed position from each rank's
        hyperplane (negative: below rank k; positive: above it; |f_k| ≤ ε: within its tube)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_

    def predict(self, X) -> np.ndarray:
        """The rank of each row of X by ``prediction``'s rule, shape (n,), values from ``classes_``."""
        check_is_fitted(self)
        return self.classes_[PREDICTION_RULES[self.prediction](self.decision_function(X))]

    def save(self, path, preprocessing=None, metadata=None) -> None:
        """Write the fit to ``path`` (.npz, no pickle; see ``ordercore.models.files.save_model``)."""
        save_model(path, self, preprocessing, metadata)

    # What a model file keeps (ordercore/models/files.py): entry -> (dtype, shape in named dimensions).
    # The duals and ‖v⁰‖₁ come along so that a loaded model warm-starts as the one in memory would.
    _saved_arrays = {
        "weights": ("float64", ("n_ranks", "n_weights")),
        "dual": ("float64", ("n_ranks", "n_samples")),
        "n_iter": ("int64", ("n_ranks",)),
        "initial_violation": ("float64", ("n_ranks",)),
    }
    _saved_scalars = {"classes": list, "class_order": str}
    _later_scalars = {"class_order": "sorted"}

    def _saved_state(self) -> tuple[dict, dict]:
        order = getattr(self, "_class_order", "sorted")
        return dict(self._solution._asdict()), {"classes": self.classes_.tolist(), "class_order": order}

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        """The fit ``_saved_state`` described, checked: one weight per feature and the bias feature's,
        finite, and one label (number or text, in increasing order) per rank."""
        solution = NPSVORSolution(**arrays)
        (n_ranks, n_weights), expected = solution.weights.shape, scalars["n_features_in"] + 1
        if n_weights != expected:
            raise ValueError(f"weights must have n_features + 1 = {expected} columns, got {n_weights}")
        if not all(np.isfinite(solution[i]).all() for i in (0, 1, 3)) or (solution.n_iter < 0).any():
            raise ValueError("the saved weights and duals must be finite and the sweep counts >= 0")
        classes = np.asarray(scalars["classes"])
        if classes.shape != (n_ranks,) or n_ranks < 2 or classes.dtype.kind not in "biufU":
            raise ValueError(f"classes must be one label (number or text) per rank: {scalars['classes']!r}")
        with warnings.catch_warnings():  # the fit warned of an alphabetical order already
            warnings.simplefilter("ignore", UserWarning)
            sorted_classes = ordinal_classes(classes, "NPSVOR")[0]
            in_order = scalars["class_order"] == "declared" or np.array_equal(sorted_classes, classes)
        if scalars["class_order"] not in ("sorted", "declared"):
            raise ValueError(f"class_order must be 'sorted' or 'declared', got {scalars['class_order']!r}")
        if np.unique(classes).size < n_ranks or not in_order:
            raise ValueError(f"classes must be in increasing order, as the ranks are: {scalars['classes']!r}")
        self.classes_, self._class_order = classes, scalars["class_order"]
        self._set_solution(solution)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
