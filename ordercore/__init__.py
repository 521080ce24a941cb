"""ordercore: regression that learns from a few labels and many order preferences.

Zhu & Goldberg, "Kernel Regression with Order Preferences" (AAAI 2007) and Goldberg & Zhu,
"Semi-supervised Regression with Order Preferences" (tech report): ``OrderPreferenceRegressor``.
Chu & Ghahramani, "Preference Learning with Gaussian Processes" (ICML 2005): ``GPPreferenceModel``.
"""

from ordercore.exceptions import (
    ClusterUnavailableError,
    NotPositiveDefiniteError,
    SolverError,
    SolverNumericalError,
    SolverTimeLimitError,
)
from ordercore.gp.estimator import GPPreferenceModel
from ordercore.gp.labels import GPLabelPreferenceModel
from ordercore.lp.engine import LPSolution, solve_order_preference_lp
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import ZERO, PreferenceSet

__all__ = [
    "ZERO",
    "ClusterUnavailableError",
    "GPLabelPreferenceModel",
    "GPPreferenceModel",
    "LPSolution",
    "NotPositiveDefiniteError",
    "OrderPreferenceRegressor",
    "PreferenceSet",
    "SolverError",
    "SolverNumericalError",
    "SolverTimeLimitError",
    "solve_order_preference_lp",
]
