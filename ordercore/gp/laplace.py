"""Laplace approximation for Gaussian-process preference learning (Chu & Ghahramani, seed 002 §2).

Latent values f (N,) at N distinct instances have the prior N(0, K) (eq. (3)).  Preference k says
instance ``winner[k]`` is preferred to ``loser[k]``; its likelihood is the probit (eq. (5))

    P(winner ≻ loser | f) = Φ(z_k),   z_k = (f_winner - f_loser) / (√2 σ),

and its log-likelihood is scaled by a weight w_k >= 0.  The MAP estimate minimises the convex
functional (10)

    S(f) = Σ_k w_k ℓ(z_k) + ½ fᵀ K⁻¹ f,        ℓ(z) = -ln Φ(z),

and the Laplace evidence is (12)

    ln p(D | θ) ≈ -S(f̂) - ½ ln |I + K Λ|,      Λ = ∂²(Σ_k w_k ℓ(z_k)) / ∂f ∂fᵀ at f̂.

The transcript of seed 002 lost the symbols of (7)-(8) and (14)-(15); the derivatives below are
the standard derivation (Rasmussen & Williams 2006, §3.4 and §5.5.1, with the non-diagonal Λ of a
preference likelihood), checked against finite differences in tests/test_gp_laplace.py.

Newton's method runs in whitened coordinates u, f = L u with K = L Lᵀ: there S(u) has the Hessian
B = I + Lᵀ Λ L (eigenvalues >= 1), so every linear solve is a well-conditioned Cholesky solve and
fᵀ K⁻¹ f = uᵀ u needs no inverse of K.  When K is block diagonal with the same block K₀ = L₀ L₀ᵀ
(n, n) repeated (label preferences, §3: one GP per label), L = I ⊗ L₀ is kept as L₀ alone
(``BlockFactor``): its Cholesky costs n³/3 instead of (n·blocks)³/3, B is formed block by block
over the samples each block pair of Λ touches, O(n² · nnz rows) instead of (n·blocks)³, and W = L R⁻¹
is block upper triangular (a third of the flops).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.linalg.blas
import scipy.sparse
from scipy.special import erfcx, log_ndtr

from ordercore.numerics.cholesky import cholesky_with_jitter

NEWTON_TOLERANCE = 1e-12
"""Newton stops when half the squared Newton decrement, the predicted decrease of S, is below this
(the final fit a model predicts with)."""

SEARCH_NEWTON_TOLERANCE = 1e-12
"""The same, for the many fits of a hyperparameter search, which skip the final polishing step: their
evidence is exact to about √1e-12 nats (ln|B| is first-order in the error of f̂), below what
L-BFGS-B resolves.  At 1e-8 the evidence jittered by ~1e-5 nats between fits at the same θ and
L-BFGS-B's line search stalled near the optimum; chord steps make the tighter tolerance cheap."""

NEWTON_MAX_ITER = 100
"""Cap on Newton iterations; S is convex and smooth, so 5-20 are typical from a cold start."""

ARMIJO_FRACTION = 1e-4
"""Backtracking accepts a step that achieves this fraction of the decrease the gradient predicts."""

MAX_STEP_EXTENSION = 16.0
"""Longest multiple of the Newton step the line search tries when full steps succeed."""

CHORD_MAX_STEPS = 6
"""Newton reuses an earlier inverse Hessian (chord steps, O(N²) each instead of the O(N³) of forming
and factoring B) while, at the rate the last chord step shrank the decrement, at most this many more
would reach the tolerance; otherwise, and always at f̂ (whose B the evidence needs), B is formed and
factored afresh.  A chord step costs about a sixth of a refresh at N ~ 500."""

LINE_SEARCH_MAX_HALVINGS = 40
"""Backtracking halves the Newton step at most this many times before giving up on the iteration."""


