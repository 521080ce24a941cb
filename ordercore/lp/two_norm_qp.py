"""The 2-norm order-preference problem (Goldberg & Zhu, seed 001 eq. (7)) as a convex QP, solved
exactly by a primal-dual interior-point method in the kernel's feature space, and certified by its
duality gap.

Seed 001 eq. (7), with the label loss averaged and the preference term scaled by lambda2 / p as in
its 1-norm objective (9) (so that the two share lambda2, epsilon, d and w):

    min  (1/l) sum_i |y_i - f(x_i)|_eps + lambda1 ||f||_H^2
         + (lambda2 / p) sum_q w_q max(d_q - (f(x_iq) - f(x_jq)), 0),
    f(x) = K(x, centers) alpha + alpha_0  (eq. (8)),   ||f||_H^2 = alpha^T K(centers, centers) alpha,

on targets scaled as the LP scales them (``problem.TargetScaling``: y~ = (y - center) / scale).
Unlike (9), (7) is not positively homogeneous (||f||^2 grows with the square of the target's
units), so solving it on y~ is a choice, not a change of variables: lambda1 is read in units of the
labels' spread, and the objective in the units of y is scale * (7 on y~).  That keeps lambda1
dimensionless, as in the 1-norm estimator, so one grid of lambda1 serves dollars and years alike.

**Feature space.**  With G = K(centers, centers) / c = U Lambda U^T (c = max |K(x_L, x_L)|, the LP's
kernel scale) and eigenvalues below ``EIGENVALUE_FLOOR`` * lambda_max dropped (r <= m kept),
phi(x) = Lambda^{-1/2} U^T K(centers, x) / c gives f~(x) = phi(x)^T v + b with
alpha~ = U Lambda^{-1/2} v / c and ||f~||_H^2 = ||v||^2 / c over the span of the centers' kernels, so
the regulariser is (lambda1 / c) ||v||^2: r + 1 unknowns (v, b), with curvature only in v.

**Every other term is a hinge** c_k max(t_k - z_k^T v - e_k b, 0), one row k of (Z, e, t, c):
a labeled point twice, (phi(x_i), 1, y~_i - eps~, 1/l) and (-phi(x_i), -1, -y~_i - eps~, 1/l), whose
sum is |y~_i - f~(x_i)|_eps~ / l; a preference once, (phi(x_i) - phi(x_j), u_q, d~_q, lambda2 w_q / p),
u_q as in ``problem.unary_sign`` (phi(ZERO) = 0).  The primal QP and its dual (conjugating each hinge,
c max(s, 0) = max_{0 <= beta <= c} beta s, then minimising over v and b):

    min_{v, b, xi}  lambda ||v||^2 + c^T xi       s.t.  xi >= t - Z v - e b,  xi >= 0
    max_beta        t^T beta - ||Z^T beta||^2 / (4 lambda)   s.t.  e^T beta = 0,  0 <= beta <= c,

lambda = lambda1 / c, v = Z^T beta / (2 lambda); rows with c_k = 0 (weight 0, or lambda2 = 0) are
left out.

**Why an interior point, measured** (California, l = 60, p = 1000 oracle preferences, RBF
gamma = 0.01, lambda1 = 1e-3, one core):

- HiGHS's QP solver (active set) on the dual above: 0.33 s (3536 iterations); on the primal in
  alpha (Hessian 2 lambda1 G): 32 s already at p = 300, 2e-4 above the optimum (G is nearly
  singular); on the dual with the auxiliary s = Z^T beta: "Solve error" (infeasibilities 9e-5).
  Its interior point (``hipo``) on the primal gave no answer in 172 s.
- Dual coordinate descent: the equality e^T beta = 0 (from alpha_0) rules out single coordinates,
  so it moves pairs (SMO, maximal violating pair).  In numpy it reached a 1e-9 gap in 1450
  pairs (0.14 s) here, but 81,750 pairs (8.4 s) at gamma = 0.1, lambda1 = 1e-4: its linear rate
  degrades with the conditioning of Z Z^T / lambda.
- **This interior point**: Mehrotra's predictor-corrector on the primal, reduced to one
  (r + 1) x (r + 1) Cholesky solve per iteration, M = diag(2 lambda, .., 2 lambda, 0) +
  A^T D A with A = [Z, e] (O(n r^2), n = 2 l + p): 12 iterations, 15 ms here, 22 ms in the hard
  case above, and its iteration count barely depends on n, r or the conditioning.  It is exact in
  the sense the LP is: every answer carries a duality-gap certificate.

**Certificate.**  At each iterate the primal objective is evaluated exactly at (v, b) and the
dual at beta clipped to its box and moved onto e^T beta = 0 (``feasible_dual``).  By weak duality
the optimum lies between them; the iterate is returned once their relative gap is below
``GAP_TARGET`` (an honest optimum reaches ~1e-12); if progress stops first (``STALLED_STEP``,
``STALLED_ITERATIONS``, ``MAX_ITERATIONS``), the best iterate is returned if its gap passes the LP's
``CERTIFICATE_TOLERANCE`` (``solution.py``).  Otherwise ``SolverNumericalError``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ordercore.exceptions import NotPositiveDefiniteError, SolverNumericalError, SolverTimeLimitError
from ordercore.lp.engine import CENTERS, Kernel
from ordercore.lp.problem import TargetScaling, kernel_difference, preference_upper, referenced_rows, unary_sign
from ordercore.lp.solution import CERTIFICATE_TOLERANCE
from ordercore.numerics.cholesky import cholesky_with_jitter
from ordercore.preferences import PreferenceSet

EIGENVALUE_FLOOR = 1e-12
"""Eigenvalues of the scaled Gram matrix below this times the largest are dropped from the feature
map: G's entries are known to ~1e-16, so such directions are rounding noise, and keeping them
would multiply that noise by up to 1e6 in phi.  A dropped direction could only matter if moving f by
O(1) along it were worth its cost lambda ||v||^2 ~ lambda / 1e-12, i.e. for lambda1 below ~1e-12, which
``solve_two_norm`` therefore refuses (1e-14 and less had ended in an uncertified gap)."""

GAP_TARGET = 1e-10
"""Relative duality gap (|primal - dual| / max(1, |primal|), scaled units) at which the interior
point stops: tighter than the LP's certificate (1e-8), reached in 10-20 iterations."""

