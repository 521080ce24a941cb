"""``GPPreferenceModel``: a Gaussian process over the latent value learned from pairwise preferences
(Chu & Ghahramani, *Preference Learning with Gaussian Processes*, ICML 2005 — seed 002 §2).

Only the distinct instances that preferences mention enter the GP, so a fit costs O(N³) in the
number N of those instances, whatever the number of preferences (seed 002 §2.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.special import ndtr
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ordercore.gp.budget import check_memory
from ordercore.gp.conditioning import check_hyperparameter_magnitudes, check_kernel_resolves, singular_posterior_words
from ordercore.gp.covariance import Linear, SquaredExponential
from ordercore.gp.evidence import EvidenceProblem, check_restarts, maximize_evidence
from ordercore.gp.laplace import PairData
from ordercore.gp.sparse import SparseEvidenceProblem, inducing_inputs
from ordercore.inputs.counts import whole_number
from ordercore.inputs.fit_inputs import NumbersNotBooleans, check_rows, real_numbers, validate_data
from ordercore.inputs.flags import true_or_false
from ordercore.inputs.printable import quoted
from ordercore.models.files import save_model
from ordercore.numerics.magnitudes import check_kernel_input, standard_deviation
from ordercore.pair_scores import bald_information, check_candidate_pairs, rank_unsettled
from ordercore.preferences import PreferenceSet

MAX_SCORE_PAIRS = 200_000
"""Largest number of pairs ``PreferenceSet`` a score vector y may imply in ``fit`` (all ordered pairs)."""

KERNELS = ("rbf", "ard", "linear")

ISOTROPIC_START = "isotropic"
"""``length_scale`` that starts an ARD search at the optimum of the shared length scale's evidence."""

METHODS = ("auto", "exact", "sparse")
"""'exact': seed 002's Laplace fit over every latent value (``laplace``), O(N³) time, O(N²) memory;
'sparse': the subset-of-regressors prior on inducing inputs (``sparse``), O(N M²) and O((N + p) M);
'auto': exact up to ``EXACT_MAX_LATENT`` latent values, sparse above."""

EXACT_MAX_LATENT = 1_000
"""Largest number of latent values 'auto' fits exactly.  The exact fit takes about 6 s at 1,000 and
40 s at 2,000 instances on a 2-core machine (issue 15); the sparse one about 6 s at 20,000."""

DEFAULT_N_INDUCING = 200
"""Inducing inputs of the sparse model by default (see ``bench/gp_bench.py --scale``)."""

DEFAULT_LENGTH_SCALE_PRIOR = (2.4, 2.16)
"""Gamma(shape, rate) prior on each ARD length scale of ``GPPreferenceModel`` by default, in standard
deviations of the feature: mode 0.65, mean 1.1.  Plain evidence (seed 002) lets ARD switch features
off and predicts worse than the isotropic kernel; evidence plus this prior (MAP-II) predicts better
than either.  The rate was chosen among 1.08, 1.62, 2.16 and 4.32 by test-pair error on
development trials only (seeds 100-119 of Boston, 100-109 of 500-row Abalone and California
samples; ``bench/gp_prior_selection.py``): 2.16 was best on Boston and better than BoTorch's
``PairwiseGP`` on all three.  The bench's trials (seeds 0-4) took no part in the choice."""


def preferences_from_scores(y) -> PreferenceSet:
    """Every pair of rows with different finite scores y (n,), the higher one preferred; NaN marks rows
    without a score.  ``ValueError`` beyond ``MAX_SCORE_PAIRS`` pairs, or for dates (``real_numbers``)."""
    real_numbers(y, "scores y")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"scores y must be one-dimensional, got shape {y.shape}")
    rows = np.flatnonzero(np.isfinite(y))
    if rows.size * (rows.size - 1) // 2 > MAX_SCORE_PAIRS:
        raise ValueError(
            f"{rows.size} scored rows imply more than {MAX_SCORE_PAIRS} pairs; pass a PreferenceSet of sampled pairs"
        )
    first, second = np.triu_indices(rows.size, k=1)
    first, second = rows[first], rows[second]
    differ = y[first] != y[second]
    first, second = first[differ], second[differ]
    higher = y[first] > y[second]
    return PreferenceSet(np.where(higher, first, second), np.where(higher, second, first))


