"""The Studio's Workbench: each retrain path (answer added, undo, a change that is neither) gives
the fit a cold solve of the same problem gives, and the figures it reports are those of cold fits."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold

from ordercore import GPPreferenceModel, MemoryBudgetError, OrderPreferenceRegressor, PreferenceSet
from ordercore.exceptions import SolverTimeLimitError
from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate
from ordercore.models.registry import ModelFamily, registered
from ordercore.pair_scores import expected_correction
from ordercore.studio.comparisons import monotone_boosting_mae, start_gp_fit
from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, identifier_column, study_data
from ordercore.studio.training import violations_by_source
from ordercore.studio.workbench import DEFAULT_TIME_LIMIT, Workbench, studio_models

PARAMETERS = {"gamma": 0.1, "lambda1": 1e-3, "lambda2": 1.0}


@pytest.fixture(scope="module")
def data():
    frame = pd.read_csv(SAMPLE_PATH).iloc[:400].reset_index(drop=True)
    return study_data(frame, "price", SAMPLE_FEATURES, {"n_labeled": 30, "test_fraction": 0.2, "seed": 3})


@pytest.fixture(scope="module")
def rule_preferences(data):
    labeled = np.zeros(len(data.frame), dtype=bool)
    labeled[data.labeled] = True
    rule = Rule("more bedrooms", [Near("latitude", "longitude", 1.0), Within("age", 10)], Ordering("bedrooms"))
    return generate(rule, data.frame, labeled, max_pairs=300, random_state=0).preferences


def cold(data, preferences):
    return OrderPreferenceRegressor(**PARAMETERS).fit(data.dataset.X, data.y_train(), preferences)


def assert_matches_cold_fit(bench, data, preferences, report):
    reference = cold(data, preferences)
    X_test, truth = data.dataset.X[data.test], data.y_true[data.test]
    scale = np.std(data.y_true[data.labeled])
    assert np.allclose(bench.ssl_test, reference.predict(X_test), atol=1e-6 * scale)
    assert bench.ssl.objective_ == pytest.approx(reference.objective_, rel=1e-7)
    assert report.ssl_mae == pytest.approx(mean_absolute_error(truth, reference.predict(X_test)), rel=1e-6)
    svr = cold(data, None)
    assert report.svr_mae == pytest.approx(mean_absolute_error(truth, svr.predict(X_test)), rel=1e-9)
    f_svr = svr.predict(data.dataset.X)
    assert np.array_equal(bench.violations.svr, preferences.violation(f_svr) > 1e-6 * scale)
    assert report.ssl_violated == reference.n_violated_


def test_each_retrain_path_gives_the_cold_fit(data, rule_preferences):
    bench = Workbench(data, "lp", PARAMETERS)
    pool = data.pool
    clicks = PreferenceSet.order(pool[:5], pool[5:10])
    steps = [
        (rule_preferences, "cold"),  # the first fit
        (rule_preferences + clicks, "warm"),  # five answers
        (rule_preferences + clicks[:3], "warm"),  # two undone
        (clicks[:3], "cold"),  # the rule removed: neither an extension nor a prefix
        (PreferenceSet.empty(), "warm"),  # everything undone: SSL is SVR
    ]
    for preferences, path in steps:
        report = bench.update(preferences)
        assert (report.start == "cold") == (path == "cold"), (len(preferences), report.start)
        assert bench.ssl.preferences_ == preferences
        assert_matches_cold_fit(bench, data, preferences, report)
    assert np.allclose(bench.ssl_test, bench.svr_test, atol=1e-6 * np.std(data.y_true[data.labeled]))


def test_settings_and_unknown_models(data):
    choice = studio_models()["lp"]
    defaults = OrderPreferenceRegressor().get_params()
    assert choice.defaults() == {name: defaults[name] for name in ("gamma", "lambda1", "lambda2")}
    assert choice.settings({"lambda2": 3.0, "unrelated": 1})["lambda2"] == 3.0
    with pytest.raises(ValueError, match="no setting"):
        choice.make({"C": 1.0})
    with pytest.raises(ValueError, match="unknown model"):
        Workbench(data, "forest")
    with pytest.raises(ValueError, match="strategy"):
        Workbench(data).next_pair("closest", np.random.default_rng(0))


def test_monotone_boosting_is_measured_on_the_test_rows(data):
    from sklearn.ensemble import HistGradientBoostingRegressor

    numeric = [c for c in SAMPLE_FEATURES if c in data.numeric_features()]
    model = HistGradientBoostingRegressor(monotonic_cst=[int(c == "bedrooms") for c in numeric], random_state=0)
    model.fit(data.frame.loc[data.labeled, numeric], data.y_true[data.labeled])
    expected = mean_absolute_error(data.y_true[data.test], model.predict(data.frame.loc[data.test, numeric]))
    assert monotone_boosting_mae(data, "bedrooms") == pytest.approx(expected)
    with pytest.raises(ValueError, match="not a numeric feature"):
        monotone_boosting_mae(data, "price")


class TimeLimitedRegressor(OrderPreferenceRegressor):
    """The LP, except that a fit or change to more than ``most`` preferences stops at the time limit
    as the LP does: ``SolverTimeLimitError``, the last fit left in place."""

    most = 4

    def fit(self, X, y, preferences=None):
        if preferences is not None and len(preferences) > self.most:
            raise SolverTimeLimitError("stopped at the time limit (injected)")
        return super().fit(X, y, preferences)

    def update_preferences(self, preferences):
        if len(preferences) > self.most:
            raise SolverTimeLimitError("stopped at the time limit (injected)")
        return super().update_preferences(preferences)


def time_limited_model(key: str = "limited") -> ModelFamily:
    """The LP's family with ``TimeLimitedRegressor`` as its estimator, registered as ``key``."""
    lp = studio_models()["lp"]
    return dataclasses.replace(lp, key=key, label="LP that stops past 4 preferences", estimator=TimeLimitedRegressor)


