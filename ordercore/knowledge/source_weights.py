"""How much each source of a session's preferences weighs on its own, from what checks it (issue 14,
item 1; issue 31): the per-source half of automatic trust (``trust.py`` chooses the blend SSL fits).

- A session's sources by name (``source_names``): each rule (``rule_source``), each annotator's clicks
  (``CLICKS`` + name), imported files.
- ``SourceCheck``: the pairs that check a source, with whether the truth agrees: pairs of labeled rows
  it orders (the labels decide, ``labeled_pair_check``) and the expert's audit answers to its pairs.
- ``source_weights``: each source weighs by the log-odds of its estimated accuracy (Snorkel's idea,
  for pairs), 0 for one no better than a coin.  The accuracy that matters is the one *where the source
  contradicts SVR* (``reference_predictions``, the labeled rows predicted out of fold): a preference
  SVR already satisfies changes nothing, so the weight answers "when this source and the labels-only
  model disagree, which is right?"  The estimate is the posterior mean under an expert's prior
  (``PRIOR_ACCURACY`` worth ``PRIOR_PAIRS`` checked pairs), and weights are in units of that prior's
  log-odds: a source nothing measures weighs 1.
- An annotator's clicks: the labels check few of them, so their weight is also scaled by the
  annotator's accuracy estimated from their agreement with SVR's order (``click_agreement``,
  ``gated``; ``expert_accuracy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold

from ordercore.knowledge.expert_accuracy import AgreementEstimate, ReferenceOrder, answered_pairs
from ordercore.knowledge.label_cv import FOLDS
from ordercore.knowledge.pair_share import pair_share_interval
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import MAX_WEIGHT, PreferenceSet

PRIOR_ACCURACY, PRIOR_PAIRS = 0.7, 10
"""What a source's accuracy is taken to be before anything checks it: an expert's rule is right
about 70 % of the time (seed 000's bedroom rule was), a belief worth 10 checked pairs (a Beta(7, 3)
prior).  60 labels typically check 5-15 pairs of one rule, of which SVR orders a third to a half
the other way (the pairs a weight counts), so there the prior counts for more than the labels: a
30 %-accurate California rule weighed 0 in 8 of 20 trials and 0.14-0.69 in most others (the
cross-validation then judges what is left), and 20 audit answers where SVR disagrees outweigh the
prior two to one."""


def source_weight(correct: int, total: int) -> float:
    """max(0, logit(a)) / logit(PRIOR_ACCURACY) with a = (correct + PRIOR_ACCURACY * PRIOR_PAIRS) /
    (total + PRIOR_PAIRS), the posterior mean accuracy: 1 for an unchecked source (0 of 0)."""
    if total < 0 or not 0 <= correct <= total:
        raise ValueError(f"need 0 <= correct <= total, got correct={correct}, total={total}")
    accuracy = (correct + PRIOR_ACCURACY * PRIOR_PAIRS) / (total + PRIOR_PAIRS)
    return max(0.0, float(np.log(accuracy / (1 - accuracy)))) / float(np.log(PRIOR_ACCURACY / (1 - PRIOR_ACCURACY)))


@dataclass(frozen=True, eq=False)
class SourceCheck:
    """Pairs that check one source, shape (m,) each: the row it prefers (``winner``) over the other
    (``loser``), and whether the truth agrees (``right``, bool): pairs of labeled rows it orders (the
    labels decide; a tie counts as wrong) and the expert's audit answers to its pairs."""

    winner: np.ndarray
    loser: np.ndarray
    right: np.ndarray

    @classmethod
    def of(cls, winner, loser, right) -> SourceCheck:
        winner, loser = np.asarray(winner, dtype=np.int64), np.asarray(loser, dtype=np.int64)
        right = np.asarray(right, dtype=bool)
        if not winner.shape == loser.shape == right.shape or winner.ndim != 1:
            raise ValueError(
                f"winner, loser and right must be 1-d of one length, got {winner.shape}, {loser.shape}, {right.shape}"
            )
        return cls(winner, loser, right)

    @classmethod
    def concatenate(cls, checks) -> SourceCheck:
        checks = list(checks)
        return cls.of(
            *(np.concatenate([getattr(c, name) for c in checks] or [[]]) for name in ("winner", "loser", "right"))
        )

    def counts(self) -> tuple[int, int]:
        """(correct, total) over every checked pair."""
        return int(self.right.sum()), int(self.right.size)

    def share_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The interval at ``confidence`` for the share of its checked pairs right, knowing they share rows
        (``pair_share.pair_share_interval``); (nan, nan) when nothing checks it."""
        return pair_share_interval(self.winner, self.loser, self.right, confidence)

    def where_contradicting(self, reference: np.ndarray | None) -> tuple[int, int]:
        """(correct, total) over the checked pairs the ``reference`` predictions (n,) do not order as
        the source does (reference[winner] <= reference[loser]: there its preference is violated and
        moves the fit); every pair when reference is None."""
        if reference is None:
            return self.counts()
        contradicting = reference[self.winner] <= reference[self.loser]
        return int(self.right[contradicting].sum()), int(contradicting.sum())

    def key(self) -> tuple:
        """A hashable fingerprint (the app caches on it)."""
        return self.counts() + (hash((self.winner.tobytes(), self.loser.tobytes(), self.right.tobytes())),)


def source_weights(checks: list[SourceCheck | None], reference: np.ndarray | None = None) -> np.ndarray:
    """One weight per source (n_sources,): ``source_weight`` of its check's counts where it contradicts
    the ``reference`` predictions (``SourceCheck.where_contradicting``); None: nothing measured."""
    return np.array([source_weight(*check.where_contradicting(reference)) if check else 1.0 for check in checks])


def reference_predictions(X, y, rng: np.random.Generator, lambda1: float, **model_options) -> np.ndarray | None:
    """SVR's predictions (n,) that the checked pairs are compared with: each labeled row of y (NaN:
    unlabeled) predicted by SVR fitted on the other ``FOLDS`` folds of the labels (out of fold, as
    a test row), every unlabeled row by SVR on all labels.  None with fewer than 2 x FOLDS labels."""
    labeled = np.flatnonzero(~np.isnan(y))
    if labeled.size < 2 * FOLDS:
        return None
    model = OrderPreferenceRegressor(lambda1=lambda1, lambda2=0.0, **model_options)
    predictions = model.fit(X, y).predict(X)
    for _, held_out in KFold(FOLDS, shuffle=True, random_state=int(rng.integers(2**31))).split(labeled):
        y_fold = y.copy()
        y_fold[labeled[held_out]] = np.nan
        predictions[labeled[held_out]] = model.fit(X, y_fold).predict(X[labeled[held_out]])
    return predictions


def weighted(preferences: PreferenceSet, source: np.ndarray, weights: np.ndarray) -> PreferenceSet:
    """``preferences`` with each weight w_q multiplied by its source's weight; source (p,) indexes
    ``weights`` (n_sources,)."""
    weight = np.minimum(
        preferences.weight * weights[source], MAX_WEIGHT
    )  # a source weight of 8 on a weight near the cap
    return PreferenceSet(preferences.i, preferences.j, preferences.margin, weight)


CLICKS = "clicks: "
"""How a click source's name starts (``source_names``: 'clicks: ANNOTATOR')."""


