"""How many answers a session holds, skips counted apart (new-user report 12, F5): an answer orders a pair
(A higher, B higher or about equal) and makes preferences; a skip makes none.  A tester read "Goal
reached: 40 of 40 answers of yours" and a "What the answers bought" chart running to 40 with 10 of them
skips: the goal, the chart and the counts count the answers given, and say the skips apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ordercore.knowledge.agreement import CHOICES

SKIP = CHOICES[-1]
"""The choice that orders nothing ('skip')."""


@dataclass(frozen=True)
class AnswerCounts:
    """``given``: answers that order a pair (a, b or about equal); ``skipped``: skips."""

    given: int
    skipped: int

    @classmethod
    def of(cls, answers: pd.DataFrame, annotator: str | None = None) -> AnswerCounts:
        """From a session's answers (the store's table: a ``choice`` column, and ``annotator``), of one
        ``annotator`` or (None) of everyone."""
        if annotator is not None:
            answers = answers[answers["annotator"] == annotator]
        skipped = int(np.count_nonzero(answers["choice"].to_numpy() == SKIP))
        return cls(len(answers) - skipped, skipped)

    def skipped_words(self) -> str:
        """'; 10 skipped, not counted' ('' without any skip)."""
        return f"; {self.skipped:,} skipped, not counted" if self.skipped else ""

    def metrics(self) -> dict:
        """What a model run records of them (``SessionEngine``): {'answers': given, 'skipped': skipped}."""
        return {"answers": self.given, "skipped": self.skipped}


def goal_words(own: AnswerCounts, goal: int, everyone: AnswerCounts) -> str:
    """The goal counts an annotator's own answers given, never their skips: 'Goal reached: 40 of 40 answers
    of yours (10 skipped, not counted); 54 in all, by everyone'."""
    if goal < 1:
        raise ValueError(f"goal must be a whole number of answers, 1 or more; got {goal!r}")
    skipped = f" ({own.skipped:,} skipped, not counted)" if own.skipped else ""
    said = f"{own.given:,} of {goal:,} answers of yours{skipped}; {everyone.given:,} in all, by everyone"
    return f"Goal reached: {said}" if own.given >= goal else said
