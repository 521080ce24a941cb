"""Pairs to ask where other models say the fit orders them wrongly: query by committee (Seung, Opper &
Sompolinsky 1992) with a committee of other model families, and the audit pairs that keep the
annotator measured (issue 31).

The fit's own committee (its fits without one fold of the labels) errs alike: where it is unsure, the
pairs are close in value and a person errs too.  Models of other families fitted on the same labels err
elsewhere: k nearest neighbours (local), a random forest (axis-aligned steps) and ridge regression (one
global slope).  Where one of them orders a pair against the fit by a wide gap, the fit is often wrong
by a wide gap, and an expert, who errs on close pairs, is often right: that answer moves the fit most.
Measured with a simulated expert right on 80 % of typical pairs (``experiments session``, 20 trials,
docs/REPRODUCTION.md, "What an expert's hour buys"): on California 50 such answers gained what 300
random ones did (6.6 % and 6.2 % over SVR's test MAE), and 300 gained 10.2 %.

Pairs chosen for the fit's errors are ones SVR gets wrong, so an annotator's agreement with SVR there
reads low (``expert_accuracy``'s note).  Their first ``AUDIT_START`` answers are therefore audit pairs
SVR is surest of (chosen by SVR's certainty alone, so the agreement with SVR measures them; sure pairs
measure fastest), and afterwards each pair with chance ``AUDIT_SHARE``, drawn per place in the order
asked (``audit_slots``), so the measure follows them.  The surest pairs are far apart in value, easy to
answer, by design: audit pairs SVR was only sure enough of (2 of its pair errors apart, the closest
first) were half as far apart on new-user report 9's used cars, and the gain after 50 answers fell
from 4.8 % to 0.5 % (docs/REPRODUCTION.md, "No row dominates the questions").  Like every choice led by
the models, the pairs keep out the rows of the annotator's last questions (``pair_choice.recent_window``).
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import RidgeCV
from sklearn.neighbors import KNeighborsRegressor

from ordercore.knowledge.arguments import count
from ordercore.knowledge.expert_accuracy import is_audit_pair

AUDIT_START = 20
"""An annotator's answers on audit pairs before model-led pairs are asked: about what surely right
answers on sure pairs take for automatic trust to count them in full (``AgreementEstimate.weight``)."""

AUDIT_SHARE = 0.1
"""The chance that each later pair is an audit pair, so the measure of the annotator keeps up."""

NEIGHBOURS = 5
"""k of the committee's k-nearest-neighbours member (distance-weighted)."""

TREES = 100
"""Trees of the committee's random forest."""


class FamilyCommittee:
    """Models of other families fitted on the labels: ``predictions`` (m, n), each member's prediction for
    every row of X (n, d); m = 0 with fewer than two labeled rows."""

    def __init__(self, predictions: np.ndarray):
        self.predictions = np.asarray(predictions, dtype=np.float64)

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, seed: int = 0) -> FamilyCommittee:
        """k nearest neighbours, a random forest (seeded) and ridge regression (alpha by leave-one-out)
        fitted on the rows of X (n, d) where y (n,) is known (not NaN)."""
        X = np.asarray(X, dtype=np.float64)
        labeled = np.flatnonzero(~np.isnan(y))
        if labeled.size < 2:
            return cls(np.zeros((0, len(X))))
        members = (
            KNeighborsRegressor(min(NEIGHBOURS, labeled.size), weights="distance"),
            RandomForestRegressor(TREES, min_samples_leaf=2, random_state=seed),
            RidgeCV(alphas=np.logspace(-3, 3, 13)),
        )
        return cls(np.stack([m.fit(X[labeled], y[labeled]).predict(X) for m in members]))

    def dissent(self, pairs: np.ndarray, fitted: np.ndarray) -> np.ndarray:
        """Per pair (k, 2) of rows, the widest gap by which a member orders it against ``fitted`` (n,)
        (negative when every member agrees with the fit's order) (k,); zeros without members."""
        if len(self.predictions) == 0:
            return np.zeros(len(pairs))
        side = np.sign(fitted[pairs[:, 0]] - fitted[pairs[:, 1]])
        members = self.predictions[:, pairs[:, 0]] - self.predictions[:, pairs[:, 1]]
        return (-side * members).max(axis=0)


def audit_slots(n: int, audited: int, rng: np.random.Generator) -> np.ndarray:
    """Which of the next n pairs, in the order they are asked, are audit pairs for an annotator with
    ``audited`` answers on them (n,) bool: the first ones, as many as ``AUDIT_START`` still lacks, and each
    other one with chance ``AUDIT_SHARE``.  Drawn per place, not as a count put first: the Pairwise page
    draws pairs ahead and, once the model moved, asks the first of a new draw, which a count put first
    made an audit pair nine times in ten (1 - 0.9^24 of its 24 pairs ahead)."""
    slots = rng.random(count(n, "n")) < AUDIT_SHARE
    slots[: max(AUDIT_START - audited, 0)] = True
    return slots


def committee_scores(pairs: np.ndarray, dissent: np.ndarray, certainty: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(scores (k,), audit (k,) bool) of candidate ``pairs`` (k, 2): an audit pair's is its ``certainty``
    (SVR's |difference|: the surest first), another's its ``dissent`` (the widest first), each ranked
    among its kind (``pair_scores.rank_unsettled``'s kinds, with ``audit_slots`` as its slots)."""
    audit = is_audit_pair(pairs[:, 0], pairs[:, 1])
    return np.where(audit, certainty, dissent), audit
