"""What moved the model between two retrains, in words (issue 33, item 3): Pairwise's "Model moved"
jumped between 0 and 13.79 with nothing said of why.  A retrain follows a change of the preferences
(an answer, an undo, a rule, an import), a new assessment of automatic trust in force (in the
background, perhaps with no answer given), or a setting; ``RetrainCause`` records which, and of new
preferences how many the fit before already ordered that way (an answer the fit already satisfies by its
margin leaves the LP's optimum where it was) or weigh 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ordercore.preferences import PreferenceSet
from ordercore.studio.numbers import reads_as_zero


@dataclass(frozen=True)
class RetrainCause:
    """What changed since the retrain before: ``preferences`` (``added`` at the end, of which the fit
    before already ordered ``kept`` that way and ``weightless`` weigh 0 under the trust in force), the
    ``trust`` in force (a new assessment), or neither (a model setting); ``finished``, when the retrain
    ended (seconds since the epoch; set once it has)."""

    preferences: bool
    trust: bool
    added: int = 0
    kept: int = 0
    weightless: int = 0
    finished: float = 0.0

    @classmethod
    def between(cls, before, preferences: PreferenceSet, trust_changed: bool, fit, weights) -> RetrainCause:
        """The change from ``before`` (the preferences of the retrain before, or None for the first) to
        ``preferences`` (p,); ``fit``, the model before (None: none), judges the added ones; ``weights``
        (p,) each preference's trust weight (None: no trust in force)."""
        changed = before is None or before != preferences
        added = len(preferences) - len(before) if before is not None and changed else 0
        kept = weightless = 0
        if added > 0 and before == preferences[: len(before)]:  # answers go at the end
            new = preferences[len(before) :]
            kept = int(np.count_nonzero(~fit.violated(new))) if fit is not None else 0
            weightless = int(np.count_nonzero(np.asarray(weights)[len(before) :] == 0)) if weights is not None else 0
        else:
            added = 0
        return cls(changed, trust_changed, added, kept, weightless)

    def words(self, moved: str) -> str:
        """One sentence on what moved the model by ``moved`` (as shown; '0' when nothing moved)."""
        at = time.strftime("%H:%M:%S UTC", time.gmtime(self.finished))
        still = reads_as_zero(moved)
        if self.trust:
            also = " and the latest preferences" if self.preferences else ""
            if still:
                return f"Automatic trust's new assessment{also} (in force at {at}) left the fit as it was."
            return f"Moved by automatic trust's new assessment{also}, in force at {at} (not an answer alone)."
        if not self.preferences:
            return f"Moved by a change of the model's settings, at {at}." if not still else ""
        if not still:
            return f"Moved by the latest change of the preferences (an answer, an undo, a rule or an import), at {at}."
        if self.added and self.weightless == self.added:
            return "Nothing moved: the newest preferences weigh 0 under automatic trust (below: why)."
        if self.added and self.kept == self.added:
            which = "answer" if self.added == 1 else f"{self.added} preferences"
            return f"Nothing moved: the fit already ordered the newest {which} that way, so it had nothing to correct."
        return "Nothing moved: the latest change of the preferences left the fit's optimum where it was."
