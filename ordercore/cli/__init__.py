"""The command line (``python -m ordercore``): fit, predict, rules, check and the experiments."""
