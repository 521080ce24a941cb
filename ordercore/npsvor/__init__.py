"""Linear NPSVOR, nonparallel support vector ordinal regression (Shi, Wang, Shen & Niu, *A Novel
Large-scale Ordinal Regression Model* — seed 004): ``problem`` states each rank's dual and the two
prediction rules, ``coordinate_descent`` (the only importer of numba) is the compiled coordinate loop
of DCD-1/DCD-2, ``solver`` runs it rank by rank, and ``estimator`` is the scikit-learn estimator
``NPSVOR``."""

from ordercore.npsvor.estimator import NPSVOR

__all__ = ["NPSVOR"]
