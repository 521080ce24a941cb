"""The order-preference LP (seeds 000/001): ``problem`` builds it as arrays, ``highs`` (the only
importer of highspy) solves it, ``engine`` certifies solutions and handles warm re-solves (with
``basis`` and ``kernel_rows``), and ``estimator`` is the scikit-learn estimator
``OrderPreferenceRegressor``."""