MILLS_ASYMPTOTIC = 50.0
"""Below z = -50 the inverse Mills ratio comes from its asymptotic series in x = -z (Abramowitz & Stegun
26.2.12 inverted): formed from r itself, z + r and ℓ''' cancel to rounding (ℓ''' had the wrong sign at
z = -999).  With the terms below, the first left out is below float64's precision there."""

MILLS_SHIFT_SERIES = (1.0, -2.0, 10.0, -74.0, 706.0, -8162.0)
"""z + r = (1/x) Σ_k c_k x^(-2k): r = x + 1/x - 2/x³ + 10/x⁵ - …"""

MILLS_THIRD_SERIES = (-2.0, 24.0, -300.0, 4144.0, -63540.0)
"""ℓ''' = (1/x³) Σ_k c_k x^(-2k), from ℓ'' = r (z + r) = 1 - 1/x² + 6/x⁴ - 50/x⁶ + … differentiated in z."""


def probit_loss(z: np.ndarray) -> tuple[np.ndarray, ...]:
    """ℓ(z) = -ln Φ(z) and its first three derivatives, each of shape z.shape.

    With the inverse Mills ratio r = N(z) / Φ(z) = √(2/π) / erfcx(-z/√2) (finite for every z, 0 for z ≫ 0):
    ℓ' = -r,  ℓ'' = r (z + r)  (seed 002 eq. (8)),  ℓ''' = r (1 - (z + r)(z + 2r)), by their series in
    x = -z below -``MILLS_ASYMPTOTIC``.
    """
    z = np.asarray(z, dtype=np.float64)
    far = z < -MILLS_ASYMPTOTIC
    x = np.where(far, -z, MILLS_ASYMPTOTIC)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):  # 1/x² → 0 for huge x; 0·inf unused
        v = 1 / x**2
        series_shift = np.polyval(MILLS_SHIFT_SERIES[::-1], v) / x
        ratio = np.where(far, x + series_shift, np.sqrt(2 / np.pi) / erfcx(-z / np.sqrt(2)))  # erfcx = inf: r = 0
        shifted = np.where(far, series_shift, z + ratio)
        near_third = np.where(ratio > 0, ratio * (1.0 - shifted * (shifted + ratio)), 0.0)
        third = np.where(far, np.polyval(MILLS_THIRD_SERIES[::-1], v) * v / x, near_third)
    return -log_ndtr(z), -ratio, ratio * shifted, third


@dataclass(frozen=True)
class PairData:
    """Preferences over latent indices: ``winner`` ≻ ``loser`` with ``weight``, each shape (p,)."""

    winner: np.ndarray
    loser: np.ndarray
    weight: np.ndarray
    n_latent: int

    @functools.cached_property
    def incidence(self) -> scipy.sparse.csr_array:
        """A (p, N): row k is e_winner - e_loser, so A f gives f_winner - f_loser."""
        p = self.winner.size
        rows = np.repeat(np.arange(p), 2)
        cols = np.column_stack([self.winner, self.loser]).ravel()
        values = np.tile([1.0, -1.0], p)
        return scipy.sparse.csr_array((values, (rows, cols)), shape=(p, self.n_latent))

    def laplacian(self, curvature: np.ndarray) -> scipy.sparse.csr_array:
        """Aᵀ diag(curvature) A, shape (N, N): the weighted graph Laplacian of the pairs."""
        u, v = self.winner, self.loser
        rows = np.concatenate([u, v, u, v])
        cols = np.concatenate([u, v, v, u])
        values = np.concatenate([curvature, curvature, -curvature, -curvature])
        return scipy.sparse.csr_array((values, (rows, cols)), shape=(self.n_latent, self.n_latent))


