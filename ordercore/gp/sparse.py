"""Seed 002's GP preference model for many rows: the subset-of-regressors prior on M inducing inputs,
with the same Laplace approximation and evidence.

The exact model (``laplace``) costs O(N³) time and O(N²) memory in the N instances preferences
touch.  Here the latent function is carried by M << N inducing inputs Z, the subset-of-regressors /
deterministic-training-conditional prior of Quiñonero-Candela & Rasmussen (2005, "A unifying view
of sparse approximate Gaussian process regression", JMLR 6, §4-5):

    f ~ N(0, Q),   Q = K_XZ K_ZZ⁻¹ K_ZX,

written in weight space as f = Φ w with Φ = K_XZ L⁻ᵀ (N, M), K_ZZ = L Lᵀ, w ~ N(0, I_M).  Seed 002's
functional (10) becomes

    S(w) = Σ_k w_k ℓ(z_k) + ½ wᵀ w,    z = scale · A Φ w,

convex in w, and its Laplace evidence (12), by Sylvester's identity |I_N + QΛ| = |I_M + ΦᵀΛΦ|, is

    ln p(D | θ) ≈ -S(ŵ) - ½ ln |B|,    B = I_M + Φᵀ Λ Φ,

so a Newton step and the evidence cost O(N M² + p M) time and O((N + p) M) memory.  With Z = the
instances, Q = K and Φ = L: the exact model's whitened Newton, step for step.

Predictions use the projected-process (DTC) predictive distribution (Seeger, Williams & Lawrence
2003; Rasmussen & Williams 2006, §8.3.3): mean k(x)ᵀ β with β = L⁻ᵀ ŵ, covariance
k(x, x') - k(x)ᵀ P k(x') with P = L⁻ᵀ (I - B⁻¹) L⁻¹.  These are the exact model's formulas with Z in
place of the instances, so one estimator predicts with either fit; and unlike the plain
subset-of-regressors variance, k(x, x) - Q(x, x) keeps the prior's uncertainty away from Z.

Inducing inputs are k-means centres of the instances (as Hensman, Matthews & Ghahramani 2015 start
theirs); they stay fixed while θ = (ln ℓ..., ln σ) maximises the approximate evidence by the search
of ``evidence``, with the gradient derived in ``SparseEvidenceProblem.gradient``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from ordercore.gp.covariance import SquaredExponential
from ordercore.gp.evidence import Hyperparameters, parallel_products
from ordercore.gp.laplace import (
    NEWTON_TOLERANCE,
    SEARCH_NEWTON_TOLERANCE,
    MapObjective,
    NewtonState,
    PairData,
    newton_minimize,
    probit_loss,
)
from ordercore.numerics.cholesky import cholesky_with_jitter

KMEANS_MAX_ITER = 20
"""Lloyd iterations placing the inducing inputs: centres move little after the first few, and the
evidence search, not the centres, decides the fit's quality."""

PAIR_BLOCK = 4096
"""Preferences whose rows of A Φ are formed at once (B's terms, the gradient's variances): a fit holds
PAIR_BLOCK × M of them, never p × M, however many preferences it learns from."""

LAPLACIAN_ROUTE = 1.6
"""Preferences entering B per latent value above which B - I is formed as Φᵀ (Λ Φ), an N × M by
M × M product, rather than pair by pair (p M² / 2 for a symmetric update): on California's rule
sample (p / N = 2.7, M = 200, one thread) the product took 0.6 of the pairs' time."""

NEGLIGIBLE_HESSIAN = np.finfo(np.float64).eps
"""Largest total norm of the terms c_k y_k y_kᵀ of B - I (y_k = row k of A Φ) left out of B: below one
rounding of B's identity, so ŵ, ln |B| and every solve are the same to rounding.  A preference whose z
is far in the probit's tail has c_k = scale² w ℓ''(z_k) ≈ scale² w z φ(z) far below this; at the small σ
of nearly consistent preferences (a rule's) that is all but a few percent of them."""


def inducing_inputs(inputs: np.ndarray, n_inducing: int, random_state) -> np.ndarray:
    """M = min(n_inducing, distinct rows) inducing inputs, shape (M, n_features): k-means centres of
    ``inputs`` (N, n_features), or the distinct rows themselves when there are no more than M.

    k-means runs on one thread: its OpenMP workers spin while they wait, and on a loaded 2-core
    machine (California, 14,301 rows, M = 200) two of them took 4 s where one takes 0.4 s; the
    centres are the same to rounding."""
    distinct = np.unique(inputs, axis=0)
    if len(distinct) <= n_inducing:
        return distinct
    kmeans = KMeans(n_inducing, n_init=1, max_iter=KMEANS_MAX_ITER, random_state=random_state)
    with threadpool_limits(limits=1):
        return kmeans.fit(distinct).cluster_centers_