def test_a_retrain_past_the_time_limit_keeps_the_last_fit(data, rule_preferences):
    """The last fit stays (predictions, objective), the plot data describe it on the preferences in
    force, and a later change within the limit retrains again: each against cold fits."""
    with registered(time_limited_model()):
        bench = Workbench(data, "limited", PARAMETERS)
    clicks = PreferenceSet.order(data.pool[:3], data.pool[3:6])
    assert not bench.update(clicks).timed_out
    in_force = clicks + rule_preferences
    report = bench.update(in_force)
    assert report.timed_out and report.start == "time limit" and report.fitted == 3
    assert bench.ssl.preferences_ == clicks
    last = cold(data, clicks)
    X_test, truth = data.dataset.X[data.test], data.y_true[data.test]
    assert np.allclose(bench.ssl_test, last.predict(X_test), atol=1e-6 * np.std(data.y_true[data.labeled]))
    assert report.ssl_mae == pytest.approx(mean_absolute_error(truth, last.predict(X_test)), rel=1e-6)
    assert bench.violations.ssl.shape == (len(in_force),)
    assert np.array_equal(bench.violations.ssl, last.violated(in_force))
    assert np.array_equal(bench.violations.svr, cold(data, None).violated(in_force))
    report = bench.update(clicks[:2])  # an undo back within the limit
    assert not report.timed_out and report.fitted == 2
    assert_matches_cold_fit(bench, data, clicks[:2], report)


def test_a_first_retrain_past_the_time_limit_serves_the_labels_only_fit(data, rule_preferences):
    with registered(time_limited_model()):
        bench = Workbench(data, "limited", PARAMETERS)
    report = bench.update(rule_preferences)
    assert report.timed_out and report.fitted == 0 and bench.ssl is None
    assert np.array_equal(bench.ssl_test, bench.svr_test) and report.ssl_mae == report.svr_mae
    assert np.array_equal(bench.violations.ssl, cold(data, None).violated(rule_preferences))
    a, b = bench.next_pair("margin", np.random.default_rng(0))
    assert a != b and {a, b} <= set(data.pool.tolist())


