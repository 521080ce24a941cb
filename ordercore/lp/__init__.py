"""The order-preference LP (seeds 000/001): ``problem`` builds it as arrays, ``highs`` (the only
importer of highspy) solves it, ``engine`` handles cold and warm re-solves (with ``basis``,
``kernel_rows`` and ``preference_columns``, the preferences as the LP's columns; ``cold_solve`` is its
one-call form for arrays), ``solution`` certifies
every answer by its duality gap, and ``estimator`` is the scikit-learn estimator
``OrderPreferenceRegressor``.  Its 2-norm variant (seed 001 eq. (7)), a QP: ``two_norm_qp`` states
and solves it (interior point, duality-gap certificate), ``two_norm`` is the estimator
``TwoNormOrderPreferenceRegressor``.  ``average``: ``AveragedOrderPreferenceRegressor``, a weighted
average of LPs that differ only in lambda1, lambda2 (what automatic trust fits)."""

from ordercore.lp.average import AveragedOrderPreferenceRegressor
from ordercore.lp.two_norm import TwoNormOrderPreferenceRegressor

__all__ = ["AveragedOrderPreferenceRegressor", "TwoNormOrderPreferenceRegressor"]
