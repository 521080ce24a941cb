"""How much to trust each source of preferences, and the preferences as a whole, from what a session
knows: its labels and each source's measured accuracy (issue 14, item 1).

- Each source's own weight (``source_weights.py``): the log-odds of its accuracy where it contradicts
  SVR, measured on the pairs that check it, and for an annotator's clicks their agreement with SVR.
- ``choose_trust``: the source weights, then the ``Blend`` SSL fits, chosen by cross-validation on
  the labels (``label_cv.py``) of the weighted preferences over ``trust_grid``.
- An annotator's clicks (issue 31): when clicks
  are all that weighs, SSL is the fit at SVR's lambda1 and a lambda2 that grows with the answers
  (``click_grid``), not a blend chosen on the labels: 60 labels choose among the blends by noise, and
  a good expert's answers lost most of their gain to that choice (docs/REPRODUCTION.md, "What an
  expert's hour buys").
- ``assess_sources``: all of it for a session's named sources (its rules, annotators and imports),
  with each source's effect (``source_effects.py``: the change in the path's cross-validated error
  when its weight is set to 0): one batch of independent fold fits, on every core when given an
  executor (issue 30, item 2).
- ``reassess_sources``: after a click that changed a source's checks, the assessment warm from the
  last one, without a fit: every weight measured anew, the blend and effects kept (or None when only a
  full assessment will do).

No test labels are involved anywhere: the held-out rows of each fold are labeled rows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import scipy.stats

from ordercore.knowledge.expert_accuracy import AgreementEstimate
from ordercore.knowledge.label_cv import (
    Blend,
    LabelCV,
    corrected_standard_error,
    cross_validate,
    cross_validate_runs,
    cv_sample,
    draw_folds,
    label_cv,
)
from ordercore.knowledge.source_effects import ZeroedSources
from ordercore.knowledge.source_weights import (
    click_agreement,
    clicks_only,
    gated,
    reference_predictions,
    source_weights,
    weighted,
)
from ordercore.preferences import PreferenceSet

LAMBDA2_GRID = (0.3, 1.0, 3.0, 10.0, 30.0)
"""The lambda2 path whose fits ``LabelCV.blend`` averages (beside SVR, lambda2 = 0, the model it falls
back to).  Every fit of it counts, so the path spans weak to strong preferences: replayed on 20
trials each of three good rules, the average over 0.3 ... 30 (taken where it beat SVR's CV error)
gained more on test than the averages over 1 ... 30 and 1 ... 10."""

LAMBDA1_FACTORS = (1 / 3,)
"""lambda1 for SSL, as multiples of SVR's: preferences regularise too, so the fit with them wants
less of the labels-only regulariser.  On California with a 70 %-accurate rule (20 trials), a third
of SVR's lambda1 gained 1.3-2 points more than SVR's own at every lambda2 from 0.3 to 10, and the
choice among half as many settings is less noisy: least cross-validated error over both lambda1
gained 4.4 % on test, over a third alone 5.0 % (docs/REPRODUCTION.md, "Automatic trust")."""


def trust_grid(lambda1: float) -> tuple:
    """The (lambda1, lambda2) settings ``label_cv`` compares: SVR's (lambda1, 0) first, then each
    multiple of lambda1 in ``LAMBDA1_FACTORS`` with each lambda2 of ``LAMBDA2_GRID``."""
    return ((lambda1, 0.0),) + tuple((lambda1 * f, lambda2) for f in LAMBDA1_FACTORS for lambda2 in LAMBDA2_GRID)


FULL_WEIGHT_ANSWERS = 100
"""The answers at which an annotator's clicks reach lambda2 = 1 (``click_grid``): lambda2 = answers / 100
below it.  The LP's hinge term is a mean over preferences, so at a fixed lambda2 an expert's first 25
answers pull as hard as 300; replayed on the answers of ``experiments session`` (20 trials each,
California and the sample homes, an expert right on 80 % of typical pairs, at SVR's lambda1), the
best lambda2 grew from 0.125-0.5 at 25 answers to 1 at 100 and beyond (2 lost on California, 0.5 at
300 lost 0.4-3 points), and lambda1 a third of SVR's (``LAMBDA1_FACTORS``, chosen for rules of
thousands of preferences) lost 2-6 points at 25-50 answers."""


def click_grid(lambda1: float, answers: float) -> tuple:
    """The (lambda1, lambda2) settings of a session whose weighed preferences are all clicks: SVR's
    (lambda1, 0), then (lambda1, min(1, answers / ``FULL_WEIGHT_ANSWERS``)), the one SSL fits."""
    return ((lambda1, 0.0), (lambda1, min(1.0, answers / FULL_WEIGHT_ANSWERS)))


def clearly_worse_than_svr(X, y, preferences: PreferenceSet, svr: dict, ssl: dict, rng) -> bool:
    """Whether the SSL fit with ``ssl``'s settings (gamma, lambda1, lambda2, ...) loses to SVR with
    ``svr``'s by more than one standard error (``corrected_standard_error``) of the paired difference
    of held-out MAE, on the same folds of ``label_cv``'s repeated cross-validation.  A guard against
    harm the labels can see, for settings chosen without them (tuned on held-out preferences): unlike
    automatic trust, it does not ask the preferences to prove they help."""
    seed, errors = int(rng.integers(2**31)), []
    for options in (svr, ssl):
        options = dict(options)
        setting = (options.pop("lambda1"), options.pop("lambda2", 0.0))
        cv = cross_validate(X, y, preferences, np.random.default_rng(seed), (setting,), options)
        errors.append(cv.errors[0])
    difference = errors[1] - errors[0]
    return bool(difference.mean() > corrected_standard_error(difference))


@dataclass(frozen=True)
class Trust:
    """What ``choose_trust`` decided: each source's weight (n_sources,), the ``Blend`` SSL fits, the
    cross-validation it rests on (None when no source had any weight left: then the blend is SVR),
    and the SVR predictions the weights compared the checks with (``reference_predictions``; None
    with too few labels)."""

    weights: np.ndarray
    blend: Blend
    cv: LabelCV | None
    reference: np.ndarray | None = None


def choose_trust(
    X,
    y,
    preferences: PreferenceSet,
    source: np.ndarray,
    checks,
    rng,
    lambda1: float,
    progress=None,
    executor=None,
    **model_options,
) -> Trust:
    """Source weights from ``checks`` (one ``SourceCheck`` or None per source) where they contradict
    ``reference_predictions`` (``source_weights``), then the ``Blend`` by ``label_cv`` of the weighted
    preferences over ``trust_grid(lambda1)`` (``LabelCV.blend``).
    source (p,) indexes the sources; lambda1 is SVR's; ``progress``, ``executor`` and ``model_options`` as
    ``label_cv``."""
    reference, weights = _reference_and_weights(X, y, checks, rng, lambda1, model_options)
    if len(weights) == 0 or not np.any(weights[source] > 0):
        return Trust(weights, Blend.svr(lambda1), None, reference)
    kept = weighted(preferences, source, weights)
    cv = label_cv(X, y, kept, rng, trust_grid(lambda1), progress, executor, **model_options)
    return Trust(weights, cv.blend(), cv, reference)


def _reference_and_weights(X, y, checks, rng, lambda1: float, model_options: dict) -> tuple:
    """``reference_predictions`` and the ``source_weights`` of ``checks`` against them.  The reference
    draws from a child stream of rng: the sample and folds then drawn from rng itself are those of
    ``source_effects`` with the same seed."""
    reference = reference_predictions(X, y, rng.spawn(1)[0], lambda1, **model_options)
    return reference, source_weights(checks, reference)


@dataclass(frozen=True)
class AssessmentBasis:
    """What an assessment of named sources rests on besides their checks, for ``reassess_sources``:
    ``inputs``, a digest of X, y, lambda1, the LP's options and the seed (``assessment_digest``);
    ``names`` and ``mass`` (k,), each source's weighed preferences (its weight times the sum of its
    preferences' w) at the last full assessment; ``steps``, the incremental re-assessments since;
    ``size`` (k,), each source's sum of w then (None: stored before sizes were kept); ``made_at``, when the
    last full assessment was made (when it took its inputs: answers stored later are not in it), in seconds
    since the epoch (None: not recorded; the Studio's jobs record it)."""

    inputs: str
    names: tuple
    mass: np.ndarray
    steps: int = 0
    size: np.ndarray | None = None
    made_at: float | None = None

    def weights(self) -> dict:
        """Each source's weight at the last full assessment by name (its mass over its size; None
        where sizes were not kept)."""
        if self.size is None:
            return dict.fromkeys(self.names)
        return {
            name: float(mass / size) if size > 0 else 0.0
            for name, mass, size in zip(self.names, self.mass, self.size, strict=True)
        }

    def holds(self, names, mass: np.ndarray, size: np.ndarray | None = None) -> bool:
        """Whether the blend of the last full assessment still fits sources of weighed preferences
        ``mass`` (k,) named ``names``, of preferences summing to ``size`` (k,: the sum of their w):
        each source there then and now weighs within a factor ``MAX_FACTOR`` of its mass then (both 0
        counts as unchanged) and, if it holds more than ``MAX_NEW`` of the weighed preferences, has
        grown less than ``MAX_GROWTH`` times; and the sources new or gone since hold at most ``MAX_NEW``
        of the weighed preferences then.  (An assessment stored before sizes were kept skips growth.)"""
        then = dict(zip(self.names, self.mass, strict=True))
        now = dict(zip(names, mass, strict=True))
        total = float(np.sum(self.mass))
        for name in set(then) & set(now):
            low, high = sorted((then[name], now[name]))
            if high > low * MAX_FACTOR:
                return False
        if self.size is not None and size is not None:
            size_then = dict(zip(self.names, self.size, strict=True))
            for name, grown in zip(names, size, strict=True):
                large = max(now[name], then.get(name, 0.0)) > MAX_NEW * max(total, float(np.sum(mass)))
                if name in size_then and large and grown >= MAX_GROWTH * size_then[name]:
                    return False
        new_or_gone = sum(then.get(name, 0.0) + now.get(name, 0.0) for name in set(then) ^ set(now))
        return new_or_gone <= MAX_NEW * total


def assessment_digest(X, y, lambda1: float, options: dict, seed: int) -> str:
    """A digest of what every part of an assessment but the sources depends on."""
    digest = hashlib.sha256()
    for array in (X, y):
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    digest.update(repr((float(lambda1), sorted(options.items()), int(seed))).encode())
    return digest.hexdigest()[:40]


@dataclass(frozen=True)
class SourceTrust:
    """``Trust`` over named sources (a session's rules, annotators and imports): ``names`` and
    ``checks`` (one ``SourceCheck`` or None per source, as ``choose_trust`` takes them), the decision,
    each source's ``effects`` (``source_effects``; None when not computed, NaN for a source
    ``reassess_sources`` has not measured), the ``basis`` a re-assessment starts from (None: an
    assessment made before there was one, or by hand) and each click source's ``agreement`` (k, 4; k, 3
    when stored before the fourth): its ``AgreementEstimate`` (NaN rows for other sources; None: not
    measured; ``agreement_of``), and each effect's standard error (``effect_errors``, as the effects; None: not
    computed, or an assessment stored before there were any)."""

    names: tuple
    checks: tuple
    trust: Trust
    effects: np.ndarray | None
    basis: AssessmentBasis | None = None
    agreement: np.ndarray | None = None
    effect_errors: np.ndarray | None = None

    def tested(self) -> int:
        """How many effects this assessment tests together: those measured with a standard error above 0
        (a source of weight 0 has none to test, a NaN one is not measured); 0 without effects or errors."""
        if self.effects is None or self.effect_errors is None:
            return 0
        errors = np.asarray(self.effect_errors, dtype=np.float64)
        return int(np.count_nonzero(np.isfinite(self.effects) & np.isfinite(errors) & (errors > 0)))

    def effect_intervals(self, confidence: float = 0.95) -> np.ndarray | None:
        """Each effect's normal interval (k, 2), as the headline gain's (``LabelCV.comparison``), but
        simultaneous: all ``tested()`` = m of them hold together at ``confidence``, each at 1 − (1 −
        confidence) / m (Bonferroni).  Testing five sources each at 95 % on 30 labels called a rule right on
        80 % of its pairs "hurts" by chance (new-user report 13, F1: removing it moved the test MAE 183.3 →
        183.4).  Bonferroni, not Holm: Holm's step-down gives tests, not intervals, and the table shows
        intervals; and Bonferroni needs no independence, which effects measured on the same folds lack.
        With m = 1 it is the marginal 95 % interval.  NaN where not measured; None without effects or their
        errors."""
        if self.effects is None or self.effect_errors is None:
            return None
        level = 1 - (1 - confidence) / max(1, self.tested())
        half = float(scipy.stats.norm.ppf((1 + level) / 2)) * self.effect_errors
        return np.column_stack([self.effects - half, self.effects + half])

    def checked(self) -> list[tuple[int, int]]:
        """Each source's (correct, total) over every checked pair ((0, 0): nothing checks it)."""
        return [check.counts() if check else (0, 0) for check in self.checks]

    def contradicting(self) -> list[tuple[int, int]]:
        """Each source's (correct, total) where it contradicts SVR, what its weight rests on."""
        return [check.where_contradicting(self.trust.reference) if check else (0, 0) for check in self.checks]

    @property
    def is_full(self) -> bool:
        """Whether this is a full assessment (``assess_sources``), not a warm one (``reassess_sources``:
        its cross-validation, blend and kept effects are those of the last full one, of the sources as they
        were then).  One without a basis (stored before there was one, or made by hand) counts as full."""
        return self.basis is None or self.basis.steps == 0

    def unmeasured(self) -> list[str]:
        """The sources of weight above 0 whose effect is not measured (NaN: new, or whose weight changed,
        since the last full assessment); [] without effects."""
        if self.effects is None:
            return []
        return [
            name
            for name, weight, effect in zip(self.names, self.trust.weights, self.effects, strict=True)
            if weight > 0 and np.isnan(effect)
        ]

    @property
    def clicks_only(self) -> bool:
        """Whether SSL fits clicks alone (``click_grid``: no blend chosen on the labels)."""
        return self.trust.cv is not None and clicks_only(self.names, self.trust.weights)

    def agreement_text(self) -> list[str]:
        """Each source's accuracy from agreement with SVR in words ('0.93 on 120 answers, at least 0.81'; '—' for
        sources other than clicks).  The least-squares estimate can leave [0, 1] by noise (1.25 on 12
        answers all agreeing with SVR); an accuracy is shown within it (the one-parameter fit's constrained
        optimum is the clipped one)."""
        estimates = [self.agreement_of(k) for k in range(len(self.names))]
        return [
            "—" if e is None else ("not measurable yet" if not np.isfinite(e.standard_error) else e.words())
            for e in estimates
        ]

    def agreement_of(self, k: int) -> AgreementEstimate | None:
        """Source k's ``AgreementEstimate`` (None: not a click source, or nothing measured); a row of three
        (stored before the fourth, ``ordered``) rests on all their answers."""
        if self.agreement is None or np.isnan(self.agreement[k][0]):
            return None
        accuracy, error, answers, *rest = (float(v) for v in self.agreement[k])
        ordered = int(rest[0]) if rest and np.isfinite(rest[0]) else None
        return AgreementEstimate(accuracy, error, int(answers), ordered)

    def preference_weights(self, names: np.ndarray) -> np.ndarray:
        """The weight multiplier of each preference (p,) from its source's name; a source added since
        the assessment has nothing measured yet and weighs 1, the prior's."""
        by_name = dict(zip(self.names, self.trust.weights, strict=True))
        codes, unique = pd.factorize(np.asarray(names, dtype=object))
        return np.array([by_name.get(name, 1.0) for name in unique], dtype=np.float64)[codes]


def assess_sources(
    X, y, preferences, names, checks: dict, rng, lambda1: float, effects=True, progress=None, executor=None, **options
) -> SourceTrust:
    """``choose_trust`` for preferences (p,) from the named sources ``names`` (p,), with each name's
    ``SourceCheck`` in ``checks`` (missing or None: not measured), then each source's effect on
    the same folds, for the path (``LabelCV.path``: the fit with preferences whether or not the blend
    takes any of it, so a harmful source shows), against SVR when every source is left out.
    One batch of fold fits: the cross-validation of ``trust_grid`` and those of the effects that differ
    from it (``ZeroedSources``), on ``executor``'s workers if given (``label_cv``); ``progress(done,
    total)`` after each fold of them all."""
    unique, source = _source_codes(names)
    measured = tuple(checks.get(name) for name in unique)
    seed = int(rng.integers(2**31))
    rng = np.random.default_rng(seed)
    reference, weights = _reference_and_weights(X, y, measured, rng, lambda1, options)
    agreement = click_agreement(reference, y, preferences, source, unique, seed)
    weights = gated(weights, agreement)
    basis = AssessmentBasis(
        assessment_digest(X, y, lambda1, options, seed),
        tuple(unique),
        _mass(preferences, source, weights),
        size=_mass(preferences, source, np.ones(len(unique))),
    )
    if len(weights) == 0 or not np.any(weights[source] > 0):
        trust = Trust(weights, Blend.svr(lambda1), None, reference)
        return SourceTrust(tuple(unique), measured, trust, None, basis, agreement)
    kept = cv_sample(len(preferences), rng)
    only_clicks = clicks_only(unique, weights)
    grid = click_grid(lambda1, _answers(preferences, source, weights)) if only_clicks else trust_grid(lambda1)
    path, svr = Blend.mixing(grid, 1.0).active(), Blend.svr(lambda1)
    zeroed = ZeroedSources.of(weighted(preferences[kept], source[kept], weights), source[kept], unique.size)
    runs = [(zeroed.preferences, grid), *(zeroed.runs(path) if effects else [])]
    cv, *others = cross_validate_runs(X, y, draw_folds(y, rng), runs, options, progress, executor)
    effect = errors = None
    if effects:  # with every source in force, and SVR's, from the table of the cross-validation itself
        compared = (cv, path if zeroed.weighing else svr, [*others, cv], path, svr)
        effect, errors = zeroed.effects(*compared), zeroed.standard_errors(*compared)
    blend = Blend.mixing(grid, 1.0) if only_clicks else cv.blend()
    trust = Trust(weights, blend, cv, reference)
    return SourceTrust(tuple(unique), measured, trust, effect, basis, agreement, errors)


def _answers(preferences: PreferenceSet, source: np.ndarray, weights: np.ndarray) -> float:
    """How many preferences the sources of weight > 0 hold."""
    return float(np.count_nonzero(weights[source] > 0))


MAX_INCREMENTAL_STEPS = 10
"""Incremental re-assessments in a row (``reassess_sources``) before the next is a full one: each keeps
the blend and effects of the last full assessment while the weights it rests on drift click by click."""

MAX_FACTOR = 3.0
"""How far a source's weighed preferences (its weight times their w) may move from the last full
assessment's, as a factor either way, before a re-assessment is a full one (``AssessmentBasis.holds``).
Scaling every weight by c is scaling lambda2 by c, so for a lone source the kept blend, an average over
``LAMBDA2_GRID`` (0.3 ... 30, a factor sqrt(10) between members), is then the one of a path shifted by
less than one member.  A wrong audit answer where SVR disagrees moves a rule's weight by a fifth with 10
such pairs checked (1 -> 0.82), by an eighth with 20, a first one by a third (1 -> 0.66), a third one
of seed 000's bedroom rule with 2 wrong before by a factor 2.2 (0.40 -> 0.18); a weight that falls to 0
(or rises from it) moves by an infinite factor: a full assessment."""


MAX_GROWTH = 2.0
"""How many times its preferences (the sum of their w) a source that holds more than ``MAX_NEW`` of the
weighed preferences may have grown since the last full assessment before a re-assessment is a full one
(``AssessmentBasis.holds``).  More preferences of one source are not a rescaled lambda2 (the LP's hinge
term is a mean over them) but more evidence: the blend chosen for an expert's first 10 answers says
little about their first 100 (the sessions of ``experiments session``, docs/REPRODUCTION.md)."""

MAX_NEW = 0.25
"""The most of the last full assessment's weighed preferences that sources new or gone since may hold
before a re-assessment is a full one (``AssessmentBasis.holds``): a new annotator's first answers, not a
new rule or import of many preferences."""


def reassess_sources(
    previous: SourceTrust, X, y, preferences, names, checks: dict, rng, lambda1: float, **options
) -> SourceTrust | None:
    """``assess_sources`` (with effects, the same arguments) after a click that changed some sources'
    checks (an audit answer, an answer between two labeled rows, a new annotator's first answer), warm
    from ``previous``; None when only a full assessment will do (then run that, in the background).
    Every source is re-measured, which is cheap: its weight from its checks against SVR's reference
    predictions, which depend on X, y, lambda1 and the seed alone and are kept.  No cross-validation
    runs: at 20,000 preferences one fold's walk of the lambda2 path takes about a second, and a source's
    effect needs 20 of them.  So the result is

    - exactly a full assessment's: its names, checks, reference and every weight; all of it (blend,
      cross-validation, effects) when the weights and preferences are those of ``previous``;
    - kept from ``previous`` (from the last full assessment): the blend (its alpha), the cross-validation
      table and the effect of each source whose weight has not changed; 0 for a source of weight 0 (as a
      full one finds: zeroing it changes nothing);
    - NaN, not measured, for the effect of a source whose weight changed or that is new.

    None when ``previous`` has no ``basis`` or no cross-validation (no source weighed), when X, y,
    lambda1, the options or the seed differ from its (``assessment_digest``), after
    ``MAX_INCREMENTAL_STEPS`` incremental ones in a row, or when the weighed preferences moved too far
    since the last full one (``AssessmentBasis.holds``: a weight moved by more than ``MAX_FACTOR`` or to
    or from 0; a new rule, a removed one, an import of more than ``MAX_NEW`` of them)."""
    unique, source = _source_codes(names)
    basis, seed = previous.basis, int(rng.integers(2**31))
    if basis is None or previous.trust.cv is None or basis.steps >= MAX_INCREMENTAL_STEPS:
        return None
    if basis.inputs != assessment_digest(X, y, lambda1, options, seed):
        return None
    measured = tuple(checks.get(name) for name in unique)
    agreement = click_agreement(previous.trust.reference, y, preferences, source, unique, seed)
    weights = gated(source_weights(measured, previous.trust.reference), agreement)
    if not basis.holds(
        tuple(unique), _mass(preferences, source, weights), _mass(preferences, source, np.ones(len(unique)))
    ):
        return None
    trust, basis = replace(previous.trust, weights=weights), replace(basis, steps=basis.steps + 1)
    effects, errors = (
        _kept_effects(previous, kept, unique, weights) for kept in (previous.effects, previous.effect_errors)
    )
    return SourceTrust(tuple(unique), measured, trust, effects, basis, agreement, errors)


def _kept_effects(previous: SourceTrust, effects, names, weights: np.ndarray) -> np.ndarray | None:
    """Each source's effect (k,) for ``reassess_sources`` (or its standard error) from ``effects``,
    ``previous``'s: kept where its weight is unchanged, 0 where it is 0, NaN (not measured) elsewhere; None
    when ``previous`` has none."""
    if effects is None:
        return None
    before = {name: (w, e) for name, w, e in zip(previous.names, previous.trust.weights, effects, strict=True)}
    kept = [
        before[name][1] if before.get(name, (None,))[0] == w else np.nan for name, w in zip(names, weights, strict=True)
    ]
    return np.where(weights == 0, 0.0, np.array(kept, dtype=np.float64))


def _source_codes(names) -> tuple[np.ndarray, np.ndarray]:
    """The sources' names, sorted (k,), and each preference's source as a code into them (p,)."""
    codes, unique = pd.factorize(np.asarray(names, dtype=object), sort=True)
    return np.asarray(unique, dtype=str), codes


def _mass(preferences: PreferenceSet, source: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each source's weighed preferences (k,): its weight times the sum of its preferences' w."""
    return weights * np.bincount(source, preferences.weight, minlength=len(weights))