MAX_ITERATIONS = 100
"""Interior-point iterations before giving up (measured: 8-16 on the seeds' benchmarks)."""

STEP_TO_BOUNDARY = 0.995
"""Fraction of the longest step that keeps slacks and multipliers positive (Mehrotra's choice)."""

STALLED_STEP = 1e-8
"""A step shorter than this makes no more progress in double precision."""

STALLED_ITERATIONS = 5
"""Iterations without a smaller gap after which the solver stops: near the optimum, rounding in the
normal equations can make the gap wander (measured on Abalone: 2e-10 at iteration 13, then up to
1e-4).  On any stop the best iterate is returned if its gap passes ``CERTIFICATE_TOLERANCE``."""

LARGEST_WEIGHT_RATIO = 1.0 / np.finfo(np.float64).eps
"""Most a preference's hinge weight lambda2 w_q / p may outweigh a label's 1 / l: beyond 1 / eps (4.5e15)
the labels' terms are below float64's rounding of the preferences', so the fit could not see them.
Measured on 30 and 200 rows: the interior point failed its certificate from ratios 7e16 to 2.5e24 (lambda2
1e18 to 1e24), with numpy's overflow warnings and a gap of inf from lambda2 ~1e160."""


def check_preference_weights(lambda2: float, weight: np.ndarray, n_labeled: int) -> None:
    """``ValueError`` naming lambda2 when a preference's weight lambda2 w_q / p (weight (p,)) exceeds
    ``LARGEST_WEIGHT_RATIO`` times a label's 1 / n_labeled."""
    if n_labeled == 0 or weight.size == 0 or not np.max(weight) > 0:
        return
    with np.errstate(over="ignore"):
        largest = np.float64(lambda2) * np.max(weight) / weight.size
    if largest * n_labeled > LARGEST_WEIGHT_RATIO:
        bound = LARGEST_WEIGHT_RATIO * weight.size / (n_labeled * np.max(weight))
        raise ValueError(
            f"lambda2 = {lambda2:g} weighs a preference (lambda2 w / p, up to {largest:.3g}) over "
            f"{LARGEST_WEIGHT_RATIO:.2g} times a label (1 / l = {1 / n_labeled:.3g}): the labels' terms are then "
            f"lost to float64's rounding and the 2-norm problem cannot be solved to a certified answer. Give "
            f"lambda2 <= {bound:.3g} for these {weight.size} preferences and {n_labeled} labels (any larger value "
            "means the same: the preferences first)"
        )


