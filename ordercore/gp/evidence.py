"""Hyperparameters by maximising the Laplace evidence (seed 002 §2.2.3): θ = (ln ℓ..., ln σ) for the
squared-exponential kernel, by L-BFGS-B with the analytic gradient (eqs. (14)-(15)), from several
starts, the best evidence kept.  An optional Gamma prior on the length scales turns this into MAP-II
(evidence plus log prior), which keeps ARD from switching features off on little data.

``EvidenceProblem`` says how the latent prior is built from the kernel (one GP over instances, or
one GP per label sharing the kernel, seed 002 §3); the search is the same for both.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.optimize
from joblib import effective_n_jobs
from threadpoolctl import threadpool_limits

from ordercore.gp.kernel import SquaredExponential
from ordercore.gp.laplace import (
    NEWTON_TOLERANCE,
    SEARCH_NEWTON_TOLERANCE,
    LaplaceFit,
    PairData,
    evidence_gradient,
    laplace_fit,
    latent_tangent,
)

LOG_LENGTH_SCALE_BOUNDS = (np.log(1e-2), np.log(1e3))
"""Length scales searched, in units of the (standardised) features."""

LOG_NOISE_BOUNDS = (np.log(1e-3), np.log(1e2))
"""Noise σ searched, in units of the latent f (whose prior standard deviation is √signal_variance);
σ = 1e-3 already means noise-free preferences for every prediction."""

RESTART_SPREAD = np.log(10.0)
"""Restarts draw each log hyperparameter uniformly within ± this of the first start."""

SCREEN_ITERATIONS = 5
"""L-BFGS-B iterations every start gets before only the best one is carried on."""

OPTIMIZER_MAX_ITER = 200
"""L-BFGS-B iteration cap for the start carried to convergence."""

OPTIMIZER_GRADIENT_TOLERANCE = 1e-5
"""L-BFGS-B stops when every projected gradient entry of the log evidence per unit preference weight
is below this (for 1000 preferences a step of 0.01 in a log hyperparameter then changes the
evidence by about 1e-4 nats)."""

OPTIMIZER_RELATIVE_TOLERANCE = 1e-7
"""L-BFGS-B also stops when an iteration improves the log evidence by less than this fraction."""


@dataclass(frozen=True)
class EvidenceProblem:
    """Latent values over ``n_blocks`` copies of the instances (1 for instance preferences, the number
    of labels for label preferences), all with the prior K(inputs, inputs) of one kernel.

    inputs : (N, n_features) standardised instances.  pairs : preferences over the n_blocks * N
    latent values, block b holding indices b * N ... (b + 1) * N - 1.
    """

    inputs: np.ndarray
    pairs: PairData
    signal_variance: float
    n_blocks: int = 1
    length_scale_prior: tuple[float, float] | None = None

    def log_prior(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """ln p(θ) up to a constant and its gradient, shape θ.shape: a Gamma(shape a, rate b) prior on
        each length scale ℓ, i.e. a ln ℓ - b ℓ in the variable ln ℓ; flat in ln σ.  Zero without a prior."""
        if self.length_scale_prior is None:
            return 0.0, np.zeros_like(theta)
        shape, rate = self.length_scale_prior
        length_scale = np.exp(theta[:-1])
        return float(np.sum(shape * theta[:-1] - rate * length_scale)), np.append(shape - rate * length_scale, 0.0)

    def kernel(self, theta: np.ndarray) -> SquaredExponential:
        return SquaredExponential(np.exp(theta[:-1]), self.signal_variance)

    @functools.cached_property
    def squared_distances(self) -> np.ndarray:
        """|x_i - x_j|² over the inputs, shape (N, N): an isotropic K is then one exp per evaluation."""
        return SquaredExponential(np.ones(1), 1.0).squared_distances(self.inputs, self.inputs)

    def laplace(
        self, theta: np.ndarray, latent0=None, tolerance: float = NEWTON_TOLERANCE
    ) -> tuple[SquaredExponential, np.ndarray, LaplaceFit]:
        """The kernel, K(inputs, inputs) and the Laplace fit at θ (Newton from latent0 if given)."""
        kernel = self.kernel(theta)
        if theta.size == 2:
            K = kernel.from_squared_distances(self.squared_distances)
        else:
            K = kernel(self.inputs, self.inputs)
        prior = K if self.n_blocks == 1 else np.kron(np.eye(self.n_blocks), K)
        return kernel, K, laplace_fit(prior, self.pairs, float(np.exp(theta[-1])), latent0, tolerance)

    def gradient(self, theta, kernel, K, fit) -> tuple[np.ndarray, np.ndarray]:
        """∂ ln p(D|θ)/∂θ for θ = (ln ℓ..., ln σ), shape θ.shape, and ∂f̂/∂θ, shape (n_latent, θ.size)."""
        G, d_log_noise, latent_d_log_noise = evidence_gradient(fit, self.pairs, float(np.exp(theta[-1])))
        n = len(K)
        # Every block's prior is the same K, so ∂K_block/∂θ contracts with the sum of G's diagonal blocks
        # and acts on each block of a = K⁻¹ f̂ separately.
        G = sum(G[b * n : (b + 1) * n, b * n : (b + 1) * n] for b in range(self.n_blocks))
        products = kernel.log_length_scale_products(self.inputs, K, fit.alpha.reshape(self.n_blocks, n).T)
        products = products.transpose(1, 0, 2).reshape(self.n_blocks * n, -1)  # block-major, as the latent
        tangent = np.column_stack([latent_tangent(fit, products), latent_d_log_noise])
        return np.append(kernel.log_length_scale_gradient(self.inputs, K, G), d_log_noise), tangent


class _Search:
    """One L-BFGS-B run on the negative log evidence per unit preference weight, remembering the best
    θ met.  Each Newton solve starts from the last f̂ moved along ∂f̂/∂θ to the new θ, so one or two
    Newton iterations usually suffice."""

    def __init__(self, problem: EvidenceProblem, bounds):
        self.problem, self.bounds = problem, bounds
        self.last = None  # (θ, f̂, ∂f̂/∂θ) of the last evaluation
        # L-BFGS-B's first step moves by the raw gradient (its first Hessian guess is the identity);
        # a log evidence summed over hundreds of preferences would jump to the bounds.
        self.total_weight = float(np.sum(problem.pairs.weight))
        self.best_value, self.best = -np.inf, None

    def negative_log_evidence(self, theta):
        # Predictor: f̂ at the last θ moved along its tangent ∂f̂/∂θ; Newton corrects it.
        latent0 = None if self.last is None else self.last[1] + self.last[2] @ (theta - self.last[0])
        kernel, K, fit = self.problem.laplace(theta, latent0, SEARCH_NEWTON_TOLERANCE)
        gradient, tangent = self.problem.gradient(theta, kernel, K, fit)
        self.last = (theta.copy(), fit.latent, tangent)
        # The objective is the log evidence, plus the log prior of θ when one is set (MAP-II).
        log_prior, prior_gradient = self.problem.log_prior(theta)
        value = fit.log_evidence + log_prior
        if value > self.best_value:
            self.best_value, self.best = value, (theta.copy(), kernel, fit)
        return -value / self.total_weight, -(gradient + prior_gradient) / self.total_weight

    def run(self, theta0, max_iter) -> None:
        scipy.optimize.minimize(
            self.negative_log_evidence,
            theta0,
            jac=True,
            method="L-BFGS-B",
            bounds=self.bounds,
            options={"maxiter": max_iter, "gtol": OPTIMIZER_GRADIENT_TOLERANCE, "ftol": OPTIMIZER_RELATIVE_TOLERANCE},
        )


def maximize_evidence(
    problem: EvidenceProblem, start: np.ndarray, n_restarts: int, n_jobs, rng
) -> tuple[np.ndarray, SquaredExponential, LaplaceFit]:
    """θ maximising the Laplace evidence (12) from ``start`` and n_restarts random starts around it,
    with the kernel and the Laplace fit there.

    Every start gets ``SCREEN_ITERATIONS`` of L-BFGS-B (in up to n_jobs threads); the start that
    reached the highest evidence is then run to convergence.
    """
    bounds = [LOG_LENGTH_SCALE_BOUNDS] * (start.size - 1) + [LOG_NOISE_BOUNDS]
    low, high = np.array(bounds).T
    starts = [np.clip(start, low, high)] + [
        np.clip(start + rng.uniform(-RESTART_SPREAD, RESTART_SPREAD, start.size), low, high) for _ in range(n_restarts)
    ]
    searches = [_Search(problem, bounds) for _ in starts]
    # One BLAS thread per search: at N ~ 500 OpenBLAS gains nothing from a second thread (measured
    # slower and erratic on 2 cores), while two searches side by side nearly halve the time.
    with threadpool_limits(limits=1, user_api="blas"):
        n_threads = min(effective_n_jobs(n_jobs), len(starts))
        if n_threads > 1:
            with ThreadPoolExecutor(max_workers=n_threads) as pool:
                list(pool.map(lambda search, theta0: search.run(theta0, SCREEN_ITERATIONS), searches, starts))
        else:
            for search, theta0 in zip(searches, starts, strict=True):
                search.run(theta0, SCREEN_ITERATIONS)
        best = max(searches, key=lambda search: search.best_value)
        if best.best is None:
            raise ValueError("evidence maximisation failed from every start (non-finite evidence)")
        best.run(best.best[0], OPTIMIZER_MAX_ITER)
        # The fit a model predicts with is Newton's to the final tolerance (one or two more steps).
        theta, _, fit = best.best
        kernel, _, fit = problem.laplace(theta, fit.latent)
    return theta, kernel, fit
