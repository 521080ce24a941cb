"""Seed 002's label-preference experiments (ordercore/experiments/gp_labels.py): the waveform generator
against Breiman's definition, the GP's ranking graph on a linear task, the significance flag, and the
commands end to end on tiny runs."""

import json

import numpy as np
import pytest

from ordercore import GPLabelPreferenceModel
from ordercore.cli.main import main
from ordercore.experiments.gp_labels import compare, figure3_experiment, gp_scores, waveform
from ordercore.experiments.label_svms import ranking_errors


def test_waveform_classes_mix_breimans_triangular_waves():
    X, y = waveform(30_000, np.random.default_rng(0), noise_features=2)
    assert X.shape == (30_000, 23) and set(np.unique(y)) == {0, 1, 2}
    i = np.arange(1, 22)
    h1 = np.maximum(6 - np.abs(i - 11), 0)  # Breiman et al. (1984): peaks at 11, 15 (h2), 7 (h3)
    h2, h3 = np.maximum(6 - np.abs(i - 15), 0), np.maximum(6 - np.abs(i - 7), 0)
    for label, (a, b) in enumerate([(h1, h2), (h1, h3), (h2, h3)]):  # E[u] = ½
        assert np.allclose(X[y == label, :21].mean(axis=0), (a + b) / 2, atol=0.06)
    assert np.allclose(X[:, 21:].mean(axis=0), 0, atol=0.03) and np.allclose(X[:, 21:].std(axis=0), 1, atol=0.03)


def test_gp_learns_label_rankings_from_chains():
    rng = np.random.default_rng(3)
    utility = rng.uniform(size=(4, 5))
    P = rng.dirichlet(np.ones(5), size=240)
    utilities = P @ utility.T
    model = GPLabelPreferenceModel(graph="ranking", noise=0.1).fit(P[:40], np.argsort(-utilities[:40], axis=1))
    assert np.array_equal(model.classes_, np.arange(4))
    error, spearman = ranking_errors(model.decision_function(P[40:]), utilities[40:])
    assert error < 0.1 and spearman > 0.85
    with pytest.raises(ValueError, match="once each"):
        GPLabelPreferenceModel(graph="ranking").fit(P[:3], np.array([[0, 1, 1, 2]] * 3))


def test_wilcoxon_flags_a_clear_difference_only():
    rows = [{"results": {"gp": {"e": 0.1 + 0.001 * t}, "cc_svm": {"e": 0.2 + 0.001 * t}}} for t in range(20)]
    summary = compare(rows, "e", ("gp", "cc_svm"))
    # Completely separated samples of 20: z = 5.41, p = 6e-8 (rank-sum normal approximation, by hand).
    assert summary["cc_svm"]["p_vs_gp"] == pytest.approx(6.3e-8, rel=0.05) and summary["cc_svm"]["significant"]
    assert summary["gp"]["mean"] == pytest.approx(0.1095)
    same = [{"results": {"gp": {"e": 0.1 * t}, "cc_svm": {"e": 0.1 * t}}} for t in range(20)]
    assert not compare(same, "e", ("gp", "cc_svm"))["cc_svm"]["significant"]


def test_commands_run_end_to_end(tmp_path, capsys):
    table2, figure3 = tmp_path / "t2.json", tmp_path / "f3.json"
    argv = ["experiments", "gp-table2", "--quick", "--trials", "2", "--datasets", "waveform", "--out", str(table2)]
    assert main(argv) == 0
    result = json.loads(table2.read_text())
    found = result["datasets"]["waveform"]
    assert len(found["trials"]) == 2 and found["n_classes"] == 3 and result["protocol"]["n_train"] == 60
    for model in ("gp", "pw_svm", "cc_svm"):
        assert 0 <= found["preference_error"][model]["mean"] <= found["label_error"][model]["mean"] + 1e-12 <= 1
    argv = ["experiments", "gp-figure3", "--quick", "--trials", "2", "--labels", "2", "3", "--out", str(figure3)]
    assert main(argv) == 0
    points = json.loads(figure3.read_text())["points"]
    assert [p["n_labels"] for p in points] == [2, 3] and all(len(p["trials"]) == 2 for p in points)
    assert "| 3 |" in capsys.readouterr().out


def test_figure3_linear_gp_scores_are_linear_in_the_probability_vector():
    """The seed's kernel (``gp_kernel="linear"``): each label's score is w_a·p on the raw probability
    vectors, so a least-squares fit of the test scores on P (no intercept) leaves no residual; the
    Gaussian kernel's scores leave one."""
    rng = np.random.default_rng(8)
    P = rng.dirichlet(np.ones(5), size=60)
    rankings = np.argsort(-(P @ rng.uniform(size=(3, 5)).T), axis=1)
    residuals = {}
    for kernel in ("linear", "rbf"):
        scores, chosen = gp_scores(P[:30], rankings[:30], P[30:], "ranking", 0, kernel)
        residuals[kernel] = np.linalg.lstsq(P[30:], scores, rcond=None)[1].sum() / np.sum(scores**2)
        assert (chosen["length_scale"] is None) == (kernel == "linear")
    assert residuals["linear"] < 1e-12 < 1e-6 < residuals["rbf"]
    with pytest.raises(ValueError, match="gp_kernel"):
        figure3_experiment([2], 1, gp_kernel="gaussian")


def test_figure3_command_takes_the_linear_gp(tmp_path):
    out = tmp_path / "f3.json"
    argv = ["experiments", "gp-figure3", "--quick", "--trials", "1", "--labels", "3", "--gp-kernel", "linear"]
    assert main([*argv, "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["protocol"]["gp_kernel"].startswith("linear")
    assert result["points"][0]["trials"][0]["results"]["gp"]["length_scale"] is None


@pytest.mark.parametrize(
    ("options", "grid"),
    [
        (["--quick"], [3, 3]),
        (["--quick", "--coarse", "5"], [5, 3]),
        (["--quick", "--fine", "4"], [3, 4]),
        (["--quick", "--coarse", "11", "--fine", "2"], [11, 2]),
        (["--coarse", "5"], [5, 9]),
        ([], [7, 9]),
    ],
)
@pytest.mark.parametrize("experiment", ["gp-table2", "gp-figure3"])
def test_coarse_and_fine_given_beside_quick_are_kept(tmp_path, monkeypatch, experiment, options, grid):
    """Corpus 13 E13: --quick had silently replaced a --coarse 100000 given beside it by 3 points.  The grid
    the experiment is handed is the one given, else 3 x 3 with --quick, else the seed's 7 x 9."""
    from ordercore.experiments import gp_labels

    def handed(*arguments):  # (datasets or labels, trials, seed, jobs, grid, ...)
        return {"grid": list(arguments[4])}

    for name in ("table2_experiment", "figure3_experiment"):
        monkeypatch.setattr(gp_labels, name, handed)
    for name in ("table2_report", "figure3_report"):
        monkeypatch.setattr(gp_labels, name, lambda result: "")
    out = tmp_path / "out.json"
    assert main(["experiments", experiment, *options, "--trials", "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["grid"] == grid
