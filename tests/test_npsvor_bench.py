"""bench/npsvor_bench.py's reader of the authors' model files, on hand-written files."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "npsvor_bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("npsvor_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODEL = (
    "solver_type L2R_NPSVOR\nnr_class 3\nlabel 1 2 3\nnr_feature 2\nbias {bias}\nmethod 1\n"
    + "w\n0.5 -1 2 \n0.25 0 -3 \n{last}"
)
"""An authors' model file as their save_model writes it (each row of w ends in a space)."""


def test_their_weights_with_a_bias_feature_pad_absent_features_and_scale_the_bias_row(bench, tmp_path):
    model = tmp_path / "m.model"
    model.write_text(MODEL.format(bias="2", last="1.5 2.5 -0.5 \n"))
    w, b = bench.their_weights(model, 4)
    # rank k's w is column k of the rows after "w"; features 3 and 4 are absent from the file
    np.testing.assert_array_equal(w, [[0.5, 0.25, 0, 0], [-1, 0, 0, 0], [2, -3, 0, 0]])
    np.testing.assert_array_equal(b, [3.0, 5.0, -1.0])  # 2 × the bias feature's row


def test_their_weights_without_bias_keep_every_row_as_a_feature(bench, tmp_path):
    model = tmp_path / "m.model"
    model.write_text(MODEL.format(bias="-1", last="1.5 2.5 -0.5 \n"))
    w, b = bench.their_weights(model, 3)
    np.testing.assert_array_equal(w, [[0.5, 0.25, 1.5], [-1, 0, 2.5], [2, -3, -0.5]])
    np.testing.assert_array_equal(b, [0.0, 0.0, 0.0])
