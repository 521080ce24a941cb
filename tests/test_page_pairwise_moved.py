"""AppTests of Pairwise's "Model moved" (issue 33, item 3): one sentence says what moved the model, or
why nothing did (a new user read it jump between 0 and 13.79 without a word).  Which way the fit orders
a pair is read from its predictions before the answer, by hand."""

import numpy as np

from tests.studio_app import engine, metric, pairs_sent, press

MOVED = "Model moved (price, mean |Δ| on test rows)"  # in the sample homes' target (a new user read 0.166 unitless)


def clearest_pair(at) -> tuple[int, int]:
    """Of the pairs sent to the browser, the one SSL's last fit orders by the widest gap."""
    predictions = engine(at).models.workbench.ssl_all
    targets = [tuple(entry["target"]) for entry in pairs_sent(at)]
    return max(targets, key=lambda pair: abs(predictions[pair[0]] - predictions[pair[1]]))


def answer(at, pair, agree: bool):
    """Answer ``pair`` with the side SSL predicts higher (``agree``) or the other, and wait for the retrain."""
    predictions = engine(at).models.workbench.ssl_all
    higher_is_a = predictions[pair[0]] > predictions[pair[1]]
    press(at, "a" if higher_is_a == agree else "b", pair)
    engine(at).wait()
    return at.run()


def captions(at) -> list[str]:
    return [caption.value for caption in at.caption]


def test_model_moved_says_an_answer_the_fit_already_agreed_with_moved_nothing_and_one_against_it_moved_it(ready):
    engine(ready).set_model(automatic_trust=False)  # no reassessment in between: the answers alone move it
    at = ready.switch_page("app_pages/pairwise.py").run()
    engine(at).wait()
    at.run()
    at = answer(at, clearest_pair(at), agree=True)
    assert not at.exception and metric(at, MOVED) == "0"
    moved = next(m for m in at.metric if m.label == MOVED)
    assert "in price, the target's units" in moved.proto.help, moved.proto.help  # a new user: moved by 0.4 what?
    said = "Nothing moved: the fit already ordered the newest answer that way, so it had nothing to correct."
    assert said in captions(at), captions(at)
    at = answer(at, clearest_pair(at), agree=False)
    assert metric(at, MOVED) != "0" and engine(at).models.last()["moved"] > 0
    assert any(c.startswith("Moved by the latest change of the preferences") for c in captions(at)), captions(at)
    assert np.isfinite(engine(at).models.last()["moved"])


class Fit:
    """A fit that orders the rows as ``scores`` do (row i above j by at least the margin: not violated)."""

    def __init__(self, scores):
        self.scores = np.asarray(scores, dtype=float)

    def violated(self, preferences):
        return self.scores[preferences.i] - self.scores[preferences.j] < preferences.margin


def test_a_retrains_cause_by_hand():
    from ordercore.preferences import PreferenceSet
    from ordercore.studio.model_moves import RetrainCause

    before = PreferenceSet([0], [1], 0.0, 1.0)
    fit = Fit([3.0, 2.0, 1.0, 0.0])  # orders 0 > 1 > 2 > 3
    agreed = PreferenceSet([0, 2], [1, 3], 0.0, 1.0)  # the new 2 over 3: as the fit orders them
    cause = RetrainCause.between(before, agreed, False, fit, None)
    assert (cause.preferences, cause.trust, cause.added, cause.kept) == (True, False, 1, 1)
    assert cause.words("0").startswith("Nothing moved: the fit already ordered the newest answer that way")
    against = PreferenceSet([0, 3], [1, 2], 0.0, 1.0)
    assert RetrainCause.between(before, against, False, fit, None).kept == 0
    weightless = RetrainCause.between(before, against, False, fit, np.array([1.0, 0.0]))
    assert weightless.words("0").startswith("Nothing moved: the newest preferences weigh 0")
    # a new assessment with no new answer: what moved it is said, with when it came into force
    reassessed = RetrainCause(False, True, finished=0.0)
    assert reassessed.words("13.79") == (
        "Moved by automatic trust's new assessment, in force at 00:00:00 UTC (not an answer alone)."
    )
    undone = RetrainCause.between(agreed, before, False, fit, None)  # an undo: fewer preferences
    assert undone.preferences and undone.added == 0
    assert undone.words("1.57").startswith("Moved by the latest change of the preferences")
    assert RetrainCause.between(before, before, False, fit, None).words("0") == ""  # a setting, nothing moved
