"""Which of the session's answers the models of the last retrain order the other way (new-user report
10, Minor 4: the expert read 'SSL breaks 8 of the 42 preferences from Petra's answers' and could not
find which 8, their own slips among them).  From the retrain the counts are from (``Violations``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ordercore.inputs.lengths import one_length


def answers_words(answers: int) -> str:
    """'38 answers (skips aside)': the unit the Studio counts an annotator's answers in beside those a model
    breaks, on Pairwise's sentence and its *My answers* filter alike (new-user report 13, F9: "13 of the 40
    preferences" above "13 of 39", the second counting the skip and an 'about equal' once)."""
    return f"{answers:,} answer{'s' if answers != 1 else ''} (skips aside)"


class BrokenAnswers(NamedTuple):
    """The ids of the answers (the store's) at least one of whose preferences SSL, resp. SVR, violates
    (an 'about equal' makes two), and of every answer with preferences in the fit (``answered``: a skip
    makes none)."""

    ssl: frozenset[int]
    svr: frozenset[int]
    answered: frozenset[int] = frozenset()

    def ssl_share(self, ids) -> str:
        """'13 of 38 answers, skips aside': how many of the answers ``ids`` SSL breaks, of those of them that
        made preferences (the unit of ``ClickStanding.summary``)."""
        ids = set(ids)
        return f"{len(self.ssl & ids):,} of {len(self.answered & ids):,} answers, skips aside"


def broken_answers(provenance: pd.DataFrame, ssl_violated, svr_violated) -> BrokenAnswers:
    """From the preferences' provenance (p rows, its ``answer_id`` column: NA for a rule's or an import's)
    and the violations (p,) bool of SSL and SVR."""
    one_length(
        "broken_answers", "an entry per preference", provenance=provenance, ssl_violated=ssl_violated,
        svr_violated=svr_violated,
    )  # fmt: skip
    ids = pd.array(provenance["answer_id"], dtype="Int64")
    answered = ~np.asarray(ids.isna(), dtype=bool)

    def of(violated) -> frozenset[int]:
        return frozenset(int(k) for k in ids[answered & np.asarray(violated, dtype=bool)])

    return BrokenAnswers(of(ssl_violated), of(svr_violated), of(np.ones(len(ids), dtype=bool)))


def last_retrain_breaks(engine) -> BrokenAnswers | None:
    """``broken_answers`` of a ``SessionEngine``'s last retrain, if it fitted the session's preferences as
    they are now; None before the first, or while the retrain of the newest change runs (its violations
    are of other preferences: which answers they are is not known here)."""
    bench = engine.models.workbench
    violations = None if bench is None else bench.violations  # read once: a retrain may replace it
    if violations is None or violations.revision is None or violations.revision != engine.revision():
        return None
    provenance = engine.preferences()[1]
    if not violations.fits(provenance["answer_id"]):
        return None
    return broken_answers(provenance, violations.ssl, violations.svr)
