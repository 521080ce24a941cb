"""CC-SVM: constraint classification with a support vector machine (Har-Peled, Roth & Zimak 2002), the
comparator of seed 002 (Chu & Ghahramani, *Preference Learning with Gaussian Processes*, ICML 2005, §4).

Each instance preference x_i ≻ x_j becomes two binary examples on the pair, (φ(x_i) − φ(x_j), +1) and
(φ(x_j) − φ(x_i), −1).  Their kernel is the pairwise kernel

    K((a, b), (c, d)) = k(a, c) − k(a, d) − k(b, c) + k(b, d),

and the SVM's dual solution α gives the score f(x) = Σ_m α_m y_m (k(x, a_m) − k(x, b_m)), which orders
instances.  k is seed 002's Gaussian kernel (2), k(x, x') = exp(−κ/2 |x − x'|²), or the linear kernel.
The dual is solved by libsvm's SMO (``SVC(kernel="precomputed")``, the default), or, with ``solver="qp"``,
by HiGHS's general-purpose QP solver (seed 002 does not name its solver; Fig. 2 times it).

C and κ are chosen as in seed 002 §4: 5-fold cross validation (here over the training pairs, scored by
the share of held-out pairs ordered wrong), first on a 7 × 7 coarse grid spaced by 1.0 in
(log10 C, log10 κ), then on a 9 × 9 grid spaced by 0.2 around the best coarse point.  The seed's text
of the coarse region is unreadable; the region is that of Chu & Keerthi's SVOR experiments by the same
first author, −3 ≤ log10 C, log10 κ ≤ 3.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.model_selection import KFold
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ordercore.exceptions import SolverError
from ordercore.gp.estimator import preferences_from_scores, standardisation
from ordercore.inputs.fit_inputs import validate_data
from ordercore.lp.highs import solve_qp
from ordercore.preferences import PreferenceSet

COARSE_LOG10 = np.arange(-3.0, 3.5, 1.0)
"""The coarse grid of log10 C and of log10 κ: 7 values spaced by 1.0."""
FINE_OFFSETS = np.arange(-0.8, 0.85, 0.2)
"""The fine grid around the best coarse point: 9 values spaced by 0.2 (log10)."""
FOLDS = 5
SVC_TOLERANCE = 1e-4
"""libsvm's stopping tolerance on the KKT gap (scikit-learn's default 1e-3 leaves pair scores of tiny
problems visibly off the exact dual solution)."""
SOLVERS = ("libsvm", "qp")
"""Solvers of the dual: libsvm's SMO, or HiGHS's active-set QP (``qp_dual``)."""
QP_RIDGES = (0.0, 1e-7, 1e-5)
"""Curvatures added to the QP's Hessian, relative to its largest diagonal entry, tried in turn.  Q is
degenerate (rank at most the instances' count; each mirror repeats a row), and HiGHS's active set may
call it non-convex or cycle at the optimum: on one Fig. 2 problem (p = 1000) it ran over 4 minutes with
the ridge 1e-9 (1e-5 had not ended after 2,600 iterations), and took 0.3 s and 1,300-1,400 iterations with
none or 1e-7."""
QP_ITERATIONS_PER_VARIABLE = 5
"""An attempt stops after 5 active-set iterations per variable (+ 1000); those that end take under 1.5."""
SUPPORT_FLOOR = 1e-9
"""α below this share of C counts as zero in the QP's solution (HiGHS leaves bounds within rounding)."""


def pairwise_kernel(K: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The pairwise kernel (m, m) of m pairs (a_m, b_m) = (first, second), rows of the instance kernel K."""
    # K((a, b), (c, d)) = k(a, c) − k(a, d) − k(b, c) + k(b, d)
    return K[np.ix_(first, first)] - K[np.ix_(first, second)] - K[np.ix_(second, first)] + K[np.ix_(second, second)]


def doubled_pairs(winner: np.ndarray, loser: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 2p binary examples of p preferences winner ≻ loser: rows (a, b) (2p,) each and labels y (2p,),
    +1 for (winner, loser) and −1 for (loser, winner)."""
    first, second = np.concatenate([winner, loser]), np.concatenate([loser, winner])
    return first, second, np.concatenate([np.ones(winner.size), -np.ones(winner.size)])


def qp_dual(K: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, int]:
    """α (m,) of the binary SVM's dual on a kernel K (m, m) and labels y (m,), by HiGHS's QP solver:
    min ½ αᵀQα − 1ᵀα over 0 ≤ α ≤ C, yᵀα = 0, with Q = (y yᵀ) ∘ K (plus a ridge of ``QP_RIDGES`` on its
    diagonal, the next after a failed attempt), and the attempts it took."""
    m = y.size
    Q = y[:, None] * K * y[None, :]
    scale, diagonal = max(float(Q.diagonal().max()), np.finfo(float).tiny), Q.diagonal().copy()
    for attempt, ridge in enumerate(QP_RIDGES, start=1):
        Q[np.diag_indices(m)] = diagonal + ridge * scale
        try:
            alpha = solve_qp(Q, -np.ones(m), y[None, :], (np.zeros(m), np.full(m, C)), ([0.0], [0.0]),
                             iteration_limit=QP_ITERATIONS_PER_VARIABLE * m + 1000)  # fmt: skip
        except SolverError:
            if attempt == len(QP_RIDGES):
                raise
            continue
        return np.where(alpha > SUPPORT_FLOOR * C, np.minimum(alpha, C), 0.0), attempt


def instance_coefficients(dual_coef: np.ndarray, first, second, n_instances: int) -> np.ndarray:
    """c (n_instances,) with f(x) = Σ_n c_n k(x, x_n): c_n = Σ_m α_m y_m ([a_m = n] − [b_m = n])."""
    return np.bincount(first, dual_coef, n_instances) - np.bincount(second, dual_coef, n_instances)


class ConstraintClassificationSVM(BaseEstimator):
    """CC-SVM over instance preferences: ``fit(X, preferences)``, then ``decision_function(X)`` = f(x).

    Parameters
    ----------
    kernel : 'rbf' (seed 002's Gaussian kernel (2)) or 'linear'.
    C : float > 0, the SVM's regularisation factor.
    kappa : float > 0, κ of the Gaussian kernel exp(−κ/2 |x − x'|²); unused by 'linear'.
    normalize : bool, standardise features by the mean and standard deviation of the X given to fit.
    solver : 'libsvm' (SMO, the default) or 'qp' (HiGHS's general-purpose QP solver); the same dual.

    Attributes
    ----------
    instances_ : ndarray (N,), the rows of the fit's X that preferences mention.
    coef_ : ndarray (N,), c with f(x) = Σ_n c_n k(x, x_n) over those rows.
    n_support_ : int, the binary examples with α > 0.
    solve_seconds_ : float, CPU seconds of the SVM's quadratic programme alone (from the pairwise kernel).
    solve_attempts_ : int, the solver's attempts (libsvm: 1; 'qp': ridges tried, ``QP_RIDGES``).
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions({"rbf", "linear"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "kappa": [Interval(Real, 0, None, closed="neither")],
        "normalize": ["boolean"],
        "solver": [StrOptions(set(SOLVERS))],
    }

    def __init__(self, *, kernel="rbf", C=1.0, kappa=1.0, normalize=True, solver="libsvm"):
        self.kernel = kernel
        self.C = C
        self.kappa = kappa
        self.normalize = normalize
        self.solver = solver

    def _k(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        if self.kernel == "linear":
            return linear_kernel(X, Y)
        return rbf_kernel(X, Y, gamma=0.5 * self.kappa)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, preferences):
        """Fit on X (n, n_features) and a ``PreferenceSet`` over its rows (or scores y (n,): every pair
        of rows with different scores); margins and weights are ignored, as in seed 002."""
        X = validate_data(self, X, dtype=np.float64)
        preferences = _checked_preferences(preferences, X.shape[0])
        self._mean, self._scale = standardisation(X, self.normalize)
        self.instances_, inverse = np.unique(np.concatenate([preferences.i, preferences.j]), return_inverse=True)
        winner, loser = inverse[: len(preferences)], inverse[len(preferences) :]
        self._inputs = (X[self.instances_] - self._mean) / self._scale
        first, second, y = doubled_pairs(winner, loser)
        K = pairwise_kernel(self._k(self._inputs, self._inputs), first, second)
        start = time.process_time()
        signed, self.solve_attempts_ = self._signed_duals(K, y)
        self.solve_seconds_ = time.process_time() - start
        self.coef_ = instance_coefficients(signed, first, second, self.instances_.size)
        self.n_support_ = int(np.count_nonzero(signed))
        return self

    def _signed_duals(self, K: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
        """α_m y_m (m,) of the dual's solution on the pairwise kernel K (m, m), labels y (m,); attempts."""
        if self.solver == "qp":
            alpha, attempts = qp_dual(K, y, self.C)
            return alpha * y, attempts
        svc = SVC(kernel="precomputed", C=self.C, tol=SVC_TOLERANCE).fit(K, y)
        signed = np.zeros(y.size)
        signed[svc.support_] = svc.dual_coef_[0]  # α_m y_m of the support examples
        return signed, 1

    def decision_function(self, X) -> np.ndarray:
        """The score f(x) = Σ_n c_n k(x, x_n), shape (n,): a higher score is preferred."""
        check_is_fitted(self)
        X = (validate_data(self, X, dtype=np.float64, reset=False) - self._mean) / self._scale
        return self._k(X, self._inputs) @ self.coef_

    predict = decision_function


def _checked_preferences(preferences, n_samples: int) -> PreferenceSet:
    """A PreferenceSet over rows of an X with n_samples rows, with at least one pair."""
    if not isinstance(preferences, PreferenceSet):
        if np.shape(preferences) != (n_samples,):  # before preferences_from_scores checks the values
            raise ValueError(f"scores y must have shape ({n_samples},) to match X, got {np.shape(preferences)}")
        preferences = preferences_from_scores(preferences)
    preferences.check_indices(n_samples)
    if preferences.is_unary.any():
        raise ValueError("CC-SVM learns from pairs of rows; unary bounds (ZERO) have no pair")
    if len(preferences) == 0:
        raise ValueError(f"CC-SVM learns from pairs of rows: none given (n_samples = {n_samples})")
    return preferences


def pair_error(scores: np.ndarray, winner: np.ndarray, loser: np.ndarray) -> float:
    """The share of pairs winner ≻ loser whose scores (n,) order them wrong; a tie counts as wrong."""
    return float(np.mean(scores[winner] <= scores[loser]))


def _cv_errors(X, winner, loser, candidates, kernel: str, normalize: bool, rng) -> np.ndarray:
    """Mean 5-fold held-out pair error of each (C, κ) in candidates (m, 2), shape (m,)."""
    folds = KFold(FOLDS, shuffle=True, random_state=int(rng.integers(2**31 - 1))).split(winner)
    errors = np.zeros(len(candidates))
    for train, test in folds:
        for index, (C, kappa) in enumerate(candidates):
            model = ConstraintClassificationSVM(kernel=kernel, C=C, kappa=kappa, normalize=normalize)
            scores = model.fit(X, PreferenceSet(winner[train], loser[train])).decision_function(X)
            errors[index] += pair_error(scores, winner[test], loser[test]) / FOLDS
    return errors


def select_by_cross_validation(
    X, winner, loser, rng, kernel: str = "rbf", quick: bool = False, normalize: bool = True
) -> dict:
    """seed 002 §4's choice of (C, κ): the 7 × 7 coarse grid, then the 9 × 9 fine one around its best
    (with 'linear', C alone: 7 then 9 values).  ``quick``: a 3-point coarse grid and no fine search.
    Returns {'C', 'kappa', 'cv_error'}."""
    coarse = COARSE_LOG10[::3] if quick else COARSE_LOG10
    kappas = [0.0] if kernel == "linear" else coarse
    grid = np.array([(c, k) for c in coarse for k in kappas])
    errors = _cv_errors(X, winner, loser, 10.0**grid, kernel, normalize, rng)
    best = grid[int(np.argmin(errors))]
    if not quick:
        fine_kappas = [0.0] if kernel == "linear" else best[1] + FINE_OFFSETS
        grid = np.array([(best[0] + c, k) for c in FINE_OFFSETS for k in fine_kappas])
        errors = _cv_errors(X, winner, loser, 10.0**grid, kernel, normalize, rng)
        best = grid[int(np.argmin(errors))]
    C, kappa = 10.0**best
    return {"C": float(C), "kappa": float(kappa), "cv_error": float(np.min(errors))}
