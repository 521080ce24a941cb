"""How the assessment in force stands beside the session now (``ordercore/studio/assessment_age.py``,
new-user report 12, F4), on hand-made answers and a hand-made assessment."""

import numpy as np
import pandas as pd

from ordercore.studio.answer_counts import AnswerCounts
from ordercore.studio.assessment_age import answers_since, preferences_then_and_now, since_words
from tests.test_verdicts import warm_assessment

MADE_AT = 1_000_000.0  # 13:46:40 UTC


def answers_at(seconds_after: list[float], choices: str) -> pd.DataFrame:
    """The store's answers table: one answer per choice ('a', 'b', 'e'qual, 's'kip), stored that many
    seconds after ``MADE_AT`` (negative: before)."""
    created = pd.to_datetime(np.asarray(seconds_after) + MADE_AT, unit="s", utc=True)
    choice = [{"e": "equal", "s": "skip"}.get(c, c) for c in choices]
    return pd.DataFrame({"annotator": "nora", "choice": choice, "created_at": created})


def test_the_answers_given_since_the_assessment_are_counted_and_said():
    # the report's session: 26 answers when it was assessed, 4 more after it (and here one skip besides)
    answers = answers_at([-600.0 + k for k in range(26)] + [30.0, 60.0, 61.0, 90.0, 95.0], "ab" * 13 + "abees")
    since = answers_since(answers, MADE_AT)
    assert since == AnswerCounts(4, 1)
    assert since_words(since).startswith("4 answers since this assessment (not yet assessed; 1 skip besides)")
    assert since_words(answers_since(answers.iloc[:27], MADE_AT)) == (
        "1 answer since this assessment (not yet assessed): an annotator's answers are assessed again once they "
        "grow by a fifth."
    )
    assert since_words(answers_since(answers.iloc[:26], MADE_AT)) == ""  # none since: nothing said
    assert answers_since(answers, None) is None and since_words(None) == ""  # the time not recorded
    naive = answers.assign(created_at=answers["created_at"].dt.tz_localize(None))  # SQLite's naive UTC
    assert answers_since(naive, MADE_AT) == AnswerCounts(4, 1)


def test_the_table_says_which_preferences_are_the_assessments_and_which_now():
    trust = warm_assessment([np.nan] * 4, [np.nan] * 4, steps=0)  # Marta's 27 and the rules' 41, 69 then
    counts = {"clicks: Jonas": 14, "clicks: Marta": 31, "rule #1: fewer km": 41, "rule #2: younger": 69}
    sizes = {"clicks: Jonas": 14.0, "clicks: Marta": 31.0, "rule #1: fewer km": 41.0, "rule #2: younger": 34.5}
    assert preferences_then_and_now(trust, counts, sizes) == ["14", "27 → 31", "41", "69 → 34.5"]