@dataclass(frozen=True)
class InducingFeatures:
    """The weight-space features Φ = K_XZ L⁻ᵀ of n_blocks GPs sharing one kernel (block b's latent
    values sit at b·N ... (b+1)·N - 1, its weights at b·M ... (b+1)·M - 1).

    cross : K_XZ (N, M).  inducing_covariance : K_ZZ (M, M), without jitter.  cholesky : L (M, M),
    lower, with K_ZZ + jitter I = L Lᵀ.  phi : Φ (n_blocks·N, n_blocks·M), block diagonal.
    """

    cross: np.ndarray
    inducing_covariance: np.ndarray
    cholesky: np.ndarray
    phi: np.ndarray
    n_blocks: int

    @classmethod
    def build(cls, kernel: SquaredExponential, inputs: np.ndarray, inducing: np.ndarray, n_blocks: int):
        """Φ for instances ``inputs`` (N, n_features) and inducing inputs (M, n_features)."""
        cross, covariance = kernel(inputs, inducing), kernel(inducing, inducing)
        L, _ = cholesky_with_jitter(covariance)
        phi = scipy.linalg.solve_triangular(L, cross.T, lower=True, check_finite=False).T
        if n_blocks > 1:
            phi = np.kron(np.eye(n_blocks), phi)
        return cls(cross, covariance, L, np.ascontiguousarray(phi), n_blocks)

    @functools.cached_property
    def row_norms(self) -> np.ndarray:
        """|Φ_i|² = Q_ii for each latent value, shape (n_blocks·N,)."""
        return np.einsum("ij,ij->i", self.phi, self.phi)

    def pair_rows(self, pairs: PairData, chosen: np.ndarray) -> np.ndarray:
        """Rows of A Φ, (Φ_winner - Φ_loser), for the ``chosen`` preferences (indices, (k,)): shape
        (k, n_blocks·M)."""
        return self.phi[pairs.winner[chosen]] - self.phi[pairs.loser[chosen]]

    def hessian_factor(self, pairs: PairData, curvature: np.ndarray) -> np.ndarray:
        """R, upper, with B = Rᵀ R = I + Φᵀ Λ Φ = I + Σ_k c_k y_kᵀ y_k for Λ = Aᵀ diag(c) A, c (p,) >= 0
        (ℓ'' > 0: the probit is log-concave) and y_k row k of A Φ.

        Only preferences with c_k |y_k|² >= ``NEGLIGIBLE_HESSIAN`` / p enter, PAIR_BLOCK at a time, each
        block a symmetric rank-k update Yᵀ Y with Y = diag(√c) A Φ; |y_k|² <= 2 (|Φ_winner|² +
        |Φ_loser|²) bounds each term left out.  When more than ``LAPLACIAN_ROUTE`` of them per latent
        value enter, B - I = Φᵀ (Λ Φ) over the latent values instead (every preference, Λ sparse)."""
        bound = curvature * 2.0 * (self.row_norms[pairs.winner] + self.row_norms[pairs.loser])
        active = np.flatnonzero(bound >= NEGLIGIBLE_HESSIAN / max(curvature.size, 1))
        with parallel_products():
            B = self._hessian_terms(pairs, curvature, active)
        B[np.diag_indices_from(B)] += 1.0
        return scipy.linalg.cholesky(B, lower=False, overwrite_a=True, check_finite=False)

    def _hessian_terms(self, pairs: PairData, curvature: np.ndarray, active: np.ndarray) -> np.ndarray:
        """Φᵀ Λ Φ from the ``active`` preferences, or from every one through Λ when they are many."""
        if active.size > LAPLACIAN_ROUTE * self.phi.shape[0]:
            return self.phi.T @ (pairs.laplacian(curvature) @ self.phi)
        terms = np.zeros((self.phi.shape[1],) * 2)
        for start in range(0, active.size, PAIR_BLOCK):
            chosen = active[start : start + PAIR_BLOCK]
            weighted = self.pair_rows(pairs, chosen) * np.sqrt(curvature[chosen])[:, None]
            terms += weighted.T @ weighted
        return terms

    def pair_variances(self, pairs: PairData, factor: np.ndarray) -> np.ndarray:
        """v_k = Var(f_winner - f_loser) under C = Φ B⁻¹ Φᵀ for B = Rᵀ R (R = ``factor``, upper): the
        squared rows of (A Φ) R⁻¹, shape (p,), PAIR_BLOCK preferences at a time."""
        V = scipy.linalg.solve_triangular(factor, self.phi.T, trans="T", lower=False, check_finite=False).T
        v = np.empty(pairs.winner.size)
        for start in range(0, v.size, PAIR_BLOCK):
            chosen = np.arange(start, min(start + PAIR_BLOCK, v.size))
            difference = V[pairs.winner[chosen]] - V[pairs.loser[chosen]]
            v[chosen] = np.einsum("ij,ij->i", difference, difference)
        return v

    def to_weights(self, values: np.ndarray) -> np.ndarray:
        """w = L⁻¹ u per block, for latent values u at the inducing inputs, shape (n_blocks·M,)."""
        u = values.reshape(self.n_blocks, -1).T
        return scipy.linalg.solve_triangular(self.cholesky, u, lower=True, check_finite=False).T.ravel()

    def to_values(self, weights: np.ndarray) -> np.ndarray:
        """u = L w per block: the latent values at the inducing inputs, shape (n_blocks·M,)."""
        return (self.cholesky @ weights.reshape(self.n_blocks, -1).T).T.ravel()

    def to_alpha(self, weights: np.ndarray) -> np.ndarray:
        """β = L⁻ᵀ w per block, the predictive mean's coefficients on k(x, Z), shape weights.shape:
        (n_blocks·M,), or (n_blocks·M, k) for k columns."""
        m = len(self.cholesky)
        blocks = weights.reshape(self.n_blocks, m, -1)
        solved = [
            scipy.linalg.solve_triangular(self.cholesky, b, lower=True, trans="T", check_finite=False) for b in blocks
        ]
        return np.concatenate(solved).reshape(weights.shape)


