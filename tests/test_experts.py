"""The simulated expert (ordercore.knowledge.experts) against closed forms computed here: Thurstone's
answer probabilities from math.erf, the answer rates they predict, and the accuracy of an expert on
Gaussian targets, 1/2 + arcsin(rho) / pi with rho = 1 / sqrt(1 + noise^2) (the probability that two
correlated Gaussians share a sign)."""

import math

import numpy as np
import pytest

from ordercore.knowledge.experts import ProbitExpert, noise_for_accuracy


def phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


@pytest.mark.parametrize("difference", [-1.5, -0.2, 0.0, 0.3, 2.0])
def test_answer_rates_match_the_probit_closed_form(difference):
    expert, n = ProbitExpert(noise=0.8, tolerance=0.25, skip=0.1), 200_000
    answers = expert.answer(np.full(n, difference), np.zeros(n), np.random.default_rng(3))
    spread = 0.8 * math.sqrt(2)
    p_a = 0.9 * phi((difference - 0.25) / spread)
    p_b = 0.9 * phi((-difference - 0.25) / spread)
    expected = {"a": p_a, "b": p_b, "equal": 0.9 - p_a - p_b, "skip": 0.1}
    for choice, p in expected.items():
        rate = np.mean(answers == choice)
        assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-12, (choice, rate, p)
    assert np.allclose(expert.probabilities([difference])[0], list(expected.values()))


def test_accuracy_on_gaussian_targets_is_the_sign_agreement_of_correlated_gaussians():
    y = np.random.default_rng(0).standard_normal(50_000)
    for noise in (0.3, 0.7, 1.5):
        closed = 0.5 + math.asin(1 / math.sqrt(1 + noise**2)) / math.pi
        assert ProbitExpert.relative(y, noise).accuracy(y) == pytest.approx(closed, abs=0.006)


def test_noise_for_accuracy_inverts_the_closed_form():
    y = np.random.default_rng(1).standard_normal(50_000)
    found = noise_for_accuracy(y, 0.8)
    closed = math.sqrt(1 / math.sin(math.pi * 0.3) ** 2 - 1)  # arcsin(rho) = 0.3 pi
    assert found == pytest.approx(closed, rel=0.03)
    assert ProbitExpert.relative(y, found).accuracy(y) == pytest.approx(0.8, abs=1e-6)


def test_a_noise_free_expert_is_always_right_and_says_equal_within_the_tolerance():
    expert = ProbitExpert(noise=0.0, tolerance=1.0)
    answers = expert.answer([5.0, 0.0, 0.5, -3.0], [0.0, 5.0, 0.0, 0.0], np.random.default_rng(0))
    assert answers.tolist() == ["a", "b", "equal", "b"]
    assert ProbitExpert(0.0).accuracy(np.arange(100.0)) == 1.0


@pytest.mark.parametrize(
    "arguments", [{"noise": -1}, {"noise": float("nan")}, {"noise": 1, "tolerance": -0.1}, {"noise": 1, "skip": 1}]
)
def test_bad_parameters_are_refused(arguments):
    with pytest.raises(ValueError):
        ProbitExpert(**arguments)