def test_a_page_reading_during_a_retrain_sees_one_retrains_violations(data, rule_preferences, monkeypatch):
    """The Pairwise page reads ``violations`` every second while retrains run in another thread (CI
    once paired the new SVR violations, of p + 1 preferences, with the old SSL ones, of p, and the page
    crashed).  What a page reads at any moment of a retrain (here: whenever a fit's ``violated`` runs)
    is of one preference set; a stale one is not tabled."""
    bench = Workbench(data, "lp", PARAMETERS)
    seen, violated = [], OrderPreferenceRegressor.violated

    def read_while_checking(model, preferences):
        seen.append(bench.violations)
        return violated(model, preferences)

    monkeypatch.setattr(OrderPreferenceRegressor, "violated", read_while_checking)
    for p in (40, 41, 40):
        bench.update(rule_preferences[:p])
    assert [None if v is None else len(v.svr) for v in seen] == [None, None, 40, 40, 41, 41]
    assert all(len(v.svr) == len(v.ssl) for v in seen if v is not None)
    names = np.array(["rule"] * 41, dtype=object)  # the last retrain was of 40: one answer it has not seen
    assert violations_by_source(bench, names).empty and not violations_by_source(bench, names[:40]).empty


def test_the_time_limit_reaches_both_fits(data):
    assert Workbench(data, "lp", PARAMETERS).svr.time_limit == DEFAULT_TIME_LIMIT
    bench = Workbench(data, "lp", PARAMETERS, time_limit=12.5)
    bench.update(PreferenceSet.order(data.pool[0], data.pool[1]))
    assert bench.svr.time_limit == bench.ssl.time_limit == 12.5


def test_the_studio_gp_fits_in_the_background_as_in_process(data):
    """The background fit's model predicts as the same fit run here; unary preferences are left out."""
    rows = data.pool[:12]
    preferences = PreferenceSet.concatenate(
        [PreferenceSet.order(rows[1:], rows[:-1]), PreferenceSet.at_least(rows[0], 1.0)]
    )
    start = start_gp_fit(data, preferences, np.random.default_rng(0))
    assert start.job.wait(120).state == "done"
    assert (start.plan.method, start.plan.n_latent, start.plan.n_pairs, start.n_available) == ("exact", 12, 11, 11)
    here = GPPreferenceModel(random_state=0).fit(data.dataset.X, PreferenceSet.order(rows[1:], rows[:-1]))
    assert np.allclose(start.job.model().predict(data.dataset.X[data.test]), here.predict(data.dataset.X[data.test]))


def test_the_studio_gp_samples_beyond_its_cap_and_refuses_before_starting(data, monkeypatch):
    import ordercore.studio.comparisons

    rows = data.pool[:40]
    preferences = PreferenceSet.order(rows[1:], rows[:-1])
    monkeypatch.setattr(ordercore.studio.comparisons, "GP_MAX_PREFERENCES", 10)
    monkeypatch.setattr(ordercore.studio.comparisons, "BackgroundFit", lambda X, sample, **options: sample)
    start = start_gp_fit(data, preferences, np.random.default_rng(0))
    assert start.plan.n_pairs == len(start.job) == 10 and start.n_available == 39
    assert set(zip(start.job.i, start.job.j, strict=True)) <= set(zip(preferences.i, preferences.j, strict=True))
    monkeypatch.setattr(ordercore.studio.comparisons, "GP_MEMORY_LIMIT_GB", 1e-9)
    monkeypatch.setattr(ordercore.studio.comparisons, "BackgroundFit", lambda *a, **k: pytest.fail("a fit started"))
    with pytest.raises(MemoryBudgetError, match="would need about"):
        start_gp_fit(data, preferences, np.random.default_rng(0))
    with pytest.raises(ValueError, match="answer a few pairs first"):
        start_gp_fit(data, PreferenceSet.at_least(rows[0], 1.0), np.random.default_rng(0))


