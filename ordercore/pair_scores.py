"""How much an answer to a candidate pair would teach a model (seed 002 §2.4: "select ... the sample
with the highest expected information gain"; left there as future work).  The model families score
their candidates with these; the Studio's choice of the next pair is ``ordercore.knowledge.pair_choice``.

- GP model: BALD (Houlsby, Huszár, Ghahramani & Lengyel 2011, "Bayesian Active Learning for
  Classification and Preference Learning", §3): the information a click on pair (a, b) brings about
  f is H[P(a ≻ b)] - E_f[H[P(a ≻ b | f)]], with the analytic probit approximation below (no Monte
  Carlo).
- The kernel regressors (``suggest_by_order``, for any model with ``predict``): the pair whose
  predicted order is least certain (the smallest |f(a) - f(b)|), or, given a reference fit (e.g. the
  SVR beside the SSL), the pair where the two fits differ most.

Either way pairs that existing preferences already settle (asked before, or implied by a chain of
strict preferences a ≻ ... ≻ b) are skipped.  ``rank_unsettled`` can also keep out the rows of the last
questions asked (``RecentRows``: the Studio's choices led by the models, so that no row dominates them)
and fill places with pairs of a given kind (the committee's audit pairs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order
from scipy.special import ndtr

from ordercore.inputs.printable import quoted
from ordercore.preferences import PreferenceSet, code_rows, is_in, pair_codes, sorted_unique

BALD_CONSTANT = np.sqrt(np.pi * np.log(2.0) / 2.0)


"""C in Houlsby et al.'s approximation H₂(Φ(x)) ≈ exp(-x² / (2 C²)) (binary entropy in bits)."""


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """H₂(p) in bits, elementwise, with H₂(0) = H₂(1) = 0."""
    p = np.clip(p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(p * np.log2(p)) - (1 - p) * np.log2(1 - p)
    return np.nan_to_num(terms, nan=0.0)


def bald_information(mean: np.ndarray, variance: np.ndarray, noise: float) -> np.ndarray:
    """Expected information gain (bits) of asking pairs whose latent difference f(a) - f(b) has the
    given predictive mean and variance (each (m,)), under P(a ≻ b | f) = Φ((f(a) - f(b)) / (√2 σ)).

    With m = mean / (√2 σ) and v = variance / (2σ²) (Houlsby et al. 2011, eq. (6)):
    H₂(Φ(m / √(1 + v))) - C / √(v + C²) · exp(-m² / (2 (v + C²))).
    """
    m = mean / (np.sqrt(2.0) * noise)
    v = variance / (2.0 * noise**2)
    predictive = binary_entropy(ndtr(m / np.sqrt(1.0 + v)))
    expected = BALD_CONSTANT / np.sqrt(v + BALD_CONSTANT**2) * np.exp(-(m**2) / (2.0 * (v + BALD_CONSTANT**2)))
    return np.maximum(predictive - expected, 0.0)


def check_candidate_pairs(candidate_pairs, n_samples: int) -> np.ndarray:
    """Candidate pairs as an int array (m, 2) of distinct row indices in [0, n_samples)."""
    pairs = np.asarray(candidate_pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"candidate_pairs must have shape (m, 2), got {pairs.shape}")
    if pairs.size and not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"candidate_pairs must hold row indices (integers), got {pairs.dtype}")
    pairs = pairs.astype(np.int64)
    if np.any((pairs < 0) | (pairs >= n_samples)):
        raise ValueError(f"candidate_pairs refer to rows outside 0..{n_samples - 1}")
    if np.any(pairs[:, 0] == pairs[:, 1]):
        raise ValueError("a candidate pair needs two different rows")
    return pairs


