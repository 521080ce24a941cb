"""NPSVOR's per-rank problem and its prediction rules as pure functions (Shi, Wang, Shen & Niu, *A Novel
Large-scale Ordinal Regression Model* — seed 004).

Ranks are coded 0 … K−1 here (the paper's 1 … p).  For rank k the training rows split into
L_k (lower ranks), I_k (rank k) and R_k (higher ranks) (eq. (1)); ỹ_ki = +1 on R_k and −1 otherwise.
Rank k's hyperplane f_k(x) = w_kᵀx (x augmented with a constant feature for the bias, §3) solves the
primal (4)

    min ½‖w‖² + C1 Σ_{i∈I_k} max(|wᵀx_i| − ε, 0) + C2 Σ_{i∉I_k} max(1 − ỹ_i wᵀx_i, 0),

through its dual (6), written with α_i = α_i⁺ − α_i⁻ on I_k and β_i elsewhere as eq. (20)

    min ½‖w‖² + ε Σ_{i∈I_k} |α_i| − Σ_{i∉I_k} α_i,  w = Σ_i ỹ_i α_i x_i   (eq. (19)),
    −C1 ≤ α_i ≤ C1 on I_k,  0 ≤ α_i ≤ C2 elsewhere.
"""

from typing import NamedTuple

import numpy as np

SOLVERS = ("dcd2", "dcd1")
"""'dcd2': Algorithm 2, one variable α_i⁺ − α_i⁻ per row of the rank (§3.1.2); 'dcd1': Algorithm 1,
LIBLINEAR's dual coordinate descent extended directly, α_i⁺ and α_i⁻ apart (§3.1.1)."""


class DualVariables(NamedTuple):
    """One rank's dual variables as the coordinate loop reads them, each array (m,): the training
    ``row`` it belongs to, its ``sign`` in w = Σ sign α x, whether it is ``paired`` (α⁺ − α⁻ with the
    ε|α| term: DCD-2 on I_k), the ``linear`` term of a box variable's dual objective and its
    ``upper`` bound."""

    row: np.ndarray
    sign: np.ndarray
    paired: np.ndarray
    linear: np.ndarray
    upper: np.ndarray


def rank_signs(ranks: np.ndarray, k: int) -> np.ndarray:
    """ỹ_k (n,): +1 on R_k (rank above k), −1 on L_k and I_k (§3, below eq. (4))."""
    return np.where(ranks > k, 1.0, -1.0)


def dual_variables(ranks: np.ndarray, k: int, C1: float, C2: float, epsilon: float, solver: str) -> DualVariables:
    """Rank k's dual variables for ``solver`` (ranks (n,) coded 0 … K−1).

    'dcd2': one variable per row (eq. (20)): rows of I_k paired in [−C1, C1] with sign ỹ = −1, the
    others box variables in [0, C2] with linear term −1 (eq. (21)).
    'dcd1': the n + |I_k| variables of eq. (6): on I_k, α⁺ (sign −1) and α⁻ (sign +1), both in
    [0, C1] with linear term ε (eq. (12)); elsewhere β as for 'dcd2'."""
    n = ranks.shape[0]
    in_rank = ranks == k
    row = np.arange(n, dtype=np.int64)
    sign = rank_signs(ranks, k)
    upper = np.where(in_rank, C1, C2)
    if solver == "dcd2":
        return DualVariables(row, sign, in_rank.copy(), np.where(in_rank, 0.0, -1.0), upper)
    minus_rows = np.flatnonzero(in_rank)
    return DualVariables(
        np.concatenate([row, minus_rows]),
        np.concatenate([sign, np.ones(minus_rows.size)]),
        np.zeros(n + minus_rows.size, dtype=bool),
        np.concatenate([np.where(in_rank, epsilon, -1.0), np.full(minus_rows.size, epsilon)]),
        np.concatenate([upper, np.full(minus_rows.size, C1)]),
    )


def row_duals(variables: DualVariables, alpha: np.ndarray, n: int) -> np.ndarray:
    """α (n,) of eq. (20), one per row, from the solver's variables: DCD-1's α⁺ − α⁻ on I_k, where
    α⁺ enters w with sign −1 and α⁻ with +1 (eq. (7)): the row's Σ sign α is ỹ_i α_i."""
    if alpha.size == n:
        return alpha.copy()
    return variables.sign[:n] * np.bincount(variables.row, weights=variables.sign * alpha, minlength=n)


def variable_duals(variables: DualVariables, row_alpha: np.ndarray) -> np.ndarray:
    """The inverse of ``row_duals``: the solver's variables (m,) from α (n,) of eq. (20), DCD-1's pair
    split as α⁺ = max(α, 0), α⁻ = max(−α, 0) (so α⁺α⁻ = 0, eq. (8))."""
    n = row_alpha.size
    if variables.row.size == n:
        return row_alpha.copy()
    in_rank_rows = variables.row[n:]
    alpha = row_alpha.copy()
    alpha[in_rank_rows] = np.maximum(row_alpha[in_rank_rows], 0.0)
    return np.concatenate([alpha, np.maximum(-row_alpha[in_rank_rows], 0.0)])


def primal_objective(margins: np.ndarray, w: np.ndarray, ranks: np.ndarray, k: int, C1, C2, epsilon) -> float:
    """Eq. (4) at w (d,) for rank k, margins = Xw (n,) (with the bias feature in X and w)."""
    in_rank = ranks == k
    tube = np.maximum(np.abs(margins[in_rank]) - epsilon, 0.0).sum()
    hinge = np.maximum(1.0 - rank_signs(ranks, k)[~in_rank] * margins[~in_rank], 0.0).sum()
    return 0.5 * float(w @ w) + C1 * tube + C2 * hinge


def dual_objective(w: np.ndarray, alpha: np.ndarray, ranks: np.ndarray, k: int, epsilon: float) -> float:
    """Eq. (20)'s objective at α (n,) with w = Σ ỹ α x (d,); at the optimum it is minus eq. (4)'s."""
    in_rank = ranks == k
    return 0.5 * float(w @ w) + epsilon * np.abs(alpha[in_rank]).sum() - alpha[~in_rank].sum()


def predict_order(decision: np.ndarray) -> np.ndarray:
    """Rule (36): rank 1 + Σ_k I(f_k(x) + f_{k+1}(x) > 0), coded 0 … K−1; decision (n, K) → (n,).
    g_k = f_k + f_{k+1} (eq. (35)) answers "is x above rank k?"."""
    return (decision[:, :-1] + decision[:, 1:] > 0).sum(axis=1)


def threshold_distance(decision: np.ndarray) -> np.ndarray:
    """How far rule (36)'s prediction is from changing, min_k |g_k(x)| with g_k = f_k + f_{k+1} (eq.
    (35)): it moves by one rank when any g_k changes sign; decision (n, K) → (n,)."""
    return np.abs(decision[:, :-1] + decision[:, 1:]).min(axis=1)


def predict_nearest(decision: np.ndarray) -> np.ndarray:
    """Rule (5): the rank of the nearest hyperplane, argmin_k |f_k(x)| (first on ties); (n, K) → (n,)."""
    return np.argmin(np.abs(decision), axis=1)


PREDICTION_RULES = {"order": predict_order, "nearest": predict_nearest}
"""``prediction`` name → rule: 'order' is rule (36) (the paper's proposal), 'nearest' rule (5)."""
