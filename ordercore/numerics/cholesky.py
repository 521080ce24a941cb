"""The one Cholesky factorisation with jitter that the kernel models share (the GP's covariance, the
2-norm LP's kernel): it adds the least jitter that works, or raises a named error."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ordercore.exceptions import NotPositiveDefiniteError

JITTER = 1e-8
"""Jitter added to the diagonal of K, relative to its mean diagonal (seed 002 §2.2.3 suggests a
jitter term); RBF matrices over near-duplicate rows are singular without it."""

JITTER_MAX = 1e-2
"""Largest relative jitter tried (tenfold steps from ``JITTER``) before ``NotPositiveDefiniteError``."""


def cholesky_with_jitter(K: np.ndarray) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of K + jitter I, K of shape (N, N); returns (L, jitter).

    Starts at ``JITTER`` times the mean diagonal and grows tenfold up to ``JITTER_MAX``; raises
    ``NotPositiveDefiniteError`` when even that fails (K has NaN, or is far from positive definite).
    """
    scale = float(np.mean(np.diag(K))) if K.size else 1.0
    if not np.isfinite(scale) or scale <= 0:
        raise NotPositiveDefiniteError(f"covariance matrix has a non-positive or non-finite diagonal (mean {scale})")
    relative = JITTER
    while relative <= JITTER_MAX * (1 + 1e-9):
        jitter = relative * scale
        try:
            # The upper factor comes back in Fortran order, so its transpose L is C-contiguous: the
            # sparse-times-dense products with L below are several times faster that way.
            upper = scipy.linalg.cholesky(K + jitter * np.eye(len(K)), lower=False, check_finite=False)
            return upper.T, jitter
        except np.linalg.LinAlgError:
            relative *= 10.0
    raise NotPositiveDefiniteError(
        f"covariance matrix is not positive definite even with jitter {JITTER_MAX:g} x its mean diagonal"
    )
