"""``AveragedOrderPreferenceRegressor``: a weighted average of order-preference LPs that differ only in
(lambda1, lambda2), the model automatic trust fits (``trust.Blend``, issue 14): SVR mixed with SSL
averaged along a lambda2 path.

Averaging the fits of a path, rather than choosing one of them by cross-validation on 60 labels,
is what made the preferences' gain reliable: the choice of one setting is noisy (4 of 8 repeats
changed a bedroom-rule gain from 5.2 % to 3.9 %), the average is not (docs/REPRODUCTION.md,
"Automatic trust").  Every member shares X, y, the kernel and the centers, so f is again a kernel
expansion; the members are kept apart so that each re-solves warm when a preference is added.

``fit_lambda_path`` fits the members of a path on one data set in turn, each from the previous one's
optimal basis and working set in a HiGHS instance of its own (only the LP's bounds differ between
them, docs/LP.md "The lambda path"): the same optima as cold fits, found faster.  It is what
``AveragedOrderPreferenceRegressor.fit`` does (automatic trust's folds keep no members: they walk one
instance warm instead, which is cheaper there).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import ThreadpoolController

from ordercore.lp.engine import CENTERS
from ordercore.lp.estimator import KernelPreferenceRegressor, OrderPreferenceRegressor, _as_preferences
from ordercore.lp.highs import SIMPLEX_STRATEGIES
from ordercore.numerics.kernels import KERNELS

WORKERS = min(2, os.cpu_count() or 1)
"""Threads a blend's fit and its clicks use: the members re-solve independently, and HiGHS's run and
numpy's large operations release the GIL."""


@functools.cache
def click_workers() -> ThreadPoolExecutor:
    """The ``WORKERS`` threads a blend's clicks re-solve its members on, started once: starting two
    threads per click took 5-10 ms of its 150 ms budget at 500,000 preferences (``bench/click_bench.py``)."""
    return ThreadPoolExecutor(WORKERS, thread_name_prefix="blend-click")


@functools.cache
def _blas() -> ThreadpoolController:
    """numpy's and scipy's BLAS (threadpoolctl), looked up once: a lookup takes ~3 ms, a click's budget."""
    return ThreadpoolController().select(user_api="blas")


_blas_lock, _blas_users, _blas_limiter = threading.Lock(), 0, None


@contextlib.contextmanager
def one_blas_thread():
    """BLAS on one thread inside, for every thread of the process, restored when the last of the calls
    inside at once leaves.  The members' solves keep both cores busy; BLAS's workers, spinning after
    each product of the pricing, took 16 % of the path's samples in a profile (498,791 preferences:
    CPU 26.3 s against 30.2 s, wall 31.2 s against 35.8 s, medians of 4 interleaved, load 5-7)."""
    global _blas_users, _blas_limiter
    with _blas_lock:
        if not _blas_users:
            _blas_limiter = _blas().limit(limits=1)
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if not _blas_users:
                _blas_limiter.restore_original_limits()


def _numbers(values, name: str) -> np.ndarray:
    """values as float64 (flattened); ``ValueError`` naming ``name`` and the first entry that is no real number
    (text, True read as 1, a complex number)."""
    cells = list(np.ravel(np.asarray(values, dtype=object)))
    bad = next((cell for cell in cells if not isinstance(cell, Real) or isinstance(cell, bool | np.bool_)), None)
    if bad is not None:
        raise ValueError(f"{name} must hold numbers, got {bad!r}")
    return np.asarray(cells, dtype=np.float64)


def _check_mixture(settings, weights) -> tuple[np.ndarray, np.ndarray]:
    """settings (k, 2) of (lambda1 >= 0, lambda2 >= 0) and weights (k,), non-negative, summing to 1."""
    settings, weights = _numbers(settings, "settings"), _numbers(weights, "weights")
    if settings.size % 2:
        raise ValueError(f"settings must be (lambda1, lambda2) pairs, got {settings.size} numbers")
    settings = settings.reshape(-1, 2)
    if len(settings) == 0 or weights.shape != (len(settings),):
        raise ValueError(f"need one weight per (lambda1, lambda2) setting, got {len(weights)} for {len(settings)}")
    if not (np.all(np.isfinite(settings)) and np.all(settings >= 0)):
        raise ValueError(f"every lambda1 and lambda2 must be finite and >= 0, got {settings.tolist()}")
    if not (np.all(np.isfinite(weights)) and np.all(weights >= 0) and abs(weights.sum() - 1) < 1e-9):
        raise ValueError(f"weights must be >= 0 and sum to 1, got {weights.tolist()}")
    return settings, weights


