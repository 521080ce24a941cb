"""``experiments session`` (ordercore.experiments.session): the Studio's loop through the session engine,
answered by a simulated expert, checked against fits built by hand from the same split."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import mean_absolute_error

from ordercore.cli.main import main
from ordercore.experiments.session import (
    LABELS_INSTEAD,
    SessionProtocol,
    SessionSource,
    average_checkpoints,
    session_report,
    session_trial,
)
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import data_settings, load_source

SEED = 1234
HOMES = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"


@pytest.fixture(scope="module")
def homes():
    frame, target, features = load_source("sample")
    return SessionSource("sample", frame, target, features)


def hand_split(homes, protocol):
    """The trial's data as the Data page makes it: (X, y on the labeled rows, the test rows, the truth)."""
    split = {"n_labeled": protocol.n_labeled, "test_fraction": protocol.test_fraction, "seed": SEED}
    _, data = data_settings(homes.frame, homes.source, homes.target, homes.features, split)
    return data.dataset.X, data.y_train(), data.test, data.y_true


def test_one_click_of_a_noise_free_expert_is_the_single_answer_fit_built_by_hand(homes):
    protocol = SessionProtocol(
        clicks=1, every=1, strategy="random", expert_noise=0.0, expert_tolerance=0.0, expert_skip=0.0, lambda2=1.0
    )
    trial = session_trial(homes, protocol, 0, SEED)
    X, y, test, truth = hand_split(homes, protocol)
    [(a, b, choice)] = trial.answers
    assert choice == ("a" if truth[a] > truth[b] else "b")  # noise-free: the truth's order
    winner, loser = (a, b) if choice == "a" else (b, a)
    svr = OrderPreferenceRegressor(lambda1=1e-3, lambda2=0.0).fit(X, y)
    ssl = OrderPreferenceRegressor(lambda1=1e-3, lambda2=1.0).fit(X, y, PreferenceSet.order(winner, loser, 0.0, 1.0))
    before, after = trial.checkpoints
    assert (before["answers"], after["answers"], after["preferences"]) == (0, 1, 1)
    assert (
        before["ssl_mae"] == before["svr_mae"] == pytest.approx(mean_absolute_error(truth[test], svr.predict(X[test])))
    )
    assert after["ssl_mae"] == pytest.approx(mean_absolute_error(truth[test], ssl.predict(X[test])), rel=1e-6)


def test_labels_instead_buys_one_label_per_label_cost_answers(homes):
    protocol = SessionProtocol(clicks=30, every=10, strategy="labels", label_cost=10)
    trial = session_trial(homes, protocol, 0, SEED)
    assert [c["labels"] for c in trial.checkpoints] == [60, 61, 62, 63]
    X, y, test, truth = hand_split(homes, protocol)
    svr = OrderPreferenceRegressor(lambda1=1e-3, lambda2=0.0).fit(X, y)
    expected = mean_absolute_error(truth[test], svr.predict(X[test]))
    assert [c["svr_mae"] for c in trial.checkpoints] == pytest.approx([expected] * 4)
    assert trial.checkpoints[0]["ssl_mae"] == pytest.approx(expected)
    assert trial.answers == []


def test_checkpoints_average_over_trials_with_a_paired_test():
    class Trial:
        def __init__(self, svr, ssl):
            self.checkpoints = [{"answers": 5, "svr_mae": svr, "ssl_mae": ssl}]

    trials = [Trial(10.0, 9.0), Trial(12.0, 11.5), Trial(8.0, 8.2)]
    [record] = average_checkpoints(trials)
    assert record["gain"] == pytest.approx(1 - (9.0 + 11.5 + 8.2) / 30.0)
    assert record["p_value"] == pytest.approx(stats.ttest_rel([10, 12, 8], [9, 11.5, 8.2]).pvalue)
    assert np.isnan(average_checkpoints(trials[:1])[0]["p_value"])


def test_the_report_says_why_an_arm_has_no_p_value():
    """'p = nan' was printed when SSL's error equalled SVR's in every trial: now the reason, by hand: equal
    errors in both trials (no difference), one trial (no test), and a p where the errors differ."""

    class Trial:
        def __init__(self, svr, ssl):
            self.checkpoints = [{"answers": 4, "svr_mae": svr, "ssl_mae": ssl}]

    def report(*pairs):
        trials = [Trial(svr, ssl) for svr, ssl in pairs]
        arm = {"trials": [{} for _ in trials], "checkpoints": average_checkpoints(trials)}
        return session_report({"arms": {"margin": arm}})

    assert report((10.0, 10.0), (12.0, 12.0)).endswith("gain +0.0% (no difference: SSL equals SVR in every trial)")
    assert report((10.0, 9.0)).endswith("gain +10.0% (one trial: no test)")
    p_value = stats.ttest_rel([10, 12, 8], [9, 11.5, 8.2]).pvalue
    assert report((10.0, 9.0), (12.0, 11.5), (8.0, 8.2)).endswith(f"(p = {p_value:.2g})")


def test_a_protocol_no_trial_can_run_is_refused():
    for bad in ({"strategy": "best"}, {"candidates": "far"}, {"clicks": 0}, {"label_cost": 0}, {"expert_noise": -1}):
        with pytest.raises(ValueError):
            SessionProtocol(**bad).check()


def test_the_command_runs_each_strategy_and_labels_instead_on_the_same_trials(tmp_path, capsys):
    out = tmp_path / "session.json"
    arguments = ["experiments", "session", "--data", str(HOMES), "--target", "price", "--clicks", "4", "--every", "2"]
    arguments += ["--trials", "2", "--strategy", "random", "margin", "--expert-accuracy", "0.8", "--out", str(out)]
    assert main(arguments) == 0
    result = json.loads(out.read_text())
    assert list(result["arms"]) == ["random", "margin", LABELS_INSTEAD]
    assert result["target"] == "price" and "home_id" not in result["features"] and "bedrooms" in result["features"]
    for arm in result["arms"].values():
        assert [c["answers"] for c in arm["checkpoints"]] == [0, 2, 4]
        assert [t["seed"] for t in arm["trials"]] == [t["seed"] for t in result["arms"]["random"]["trials"]]
    accuracies = [t["expert_accuracy"] for t in result["arms"]["random"]["trials"]]
    assert accuracies == pytest.approx([0.8, 0.8], abs=0.03)  # found for the whole table, measured on each pool
    printed = capsys.readouterr()
    assert "random: 4 answers" in printed.out and printed.err.splitlines()[-1] == f"wrote {out}"


def test_the_command_refuses_a_target_the_table_lacks(tmp_path):
    with pytest.raises(SystemExit, match="error: .*homes.csv has no column .value."):
        main(["experiments", "session", "--data", str(HOMES), "--target", "value", "--out", str(tmp_path / "r.json")])
