"""The benchmark protocol and its command line (quick mode only: CI runs no full experiment)."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, KFold

from ordercore import OrderPreferenceRegressor
from ordercore.cli.main import main
from ordercore.data.benchmarks import load_dataset
from ordercore.experiments.protocol import Protocol, run_trial, split, summarize
from ordercore.experiments.results import norm_comparison_table
from ordercore.experiments.tuning import LAMBDA2_GRID, tune_on_labels, tune_on_preferences
from ordercore.knowledge.oracle import oracle_preferences
from ordercore.lp import TwoNormOrderPreferenceRegressor


def test_split_is_a_disjoint_partition_of_the_stated_sizes():
    labeled, unlabeled, test = split(100, 10, 30, np.random.default_rng(0))
    assert (labeled.size, unlabeled.size, test.size) == (10, 30, 60)
    assert np.array_equal(np.sort(np.concatenate([labeled, unlabeled, test])), np.arange(100))
    with pytest.raises(ValueError, match="no test points"):
        split(40, 10, 30, np.random.default_rng(0))


def test_oracle_preferences_follow_eq_14():
    y = np.array([5.0, 1.0, 3.0, 9.0, 2.0, 7.0])
    preferences = oracle_preferences(np.array([1, 2, 4, 5]), y, 200, beta=0.5, rng=0)
    assert len(preferences) == 200
    assert set(np.unique(np.r_[preferences.i, preferences.j])) <= {1, 2, 4, 5}
    assert np.all(preferences.i != preferences.j) and np.all(y[preferences.i] >= y[preferences.j])
    np.testing.assert_allclose(preferences.margin, 0.5 * (y[preferences.i] - y[preferences.j]))


@pytest.mark.parametrize("regressor", [OrderPreferenceRegressor, TwoNormOrderPreferenceRegressor])
def test_label_tuning_finds_the_grid_search_optimum(regressor):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(24, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=24)
    grid = (1e-2, 1e-1, 1.0)
    seed_rng = np.random.default_rng(7)
    gamma, lambda1, error = tune_on_labels(X, y, grid, 4, seed_rng, regressor)
    folds = KFold(4, shuffle=True, random_state=int(np.random.default_rng(7).integers(2**31)))
    search = GridSearchCV(
        regressor(lambda2=0.0),
        {"gamma": grid, "lambda1": grid},
        scoring="neg_mean_absolute_error",
        cv=folds,
    ).fit(X, y)
    assert error == pytest.approx(-search.best_score_, rel=1e-9)
    chosen = search.cv_results_["mean_test_score"][
        [k for k, p in enumerate(search.cv_results_["params"]) if p == {"gamma": gamma, "lambda1": lambda1}][0]
    ]
    assert -chosen == pytest.approx(error, rel=1e-9)


def test_summary_statistics_by_hand():
    class Trial:
        def __init__(self, svr, ssl, n, accuracy):
            self.svr_mae, self.ssl_mae = svr, ssl
            self.n_preferences, self.preference_accuracy = n, accuracy

    summary = summarize([Trial(4.0, 3.0, 10, 0.5), Trial(5.0, 3.5, 20, 0.7), Trial(4.5, 4.0, 30, np.nan)])
    # differences SVR - SSL: 1, 1.5, 0.5 (mean 1, sample std 0.5)
    assert summary["svr_mae_mean"] == pytest.approx(4.5) and summary["ssl_mae_mean"] == pytest.approx(3.5)
    assert summary["improvement"] == pytest.approx(1 - 3.5 / 4.5)
    t = 1.0 / (0.5 / np.sqrt(3))
    assert summary["t_statistic"] == pytest.approx(t)
    # two-sided p for 2 degrees of freedom, whose t CDF is 1/2 + t / (2 sqrt(2 + t^2))
    assert summary["p_value"] == pytest.approx(1 - t / np.sqrt(2 + t**2))
    assert summary["ssl_wins"] == 3
    assert summary["n_preferences_mean"] == 20 and summary["preference_accuracy_mean"] == pytest.approx(0.6)


def test_a_trial_is_reproducible_and_its_variants_share_split_and_tuning(data_directory):
    data = load_dataset("boston")
    protocol = Protocol.for_benchmark("boston", quick=True)
    [(_, first)] = run_trial(data, [("a", protocol)], 0, 11)
    [(_, again)] = run_trial(data, [("a", protocol)], 0, 11)
    assert first.svr_mae == again.svr_mae and first.ssl_mae == again.ssl_mae
    assert first.n_preferences == 1000 and first.gamma in protocol.grid and first.lambda1 in protocol.grid
    variants = run_trial(data, [("p=1000", protocol), ("p=10", replace(protocol, n_preferences=10))], 0, 11)
    (_, many), (_, few) = variants
    assert many.ssl_mae == first.ssl_mae and few.n_preferences == 10
    assert (few.svr_mae, few.gamma, few.lambda1) == (first.svr_mae, first.gamma, first.lambda1)
    with pytest.raises(ValueError, match="share l, u"):
        run_trial(data, [("a", protocol), ("b", replace(protocol, n_labeled=40))], 0, 11)


@pytest.mark.parametrize("dataset", ["boston", "abalone", "california"])
def test_quick_table1_from_the_command_line(data_directory, tmp_path, capsys, dataset):
    out = tmp_path / f"{dataset}.json"
    assert (
        main(
            [
                "experiments",
                "table1",
                "--dataset",
                dataset,
                "--trials",
                "2",
                "--quick",
                "--jobs",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    result = json.loads(out.read_text())
    assert len(result["trials"]) == 2 and result["summary"]["n_trials"] == 2
    for trial in result["trials"]:
        assert {"svr_mae", "ssl_mae", "gamma", "lambda1", "n_preferences", "ssl_seconds"} <= set(trial)
        assert trial["ssl_mae"] > 0 and trial["svr_mae"] > 0
    assert result["paper"]["ssl"][0] > 0 and result["command"].startswith("python -m ordercore experiments")
    main(["experiments", "report", str(out)])
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row.startswith(f"| {dataset} | 1 | labeled | svr | 2 |")


def test_quick_two_norm_table1_and_its_comparison_with_the_lp(data_directory, tmp_path, capsys):
    files = {norm: tmp_path / f"boston_{norm}.json" for norm in (1, 2)}
    for norm, out in files.items():
        arguments = ["experiments", "table1", "--dataset", "boston", "--trials", "3", "--quick", "--jobs", "2"]
        assert main([*arguments, "--norm", str(norm), "--out", str(out)]) == 0
    one, two = (json.loads(files[norm].read_text()) for norm in (1, 2))
    assert two["protocol"]["norm"] == 2 and [t["seed"] for t in one["trials"]] == [t["seed"] for t in two["trials"]]
    assert all(t["ssl_mae"] > 0 and t["svr_mae"] > 0 for t in two["trials"])
    assert [t["svr_mae"] for t in one["trials"]] != [t["svr_mae"] for t in two["trials"]]  # another model
    capsys.readouterr()
    main(["experiments", "compare", str(files[2]), str(files[1])])
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row == norm_comparison_table([one, two]).splitlines()[-1] and row.startswith("| boston | 3 |")


def comparison_document(norm: int, svr, ssl, seeds=(1, 2, 3)) -> dict:
    trials = [{"seed": s, "svr_mae": a, "ssl_mae": b} for s, a, b in zip(seeds, svr, ssl, strict=True)]
    return {"experiment": "table1", "dataset": "toy", "protocol": {"norm": norm, "lambda2": 1.0}, "trials": trials}


def test_norm_comparison_by_hand():
    one = comparison_document(1, [4.0, 5.0, 4.5], [3.0, 3.5, 4.0])
    two = comparison_document(2, [4.2, 5.2, 4.9], [2.0, 2.5, 3.5], seeds=(3, 2, 1))  # paired by seed, not order
    row = norm_comparison_table([two, one]).splitlines()[-1].strip("| ").split(" | ")
    assert row[:6] == ["toy", "3", "4.500 ± 0.500", "3.500 ± 0.500", "4.767 ± 0.513", "2.667 ± 0.764"]
    # by seed, SSL 2-norm is (3.5, 2.5, 2.0) against SSL 1-norm (3.0, 3.5, 4.0): differences 0.5, -1, -2
    differences = np.array([0.5, -1.0, -2.0])
    t = differences.mean() / (differences.std(ddof=1) / np.sqrt(3))
    assert row[7] == f"{1 - abs(t) / np.sqrt(2 + t**2):.1e}"  # two-sided p, 2 degrees of freedom
    with pytest.raises(ValueError, match="share their trials"):
        norm_comparison_table([one, comparison_document(2, [1, 2, 3], [1, 2, 3], seeds=(1, 2, 4))])
    with pytest.raises(ValueError, match="one 1-norm and one 2-norm"):
        norm_comparison_table([one])
    two["protocol"]["centers"], one["protocol"]["centers"] = "all", "labeled"
    with pytest.raises(ValueError, match=r"differ in \['centers'\]"):
        norm_comparison_table([one, two])


def test_the_two_norm_takes_the_seeds_tuning_only(tmp_path, capsys):
    with pytest.raises(ValueError, match="tune 'svr'"):
        Protocol.create(20, 100, tune="preferences", norm=2).check(500)
    with pytest.raises(ValueError, match="norm must be one of"):
        Protocol.create(20, 100, norm=3).check(500)
    arguments = ["experiments", "table1", "--dataset", "boston", "--norm", "3", "--out", str(tmp_path / "x.json")]
    with pytest.raises(SystemExit):
        main(arguments)
    assert "invalid choice: 3" in capsys.readouterr().err


def test_quick_figure2_writes_json_and_html(data_directory, tmp_path):
    out, figure = tmp_path / "beta.json", tmp_path / "beta.html"
    main(
        [
            "experiments",
            "figure2",
            "--dataset",
            "boston",
            "--vary",
            "beta",
            "--values",
            "0",
            "1",
            "--trials",
            "2",
            "--quick",
            "--out",
            str(out),
            "--figure",
            str(figure),
        ]
    )
    result = json.loads(out.read_text())
    assert [point["value"] for point in result["points"]] == [0.0, 1.0]
    # the same trial seeds at every value: SVR ignores beta, so its errors agree point by point
    svr = [[trial["svr_mae"] for trial in point["trials"]] for point in result["points"]]
    np.testing.assert_allclose(svr[0], svr[1], rtol=1e-9)
    assert "plotly" in figure.read_text()


def test_the_command_line_refuses_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["experiments", "table1", "--dataset", "census", "--out", str(tmp_path / "x.json")])
    with pytest.raises(SystemExit):
        main(["experiments", "table1", "--dataset", "boston", "--trials", "0", "--out", str(tmp_path / "x.json")])
    assert "'0' must be at least 1" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(SystemExit, match="cannot report"):
        main(["experiments", "report", str(tmp_path / "broken.json")])


def test_preference_tuning_picks_the_candidate_cold_fits_score_best():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    truth = np.sin(2 * X[:, 0]) + X[:, 1]
    y = np.full(60, np.nan)
    y[:8] = truth[:8]
    preferences = oracle_preferences(np.arange(8, 60), truth, 120, beta=0.5, rng=1)
    gamma, lambda1, lambda2 = tune_on_preferences(X, y, preferences, (0.9, 0.1, 3.0), 1e-2, 3, np.random.default_rng(2))
    folds = list(
        KFold(3, shuffle=True, random_state=int(np.random.default_rng(2).integers(2**31))).split(preferences.i)
    )

    def held_out_violation(g, l1, l2):
        fractions = []
        for train, held_out in folds:
            model = OrderPreferenceRegressor(gamma=g, lambda1=l1, lambda2=l2).fit(X, y, preferences[train])
            fractions.append(np.mean(model.violated(preferences[held_out])))
        return np.mean(fractions)

    scores = {
        (g, l1, l2): held_out_violation(g, l1, l2)
        for g in (0.1, 0.9, 3.0)
        for l1 in (1 / 300, 1e-2, 3e-2)
        for l2 in LAMBDA2_GRID
    }
    chosen = held_out_violation(gamma, lambda1, lambda2)
    assert chosen == pytest.approx(min(scores.values()), abs=1e-12)
    assert chosen < scores[(0.9, 1e-2, 0.1)]  # tuning beat at least the weakest preference weight


def test_rule_preferences_keep_seed_000s_scope_and_weigh_by_labeled_accuracy():
    """On the sample homes: no preference joins two labeled rows, and the accuracy weight is the
    log-odds of the rule's record on the labeled pairs, counted here by brute force."""
    import itertools
    from pathlib import Path

    import pandas as pd

    from ordercore.experiments.protocol import rule_preferences
    from ordercore.knowledge.quality import accuracy_weight
    from ordercore.knowledge.rules import Near, Ordering, Rule, Within

    frame = pd.read_csv(Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv").iloc[:400]
    price = frame["price"].to_numpy(dtype=float)
    y = np.full(len(frame), np.nan)
    labeled = np.random.default_rng(0).choice(len(frame), 80, replace=False)
    y[labeled] = price[labeled]
    rule = Rule("beds", [Near("latitude", "longitude", 3.0), Within("age", 10)], Ordering("bedrooms"))
    protocol = Protocol(n_labeled=80, n_unlabeled=320, rules=(rule.to_dict(),), rule_weights="accuracy")
    (preferences,) = rule_preferences([rule], frame, y, protocol)
    is_labeled = ~np.isnan(y)
    assert len(preferences) > 0 and not np.any(is_labeled[preferences.i] & is_labeled[preferences.j])
    correct = total = 0
    for a, b in itertools.combinations(np.flatnonzero(is_labeled), 2):
        ra, rb = frame.iloc[a], frame.iloc[b]
        close = abs(ra.age - rb.age) <= 10 and (
            3958.8
            * np.arccos(
                np.clip(
                    np.sin(np.radians(ra.latitude)) * np.sin(np.radians(rb.latitude))
                    + np.cos(np.radians(ra.latitude))
                    * np.cos(np.radians(rb.latitude))
                    * np.cos(np.radians(ra.longitude - rb.longitude)),
                    -1,
                    1,
                )
            )
            <= 3.0
        )
        if close and ra.bedrooms != rb.bedrooms:
            total += 1
            correct += (y[a] > y[b]) == (ra.bedrooms > rb.bedrooms)
    assert total > 0
    assert np.allclose(preferences.weight, accuracy_weight(correct, total))


def test_quick_bedroom_experiment_from_the_command_line(data_directory, tmp_path, capsys):
    out = tmp_path / "bedroom.json"
    assert (
        main(["experiments", "bedroom", "--trials", "2", "--quick", "--bedrooms", "per_household", "--out", str(out)])
        == 0
    )
    result = json.loads(out.read_text())
    assert result["experiment"] == "bedroom" and len(result["trials"]) == 2
    assert result["protocol"]["rules"][0]["ordering"]["column"] == "bedrooms_per_household"
    for trial in result["trials"]:
        assert trial["n_preferences"] > 100 and 0 < trial["preference_accuracy"] < 1
    assert "preferences per trial" in capsys.readouterr().out


def test_label_tuning_of_lambda2_picks_what_cold_fits_score_best():
    """The warm-started, repeated label CV chooses the lambda2 whose cold fits have the lowest mean
    held-out MAE over the same folds."""
    from ordercore.experiments.tuning import LABEL_CV_REPEATS, LABEL_LAMBDA2_GRID, tune_lambda2_on_labels

    rng = np.random.default_rng(4)
    X = rng.normal(size=(70, 2))
    truth = np.sin(2 * X[:, 0]) + X[:, 1]
    y = np.full(70, np.nan)
    y[:15] = truth[:15]
    preferences = oracle_preferences(np.arange(15, 70), truth, 150, beta=0.5, rng=1)
    chosen = tune_lambda2_on_labels(X, y, preferences, 0.5, 1e-2, 3, np.random.default_rng(7))
    seeds = np.random.default_rng(7)
    splits = [
        list(KFold(3, shuffle=True, random_state=int(seeds.integers(2**31))).split(np.arange(15)))
        for _ in range(LABEL_CV_REPEATS)
    ]

    def cv_error(lambda2):
        total = 0.0
        for folds in splits:
            for _, held_out in folds:
                y_fold = y.copy()
                y_fold[held_out] = np.nan
                model = OrderPreferenceRegressor(gamma=0.5, lambda1=1e-2, lambda2=lambda2).fit(X, y_fold, preferences)
                total += np.mean(np.abs(truth[held_out] - model.predict(X[held_out])))
        return total

    errors = [cv_error(l2) for l2 in LABEL_LAMBDA2_GRID]
    assert chosen == LABEL_LAMBDA2_GRID[int(np.argmin(errors))]


def test_a_scheduler_without_the_dask_extra_says_how_to_install_it(monkeypatch):
    """With dask.distributed unimportable (None in sys.modules), asking for a cluster names the extra."""
    import sys

    from ordercore import ClusterUnavailableError
    from ordercore.experiments.parallel import trial_backend

    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ClusterUnavailableError, match=r"pip install 'ordercore\[dask\]'"):
        with trial_backend(scheduler="tcp://127.0.0.1:8786"):
            pass


