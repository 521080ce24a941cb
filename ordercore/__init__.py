"""ordercore: regression that learns from a few labels and many order preferences.

Zhu & Goldberg, "Kernel Regression with Order Preferences" (AAAI 2007) and Goldberg & Zhu,
"Semi-supervised Regression with Order Preferences" (tech report): ``OrderPreferenceRegressor``, and
the latter's 2-norm variant (its eq. (7)), ``TwoNormOrderPreferenceRegressor``.
Chu & Ghahramani, "Preference Learning with Gaussian Processes" (ICML 2005): ``GPPreferenceModel``.
Strohmann & Grudic, "A Formulation for Minimax Probability Machine Regression" (NIPS 2002):
``MPMRegressor``, with its bound Omega on P(|f(x) - y| <= epsilon).
Shi, Wang, Shen & Niu, "A Novel Large-scale Ordinal Regression Model": ``NPSVOR``, linear nonparallel
support vector ordinal regression by dual coordinate descent.
A fitted model's ``save(path)`` writes a file that ``load(path)`` reads back (``ordercore.models.files``).
The model families are registered in ``ordercore.models.registry``, each by its own ``family`` module,
all of them imported here (in the order the Studio, the command line and the experiments list them).
"""

# isort: off
import ordercore.lp.family  # noqa: F401 (registers the LP and 2-norm QP families)
import ordercore.npsvor.family  # noqa: F401
import ordercore.gp.family  # noqa: F401
import ordercore.mpmr.family  # noqa: F401

# isort: on

from ordercore.exceptions import (
    ClusterUnavailableError,
    MemoryBudgetError,
    ModelFileError,
    NotPositiveDefiniteError,
    SolverError,
    SolverNumericalError,
    SolverTimeLimitError,
)
from ordercore.gp.estimator import GPPreferenceModel
from ordercore.gp.labels import GPLabelPreferenceModel
from ordercore.lp.cold_solve import solve_order_preference_lp
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.lp.solution import LPSolution
from ordercore.lp.two_norm import TwoNormOrderPreferenceRegressor
from ordercore.models.files import load
from ordercore.mpmr.estimator import MPMRegressor
from ordercore.npsvor.estimator import NPSVOR
from ordercore.preferences import ZERO, PreferenceSet

__all__ = [
    "ZERO",
    "ClusterUnavailableError",
    "GPLabelPreferenceModel",
    "GPPreferenceModel",
    "LPSolution",
    "ModelFileError",
    "MemoryBudgetError",
    "MPMRegressor",
    "NotPositiveDefiniteError",
    "NPSVOR",
    "OrderPreferenceRegressor",
    "PreferenceSet",
    "SolverError",
    "SolverNumericalError",
    "SolverTimeLimitError",
    "TwoNormOrderPreferenceRegressor",
    "load",
    "solve_order_preference_lp",
]