@one_blas_thread()
def fit_lambda_path(X, y, preferences, settings, *, workers=1, **options) -> list[OrderPreferenceRegressor]:
    """One fitted ``OrderPreferenceRegressor`` per (lambda1, lambda2) of ``settings`` (k, 2), in that
    order, on X (n, n_features), y (n,) (NaN: unlabeled) and ``preferences`` (a PreferenceSet or None),
    ``options`` the other parameters (kernel, gamma, centers, time_limit, ...).  The first setting is
    fitted cold, each other one branched from a member fitted before (``OrderPreferenceRegressor.branch``),
    so put them in order with the cheapest cold fit first (lambda2 ascending: the weakest preferences
    fix most of them at once).  workers=1: each from the one before.  workers=2, two threads (HiGHS and
    numpy's large operations release the GIL): the middle member from the first while the ones between
    walk up from it; then the last from the middle while the ones between walk up from the middle.  A
    step over a tenfold lambda2 costs less than the two steps of the walk over it (at 498,791
    preferences: 0.3 -> 3 8.8 s CPU, against 4.3 + 7.7 s by 1; docs/LP.md, "The lambda path").  A
    member with lambda2 = 0 takes the preferences too (its boxes are 0 <= mu <= 0): the same f as
    SVR; fit it without them if its ``preferences_`` must be empty."""
    settings = np.asarray(settings, dtype=np.float64).reshape(-1, 2)
    if not len(settings):
        return []
    members = [None] * len(settings)
    members[0] = OrderPreferenceRegressor(lambda1=settings[0, 0], lambda2=settings[0, 1], **options)
    members[0].fit(X, y, preferences)

    def walk(task) -> None:
        start, chain = task
        for previous, k in itertools.pairwise([start, *chain]):
            members[k] = members[previous].branch(*settings[k])

    if workers == 1:
        walk((0, range(1, len(settings))))
        return members
    middle = len(settings) // 2
    upper = range(middle + 1, len(settings))
    stages = (
        [(0, [middle] if middle else []), (0, range(1, middle))],
        [(middle, upper[:-1]), (middle, upper[-1:])],
    )
    with ThreadPoolExecutor(2) as pool:
        for stage in stages:
            list(pool.map(walk, stage))
    return members


