"""The GP preference family, as the registry (``ordercore.models.registry``) knows it: the latent value
learned from pairwise preferences (``GPPreferenceModel``), and grades learned as label preferences on
an ordinal graph (``GPLabelPreferenceModel``, seed 002 §3)."""

from ordercore.gp.estimator import GPPreferenceModel
from ordercore.gp.labels import GPLabelPreferenceModel, largest_mean, mean_gap
from ordercore.models.registry import Grading, Learns, ModelFamily, Offer, register

MAX_GRADES = 100
"""Most grades the GP takes on the Ratings page: one fit of 100 grades on a 5-grade scale took about
1 s here (its (n·K)³ cost: 200 grades took 7.5 s), and cross-validation makes five."""

GP = register(
    ModelFamily(
        key="gp",
        label="Gaussian-process preference model",
        reference="seed 002",
        estimator=GPPreferenceModel,
        learns={Learns.PREFERENCES, Learns.GRADES},
        offers={Offer.SUGGEST_PAIRS, Offer.UNCERTAINTY},
        saved=(GPPreferenceModel, GPLabelPreferenceModel),
        grading=Grading(
            label="GP label preferences (nonlinear, for few grades)",
            estimator=GPLabelPreferenceModel,
            parameters={"graph": "ordinal", "random_state": 0},
            rank=largest_mean,
            sureness=mean_gap,
            max_grades=MAX_GRADES,
        ),
    )
)
