"""The MPMR family, as the registry (``ordercore.models.registry``) knows it: regression from labels
with a tube ±ε whose probability the paper bounds (seed 003)."""

from ordercore.models.registry import Learns, ModelFamily, Offer, register
from ordercore.mpmr.estimator import MPMRegressor

MPMR = register(
    ModelFamily(
        key="mpmr",
        label="Minimax probability machine regression",
        reference="seed 003",
        estimator=MPMRegressor,
        learns={Learns.LABELS},
        offers={Offer.INTERVALS},
        saved=(MPMRegressor,),
    )
)
