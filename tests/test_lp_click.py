"""A click's fast paths (docs/LP.md, "A click at 500,000 preferences") against cold fits: a re-solve
that keeps the last optimal basis prices only the preferences added since (f has not moved, so every
other shortfall and verdict still holds), and the blend passes each member the whole new set."""

import pickle

import numpy as np
import pytest

from ordercore import OrderPreferenceRegressor, PreferenceSet
from ordercore.lp import AveragedOrderPreferenceRegressor, working_set
from ordercore.lp.preference_columns import PreferenceColumns
from ordercore.lp.solution import CERTIFICATE_TOLERANCE
from ordercore.lp.working_set import FIXED, OUT, WORKING
from tests.test_lp import reference_objective
from tests.test_lp_path import tiny_working_set  # noqa: F401 (a fixture)
from tests.test_lp_preference_columns import f_at, setting
from tests.test_lp_working_set import problem_with

pytestmark = pytest.mark.usefixtures("tiny_working_set")


@pytest.fixture
def priced_from(monkeypatch):
    """The ``first`` of every ``PreferenceColumns.shortfall`` call: 0 prices every preference."""
    calls, shortfall = [], PreferenceColumns.shortfall

    def recorded(self, row_dual, first=0):
        calls.append(first)
        return shortfall(self, row_dual, first)

    monkeypatch.setattr(PreferenceColumns, "shortfall", recorded)
    return calls


def cold(X, y, preferences, lambda2=2.0):
    return OrderPreferenceRegressor(gamma=0.4, lambda1=0.1, lambda2=lambda2).fit(X, y, preferences)


def assert_cold_fit(model, X, y, preferences, lambda2=2.0):
    """Objective (9) within the certificate's tolerance of a cold fit's and of linprog's; predictions
    within 1e-8 of the cold fit's, relative to their largest."""
    expected = cold(X, y, preferences, lambda2)
    scale = expected._lp.scaling.scale
    tolerance = CERTIFICATE_TOLERANCE * max(scale, abs(expected.objective_))
    assert abs(model.objective_ - expected.objective_) <= tolerance
    labeled = np.flatnonzero(~np.isnan(y))
    linprog = reference_objective(X, y, preferences, labeled, 0.1, lambda2, 0.0, 0.4)
    assert model.objective_ == pytest.approx(linprog, rel=1e-7, abs=1e-9)
    predictions = expected.predict(X)
    np.testing.assert_allclose(model.predict(X), predictions, rtol=0, atol=1e-8 * np.abs(predictions).max())
    np.testing.assert_array_equal(model.violated_, expected.violated_)


def satisfied(model, X, rows, by):
    """Preferences (a, b) over ``rows`` (k, 2) that the fit holds with room ``by`` (one per pair, ordered)."""
    f = model.predict(X)
    first_higher = f[rows[:, 0]] >= f[rows[:, 1]]
    i, j = np.where(first_higher, rows[:, 0], rows[:, 1]), np.where(first_higher, rows[:, 1], rows[:, 0])
    return PreferenceSet(i, j, f[i] - f[j] - by, 1.0)


def test_a_click_that_changes_nothing_prices_only_the_new_preferences(priced_from):
    """Ten preferences the fit holds with room to spare (more than one batch: they arrive OUT and are
    priced): the basis stays optimal, only they are priced, and the fit is the cold one."""
    X, y, preferences = problem_with(12, "mixed", unary=10)
    model = cold(X, y, preferences)
    rng = np.random.default_rng(12)
    added = satisfied(model, X, rng.choice(len(X), (10, 2), replace=False), by=1.0)
    before = model.predict(X)
    priced_from.clear()
    model.add_preferences(added)
    assert model.solve_start_ == "kept" and priced_from == [len(preferences)]
    assert (model._lp.working.state[len(preferences) :] == OUT).all()
    np.testing.assert_array_equal(model.predict(X), before)
    assert_cold_fit(model, X, y, preferences + added)


def test_a_click_that_moves_the_fit_prices_every_preference(priced_from):
    """Ten preferences far out of the fit's reach, then an undo of them: f moves, so every preference
    is priced again, and each fit is the cold one."""
    X, y, preferences = problem_with(8, "mixed", unary=10)
    model = cold(X, y, preferences)
    rng = np.random.default_rng(8)
    added = satisfied(model, X, rng.choice(len(X), (10, 2), replace=False), by=-4.0)
    priced_from.clear()
    model.add_preferences(added)
    assert model.solve_start_ == "hot" and 0 in priced_from
    assert (model._lp.working.state[len(preferences) :] != OUT).any()
    assert_cold_fit(model, X, y, preferences + added)
    model.remove_preferences(np.arange(len(preferences), len(preferences) + 10))
    assert_cold_fit(model, X, y, preferences)