def standardisation(X: np.ndarray, normalize: bool) -> tuple[np.ndarray, np.ndarray]:
    """Feature means and scales (each (n_features,)) that standardise X, or 0 and 1 without normalize."""
    if not normalize:
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    scale = standard_deviation(X, axis=0)
    scale[scale == 0] = 1.0
    return X.mean(axis=0), scale


def starting_theta(n_features: int, kernel: str, length_scale, noise: float) -> np.ndarray:
    """θ = (ln ℓ..., ln σ) to start from; ℓ = √n_features by default (and for 'isotropic', whose ARD
    search starts where the shared length scale's, started here, ends), seed 002's κ = 1/d.  The linear
    kernel has no length scale: θ = (ln σ)."""
    n_length_scales = {"ard": n_features, "linear": 0}.get(kernel, 1)
    start_length = np.sqrt(n_features) if length_scale in (None, ISOTROPIC_START) else length_scale
    return np.append(np.full(n_length_scales, np.log(start_length)), np.log(noise))


def _gamma_prior(prior) -> tuple[float, float] | None:
    """A checked (shape, rate) pair of a Gamma prior on length scales, or None."""
    if prior is None:
        return None
    real = len(prior) == 2 and all(isinstance(v, Real) and not isinstance(v, bool | np.bool_) for v in prior)
    shape, rate = (float(value) for value in prior) if real else (np.nan, np.nan)
    if not (np.isfinite(shape) and np.isfinite(rate) and shape > 0 and rate > 0):
        raise ValueError(f"length_scale_prior must be (shape, rate), two numbers > 0, got {prior!r}")
    return shape, rate


def _pairwise_preferences(preferences, n_samples: int) -> PreferenceSet:
    """A checked PreferenceSet of pairwise preferences over rows of an X with n_samples rows."""
    if preferences is None:
        raise ValueError("GPPreferenceModel.fit needs preferences (a PreferenceSet or scores y)")
    if not isinstance(preferences, PreferenceSet):
        if isinstance(preferences, str | bytes | dict):
            raise TypeError(f"preferences must be a PreferenceSet or scores y, got {type(preferences).__name__}")
        scores = np.asarray(preferences)
        if scores.shape != (n_samples,):
            raise ValueError(f"scores y must have shape ({n_samples},) to match X, got {scores.shape}")
        preferences = preferences_from_scores(scores)
    preferences.check_indices(n_samples)
    if preferences.is_unary.any():
        raise ValueError(
            "the GP preference model learns from pairs of rows only; unary bounds (ZERO) need the LP "
            "model (OrderPreferenceRegressor) with labels"
        )
    if not np.any(preferences.weight > 0):
        raise ValueError(
            f"no preference with positive weight among the {n_samples} sample(s) of X: nothing to learn from "
            "(at least one pair is needed)"
        )
    return preferences


@dataclass(frozen=True)
class FitPlan:
    """What a fit will be: method ('exact' or 'sparse'), latent values, preferences, inducing inputs (0
    for exact) and the memory it needs in bytes (``ordercore.gp.budget``)."""

    method: str
    n_latent: int
    n_pairs: int
    n_inducing: int
    memory: int


def _instance_pairs(preferences: PreferenceSet) -> tuple[np.ndarray, PairData]:
    """The rows the positive-weight preferences mention (N,), and those preferences over them."""
    positive = preferences[preferences.weight > 0]
    instances, inverse = np.unique(np.concatenate([positive.i, positive.j]), return_inverse=True)
    return instances, PairData(inverse[: len(positive)], inverse[len(positive) :], positive.weight, instances.size)