def test_audit_pairs_come_from_the_rule_in_the_pool_never_twice_either_way(data, rule_preferences):
    """Drawing until none is left yields exactly the rule's pairs with both rows in the pool (by a
    loop over them), each once, in both orders; an answered pair is never drawn again."""
    bench = Workbench(data, "lp", PARAMETERS)
    pool = set(data.pool.tolist())
    expected = {
        frozenset((a, b))
        for a, b in zip(rule_preferences.i, rule_preferences.j, strict=True)
        if a in pool and b in pool
    }
    assert 10 < len(expected) < len(rule_preferences)  # some pairs touch labeled or test rows
    rng, answered, shown = np.random.default_rng(0), [], []
    for _ in range(len(expected) + 1):  # one more draw than there are pairs: it must find none
        pair = bench.next_rule_pair(rule_preferences, np.array(answered), rng)
        if pair is None:
            break
        shown.append(pair)
        answered.append(pair)
    assert len(shown) == len(expected) and {frozenset(pair) for pair in shown} == expected
    winners = {(int(a), int(b)) for a, b in zip(rule_preferences.i, rule_preferences.j, strict=True)}
    first_is_winner = [pair in winners for pair in shown]
    assert 0 < sum(first_is_winner) < len(shown)  # A is the rule's winner only some of the time
    assert bench.next_rule_pair(PreferenceSet.empty(), np.zeros((0, 2)), rng) is None


def test_neighbour_candidates_pair_each_row_with_one_of_its_ten_nearest_pool_rows(data):
    """Checked by brute force: every candidate's partner is among the ten pool rows closest to it in X
    (distances from all pool rows, ties allowed), and both rows are in the pool."""
    bench = Workbench(data, "lp", PARAMETERS)
    pool, X = data.pool, data.dataset.X
    pairs = bench._candidates("neighbours", 200, np.random.default_rng(1))
    assert len(pairs) > 100 and set(pairs.ravel().tolist()) <= set(pool.tolist())
    for a, b in pairs:
        distances = np.linalg.norm(X[pool] - X[a], axis=1)
        distances = distances[pool != a]
        assert np.linalg.norm(X[b] - X[a]) <= np.sort(distances)[9] + 1e-12
    assert len({frozenset(pair) for pair in pairs.tolist()}) == len(pairs)


def test_next_pairs_gives_distinct_pool_pairs_and_neighbours_are_closer_than_any(data):
    bench = Workbench(data, "lp", PARAMETERS)
    bench.update(PreferenceSet.order(data.pool[0], data.pool[1]))
    X = data.dataset.X
    gaps = {}
    for candidates in ("neighbours", "any"):
        pairs = bench.next_pairs("margin", np.random.default_rng(0), 20, candidates)
        assert pairs.shape == (20, 2) and np.all(pairs[:, 0] != pairs[:, 1])
        assert len({frozenset(pair) for pair in pairs.tolist()}) == 20
        assert set(pairs.ravel().tolist()) <= set(data.pool.tolist())
        gaps[candidates] = np.median(np.linalg.norm(X[pairs[:, 0]] - X[pairs[:, 1]], axis=1))
    assert gaps["neighbours"] < 0.5 * gaps["any"]
    with pytest.raises(ValueError, match="candidates must be one of"):
        bench.next_pairs("margin", np.random.default_rng(0), 1, "nearest")
    first = bench.next_pairs("margin", np.random.default_rng(0), 10)
    again = bench.next_pairs("margin", np.random.default_rng(0), 10, exclude=first[::2, ::-1])  # either way round
    assert len(again) == 10 and not {frozenset(pair) for pair in again.tolist()} & set(
        map(frozenset, first[::2].tolist())
    )


