"""The seeds' experiments: the protocol (``protocol``, its tunings ``tuning``), one module per seed
experiment (``table1`` with Fig. 2's sweeps, ``bedroom``, ``sentiment``, ``mpmr``, ``npsvor``; seed 002's
``gp_instance`` and ``gp_scaling`` with their comparator ``cc_svm``), their result files (``results``),
parallel backends and figures."""
