"""The seeds' experiments: the protocol (``protocol``, its tunings ``tuning``), one module per seed
experiment (``table1`` with Fig. 2's sweeps, ``bedroom``, ``sentiment``, ``mpmr``, ``npsvor``), their
result files (``results``), parallel backends and figures."""
