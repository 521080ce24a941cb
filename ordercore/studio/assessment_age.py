"""How the assessment in force stands beside the session now (new-user report 12, F4): a tester read "One
assessment, made at 05:09 UTC, 4 min ago" after four more answers, and a table row "preferences 31" (now)
beside "0.83 on 23 answers" (the assessment's).  An annotator's answers are assessed again only when
they grow by a fifth (``session_trust.size_class``), so a current assessment can be older than the newest
answers: the page says how many came since, and the table which figures are the assessment's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.knowledge.trust import SourceTrust
from ordercore.studio.answer_counts import AnswerCounts
from ordercore.studio.verdicts import preference_count


def answers_since(answers: pd.DataFrame, made_at: float | None) -> AnswerCounts | None:
    """The answers of the store's table ``answers`` (its ``created_at``) stored after ``made_at`` (seconds
    since the epoch: when the assessment took its inputs, ``AssessmentBasis.made_at``), skips apart; None
    when that time is not recorded."""
    if made_at is None:
        return None
    created = pd.to_datetime(answers["created_at"], utc=True)
    return AnswerCounts.of(answers[(created > pd.Timestamp(made_at, unit="s", tz="UTC")).to_numpy()])


def since_words(since: AnswerCounts | None) -> str:
    """'4 answers since this assessment (not yet assessed; 1 skip besides).' ('' when none came since or
    the time is not known)."""
    if since is None or not (since.given or since.skipped):
        return ""
    plural = "answer" if since.given == 1 else "answers"
    skips = f"; {since.skipped:,} skip{'s' if since.skipped > 1 else ''} besides" if since.skipped else ""
    return (
        f"{since.given:,} {plural} since this assessment (not yet assessed{skips}): an annotator's answers are "
        "assessed again once they grow by a fifth."
    )


def preferences_then_and_now(trust: SourceTrust, counts: dict[str, int], sizes: dict[str, float]) -> list[str]:
    """Each source of ``trust``: its preferences now (``counts``, by name) when the assessment measured the
    same (``sizes``, the sum of their w now, against its basis's then), else 'then → now' ('23 → 27'; a sum
    of w that is not a whole number as '20.5'); the count now alone for an assessment stored before sizes
    were kept."""
    basis = trust.basis
    then = {} if basis is None or basis.size is None else dict(zip(basis.names, basis.size, strict=True))
    cells = []
    for name in trust.names:
        now, size = int(counts.get(name, 0)), then.get(name)
        if size is None or np.isclose(size, sizes.get(name, 0.0)):
            cells.append(f"{now:,}")
        else:
            cells.append(f"{preference_count(size)} → {preference_count(sizes.get(name, 0.0))}")
    return cells