@dataclass(frozen=True)
class LaplaceFit:
    """The Laplace approximation at f̂ for one hyperparameter setting.

    latent : f̂, shape (N,).  alpha : K⁻¹ f̂ = -∇ of the likelihood term, shape (N,); the predictive
    mean at x is k(x)ᵀ alpha (eq. (17)).  predictive_matrix : (K + Λ⁻¹)⁻¹ = Λ - Λ C Λ, shape (N, N),
    with C = (K⁻¹ + Λ)⁻¹ the posterior covariance; predictive covariances are
    k(x, x') - k(x)ᵀ predictive_matrix k(x') (eq. (18)).  With a block prior I ⊗ K₀ (n_blocks > 1) only
    its diagonal blocks, shape (n_blocks, n, n): all the evidence gradient contracts with the block
    diagonal ∂K/∂θ (the label model predicts means only).  log_evidence : eq. (12).
    n_iter : Newton iterations taken.
    """

    latent: np.ndarray
    alpha: np.ndarray
    predictive_matrix: np.ndarray
    log_evidence: float
    n_iter: int
    # Pieces the evidence gradient needs (see ``evidence_gradient``).
    posterior_factor: np.ndarray  # W (N, N) with C = (K⁻¹ + Λ)⁻¹ = W Wᵀ
    hessian: scipy.sparse.csr_array  # Λ (N, N), sparse
    z: np.ndarray  # (p,)

    @property
    def instance_latent(self) -> np.ndarray:
        """f̂ at the instances, shape (N,): ``latent`` (named as ``SparseLaplaceFit``'s)."""
        return self.latent


@dataclass(frozen=True)
class BlockFactor:
    """L = I_blocks ⊗ L₀, the lower Cholesky factor of a prior with ``n_blocks`` diagonal blocks all
    equal to K₀ = L₀ L₀ᵀ; lower : L₀ (n, n).  Vectors (n·n_blocks,) are block-major."""

    lower: np.ndarray
    n_blocks: int

    def _per_block(self, apply, x: np.ndarray) -> np.ndarray:
        """apply(L₀, X) on the blocks of x (N,) as the columns of X (n, n_blocks), back as (N,)."""
        if self.n_blocks == 1:
            return apply(self.lower, x)
        return apply(self.lower, x.reshape(self.n_blocks, -1).T).T.reshape(-1)

    def times(self, u: np.ndarray) -> np.ndarray:
        """L u, shape (N,)."""
        return self._per_block(np.matmul, u)

    def transpose_times(self, g: np.ndarray) -> np.ndarray:
        """Lᵀ g, shape (N,)."""
        return self._per_block(lambda lower, x: lower.T @ x, g)

    def solve(self, f: np.ndarray, trans: str = "N") -> np.ndarray:
        """L⁻¹ f (trans 'N') or L⁻ᵀ f (trans 'T'), shape (N,)."""
        return self._per_block(
            lambda lower, x: scipy.linalg.solve_triangular(lower, x, lower=True, trans=trans, check_finite=False), f
        )

    def right_solve(self, R: np.ndarray) -> np.ndarray:
        """W = L R⁻¹ for an upper triangular R (N, N), shape (N, N), C-contiguous.

        Row block b of W solves Rᵀ Wᵀ = Lᵀ over column block b of Lᵀ, which is L₀ᵀ in row block b and 0
        elsewhere: forward substitution leaves rows before block b at 0, so only the trailing part of R
        takes part, ≈ N³/3 flops in all instead of N³."""
        solve = functools.partial(scipy.linalg.solve_triangular, trans="T", lower=False, check_finite=False)
        if self.n_blocks == 1:
            return solve(R, self.lower.T).T
        n = len(self.lower)
        W = np.zeros((n * self.n_blocks, n * self.n_blocks))
        for start in range(0, len(W), n):
            right_side = np.zeros((len(W) - start, n))
            right_side[:n] = self.lower.T
            W[start : start + n, start:] = solve(R[start:, start:], right_side).T
        return W

    def whitened(self, hessian: scipy.sparse.csr_array) -> np.ndarray:
        """Lᵀ Λ L, shape (N, N), for a symmetric sparse Λ (N, N): with n_blocks > 1 only its upper
        triangle of blocks is filled (all that an upper Cholesky factorisation reads)."""
        if self.n_blocks == 1:
            # Lᵀ by a triangular product: fewer flops than a general one.
            return scipy.linalg.blas.dtrmm(1.0, self.lower.T, hessian @ self.lower, side=0, lower=0)
        n, lower = len(self.lower), self.lower
        result = np.zeros((n * self.n_blocks, n * self.n_blocks))
        for a in range(self.n_blocks):
            rows = hessian[a * n : (a + 1) * n]
            for b in range(a, self.n_blocks):
                block = rows[:, b * n : (b + 1) * n].tocsr()
                used = np.unique(block.nonzero()[0])  # samples where Λ_ab has entries
                if used.size == 0:
                    continue
                # L₀ᵀ Λ_ab L₀ = L₀[used]ᵀ (Λ_ab[used] L₀): n² · |used| flops.
                result[a * n : (a + 1) * n, b * n : (b + 1) * n] = lower[used].T @ (block[used] @ lower)
        return result


