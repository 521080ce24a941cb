"""The compiled coordinate loop of NPSVOR's dual (Shi, Wang, Shen & Niu — seed 004, §3.1): the only
module that imports numba.

One loop serves both of the paper's solvers.  ``ordercore.npsvor.problem.dual_variables`` lists the
dual variables of one rank's problem as arrays; each variable v belongs to a training row ``row[v]``
and enters w = Σ_v sign_v α_v x_{row v} (eqs. (7), (19)).  A variable is either

- a *box* variable, 0 ≤ α_v ≤ upper_v, with linear term ``linear_v`` in the dual objective: its
  gradient is G = sign_v wᵀx + linear_v (eq. (12)) and its update eq. (13) — DCD-1's every variable,
  and DCD-2's β_i of the rows of other ranks (eqs. (21)–(24));
- a *paired* variable α_i = α_i⁺ − α_i⁻ ∈ [−C1, C1] of a row of the rank, whose dual term is ε|α_i|:
  its update is the soft-thresholding step (25)–(28), its violation eq. (30) — DCD-2 only.

Sweeps visit the active variables in a random order (Algorithm 2, line 5), shrink variables that sit at
a bound with a gradient pushing outwards by more than the previous sweep's largest violation M
(eqs. (32)–(34)), and stop when ‖vᵗ‖₁ ≤ ε_s ‖v⁰‖₁ on the full set (eq. (31)), as the authors' code
(a LIBLINEAR fork) does.  Rows are CSR arrays; a constant feature ``bias`` (the paper's augmented
x ← [x, 1], §3) is the weight vector's last entry, so no copy of X is made.

The random order makes every row a cache miss once X and w outgrow the caches (at 10⁶ × 10⁶ with 100
non-zeros a row, X is 1.2 GB and w 8 MB): on such X the loop asks the processor to fetch the rows a
few steps ahead in the order, and their entries of w (``_prefetch_ahead``).  Prefetches are hints
only: the arithmetic, and so the result, is the same.

Given trace arrays, the loop also records after each sweep the time so far and the dual objective
(seed 004's Figure 4: ``ordercore.npsvor.solver.trace_rank``); given arrays of length 0, it records
nothing and reads no clock.
"""

import time

import numpy as np
from llvmlite import ir
from numba import njit, objmode, types
from numba.core import cgutils
from numba.extending import intrinsic

SKIP_VIOLATION = 1e-12
"""A variable whose optimality violation is at most this is left as it is (LIBLINEAR's threshold)."""

AHEAD_ORDER, AHEAD_VARIABLE, AHEAD_ROW, AHEAD_WEIGHTS = 16, 8, 4, 2
"""How many steps ahead in the visiting order ``_prefetch_ahead`` fetches a variable's row number, the
variable's other entries and its row's place in X, the row's non-zeros, and their entries of w: each
stage finds its addresses in data the previous stage brought in."""

CACHE_LINE = 64
"""Bytes the processor fetches at a time."""

PREFETCH_FROM_BYTES = 32 * 2**20
"""X's size (non-zeros and their column numbers) from which ``solve_npsvor`` asks the loop to
prefetch: below it X stays in the caches after the first sweep, and prefetching only adds work (3
times the time of a fit on 3,342 × 10 dense rows)."""