GP_PARAMETER_CONSTRAINTS: dict = {
    "kernel": [StrOptions(set(KERNELS))],
    "length_scale": [Interval(Real, 0, None, closed="neither"), StrOptions({ISOTROPIC_START}), None],
    "length_scale_prior": [tuple, None],
    "signal_variance": [Interval(Real, 0, None, closed="neither")],
    "noise": [Interval(Real, 0, None, closed="neither")],
    "optimizer": [StrOptions({"lbfgs"}), None],
    "n_restarts": [Interval(Integral, 0, None, closed="left")],
    "normalize": ["boolean"],
    "random_state": ["random_state"],
    "method": [StrOptions(set(METHODS))],
    "n_inducing": [Interval(Integral, 1, None, closed="left")],
    "memory_limit": [Interval(Real, 0, None, closed="neither"), None],
}
"""The parameters every GP estimator here shares (see ``GPPreferenceModel``)."""


class LaplaceGPMixin:
    """What the GP estimators share: standardised inputs, the Laplace fit at hyperparameters chosen by
    evidence (or kept as given), the fitted hyperparameter attributes, and the kernel for prediction."""

    def _fit_laplace(self, X: np.ndarray, rows, pairs: PairData, n_blocks: int = 1, progress=None):
        """The Laplace fit over the latent values of X[rows] (n_blocks GPs sharing one kernel), exact or
        sparse as ``method`` says; sets the standardisation, the inputs and method_, length_scale_,
        signal_variance_, noise_, log_evidence_, n_iter_ only once it has succeeded.  Refuses with
        ``MemoryBudgetError`` before any work when the fit would need more than ``memory_limit``.
        progress : optional callable(evaluations: int, log_evidence: float) after each evaluation of
        the hyperparameter search."""
        check_hyperparameter_magnitudes(self.noise, self.length_scale)
        check_restarts(self.n_restarts)
        center, scale = standardisation(X, self.normalize)
        inputs = (X[rows] - center) / scale
        check_kernel_input(inputs, what="X (standardised)" if self.normalize else "X")
        check_kernel_resolves(inputs, self.kernel, self.length_scale)
        method = self._plan(pairs.n_latent, pairs.winner.size, len(inputs), n_blocks).method
        rng = check_random_state(self.random_state)
        prior = _gamma_prior(self.length_scale_prior)
        linear = self.kernel == "linear"
        if method == "exact":
            basis = inputs
            problem = EvidenceProblem(inputs, pairs, float(self.signal_variance), n_blocks, prior, linear)
        else:
            basis = inducing_inputs(inputs, self.n_inducing, rng)
            problem = SparseEvidenceProblem(inputs, basis, pairs, float(self.signal_variance), n_blocks, prior, linear)
        start = starting_theta(X.shape[1], self.kernel, self.length_scale, self.noise)
        isotropic_first = self.length_scale == ISOTROPIC_START
        if isotropic_first and self.optimizer is None:
            raise ValueError("length_scale='isotropic' starts a search: it needs optimizer='lbfgs'")
        try:
            if self.optimizer is None:
                theta, (kernel, _, fit) = start, problem.laplace(start)
            else:
                theta, kernel, fit = maximize_evidence(problem, start, self.n_restarts, rng, progress, isotropic_first)
        except np.linalg.LinAlgError as error:  # B = I + Lᵀ Λ L's Cholesky (K's has its jitter)
            raise ValueError(singular_posterior_words(self.signal_variance, self.noise, self.optimizer)) from error
        self._mean, self._scale, self._inputs = center, scale, basis
        self.method_ = method
        self.length_scale_, self.signal_variance_ = kernel.length_scale, kernel.signal_variance
        self.noise_ = float(np.exp(theta[-1]))
        self.log_evidence_ = fit.log_evidence
        self.n_iter_ = fit.n_iter
        return fit

    def _plan(self, n_latent: int, n_pairs: int, n_inputs: int, n_blocks: int) -> FitPlan:
        """The fit ``method`` leads to for these sizes (n_inputs rows of X per block), with its memory;
        ``MemoryBudgetError`` when that exceeds ``memory_limit``."""
        method = self.method
        if method == "auto":
            method = "exact" if n_latent <= EXACT_MAX_LATENT else "sparse"
        n_inducing = min(self.n_inducing, n_inputs) if method == "sparse" else 0
        memory = check_memory(method, n_latent, n_pairs, n_inducing, n_blocks, self.memory_limit)
        return FitPlan(method, n_latent, n_pairs, n_inducing, memory)

    def _kernel(self) -> SquaredExponential | Linear:
        if self.kernel == "linear":
            return Linear(self.signal_variance_)
        return SquaredExponential(self.length_scale_, self.signal_variance_)

    # What a model file keeps of every GP (ordercore/models/files.py): entry -> (dtype, named shape).
    _saved_arrays = {
        "mean": ("float64", ("n_features",)),
        "scale": ("float64", ("n_features",)),
        "inputs": ("float64", ("n_inputs", "n_features")),
        "length_scale": ("float64", ("n_length_scales",)),
    }
    _saved_scalars = {"signal_variance": float, "noise": float, "log_evidence": float, "n_iter": int, "method": str}
    # Written since the sparse model (issue 15): a file without them has the defaults, as fitted then.
    _later_params = {"method", "n_inducing", "memory_limit"}
    _later_scalars = {"method": "exact"}

    def save(self, path, preprocessing=None, metadata=None) -> None:
        """Write the fit to ``path`` (.npz, no pickle; see ``ordercore.models.files.save_model``): the
        loaded model predicts as this one does."""
        save_model(path, self, preprocessing, metadata)

    def _saved_state(self) -> tuple[dict, dict]:
        """The arrays and scalars declared in ``_saved_arrays`` and ``_saved_scalars``."""
        arrays = {"mean": self._mean, "scale": self._scale, "inputs": self._inputs, "length_scale": self.length_scale_}
        scalars = {
            "signal_variance": float(self.signal_variance_),
            "noise": float(self.noise_),
            "log_evidence": float(self.log_evidence_),
            "n_iter": int(self.n_iter_),
            "method": self.method_,
        }
        return arrays, scalars

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        """The standardisation, inputs and hyperparameters ``_saved_state`` described."""
        _gamma_prior(self.length_scale_prior)
        n_length_scales = {"ard": arrays["mean"].size, "linear": 0}.get(self.kernel, 1)
        if arrays["length_scale"].size != n_length_scales:
            raise ValueError(f"a {self.kernel} kernel has {n_length_scales} length scale(s)")
        self._mean, self._scale, self._inputs = arrays["mean"], arrays["scale"], arrays["inputs"]
        self.length_scale_, self.signal_variance_ = arrays["length_scale"], scalars["signal_variance"]
        self.noise_, self.log_evidence_, self.n_iter_ = scalars["noise"], scalars["log_evidence"], scalars["n_iter"]
        if scalars["method"] not in ("exact", "sparse"):
            raise ValueError(f"method must be 'exact' or 'sparse', got {scalars['method']!r}")
        self.method_ = scalars["method"]

    def _standardise(self, X) -> np.ndarray:
        """X checked against the fit's features and standardised as the training inputs were."""
        X = validate_data(self, X, dtype=np.float64, reset=False)
        X = (X - self._mean) / self._scale
        check_kernel_input(X, what="X (standardised)" if self.normalize else "X")
        return X