def test_an_undo_that_keeps_the_basis_prices_nothing(priced_from):
    """A satisfied preference added and taken back: both keep the basis; the undo reuses every
    shortfall (those of the preferences left, in their new places)."""
    X, y, preferences = problem_with(11, "mixed", unary=10)
    model = cold(X, y, preferences)
    assert {OUT, FIXED} <= set(model._lp.working.state)
    added = satisfied(model, X, np.array([[3, 40]]), by=2.0)
    model.add_preferences(added)
    priced_from.clear()
    model.remove_preferences([0, len(preferences)])  # the first and the new one: shortfalls shift
    assert model.solve_start_ == "kept" and priced_from == [len(preferences) - 1]
    assert_cold_fit(model, X, y, preferences[1:])


def test_pricing_from_the_first_new_preference_finds_what_pricing_all_finds():
    """Old preferences priced right (OUT and satisfied, FIXED and violated, or working), new ones
    anything: pricing the new ones alone lets in and fixes exactly what pricing every one does."""
    rng = np.random.default_rng(3)
    old = working_set.WorkingSet.start(300, 5)
    old.state[:] = rng.choice([OUT, FIXED, WORKING], 300)
    shortfall = np.where(old.state == OUT, -1.0, 1.0) * rng.uniform(0.1, 2.0, 300)
    old.append(40)  # 40 new ones, columns at once
    old.state[300:] = rng.choice([OUT, FIXED], 40)
    shortfall = np.concatenate([shortfall, rng.normal(size=40)])
    every, new = old.copy(), old.copy()
    expected = every.priced_wrong(shortfall, 5)
    assert expected[0].size  # some new ones are wrong
    for found, wanted in zip(new.priced_wrong(shortfall, 5, first=300), expected, strict=True):
        np.testing.assert_array_equal(found, wanted)
    np.testing.assert_array_equal(new.comebacks, every.comebacks)


@pytest.mark.parametrize("first", [2, 5, 7])
def test_the_shortfalls_of_the_new_preferences_are_the_kernel_sums_written_out(first):
    """From 2: a unary preference among them (alpha_0 counts); from 7: one pair, whose two rows alone
    are multiplied (``KernelRowCache.dot``)."""
    X, centers, preferences, _, columns = setting()
    row_dual = np.array([0.3, 1.5, -0.7, 0.4])
    expected = [
        d - (f_at(X, centers, row_dual, i) - f_at(X, centers, row_dual, j))
        for d, i, j in zip(columns.margins[first:], preferences.i[first:], preferences.j[first:], strict=True)
    ]
    np.testing.assert_allclose(columns.shortfall(row_dual, first), expected, rtol=1e-12, atol=1e-14)


def test_an_edit_after_a_pickle_round_trip_prices_every_preference(priced_from):
    """Unpickled, the LP has no HiGHS instance: an undo solves cold, over the preferences left."""
    X, y, preferences = problem_with(11, "mixed", unary=10)
    model = pickle.loads(pickle.dumps(cold(X, y, preferences)))
    priced_from.clear()
    model.remove_preferences([0])
    assert model.solve_start_ == "cold" and set(priced_from) == {0}
    assert_cold_fit(model, X, y, preferences[1:])


SETTINGS, WEIGHTS = ((0.3, 0.0), (0.1, 0.3), (0.1, 2.0), (0.1, 8.0)), (0.1, 0.3, 0.3, 0.3)


def cold_blend(X, y, preferences) -> np.ndarray:
    """The blend's predictions (n,) from cold fits of its members, SVR's without preferences."""
    expected = WEIGHTS[0] * OrderPreferenceRegressor(gamma=0.4, lambda1=0.3, lambda2=0.0).fit(X, y).predict(X)
    for weight, (_, lambda2) in zip(WEIGHTS[1:], SETTINGS[1:], strict=True):
        expected += weight * cold(X, y, preferences, lambda2).predict(X)
    return expected


@pytest.mark.parametrize("by", [2.0, -4.0])
def test_a_click_on_the_blend_is_the_blend_of_cold_fits(by, priced_from):
    """by = 2: a preference every member holds (each keeps its basis and prices it alone); by = -4: one
    out of reach (members move).  Each member and the blend's violations are those of cold fits."""
    X, y, preferences = problem_with(10, "mixed", unary=10)
    blend = AveragedOrderPreferenceRegressor(settings=SETTINGS, weights=WEIGHTS, gamma=0.4).fit(X, y, preferences)
    added = satisfied(blend, X, np.array([[5, 31]]), by=by)
    now = preferences + added
    priced_from.clear()
    blend.update_preferences(now)
    members = blend.members_[1:]
    if by > 0:
        assert [m.solve_start_ for m in members] == ["kept"] * 3 and priced_from == [len(preferences)] * 3
    else:
        assert "hot" in [m.solve_start_ for m in members]
    for member in members:
        assert_cold_fit(member, X, y, now, member.lambda2)
    expected = cold_blend(X, y, now)
    np.testing.assert_allclose(blend.predict(X), expected, rtol=0, atol=1e-8 * np.abs(expected).max())
    np.testing.assert_array_equal(blend.violated_, now.violated(expected, blend._target_scale))