def rule_source(number: int, name: str) -> str:
    """A rule's source name, by its number in the session (which keeps two rules of one name apart)."""
    return f"rule #{number}: {name}"


def source_names(provenance: pd.DataFrame, rule_names: dict, numbers: dict | None = None) -> np.ndarray:
    """Which source each of a session's preferences comes from, as a name (p,): ``rule_source`` (by the
    rule's number in the session, ``numbers`` {rule_id: number}; by its id without them), 'clicks:
    ANNOTATOR' (answers, by who gave them) or 'imported' (files), from the
    provenance ``Store.preferences`` gives.  Vectorised over the few distinct sources: a click at
    500,000 preferences stays fast."""
    kinds, kind_names = pd.factorize(provenance["source"])
    rule_ids = provenance["rule_id"].to_numpy(dtype=np.float64, na_value=-1).astype(np.int64)
    annotators, named = pd.factorize(provenance["annotator"])  # -1 where none (rules, imports)
    annotators, annotator_names = annotators + 1, ["", *named]
    n_rules, n_annotators = int(rule_ids.max(initial=-1)) + 2, max(len(annotator_names), 1)
    codes, keys = pd.factorize((kinds * n_rules + rule_ids + 1) * n_annotators + annotators)
    labels = []
    for key in keys:
        kind, rest = divmod(int(key), n_rules * n_annotators)
        rule_id, annotator = rest // n_annotators - 1, rest % n_annotators
        if kind_names[kind] == "rule":
            number = int(rule_id) if numbers is None else numbers.get(int(rule_id), int(rule_id))
            labels.append(rule_source(number, rule_names.get(int(rule_id), "?")))
        elif kind_names[kind] == "click":
            labels.append(f"{CLICKS}{annotator_names[annotator] or 'anonymous'}")
        else:
            labels.append("imported")
    return np.asarray(labels, dtype=object)[codes] if len(codes) else np.zeros(0, dtype=object)


