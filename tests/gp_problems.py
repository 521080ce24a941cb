"""Small preference problems shared by the GP tests: pairs ranked by a score, a 25-point problem with
weighted pairs (a fixture, exposed by tests/conftest.py), central differences of cold Laplace fits, and
the three-point chain worked by hand."""

import numpy as np
import pytest
import scipy.optimize
from scipy.stats import norm

from ordercore.gp.laplace import PairData


def ranked_pairs(y, n_pairs, rng):
    i, j = rng.integers(len(y), size=(2, 3 * n_pairs))
    keep = y[i] != y[j]
    i, j = i[keep][:n_pairs], j[keep][:n_pairs]
    return np.where(y[i] > y[j], i, j), np.where(y[i] > y[j], j, i)


@pytest.fixture
def small_problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 3))
    y = X[:, 0] - 0.5 * X[:, 1] ** 2
    winner, loser = ranked_pairs(y, 60, rng)
    pairs = PairData(winner, loser, rng.uniform(0.5, 2.0, winner.size), len(X))
    return X, y, pairs


def central_differences(problem, theta, step=1e-5):
    """For each hyperparameter in turn: the central differences of ln p(D) and of f̂ (cold Laplace
    fits at theta ± step)."""
    for index in range(theta.size):
        shift = np.zeros_like(theta)
        shift[index] = step
        plus, minus = problem.laplace(theta + shift)[2], problem.laplace(theta - shift)[2]
        yield (plus.log_evidence - minus.log_evidence) / (2 * step), (plus.latent - minus.latent) / (2 * step)


def three_point_chain(noise: float) -> tuple[float, float, float]:
    """Preferences 0 ≻ 1 ≻ 2 on three points whose prior is K = I, by hand: by symmetry f̂ = (a, 0, -a)
    with a = c r(c a), c = 1/(√2 σ), r = N/Φ; Λ = c² ℓ''(ca) · the path Laplacian, so the log evidence is
    2 ln Φ(ca) - a² - ½ (ln(1 + c² h) + ln(1 + 3 c² h)), h = ℓ''(ca).  Returns (a, h, log evidence)."""
    c = 1 / (np.sqrt(2) * noise)
    ratio = lambda t: norm.pdf(t) / norm.cdf(t)  # noqa: E731
    a = scipy.optimize.brentq(lambda a: a - c * ratio(c * a), 0, 10)
    z = c * a
    h = ratio(z) * (z + ratio(z))
    return a, h, 2 * norm.logcdf(z) - a**2 - 0.5 * (np.log(1 + c**2 * h) + np.log(1 + 3 * c**2 * h))
