"""Proxy experts (ordercore.knowledge.proxy) and seed 000's sentiment experiment (ordercore.experiments.sentiment)."""

import itertools
import json

import numpy as np
import pytest

from ordercore.cli.main import main
from ordercore.experiments.sentiment import word_presence
from ordercore.knowledge.proxy import order_pairs, pair_accuracy, proxy_preferences
from ordercore.preferences import PreferenceSet


class FixedProxy:
    """A fake proxy whose score for a row is its first column."""

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def test_order_pairs_prefer_the_higher_score_and_drop_ties_and_near_ties():
    scores = np.array([0.5, 2.0, 2.0, -1.0, 0.7])
    first, second = [0, 1, 3, 4, 2], [1, 2, 0, 0, 3]
    # (0, 1): 0.5 < 2.0 -> 1 over 0; (1, 2): a tie, none; (3, 0): -1 < 0.5 -> 0 over 3;
    # (4, 0): 0.2 apart, within 0.25, none; (2, 3): 2 > -1 -> 2 over 3
    assert order_pairs(scores, first, second, min_difference=0.25) == PreferenceSet([1, 0, 2], [0, 3, 3], 0.0, 1.0)
    # with no threshold only the exact tie makes no preference; (4, 0) becomes 4 over 0
    assert order_pairs(scores, first, second, weight=2.0) == PreferenceSet([1, 0, 4, 2], [0, 3, 0, 3], 0.0, 2.0)
    with pytest.raises(ValueError, match="min_difference"):
        order_pairs(scores, first, second, min_difference=-1.0)


def test_proxy_preferences_from_a_model_with_known_scores():
    X = np.array([[2.0], [2.0], [5.0]])  # rows 10 and 11 tie; row 12 is scored highest
    preferences = proxy_preferences(FixedProxy(), X, 60, np.random.default_rng(0), rows=np.array([10, 11, 12]))
    assert len(preferences) == 60
    assert np.all(preferences.i == 12) and set(preferences.j) == {10, 11}  # the tied pair never appears
    assert np.all(preferences.margin == 0.0) and np.all(preferences.weight == 1.0)
    again = proxy_preferences(FixedProxy(), X, 60, np.random.default_rng(0), rows=np.array([10, 11, 12]))
    assert again == preferences
    with pytest.raises(ValueError, match="separates no pair"):
        proxy_preferences(FixedProxy(), X, 5, 0, min_difference=3.0)
    with pytest.raises(ValueError, match="one score per row"):
        proxy_preferences(FixedProxy(), X, 5, 0, rows=np.arange(2))
    assert len(proxy_preferences(FixedProxy(), X, 0, 0)) == 0


def test_proxy_preferences_respect_the_threshold_on_random_scores():
    scores = np.random.default_rng(1).normal(size=(40, 1))
    preferences = proxy_preferences(FixedProxy(), scores, 300, 2, min_difference=0.5)
    assert len(preferences) == 300 and np.all(preferences.i != preferences.j)
    assert np.all(scores[preferences.i, 0] - scores[preferences.j, 0] > 0.5)


def test_pair_accuracy_against_a_brute_force_count():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=12).astype(float)  # few values: many ties
    i = rng.integers(0, 12, size=80)
    j = (i + rng.integers(1, 12, size=80)) % 12  # another row
    right = wrong = 0
    for a, b in zip(i, j, strict=True):
        if y[a] > y[b]:
            right += 1
        elif y[a] < y[b]:
            wrong += 1
    assert pair_accuracy(PreferenceSet(i, j), y) == pytest.approx(right / (right + wrong))
    assert np.isnan(pair_accuracy(PreferenceSet([0], [1]), np.array([1.0, 1.0])))


def test_word_presence_rows_sum_to_one_over_words_in_two_texts():
    texts = ["good film", "bad film", "good good plot", "nothing"]
    X = word_presence(texts).toarray()
    # vocabulary: words in at least two texts, film and good (alphabetical)
    np.testing.assert_allclose(X, [[0.5, 0.5], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])


def test_tiny_sentiment_run_from_the_command_line(data_directory, tmp_path, capsys):
    out = tmp_path / "sentiment.json"
    arguments = ["experiments", "sentiment", "--trials", "2", "--quick", "--labeled", "10", "--unlabeled", "30"]
    assert main([*arguments, "--pairs", "20", "--jobs", "2", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["experiment"] == "sentiment" and len(result["trials"]) == 2
    assert result["protocol"]["kernel"] == "linear" and result["protocol"]["min_difference"] == 0.25
    for trial in result["trials"]:
        assert trial["n_preferences"] == 20 and 0 <= trial["preference_accuracy"] <= 1
        assert trial["svr_mae"] > 0 and trial["ssl_mae"] > 0 and trial["gamma"] is None
    assert result["summary"]["n_trials"] == 2 and len(result["paper"]["rows"]) == 12
    assert result["data"]["n_snippets"] == 10605 and "proxy pair accuracy" in capsys.readouterr().out
    main(["experiments", "report", str(out)])
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("| movie_snippets | 1 | labeled | svr | 2 |")


def test_a_missing_data_file_is_one_clear_error(tmp_path, monkeypatch):
    out = tmp_path / "x.json"
    (tmp_path / "sentiment").mkdir()
    (tmp_path / "sentiment" / "movie_snippets.csv").write_text("mean_rating,text\n1.0,good\n-1.0,bad\n")
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    with pytest.raises(SystemExit, match=r"^error: ORDERCORE_DATA=.* holds no sentiment/tweets\.csv$"):
        main(["experiments", "sentiment", "--trials", "1", "--out", str(out)])
    monkeypatch.delenv("ORDERCORE_DATA")
    with pytest.raises(SystemExit, match="set ORDERCORE_DATA"):
        main(["experiments", "sentiment", "--trials", "1", "--out", str(out)])
    assert not out.exists()


def test_order_pairs_are_the_pairs_a_brute_force_orders():
    scores = np.array([0.0, 1.0, 1.1, 3.0])
    pairs = list(itertools.permutations(range(4), 2))
    made = order_pairs(scores, [a for a, _ in pairs], [b for _, b in pairs], min_difference=0.5)
    expected = [(a, b) if scores[a] > scores[b] else (b, a) for a, b in pairs if abs(scores[a] - scores[b]) > 0.5]
    assert list(zip(made.i, made.j, strict=True)) == expected


def test_flipped_proxy_preferences_are_the_same_pairs_reversed(data_directory, tmp_path):
    """The seed's sanity check: --flip reverses each pair, so on the same trial the accuracy is 1 - the
    unflipped accuracy (the ratings of a tied pair count in neither)."""
    arguments = ["experiments", "sentiment", "--trials", "1", "--quick", "--labeled", "10", "--unlabeled", "30"]
    plain, flipped = tmp_path / "plain.json", tmp_path / "flipped.json"
    main([*arguments, "--pairs", "20", "--out", str(plain)])
    main([*arguments, "--pairs", "20", "--flip", "--out", str(flipped)])
    (one,), (other,) = (json.loads(path.read_text())["trials"] for path in (plain, flipped))
    assert json.loads(flipped.read_text())["protocol"]["flip"] is True
    assert other["preference_accuracy"] == pytest.approx(1 - one["preference_accuracy"])
    assert other["svr_mae"] == one["svr_mae"]  # the same split and tuning