def test_random_pairs_never_ask_a_pair_the_answers_compare(data):
    """The default strategy drew the same candidates after a reload (the page's seed) and asked an
    expert their own first answer again, and a second annotator the pairs an import had brought: a
    pair the session's preferences compare (either way round) is never drawn again."""
    bench = Workbench(data, "lp", PARAMETERS)
    first = bench.next_pairs("random", np.random.default_rng(0), 6)
    answered = PreferenceSet.order(first[::2, 1], first[::2, 0])  # three answers, the other way round
    again = bench.next_pairs("random", np.random.default_rng(0), 6, preferences=answered)
    assert len(again) == 6 and not {frozenset(pair) for pair in again.tolist()} & set(
        map(frozenset, first[::2].tolist())
    )
    assert {frozenset(pair) for pair in first[1::2].tolist()} <= {frozenset(pair) for pair in again.tolist()}


def test_the_identifier_column_is_a_named_column_of_distinct_values():
    frame = pd.DataFrame({"home_id": [7, 8, 9], "Street Name": ["a", "b", "b"], "x": [1, 2, 3], "price": [1, 2, 3]})
    assert identifier_column(frame, ["x", "price"]) == "home_id"
    assert identifier_column(frame, ["home_id", "x", "price"]) is None  # a feature is not an identifier
    assert identifier_column(frame.assign(home_id=[7, 7, 9]), ["x"]) is None  # repeated values
    assert identifier_column(frame.assign(home_id=[7, None, 9]), ["x"]) is None  # a missing value
    assert identifier_column(frame.rename(columns={"home_id": "valid"}), ["x"]) is None  # 'id' inside a word
    assert identifier_column(frame.assign(**{"Street Name": ["a", "b", "c"]}), ["home_id"]) == "Street Name"


def test_a_column_of_distinct_codes_is_the_identifier_whatever_its_name():
    """An expert's table names its rows 'flat_ref' F-3836 …: distinct codes, not phrases, not numbers."""
    frame = pd.DataFrame(
        {
            "flat_ref": ["F-3836", "F-0112", "F-9304"],
            "note": ["sunny flat, new kitchen", "quiet street, old lift", "top floor, no lift at all"],
            "district": ["north", "south", "north"],
            "area": [41.5, 88.0, 63.2],
            "price": [1, 2, 3],
        }
    )
    assert identifier_column(frame, ["area", "price"]) == "flat_ref"
    assert identifier_column(frame, ["flat_ref", "area", "price"]) is None  # phrases, repeated categories, numbers
    assert identifier_column(frame.assign(ref_id=[5, 6, 7]), ["area", "price"]) == "ref_id"  # a name comes first
    assert identifier_column(frame.assign(flat_ref=["F-1", "F-1", "F-2"]), ["area", "price"]) is None


def test_mpmr_past_its_label_limit_is_refused_before_any_fit(data, monkeypatch):
    """More labeled rows than the Model page fits MPMR on (30 here, the limit set to 29): a ValueError
    that says what to do, and no fit started."""
    from ordercore.studio import comparisons as workbench

    monkeypatch.setattr(workbench, "MPMR_MAX_LABELS", 29)
    monkeypatch.setattr(workbench.MPMRegressor, "fit", lambda *args: pytest.fail("MPMR was fitted"))
    with pytest.raises(ValueError, match="at most 29 labeled rows.*this session has 30.*labeled budget"):
        workbench.mpmr_comparison(data, 0.5)
    monkeypatch.setattr(workbench, "MPMR_MAX_LABELS", 30)
    with pytest.raises(pytest.fail.Exception, match="MPMR was fitted"):
        workbench.mpmr_comparison(data, 0.5)


def test_expected_correction_by_hand():
    """Phi(-|d| / spread) (2 Phi(|d| / scale) - 1), from math.erf: 0 for a pair the fit cannot tell apart,
    near 0 for one it orders surely, highest between."""

    def phi(z):
        return 0.5 * (1 + math.erf(z / math.sqrt(2)))

    d, spread = np.array([0.0, -0.5, 1.0, 8.0]), np.array([1.0, 0.5, 2.0, 1.0])
    expected = [phi(-abs(a) / s) * (2 * phi(abs(a) / 1.5) - 1) for a, s in zip(d, spread, strict=True)]
    np.testing.assert_allclose(expected_correction(d, spread, 1.5), expected, rtol=1e-12, atol=1e-15)
    assert expected_correction(d, spread, 1.5)[0] == 0.0 and expected_correction(d, spread, 1.5)[3] < 1e-14