class GPPreferenceModel(LaplaceGPMixin, NumbersNotBooleans, BaseEstimator):
    """Gaussian-process preference learning (seed 002 §2): latent f ~ GP(0, K), and

        P(x_i ≻ x_j | f) = Φ((f(x_i) - f(x_j)) / (√2 σ))          (eq. (5)).

    ``fit(X, preferences)`` takes a ``PreferenceSet`` whose i, j index rows of X: each (i, j, d, w)
    reads "x_i is preferred to x_j".  The weight w multiplies that preference's log-likelihood;
    the margin d is ignored (the probit has no margin).  So ``PreferenceSet.equal`` / ``close``, a
    preference in each direction, pull f(x_i) and f(x_j) together.  Unary preferences are refused.
    A score vector y (n,) is accepted instead and means every pair of rows with different scores.

    Parameters
    ----------
    kernel : 'ard' (one length scale per feature, eq. (13); the default), 'rbf' (one for all, eq. (2))
        or 'linear' (K(x, x') = s² x·x', no bias term: the kernel of the seed's Figs. 2 and 3; see
        ``ordercore.gp.covariance.Linear``).  The linear kernel has no length scale: length_scale and
        length_scale_prior are then unused, length_scale_ is empty, and the evidence learns σ alone
        (only s / σ matters).  With ``normalize`` the features are centred, and f(x) = w·x then has no
        constant term across inputs (which pairwise preferences of one function never need).
    length_scale : float > 0, None or 'isotropic', the starting length scale(s), in units of standardised
        features; None means √n_features, the seed's start κ = 1/d.  'isotropic' (for 'ard'; the same as
        None for 'rbf'): first maximise the evidence over one shared length scale from √n_features, then
        start every ARD length scale at its optimum ℓ̂ and σ at σ̂ (GPML's practice): the ARD evidence is
        then at least the shared one's (``maximize_evidence``).  Needs optimizer='lbfgs'.
    length_scale_prior : (shape, rate) of a Gamma prior on each length scale, in units of standardised
        features, or None.  With a prior, hyperparameters maximise evidence plus log prior (MAP-II);
        None is the seed's plain evidence.  The default ``DEFAULT_LENGTH_SCALE_PRIOR`` = (2.4, 2.16)
        (mode 0.65, mean 1.1) keeps ARD from switching features off on little data; it was chosen on
        development trials of Boston, Abalone and California (see its docstring and docs/GP.md).
    signal_variance : float > 0, s² in K = s² exp(-½ |x - x'|² / ℓ²) (or s² x·x'): the unit of f.  It is not
        learned because the model depends on s and σ only through s / σ (scaling f by c, s by c
        and σ by c leaves every likelihood and the evidence unchanged); σ is learned instead.
    noise : float > 0, the starting σ.
    optimizer : 'lbfgs' maximises the Laplace evidence (12), plus the log prior if one is set, over
        ln ℓ and ln σ with its analytic gradient (eqs. (14)-(15)); None keeps length_scale and noise
        as given.
    n_restarts : int 0 … 99, further L-BFGS starts drawn around the first (which runs to convergence);
        a restart is abandoned once it climbs towards an optimum already found, or still trails the
        best evidence after an iteration.  The best evidence met wins.  The default, 1, makes two
        starts: on the Boston and synthetic benches (30 fits) no restart ever beat the first start's
        optimum of the default objective, and each cost about 15 % of a Boston fit.
    normalize : bool, standardise features by the mean and standard deviation of the X given to fit.
    random_state : seed of the restarts and of the sparse model's inducing inputs.
    method : 'auto' (the default: exact up to ``EXACT_MAX_LATENT`` = 1,000 instances, sparse above),
        'exact' (seed 002's model, O(N³) time and O(N²) memory in the N instances) or 'sparse' (the
        same model with the subset-of-regressors prior on ``n_inducing`` inducing inputs, the k-means
        centres of the instances; O(N M²) time and O((N + p) M) memory; ``ordercore.gp.sparse``).
    n_inducing : int >= 1, M, the sparse model's inducing inputs (at most the distinct instances).
    memory_limit : float > 0 or None, the most memory in GB a fit may need: above it ``fit`` raises
        ``MemoryBudgetError`` before any work (``ordercore.gp.budget`` estimates the need).  None: half
        of this machine's physical memory.

    Attributes
    ----------
    instances_ : ndarray (N,), the rows of the fit's X that preferences mention.
    latent_ : ndarray (N,), the MAP latent values f̂ at those rows (eq. (11)).
    method_ : 'exact' or 'sparse', the model fitted.
    length_scale_ : ndarray (1,) or (n_features,); noise_ : float; signal_variance_ : float.
    log_evidence_ : float, the Laplace evidence (12) at the chosen hyperparameters.
    n_iter_ : int, Newton iterations of the final MAP estimate.
    preferences_ : PreferenceSet the model was fitted on.  X_fit_ : the X given to fit (whose rows
    ``suggest_pairs`` ranks).
    """

    _parameter_constraints: dict = GP_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        kernel="ard",
        length_scale=None,
        length_scale_prior=DEFAULT_LENGTH_SCALE_PRIOR,
        signal_variance=1.0,
        noise=1.0,
        optimizer="lbfgs",
        n_restarts=1,
        normalize=True,
        random_state=None,
        method="auto",
        n_inducing=DEFAULT_N_INDUCING,
        memory_limit=None,
    ):
        self.kernel = kernel
        self.length_scale = length_scale
        self.length_scale_prior = length_scale_prior
        self.signal_variance = signal_variance
        self.noise = noise
        self.optimizer = optimizer
        self.n_restarts = n_restarts
        self.normalize = normalize
        self.random_state = random_state
        self.method = method
        self.n_inducing = n_inducing
        self.memory_limit = memory_limit

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, preferences, *, progress=None):
        """Fit on X (n, n_features) and preferences over its rows (or scores y, shape (n,)).
        progress : optional callable(evaluations, log_evidence) called after each evaluation of the
        hyperparameter search (e.g. to show progress; raising from it abandons the fit)."""
        if progress is not None and not callable(progress):  # 'x' failed deep in the search: 'str' not callable
            raise ValueError(
                f"progress must be a function (evaluations, log_evidence) or None, got {type(progress).__name__} "
                f"{quoted(progress)}"
            )
        check_rows(X)
        X = validate_data(self, X, dtype=np.float64)
        instances, pairs = _instance_pairs(preferences := _pairwise_preferences(preferences, X.shape[0]))
        fit = self._fit_laplace(X, instances, pairs, progress=progress)
        self.X_fit_, self.instances_ = X, instances
        self.latent_ = fit.instance_latent
        self._alpha, self._predictive_matrix = fit.alpha, fit.predictive_matrix
        self.preferences_ = preferences
        return self

    def fit_plan(self, n_samples: int, preferences: PreferenceSet) -> FitPlan:
        """The fit that ``fit(X, preferences)`` would run, for an X of n_samples rows, without running
        it: ``MemoryBudgetError`` (or the errors of bad input) as ``fit`` would raise them."""
        self._validate_params()
        instances, pairs = _instance_pairs(_pairwise_preferences(preferences, whole_number(n_samples, "n_samples")))
        return self._plan(pairs.n_latent, pairs.winner.size, instances.size, 1)

    _saved_arrays = {
        **LaplaceGPMixin._saved_arrays,
        "X_fit": ("float64", ("n_samples", "n_features")),
        "instances": ("int64", ("n_instances",)),
        "latent": ("float64", ("n_instances",)),
        "alpha": ("float64", ("n_inputs",)),
        "predictive_matrix": ("float64", ("n_inputs", "n_inputs")),
        "preferences": ("preferences", ("n_preferences",)),
    }

    def _saved_state(self) -> tuple[dict, dict]:
        arrays, scalars = super()._saved_state()
        arrays.update(
            X_fit=self.X_fit_,
            instances=self.instances_,
            latent=self.latent_,
            alpha=self._alpha,
            predictive_matrix=self._predictive_matrix,
            preferences=self.preferences_,
        )
        return arrays, scalars

    def _restore_state(self, arrays: dict, scalars: dict) -> None:
        super()._restore_state(arrays, scalars)
        X, instances = arrays["X_fit"], arrays["instances"]
        self.preferences_ = _pairwise_preferences(arrays["preferences"], X.shape[0])
        if np.any((instances < 0) | (instances >= X.shape[0])):
            raise ValueError(f"instances must lie in [0, {X.shape[0]})")
        self.X_fit_, self.instances_, self.latent_ = X, instances, arrays["latent"]
        self._alpha, self._predictive_matrix = arrays["alpha"], arrays["predictive_matrix"]

    # ------------------------------------------------------------------ predict
    def predict(self, X, return_std=False):
        """Latent mean E[f(x)] (eq. (17)), shape (n,), and with ``return_std`` its standard
        deviation under the Laplace posterior (eq. (18))."""
        check_is_fitted(self)
        X = self._standardise(X)
        cross = self._kernel()(X, self._inputs)
        mean = cross @ self._alpha
        if not true_or_false(return_std, "return_std"):
            return mean
        variance = self._kernel().diagonal(X) - np.einsum("ij,ij->i", cross @ self._predictive_matrix, cross)
        return mean, np.sqrt(np.maximum(variance, 0.0))

    def predict_difference(self, Xa, Xb) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of f(a) - f(b) for paired rows of Xa, Xb (m, n_features), each (m,),
        from the joint predictive covariance of f(a), f(b) (eqs. (16)-(18))."""
        check_is_fitted(self)
        Xa, Xb = self._standardise(Xa), self._standardise(Xb)
        if Xa.shape != Xb.shape:
            raise ValueError(f"Xa and Xb must pair up row by row; got shapes {Xa.shape} and {Xb.shape}")
        kernel = self._kernel()
        cross_a, cross_b = kernel(Xa, self._inputs), kernel(Xb, self._inputs)
        mean = (cross_a - cross_b) @ self._alpha
        # Var f(a) + Var f(b) - 2 Cov(f(a), f(b)), each k(·,·) - k(·)ᵀ (K + Λ⁻¹)⁻¹ k(·).
        prior = kernel.difference_variance(Xa, Xb)
        difference = cross_a - cross_b
        variance = prior - np.einsum("ij,ij->i", difference @ self._predictive_matrix, difference)
        return mean, np.maximum(variance, 0.0)

    def predict_preference(self, Xa, Xb) -> np.ndarray:
        """P(a ≻ b) for paired rows of Xa and Xb (m, n_features), shape (m,) (eq. (19)):
        Φ(μ / √(2σ² + v)), with μ, v the mean and variance of f(a) - f(b)."""
        mean, variance = self.predict_difference(Xa, Xb)
        return ndtr(mean / np.sqrt(2.0 * self.noise_**2 + variance))

    def score(self, X, preferences) -> float:
        """Weighted fraction of the pairwise preferences over rows of X whose order the latent mean
        reproduces (ties count half)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        preferences = _pairwise_preferences(preferences, X.shape[0])
        f = self.predict(X)
        difference = f[preferences.i] - f[preferences.j]
        correct = (difference > 0) + 0.5 * (difference == 0)
        return float(np.average(correct, weights=preferences.weight))

    def suggest_pairs(self, candidate_pairs, k=1, *, return_scores=False):
        """The k candidate pairs to ask next, by expected information gain (BALD, in bits), best first.

        candidate_pairs : int array (m, 2) of rows of the X given to ``fit``.  Pairs that
        ``preferences_`` already settle (compared before, or implied by transitivity) are skipped.
        Returns an int array (≤ k, 2), and with ``return_scores`` also the gains (≤ k,).
        """
        check_is_fitted(self)
        pairs = check_candidate_pairs(candidate_pairs, self.X_fit_.shape[0])
        scores = np.zeros(0)  # no candidates: no pair
        if len(pairs):
            mean, variance = self.predict_difference(self.X_fit_[pairs[:, 0]], self.X_fit_[pairs[:, 1]])
            scores = bald_information(mean, variance, self.noise_)
        chosen, chosen_scores = rank_unsettled(scores, pairs, k, self.preferences_)
        return (chosen, chosen_scores) if true_or_false(return_scores, "return_scores") else chosen
