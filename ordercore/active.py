"""Choosing the next pair to ask the expert (seed 002 §2.4: "select ... the sample with the highest
expected information gain"; left there as future work).

- GP model: BALD (Houlsby, Huszár, Ghahramani & Lengyel 2011, "Bayesian Active Learning for
  Classification and Preference Learning", §3): the information a click on pair (a, b) brings about
  f is H[P(a ≻ b)] - E_f[H[P(a ≻ b | f)]], with the analytic probit approximation below (no Monte
  Carlo).
- The kernel regressors (``suggest_by_order``, for any model with ``predict``): the pair whose
  predicted order is least certain (the smallest |f(a) - f(b)|), or, given a reference fit (e.g. the
  SVR beside the SSL), the pair where the two fits differ most.

Either way pairs that existing preferences already settle (asked before, or implied by a chain of
strict preferences a ≻ ... ≻ b) are skipped.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import shortest_path
from scipy.special import ndtr

from ordercore.preferences import PreferenceSet, pair_codes

BALD_CONSTANT = np.sqrt(np.pi * np.log(2.0) / 2.0)
"""C in Houlsby et al.'s approximation H₂(Φ(x)) ≈ exp(-x² / (2 C²)) (binary entropy in bits)."""


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """H₂(p) in bits, elementwise, with H₂(0) = H₂(1) = 0."""
    p = np.clip(p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(p * np.log2(p)) - (1 - p) * np.log2(1 - p)
    return np.nan_to_num(terms, nan=0.0)


def bald_information(mean: np.ndarray, variance: np.ndarray, noise: float) -> np.ndarray:
    """Expected information gain (bits) of asking pairs whose latent difference f(a) - f(b) has the
    given predictive mean and variance (each (m,)), under P(a ≻ b | f) = Φ((f(a) - f(b)) / (√2 σ)).

    With m = mean / (√2 σ) and v = variance / (2σ²) (Houlsby et al. 2011, eq. (6)):
    H₂(Φ(m / √(1 + v))) - C / √(v + C²) · exp(-m² / (2 (v + C²))).
    """
    m = mean / (np.sqrt(2.0) * noise)
    v = variance / (2.0 * noise**2)
    predictive = binary_entropy(ndtr(m / np.sqrt(1.0 + v)))
    expected = BALD_CONSTANT / np.sqrt(v + BALD_CONSTANT**2) * np.exp(-(m**2) / (2.0 * (v + BALD_CONSTANT**2)))
    return np.maximum(predictive - expected, 0.0)


def check_candidate_pairs(candidate_pairs, n_samples: int) -> np.ndarray:
    """Candidate pairs as an int array (m, 2) of distinct row indices in [0, n_samples)."""
    pairs = np.asarray(candidate_pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"candidate_pairs must have shape (m, 2), got {pairs.shape}")
    if pairs.size and not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"candidate_pairs must hold row indices (integers), got {pairs.dtype}")
    pairs = pairs.astype(np.int64)
    if np.any((pairs < 0) | (pairs >= n_samples)):
        raise ValueError(f"candidate_pairs refer to rows outside 0..{n_samples - 1}")
    if np.any(pairs[:, 0] == pairs[:, 1]):
        raise ValueError("a candidate pair needs two different rows")
    return pairs


def settled(preferences: PreferenceSet, candidate_pairs: np.ndarray) -> np.ndarray:
    """Boolean mask (m,): candidate pairs (m, 2) already compared in ``preferences`` (either way,
    equalities included) or implied by transitivity of its strict preferences."""
    pairwise = preferences[~preferences.is_unary & (preferences.weight > 0)]
    if len(pairwise) == 0 or len(candidate_pairs) == 0:
        return np.zeros(len(candidate_pairs), dtype=bool)
    n_rows = int(max(pairwise.i.max(), pairwise.j.max(), candidate_pairs.max())) + 1
    keys, codes = pairwise.pair_codes(n_rows)
    candidate_keys, _ = pair_codes(candidate_pairs[:, 0], candidate_pairs[:, 1], n_rows)
    result = np.isin(candidate_keys, keys)
    # Strict edges: a preference whose reverse is not also present (equal / close come in both directions).
    strict = ~np.isin(codes ^ 1, codes)
    nodes, inverse = np.unique(np.concatenate([pairwise.i, pairwise.j]), return_inverse=True)
    winner, loser = inverse[: len(pairwise)], inverse[len(pairwise) :]
    graph = scipy.sparse.csr_array(
        (np.ones(strict.sum()), (winner[strict], loser[strict])), shape=(nodes.size, nodes.size)
    )
    # Candidates whose both rows appear in the graph, as graph nodes.
    a, b = (np.searchsorted(nodes, candidate_pairs[:, k]) for k in (0, 1))
    known = (a < nodes.size) & (b < nodes.size)
    known[known] &= (nodes[a[known]] == candidate_pairs[known, 0]) & (nodes[b[known]] == candidate_pairs[known, 1])
    if known.any():
        sources, row = np.unique(np.concatenate([a[known], b[known]]), return_inverse=True)
        reach = np.isfinite(shortest_path(graph, directed=True, unweighted=True, indices=sources))
        row_a, row_b = row[: known.sum()], row[known.sum() :]
        result[known] |= reach[row_a, b[known]] | reach[row_b, a[known]]
    return result


def rank_pairs(
    scores: np.ndarray, candidate_pairs: np.ndarray, k: int, skip: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The k best-scoring candidate pairs (highest score first) outside ``skip``: (pairs (≤k, 2), scores)."""
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    open_positions = np.flatnonzero(~skip)
    order = open_positions[np.argsort(-scores[open_positions], kind="stable")[:k]]
    return candidate_pairs[order], scores[order]


def suggest_by_order(model, X: np.ndarray, candidate_pairs, k: int, preferences: PreferenceSet, reference=None):
    """The k candidate pairs (rows of X, shape (m, 2)) to ask a fitted regressor ``model`` next, best
    first, skipping pairs ``preferences`` settle: (pairs (≤ k, 2), scores (≤ k,)).  Model-agnostic:
    it needs only ``model.predict``.  Without ``reference`` the score is -|f(a) - f(b)|, the pair whose
    order the fit is least sure of; with a fitted ``reference`` model (e.g. the SVR beside an SSL fit)
    it is |Δ - Δ_reference|, Δ = f(a) - f(b): the pair on which the two fits differ most."""
    pairs = check_candidate_pairs(candidate_pairs, X.shape[0])
    rows, inverse = np.unique(pairs, return_inverse=True)
    inverse = inverse.reshape(pairs.shape)

    def difference(fitted) -> np.ndarray:
        f = fitted.predict(X[rows])
        return f[inverse[:, 0]] - f[inverse[:, 1]]

    if reference is None:
        scores = -np.abs(difference(model))
    else:
        scores = np.abs(difference(model) - difference(reference))
    return rank_pairs(scores, pairs, k, settled(preferences, pairs))
