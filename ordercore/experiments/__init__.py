"""The seeds' experiments: the protocol, one module per seed experiment, parallel backends, figures."""
