"""Each source's effect on automatic trust's cross-validation (issue 14, item 1; issue 30, item 2): the
change in the labels' cross-validated error when the source's weight is set to 0 (``source_effects``).

Each effect's standard error (``ZeroedSources.standard_errors``) is the headline gain's: Nadeau and
Bengio's corrected one of the paired fold-by-fold differences, so its interval reads as the gain's.

Only the cross-validations that differ are run (``ZeroedSources``): one with every source in force, one
per source whose zeroing leaves other preferences weighing, and SVR's when zeroing the only weighing
source leaves none.  A source with no weighing preference (weight 0, or none of its preferences in the
sample) changes nothing when zeroed: its effect is 0 without a fit.  ``trust.assess_sources`` runs these
cross-validations beside its own, on the same folds, and takes the one with every source in force, and
SVR's, from its own table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ordercore.knowledge.label_cv import (
    Blend,
    LabelCV,
    corrected_standard_error,
    cross_validate_runs,
    cv_sample,
    draw_folds,
)
from ordercore.preferences import PreferenceSet


def source_effects(
    X,
    y,
    preferences: PreferenceSet,
    source: np.ndarray,
    blend: Blend,
    svr: Blend,
    seed: int,
    progress=None,
    executor=None,
    **model_options,
) -> np.ndarray:
    """For each source s (0 .. source.max()): cross-validated MAE of ``blend`` with s's weight set to 0
    minus with every source in force, or of ``svr`` when no preference keeps any weight, on the same
    folds (``seed``; beyond ``CV_PREFERENCES`` on the same sample, drawn first); positive: s helps.
    Shape (n_sources,).  So a single source's effect is the gain over SVR, and a source of weight 0 has
    none.  Its preferences stay, at weight 0: the LP's hinge term is a mean over the preferences
    (problem.py), so leaving them out would scale up the pull of the rest (a weight-0 rule of 76,699
    pairs beside one as large showed a 'help' of +2,497).  The folds and the sample are ``label_cv``'s
    with ``np.random.default_rng(seed)``.  ``progress(done, total)`` after each fold of every
    cross-validation run; ``executor`` as ``label_cv``'s."""
    rng = np.random.default_rng(seed)
    kept = cv_sample(len(preferences), rng)
    zeroed = ZeroedSources.of(preferences[kept], source[kept], int(source.max()) + 1)
    everything = blend.active() if zeroed.weighing else svr
    runs = [(zeroed.preferences, everything.settings), *zeroed.runs(blend.active())]
    if zeroed.alone is not None:
        runs.append((zeroed.preferences, svr.settings))
    cvs = cross_validate_runs(X, y, draw_folds(y, rng), runs, model_options, progress, executor)
    return zeroed.effects(cvs[0], everything, cvs[1:], blend.active(), svr)


@dataclass(frozen=True)
class ZeroedSources:
    """The cross-validations the effects need over ``preferences`` (p,) from ``source`` (p,) (their
    weights already the sources'): ``zeroed``, the sources whose weight set to 0 leaves other preferences
    weighing (one cross-validation of the blend each), and ``alone``, the source whose zeroing leaves
    none (its effect is the gain over SVR), or None.  Any other source has no weighing preference here:
    zeroing it changes no weight, and its effect is 0, what its cross-validation would give."""

    preferences: PreferenceSet
    source: np.ndarray
    n_sources: int
    zeroed: tuple
    alone: int | None

    @classmethod
    def of(cls, preferences: PreferenceSet, source: np.ndarray, n_sources: int) -> ZeroedSources:
        weighing = np.unique(source[preferences.weight > 0])
        if weighing.size == 1:  # zeroed, the only source that weighs leaves SVR
            return cls(preferences, source, n_sources, (), int(weighing[0]))
        return cls(preferences, source, n_sources, tuple(map(int, weighing)), None)

    @property
    def weighing(self) -> bool:
        """Whether any preference weighs with every source in force."""
        return bool(self.zeroed) or self.alone is not None

    def runs(self, blend: Blend) -> list:
        """(the preferences with s's weight 0, ``blend``'s settings) for each s of ``zeroed``."""
        p = self.preferences
        return [(PreferenceSet(p.i, p.j, p.margin, p.weight * (self.source != s)), blend.settings) for s in self.zeroed]

    def effects(self, everything: LabelCV, fitted: Blend, cvs, blend: Blend, svr: Blend) -> np.ndarray:
        """Each source's effect (n_sources,): its mean held-out MAE when zeroed minus that of ``fitted``
        in ``everything``; ``cvs`` are those of ``runs(blend)`` in order, then (for ``alone``) one whose
        grid holds ``svr``'s setting."""
        base = everything.blend_errors(fitted).mean()
        return np.array(
            [errors.mean() - base if errors is not None else 0.0 for errors in self._zeroed_errors(cvs, blend, svr)]
        )

    def standard_errors(self, everything: LabelCV, fitted: Blend, cvs, blend: Blend, svr: Blend) -> np.ndarray:
        """Each effect's standard error (n_sources,), as the headline gain's (``LabelCV.comparison``): Nadeau
        and Bengio's corrected one of the fold-by-fold differences (the folds are shared, so paired); 0 for
        a source whose zeroing changes nothing.  The arguments are ``effects``'."""
        base = everything.blend_errors(fitted)
        return np.array(
            [
                corrected_standard_error(errors - base) if errors is not None else 0.0
                for errors in self._zeroed_errors(cvs, blend, svr)
            ]
        )

    def _zeroed_errors(self, cvs, blend: Blend, svr: Blend) -> list:
        """Each source's held-out MAE in each fold (n_folds,) with its weight set to 0, or None when that
        changes nothing."""
        errors = [None] * self.n_sources
        for s, cv in zip(self.zeroed, cvs, strict=False):
            errors[s] = cv.blend_errors(blend)
        if self.alone is not None:
            errors[self.alone] = cvs[len(self.zeroed)].blend_errors(svr)
        return errors
