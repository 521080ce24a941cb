"""The shared queue: pairs that go to k annotators each, so that several people answer the same
pairs (which agreement needs) without anyone seeing a pair twice.

A queued pair is *answered by* the distinct annotators with an answer to it (either way round; a
skip counts: that person has seen it) and *done* once ``copies`` have.  Each annotator is handed the
oldest pair that is not done and that they have not answered.  The count is read when a pair is
handed out, not reserved: two people answering the same pair at the same moment may give it one
answer more than ``copies`` (harmless: one more judgement of it).
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd


def _pair_keys(row_a, row_b) -> pd.MultiIndex:
    a, b = np.asarray(row_a, dtype=np.int64), np.asarray(row_b, dtype=np.int64)
    return pd.MultiIndex.from_arrays([np.minimum(a, b), np.maximum(a, b)], names=["low", "high"])


def queue_progress(queued: pd.DataFrame, answers: pd.DataFrame) -> pd.DataFrame:
    """``queued`` (as ``Store.queued_pairs``) with two more columns: answered_by, the number of
    distinct annotators who answered the pair, and done (answered_by >= copies)."""
    who = pd.DataFrame(
        {"annotator": answers["annotator"].to_numpy()}, index=_pair_keys(answers["row_a"], answers["row_b"])
    )
    counts = who.groupby(level=["low", "high"])["annotator"].nunique()
    answered_by = counts.reindex(_pair_keys(queued["row_a"], queued["row_b"]), fill_value=0).to_numpy()
    return queued.assign(answered_by=answered_by.astype(np.int64), done=answered_by >= queued["copies"].to_numpy())


def _open_for(progress: pd.DataFrame, answers: pd.DataFrame, annotator: str) -> np.ndarray:
    """Which pairs of ``progress`` (``queue_progress``) are not done and not answered by ``annotator``."""
    own = answers[answers["annotator"] == unicodedata.normalize("NFC", str(annotator).strip())]  # as stored
    seen = _pair_keys(progress["row_a"], progress["row_b"]).isin(_pair_keys(own["row_a"], own["row_b"]))
    return ~progress["done"].to_numpy(dtype=bool) & ~seen


def open_queued_pairs(queued: pd.DataFrame, answers: pd.DataFrame, annotator: str) -> np.ndarray:
    """The queued pairs (k, 2) (row_a, row_b), oldest first, not yet done that ``annotator`` has not answered."""
    progress = queue_progress(queued, answers)
    open_pairs = progress[_open_for(progress, answers, annotator)]
    return open_pairs[["row_a", "row_b"]].to_numpy(dtype=np.int64).reshape(-1, 2)


def next_queued_pair(queued: pd.DataFrame, answers: pd.DataFrame, annotator: str) -> tuple[int, int] | None:
    """The oldest queued pair (row_a, row_b) not yet done that ``annotator`` has not answered, or None."""
    pairs = open_queued_pairs(queued, answers, annotator)
    return (int(pairs[0, 0]), int(pairs[0, 1])) if len(pairs) else None


def queue_summary(queued: pd.DataFrame, answers: pd.DataFrame, annotator: str) -> dict:
    """Counts for the page: pairs queued, pairs done, answers still wanted (over all pairs), and pairs
    left for ``annotator`` (not done, not answered by them)."""
    progress = queue_progress(queued, answers)
    wanted = np.maximum(progress["copies"].to_numpy() - progress["answered_by"].to_numpy(), 0)
    return {
        "queued": len(progress),
        "done": int(progress["done"].sum()),
        "wanted": int(wanted.sum()),
        "left_for_you": int(np.count_nonzero(_open_for(progress, answers, annotator))),
    }