class AveragedOrderPreferenceRegressor(KernelPreferenceRegressor):
    """f(x) = sum_k weights[k] f_k(x): f_k the ``OrderPreferenceRegressor`` at settings[k] =
    (lambda1_k, lambda2_k), every one on the same X, y, kernel and centers.  A member with lambda2 = 0
    is SVR and takes no preferences; a member of weight 0 is not fitted.

    Parameters
    ----------
    settings : tuple of (lambda1, lambda2) pairs.  weights : tuple of floats >= 0 summing to 1.
    kernel, gamma, degree, coef0, epsilon, centers, method : as ``OrderPreferenceRegressor``'s,
        shared by every member.  time_limit : seconds for a (re-)solve of them all, shared equally
        (None: no limit).  A member stopped by it raises ``SolverTimeLimitError``; other members
        may have re-solved, so refit after one.

    Attributes
    ----------
    members_ : list of the fitted ``OrderPreferenceRegressor``s of weight > 0.
    member_weights_ : ndarray (len(members_),), their weights.
    centers_ : ndarray (m, n_features), the union of the members' centers; dual_coef_ : ndarray (m,),
        sum_k weights[k] alpha_k on them; intercept_ : float, sum_k weights[k] alpha_0k: f as one
        kernel expansion, f(x) = K(x, centers_) dual_coef_ + intercept_ = sum_k weights[k] f_k(x).
    preferences_ : PreferenceSet in force.  violated_ : bool ndarray (p,), which of them f violates
        (``PreferenceSet.violated``); n_violated_ : int, their number.
    solve_time_ : float, seconds of the members' last (re-)solves together.  solve_start_ : str,
        how the members' last solves started ('cold', 'hot', 'kept'), the distinct ones joined.
    """

    _parameter_constraints: dict = {
        "settings": ["array-like"],
        "weights": ["array-like"],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "centers": [StrOptions(set(CENTERS))],
        "method": [StrOptions(set(SIMPLEX_STRATEGIES))],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        *,
        settings=((1e-3, 0.0),),
        weights=(1.0,),
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        epsilon=0.0,
        centers="labeled",
        method="dual",
        time_limit=None,
    ):
        self.settings = settings
        self.weights = weights
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.centers = centers
        self.method = method
        self.time_limit = time_limit

    def _member_options(self, time_limit: float | None) -> dict:
        """The parameters every member shares, with its share of ``time_limit``."""
        shared = ("kernel", "gamma", "degree", "coef0", "epsilon", "centers", "method")
        return {"time_limit": time_limit, **{name: getattr(self, name) for name in shared}}

    def _member(self, lambda1: float, lambda2: float, time_limit: float | None) -> OrderPreferenceRegressor:
        return OrderPreferenceRegressor(lambda1=lambda1, lambda2=lambda2, **self._member_options(time_limit))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, preferences=None):
        """Fit every member of weight > 0 on X (n, n_features) and y (n,), ``np.nan`` marking
        unlabeled rows; ``preferences`` (a PreferenceSet over rows of X, or None) go to the members
        with lambda2 > 0."""
        settings, weights = _check_mixture(self.settings, self.weights)
        X, y = self._training_data(X, y)
        preferences = _as_preferences(preferences)
        preferences.check_indices(X.shape[0])
        kept = np.flatnonzero(weights > 0)
        share = None if self.time_limit is None else self.time_limit / kept.size
        members = self._fitted_members(X, y, preferences, settings[kept], share)
        self.members_, self.member_weights_ = members, weights[kept]
        self._X = X
        self._after_solve(preferences)
        return self

    def _fitted_members(self, X, y, preferences, settings: np.ndarray, time_limit) -> list:
        """Members at ``settings`` (k, 2): SVR (lambda2 = 0) cold without preferences; the others along
        ``fit_lambda_path`` in ascending (lambda1, lambda2), returned in the order of ``settings``."""
        members = [None] * len(settings)
        for k in np.flatnonzero(settings[:, 1] == 0):
            members[k] = self._member(*settings[k], time_limit).fit(X, y)
        path = np.flatnonzero(settings[:, 1] > 0)
        path = path[np.lexsort((settings[path, 1], settings[path, 0]))]
        options = self._member_options(time_limit)
        fitted = fit_lambda_path(X, y, preferences, settings[path], workers=WORKERS, **options)
        for k, member in zip(path, fitted, strict=True):
            members[k] = member
        return members

    def update_preferences(self, preferences):
        """Make ``preferences`` the set in force in every member with lambda2 > 0, each warm where it
        can (``OrderPreferenceRegressor.update_preferences``)."""
        check_is_fitted(self)
        preferences = _as_preferences(preferences)
        preferences.check_indices(self._X.shape[0])
        solving = [member for member in self.members_ if member.lambda2 > 0]
        with one_blas_thread():
            list(click_workers().map(self._edit(preferences), solving))
        self._after_solve(preferences)
        return self

    def _edit(self, preferences):
        """The edit making ``preferences`` a member's set, decided once for all members (comparing and
        slicing 500,000 preferences costs milliseconds): add the new ones when they extend
        ``preferences_``, remove the last ones when they are its prefix, else ``update_preferences``.
        A member whose set is not ``preferences_`` (after a failed re-solve) gets the latter."""
        current, n = self.preferences_, len(preferences)
        if n > len(current) and preferences[: len(current)] == current:

            def edit(member) -> None:
                member._extend(preferences, len(current))
        elif n < len(current) and current[:n] == preferences:

            def edit(member) -> None:
                member.remove_preferences(np.arange(n, len(current)))
        else:

            def edit(member) -> None:
                member.update_preferences(preferences)

        def checked(member) -> None:
            if len(member.preferences_) == len(current):
                edit(member)
            else:
                member.update_preferences(preferences)

        return checked

    def _after_solve(self, preferences) -> None:
        solving = [member for member in self.members_ if member.lambda2 > 0] or self.members_
        self.solve_time_ = float(sum(member.solve_time_ for member in solving))
        self.solve_start_ = ", ".join(dict.fromkeys(member.solve_start_ for member in solving))
        self.preferences_ = preferences
        self._set_expansion()
        self.violated_ = self._violated_by_prediction(preferences)
        self.n_violated_ = int(np.count_nonzero(self.violated_))

    def _set_expansion(self) -> None:
        """f = sum_k weights[k] f_k as one kernel expansion over the union of the members' centers
        (``centers_``, ``dual_coef_``, ``intercept_``), so that ``predict`` evaluates the kernel once
        for all members, not once per member."""
        rows = np.unique(np.concatenate([member._lp.center_rows for member in self.members_]))
        coefficients, intercept = np.zeros(rows.size), 0.0
        for weight, member in zip(self.member_weights_, self.members_, strict=True):
            np.add.at(coefficients, np.searchsorted(rows, member._lp.center_rows), weight * member.dual_coef_)
            intercept += weight * member.intercept_
        self.centers_, self.dual_coef_, self.intercept_ = self._X[rows], coefficients, intercept

    @property
    def _fit_X(self) -> np.ndarray:
        return self._X

    @property
    def _target_scale(self) -> float:
        return self.members_[0]._target_scale

    def save(self, path, preprocessing=None, metadata=None) -> None:
        raise NotImplementedError("an averaged fit is not saved to a model file; save one member instead")