@dataclass(frozen=True)
class SparseLaplaceFit:
    """The Laplace approximation at ŵ for one hyperparameter setting.

    weights : ŵ (n_blocks·M,).  latent : L ŵ, the latent values at the inducing inputs (what a
    hyperparameter search carries from one θ to the next).  instance_latent : f̂ = Φ ŵ (n_blocks·N,).
    alpha : β = L⁻ᵀ ŵ; predictive_matrix : P = L⁻ᵀ (I - B⁻¹) L⁻¹ (M, M), for n_blocks = 1 only (None
    otherwise): the predictive mean and covariance as in ``LaplaceFit``.  log_evidence : eq. (12).
    n_iter : Newton iterations.  The rest serves ``SparseEvidenceProblem.gradient``.
    """

    weights: np.ndarray
    latent: np.ndarray
    instance_latent: np.ndarray
    alpha: np.ndarray
    predictive_matrix: np.ndarray | None
    log_evidence: float
    n_iter: int
    hessian_factor: np.ndarray  # R, upper, with B = Rᵀ R
    hessian: object  # Λ (n_blocks·N, n_blocks·N), sparse
    likelihood_gradient: np.ndarray  # γ = ∂ Σ w ℓ / ∂f at f̂ (n_blocks·N,)
    z: np.ndarray  # (p,)

    @property
    def posterior_factor(self) -> np.ndarray:
        """R, what a hyperparameter search hands to the next fit as its lagged Hessian factor."""
        return self.hessian_factor


