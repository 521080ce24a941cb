"""The order of ordinal labels, as the ordinal models (NPSVOR, the GP's ordinal label graph) take it:
numbers by value, text that reads as numbers by those numbers ('2' before '10'), an ordered pandas
Categorical by its declared order, other text alphabetically with a warning; and continuous labels
refused in words."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import type_of_target


def ordinal_classes(y: np.ndarray, model: str) -> tuple[np.ndarray, np.ndarray]:
    """The labels of y (n,) in rank order (K,) and each sample's rank (n,): numbers by value; text that
    all reads as distinct numbers ('1' ... '10') by the numbers it reads as, not alphabetically ('10'
    before '2'); other text alphabetically (as scikit-learn orders classes: 'a' < 'b'), with a
    ``UserWarning`` naming ``model`` that says the order taken, since text ranks rarely sort so
    ('high' < 'low')."""
    classes, ranks = np.unique(y, return_inverse=True)
    if classes.dtype.kind not in "OUS":
        return classes, ranks
    try:
        values = np.array([float(label) for label in classes])
    except (TypeError, ValueError):
        shown = " < ".join(repr(str(label))[:40] for label in classes[:6]) + (" < ..." if classes.size > 6 else "")
        warnings.warn(
            f"{model} orders text labels alphabetically: {shown}; if that is not their order, give the ranks "
            "as numbers (1 < 2 < ...), or y as an ordered pandas Categorical",
            UserWarning,
            stacklevel=4,  # the caller of fit (through scikit-learn's fit wrapper)
        )
        return classes, ranks
    if np.isnan(values).any() or np.unique(values).size < values.size:
        raise ValueError(f"{model}'s labels read as numbers must be distinct numbers; got {list(map(str, classes))}")
    return _ordered(classes, ranks, np.argsort(values, kind="stable"))


def declared_classes(y) -> np.ndarray | None:
    """The categories of y in their declared order when y is an ordered pandas Categorical (or a Series of
    one), which ``fit`` takes as the ranks' order; None otherwise."""
    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        return np.asarray(dtype.categories)
    return None


def declared_ranks(y: np.ndarray, declared: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ordinal_classes`` for labels whose order ``declared`` gives (the categories y holds, in that order)."""
    classes, ranks = np.unique(y, return_inverse=True)
    position = {label: k for k, label in enumerate(declared)}
    return _ordered(classes, ranks, np.argsort([position[label] for label in classes], kind="stable"))


def _ordered(classes: np.ndarray, ranks: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``classes`` taken in ``order`` and each sample's rank in it."""
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return classes[order], position[ranks]


def refuse_continuous(y: np.ndarray, model: str, kind: str = "ranks") -> None:
    """``ValueError`` for labels y (n,) that are a continuous target (some not whole numbers), naming
    ``model``, what its labels are (``kind``: ranks, classes) and an example; scikit-learn's words
    ('Unknown label type: continuous') kept at the end."""
    if type_of_target(y) == "continuous":
        example = float(next(v for v in y.ravel() if v != np.round(v)))
        raise ValueError(
            f"{model}'s labels are {kind}, not a continuous target: y holds {np.unique(y).size} distinct values, "
            f"some not whole numbers (e.g. {example}); give {kind} as whole numbers or text (Unknown label "
            "type: continuous)"
        )
