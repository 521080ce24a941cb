"""The NPSVOR family, as the registry (``ordercore.models.registry``) knows it: grades learned by linear
nonparallel support vector ordinal regression (seed 004), refitted warm as grades are appended."""

from ordercore.models.registry import Grading, Learns, ModelFamily, register
from ordercore.npsvor.estimator import NPSVOR
from ordercore.npsvor.problem import predict_order, threshold_distance

STUDIO_C = 1.0
"""C of the Studio's NPSVOR (C1 = C2; seed 004's default range is 2⁻⁵ … 2⁵, 1 its middle)."""

NPSVOR_FAMILY = register(
    ModelFamily(
        key="npsvor",
        label="Ordinal regression on grades (NPSVOR)",
        reference="seed 004",
        estimator=NPSVOR,
        learns={Learns.GRADES},
        saved=(NPSVOR,),
        grading=Grading(
            label="NPSVOR (ordinal regression: linear, refitted from its last fit after every grade)",
            estimator=NPSVOR,
            parameters={"C": STUDIO_C, "random_state": 0},
            rank=predict_order,
            sureness=threshold_distance,
            sparse=True,
            warm=True,
        ),
    )
)
