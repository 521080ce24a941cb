"""Seed 004's experiments: the error measures, rank coding and quantile cuts by hand, and the command
on tiny Treebank-format and snippet files (the JSON's shape, and each chosen C the least CV error)."""

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

from ordercore.cli.main import main
from ordercore.experiments.npsvor import C_GRID, RESULTS, load_ordinal, ordinal_errors, quantile_ranks, rounded_ranks


def test_errors_by_hand():
    # errors 0, 1, −2, 0: MAE 3 / 4, MSE 5 / 4
    assert ordinal_errors(np.array([1, 2, 3, 5]), np.array([1, 3, 1, 5])) == {"mae": 0.75, "mse": 1.25}


def test_a_regressors_output_is_rounded_and_clipped_to_the_ranks():
    assert rounded_ranks(np.array([-0.7, 0.4, 1.6, 3.49, 9.0]), 4).tolist() == [0, 0, 2, 3, 3]


def test_quantile_cuts_by_hand():
    ranks, cuts = quantile_ranks(np.arange(1.0, 11.0), 5)  # quintiles of 1 … 10 by linear interpolation
    np.testing.assert_allclose(cuts, [2.8, 4.6, 6.4, 8.2])
    assert ranks.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    # quartiles of tied values are 1, 2, 3: the cut at the minimum would leave rank 0 empty
    ranks, cuts = quantile_ranks(np.array([1.0, 1, 1, 2, 2, 3, 3, 3]), 4)
    assert cuts.tolist() == [2.0, 3.0] and ranks.tolist() == [0, 0, 0, 1, 1, 2, 2, 2]


@pytest.fixture
def data_directory(tmp_path, monkeypatch):
    """Tiny Treebank files (50 / 20 rows, 5 labels 1 … 5, 30 sparse features from a linear score) and
    60 snippets whose words follow their rating, in ORDERCORE_DATA."""
    rng = np.random.default_rng(0)
    X = sp.random(70, 30, density=0.3, format="csr", random_state=1)
    score = X @ rng.normal(size=30) + 0.1 * rng.normal(size=70)
    labels = 1.0 + np.argsort(np.argsort(score)) * 5 // 70  # 14 rows per label
    (tmp_path / "treebank").mkdir()
    dump_svmlight_file(X[:50], labels[:50], str(tmp_path / "treebank" / "Treebank.train"))
    dump_svmlight_file(X[50:], labels[50:], str(tmp_path / "treebank" / "Treebank.test"))
    words = np.array(["awful", "bad", "plain", "good", "superb"])
    ratings = rng.uniform(-4, 4, size=60)
    texts = [f"film {words[min(int((r + 4) / 1.6), 4)]} scene {words[rng.integers(5)]} acting" for r in ratings]
    (tmp_path / "sentiment").mkdir()
    pd.DataFrame({"id": range(60), "mean_rating": ratings, "text": texts}).to_csv(
        tmp_path / "sentiment" / "movie_snippets.csv", index=False
    )
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    return tmp_path


def test_the_command_writes_each_models_errors_at_its_cross_validated_C(tmp_path, data_directory):
    out = tmp_path / "treebank.json"
    assert main(["experiments", "npsvor", "--dataset", "treebank", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result["dataset"], result["n_ranks"], result["protocol"]["C_grid"]) == ("treebank", 5, list(C_GRID))
    (trial,) = result["trials"]
    assert (trial["n_train"], trial["n_test"]) == (50, 20) and set(trial["results"]) == set(RESULTS)
    for found in trial["results"].values():
        assert found["C"] == C_GRID[int(np.argmin(found["cv_mae"]))]
        # errors of whole ranks: |e| ≤ e², both at most (K − 1)^p, and MAE a multiple of 1 / 20
        assert 0 <= found["mae"] <= found["mse"] <= 16 and found["mae"] * 20 == pytest.approx(round(found["mae"] * 20))
    assert result["summary"]["npsvor_order"]["mae_mean"] == trial["results"]["npsvor_order"]["mae"]


def test_snippets_are_cut_at_quintiles_and_split_80_20(data_directory):
    data = load_ordinal("snippets")
    ratings = pd.read_csv(data_directory / "sentiment" / "movie_snippets.csv")["mean_rating"]
    np.testing.assert_allclose(data.metadata["cut_points"], ratings.quantile([0.2, 0.4, 0.6, 0.8]))
    X, ranks, X_test, ranks_test = data.split(np.random.default_rng(0))
    assert (X.shape[0], X_test.shape[0]) == (48, 12) and sp.issparse(X) and X.shape[1] == X_test.shape[1]
    expected = np.searchsorted(ratings.quantile([0.2, 0.4, 0.6, 0.8]), ratings, side="right")
    assert sorted(np.concatenate([ranks, ranks_test])) == sorted(expected)
