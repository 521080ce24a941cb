"""How much memory a GP preference fit needs, known before it starts, and the limit it must keep to.

Peak memory measured with ``tracemalloc`` over whole fits (evidence search from two starts, then
the final fit; 8 features) is about 11.4 N² doubles for the exact model (the N × N covariance, its
Cholesky factor, the posterior factor and predictive matrix, the gradient's G, and the search's
copies of the last and best fits).  For the sparse one (6 features, M = 150, N = 1,500-6,000 and
p = 2-20 per latent value) it was 4.5 N M + 57 p doubles plus one block of pair features
(``sparse.PAIR_BLOCK`` × M): Φ, Λ Φ and the gradient's N × M products, and some thirty vectors over
the preferences (the incidence matrix, z, ℓ and its derivatives, the line search's trials, Λ's
entries); no p × M array since B and the pair variances are formed a block at a time.  The
estimates below round these up so that they bound the measured peaks (tests/test_gp_sparse.py)."""

from __future__ import annotations

import os

from ordercore.exceptions import MemoryBudgetError
from ordercore.gp.sparse import PAIR_BLOCK

BYTES_PER_DOUBLE = 8
EXACT_N2_DOUBLES = 13
SPARSE_NM_DOUBLES = 6
SPARSE_PAIR_DOUBLES = 80
SPARSE_BLOCK_COPIES = 2
SPARSE_M2_DOUBLES = 12
DEFAULT_LIMIT_FRACTION = 0.5
"""Without an explicit limit a fit may use half the machine's physical memory."""


def fit_memory(method: str, n_latent: int, n_pairs: int, n_basis: int, n_blocks: int = 1) -> int:
    """Bytes a fit needs beyond the data: method 'exact' or 'sparse', n_latent latent values (instances
    times n_blocks), n_pairs preferences, n_basis inducing inputs per block (sparse only)."""
    if method == "exact":
        return EXACT_N2_DOUBLES * n_latent**2 * BYTES_PER_DOUBLE
    # Φ is block diagonal but kept dense: (n_latent, n_blocks·M).
    width = n_blocks * n_basis
    doubles = SPARSE_NM_DOUBLES * n_latent * width + SPARSE_PAIR_DOUBLES * n_pairs
    return (doubles + SPARSE_BLOCK_COPIES * PAIR_BLOCK * width + SPARSE_M2_DOUBLES * width**2) * BYTES_PER_DOUBLE


def default_memory_limit() -> int:
    """``DEFAULT_LIMIT_FRACTION`` of this machine's physical memory, in bytes."""
    return int(DEFAULT_LIMIT_FRACTION * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def check_memory(method: str, n_latent: int, n_pairs: int, n_basis: int, n_blocks: int, limit_gb) -> int:
    """``fit_memory`` in bytes; raises ``MemoryBudgetError`` when it exceeds limit_gb (GB; None: the
    default limit)."""
    limit = default_memory_limit() if limit_gb is None else float(limit_gb) * 1e9  # inf for 1e300 GB: no limit
    need = fit_memory(method, n_latent, n_pairs, n_basis, n_blocks)
    if need <= limit:
        return need
    if method == "exact":
        advice = "use method='sparse' (or 'auto'), which needs memory linear in the rows"
    else:
        advice = "lower n_inducing, or fit on fewer preferences (a sample of them)"
    raise MemoryBudgetError(
        f"this {method} GP fit over {n_latent:,} latent values and {n_pairs:,} preferences would need about "
        f"{need / 1e9:.1f} GB, more than its limit of {limit / 1e9:.1f} GB: {advice}, or raise memory_limit"
    )
