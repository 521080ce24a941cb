"""Skips counted apart from the answers given (``ordercore/studio/answer_counts.py``, new-user report 12,
F5), on a hand-made table of answers."""

import pandas as pd
import pytest

from ordercore.studio.answer_counts import AnswerCounts, goal_words


def answers_of(choices: dict[str, str]) -> pd.DataFrame:
    """The store's answers table: one row per choice, annotators by name ('ann': 'abes…')."""
    rows = [(name, {"e": "equal", "s": "skip"}.get(c, c)) for name, keys in choices.items() for c in keys]
    return pd.DataFrame(rows, columns=["annotator", "choice"])


def test_skips_are_counted_apart_and_never_toward_the_goal():
    # the report's session: 40 answers of Nora's, 10 of them skips; 2 more of Jo's, one a skip
    answers = answers_of({"nora": "ab" * 14 + "ee" + "s" * 10, "jo": "as"})
    nora, everyone = AnswerCounts.of(answers, "nora"), AnswerCounts.of(answers)
    assert (nora.given, nora.skipped) == (30, 10) and (everyone.given, everyone.skipped) == (31, 11)
    said = goal_words(nora, 40, everyone)
    assert said == "30 of 40 answers of yours (10 skipped, not counted); 31 in all, by everyone"
    assert goal_words(nora, 30, everyone).startswith("Goal reached: 30 of 30")
    jo = AnswerCounts.of(answers, "jo")
    assert goal_words(jo, 1, everyone).startswith("Goal reached: 1 of 1 answers of yours (1 skipped")
    assert nora.metrics() == {"answers": 30, "skipped": 10}
    assert nora.skipped_words() == "; 10 skipped, not counted" and AnswerCounts(3, 0).skipped_words() == ""
    assert AnswerCounts.of(answers, "nobody") == AnswerCounts(0, 0)


def test_a_goal_below_one_answer_is_refused_in_words():
    with pytest.raises(ValueError, match=r"goal must be a whole number of answers, 1 or more; got 0"):
        goal_words(AnswerCounts(1, 0), 0, AnswerCounts(1, 0))