@dataclass(frozen=True, eq=False)
class StrictGraph:
    """The pairs a set of pairwise preferences over ``n_rows`` rows compares and the graph of its strict
    ones, kept so that a click's few new preferences are merged in (``extended``) rather than the whole
    set sorted again (at 500,000 preferences a build takes about 40 ms, a merge a few).

    codes : the sorted distinct direction codes (k,) of the preferences of weight > 0 (``pair_codes``).
    edges : the sorted codes winner * n_rows + loser (e,) of the strict ones: a preference of i over j
        whose reverse is not also present (equal and close come both ways).
    i, j, used : the rows (p,) of the preference set it was built from, and which of them it took
        (pairwise, weight > 0): what ``extended`` compares a newer set's first p with."""

    n_rows: int
    codes: np.ndarray
    edges: np.ndarray
    i: np.ndarray
    j: np.ndarray
    used: np.ndarray

    @classmethod
    def of(cls, preferences: PreferenceSet, n_rows: int) -> StrictGraph:
        used = ~preferences.is_unary & (preferences.weight > 0)
        codes = sorted_unique(pair_codes(preferences.i[used], preferences.j[used], n_rows)[1])[0]
        if codes.size == 0:
            return cls(n_rows, codes, codes, preferences.i, preferences.j, used)
        # The two directions of a pair have codes 2 key and 2 key + 1, next to each other once sorted.
        two_way = (codes[:-1] % 2 == 0) & (codes[1:] == codes[:-1] + 1)
        strict = ~(np.append(two_way, False) | np.append(False, two_way))
        edges = np.sort(_edge_codes(codes[strict], n_rows))
        return cls(n_rows, codes, edges, preferences.i, preferences.j, used)

    def extended(self, preferences: PreferenceSet) -> StrictGraph:
        """The graph of ``preferences``: merged from this one when they begin with the preferences it was
        built from (a click appends), else built anew (``of``)."""
        p = self.i.size
        new_used = ~preferences.is_unary & (preferences.weight > 0)
        if not (
            len(preferences) >= p
            and np.array_equal(preferences.i[:p], self.i)
            and np.array_equal(preferences.j[:p], self.j)
            and np.array_equal(new_used[:p], self.used)
        ):
            return StrictGraph.of(preferences, self.n_rows)
        tail = pair_codes(preferences.i[p:][new_used[p:]], preferences.j[p:][new_used[p:]], self.n_rows)[1]
        added = np.unique(tail)
        added = added[~is_in(added, self.codes)]
        codes = np.insert(self.codes, np.searchsorted(self.codes, added), added)
        reverse_known = is_in(added ^ 1, codes)
        gone = _edge_codes(added[reverse_known] ^ 1, self.n_rows)  # now two-way: no longer strict
        edges = self.edges[~is_in(self.edges, np.sort(gone))]
        fresh = np.sort(_edge_codes(added[~reverse_known], self.n_rows))
        edges = np.insert(edges, np.searchsorted(edges, fresh), fresh)
        return StrictGraph(self.n_rows, codes, edges, preferences.i, preferences.j, new_used)

    @property
    def keys(self) -> np.ndarray:
        """The sorted keys (``pair_codes``) of the pairs compared either way, with repeats (k,)."""
        return self.codes >> 1

    def csr(self) -> scipy.sparse.csr_array:
        """The strict graph (n_rows, n_rows): an edge winner -> loser per strict preference."""
        rows, indices = np.divmod(self.edges, self.n_rows)
        indptr = np.searchsorted(rows, np.arange(self.n_rows + 1))
        shape = (self.n_rows, self.n_rows)
        # 32-bit indices: csgraph's traversals of SciPy < 1.12 refuse 64-bit ones ("Buffer dtype mismatch")
        indices, indptr = indices.astype(np.int32), indptr.astype(np.int32)
        return scipy.sparse.csr_array((np.ones(self.edges.size), indices, indptr), shape=shape)


def _edge_codes(codes: np.ndarray, n_rows: int) -> np.ndarray:
    """winner * n_rows + loser (k,) of the preferences with direction codes ``codes`` (k,)."""
    winner, loser = code_rows(codes, n_rows)
    return winner * n_rows + loser


