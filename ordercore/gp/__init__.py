"""Gaussian-process preference learning (Chu & Ghahramani, ICML 2005 — seed 002): ``covariance`` is
the kernel, ``laplace`` the MAP fit and evidence, ``evidence`` the hyperparameter search, and
``estimator`` / ``labels`` the scikit-learn estimators ``GPPreferenceModel`` and
``GPLabelPreferenceModel``."""
