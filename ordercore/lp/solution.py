"""What a solve of the order-preference LP returns, and the duality-gap certificate it must pass.

The engine recovers the primal (alpha_0, alpha) from the dual LP's row duals and evaluates the
primal objective (9) over all preferences itself.  By weak duality that value can only equal
HiGHS's dual objective at the joint optimum, so a gap above ``CERTIFICATE_TOLERANCE`` exposes a
wrong "optimal" answer, such as the one HiGHS sometimes returns after a hot start (HiGHS issues
#3294, #3194).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ordercore.exceptions import SolverNumericalError
from ordercore.lp.problem import TargetScaling

CERTIFICATE_TOLERANCE = 1e-8
"""Largest accepted |primal (9) - dual objective| / max(1, |primal|), in scaled units.  With HiGHS's
feasibility tolerances at 1e-9 honest optima agree to ~1e-11; the wrong hot-start optimum reported
in HiGHS #3194 was off by 1.1e-7."""


def check_duality_gap(primal: float, dual: float) -> None:
    """Raise ``SolverNumericalError`` unless |primal - dual| / max(1, |primal|) <= ``CERTIFICATE_TOLERANCE``
    (a NaN gap fails too)."""
    gap = abs(primal - dual) / max(1.0, abs(primal))
    if not gap <= CERTIFICATE_TOLERANCE:
        raise SolverNumericalError(
            f"HiGHS reported an optimum whose duality gap is {gap:.2e} (> {CERTIFICATE_TOLERANCE:g})"
        )


@dataclass(frozen=True)
class LPSolution:
    """A certified optimum of LP (13) in the units of y: f(x) = K(x, centers) dual_coef + intercept."""

    center_rows: np.ndarray  # (m,) rows of X that carry a dual coefficient
    dual_coef: np.ndarray  # (m,) alpha
    intercept: float  # alpha_0
    objective: float  # objective (9)
    violation: np.ndarray  # (p,) shortfall max(d - (f_i - f_j), 0) of each preference
    iterations: int  # simplex iterations of the solve that produced it (every pricing round)
    seconds: float  # HiGHS run time of that solve (every pricing round)
    start: str  # 'cold'; 'hot': HiGHS pivoted from the previous basis; 'kept': that basis stayed optimal

    @classmethod
    def unscaled(
        cls,
        scaling: TargetScaling,
        kernel_scale: float,
        center_rows: np.ndarray,
        row_dual: np.ndarray,
        objective: float,
        shortfall: np.ndarray,
        **solve,
    ) -> LPSolution:
        """The solution in the units of y from the scaled LP's: the primal ``row_dual`` (m + 1,) =
        (alpha_0, alpha) of the LP over K / kernel_scale and (y - center) / scale, its objective (9)
        and each preference's shortfall (p,).  ``solve``: iterations, seconds and start."""
        scale, center = scaling.scale, scaling.center
        return cls(
            center_rows=center_rows.copy(),
            dual_coef=scale / kernel_scale * row_dual[1:],
            intercept=scale * row_dual[0] + center,
            objective=scale * objective,
            violation=scale * np.maximum(shortfall, 0.0),
            **solve,
        )
