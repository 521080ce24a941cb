"""A GP preference fit in a background process, with progress and cancel (the Studio's Model page).

The job (``ordercore.studio.jobs.process``) runs ``python -m ordercore.studio.jobs.gp DIRECTORY``: the inputs
are X and the preferences' columns, the options ``GPPreferenceModel``'s, the progress the evidence
evaluations so far, the most the search makes (``ordercore.gp.evidence.MAX_EVALUATIONS``) and the best
log evidence, and the result a model file (``ordercore.models.files``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ordercore.gp.estimator import GPPreferenceModel
from ordercore.gp.evidence import MAX_EVALUATIONS
from ordercore.models.files import read_model
from ordercore.preferences import COLUMNS, PreferenceSet
from ordercore.studio.jobs.process import BackgroundJob, JobStatus, run


class FitStatus(JobStatus):
    """A background fit's ``JobStatus``, with the evidence evaluations so far, the most the search
    makes, and the best log evidence (plus log prior) met."""

    @property
    def evaluations(self) -> int:
        return self.progress.get("evaluations", 0)

    @property
    def most_evaluations(self) -> int:
        return self.progress.get("most_evaluations", MAX_EVALUATIONS)

    @property
    def log_evidence(self) -> float:
        return self.progress.get("log_evidence", np.nan)


def _fit(inputs: dict, options: dict, progress, result: Path) -> None:
    """The child process: fit, reporting after each evidence evaluation, and save the model to ``result``."""
    preferences = PreferenceSet(*(inputs[name] for name in COLUMNS))
    model = GPPreferenceModel(**options)
    model.fit(
        inputs["X"],
        preferences,
        progress=lambda evaluations, value: progress(
            evaluations=evaluations, most_evaluations=MAX_EVALUATIONS, log_evidence=value
        ),
    )
    model.save(result)


class BackgroundFit(BackgroundJob):
    """``GPPreferenceModel(**options).fit(X, preferences)`` in a background process, started at once.

    X : (n, n_features); preferences : PreferenceSet over rows of X.  Check the fit's size first
    (``GPPreferenceModel.fit_plan``): this class only runs it.
    """

    module = "ordercore.studio.jobs.gp"
    prefix = "ordercore-gp-fit-"
    Status = FitStatus

    def __init__(self, X: np.ndarray, preferences: PreferenceSet, **options):
        columns = {name: getattr(preferences, name) for name in COLUMNS}
        super().__init__({"X": np.asarray(X, dtype=np.float64)} | columns, options)

    def model(self) -> GPPreferenceModel:
        """The fitted model, once ``status().state == 'done'`` (read once, then the files are removed)."""
        return self.result()

    def _read_result(self, path: Path) -> GPPreferenceModel:
        return read_model(path).estimator


if __name__ == "__main__":
    run(Path(sys.argv[1]), _fit)
