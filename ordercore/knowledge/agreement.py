"""How far annotators agree on the pairs they both answered, and how consistent each one is.

- **Cohen's κ** per pair of annotators, over the pairs both answered (skips left out): the three
  outcomes are "the lower row number higher", "the higher row number higher" and "about equal", so
  A/B order on screen does not matter.  κ = (p_o - p_e) / (1 - p_e), with p_o the observed agreement
  and p_e the agreement expected from each annotator's own outcome shares (Cohen 1960).
- **Intransitive triples** per annotator: among the triples of rows whose three pairs the annotator
  ordered strictly, the share that form a cycle (a ≻ b ≻ c ≻ a).  A consistent expert has none.

An annotator's latest answer to a pair is the one that counts (a skip then counts as no answer).

Used, if the user chooses, as per-annotator weights (``annotator_weights``): each annotator's clicks
weigh as much as their κ with the others says (``weigh_clicks``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.preferences import PreferenceSet

OUTCOMES = ("lower row higher", "higher row higher", "about equal")
CHOICES = ("a", "b", "equal", "skip")


def outcomes(answers: pd.DataFrame) -> pd.DataFrame:
    """Each annotator's latest answer per pair unless it is a skip: columns annotator, low, high (the
    pair's row numbers, low < high) and outcome (one of ``OUTCOMES``).  ``answers`` as
    ``Store.answers`` gives (oldest first); a choice outside ``CHOICES`` or a pair of one row is refused."""
    _check_answers(answers)
    pair_low, pair_high = np.minimum(answers["row_a"], answers["row_b"]), np.maximum(answers["row_a"], answers["row_b"])
    latest = ~pd.DataFrame({"who": answers["annotator"], "low": pair_low, "high": pair_high}).duplicated(keep="last")
    answered = answers[latest.to_numpy() & (answers["choice"] != "skip").to_numpy()]
    low = np.minimum(answered["row_a"], answered["row_b"]).to_numpy()
    high = np.maximum(answered["row_a"], answered["row_b"]).to_numpy()
    winner = np.where(answered["choice"] == "a", answered["row_a"], answered["row_b"])
    outcome = np.where(answered["choice"] == "equal", OUTCOMES[2], np.where(winner == low, OUTCOMES[0], OUTCOMES[1]))
    frame = pd.DataFrame({"annotator": answered["annotator"].to_numpy(), "low": low, "high": high, "outcome": outcome})
    return frame.reset_index(drop=True)


def _check_answers(answers: pd.DataFrame) -> None:
    """Refuses, naming the first such row (by position), a choice outside ``CHOICES`` or a self pair."""
    unknown = np.flatnonzero(~answers["choice"].isin(CHOICES).to_numpy())
    if unknown.size:
        raise ValueError(
            f"answers' choice must be one of {list(CHOICES)}; row {unknown[0]} holds "
            f"{quoted(answers['choice'].iloc[unknown[0]])}"
        )
    same = np.flatnonzero((answers["row_a"] == answers["row_b"]).to_numpy())
    if same.size:
        raise ValueError(
            f"a pair needs two different rows: row {same[0]} of answers compares row "
            f"{answers['row_a'].iloc[same[0]]} with itself"
        )


def kappa_table(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per pair of annotators who answered a pair in common: annotators (two columns), shared
    pairs, the share they agree on, and Cohen's κ (NaN where it is undefined: both gave one outcome only).
    One self-join for every pair of annotators: the Pairwise page computes this on every answer."""
    table = outcomes(answers)
    shared = table.merge(table, on=["low", "high"], suffixes=("_1", "_2"))
    shared = shared[shared["annotator_1"] < shared["annotator_2"]]
    rows = []
    for (first, second), group in shared.groupby(["annotator_1", "annotator_2"], sort=True):
        one, two = group["outcome_1"].to_numpy(), group["outcome_2"].to_numpy()
        observed = float(np.mean(one == two))
        expected = sum(float(np.mean(one == outcome) * np.mean(two == outcome)) for outcome in OUTCOMES)
        kappa = (observed - expected) / (1.0 - expected) if expected < 1.0 else np.nan
        rows.append((first, second, len(group), observed, kappa))
    return pd.DataFrame(rows, columns=["annotator", "other annotator", "shared pairs", "agreement", "kappa"])


def intransitive_triples(answers: pd.DataFrame) -> pd.DataFrame:
    """Per annotator: the triples of rows whose three pairs they ordered strictly, and how many of
    those are cycles (and their share, NaN without triples)."""
    table = outcomes(answers)
    rows = []
    for annotator, own in table[table["outcome"] != OUTCOMES[2]].groupby("annotator", sort=True):
        beats = {
            (low, high) if outcome == OUTCOMES[0] else (high, low)
            for low, high, outcome in own[["low", "high", "outcome"]].itertuples(index=False)
        }
        neighbours: dict[int, set[int]] = {}
        for winner, loser in beats:
            neighbours.setdefault(winner, set()).add(loser)
            neighbours.setdefault(loser, set()).add(winner)
        triples = cycles = 0
        for u, v in {(min(pair), max(pair)) for pair in beats}:
            for w in neighbours[u] & neighbours[v]:
                if w > v:
                    triples += 1
                    # A triple is a cycle when each row beats exactly one of the other two.
                    wins = [((x, y) in beats) + ((x, z) in beats) for x, y, z in ((u, v, w), (v, w, u), (w, u, v))]
                    cycles += wins == [1, 1, 1]
        rows.append((annotator, triples, cycles, cycles / triples if triples else np.nan))
    return pd.DataFrame(rows, columns=["annotator", "triples", "cycles", "share intransitive"])


def annotator_weights(answers: pd.DataFrame) -> pd.Series:
    """A weight in [0, 1] per annotator with answers, from their agreement with the others: the mean
    of their Cohen's κ with each other annotator, weighted by the pairs they share, clipped at 0 (an
    annotator no better than chance adds nothing) and 1.  1 for an annotator whose κ cannot be measured
    yet (no pair shared with someone else, or κ undefined): their answers count as given."""
    kappas = kappa_table(answers).dropna(subset=["kappa"])
    both = pd.concat(
        [
            kappas[["annotator", "shared pairs", "kappa"]],
            kappas[["other annotator", "shared pairs", "kappa"]].rename(columns={"other annotator": "annotator"}),
        ],
        ignore_index=True,
    )
    totals = (both["kappa"] * both["shared pairs"]).groupby(both["annotator"]).sum()
    mean_kappa = totals / both.groupby("annotator")["shared pairs"].sum()
    names = sorted(set(answers["annotator"]))
    return mean_kappa.clip(0.0, 1.0).reindex(names, fill_value=1.0).rename("weight").rename_axis("annotator")


def weigh_clicks(preferences: PreferenceSet, provenance: pd.DataFrame, weights: pd.Series) -> PreferenceSet:
    """``preferences`` (p,) with each click's weight multiplied by its annotator's weight (``weights``,
    as ``annotator_weights``; an annotator not in it keeps 1); rules' and imports' stay as they are.
    ``provenance`` as ``Store.preferences`` gives it."""
    clicks = (provenance["source"] == "click").to_numpy(dtype=bool)
    factor = np.ones(len(preferences))
    factor[clicks] = provenance["annotator"][clicks].astype(object).map(weights).fillna(1.0).to_numpy(dtype=float)
    return PreferenceSet(preferences.i, preferences.j, preferences.margin, preferences.weight * factor)