def _chord_too_slow(decrement: float, last_decrement: float, tolerance: float) -> bool:
    """Whether chord steps shrinking the decrement at the last step's rate need more than
    ``CHORD_MAX_STEPS`` further steps to bring half of it below tolerance."""
    if decrement >= last_decrement:
        return True
    if not np.isfinite(last_decrement):
        return False
    return np.log(2.0 * tolerance / decrement) / np.log(decrement / last_decrement) > CHORD_MAX_STEPS


class NewtonState(NamedTuple):
    """An iterate of ``newton_minimize``: x (whitened latent values, or weights), f = the latent values
    x maps to (n_latent,), z = scale · A f (p,), value = S(x), gradient = ∂ Σ w ℓ(z) / ∂f (n_latent,),
    curvature = w ℓ''(z) (p,)."""

    x: np.ndarray
    latent: np.ndarray
    z: np.ndarray
    value: float
    gradient: np.ndarray
    curvature: np.ndarray


@dataclass(frozen=True)
class MapObjective:
    """S(x) = Σ_k w_k ℓ(z_k) + ½ xᵀ x (eq. (10) in whitened coordinates or weights), z = scale · A f,
    f = latent(x) for a linear map ``latent`` (x ↦ L u, or x ↦ Φ w)."""

    pairs: PairData
    scale: float
    latent: Callable[[np.ndarray], np.ndarray]

    def at(self, x: np.ndarray, f: np.ndarray | None = None, z: np.ndarray | None = None) -> NewtonState:
        """The state at x; f = latent(x) and z = scale · A f are computed unless given."""
        f = self.latent(x) if f is None else f
        z = self.scale * (self.pairs.incidence @ f) if z is None else z
        loss, first, second, _ = probit_loss(z)
        gradient = self.scale * (self.pairs.incidence.T @ (self.pairs.weight * first))
        value = float(self.pairs.weight @ loss) + 0.5 * x @ x
        return NewtonState(x, f, z, value, gradient, self.pairs.weight * second)

    def along(self, state: NewtonState, step: np.ndarray):
        """t ↦ the state at x + t·step, mapping the step once: f and z are linear in x, so each trial
        of a line search costs O(n_latent + p), not a product with L or Φ."""
        latent_step = self.latent(step)
        z_step = self.scale * (self.pairs.incidence @ latent_step)
        return lambda t: self.at(state.x + t * step, state.latent + t * latent_step, state.z + t * z_step)


