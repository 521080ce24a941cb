"""Numerical basics the model families share: kernel matrices (``kernels``), the one Cholesky
factorisation with jitter (``cholesky``) and values too large for float64's squares (``magnitudes``)."""
