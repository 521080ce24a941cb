"""Whether preferences are the ones a rule makes on a session's table (``check_made``): the engine checks
them before it stores a rule (``session_checks.check_rule``), and the store again when a rule is replaced
through it (``store.rules``: a replacement took another rule's preferences, corpus 11, S004)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.knowledge.rules import Rule, generate, makes
from ordercore.preferences import PreferenceSet


def check_made(frame: pd.DataFrame, labeled: np.ndarray, rule: Rule, made: PreferenceSet) -> None:
    """``ValueError`` unless ``made`` are preferences ``rule`` makes on the training pairs of ``frame`` (n
    rows) whose rows ``labeled`` (l,) are labeled (as the Rules page and an import make them, perhaps a
    sample): none when it makes some, another margin or weight, a pair twice, or any pair it does not make
    (each tested by ``rules.makes`` on its two rows: 0.25 s a 10^6 pairs; a set missing some of the
    rule's pairs, a ``max_pairs`` sample, passes)."""
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
    if made.is_unary.any():
        raise ValueError(f"the preferences given for rule {rule.name!r} name rows outside the table")
    stray = np.flatnonzero(~makes(rule, frame, mask, made.i, made.j))
    if stray.size:
        i, j = int(made.i[stray[0]]), int(made.j[stray[0]])
        raise ValueError(f"rule {rule.name!r} does not make the given preference row {i} over row {j} on this table")