def newton_minimize(
    objective: MapObjective,
    gradient,
    factorize,
    x0,
    start=None,
    lagged_solve=None,
    tolerance=NEWTON_TOLERANCE,
    polish=True,
):
    """Newton's method on the convex S(x) of a Laplace fit (x: whitened latent values or weights).

    gradient(state) -> ∇S; factorize(state) -> (extra, R) with the Hessian B = Rᵀ R at that state (R
    upper) and whatever the caller keeps of the final factorisation (the exact fit: Λ).  The start
    is x = x0 (zeros), or ``start`` if given and lower in S.  lagged_solve : optional g -> B0⁻¹ g with
    the Hessian of a nearby problem: the first steps use it.

    A factor of B is reused for chord steps (B at an earlier iterate, or lagged_solve) while, at the
    rate the last chord step shrank the decrement, at most ``CHORD_MAX_STEPS`` more would reach the
    tolerance; otherwise, and always at the optimum (the evidence needs B there), B is factorised
    afresh.  Steps are backtracked to Armijo's condition, and fresh full steps extended while they
    keep lowering S.  polish : one more full Newton step after convergence and B there, so that the
    optimum and the evidence are exact to rounding (the final fit); without it (a hyperparameter
    search's many fits) the evidence is exact to about √tolerance, ln|B| being first-order in the
    error of the optimum.  Returns (state, extra, R, Newton iterations) with R factorised at state.
    """
    state = objective.at(x0)
    if start is not None:
        # Kept only if it beats x0 (after a large change of σ an old optimum can sit far up the steep
        # side of S, where Newton needs many more steps).
        warm = objective.at(start)
        if warm.value < state.value:
            state = warm
    R, lagged, fresh, converged = None, lagged_solve, False, False
    n_iter, last_decrement = 0, np.inf
    while n_iter < NEWTON_MAX_ITER:
        if R is None and lagged is None:
            hessian, R = factorize(state)
            fresh = True
        g = gradient(state)
        step = -(scipy.linalg.cho_solve((R, False), g, check_finite=False) if R is not None else lagged(g))
        decrement = -(g @ step)
        if not fresh and (0.5 * decrement < tolerance or _chord_too_slow(decrement, last_decrement, tolerance)):
            R = lagged = None  # converged with a lagged inverse (the evidence needs B here), or too slow
            continue
        if 0.5 * decrement < tolerance:
            converged = True
            break
        trial = _line_search(objective.along(state, step), state.value, decrement, extend=fresh)
        if trial is None:
            if fresh:
                break  # no decrease along the Newton direction: at the optimum to rounding
            R = lagged = None
            continue
        state, n_iter, fresh, last_decrement = trial, n_iter + 1, False, decrement
    if not fresh:
        hessian, R = factorize(state)  # the iteration cap struck after a step
    if polish and converged and decrement > 0:
        state = objective.at(state.x + step)
        hessian, R = factorize(state)
        n_iter += 1
    return state, hessian, R, n_iter


def _line_search(trial_at, value: float, decrement: float, extend: bool) -> NewtonState | None:
    """The state trial_at(t) at x + t·step: t halved from 1 until Armijo's condition holds (from S(x) =
    value), or (``extend``, for a fresh Newton step taken whole) doubled while S keeps falling; None
    when no step lowers S."""
    t = 1.0
    for _ in range(LINE_SEARCH_MAX_HALVINGS):
        trial = trial_at(t)
        if trial.value <= value - ARMIJO_FRACTION * t * decrement:
            break
        t *= 0.5
    else:
        return None
    if t == 1.0 and extend:
        # Where pairs cross from violated to satisfied, ℓ flattens faster than its quadratic model and
        # full Newton steps fall short (the decrement then shrinks only linearly): try longer steps.
        while t < MAX_STEP_EXTENSION:
            longer = trial_at(2.0 * t)
            if longer.value >= trial.value:
                break
            t, trial = 2.0 * t, longer
    return trial


