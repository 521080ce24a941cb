"""Hyperparameters by maximising the Laplace evidence (seed 002 §2.2.3): θ = (ln ℓ..., ln σ) for the
squared-exponential kernel, θ = (ln σ) for the linear one (it has no length scale), by L-BFGS-B
with the analytic gradient (eqs. (14)-(15)), from several starts, the best evidence kept.  A Gamma
prior on the length scales (``GPPreferenceModel``'s default) turns this into MAP-II (evidence plus
log prior), which keeps ARD from switching features off on little data.

``EvidenceProblem`` says how the latent prior is built from the kernel (one GP over instances, or
one GP per label sharing the kernel, seed 002 §3); the search is the same for both.
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.optimize
from threadpoolctl import ThreadpoolController

from ordercore.gp.covariance import Linear, SquaredExponential
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

SCREEN_ITERATIONS = 1
"""L-BFGS-B iterations after which a restart still below the best evidence is abandoned.  One, not
two: a restart's second iteration is the first quasi-Newton step, built from a single pair of
gradients, and on Boston it jumped 5-8 units of log hyperparameter (evaluations at 2-4 times the
usual cost).  On the Boston bench (rbf, ARD, ARD + prior; 10 seeds each) and the synthetic one
(5 seeds) one iteration found the same optima as two, in 20-35 % less time."""

MIN_OBJECTIVE_SCALE = 1e-3
"""Floor of the objective's scale (see ``_Search``), per unit preference weight: a start already at
an optimum has a near-zero gradient."""

SAME_OPTIMUM_RADIUS = 0.25
"""A restart within this of an optimum already found (in every log hyperparameter) with lower
evidence is climbing to that optimum, and is abandoned."""

OPTIMIZER_MAX_ITER = 200
"""L-BFGS-B iteration cap of one start."""

OPTIMIZER_GRADIENT_TOLERANCE = 1e-4
"""L-BFGS-B stops when every projected gradient entry of the log evidence, per unit preference weight,
is below this: for 700 preferences, 0.07 nats per unit of log hyperparameter, where a step of 0.01
changes the evidence by under 1e-3 nats.  Against 1e-5 it saved 2-4 evaluations per start (fits
15-35 % faster on the Boston and synthetic benches) and moved test errors by at most 0.06 points."""

OPTIMIZER_RELATIVE_TOLERANCE = 1e-7
"""L-BFGS-B also stops when an iteration improves the log evidence by less than this fraction."""

MAX_EVALUATIONS = 100
"""Most evaluations of the evidence one search makes over all its starts (the final fit aside): the
total a fit's progress reports, and a bound on its time.  Whole default fits took 7-33 (Boston and
synthetic benches, every kernel and prior) and 18 (California, 40,000 of a rule's preferences), so
the cap stops only a search that wanders; the best evidence met then wins, as always."""


ISOTROPIC_EVALUATIONS = MAX_EVALUATIONS // 2
"""Most evaluations the shared length scale's search may spend before an ARD search started from its
optimum (``maximize_evidence(isotropic_first=True)``), leaving the ARD search at least the other half."""


def check_restarts(n_restarts: int) -> None:
    """``ValueError`` for more restarts than a search can run: every start costs at least one of the
    ``MAX_EVALUATIONS``, so at most ``MAX_EVALUATIONS - 1`` follow the first (10**6 built every start up
    front, 150 MB, to use a few)."""
    if n_restarts > MAX_EVALUATIONS - 1:
        raise ValueError(
            f"n_restarts is {n_restarts}, more than a fit can run: its hyperparameter search makes at most "
            f"{MAX_EVALUATIONS} evaluations of the evidence over all its starts, at least one each, so at most "
            f"{MAX_EVALUATIONS - 1} restarts follow the first start; give n_restarts <= {MAX_EVALUATIONS - 1}"
        )


class _OutOfEvaluations(Exception):
    """Raised inside L-BFGS-B's objective once a search has spent ``MAX_EVALUATIONS``."""


class Hyperparameters:
    """What every evidence problem shares for θ = (ln ℓ..., ln σ): the kernel, and the log prior of a
    Gamma(shape a, rate b) on each length scale ℓ (a ln ℓ - b ℓ in the variable ln ℓ; flat in ln σ).
    Needs the attributes ``signal_variance``, ``length_scale_prior`` ((a, b) or None: no prior) and
    ``linear`` (the linear kernel σ_k² x·x', whose θ is (ln σ) alone, instead of the squared-exponential)."""

    def kernel(self, theta: np.ndarray) -> SquaredExponential | Linear:
        if self.linear:
            return Linear(self.signal_variance)
        return SquaredExponential(np.exp(theta[:-1]), self.signal_variance)

    def log_prior(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """ln p(θ) up to a constant and its gradient, shape θ.shape (zero without a prior)."""
        if self.length_scale_prior is None:
            return 0.0, np.zeros_like(theta)
        shape, rate = self.length_scale_prior
        length_scale = np.exp(theta[:-1])
        return float(np.sum(shape * theta[:-1] - rate * length_scale)), np.append(shape - rate * length_scale, 0.0)


@dataclass(frozen=True)
class EvidenceProblem(Hyperparameters):
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
    linear: bool = False

    @functools.cached_property
    def squared_distances(self) -> np.ndarray:
        """|x_i - x_j|² over the inputs, shape (N, N): an isotropic K is then one exp per evaluation."""
        return SquaredExponential(np.ones(1), 1.0).squared_distances(self.inputs, self.inputs)

    def laplace(
        self, theta: np.ndarray, latent0=None, posterior_factor0=None, search: bool = False
    ) -> tuple[SquaredExponential, np.ndarray, LaplaceFit]:
        """The kernel, K(inputs, inputs) and the Laplace fit at θ (Newton from latent0, with the
        posterior factor of a nearby fit as inverse Hessian, if given; see ``laplace_fit``): to the
        final fit's accuracy, or to the search's (``SEARCH_NEWTON_TOLERANCE``, unpolished)."""
        kernel = self.kernel(theta)
        if theta.size == 2 and not self.linear:
            K = kernel.from_squared_distances(self.squared_distances)
        else:
            K = kernel(self.inputs, self.inputs)
        tolerance = SEARCH_NEWTON_TOLERANCE if search else NEWTON_TOLERANCE
        fit = laplace_fit(
            K, self.pairs, float(np.exp(theta[-1])), latent0, tolerance, posterior_factor0, not search, self.n_blocks
        )
        return kernel, K, fit

    def gradient(self, theta, kernel, K, fit) -> tuple[np.ndarray, np.ndarray]:
        """∂ ln p(D|θ)/∂θ for θ = (ln ℓ..., ln σ), shape θ.shape, and ∂f̂/∂θ, shape (n_latent, θ.size)."""
        G, d_log_noise, latent_d_log_noise = evidence_gradient(fit, self.pairs, float(np.exp(theta[-1])))
        n = len(K)
        # Every block's prior is the same K, so ∂K_block/∂θ contracts with the sum of G's diagonal blocks
        # (all ``evidence_gradient`` gives with a block prior) and acts on each block of a = K⁻¹ f̂ apart.
        G = G if self.n_blocks == 1 else G.sum(axis=0)
        products = kernel.log_length_scale_products(self.inputs, K, fit.alpha.reshape(self.n_blocks, n).T)
        products = products.transpose(1, 0, 2).reshape(self.n_blocks * n, -1)  # block-major, as the latent
        tangent = np.column_stack([latent_tangent(fit, products), latent_d_log_noise])
        return np.append(kernel.log_length_scale_gradient(self.inputs, self.inputs, K, G), d_log_noise), tangent


@contextlib.contextmanager
def blas_threads():
    """One thread in every BLAS for a hyperparameter search.  pip's numpy and scipy wheels each bundle
    an OpenBLAS: with two threads in both, each one's idle workers spin on the cores the other needs,
    and the exact model's Boston fit took twice as long; two threads in scipy's alone gained 3-5 %, not
    worth the bookkeeping; threads running starts side by side gained nothing either (scipy's LAPACK
    wrappers hold the GIL).  The sparse model's large products ask for more (``parallel_products``)."""
    with ThreadpoolController().select(user_api="blas").limit(limits=1):
        yield


@functools.cache
def _numpy_blas():
    """A threadpoolctl controller of numpy's own OpenBLAS (pip's wheel bundles it apart from scipy's),
    or None."""
    blas = ThreadpoolController().select(user_api="blas")
    numpy_own = [lib.filepath for lib in blas.lib_controllers if Path(lib.filepath).parent.name == "numpy.libs"]
    return blas.select(filepath=numpy_own) if numpy_own else None


@contextlib.contextmanager
def parallel_products():
    """Every core in numpy's BLAS for the products inside: the sparse model's O(p M²) and O(N M²) ones
    (B, Λ Φ Σ L⁻¹; California, 20,000 pairs: 6.2 s against 10.3 s with one thread everywhere, on 2
    cores), not its matrix-vector products, whose workers cost more than they save (40,000 pairs on a
    loaded 2-core machine: S and its gradient took 51 ms on one thread, 119 ms on two)."""
    numpy_blas = _numpy_blas()
    with numpy_blas.limit(limits=len(os.sched_getaffinity(0))) if numpy_blas else contextlib.nullcontext():
        yield


class _Evaluation(NamedTuple):
    """The last point a search evaluated: θ, f̂ (N,), ∂f̂/∂θ (N, θ.size), the posterior factor W
    (N, N), and the (value, gradient) returned to L-BFGS-B."""

    theta: np.ndarray
    latent: np.ndarray
    tangent: np.ndarray
    posterior_factor: np.ndarray
    returned: tuple[float, np.ndarray]


class _Search:
    """One L-BFGS-B run on the negative log evidence, remembering the best θ met.  Each Newton solve
    starts from the last f̂ moved along ∂f̂/∂θ to the new θ, with the last posterior covariance as
    its inverse Hessian, so it usually needs a single factorisation of B."""

    def __init__(self, problem: EvidenceProblem, bounds, on_evaluation=None, max_evaluations=MAX_EVALUATIONS):
        self.problem, self.bounds, self.on_evaluation = problem, bounds, on_evaluation
        self.max_evaluations, self.n_evaluations = max_evaluations, 0
        self.last: _Evaluation | None = None
        self.total_weight = float(np.sum(problem.pairs.weight))
        self.objective_scale = None  # set by the first evaluation
        self.best_value, self.best = -np.inf, None
        self.n_iter = 0

    def negative_log_evidence(self, theta):
        last = self.last
        if last is not None and np.array_equal(theta, last.theta):
            return last.returned
        if self.n_evaluations >= self.max_evaluations:
            raise _OutOfEvaluations
        self.n_evaluations += 1
        if last is None:
            kernel, K, fit = self.problem.laplace(theta, search=True)
        else:
            # Predictor: f̂ at the last θ moved along its tangent ∂f̂/∂θ; Newton corrects it.
            latent0 = last.latent + last.tangent @ (theta - last.theta)
            kernel, K, fit = self.problem.laplace(theta, latent0, last.posterior_factor, search=True)
        gradient, tangent = self.problem.gradient(theta, kernel, K, fit)
        # The objective is the log evidence, plus the log prior of θ when one is set (MAP-II).
        log_prior, prior_gradient = self.problem.log_prior(theta)
        value, gradient = fit.log_evidence + log_prior, gradient + prior_gradient
        if value > self.best_value:
            self.best_value, self.best = value, (theta.copy(), kernel, fit)
        if self.objective_scale is None:
            # L-BFGS-B's first step is the raw gradient (its first inverse Hessian guess is the
            # identity): dividing by the gradient's norm at the start makes that step one unit of
            # log hyperparameter.  (Per unit preference weight it was 0.07 on Boston, and a jump to
            # the bounds on the synthetic data without any scaling.)
            self.objective_scale = max(float(np.linalg.norm(gradient)), MIN_OBJECTIVE_SCALE * self.total_weight)
        returned = -value / self.objective_scale, -gradient / self.objective_scale
        self.last = _Evaluation(theta.copy(), fit.latent, tangent, fit.posterior_factor, returned)
        if self.on_evaluation is not None:
            self.on_evaluation(value)
        return returned

    def run(self, theta0: np.ndarray, abandon=None) -> bool:
        """L-BFGS-B from theta0 to convergence, or until ``abandon(self)`` says, after an iteration,
        that this start cannot win, or until it has spent its evaluations; returns whether it ran to
        convergence."""
        try:
            return self._minimize(theta0, abandon)
        except _OutOfEvaluations:
            return False

    def _minimize(self, theta0: np.ndarray, abandon) -> bool:
        self.negative_log_evidence(theta0)  # sets the objective's scale

        def callback(intermediate_result):
            self.n_iter += 1
            if abandon is not None and abandon(self):
                raise StopIteration

        result = scipy.optimize.minimize(
            self.negative_log_evidence,
            theta0,
            jac=True,
            method="L-BFGS-B",
            bounds=self.bounds,
            callback=callback,
            options={
                "maxiter": OPTIMIZER_MAX_ITER,
                "gtol": OPTIMIZER_GRADIENT_TOLERANCE * self.total_weight / self.objective_scale,
                "ftol": OPTIMIZER_RELATIVE_TOLERANCE,
            },
        )
        return result.status != 99  # 99: stopped by the callback


def maximize_evidence(
    problem: EvidenceProblem, start: np.ndarray, n_restarts: int, rng, progress=None, isotropic_first: bool = False
) -> tuple[np.ndarray, SquaredExponential, LaplaceFit]:
    """θ maximising the Laplace evidence (12) from ``start`` and n_restarts random starts around it,
    with the kernel and the Laplace fit there.

    The first start runs to convergence.  Each restart then runs to convergence unless abandoned
    after an iteration: within ``SAME_OPTIMUM_RADIUS`` of an optimum already found and below its
    evidence (it is climbing to that optimum), or still below the best evidence after
    ``SCREEN_ITERATIONS``.  All starts together make at most ``MAX_EVALUATIONS`` evaluations.  The
    highest evidence met wins.  ``problem`` is an ``EvidenceProblem`` or a ``sparse.SparseEvidenceProblem``.

    isotropic_first : for an ARD θ = (ln ℓ_1 ... ln ℓ_d, ln σ), d > 1, first maximise over one shared
    length scale θ = (ln ℓ, ln σ) from (start[0], start[-1]) (at most ``ISOTROPIC_EVALUATIONS``), then
    start the ARD search at (ln ℓ̂ ... ln ℓ̂, ln σ̂): the isotropic optimum is a point of the ARD space,
    so the ARD evidence found is at least the isotropic one (Rasmussen & Williams 2006 §5.4; GPML).
    progress : optional callable(evaluations, best log evidence plus log prior so far) after each
    evaluation.
    """
    evaluations, top = 0, -np.inf

    def on_evaluation(value: float) -> None:
        nonlocal evaluations, top
        evaluations, top = evaluations + 1, max(top, value)
        progress(evaluations, top)

    report = None if progress is None else on_evaluation
    with blas_threads():
        spent = 0
        if isotropic_first and start.size > 2:
            isotropic, spent = _best_of_starts(problem, start[[0, -1]], n_restarts, rng, report, ISOTROPIC_EVALUATIONS)
            log_length_scale, log_noise = isotropic.best[0]
            start = np.append(np.full(start.size - 1, log_length_scale), log_noise)
        best, _ = _best_of_starts(problem, start, n_restarts, rng, report, MAX_EVALUATIONS - spent)
        # The fit a model predicts with is Newton's to the final tolerance (one or two more steps).
        theta, _, fit = best.best
        kernel, _, fit = problem.laplace(theta, fit.latent, fit.posterior_factor)
    return theta, kernel, fit


def _best_of_starts(
    problem, start: np.ndarray, n_restarts: int, rng, on_evaluation, budget: int
) -> tuple[_Search, int]:
    """The search with the highest evidence from ``start`` and n_restarts random starts around it
    (``maximize_evidence``'s rules), in at most ``budget`` evaluations, and the evaluations spent."""
    bounds = [LOG_LENGTH_SCALE_BOUNDS] * (start.size - 1) + [LOG_NOISE_BOUNDS]
    low, high = np.array(bounds).T
    starts = [np.clip(start, low, high)] + [
        np.clip(start + rng.uniform(-RESTART_SPREAD, RESTART_SPREAD, start.size), low, high) for _ in range(n_restarts)
    ]
    optima: list[tuple[np.ndarray, float]] = []  # (θ, objective) where runs converged
    best = None

    def abandon(search: _Search) -> bool:
        theta, value = search.last.theta, search.best_value
        if any(np.max(np.abs(theta - optimum)) < SAME_OPTIMUM_RADIUS and value < top for optimum, top in optima):
            return True
        return search.n_iter >= SCREEN_ITERATIONS and value < best.best_value

    spent = 0
    for theta0 in starts:
        if spent >= budget:
            break
        search = _Search(problem, bounds, on_evaluation, budget - spent)
        converged = search.run(theta0, abandon if optima else None)
        spent += search.n_evaluations
        if search.best is None:
            continue
        if converged:
            optima.append((search.best[0], search.best_value))
        if best is None or search.best_value > best.best_value:
            best = search
    if best is None:
        raise ValueError("evidence maximisation failed from every start (non-finite evidence)")
    return best, spent
