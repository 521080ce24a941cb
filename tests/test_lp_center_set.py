"""centers='all' through a working set of centers (ordercore/lp/center_set.py) against linprog on
the LP over every candidate center, and the kept kernel sums against a dense product."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from ordercore import OrderPreferenceRegressor
from ordercore.lp import center_set
from ordercore.lp.center_set import KernelSum
from tests.test_lp import REL, center_rows, objective_from_predictions, random_problem, reference_objective, warm_edits


@pytest.fixture
def tiny_center_batches(monkeypatch):
    """Two centers let in per round, kernel sums in chunks of 50 values: many rounds and chunks."""
    monkeypatch.setattr(center_set, "CENTER_BATCH", 2)
    monkeypatch.setattr(center_set, "CHUNK_ENTRIES", 50)


@pytest.mark.parametrize(("seed", "lambda1", "unary"), [(0, 0.02, 0), (1, 0.005, 0), (2, 0.01, 4), (3, 1e-3, 0)])
def test_the_center_working_set_reaches_the_optimum_over_every_candidate(seed, lambda1, unary, tiny_center_batches):
    X, y, _, preferences = random_problem(seed, n=60, n_labeled=6, n_preferences=80, unary=unary)
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=lambda1, lambda2=3.0, centers="all").fit(X, y, preferences)
    candidates = center_rows("all", y, preferences)
    expected = reference_objective(X, y, preferences, candidates, lambda1, 3.0, 0.0, 0.4)
    assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
    assert objective_from_predictions(model, X, y, preferences) == pytest.approx(expected, rel=1e-6, abs=1e-9)
    # the machinery ran: centers beyond the labeled ones came in, and some candidates stayed out
    n_labeled = np.count_nonzero(~np.isnan(y))
    assert n_labeled < len(model.centers_) < candidates.size


def test_warm_edits_keep_the_optimum_over_every_candidate(tiny_center_batches):
    """Adds (new candidates), removes (candidates and rows that leave) and re-adds."""
    X, y, _, preferences = random_problem(5, n=60, n_labeled=6, n_preferences=160)
    rng = np.random.default_rng(5)
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=0.01, lambda2=3.0, centers="all").fit(X, y, preferences[:60])
    for current in warm_edits(model, preferences, 60, 25, 15, rng):
        expected = reference_objective(X, y, current, center_rows("all", y, current), 0.01, 3.0, 0.0, 0.4)
        assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
    assert model.solve_start_ in ("hot", "kept")


def test_a_lambda_path_prices_the_centers_again():
    """A smaller lambda1 makes rows tight that were slack: they must come in on the warm re-solve."""
    X, y, _, preferences = random_problem(6, n=60, n_labeled=6, n_preferences=80)
    model = OrderPreferenceRegressor(gamma=0.4, lambda1=0.05, lambda2=3.0, centers="all", warm_start=True)
    n_centers = []
    for lambda1 in (0.05, 0.01, 0.002):
        model.set_params(lambda1=lambda1).fit(X, y, preferences)
        expected = reference_objective(X, y, preferences, center_rows("all", y, preferences), lambda1, 3.0, 0.0, 0.4)
        assert model.objective_ == pytest.approx(expected, rel=REL, abs=1e-9)
        n_centers.append(len(model.centers_))
    assert n_centers[0] < n_centers[-1]


def test_kernel_sums_follow_changing_weights_and_candidates():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    kernel_sum = KernelSum(lambda rows, centers: rbf_kernel(X[rows], X[centers], gamma=0.5), len(X))
    nu = np.zeros(len(X))
    for step in range(8):
        changed = rng.choice(len(X), 1 if step % 2 else 15, replace=False)  # small changes and large
        nu[changed] = rng.normal(size=changed.size) * (rng.random(changed.size) < 0.7)
        candidates = np.sort(rng.choice(len(X), 25, replace=False))
        expected = rbf_kernel(X[candidates], X, gamma=0.5) @ nu
        np.testing.assert_allclose(kernel_sum(candidates, nu.copy()), expected, rtol=1e-12, atol=1e-12)