def laplace_fit(
    K: np.ndarray,
    pairs: PairData,
    noise: float,
    latent0: np.ndarray | None = None,
    tolerance: float = NEWTON_TOLERANCE,
    posterior_factor0: np.ndarray | None = None,
    polish: bool = True,
    n_blocks: int = 1,
) -> LaplaceFit:
    """MAP estimate by Newton-Raphson on (10) and the Laplace evidence (12).

    K : prior covariance of the latent values, shape (N, N); with n_blocks > 1, the block K₀ (n, n) of
    the prior I_blocks ⊗ K₀ over N = n·n_blocks latent values (``BlockFactor``).  pairs : the preferences.
    noise : σ of eq. (5).  latent0 : optional starting f, shape (N,) (e.g. the last f̂ while
    hyperparameters change); the start is f = 0 otherwise.  tolerance : Newton's stopping rule.
    posterior_factor0 : optional W0 (N, N) of a nearby fit (C0 = W0 W0ᵀ): the first steps then use
    C0 for the inverse Hessian (f-space step -C0 ∇_f S), so a small change of hyperparameters needs
    one factorisation of B, at f̂, instead of two or three.  polish : see ``newton_minimize``.
    """
    scale = 1.0 / (np.sqrt(2.0) * noise)  # z = scale (f_winner - f_loser)
    factor = BlockFactor(cholesky_with_jitter(K)[0], n_blocks)
    n = len(K) * n_blocks
    objective = MapObjective(pairs, scale, factor.times)

    def factorize(state):
        # Λ = scale² Aᵀ diag(w ℓ'') A;  B = I + Lᵀ Λ L, the Hessian of S in u.
        hessian = pairs.laplacian((scale * scale) * state.curvature)
        B = factor.whitened(hessian)
        B[np.diag_indices(n)] += 1.0
        return hessian, scipy.linalg.cholesky(B, lower=False, overwrite_a=True, check_finite=False)

    def lagged_step(gradient_u):
        # B0⁻¹ ∇_u S = L⁻¹ C0 L⁻ᵀ ∇_u S, i.e. the f-space step C0 ∇_f S with ∇_f S = L⁻ᵀ ∇_u S.
        gradient_f = factor.solve(gradient_u, trans="T")
        return factor.solve(posterior_factor0 @ (posterior_factor0.T @ gradient_f))

    # u0 = L⁻¹ f0 so that f = L u.
    start = None if latent0 is None else factor.solve(latent0)
    state, hessian, R, n_iter = newton_minimize(
        objective,
        lambda state: state.x + factor.transpose_times(state.gradient),
        factorize,
        np.zeros(n),
        start,
        lagged_step if posterior_factor0 is not None else None,
        tolerance,
        polish,
    )
    u, z, value, g = state.x, state.z, state.value, state.gradient
    # log evidence (12): -S(f̂) - ½ ln|B|, with ln|I + KΛ| = ln|B| = 2 Σ ln diag(chol B).
    log_evidence = -value - np.sum(np.log(np.diag(R)))
    # W = L R⁻¹ with B = Rᵀ R, so C = (K⁻¹ + Λ)⁻¹ = L B⁻¹ Lᵀ = W Wᵀ (C-contiguous rows for gathers).
    W = factor.right_solve(R)
    # (K + Λ⁻¹)⁻¹ = Λ - Λ C Λ = Λ - (ΛW)(ΛW)ᵀ  (Woodbury; defined even where Λ is singular).
    hessian_W = hessian @ W
    if n_blocks == 1:
        # numpy computes X Xᵀ as a symmetric rank-k update (half a general product's flops) and mirrors
        # it; scipy's dsyrk on this C-ordered X took 60 % longer, copying it to Fortran order first.
        predictive_matrix = hessian.toarray() - hessian_W @ hessian_W.T
    else:
        # Diagonal blocks Λ_bb - (ΛW)_b (ΛW)_bᵀ: n_blocks · n² · N flops instead of N³.
        n_block = len(K)
        rows = hessian_W.reshape(n_blocks, n_block, n)
        diagonal = [slice(b * n_block, (b + 1) * n_block) for b in range(n_blocks)]
        predictive_matrix = np.stack([hessian[d, d].toarray() - r @ r.T for d, r in zip(diagonal, rows, strict=True)])
    return LaplaceFit(
        latent=factor.times(u),
        alpha=-g,
        predictive_matrix=predictive_matrix,
        log_evidence=float(log_evidence),
        n_iter=n_iter,
        posterior_factor=W,
        hessian=hessian,
        z=z,
    )