def test_rules_experiment_runs_any_rule_file_on_any_table(tmp_path, capsys):
    """Every rule of the file is a source of the trial's preferences: a file of two rules makes
    per trial the preferences of each alone, added, on the same splits (SVR identical)."""
    from ordercore.knowledge.rules import Near, Ordering, Rule

    homes = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
    richer = Rule("richer nearby", [Near("latitude", "longitude", 1.0)], Ordering("income", min_difference=30))
    bigger = Rule("bigger nearby", [Near("latitude", "longitude", 0.5)], Ordering("floor_area"))
    counts = {}
    for name, rules in (("richer", [richer]), ("bigger", [bigger]), ("both", [richer, bigger])):
        (tmp_path / f"{name}.json").write_text(json.dumps([rule.to_dict() for rule in rules]))
        out = tmp_path / f"{name}_out.json"
        arguments = ["experiments", "rules", "--data", str(homes), "--target", "price", "--labeled", "30"]
        arguments += ["--unlabeled", "300", "--rules", str(tmp_path / f"{name}.json"), "--trials", "2", "--quick"]
        assert main([*arguments, "--out", str(out)]) == 0
        result = json.loads(out.read_text())
        assert result["experiment"] == "rules" and len(result["protocol"]["rules"]) == len(rules)
        counts[name] = [(t["n_preferences"], t["svr_mae"]) for t in result["trials"]]
    for (richer_p, svr), (bigger_p, _), (both_p, both_svr) in zip(*counts.values(), strict=True):
        assert richer_p > 0 and bigger_p > 0 and both_p == richer_p + bigger_p and both_svr == svr
    assert "homes:" in capsys.readouterr().out