def check_epsilon(epsilon: float, scale: float) -> None:
    """``ValueError`` naming epsilon when the tube's width in the labels' units (epsilon / scale, the
    labels' spread) exceeds ``LARGEST_WEIGHT_RATIO``: the labels y~ - eps~ then round to -eps~, every fit
    is as good as any other for them, and the interior point's gap grows past its tolerance (epsilon = 1e300
    stopped with a gap of 4.9e291, the parameter unnamed)."""
    if float(epsilon) / scale > LARGEST_WEIGHT_RATIO:
        raise ValueError(
            f"epsilon = {epsilon:g} is over {LARGEST_WEIGHT_RATIO:.2g} times the labels' spread ({scale:.3g}): the "
            "labels are then lost to float64's rounding of the tube's edges and the 2-norm problem cannot be "
            f"solved to a certified answer. Give epsilon <= {LARGEST_WEIGHT_RATIO * scale:.3g} (a tube wider than "
            "the labels' range already holds every label at many fits)"
        )


@dataclass(frozen=True)
class FeatureMap:
    """phi(x) = K(x, centers) / kernel_scale @ whitening, shape (r,), for the centers' Gram matrix;
    alpha~ = whitening @ v / kernel_scale (scaled targets, unscaled kernel)."""

    whitening: np.ndarray  # (m, r): U Lambda^{-1/2} over the kept eigenvalues
    kernel_scale: float

    @classmethod
    def from_gram(cls, gram: np.ndarray, kernel_scale: float) -> FeatureMap:
        """From K(centers, centers), shape (m, m), and the kernel scale c."""
        # G / c = U Lambda U^T (symmetric eigendecomposition; the one O(m^3) step)
        eigenvalues, vectors = np.linalg.eigh(gram / kernel_scale)
        largest = eigenvalues[-1] if eigenvalues.size else 0.0
        kept = eigenvalues > EIGENVALUE_FLOOR * largest if largest > 0 else np.zeros(eigenvalues.size, bool)
        return cls(vectors[:, kept] / np.sqrt(eigenvalues[kept]), kernel_scale)

    def features(self, kernel_rows: np.ndarray) -> np.ndarray:
        """phi at points whose kernel rows K(x, centers) (k, m) are given: shape (k, r)."""
        return kernel_rows / self.kernel_scale @ self.whitening

    def coefficients(self, v: np.ndarray) -> np.ndarray:
        """alpha~ (m,), f~(x) = K(x, centers) alpha~ + b, for the feature weights v (r,)."""
        return self.whitening @ v / self.kernel_scale


@dataclass(frozen=True)
class HingeQP:
    """lambda ||v||^2 + sum_k c_k max(t_k - z_k^T v - e_k b, 0) over (v, b): rows of Z (n, r),
    e (n,) (alpha_0's coefficient, in {-1, 0, 1}), t (n,) and c (n,) > 0."""

    Z: np.ndarray
    e: np.ndarray
    t: np.ndarray
    c: np.ndarray
    regularization: float  # lambda = lambda1 / kernel_scale

    def primal_objective(self, v: np.ndarray, b: float) -> float:
        """The objective at (v, b), each hinge evaluated exactly."""
        return float(self.regularization * v @ v + self.c @ np.maximum(self.t - self.Z @ v - self.e * b, 0.0))

    def dual_objective(self, beta: np.ndarray) -> float:
        """t^T beta - ||Z^T beta||^2 / (4 lambda): a lower bound on the optimum when beta is feasible."""
        s = self.Z.T @ beta
        return float(self.t @ beta - s @ s / (4.0 * self.regularization))

    def feasible_dual(self, beta: np.ndarray) -> np.ndarray | None:
        """beta clipped to 0 <= beta <= c and moved onto e^T beta = 0 by shifting the imbalance onto
        the rows that can absorb it, each in proportion to its room; None if they cannot."""
        beta = np.clip(beta, 0.0, self.c)
        imbalance = float(self.e @ beta)
        if imbalance == 0.0:
            return beta
        # Rows whose change lowers |e^T beta|: those with e_k of the imbalance's sign can decrease
        # (room beta_k), those of the other sign can increase (room c_k - beta_k).
        sign = np.sign(imbalance)
        room = np.where(self.e == sign, beta, np.where(self.e == -sign, self.c - beta, 0.0))
        total = room.sum()
        if total < abs(imbalance):
            return None
        return beta - sign * self.e * room * (abs(imbalance) / total)


