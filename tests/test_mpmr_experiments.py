"""Seed 003's experiments and the coverage estimates beyond it: hand-computed conformal levels, the
Clopper–Pearson bound's confidence by simulation, cross-validated coverage against the closed-form
leave-one-out residuals of least squares, the data each experiment draws, and the commands."""

import json

import numpy as np
import pytest

from ordercore import MPMRegressor
from ordercore.cli.main import main
from ordercore.experiments.mpmr import BOSTON_TRAIN, BostonData, report, sinc, sinc_sample
from ordercore.mpmr.coverage import conformal_level, conformal_lower_bound, cross_validated_coverage


def test_conformal_level_by_hand():
    residuals = np.array([0.1, -0.3, 0.5, 2.0])  # |r| within 0.3: two; within 1.0: three; of n + 1 = 5
    np.testing.assert_allclose(conformal_level(residuals, [0.05, 0.3, 1.0]), [0.0, 0.4, 0.6])


def test_conformal_lower_bound_by_hand_and_by_simulation():
    # all n within: the Clopper–Pearson lower bound solves p^n = 1 - confidence
    assert conformal_lower_bound(np.zeros(4), [1.0], 0.9)[0] == pytest.approx(0.1 ** (1 / 4))
    assert conformal_lower_bound(np.ones(4), [0.5], 0.9)[0] == 0.0
    # the bound is at most the true coverage in at least 90 % of calibration sets
    rng = np.random.default_rng(0)
    residuals = np.abs(rng.normal(size=(4000, 50)))
    true_coverage = 0.6826894921370859  # P(|Z| <= 1)
    bounds = np.array([conformal_lower_bound(r, [1.0], 0.9)[0] for r in residuals])
    assert np.mean(bounds <= true_coverage) >= 0.9


def test_cross_validated_coverage_is_the_leave_one_out_share_for_least_squares():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = X @ [1.0, -1.0] + rng.standard_t(3, size=30)
    design = np.column_stack([np.ones(30), X])
    hat = design @ np.linalg.solve(design.T @ design, design.T)
    loo = (y - hat @ y) / (1 - np.diag(hat))  # leave-one-out residuals of least squares, in closed form
    epsilons = [0.5, 1.0, 2.0]
    expected = [np.mean(np.abs(loo) <= e) for e in epsilons]
    estimator = MPMRegressor(kernel="linear", rho=0.0)
    np.testing.assert_allclose(cross_validated_coverage(estimator, X, y, epsilons, folds=30), expected)


@pytest.mark.parametrize("noise", ["gaussian", "t3"])
def test_sinc_sample_draws_the_stated_noise(noise):
    x, y = sinc_sample(200_000, 0.5, np.random.default_rng(2), noise)
    assert x.shape == (200_000, 1) and -3 <= x.min() and x.max() <= 3
    assert np.std(y - sinc(x[:, 0])) == pytest.approx(0.5, rel=0.03)
    assert sinc(np.array([0.0, 1.0, 0.5]))[0] == 1.0
    np.testing.assert_allclose(sinc(np.array([1.0, 0.5])), [0.0, np.sin(np.pi / 2) / (np.pi / 2)], atol=1e-15)
    with pytest.raises(ValueError, match="noise"):
        sinc_sample(3, 0.5, np.random.default_rng(0), "cauchy")


def test_boston_splits_are_481_and_25_scaled_by_the_training_rows(data_directory):
    data = BostonData.load()
    X, y, X_test, y_test = data.split(np.random.default_rng(3))
    assert X.shape == (BOSTON_TRAIN, 13) and X_test.shape == (25, 13)
    np.testing.assert_allclose(X.min(axis=0), 0.0)
    np.testing.assert_allclose(X.max(axis=0), 1.0)
    assert sorted(np.concatenate([y, y_test])) == sorted(data.y)


@pytest.mark.parametrize("experiment", ["mpmr-sinc", "mpmr-boston", "mpmr-coverage"])
def test_the_commands_write_per_trial_json_and_print_the_tables(tmp_path, capsys, data_directory, experiment):
    out = tmp_path / "result.json"
    assert main(["experiments", experiment, "--trials", "2", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["experiment"] == experiment and result["command"].startswith("python -m ordercore experiments")
    printed = capsys.readouterr().out
    assert report(result) in printed
    if experiment == "mpmr-sinc":
        assert [len(row["trials"]["omega"]) for row in result["table1"]] == [2, 2, 2, 2]
    if experiment == "mpmr-boston":
        assert [row["epsilon"] for row in result["table2"]] == [0.1, *map(float, range(1, 11))]
    if experiment == "mpmr-coverage":
        assert set(result["settings"]) == {"sinc-gaussian", "sinc-t3", "boston"}


def test_a_bad_trial_count_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        main(["experiments", "mpmr-sinc", "--trials", "0", "--out", str(tmp_path / "x.json")])
    assert not (tmp_path / "x.json").exists()
