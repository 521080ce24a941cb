"""The twelfth corpus's library cases (issue 32, "nothing silently wrong"): ``PreferenceSet``'s methods
given arguments that made them answer wrongly (R4: S18, S19, S21, S22, S25) or in misleading words (S24);
NPSVOR stopping at max_iter without a word and taking an intercept_scaling that overflows (R5: V16, V17);
arguments handed on unchecked to code that calls them (R6: P12, LP08, LP09, R22); a preference JSON lacking
"version" (R2: C19); GP labels' graph='ranking' given class labels (R8: B08); score's sample_weight (R9: V09)."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from ordercore import NPSVOR, GPLabelPreferenceModel, GPPreferenceModel, OrderPreferenceRegressor, PreferenceSet
from ordercore.gp.labels import ranking_preference_graph, whole_rankings
from ordercore.knowledge.rules import Ordering, Rule, Within, generate
from ordercore.preferences import ZERO, pair_codes


# ------------------------------------------------------------------------ R4: PreferenceSet's methods
@pytest.mark.parametrize("n_rows, top", [(3, 5), (0, 4), (5, 5)], ids=["S18", "S19", "n_rows = top"])
def test_pair_codes_refuses_n_rows_not_above_every_row_named(n_rows, top):
    """S18, S19: pairs (0, top) and (1, 2) (or (1, top)) got one key and code: two pairs taken for one."""
    preferences = PreferenceSet.order([0, 1], [top, 2 if top == 5 else top])
    with pytest.raises(ValueError, match=rf"^n_rows is {n_rows} but the pairs name row {top}: n_rows must exceed"):
        preferences.pair_codes(n_rows)
    with pytest.raises(ValueError, match=rf"^n_rows is {n_rows} but the pairs name row {top}"):
        pair_codes(preferences.i, preferences.j, n_rows)


@pytest.mark.parametrize("n_rows", [3.5, "x", -1, True])
def test_pair_codes_refuses_an_n_rows_that_is_no_count(n_rows):
    with pytest.raises(ValueError, match=r"^n_rows must be a whole number >= 0, got "):
        PreferenceSet.order([0], [1]).pair_codes(n_rows)


def test_pair_codes_over_enough_rows_name_each_pair_once():
    """The check leaves the codes alone: over 6 rows every ordered pair (brute force: all 30) has its own
    code, the two directions of a pair one key, and codes ^ 1 is the reverse."""
    i, j = np.array(list(itertools.permutations(range(6), 2))).T
    keys, codes = PreferenceSet.order(i, j).pair_codes(6)
    assert len(set(codes.tolist())) == 30
    assert len(set(keys.tolist())) == 15
    reverse = {(a, b): c for a, b, c in zip(i, j, codes, strict=True)}
    assert all(reverse[(b, a)] == c ^ 1 for (a, b), c in reverse.items())
    unary_keys, _ = pair_codes(np.array([0, ZERO]), np.array([ZERO, 1]), 6)  # unary preferences still coded
    assert len(set(unary_keys.tolist()) & set(keys.tolist())) == 0


@pytest.mark.parametrize(
    "scale, given", [(-1, "-1"), (0, "0"), (float("nan"), "nan"), (float("inf"), "inf"), ("1", "'1'"), (True, "True")]
)
def test_violated_refuses_a_scale_that_is_no_spread(scale, given):
    """S21 (scale -1 called a preference met exactly violated) and S22 (scale NaN called all violated
    ones satisfied)."""
    f = np.zeros(4)
    f[0] = 0.5
    with pytest.raises(ValueError, match=rf"^scale must be a finite number > 0 \(the target's spread\), got {given}$"):
        PreferenceSet.order([0, 2], [1, 3], 0.5).violated(f, scale=scale)


def test_violated_by_hand():
    """f(0) - f(1) = 0.5 meets margin 0.5 exactly; f(2) - f(3) = 0 falls 0.5 short: violated at any scale
    up to 0.5 / 1e-6 = 5e5, satisfied above."""
    f = np.array([0.5, 0.0, 0.0, 0.0])
    preferences = PreferenceSet.order([0, 2], [1, 3], 0.5)
    assert preferences.violated(f).tolist() == [False, True]
    assert preferences.violated(f, scale=4e5).tolist() == [False, True]
    assert preferences.violated(f, scale=6e5).tolist() == [False, False]
    assert preferences.violation(f).tolist() == [0.0, 0.5]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_violation_refuses_f_not_finite_at_a_row_compared(bad):
    """S25: f all NaN called every preference satisfied (NaN compares False)."""
    f = np.zeros(30)
    f[5] = bad
    preferences = PreferenceSet.order([0, 1, 2], [4, 5, 6], 0.5)
    for method in (preferences.violation, preferences.violated):
        with pytest.raises(ValueError, match=rf"^f holds {bad} at row 5 \(1 of the rows the preferences compare"):
            method(f)
    with pytest.raises(ValueError, match=r"^f holds nan at row 0 \(6 of the rows"):
        preferences.violated(np.full(30, np.nan))


def test_violation_reads_past_values_at_rows_not_compared():
    """NaN where no preference looks (the LP estimator's f is NaN at rows it does not predict) is fine;
    unary preferences (``ZERO``) read 0 there."""
    f = np.array([1.0, np.nan, 3.0, np.nan])
    preferences = PreferenceSet.order([0, 2], [2, ZERO], [0.0, 4.0])
    assert preferences.violation(f).tolist() == [2.0, 1.0]  # max(0 - (1 - 3), 0), max(4 - (3 - 0), 0)


@pytest.mark.parametrize(
    "f, said",
    [
        (np.zeros((30, 1)), r"f must be one-dimensional, a value per row \(n_samples,\), got shape \(30, 1\) \(use "),
        (np.zeros((2, 30)), r"f must be one-dimensional, a value per row \(n_samples,\), got shape \(2, 30\)$"),
        (np.float64(1.0), r"f must be one-dimensional, a value per row \(n_samples,\), got shape \(\)$"),
        (np.zeros(7), r"f has 7 values but the preferences name rows up to 7$"),
        (np.array(["1"] * 30), r"f must hold numbers, got <U1$"),
    ],
    ids=["S24 column", "2-D", "scalar", "too short", "text"],
)
def test_violation_refuses_f_of_another_shape_in_words(f, said):
    """S24: a (30, 1) column was told 'f has 30 values but the preferences name rows up to 7' (30 are
    enough; the shape was wrong).  A column is refused, not raveled (``ordercore.inputs.row_values``)."""
    with pytest.raises(ValueError, match="^" + said):
        PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7], 0.5).violation(f)


# ------------------------------------------------------------------------ R5: NPSVOR's max_iter and intercept_scaling
def ranked_problem():
    """30 rows, 3 features, ranks 1-3 by a linear score (the corpus's data)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = X @ [1.0, 2.0, -1.0] + rng.normal(0, 0.1, 30)
    return X, np.digitize(y, [-1, 1]) + 1


def test_npsvor_warns_of_the_ranks_max_iter_cut_short():
    """V16: max_iter=1 stopped every rank after one sweep (coefficients 0.24 off) without a word.  Which
    ranks are cut short is read independently from an uncapped fit with the same seed (the same visiting
    order, so the capped run is its first sweeps): those that needed more sweeps than the cap."""
    X, ranks = ranked_problem()
    needed = NPSVOR(random_state=0).fit(X, ranks).n_iter_
    cap = 20
    assert (needed > cap).any() and (needed < cap).any()  # the data give both kinds
    with pytest.warns(
        ConvergenceWarning, match=r"^NPSVOR stopped at max_iter=20 sweeps before its stopping rule"
    ) as got:
        NPSVOR(random_state=0, max_iter=cap).fit(X, ranks)
    short = [str(rank) for rank, n in zip([1, 2, 3], needed, strict=True) if n > cap]
    assert len(got) == 1 and f"for rank{'s' if len(short) > 1 else ''} {', '.join(short)}: the fit is not" in str(
        got[0].message
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        NPSVOR(random_state=0, max_iter=int(needed.max()) + 1).fit(X, ranks)  # room to converge: no warning


@pytest.mark.parametrize("scaling", [1e300, 1.0000001e6, np.inf])
def test_npsvor_refuses_an_intercept_scaling_that_drowns_the_features(scaling):
    """V17: 1e300 was accepted and its b² = inf (overflow, checked here by hand) left the fit one rank
    for every row.  The bound is ``MAX_INTERCEPT_SCALING`` (its docstring says why)."""
    X, ranks = ranked_problem()
    with np.errstate(over="ignore"):
        assert np.isinf(np.float64(1e300) ** 2)
    with pytest.raises(
        ValueError, match=r"'intercept_scaling' parameter of NPSVOR must be a float in the range \(0.0, "
    ):
        NPSVOR(intercept_scaling=scaling).fit(X, ranks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert np.isfinite(NPSVOR(intercept_scaling=1e6, max_iter=5).fit(X, ranks).coef_).all()  # the bound is taken


# ------------------------------------------------------------------------ R6: arguments handed on unchecked
@pytest.mark.parametrize("progress, said", [("x", "str 'x'"), (3, "int 3")])
def test_gp_fit_refuses_a_progress_that_is_no_function(progress, said):
    """P12: progress='x' failed deep in the evidence search ('str' object is not callable)."""
    X, _ = ranked_problem()
    with pytest.raises(
        ValueError, match=rf"^progress must be a function \(evaluations, log_evidence\) or None, got {said}$"
    ):
        GPPreferenceModel().fit(X, PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7]), progress=progress)


def test_gp_fit_calls_a_progress_function_once_per_evaluation():
    """What the check leaves alone: a function is called with evaluations 1, 2, 3, ... (counted here)."""
    X, _ = ranked_problem()
    calls = []
    GPPreferenceModel(n_restarts=0).fit(
        X, PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7]), progress=lambda *a: calls.append(a)
    )
    assert [evaluations for evaluations, _ in calls] == list(range(1, len(calls) + 1)) and calls


