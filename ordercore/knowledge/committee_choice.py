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
measure fastest), and afterwards one answer in ``1 / AUDIT_SHARE`` on average, so the measure follows
them.
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


def controls_wanted(n: int, audited: int, rng: np.random.Generator) -> int:
    """How many of the next n pairs are audit pairs for an annotator with ``audited`` answers on them:
    what ``AUDIT_START`` still lacks, and each other pair with chance ``AUDIT_SHARE``."""
    n = count(n, "n")
    lacking = min(n, max(AUDIT_START - audited, 0))
    return lacking + int(rng.binomial(n - lacking, AUDIT_SHARE))


def committee_order(
    pairs: np.ndarray,
    dissent: np.ndarray,
    certainty: np.ndarray,
    controls: int,
) -> np.ndarray:
    """Scores (k,) ranking candidate ``pairs`` (k, 2), highest first: ``controls`` audit pairs of the
    highest ``certainty`` (SVR's |difference|), then the other pairs by ``dissent``; the remaining audit
    pairs last."""
    audit = is_audit_pair(pairs[:, 0], pairs[:, 1])
    audits = np.flatnonzero(audit)
    first = audits[np.argsort(-certainty[audits], kind="stable")[:controls]]
    others = np.flatnonzero(~audit)
    rest = np.setdiff1d(audits, first)
    order = np.concatenate([first, others[np.argsort(-dissent[others], kind="stable")], rest])
    scores = np.empty(len(pairs))
    scores[order] = -np.arange(len(pairs), dtype=np.float64)
    return scores
