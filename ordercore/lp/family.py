"""The LP package's two model families, as the registry (``ordercore.models.registry``) knows them.

The 2-norm QP is a family of its own rather than a variant of the LP's: it offers less (no warm
re-solves, no automatic trust, whose lambda paths are the LP's), its lambda1 means something else
(smoothness, not sparsity) and every reader already tells the two apart (the Studio's choice, the
experiments' ``--norm``).  As two families, each reader decides by what each declares.
"""

from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.lp.two_norm import TwoNormOrderPreferenceRegressor
from ordercore.models.registry import Learns, ModelFamily, Offer, Setting, register

LAMBDA_CHOICES = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 3.0, 10.0)
GAMMA_CHOICES = (None, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
GAMMA = Setting(
    GAMMA_CHOICES,
    "kernel width γ (auto = 1 / number of features)",
    help="How far apart two rows may be and still count as similar: the RBF (radial basis function) kernel "
    "exp(−γ ‖x − x′‖²) says how alike two rows' values are. A larger γ fits more locally, row by row; a smaller "
    "one more smoothly. Auto: 1 divided by the number of features.",
)
LAMBDA2 = Setting(LAMBDA_CHOICES, "λ2 (weight of preferences)", weighs_preferences=True)
KERNEL_REGRESSOR_OFFERS = {Offer.UPDATE_PREFERENCES, Offer.SUGGEST_PAIRS, Offer.TIME_LIMIT, Offer.SEEDS_PROTOCOL}
"""What both kernel regressors with order preferences offer."""

LP = register(
    ModelFamily(
        key="lp",
        label="Regression with order preferences (sparse)",
        reference="the order-preference LP, seeds 000/001",
        estimator=OrderPreferenceRegressor,
        learns={Learns.LABELS, Learns.PREFERENCES},
        offers={*KERNEL_REGRESSOR_OFFERS, Offer.AUTOMATIC_TRUST},
        studio_settings={"gamma": GAMMA, "lambda1": Setting(LAMBDA_CHOICES, "λ1 (sparsity)"), "lambda2": LAMBDA2},
        saved=(OrderPreferenceRegressor,),
    )
)

TWO_NORM = register(
    ModelFamily(
        key="two_norm",
        label="Regression with order preferences (smooth)",
        reference="the 2-norm order-preference QP, seed 001 eq. (7)",
        estimator=TwoNormOrderPreferenceRegressor,
        learns={Learns.LABELS, Learns.PREFERENCES},
        offers=KERNEL_REGRESSOR_OFFERS,
        studio_settings={"gamma": GAMMA, "lambda1": Setting(LAMBDA_CHOICES, "λ1 (smoothness)"), "lambda2": LAMBDA2},
        saved=(TwoNormOrderPreferenceRegressor,),
    )
)