def sparse_laplace_fit(
    features: InducingFeatures,
    pairs: PairData,
    noise: float,
    weights0: np.ndarray | None = None,
    tolerance: float = NEWTON_TOLERANCE,
    hessian_factor0: np.ndarray | None = None,
    polish: bool = True,
) -> SparseLaplaceFit:
    """MAP weights ŵ by Newton's method on S(w) (``newton_minimize``) and the Laplace evidence (12),
    as ``laplace_fit`` does for the exact model.

    weights0 : optional start (n_blocks·M,), kept if it beats w = 0.  hessian_factor0 : optional R0
    of a nearby fit (B0 = R0ᵀ R0, e.g. at the last θ of a search, whose Φ is close): chord steps with
    B0 (O(p M) each) run while they converge fast, so a small change of θ needs one factorisation of
    B (O(p M²)), at ŵ.  polish : as in ``newton_minimize``.
    """
    scale = 1.0 / (np.sqrt(2.0) * noise)
    phi = features.phi
    objective = MapObjective(pairs, scale, lambda w: phi @ w)

    def factorize(state):
        # Λ = scale² Aᵀ diag(w ℓ'') A, and B = I + Φᵀ Λ Φ, the Hessian of S in w.
        curvature = (scale * scale) * state.curvature
        return curvature, features.hessian_factor(pairs, curvature)  # Λ itself only at the optimum

    def lagged(g):
        return scipy.linalg.cho_solve((hessian_factor0, False), g, check_finite=False)

    state, curvature, R, n_iter = newton_minimize(
        objective,
        lambda state: state.x + phi.T @ state.gradient,
        factorize,
        np.zeros(phi.shape[1]),
        weights0,
        None if hessian_factor0 is None else lagged,
        tolerance,
        polish,
    )
    return _fit_at(features, state, pairs.laplacian(curvature), R, n_iter)


def _fit_at(features: InducingFeatures, state: NewtonState, hessian, R, n_iter: int) -> SparseLaplaceFit:
    """The fit at the final Newton iterate (state) with B = Rᵀ R factorised there."""
    w, z, value, gradient = state.x, state.z, state.value, state.gradient
    log_evidence = -value - np.sum(np.log(np.diag(R)))
    predictive_matrix = None
    if features.n_blocks == 1:
        # P = L⁻ᵀ (I - B⁻¹) L⁻¹ = L⁻ᵀ L⁻¹ - (L⁻ᵀ R⁻¹)(L⁻ᵀ R⁻¹)ᵀ.
        L = features.cholesky
        identity = np.eye(len(L))
        inverse_L = scipy.linalg.solve_triangular(L, identity, lower=True, check_finite=False)
        inverse_R = scipy.linalg.solve_triangular(R, identity, lower=False, check_finite=False)
        factor = inverse_L.T @ inverse_R
        predictive_matrix = inverse_L.T @ inverse_L - factor @ factor.T
    return SparseLaplaceFit(
        weights=w,
        latent=features.to_values(w),
        instance_latent=features.phi @ w,
        alpha=features.to_alpha(w),
        predictive_matrix=predictive_matrix,
        log_evidence=float(log_evidence),
        n_iter=n_iter,
        hessian_factor=R,
        hessian=hessian,
        likelihood_gradient=gradient,
        z=z,
    )


