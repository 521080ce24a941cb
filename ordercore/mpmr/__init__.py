"""Minimax probability machine regression (Strohmann & Grudic, NIPS 2002 — seed 003): ``problem``
states the regression as MPM classification of two shifted copies of the data and gives the bound Ω,
``solver`` is the closed form of its Theorem 2 (one Cholesky solve), and ``estimator`` is the
scikit-learn estimator ``MPMRegressor``."""