def hinge_rows(
    features_labeled: np.ndarray,
    y_scaled: np.ndarray,
    epsilon_scaled: float,
    feature_difference: np.ndarray,
    unary: np.ndarray,
    margins: np.ndarray,
    upper: np.ndarray,
    regularization: float,
) -> HingeQP:
    """The QP's rows (module docstring): each labeled point twice, then each preference, leaving out
    rows whose hinge weight is 0.

    features_labeled: phi(x_L) (l, r); y_scaled: y~ (l,); feature_difference: phi(x_i) - phi(x_j)
    (p, r); unary: u_q (p,); margins: d~ (p,); upper: lambda2 w_q / p (p,)."""
    n_labeled = y_scaled.size
    Z = np.vstack([features_labeled, -features_labeled, feature_difference])
    e = np.concatenate([np.ones(n_labeled), -np.ones(n_labeled), unary])
    t = np.concatenate([y_scaled - epsilon_scaled, -y_scaled - epsilon_scaled, margins])
    c = np.concatenate([np.full(2 * n_labeled, 1.0 / n_labeled), upper])
    kept = c > 0
    return HingeQP(Z[kept], e[kept], t[kept], c[kept], regularization)


@dataclass(frozen=True)
class QPSolution:
    """A certified optimum of a ``HingeQP``: weights v (r,), intercept b, dual beta (n,), the primal
    objective, the relative duality gap that certifies it, and the iterations it took."""

    v: np.ndarray
    b: float
    beta: np.ndarray
    objective: float
    gap: float
    iterations: int


@dataclass(frozen=True)
class _Iterate:
    """An interior-point iterate: theta = (v, b) (r + 1,); per row (n,) the hinge xi >= 0, the slack
    s = A theta + xi - t >= 0, and their multipliers gamma (of xi) and beta (of s), all > 0."""

    theta: np.ndarray
    xi: np.ndarray
    s: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray

    @property
    def positive(self) -> tuple[np.ndarray, ...]:
        return self.xi, self.s, self.beta, self.gamma

    def moved(self, step: float, direction: _Iterate) -> _Iterate:
        return _Iterate(*(x + step * dx for x, dx in zip(self._fields(), direction._fields(), strict=True)))

    def _fields(self) -> tuple[np.ndarray, ...]:
        return self.theta, self.xi, self.s, self.beta, self.gamma

    def longest_step(self, direction: _Iterate) -> float:
        """The largest a with xi, s, beta, gamma + a * direction all >= 0; inf if none falls."""
        longest = np.inf
        for x, dx in zip(self.positive, direction.positive, strict=True):
            falling = dx < 0
            if falling.any():
                longest = min(longest, float(np.min(-x[falling] / dx[falling])))
        return longest

    def complementarity(self, direction: _Iterate | None = None, step: float = 0.0) -> float:
        """mu = (s^T beta + xi^T gamma) / (2 n), at this iterate moved by step * direction."""
        point = self if direction is None else self.moved(step, direction)
        return float(point.s @ point.beta + point.xi @ point.gamma) / (2 * point.s.size)