@pytest.mark.parametrize(
    "reference, said",
    [("bogus", "str 'bogus'"), (np.zeros(3), r"ndarray array\(\[0\., 0\., 0\.\]\)")],
    ids=["LP08", "LP09"],
)
def test_lp_suggest_pairs_refuses_a_reference_without_predict(reference, said):
    """LP08, LP09: a string or an array of predictions met "'str' object has no attribute 'predict'"."""
    X, y = ranked_problem()
    labels = np.where(np.arange(30) < 10, y.astype(float), np.nan)
    model = OrderPreferenceRegressor().fit(X, labels, PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7], 0.5))
    with pytest.raises(
        ValueError,
        match=rf"^reference must be a fitted model with predict \(e\.g\. the SVR beside this fit\) or None, got {said}",
    ):
        model.suggest_pairs(np.array([[10, 11], [12, 13]]), reference=reference)


def test_lp_suggest_pairs_takes_any_object_with_predict():
    """A reference predicting the fit's own values plus row 12's bump differs from the fit on pair (12, 13)
    alone, by hand: that pair is chosen first."""
    X, y = ranked_problem()
    labels = np.where(np.arange(30) < 10, y.astype(float), np.nan)
    model = OrderPreferenceRegressor().fit(X, labels, PreferenceSet.order([0, 1, 2, 3], [4, 5, 6, 7], 0.5))

    class Bumped:
        def predict(self, rows):
            return model.predict(rows) + 100.0 * np.all(rows == X[12], axis=1)

    chosen = model.suggest_pairs(np.array([[10, 11], [12, 13]]), k=1, reference=Bumped())
    assert chosen.tolist() == [[12, 13]]


