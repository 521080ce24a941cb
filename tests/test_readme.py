"""The README's Python examples run as written (in order, sharing one namespace)."""

import re
from pathlib import Path

import numpy as np


def test_readme_examples_run(capsys, monkeypatch):
    root = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(root)  # the examples read sample_data/ relative to the repository
    text = (root / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)  # the project's own documentation, not user text
    # The GP example: a probability, and one suggested pair out of the three candidates.
    probability = namespace["gp"].predict_preference(namespace["X"][[0]], namespace["X"][[4]])
    assert probability.shape == (1,) and 0 < probability[0] < 1
    suggestion = namespace["gp"].suggest_pairs([[0, 3], [2, 4], [1, 2]], k=1)
    assert suggestion.shape == (1, 2) and np.isin(suggestion, [0, 1, 2, 3, 4]).all()