def labeled_pair_check(preferences: PreferenceSet, y: np.ndarray) -> SourceCheck:
    """The ``SourceCheck`` of a source's own pairwise ``preferences`` (a click's, an import's) whose two
    rows are labeled in y (n,): right when the labels order them as preferred (a tie is wrong)."""
    pairwise = preferences[~preferences.is_unary]
    both = ~np.isnan(y[pairwise.i]) & ~np.isnan(y[pairwise.j])
    winner, loser = pairwise.i[both], pairwise.j[both]
    return SourceCheck.of(winner, loser, y[winner] > y[loser])


def click_agreement(reference, y, preferences: PreferenceSet, source, names, seed: int) -> np.ndarray:
    """Each source's ``AgreementEstimate`` (k, 4: accuracy, standard error, answers, and all they ordered when
    those answers are their audit pairs alone, else NaN) for the click
    sources among ``names`` (k,) (NaN rows for the others), their preferences those of ``source`` (p,)
    codes; against the ``reference`` predictions (n,) whose order the labels of y (n,) measure, and on pairs
    of labeled rows against the labels, "about equal" answers too (``answered_pairs``); all NaN without a
    reference."""
    table = np.full((len(names), 4), np.nan)
    clicks = [k for k, name in enumerate(names) if str(name).startswith(CLICKS)]
    if reference is None or not clicks:
        return table
    order = ReferenceOrder.fit(reference, y, np.random.default_rng(seed))
    for k in clicks:
        estimate = AgreementEstimate.of_annotator(order, *answered_pairs(preferences[source == k], y))
        ordered = np.nan if estimate.ordered is None else estimate.ordered
        table[k] = (estimate.accuracy, estimate.standard_error, estimate.answers, ordered)
    return table


def gated(weights: np.ndarray, agreement: np.ndarray) -> np.ndarray:
    """``weights`` (k,) with each click source's multiplied by its ``AgreementEstimate.weight`` (from its
    row of ``agreement`` (k, 3 or 4)): 0 unless measured better than a coin, 1 once surely better than the
    prior's accuracy."""
    factor = np.ones(len(weights))
    clicks = ~np.isnan(agreement[:, 0])
    factor[clicks] = [AgreementEstimate(*row[:3]).weight for row in agreement[clicks]]
    return weights * factor


def clicks_only(names, weights: np.ndarray) -> bool:
    """Whether every source of weight > 0 (names (k,), weights (k,)) is an annotator's clicks."""
    return all(str(name).startswith(CLICKS) for name, weight in zip(names, weights, strict=True) if weight > 0)
