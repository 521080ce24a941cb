"""ordercore: regression that learns from a few labels and many order preferences.

Zhu & Goldberg, "Kernel Regression with Order Preferences" (AAAI 2007) and Goldberg & Zhu,
"Semi-supervised Regression with Order Preferences" (tech report): ``OrderPreferenceRegressor``.
"""

from ordercore.exceptions import SolverError, SolverNumericalError, SolverTimeLimitError
from ordercore.lp.engine import LPSolution, solve_order_preference_lp
from ordercore.preferences import ZERO, PreferenceSet
from ordercore.regressor import OrderPreferenceRegressor

__all__ = [
    "ZERO",
    "LPSolution",
    "OrderPreferenceRegressor",
    "PreferenceSet",
    "SolverError",
    "SolverNumericalError",
    "SolverTimeLimitError",
    "solve_order_preference_lp",
]