class _NewtonSystem:
    """The Newton equations of the QP's optimality conditions at one iterate,

        P dtheta - A^T dbeta = -(P theta - A^T beta),   dbeta + dgamma = -(beta + gamma - c),
        A dtheta + dxi - ds = -(A theta + xi - t - s),  beta ds + s dbeta = target_s - s beta,
        gamma dxi + xi dgamma = target_xi - xi gamma,

    with ds, dxi, dbeta, dgamma eliminated row by row: (P + A^T D A) dtheta = rhs,
    D = 1 / delta, delta = xi / gamma + s / beta, one Cholesky factor for both of Mehrotra's solves.
    Near the optimum D spans many decades (a row at its kink has s, xi -> 0, so D -> inf; measured up
    to 1e20 on Abalone), so M is scaled to unit diagonal, S M S with S = diag(M)^{-1/2}, before it is
    factored."""

    def __init__(self, qp: HingeQP, A: np.ndarray, curvature: np.ndarray, point: _Iterate):
        self.A, self.point = A, point
        self.dual_residual = curvature * point.theta - A.T @ point.beta
        self.box_residual = point.beta + point.gamma - qp.c
        self.primal_residual = A @ point.theta + point.xi - qp.t - point.s
        self.delta = point.xi / point.gamma + point.s / point.beta
        # M = P + A^T D A: the normal equations, (r + 1) x (r + 1)
        normal = (A / self.delta[:, None]).T @ A
        normal[np.diag_indices_from(normal)] += curvature
        # S M S, unit diagonal (the b column always has weight: every labeled row has e = +-1)
        self.scaling = 1.0 / np.sqrt(np.diag(normal))
        scaled = normal * np.outer(self.scaling, self.scaling)
        try:
            self.factor = scipy.linalg.cho_factor(scaled, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            # rounding left S M S indefinite: factor it with a jitter of 1e-8 (relative) or more; the
            # step is then slightly off Newton's, and the certificate still judges the answer.
            # NotPositiveDefiniteError if even the largest jitter fails.
            self.factor = cholesky_with_jitter(scaled)[0], True

    def direction(self, target_s, target_xi) -> _Iterate:
        """The step towards s beta = target_s, xi gamma = target_xi (scalars or (n,))."""
        x = self.point
        excess_s, excess_xi = x.s * x.beta - target_s, x.xi * x.gamma - target_xi
        h = -self.primal_residual + (excess_xi - x.xi * self.box_residual) / x.gamma - excess_s / x.beta
        # (P + A^T D A) dtheta = -(P theta - A^T beta) + A^T D h, solved as S (S M S)^{-1} S rhs
        rhs = -self.dual_residual + self.A.T @ (h / self.delta)
        dtheta = self.scaling * scipy.linalg.cho_solve(self.factor, self.scaling * rhs, check_finite=False)
        dbeta = (h - self.A @ dtheta) / self.delta
        dgamma = -self.box_residual - dbeta
        return _Iterate(
            dtheta, (-excess_xi - x.xi * dgamma) / x.gamma, (-excess_s - x.s * dbeta) / x.beta, dbeta, dgamma
        )


def solve_hinge_qp(qp: HingeQP, time_limit: float | None = None) -> QPSolution:
    """Mehrotra's predictor-corrector interior point on the primal QP of ``qp``.

    Variables theta = (v, b), xi >= 0 (the hinges), s = A theta + xi - t >= 0 with A = [Z, e], and
    their multipliers beta (of s) and gamma (of xi); optimality is P theta = A^T beta (P = diag(2
    lambda I, 0)), beta + gamma = c, s beta = xi gamma = 0.  ``time_limit``: seconds, or None."""
    n, r = qp.Z.shape
    A = np.hstack([qp.Z, qp.e[:, None]])
    curvature = np.append(np.full(r, 2.0 * qp.regularization), 0.0)  # the diagonal of P
    xi = np.maximum(qp.t, 0.0) + 1.0
    point = _Iterate(np.zeros(r + 1), xi, xi - qp.t, qp.c / 2.0, qp.c / 2.0)  # s = xi - t >= 1
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    best, since_best, step = None, 0, 1.0
    for iteration in range(MAX_ITERATIONS + 1):
        v, b = point.theta[:r], float(point.theta[r])
        primal = qp.primal_objective(v, b)
        feasible = qp.feasible_dual(point.beta)
        gap = np.inf if feasible is None else (primal - qp.dual_objective(feasible)) / max(1.0, abs(primal))
        if best is None or gap < best.gap:
            best, since_best = QPSolution(v, b, feasible, primal, float(gap), iteration), 0
        else:
            since_best += 1
        if best.gap <= GAP_TARGET:
            return best
        if step < STALLED_STEP or since_best >= STALLED_ITERATIONS or iteration == MAX_ITERATIONS:
            break
        if deadline is not None and time.perf_counter() > deadline:
            raise SolverTimeLimitError(f"the interior point reached the time limit at gap {gap:.1e}; raise time_limit")
        try:
            system = _NewtonSystem(qp, A, curvature, point)
        except NotPositiveDefiniteError:
            break
        mu = point.complementarity()
        affine = system.direction(0.0, 0.0)  # predictor: straight for s beta = xi gamma = 0
        mu_affine = point.complementarity(affine, min(1.0, point.longest_step(affine)))
        centering = (mu_affine / mu) ** 3  # Mehrotra's sigma
        # corrector: aim at sigma mu, less the predictor's second-order term ds dbeta (dxi dgamma)
        corrected = system.direction(centering * mu - affine.s * affine.beta, centering * mu - affine.xi * affine.gamma)
        step = min(1.0, STEP_TO_BOUNDARY * point.longest_step(corrected))
        point = point.moved(step, corrected)
    if best.gap <= CERTIFICATE_TOLERANCE:
        return best  # progress stopped in double precision, certified all the same
    raise SolverNumericalError(
        f"the interior point stopped after {iteration} iterations with duality gap {best.gap:.1e} "
        f"(> {CERTIFICATE_TOLERANCE:g})"
    )


@dataclass(frozen=True)
class TwoNormSolution:
    """A certified optimum of seed 001's (7) in the units of y: f(x) = K(x, centers) dual_coef + intercept."""

    center_rows: np.ndarray  # (m,) rows of X that carry a dual coefficient
    dual_coef: np.ndarray  # (m,) alpha
    intercept: float  # alpha_0
    objective: float  # (7) as the module docstring states it, in the units of y
    violation: np.ndarray  # (p,) shortfall max(d - (f_i - f_j), 0) of each preference
    scale: float  # the labels' spread that scaled the targets (``TargetScaling``)
    gap: float  # relative duality gap certifying the optimum (scaled units)
    iterations: int  # interior-point iterations
    seconds: float  # wall time of the whole solve (kernels, eigendecomposition, interior point)


def solve_two_norm(
    X: np.ndarray,
    labeled: np.ndarray,
    y: np.ndarray,
    preferences: PreferenceSet,
    kernel: Kernel,
    *,
    lambda1: float,
    lambda2: float,
    epsilon: float = 0.0,
    centers: str = "labeled",
    time_limit: float | None = None,
) -> TwoNormSolution:
    """Seed 001's (7) over X (n, n_features), the labeled rows ``labeled`` (l,) with targets y (l,),
    and ``preferences`` (indices into X), with kernel(A, B) -> K(A, B).  ``centers`` 'labeled'
    expands f over the labeled rows (eq. (8)), 'all' also over every row a preference compares
    (Theorem 1).  lambda1 > 0 (0 leaves ||f|| unregularised: the 1-norm LP's territory)."""
    started = time.perf_counter()
    if centers not in CENTERS:
        raise ValueError(f"centers must be one of {CENTERS}, got {centers!r}")
    if not lambda1 >= EIGENVALUE_FLOOR:
        raise ValueError(
            f"lambda1 must be at least {EIGENVALUE_FLOOR:g} for the 2-norm, got {lambda1!r}: below it the regulariser "
            "lambda1 ||f||² is under float64's rounding of the kernel's Gram matrix, the directions it would weigh "
            "are dropped and the interior point cannot certify an answer (0 leaves ||f|| unregularised: the 1-norm "
            "LP's territory, OrderPreferenceRegressor)"
        )
    labeled = np.asarray(labeled, dtype=np.int64)
    check_preference_weights(lambda2, preferences.weight, labeled.size)
    scaling = TargetScaling.from_labels(np.asarray(y, dtype=np.float64))
    check_epsilon(epsilon, scaling.scale)
    rows = referenced_rows(preferences)
    center_rows = labeled if centers == "labeled" else np.concatenate([labeled, np.setdiff1d(rows, labeled)])
    points = np.union1d(labeled, rows)  # every row whose f the problem needs, sorted

    def at(indices):
        return np.searchsorted(points, indices)

    kernel_points = kernel(X[points], X[center_rows])  # K(x_points, centers), (k, m)
    # the labeled rows are the first l centers in either mode: K(x_L, x_L) sets the LP's kernel scale
    kernel_scale = float(np.abs(kernel_points[at(labeled), : labeled.size]).max()) or 1.0
    features = FeatureMap.from_gram(kernel_points[at(center_rows)], kernel_scale)
    phi = features.features(kernel_points)  # (k, r)
    y_scaled = (np.asarray(y, dtype=np.float64) - scaling.center) / scaling.scale
    qp = hinge_rows(
        phi[at(labeled)],
        y_scaled,
        float(epsilon) / scaling.scale,
        kernel_difference(preferences, points, phi),
        unary_sign(preferences),
        scaling.margins(preferences),
        preference_upper(preferences.weight, lambda2, len(preferences)),
        lambda1 / kernel_scale,
    )
    remaining = None if time_limit is None else time_limit - (time.perf_counter() - started)
    solution = solve_hinge_qp(qp, remaining)
    f = np.full(X.shape[0], np.nan)  # f at the referenced rows, in the units of y
    f[points] = scaling.center + scaling.scale * (phi @ solution.v + solution.b)
    return TwoNormSolution(
        center_rows=center_rows.copy(),
        dual_coef=scaling.scale * features.coefficients(solution.v),
        intercept=scaling.center + scaling.scale * solution.b,
        objective=scaling.scale * solution.objective,
        violation=preferences.violation(f),
        scale=scaling.scale,
        gap=solution.gap,
        iterations=solution.iterations,
        seconds=time.perf_counter() - started,
    )