def _reaches(graph: scipy.sparse.csr_array, source: int, target: int) -> bool:
    """Whether a path of edges leads from ``source`` to ``target`` (breadth first from source)."""
    return bool(np.any(breadth_first_order(graph, source, directed=True, return_predecessors=False) == target))


class Settlement:
    """Which candidate pairs (m, 2) ``preferences`` already settle: compared directly (either way,
    equalities included) or implied by transitivity of its strict preferences.  Building it costs
    one sort of the p preferences (none given their ``StrictGraph``, ``graph``) and answers the direct
    question for every candidate at once; ``settles(k)`` then searches a path for candidate k only when
    needed, and only where a path can start and end."""

    def __init__(self, preferences: PreferenceSet, candidate_pairs: np.ndarray, graph: StrictGraph | None = None):
        self.pairs = candidate_pairs
        self.direct = np.zeros(len(candidate_pairs), dtype=bool)
        self.graph = None
        if graph is None and len(preferences) and len(candidate_pairs):
            pairwise = preferences[~preferences.is_unary]
            n_rows = int(max(pairwise.i.max(initial=-1), pairwise.j.max(initial=-1), candidate_pairs.max())) + 1
            graph = StrictGraph.of(pairwise, n_rows)
        if graph is not None and graph.codes.size and len(candidate_pairs):
            self.direct = is_in(pair_codes(candidate_pairs[:, 0], candidate_pairs[:, 1], graph.n_rows)[0], graph.keys)
            self.graph = graph.csr()
            self.out_degree = np.diff(self.graph.indptr)
            self.in_degree = np.bincount(self.graph.indices, minlength=graph.n_rows)

    def settles(self, k: int) -> bool:
        """Whether candidate pair k is settled."""
        if self.direct[k] or self.graph is None:
            return bool(self.direct[k])
        a, b = (int(row) for row in self.pairs[k])
        return self._path(a, b) or self._path(b, a)

    def _path(self, source: int, target: int) -> bool:
        return bool(self.out_degree[source] and self.in_degree[target] and _reaches(self.graph, source, target))


def settled(preferences: PreferenceSet, candidate_pairs: np.ndarray) -> np.ndarray:
    """Boolean mask (m,): candidate pairs (m, 2) that ``preferences`` settle (``Settlement``)."""
    settlement = Settlement(preferences, candidate_pairs)
    return np.array([settlement.settles(k) for k in range(len(candidate_pairs))], dtype=bool)


@dataclass(frozen=True)
class RecentRows:
    """The questions an annotator was asked last, so that a choice spreads over the rows: ``asked`` (k, 2)
    their row pairs, oldest first, of which the last ``window`` keep their rows out of the next pairs
    (``rank_unsettled``)."""

    asked: np.ndarray
    window: int

    def since(self, pairs: np.ndarray) -> np.ndarray:
        """For each row of ``pairs`` (m, 2), how many questions ago it was last asked, that one counted
        (1: in the last one), within the last ``window`` ones; ``window`` + 1 otherwise (m, 2)."""
        since = np.full(pairs.shape, self.window + 1, dtype=np.int64)
        asked = np.asarray(self.asked, dtype=np.int64).reshape(-1, 2)
        last = asked[max(len(asked) - self.window, 0) :]
        for ago, question in enumerate(last[::-1], start=1):  # newest first: the first match is the latest
            hit = np.isin(pairs, question) & (since > self.window)
            since[hit] = ago
        return since