@dataclass(frozen=True)
class SparseEvidenceProblem(Hyperparameters):
    """``EvidenceProblem`` for the sparse model: the same θ, prior and search, with the latent prior
    Q over ``inputs`` (N, n_features) carried by ``inducing`` (M, n_features).  ``laplace`` and
    ``gradient`` take and return what ``evidence._Search`` expects, with "latent" meaning the latent
    values at the inducing inputs (carried from one θ to the next)."""

    inputs: np.ndarray
    inducing: np.ndarray
    pairs: PairData
    signal_variance: float
    n_blocks: int = 1
    length_scale_prior: tuple[float, float] | None = None
    linear: bool = False

    def laplace(
        self, theta: np.ndarray, latent0=None, posterior_factor0=None, search: bool = False
    ) -> tuple[SquaredExponential, InducingFeatures, SparseLaplaceFit]:
        """The kernel, the features Φ and the Laplace fit at θ, Newton starting from the latent values
        latent0 at the inducing inputs, with chord steps on the factor R of a nearby fit's B
        (posterior_factor0) if given."""
        kernel = self.kernel(theta)
        features = InducingFeatures.build(kernel, self.inputs, self.inducing, self.n_blocks)
        weights0 = None if latent0 is None else features.to_weights(latent0)
        tolerance = SEARCH_NEWTON_TOLERANCE if search else NEWTON_TOLERANCE
        fit = sparse_laplace_fit(
            features, self.pairs, float(np.exp(theta[-1])), weights0, tolerance, posterior_factor0, not search
        )
        return kernel, features, fit

    def gradient(self, theta, kernel, features: InducingFeatures, fit: SparseLaplaceFit):
        """∂ ln p(D|θ)/∂θ for θ = (ln ℓ..., ln σ), shape θ.shape, and a zero tangent (n_blocks·M, θ.size):
        the search then starts each Newton solve from the last θ's latent values at Z.

        The evidence depends on θ through Φ and σ.  Its total derivative in Φ (through ŵ too) is, with
        Σ = B⁻¹, γ the likelihood's gradient in f, δ = ∂(-½ ln|B|)/∂f̂ as in ``evidence_gradient`` and
        e = Σ Φᵀ δ (the standard derivation; seed 002's (14)-(15) are the exact model's):

            Ψ = ∂E/∂Φ = (δ - γ - ΛΦ e) ŵᵀ - γ eᵀ - ΛΦ Σ.

        E depends on Φ and σ only through Φ / σ, so ∂E/∂ln σ = -Σ Ψ ⊙ Φ.  E depends on Φ only through
        Q = ΦΦᵀ, so any dΦ giving dQ serves: dΦ = dK_XZ L⁻ᵀ - ½ Φ L⁻¹ dK_ZZ L⁻ᵀ, whence
        dE = Σ (Ψ L⁻¹) ⊙ dK_XZ - ½ Σ sym(L⁻ᵀ Φᵀ Ψ L⁻¹) ⊙ dK_ZZ.
        """
        L, n, m = features.cholesky, len(self.inputs), len(self.inducing)
        with parallel_products():
            cross_sensitivity, phi_sensitivity = self._sensitivities(features, fit, float(np.exp(theta[-1])))
        d_log_noise = -float(np.trace(phi_sensitivity))
        cross_sensitivity = _diagonal_block_sum(cross_sensitivity, n, m)
        T = _diagonal_block_sum(phi_sensitivity, m, m)
        T = scipy.linalg.solve_triangular(L, T, lower=True, trans="T", check_finite=False)
        T = scipy.linalg.solve_triangular(L, T.T, lower=True, trans="T", check_finite=False).T
        inducing_sensitivity = -0.25 * (T + T.T)
        length_scales = kernel.log_length_scale_gradient(
            self.inputs, self.inducing, features.cross, cross_sensitivity
        ) + kernel.log_length_scale_gradient(
            self.inducing, self.inducing, features.inducing_covariance, inducing_sensitivity
        )
        return np.append(length_scales, d_log_noise), np.zeros((fit.latent.size, theta.size))

    def _sensitivities(self, features: InducingFeatures, fit: SparseLaplaceFit, noise: float):
        """Ψ L⁻¹ (shape Φ.shape) and Φᵀ Ψ (shape (n_blocks·M,) * 2), Ψ = ∂E/∂Φ as in ``gradient``,
        without forming Ψ: with a = δ - γ - ΛΦ e and ΦᵀΛΦ = B - I at ŵ,
        Ψ L⁻¹ = a βᵀ - γ (L⁻ᵀ e)ᵀ - ΛΦ Σ L⁻¹ and Φᵀ Ψ = (Φᵀ a) ŵᵀ - (Φᵀ γ) eᵀ - (I - Σ)."""
        scale = 1.0 / (np.sqrt(2.0) * noise)
        pairs, phi, R = self.pairs, features.phi, fit.hessian_factor
        v = features.pair_variances(pairs, R)  # Var_C(f_winner - f_loser) under C = Φ Σ Φᵀ
        third = probit_loss(fit.z)[3]
        delta = -0.5 * scale**3 * (pairs.incidence.T @ (pairs.weight * third * v))
        gamma = fit.likelihood_gradient
        hessian_phi = fit.hessian @ phi
        sigma = scipy.linalg.cho_solve((R, False), np.eye(len(R)), check_finite=False)
        e = sigma @ (phi.T @ delta)
        a = delta - gamma - hessian_phi @ e
        cross = hessian_phi @ -features.to_alpha(sigma).T  # -ΛΦ Σ L⁻¹, with Σ L⁻¹ = (L⁻ᵀ Σ)ᵀ
        cross += np.outer(a, fit.alpha)
        cross -= np.outer(gamma, features.to_alpha(e))
        phi_psi = np.outer(phi.T @ a, fit.weights) - np.outer(phi.T @ gamma, e) + sigma
        phi_psi[np.diag_indices_from(phi_psi)] -= 1.0
        return cross, phi_psi


def _diagonal_block_sum(matrix: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """Σ_b of the b-th diagonal block, shape (rows, columns), of a block-diagonal-shaped matrix."""
    n_blocks = matrix.shape[0] // rows
    return sum(matrix[b * rows : (b + 1) * rows, b * columns : (b + 1) * columns] for b in range(n_blocks))