def test_the_committee_is_the_labels_model_fitted_without_each_fold(data):
    """Each member predicts as the model fitted by hand without its fold; the scale is sqrt(2) x the
    root mean square of their held-out residuals, and the spread the members' standard deviation."""
    bench = Workbench(data, "lp", PARAMETERS)
    committee = bench.committee()
    X, y = data.dataset.X, data.y_train()
    labeled = np.flatnonzero(~np.isnan(y))
    members, residuals = [], []
    for _, held_out in KFold(5, shuffle=True, random_state=0).split(labeled):
        y_fold = y.copy()
        y_fold[labeled[held_out]] = np.nan
        members.append(OrderPreferenceRegressor(**PARAMETERS).fit(X, y_fold).predict(X))
        residuals.extend(members[-1][labeled[held_out]] - y[labeled[held_out]])
    np.testing.assert_allclose(committee.predictions, members, rtol=1e-6, atol=1e-6 * np.abs(members).max())
    assert committee.scale == pytest.approx(np.sqrt(2 * np.mean(np.square(residuals))), rel=1e-6)
    pairs = data.pool[:6].reshape(3, 2)
    gaps = [[member[a] - member[b] for member in members] for a, b in pairs]
    np.testing.assert_allclose(committee.spread(pairs), np.std(gaps, axis=1), rtol=1e-6)


def test_correction_asks_the_unsettled_candidate_of_highest_expected_correction(data):
    bench = Workbench(data, "lp", PARAMETERS)
    bench.update(PreferenceSet.order(data.pool[0], data.pool[1]))
    candidates = bench._candidates("any", 400, np.random.default_rng(5))
    committee, fitted = bench.committee(), bench.ssl_all
    scores = expected_correction(
        fitted[candidates[:, 0]] - fitted[candidates[:, 1]], committee.spread(candidates), committee.scale
    )
    chosen = bench.next_pairs("correction", np.random.default_rng(5), 3, "any")
    np.testing.assert_array_equal(chosen, candidates[np.argsort(-scores, kind="stable")[:3]])


def test_gradient_boosting_on_too_few_labels_is_said_so_in_words(data):
    """New-user report 12, F8: 'Test MAE, gradient boosting 243.4' beside SVR's 65.3 on 30 labels, with no
    word.  Below 40 labels (two leaves of 20) its fit is one value for every row, seen here on the fit itself;
    above, a note comes when it is no better than the labels' median for every row (its MAE by hand)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from ordercore.studio.comparisons import boosting_note, median_mae

    numeric = data.numeric_features()
    model = HistGradientBoostingRegressor(random_state=0).fit(
        data.frame.loc[data.labeled, numeric], data.y_true[data.labeled]
    )
    assert data.labeled.size == 30 and np.ptp(model.predict(data.frame.loc[data.test, numeric])) == 0  # no split
    labels, truth = data.y_true[data.labeled], data.y_true[data.test]
    middle = np.sort(labels)[14:16].mean()  # the median of 30 values: the mean of the 15th and 16th
    assert median_mae(data) == pytest.approx(np.abs(truth - middle).mean())
    note = boosting_note(monotone_boosting_mae(data, None), median_mae(data), data.labeled.size, 1000.0)
    assert note.startswith("With 30 labels gradient boosting cannot learn: each leaf of its trees needs at least 20")
    assert "no tree splits below 40" in note
    assert boosting_note(120.0, 100.0, 200, 100.0) == (
        "Gradient boosting does no better than predicting the median of the labels for every row (test MAE 100.0): "
        "200 labels are too few for it; it needs many more than SVR does."
    )
    assert boosting_note(99.0, 100.0, 200, 1000.0) is None  # better than the median: nothing to say
    assert boosting_note(99.0, 100.0, 40, 1000.0) is None  # 40 labels: two leaves of 20, it can split