def rank_unsettled(
    scores: np.ndarray,
    candidate_pairs: np.ndarray,
    k: int,
    preferences: PreferenceSet,
    graph: StrictGraph | None = None,
    *,
    recent: RecentRows | None = None,
    kinds: np.ndarray | None = None,
    slots: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The k best-scoring candidate pairs (highest score first) that ``preferences`` (or their
    ``StrictGraph``, ``graph``, when given) do not settle: (pairs (<= k, 2), scores).  Candidates are
    checked best first until k are found, so a path is
    searched for a few of them, not for all (at 500,000 preferences each search costs milliseconds).

    With ``recent`` (``RecentRows``), the pairs are chosen in turn, each the best whose rows were not
    asked in the last ``recent.window`` questions (those ``recent`` holds, then the pairs chosen before
    it), unless every unsettled candidate has one: then the one whose rows were asked longest ago.  With
    ``kinds`` (m,) and ``slots`` (k,) (small ints), the i-th pair is the best of kind ``slots[i]``, or,
    when none of that kind is left (or, with ``recent``, none of it is free of recent rows), the best of
    the others.  A pair given more than once among the candidates (either way round) is one question:
    it is chosen at most once (the k pairs asked in one batch are distinct)."""
    if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:  # True was taken for 1
        raise ValueError(f"k must be a positive integer, got {k!r}")
    settlement = Settlement(preferences, candidate_pairs, graph)
    questions = _questions(candidate_pairs)
    if recent is None and kinds is None:
        chosen, asked = [], set()
        for position in np.argsort(-scores, kind="stable"):
            if questions[position] not in asked and not settlement.settles(position):
                chosen.append(position)
                asked.add(questions[position])
                if len(chosen) == k:
                    break
        chosen = np.asarray(chosen, dtype=np.int64)
        return candidate_pairs[chosen], scores[chosen]
    chosen = _spread_choice(scores, candidate_pairs, k, settlement, recent, kinds, slots, questions)
    return candidate_pairs[chosen], scores[chosen]


def _questions(pairs: np.ndarray) -> np.ndarray:
    """The question (m,) each candidate pair (m, 2) asks: one number per pair of rows, whichever way round."""
    if not len(pairs):
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.sort(pairs, axis=1), axis=0, return_inverse=True)[1].reshape(-1)


def _spread_choice(scores, pairs, k, settlement, recent, kinds, slots, questions) -> np.ndarray:
    """``rank_unsettled``'s choice with ``recent``, ``kinds`` and ``slots``: the positions (<= k,) chosen, no
    two asking the same question (``questions`` (m,))."""
    m = len(pairs)
    kinds = np.zeros(m, dtype=np.int64) if kinds is None else np.asarray(kinds, dtype=np.int64)
    slots = np.zeros(k, dtype=np.int64) if slots is None else np.asarray(slots, dtype=np.int64)
    if kinds.shape != (m,) or slots.shape[0] < k:
        raise ValueError(f"kinds must have one entry per candidate ({m}) and slots at least k ({k})")
    slots = slots[:k]
    window = 0 if recent is None else int(recent.window)
    since = np.full((m, 2), window + 1, dtype=np.int64) if recent is None else recent.since(pairs)
    orders = {kind: np.lexsort((-scores, kinds != kind)) for kind in np.unique(slots)}
    unsettled = np.full(m, -1, dtype=np.int8)  # -1: not checked yet
    taken = np.zeros(m, dtype=bool)
    chosen = []
    for kind in slots:
        order = orders[kind]
        latest = np.minimum(since.min(axis=1)[order], window + 1)  # questions since a row of it was asked
        # Free of recent rows first (in the slot's order), then the ones whose rows were asked longest ago.
        ranked = order[np.lexsort((np.arange(m), -latest))]
        found = None
        for position in ranked:
            if taken[position]:
                continue
            if unsettled[position] < 0:
                unsettled[position] = not settlement.settles(position)
            if unsettled[position]:
                found = position
                break
        if found is None:
            break
        taken[questions == questions[found]] = True
        chosen.append(found)
        since += 1
        since[np.isin(pairs, pairs[found])] = 1
    return np.asarray(chosen, dtype=np.int64)


def suggest_by_order(model, X: np.ndarray, candidate_pairs, k: int, preferences: PreferenceSet, reference=None):
    """The k candidate pairs (rows of X, shape (m, 2)) to ask a fitted regressor ``model`` next, best
    first, skipping pairs ``preferences`` settle: (pairs (≤ k, 2), scores (≤ k,)).  Model-agnostic:
    it needs only ``model.predict`` (and ``reference.predict``); see ``suggest_by_predictions``."""
    if reference is not None and not callable(getattr(reference, "predict", None)):
        raise ValueError(
            f"reference must be a fitted model with predict (e.g. the SVR beside this fit) or None, got "
            f"{type(reference).__name__} {quoted(reference)} (predictions go to suggest_by_predictions)"
        )
    pairs = check_candidate_pairs(candidate_pairs, X.shape[0])
    rows = np.unique(pairs)
    predictions = np.zeros(X.shape[0])
    predictions[rows] = model.predict(X[rows]) if rows.size else 0.0
    if reference is not None:
        reference_predictions = np.zeros(X.shape[0])
        reference_predictions[rows] = reference.predict(X[rows]) if rows.size else 0.0
        reference = reference_predictions
    return suggest_by_predictions(predictions, pairs, k, preferences, reference)


def expected_correction(difference: np.ndarray, spread: np.ndarray, scale: float) -> np.ndarray:
    """How likely an answer to each pair corrects the fit, shape (m,): Phi(-|d| / spread), the chance
    that the fit orders the pair wrongly, times 2 Phi(|d| / scale) - 1, how much more often than not an
    expert whose view of a difference errs by ``scale`` (a typical pair's error) orders it rightly.
    d (m,) is the fit's difference f(a) - f(b), spread (m,) the standard deviation of that difference
    over models fitted to parts of the labels (a committee: where they disagree the fit is unsure).

    A pair the fit already orders surely (|d| >> spread) teaches nothing; a pair it cannot tell apart
    (d near 0) is as hard for the expert, whose answer is then near a coin's: the score peaks between.
    The least-certain-order choice (-|d|) takes the second kind, and an expert right on 80 % of
    typical pairs answered its pairs 72 % rightly, for no gain (``experiments session``)."""
    difference = np.abs(np.asarray(difference, dtype=np.float64))
    spread = np.maximum(np.asarray(spread, dtype=np.float64), np.finfo(float).tiny)
    return ndtr(-difference / spread) * (2.0 * ndtr(difference / scale) - 1.0)


def suggest_by_predictions(
    predictions: np.ndarray,
    candidate_pairs,
    k: int,
    preferences: PreferenceSet,
    reference: np.ndarray | None = None,
    graph: StrictGraph | None = None,
):
    """``suggest_by_order`` from a fit's predictions f (n,) on every row (and a reference fit's (n,)):
    without ``reference`` the score is -|f(a) - f(b)|, the pair whose order the fit is least sure of;
    with it |Δ - Δ_reference|, Δ = f(a) - f(b), the pair on which the two fits differ most.  Pairs
    ``preferences`` settle (``graph``: their ``StrictGraph``, if built) are skipped.  Returns (pairs
    (≤ k, 2), scores (≤ k,))."""
    predictions = np.asarray(predictions, dtype=np.float64)
    pairs = check_candidate_pairs(candidate_pairs, predictions.shape[0])
    return rank_unsettled(order_scores(predictions, pairs, reference), pairs, k, preferences, graph)


def order_scores(predictions: np.ndarray, pairs: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """``suggest_by_predictions``'s scores (m,) of ``pairs`` (m, 2) from a fit's predictions f (n,) (and a
    reference fit's (n,)): -|f(a) - f(b)|, or |Δ - Δ_reference|."""
    predictions = np.asarray(predictions, dtype=np.float64)
    difference = predictions[pairs[:, 0]] - predictions[pairs[:, 1]]
    if reference is None:
        return -np.abs(difference)
    reference = np.asarray(reference, dtype=np.float64)
    return np.abs(difference - (reference[pairs[:, 0]] - reference[pairs[:, 1]]))