def evidence_gradient(fit: LaplaceFit, pairs: PairData, noise: float) -> tuple[np.ndarray, float, np.ndarray]:
    """Gradient of the log evidence (12), including the implicit terms through f̂ (eqs. (14)-(15)).

    Returns (G, d_log_noise, latent_d_log_noise): G of shape (N, N) is symmetric with
    ∂ ln p(D|θ) / ∂θ = Σ_ij G_ij ∂K_ij/∂θ for any kernel hyperparameter θ (with a block prior, as
    ``fit.predictive_matrix`` is, only G's diagonal blocks, (n_blocks, n, n)), d_log_noise is the
    derivative with respect to ln σ, and latent_d_log_noise = ∂f̂/∂ln σ, shape (N,).
    Derivation (a = K⁻¹ f̂, C = W Wᵀ, R = predictive_matrix):

    - explicit in K:  ½ aᵀ K_θ a - ½ tr(R K_θ);
    - through f̂:      ∂f̂/∂θ = (I + KΛ)⁻¹ K_θ a, so the term is bᵀ K_θ a with b = (I - ΛC) δ and
      δ = ∂(-½ ln|I + KΛ|)/∂f̂ = -½ scale³ Aᵀ (w ℓ'''(z) ⊙ v), v_k = Var_C(f_winner - f_loser);
    - ln σ: z scales as 1/σ, which enters the loss, Λ and, through ∂f̂/∂ln σ = -C ∂g/∂ln σ, f̂.
    """
    scale = 1.0 / (np.sqrt(2.0) * noise)
    A = pairs.incidence
    W, hessian, a, z = fit.posterior_factor, fit.hessian, fit.alpha, fit.z
    _, first, second, third = probit_loss(z)
    w = pairs.weight
    # v_k = (e_winner - e_loser)ᵀ C (e_winner - e_loser) = |W_winner - W_loser|².
    difference = W[pairs.winner] - W[pairs.loser]
    v = np.einsum("ij,ij->i", difference, difference)
    delta = -0.5 * scale**3 * (A.T @ (w * third * v))
    # b = (I - Λ C) δ.
    b = delta - hessian @ (W @ (W.T @ delta))
    # ½ a aᵀ + ½ (b aᵀ + a bᵀ) = ½ (a + b)(a + b)ᵀ - ½ b bᵀ (per diagonal block with a block prior).
    if fit.predictive_matrix.ndim == 2:
        G = 0.5 * (np.outer(a + b, a + b) - np.outer(b, b) - fit.predictive_matrix)
    else:
        n_blocks = len(fit.predictive_matrix)
        total, b_blocks = (a + b).reshape(n_blocks, -1), b.reshape(n_blocks, -1)
        G = 0.5 * (np.einsum("ki,kj->kij", total, total) - np.einsum("ki,kj->kij", b_blocks, b_blocks))
        G -= 0.5 * fit.predictive_matrix
    # ln σ: -Σ w ∂ℓ/∂lnσ  -  ½ tr(C ∂Λ/∂lnσ)  +  δᵀ ∂f̂/∂lnσ, with ∂z/∂lnσ = -z.
    explicit_loss = np.sum(w * first * z)
    explicit_logdet = 0.5 * scale**2 * np.sum(w * v * (2.0 * second + z * third))
    dg_dlog_noise = -scale * (A.T @ (w * (first + z * second)))
    latent_d_log_noise = -(W @ (W.T @ dg_dlog_noise))
    implicit = delta @ latent_d_log_noise
    return G, float(explicit_loss + explicit_logdet + implicit), latent_d_log_noise


def latent_tangent(fit: LaplaceFit, kernel_products: np.ndarray) -> np.ndarray:
    """∂f̂/∂θ = (I + KΛ)⁻¹ K_θ a = (I - C Λ) K_θ a for kernel hyperparameters θ, shape (N, m), given
    kernel_products = K_θ a for each θ as columns (N, m); a predictor for f̂ when θ moves."""
    W = fit.posterior_factor
    return kernel_products - W @ (W.T @ (fit.hessian @ kernel_products))