@pytest.mark.parametrize("random_state", ["x", -1, 1.5, True, [1, 2]])
def test_rules_generate_refuses_a_random_state_numpy_cannot_seed_with_in_words(random_state):
    """R22: random_state='x' met numpy's 'SeedSequence expects int or sequence of ints for entropy not x'."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "v": [1.0, 2.0, 3.0]})
    rule = Rule("w", [Within("x", 10)], Ordering("v", "higher"))
    with pytest.raises(
        ValueError, match=r"^random_state must be a whole number >= 0, a numpy Generator .* or None, got "
    ):
        generate(rule, frame, max_pairs=1, random_state=random_state)


def test_rules_generate_draws_the_same_sample_from_a_seed_or_its_generator():
    """A seed and ``np.random.default_rng`` of it are one draw; 1 of the 3 pairs kept."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "v": [1.0, 2.0, 3.0]})
    rule = Rule("w", [Within("x", 10)], Ordering("v", "higher"))
    by_seed = generate(rule, frame, max_pairs=1, random_state=np.int64(7)).preferences
    assert by_seed == generate(rule, frame, max_pairs=1, random_state=np.random.default_rng(7)).preferences
    assert len(by_seed) == 1 and (int(by_seed.i[0]), int(by_seed.j[0])) in {(1, 0), (2, 0), (2, 1)}


