"""``synthetic_ordinal``: seeded sparse ordinal data at the scale of seed 004's text sets, for
benchmarks (10⁵ … 10⁶ rows × 10⁵ … 10⁶ features, about 100 non-zeros per row).

Each row looks like a TF-IDF vector: ``nnz_per_row`` distinct features with positive weights,
scaled to unit length.  The features of a row are one per stratum of n_features / nnz_per_row
consecutive columns (so they are distinct and sorted without a sort).  The ranks cut a latent score
xᵀβ + noise, β ~ N(0, 1) per feature and the noise N(0, ``noise``² · var(xᵀβ)), at its quantiles into
``n_ranks`` equally frequent ranks 1 … K: an ordinal problem that a linear model can partly learn.
Rows are generated in blocks, so memory stays near that of the result (12 bytes per non-zero).
"""

import numpy as np
import scipy.sparse as sp

BLOCK_ROWS = 50_000
"""Rows generated at a time: bounds the temporaries to a few hundred MB at 100 non-zeros per row."""


def synthetic_ordinal(
    n_samples: int,
    n_features: int,
    *,
    nnz_per_row: int = 100,
    n_ranks: int = 5,
    noise: float = 0.5,
    random_state: int = 0,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """X (n_samples, n_features) CSR float64 with int32 indices, and ranks y (n_samples,) in 1 … n_ranks."""
    if not 1 <= nnz_per_row <= n_features:
        raise ValueError(f"nnz_per_row must be between 1 and n_features ({n_features}); got {nnz_per_row}")
    if n_samples < n_ranks or n_ranks < 2:
        raise ValueError(f"need n_ranks >= 2 and at least n_ranks rows; got {n_ranks} ranks, {n_samples} rows")
    rng = np.random.default_rng(random_state)
    stratum = n_features // nnz_per_row
    starts = np.arange(nnz_per_row, dtype=np.int64) * stratum
    beta = rng.standard_normal(n_features)
    indices = np.empty(n_samples * nnz_per_row, dtype=np.int32)
    data = np.empty(n_samples * nnz_per_row)
    score = np.empty(n_samples)
    for first in range(0, n_samples, BLOCK_ROWS):
        rows = min(BLOCK_ROWS, n_samples - first)
        block = slice(first * nnz_per_row, (first + rows) * nnz_per_row)
        columns = starts + rng.integers(0, stratum, size=(rows, nnz_per_row))
        weights = rng.exponential(size=(rows, nnz_per_row))
        weights /= np.linalg.norm(weights, axis=1, keepdims=True)  # unit rows, as TF-IDF
        indices[block] = columns.ravel()
        data[block] = weights.ravel()
        score[first : first + rows] = (weights * beta[columns]).sum(axis=1)
    score += noise * score.std() * rng.standard_normal(n_samples)
    y = 1 + np.searchsorted(np.quantile(score, np.linspace(0, 1, n_ranks + 1)[1:-1]), score)
    indptr = np.arange(0, (n_samples + 1) * nnz_per_row, nnz_per_row, dtype=np.int64)
    return sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features)), y
