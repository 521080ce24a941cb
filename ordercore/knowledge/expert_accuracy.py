"""How often an annotator orders pairs rightly, measured from their answers alone (issue 31).

An expert's answers rarely touch two labeled rows, so the labels check few of them.  Their agreement
with SVR's order does say how good they are: when SVR orders a pair rightly with probability s and the
expert with probability a, independently, they agree with probability

    P(agree) = a s + (1 - a)(1 - s) = 1/2 + (a - 1/2)(2 s - 1),

so agreement beyond a coin's measures a - 1/2, in units of SVR's own certainty 2 s - 1 (Dawid & Skene's
idea for two annotators, one of them a model whose reliability the labels measure).  s depends on the
pair: SVR orders a pair far apart in its predictions surely, a close one near a coin's
(``ReferenceOrder``: s = Phi(|Delta f| / tau), tau fitted on the labeled pairs, each row predicted out
of fold).  The least-squares estimate over an annotator's answers q,

    a - 1/2 = sum_q (g_q - 1/2) c_q / sum_q c_q^2,   c_q = 2 s_q - 1,   g_q = 1 if they agree,

has standard error at most 1 / (2 sqrt(sum_q c_q^2)) (each g_q's variance is at most 1/4) when the answers
share no row; answers that share rows (a row asked again, similar rows) are not independent, so the bound
is widened by their design effect (``pair_share.shared_row_factor`` of the terms c_q (g_q - 1/2 - (a - 1/2) c_q),
as a rule's checked pairs are): ``AgreementEstimate``. Both err more on close pairs, so the errors correlate
and the estimate reads high (an expert right on 80 % of random pairs reads 0.96 on random pairs); what it
tells apart surely is an expert from a coin (0.51 on the same pairs), which is what
``AgreementEstimate.weight`` rests on.

The estimate assumes the pairs were not chosen for SVR's errors: pairs chosen where SVR is likely wrong
(``pair_scores.expected_correction``, ``committee_choice``) read lower than the annotator is: an expert
right on 80 % of typical pairs, asked only where other models say SVR errs, read as a coin and weighed
0.  So a quarter of all pairs are **audit pairs** (``is_audit_pair``, by a hash of the two rows), which
choices led by the models never ask except as controls picked by SVR's certainty alone; over them the
estimate holds whatever else was asked, and an annotator is measured by the better bounded of the two
(``AgreementEstimate.of_annotator``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.optimize
from scipy.special import log_ndtr, ndtr

from ordercore.knowledge.pair_share import shared_row_factor
from ordercore.preferences import PreferenceSet, code_rows, pair_codes

PAIRS_FOR_TAU = 20_000
"""Most labeled pairs ``ReferenceOrder.fit`` takes (a uniform sample beyond: 1,000 labels hold 500,000)."""

Z_INFORMATIVE = 2.0
"""How many standard errors below its estimate an annotator's accuracy is taken to be
(``AgreementEstimate.weight``): one-sided, a coin's lower bound is above 1/2 2.3 % of the times it is
measured."""

FULL_ACCURACY = 0.7
"""The lower bound on an annotator's accuracy at which their clicks count in full (``AgreementEstimate.weight``):
the accuracy automatic trust expects of a source before it is checked (``source_weights.PRIOR_ACCURACY``)."""


def accuracy_words(accuracy: float, standard_error: float, answers: float, ordered: float | None = None) -> str:
    """An annotator's measured accuracy in words, with the lower bound automatic trust weighs them by
    ('0.76 on 23 answers, at least 0.50': ``Z_INFORMATIVE`` standard errors below, as
    ``AgreementEstimate.lower_bound``; a new user read '0.76 ± 0.13 … not surely above 0.5' as a
    contradiction).  Both shown within [0, 1] (the least-squares estimate can leave it by noise), '—'
    when not a number.  When it rests on the audit pairs among more ``ordered`` answers, it says so ('0.81
    on 12 audit pairs of 40 answers, …': '0.81 on 12 answers' read as if 28 were lost)."""
    shown, lowest = (
        f"{min(max(v, 0.0), 1.0):.2f}" if np.isfinite(v) else "—"
        for v in (accuracy, accuracy - Z_INFORMATIVE * standard_error)
    )
    basis = f"{answers:.0f} answers"
    if ordered is not None and np.isfinite(ordered) and ordered > answers:
        basis = f"{answers:.0f} audit pairs of {ordered:.0f} answers"
    return f"{shown} on {basis}, at least {lowest}"


@dataclass(frozen=True)
class ReferenceOrder:
    """SVR's order as a second annotator: ``predictions`` (n,) of every row (``source_weights.reference_predictions``)
    and ``tau``, the scale of its errors: it orders rows a, b rightly with probability
    Phi(|f_a - f_b| / tau) (``certainty``).  tau is None when the labels could not measure it (fewer than
    two labeled pairs of different values, or every one ordered rightly or wrongly)."""

    predictions: np.ndarray
    tau: float | None

    @classmethod
    def fit(cls, predictions: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> ReferenceOrder:
        """tau by maximum likelihood on the pairs of labeled rows of y (n,; NaN: unlabeled) of different
        values (at most ``PAIRS_FOR_TAU``, drawn by rng), right when ``predictions`` order them as y does."""
        labeled = np.flatnonzero(~np.isnan(y))
        first, second = np.triu_indices(labeled.size, 1)
        if first.size > PAIRS_FOR_TAU:
            chosen = rng.choice(first.size, PAIRS_FOR_TAU, replace=False)
            first, second = first[chosen], second[chosen]
        a, b = labeled[first], labeled[second]
        differ = y[a] != y[b]
        a, b = a[differ], b[differ]
        gap = np.abs(predictions[a] - predictions[b])
        right = np.sign(predictions[a] - predictions[b]) == np.sign(y[a] - y[b])
        if a.size < 2 or right.all() or not right.any() or not np.any(gap > 0):
            return cls(predictions, None)
        scale = float(np.std(gap)) or 1.0

        def negative_log_likelihood(log_tau: float) -> float:
            z = gap / np.exp(log_tau)
            return -float(np.sum(np.where(right, log_ndtr(z), log_ndtr(-z))))

        bounds = (np.log(scale * 1e-4), np.log(scale * 1e4))
        found = scipy.optimize.minimize_scalar(negative_log_likelihood, bounds=bounds, method="bounded")
        return cls(predictions, float(np.exp(found.x)))

    def certainty(self, winner: np.ndarray, loser: np.ndarray) -> np.ndarray:
        """2 s - 1 per pair (m,), s = Phi(|f_winner - f_loser| / tau) the chance the reference orders it rightly."""
        return 2.0 * ndtr(np.abs(self.predictions[winner] - self.predictions[loser]) / self.tau) - 1.0


@dataclass(frozen=True)
class AgreementEstimate:
    """An annotator's estimated accuracy on the pairs they ordered, from their agreement with a
    ``ReferenceOrder`` (the module's least-squares estimate): ``accuracy`` (unclipped: it may leave
    [0, 1]), its ``standard_error`` (inf when nothing measures it), the ordered ``answers`` it rests on, and
    all the annotator ordered when those are their audit pairs alone (``ordered``; else None)."""

    accuracy: float
    standard_error: float
    answers: int
    ordered: int | None = None

    @classmethod
    def of(
        cls, reference: ReferenceOrder, winner: np.ndarray, loser: np.ndarray, labeled: LabeledAnswers | None = None
    ) -> AgreementEstimate:
        """From the pairs an annotator ordered, the row they preferred (``winner``, (m,)) over ``loser``,
        compared with the reference, and their answers the labels check (``labeled``), each of these an
        agreement with a reference that is always right (c_q = 1, g_q = right)."""
        winner, loser = np.asarray(winner, dtype=np.int64), np.asarray(loser, dtype=np.int64)
        labeled = labeled or LabeledAnswers.of([], [], [])
        if reference.tau is None:
            winner, loser = winner[:0], loser[:0]
        certainty = np.concatenate([reference.certainty(winner, loser) if winner.size else [], np.ones(labeled.a.size)])
        agree = np.concatenate([reference.predictions[winner] > reference.predictions[loser], labeled.right])
        first, second = np.concatenate([winner, labeled.a]), np.concatenate([loser, labeled.b])
        information = float(np.sum(certainty**2))
        if information == 0:
            return cls(0.5, np.inf, int(agree.size))
        excess = float(np.sum((agree - 0.5) * certainty)) / information
        # answers that share a row err together: the bound widened by their design effect (pair_share)
        shared = shared_row_factor(first, second, certainty * (agree - 0.5 - excess * certainty))
        return cls(0.5 + excess, 0.5 * np.sqrt(shared / information), int(agree.size))

    @classmethod
    def of_annotator(
        cls, reference: ReferenceOrder, winner: np.ndarray, loser: np.ndarray, labeled: LabeledAnswers | None = None
    ) -> AgreementEstimate:
        """``of`` their answers, or of their answers on audit pairs alone when its ``lower_bound`` is higher:
        over audit pairs the pairs were not chosen for SVR's errors (the module's note).  Two looks let a
        coin pass a little more often than one (the weight's ramp keeps what it costs small).  The answers
        the labels check count in both: the labels are right whichever way the pairs were chosen."""
        winner, loser = np.asarray(winner, dtype=np.int64), np.asarray(loser, dtype=np.int64)
        every = cls.of(reference, winner, loser, labeled)
        audit = is_audit_pair(winner, loser)
        audited = cls.of(reference, winner[audit], loser[audit], labeled)
        return replace(audited, ordered=every.answers) if audited.lower_bound > every.lower_bound else every

    def words(self) -> str:
        """In words (``accuracy_words``)."""
        return accuracy_words(self.accuracy, self.standard_error, self.answers, self.ordered)

    @property
    def lower_bound(self) -> float:
        """The accuracy ``Z_INFORMATIVE`` standard errors below the estimate."""
        return self.accuracy - Z_INFORMATIVE * self.standard_error

    @property
    def informative(self) -> bool:
        """Whether the annotator is measured better than a coin (``lower_bound`` above 1/2)."""
        return bool(self.lower_bound > 0.5)

    @property
    def weight(self) -> float:
        """How much their clicks count, in [0, 1]: how far ``lower_bound`` is above a coin, as a share of
        ``FULL_ACCURACY``'s excess.  Rising with the evidence rather than stepping from 0 to 1, so that a
        coin whose lower bound passes 1/2 by chance counts little (replayed on the sessions of
        ``experiments session``, 20 trials: a coin's 300 answers cost 0.1 % where a step to 1 cost 0.7 %,
        and an expert right on 80 % of typical pairs lost at most 1.5 points at 50 answers and none at 300)."""
        return float(np.clip((self.lower_bound - 0.5) / (FULL_ACCURACY - 0.5), 0.0, 1.0))


AUDIT_EVERY = 4
"""One pair in ``AUDIT_EVERY`` is an audit pair (``is_audit_pair``)."""


def is_audit_pair(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each pair of rows (a[k], b[k]) (m,) is an audit pair: one in ``AUDIT_EVERY`` of all pairs,
    either way round, fixed by a hash of the two rows (a 64-bit multiply-xorshift mix of both), so a
    pair's kind follows from its rows alone, in every process and after a restart (m,) bool."""
    low = np.minimum(a, b).astype(np.uint64)
    high = np.maximum(a, b).astype(np.uint64)
    with np.errstate(over="ignore"):
        mixed = (low * np.uint64(0x9E3779B97F4A7C15)) ^ (high * np.uint64(0xC2B2AE3D27D4EB4F))
        mixed ^= mixed >> np.uint64(29)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(32)
    return mixed % np.uint64(AUDIT_EVERY) == 0


@dataclass(frozen=True)
class LabeledAnswers:
    """An annotator's answers on pairs of labeled rows, which the labels check: the rows (``a``, ``b``) (m,)
    and whether each answer is ``right`` (m,) bool.  An order is right when the labels order the pair so (a
    tie is wrong, as for a rule); an "about equal" is right when the labels are within its margin, |y_a −
    y_b| <= margin, what the Studio's "about equal" asks of the fit (``PreferenceSet.close``), else wrong
    (a first-time expert's "about equal" on bikes worth €333 and €1,467 was never checked)."""

    a: np.ndarray
    b: np.ndarray
    right: np.ndarray

    @classmethod
    def of(cls, a, b, right) -> LabeledAnswers:
        return cls(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64), np.asarray(right, dtype=bool))


def answered_pairs(preferences: PreferenceSet, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, LabeledAnswers]:
    """One annotator's pairwise preferences of weight > 0, each pair once, split by what checks them: the
    pairs they order strictly (whose reverse they do not also hold) with a row unlabeled in y (n,), as
    (winner (m,), loser (m,)) for the reference; and the ``LabeledAnswers`` on pairs of labeled rows, orders
    and "about equal" (a pair held both ways, |f_a − f_b| <= margin, its margin minus the preferences')."""
    n_rows = y.size
    kept = preferences[~preferences.is_unary & (preferences.weight > 0)]
    keys, codes = pair_codes(kept.i, kept.j, n_rows)
    unique = np.unique(codes)
    both_ways = np.isin(unique ^ 1, unique)
    winner, loser = code_rows(unique[~both_ways], n_rows)
    labeled = ~np.isnan(y[winner]) & ~np.isnan(y[loser])
    equal = np.unique(unique[both_ways] >> 1)  # the keys of the pairs held both ways
    a, b = np.divmod(equal, n_rows)
    slack, held = np.full(equal.size, -np.inf), np.isin(keys, equal)
    np.maximum.at(slack, np.searchsorted(equal, keys[held]), -kept.margin[held])  # |f_a - f_b| <= slack
    equal_labeled = ~np.isnan(y[a]) & ~np.isnan(y[b])
    checked = LabeledAnswers.of(
        np.concatenate([winner[labeled], a[equal_labeled]]),
        np.concatenate([loser[labeled], b[equal_labeled]]),
        np.concatenate([y[winner[labeled]] > y[loser[labeled]], (np.abs(y[a] - y[b]) <= slack)[equal_labeled]]),
    )
    return winner[~labeled], loser[~labeled], checked