# ------------------------------------------------------------------------ R2: the file readers' words
def test_a_preference_json_without_its_version_says_so(tmp_path):
    """C19: a document with "format" but no "version" was 'unsupported preference JSON version None'."""
    document = {"format": "ordercore.preferences", "i": [1, 2], "j": [3, 4], "margin": [0, 0], "weight": [1, 1]}
    with pytest.raises(ValueError, match=r'^preference JSON lacks its "version" field \(1\)$'):
        PreferenceSet.from_json(json.dumps(document))
    with pytest.raises(ValueError, match=r"^unsupported preference JSON version None$"):  # one written as null
        PreferenceSet.from_json(json.dumps(document | {"version": None}))
    assert PreferenceSet.from_json(json.dumps(document | {"version": 1})) == PreferenceSet.order([1, 2], [3, 4])


# ------------------------------------------------------------------------ R8: GP labels' rankings
@pytest.mark.parametrize(
    "y, said",
    [
        (np.array(["y", "x"] * 15), "'y'"),
        (np.tile([[0.5, 1.2]], (30, 1)), "0.5"),  # was cut to [0, 1], a ranking, without a word
        (np.tile([[0.0, np.nan]], (30, 1)), None),  # refused before as a missing value (finite_labels)
    ],
    ids=["B08 class labels", "fractions", "nan"],
)
def test_gp_labels_ranking_refuses_y_that_is_no_ranking(y, said):
    """B08: class labels with graph='ranking' met int()'s "invalid literal for int() with base 10"."""
    X, _ = ranked_problem()
    message = (
        r"^graph='ranking' takes y as rankings \(n, L\), each row the labels 0\.\.L-1 from most to least preferred; "
        rf"got {said} \(class labels take graph='multiclass' or 'ordinal'\)$"
    )
    with pytest.raises(ValueError, match=message if said else None):
        GPLabelPreferenceModel(graph="ranking").fit(X, y)


def test_ranking_rows_make_the_chain_from_first_to_last():
    """What the check leaves alone: rows [1, 0, 2] and [2, 1, 0] as floats make the edges 1 ≻ 0, 0 ≻ 2
    and 2 ≻ 1, 1 ≻ 0 (by hand)."""
    winner, loser, sample = ranking_preference_graph(whole_rankings(np.array([[1.0, 0.0, 2.0], [2.0, 1.0, 0.0]])))
    assert sorted(zip(sample.tolist(), winner.tolist(), loser.tolist(), strict=True)) == [
        (0, 0, 2), (0, 1, 0), (1, 1, 0), (1, 2, 1)
    ]  # fmt: skip


# ------------------------------------------------------------------------ R9: score's sample_weight
@pytest.mark.parametrize("weights, shape", [(np.ones(3), r"\(3,\)"), (np.ones((30, 2)), r"\(30, 2\)"), (1.0, r"\(\)")])
def test_score_names_a_sample_weight_of_another_length(weights, shape):
    """V09: scikit-learn's 'Found input variables with inconsistent numbers of samples: [30, 30, 3]'."""
    X, ranks = ranked_problem()
    model = NPSVOR(random_state=0).fit(X, ranks)
    with pytest.raises(ValueError, match=rf"^sample_weight must hold a weight per row of y \(30\), got shape {shape}$"):
        model.score(X, ranks, sample_weight=weights)


def test_score_weighs_rows_by_sample_weight():
    """Weights of the right length: accuracy weighted by hand, Σ w·[right] / Σ w."""
    X, ranks = ranked_problem()
    model = NPSVOR(random_state=0).fit(X, ranks)
    weights = np.arange(1.0, 31.0)
    right = model.predict(X) == ranks
    assert model.score(X, ranks, sample_weight=list(weights)) == pytest.approx((weights * right).sum() / weights.sum())