@intrinsic
def _prefetch(typingctx, array, index):
    """Hint the processor to fetch array[index] into the caches (LLVM's llvm.prefetch: read, keep in
    all levels, data); no effect on any value."""

    def codegen(context, builder, signature, arguments):
        array_type = signature.args[0]
        pointer = cgutils.get_item_pointer(
            context, builder, array_type, context.make_array(array_type)(context, builder, arguments[0]), [arguments[1]]
        )
        byte_pointer, int32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
        prefetch = cgutils.get_or_insert_function(builder.module, function_type, "llvm.prefetch.p0i8")
        builder.call(prefetch, [builder.bitcast(pointer, byte_pointer), int32(0), int32(3), int32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@njit(cache=True, nogil=True, inline="always")
def _prefetch_ahead(s, active, order, row, sign, paired, linear, upper, alpha, squared_norm, indptr, indices, data, w):
    """While step s of a sweep is visited, prefetch what the steps AHEAD_* on will read (the random
    order makes each a cache miss)."""
    if s + AHEAD_ORDER < active:
        _prefetch(row, order[s + AHEAD_ORDER])
    if s + AHEAD_VARIABLE < active:
        v = order[s + AHEAD_VARIABLE]
        _prefetch(sign, v)
        _prefetch(paired, v)
        _prefetch(linear, v)
        _prefetch(upper, v)
        _prefetch(alpha, v)
        _prefetch(indptr, row[v])
        _prefetch(squared_norm, row[v])
    if s + AHEAD_ROW < active:
        i = row[order[s + AHEAD_ROW]]
        for p in range(indptr[i], indptr[i + 1], CACHE_LINE // indices.itemsize):
            _prefetch(indices, p)
        for p in range(indptr[i], indptr[i + 1], CACHE_LINE // data.itemsize):
            _prefetch(data, p)
    if s + AHEAD_WEIGHTS < active:
        i = row[order[s + AHEAD_WEIGHTS]]
        for p in range(indptr[i], indptr[i + 1]):
            _prefetch(w, indices[p])


@njit(cache=True, nogil=True)
def _row_dot(w, indptr, indices, data, bias, i):
    """wᵀx_i for row i of the CSR matrix, with the constant feature ``bias`` weighted by w[-1]."""
    total = w[w.shape[0] - 1] * bias
    for p in range(indptr[i], indptr[i + 1]):
        total += w[indices[p]] * data[p]
    return total


@njit(cache=True, nogil=True)
def _row_axpy(step, w, indptr, indices, data, bias, i):
    """w ← w + step x_i (eqs. (14), (29))."""
    for p in range(indptr[i], indptr[i + 1]):
        w[indices[p]] += step * data[p]
    w[w.shape[0] - 1] += step * bias


@njit(cache=True, nogil=True)
def squared_norms(indptr, data, bias):
    """A_i = x_iᵀx_i + bias² (n_rows,) (eq. (10), x augmented by the bias feature), without a copy
    of the rows."""
    n_rows = indptr.shape[0] - 1
    norms = np.empty(n_rows)
    for i in range(n_rows):
        total = bias * bias
        for p in range(indptr[i], indptr[i + 1]):
            total += data[p] * data[p]
        norms[i] = total
    return norms


@njit(cache=True, nogil=True)
def _box_step(alpha, gradient, curvature, upper):
    """argmin over s in [0, upper] of ½ A (s − α)² + G s (eq. (13)); with A = 0 (an empty row) the
    linear term alone decides."""
    if curvature > 0.0:
        return min(max(alpha - gradient / curvature, 0.0), upper)
    return upper if gradient < 0.0 else (0.0 if gradient > 0.0 else alpha)


@njit(cache=True, nogil=True)
def _paired_step(alpha, gradient, curvature, epsilon, bound):
    """argmin over s in [−C1, C1] of ½ A (s − α)² + B s + ε|s| (eqs. (25)–(28)): with G_p = B + ε and
    G_n = B − ε, the step is −G_p/A if G_p < Aα, −G_n/A if G_n > Aα, else −α (to s = 0)."""
    if curvature <= 0.0:
        return 0.0  # an empty row: B = 0, so ε|s| alone, minimised at 0
    positive, negative = gradient + epsilon, gradient - epsilon
    if positive < curvature * alpha:
        step = -positive / curvature
    elif negative > curvature * alpha:
        step = -negative / curvature
    else:
        step = -alpha
    return min(max(alpha + step, -bound), bound)


@njit(cache=True, nogil=True)
def _box_violation(alpha, gradient, upper, shrink_level):
    """(v, shrink) for a box variable: the projected gradient (eqs. (18), (24)) and whether it sits at
    a bound with the gradient pushing outwards by more than M (eq. (32))."""
    if alpha == 0.0:
        if gradient > shrink_level:
            return 0.0, True
        return max(-gradient, 0.0), False
    if alpha == upper:
        if gradient < -shrink_level:
            return 0.0, True
        return max(gradient, 0.0), False
    return abs(gradient), False


@njit(cache=True, nogil=True)
def _paired_violation(alpha, gradient, epsilon, bound, shrink_level):
    """(v, shrink) for a paired variable: eq. (30) and the shrinking conditions (33a)–(33c)."""
    positive, negative = gradient + epsilon, gradient - epsilon
    if alpha == 0.0:
        if positive < 0.0:
            return -positive, False
        if negative > 0.0:
            return negative, False
        return 0.0, positive > shrink_level and negative < -shrink_level
    if alpha >= bound:
        if positive > 0.0:
            return positive, False
        return 0.0, positive < -shrink_level
    if alpha <= -bound:
        if negative < 0.0:
            return -negative, False
        return 0.0, negative > shrink_level
    return abs(positive) if alpha > 0.0 else abs(negative), False


@njit(cache=True)
def _clock():
    """time.perf_counter() in seconds, read from compiled code (numba's object mode takes the GIL)."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return now


@njit(cache=True, nogil=True)
def _dual_objective(w, alpha, paired, linear, epsilon):
    """The dual objective the loop minimises: ½‖w‖² + Σ_box linear_v α_v + ε Σ_paired |α_v| (eq. (6)
    for DCD-1, eq. (20) for DCD-2)."""
    total = 0.5 * np.dot(w, w)
    for v in range(alpha.shape[0]):
        total += epsilon * abs(alpha[v]) if paired[v] else linear[v] * alpha[v]
    return total


@njit(cache=True, nogil=True)
def dual_coordinate_descent(
    indptr, indices, data, bias, squared_norm, row, sign, paired, linear, upper,
    epsilon, epsilon_s, max_iter, alpha, w, initial_violation, seed, prefetch, trace_seconds, trace_dual,
):  # fmt: skip
    """Minimise one rank's dual from ``alpha`` (updated in place, with w = Σ_v sign_v α_v x_{row v}
    kept in ``w`` (n_features + 1,)); returns (sweeps made, ‖v⁰‖₁).

    indptr, indices, data: CSR rows of X; bias: the constant feature's value (0 for none);
    squared_norm (n_rows,): A_i = x_iᵀx_i + bias² (eq. (10)).  Per variable (m,): row, sign (±1),
    paired (bool), linear (the box variables' linear term), upper (the bound: U_v, or C1 when paired).
    epsilon: ε of the tube; epsilon_s: ε_s of eq. (31); max_iter: cap on sweeps.
    initial_violation: ‖v⁰‖₁ of eq. (31), or a negative number to take it from the first sweep.
    seed: of the random visiting order.  prefetch: fetch the next steps' data ahead
    (``_prefetch_ahead``; for X beyond the caches), which changes no value.
    trace_seconds, trace_dual (L,): after sweep t < L, the seconds since the start (less the time spent
    on the trace itself) and the dual objective (``_dual_objective``); L = 0 traces nothing."""
    start = _clock() if trace_dual.shape[0] > 0 else 0.0
    np.random.seed(seed)
    n_variables = row.shape[0]
    order = np.arange(n_variables)
    active = n_variables
    shrink_level = np.inf  # M of eq. (34): no shrinking in the first sweep
    sweeps = 0
    while sweeps < max_iter:
        largest_violation = 0.0
        violation_norm = 0.0
        for s in range(active):  # Algorithm 2, line 5: a random permutation of the active set
            r = np.random.randint(s, active)
            order[s], order[r] = order[r], order[s]
        s = 0
        while s < active:
            if prefetch:
                _prefetch_ahead(
                    s, active, order, row, sign, paired, linear, upper, alpha, squared_norm, indptr, indices, data, w
                )
            v = order[s]
            i = row[v]
            gradient = sign[v] * _row_dot(w, indptr, indices, data, bias, i)
            if paired[v]:
                violation, shrink = _paired_violation(alpha[v], gradient, epsilon, upper[v], shrink_level)
            else:
                gradient += linear[v]
                violation, shrink = _box_violation(alpha[v], gradient, upper[v], shrink_level)
            if shrink:  # eqs. (32)–(33): set aside until the next full sweep
                active -= 1
                order[s], order[active] = order[active], order[s]
                continue
            largest_violation = max(largest_violation, violation)
            violation_norm += violation
            if violation > SKIP_VIOLATION:
                if paired[v]:
                    new = _paired_step(alpha[v], gradient, squared_norm[i], epsilon, upper[v])
                else:
                    new = _box_step(alpha[v], gradient, squared_norm[i], upper[v])
                _row_axpy((new - alpha[v]) * sign[v], w, indptr, indices, data, bias, i)
                alpha[v] = new
            s += 1
        if initial_violation < 0.0:
            initial_violation = violation_norm
        if sweeps < trace_dual.shape[0]:
            stop = _clock()
            trace_seconds[sweeps] = stop - start
            trace_dual[sweeps] = _dual_objective(w, alpha, paired, linear, epsilon)
            start += _clock() - stop  # the objective's time is not the solver's
        sweeps += 1
        if violation_norm <= epsilon_s * initial_violation:  # eq. (31)
            if active == n_variables:
                break
            active = n_variables  # Algorithm 2, line 28: check the shrunk variables once more
            shrink_level = np.inf
            continue
        shrink_level = largest_violation
    return sweeps, initial_violation
