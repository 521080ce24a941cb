"""Whether preferences are the ones a rule makes on a session's table (``check_made``): the engine checks
them before it stores a rule (``session_checks.check_rule``), and the store again when a rule is replaced
through it (``store.rules``: a replacement took another rule's preferences, corpus 11, S004)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.knowledge.rules import Rule, generate
from ordercore.preferences import PreferenceSet

SAMPLED_PAIRS = 100
"""How many of a rule's given preferences ``check_made`` makes again (on their rows alone)."""


def check_made(frame: pd.DataFrame, labeled: np.ndarray, rule: Rule, made: PreferenceSet) -> None:
    """``ValueError`` unless ``made`` are preferences ``rule`` makes on the training pairs of ``frame`` (n
    rows) whose rows ``labeled`` (l,) are labeled (as the Rules page and an import make them, perhaps a
    sample): none when it makes some, another margin or weight, a pair twice, or one of ``SAMPLED_PAIRS``
    sampled pairs it does not make.  Cheap (0.05 s at 475,000 pairs): the sample is made again on its
    rows alone, the whole set is not (that costs what making it did, seconds for a wide rule on a large
    table), so a set missing some of its pairs passes."""
    mask = np.zeros(len(frame), dtype=bool)
    mask[labeled] = True
    if len(made) == 0:
        n = generate(rule, frame, mask, max_pairs=0).n_matched
        if n:
            raise ValueError(f"rule {rule.name!r} makes {n:,} preferences on this table, but none were given")
        return
    if np.any(made.margin != rule.margin) or np.any(made.weight != rule.weight):
        raise ValueError(f"the preferences given for rule {rule.name!r} do not all have its margin and weight")
    beyond = np.flatnonzero((made.i >= len(frame)) | (made.j >= len(frame)))
    if beyond.size:  # made on another table (its codes would collide: said as 'a pair twice')
        row = int(max(made.i[beyond[0]], made.j[beyond[0]]))
        raise ValueError(
            f"the preferences given for rule {rule.name!r} are not the ones it makes on this session's table: "
            f"row {row} is beyond its {len(frame):,} rows"
        )
    keys = np.sort(made.pair_codes(len(frame))[0])
    if np.any(keys[1:] == keys[:-1]):
        raise ValueError(f"the preferences given for rule {rule.name!r} name a pair twice; it makes each once")
    _check_sample(frame, mask, rule, made)


def _check_sample(frame: pd.DataFrame, labeled: np.ndarray, rule: Rule, made: PreferenceSet) -> None:
    """``ValueError`` naming a pair of a sample of ``made`` that ``rule`` does not make (made again on the
    sample's rows: its conditions and ordering compare two rows at a time); ``labeled``: a mask (n,)."""
    if made.is_unary.any() or max(made.i.max(), made.j.max()) >= len(frame):
        raise ValueError(f"the preferences given for rule {rule.name!r} name rows outside the table")
    sample = made[np.random.default_rng(0).permutation(len(made))[:SAMPLED_PAIRS]]
    rows = np.unique(np.concatenate([sample.i, sample.j]))
    again = generate(rule, frame.iloc[rows].reset_index(drop=True), labeled[rows]).preferences
    held = set(zip(rows[again.i].tolist(), rows[again.j].tolist(), strict=True))
    pairs = zip(sample.i.tolist(), sample.j.tolist(), strict=True)
    stray = next(((i, j) for i, j in pairs if (i, j) not in held), None)
    if stray is not None:
        raise ValueError(
            f"rule {rule.name!r} does not make the given preference row {stray[0]} over row {stray[1]} on this table"
        )
