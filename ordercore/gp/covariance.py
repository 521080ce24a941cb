"""The covariance functions of seed 002: the squared-exponential kernel, isotropic (eq. (2)) or ARD
(eq. (13)), with a signal variance, and the contraction that turns the evidence's gradient matrix
into hyperparameter gradients; and the linear kernel of its §4.1 (Fig. 2) and §4.3 (Fig. 3).

    K(x, x') = s² exp(-½ Σ_d (x_d - x'_d)² / ℓ_d²)

Seed 002 writes the ARD kernel with precisions κ_d = 1 / ℓ_d²; length scales ℓ_d are the same
model.  The isotropic kernel has one ℓ shared by every feature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sklearn
from sklearn.metrics.pairwise import euclidean_distances


@dataclass(frozen=True)
class SquaredExponential:
    """K(x, x') = signal_variance · exp(-½ |(x - x') / length_scale|²).

    length_scale : shape (1,) (isotropic) or (n_features,) (ARD).
    """

    length_scale: np.ndarray
    signal_variance: float

    def __call__(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """K(X, Y), shape (len(X), len(Y)); X and Y finite, shape (·, n_features)."""
        return self._covariance(self.squared_distances(X / self.length_scale, Y / self.length_scale), -0.5)

    @staticmethod
    def squared_distances(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """|x - y|² for rows of X and Y, shape (len(X), len(Y))."""
        with sklearn.config_context(assume_finite=True):
            return euclidean_distances(X, Y, squared=True)

    def from_squared_distances(self, squared: np.ndarray) -> np.ndarray:
        """s² exp(-½ d² / ℓ²) for an isotropic kernel given d² (any shape), as a new array."""
        return self._covariance(squared, -0.5 / self.length_scale[0] ** 2)

    def _covariance(self, squared: np.ndarray, factor: float) -> np.ndarray:
        """s² exp(factor · squared), one new array."""
        K = np.multiply(squared, factor)
        np.exp(K, out=K)
        K *= self.signal_variance
        return K

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        """K(x, x) for each row of X, shape (len(X),)."""
        return np.full(len(X), self.signal_variance)

    def difference_variance(self, Xa: np.ndarray, Xb: np.ndarray) -> np.ndarray:
        """Prior variance of f(a) - f(b) for paired rows of Xa and Xb, k(a, a) + k(b, b) - 2 k(a, b),
        shape (len(Xa),)."""
        squared = np.sum(((Xa - Xb) / self.length_scale) ** 2, axis=1)
        return 2.0 * self.signal_variance - 2.0 * np.exp(-0.5 * squared) * self.signal_variance

    def log_length_scale_gradient(self, X: np.ndarray, Y: np.ndarray, K: np.ndarray, G: np.ndarray) -> np.ndarray:
        """Σ_ij G_ij ∂K_ij/∂ln ℓ_d for each length scale, shape length_scale.shape, where K = K(X, Y)
        and G have shape (len(X), len(Y)).

        ∂K_ij/∂ln ℓ_d = K_ij (x_id - y_jd)² / ℓ_d².  With H = G ⊙ K, the sum over ij of
        H_ij (x_id - y_jd)² is Σ_i (H 1)_i x_id² - 2 x_dᵀ H y_d + Σ_j (Hᵀ 1)_j y_jd²: O(len(X) len(Y) D),
        no (len(X), len(Y), D) array.
        """
        H = G * K
        per_feature = H.sum(axis=1) @ (X * X) - 2.0 * np.einsum("id,id->d", X, H @ Y) + H.sum(axis=0) @ (Y * Y)
        per_feature = per_feature / self.length_scale**2
        return per_feature if self.length_scale.size > 1 else np.array([per_feature.sum()])

    def log_length_scale_products(self, X: np.ndarray, K: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        """(∂K/∂ln ℓ_d) v for each length scale and each column v of ``vectors`` (N, m): shape
        (N, m, n_length_scales).

        Entry i is Σ_j K_ij (x_id - x_jd)² v_j / ℓ_d² = (x_id² (Kv)_i - 2 x_id (K(v x_d))_i + (K(v x_d²))_i) / ℓ_d².
        """
        m, D = vectors.shape[1], X.shape[1]
        # Columns: v, v ⊙ x_d (D of them), v ⊙ x_d² (D of them), for each v.
        stacked = np.concatenate(
            [vectors[:, :, None], vectors[:, :, None] * X[:, None, :], vectors[:, :, None] * (X * X)[:, None, :]],
            axis=2,
        )
        product = (K @ stacked.reshape(len(X), -1)).reshape(len(X), m, 2 * D + 1)
        per_feature = (
            (X * X)[:, None, :] * product[:, :, :1]
            - 2.0 * X[:, None, :] * product[:, :, 1 : D + 1]
            + product[:, :, D + 1 :]
        )
        per_feature = per_feature / self.length_scale**2
        return per_feature if self.length_scale.size > 1 else per_feature.sum(axis=2, keepdims=True)


@dataclass(frozen=True)
class Linear:
    """The linear kernel K(x, x') = σ_k² x·x' (σ_k² = ``signal_variance``), seed 002's kernel for
    Fig. 2 (OHSUMED) and Fig. 3 (expected utilities): "the linear kernel was used".  The seed does not
    define it nor add a bias term, so none is added here: f(x) = w·x with w ~ N(0, σ_k² I).  It is the
    covariance function K of the prior (3) in place of eq. (2), and so the K of the MAP functional
    (10), the evidence (12) and its gradients (14)-(15), and of every label's GP in §3 (eqs. (23)-(25)).

    It has no length scale: ``length_scale`` is empty, and the hyperparameter gradients below have no
    entries.  Only σ_k / σ matters to the model (f, σ_k and σ scaled together leave every likelihood,
    the prior term and the evidence unchanged), so the evidence search learns σ with σ_k fixed, as it
    does with the squared-exponential kernel's s.  K is singular beyond as many instances as features;
    the Cholesky factorisation's jitter (``ordercore.numerics.cholesky``, seed 002 §2.2.3) handles that.
    """

    signal_variance: float

    @property
    def length_scale(self) -> np.ndarray:
        """No length scale: shape (0,)."""
        return np.zeros(0)

    def __call__(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """K(X, Y) = σ_k² X Yᵀ, shape (len(X), len(Y))."""
        return self.signal_variance * (X @ Y.T)

    def diagonal(self, X: np.ndarray) -> np.ndarray:
        """K(x, x) = σ_k² |x|² for each row of X, shape (len(X),)."""
        return self.signal_variance * np.einsum("ij,ij->i", X, X)

    def difference_variance(self, Xa: np.ndarray, Xb: np.ndarray) -> np.ndarray:
        """Prior variance of f(a) - f(b), σ_k² |a - b|², for paired rows, shape (len(Xa),)."""
        difference = Xa - Xb
        return self.signal_variance * np.einsum("ij,ij->i", difference, difference)

    def log_length_scale_gradient(self, X: np.ndarray, Y: np.ndarray, K: np.ndarray, G: np.ndarray) -> np.ndarray:
        """No length scale, no entry: shape (0,)."""
        return np.zeros(0)

    def log_length_scale_products(self, X: np.ndarray, K: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        """No length scale: shape (N, m, 0)."""
        return np.zeros((len(X), vectors.shape[1], 0))
