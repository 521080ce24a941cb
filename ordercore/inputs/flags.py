"""Switches people hand a method (``predict(return_std=)``, ``suggest_pairs(return_scores=)``), checked in
words: read by truthiness, 'no' returned the standard deviation as 'yes' did."""

from __future__ import annotations

import numpy as np

from ordercore.inputs.printable import quoted


def true_or_false(value, name: str) -> bool:
    """``value`` as a bool: True or False (Python's or numpy's); ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {quoted(value)}")
    return bool(value)