def test_the_rules_experiment_refuses_a_rule_that_reads_the_target(tmp_path):
    from ordercore.knowledge.rules import Near, Ordering, Rule

    homes = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
    leak = Rule("pricier", [Near("latitude", "longitude", 1.0)], Ordering("price"))
    (tmp_path / "leak.json").write_text(json.dumps(leak.to_dict()))
    arguments = ["experiments", "rules", "--data", str(homes), "--target", "price", "--labeled", "30"]
    arguments += ["--unlabeled", "300", "--rules", str(tmp_path / "leak.json"), "--out", str(tmp_path / "o.json")]
    with pytest.raises(SystemExit, match="reads the target column 'price'"):
        main(arguments)
    (tmp_path / "none.json").write_text("[]")
    with pytest.raises(SystemExit, match="at least one rule"):
        main([*arguments[:-4], "--rules", str(tmp_path / "none.json"), "--out", str(tmp_path / "o.json")])


class SlowLoopClient:
    """Stands in for ``dask.distributed.Client``: its event loop misses distributed's 10 s start
    ``stalls`` times (distributed then fails ``assert loop is not None``), then starts."""

    def __init__(self, stalls: int):
        self.stalls = stalls
        self.starts = 0

    def __call__(self, scheduler, timeout, set_as_default):
        self.starts += 1
        assert self.starts > self.stalls
        return (scheduler, timeout, set_as_default)


def test_a_dask_client_whose_loop_starts_late_once_is_started_again():
    from ordercore.experiments.parallel import connect

    client = SlowLoopClient(stalls=1)
    assert connect(client, "tcp://h:8786", 3.0) == ("tcp://h:8786", 3.0, False) and client.starts == 2


def test_a_dask_client_whose_loop_never_starts_is_one_clear_error():
    from ordercore import ClusterUnavailableError
    from ordercore.experiments.parallel import connect

    with pytest.raises(ClusterUnavailableError, match="event loop did not start"):
        connect(SlowLoopClient(stalls=5), "tcp://h:8786", 3.0)
