"""A GP preference fit in a background process, with progress and cancel (the Studio's Model page).

The fit runs in a fresh Python process (``python -m ordercore.gp.background DIRECTORY``), so it
never blocks the page that started it or anyone else's session, and a cancel ends it at once, with
its memory.  Everything passes through files in the job's directory, none of them pickled: the
inputs as plain arrays (``input.npz``) and options (``options.json``); the progress after each
evidence evaluation (``progress.json``); the model as a model file (``model.npz``,
``ordercore.model_files``) or the error (``error.json``).  The page polls ``status()``.  (A
multiprocessing child would re-import the parent's main module, under Streamlit the app itself.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ordercore.gp.estimator import GPPreferenceModel
from ordercore.model_files import read_model
from ordercore.preferences import PreferenceSet

STATES = ("running", "done", "failed", "cancelled")


@dataclass(frozen=True)
class FitStatus:
    """Where a background fit stands: state (one of ``STATES``), evidence evaluations so far, the best
    log evidence (plus log prior) met, seconds since the start, and the error message if it failed."""

    state: str
    evaluations: int
    log_evidence: float
    seconds: float
    message: str = ""


def _write_json(path: Path, document: dict) -> None:
    """``document`` to ``path``, replaced whole (a reader never sees half a file)."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(document))
    os.replace(partial, path)


def _fit(directory: Path) -> None:
    """The child process: read the inputs, fit writing progress.json as it goes, then model.npz or
    error.json."""
    try:
        with np.load(directory / "input.npz", allow_pickle=False) as arrays:
            X = arrays["X"]
            preferences = PreferenceSet(arrays["i"], arrays["j"], arrays["margin"], arrays["weight"])
        model = GPPreferenceModel(**json.loads((directory / "options.json").read_text()))
        model.fit(
            X,
            preferences,
            progress=lambda evaluations, value: _write_json(
                directory / "progress.json", {"evaluations": evaluations, "log_evidence": value}
            ),
        )
        model.save(directory / "model.npz")
    except Exception as error:  # noqa: BLE001 - every failure is reported to the page, not lost
        _write_json(directory / "error.json", {"message": f"{type(error).__name__}: {error}"})


class BackgroundFit:
    """``GPPreferenceModel(**options).fit(X, preferences)`` in a background process, started at once.

    X : (n, n_features); preferences : PreferenceSet over rows of X.  Check the fit's size first
    (``GPPreferenceModel.fit_plan``): this class only runs it.
    """

    def __init__(self, X: np.ndarray, preferences: PreferenceSet, **options):
        self.directory = Path(tempfile.mkdtemp(prefix="ordercore-gp-fit-"))
        self.started = time.monotonic()
        self._ended: FitStatus | None = None  # the status, frozen once the fit has ended
        self._model = None
        np.savez(
            self.directory / "input.npz",
            X=np.asarray(X, dtype=np.float64),
            i=preferences.i,
            j=preferences.j,
            margin=preferences.margin,
            weight=preferences.weight,
        )
        (self.directory / "options.json").write_text(json.dumps(options))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ordercore.gp.background", str(self.directory)],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def status(self) -> FitStatus:
        """The fit's state now (never waits); once it has ended, the same status every time (its
        seconds and evaluations as they were at the end)."""
        if self._ended is not None:
            return self._ended
        seconds = time.monotonic() - self.started
        progress = self._read("progress.json") or {"evaluations": 0, "log_evidence": np.nan}
        counts = (progress["evaluations"], progress["log_evidence"], seconds)
        if self.process.poll() is None:
            return FitStatus("running", *counts)
        if (self.directory / "model.npz").exists():
            self._ended = FitStatus("done", *counts)
        elif (error := self._read("error.json")) is not None:
            self._ended = FitStatus("failed", *counts, message=error["message"])
        else:
            message = f"the fit's process ended unexpectedly (exit code {self.process.returncode})"
            self._ended = FitStatus("failed", *counts, message=message)
        return self._ended

    def wait(self, timeout: float | None = None) -> FitStatus:
        """Block until the fit ends or ``timeout`` seconds pass, then its status (for scripts and tests)."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        return self.status()

    def model(self) -> GPPreferenceModel:
        """The fitted model, once ``status().state == 'done'`` (read once, then the files are removed)."""
        if self._model is None:
            if self.status().state != "done":
                raise RuntimeError("the background fit has not finished")
            self._model = read_model(self.directory / "model.npz").estimator
            shutil.rmtree(self.directory, ignore_errors=True)
        return self._model

    def cancel(self) -> None:
        """Stop the fit now (its process ends, its memory with it) and remove its files."""
        if self._ended is None:
            running = self.status()
            self._ended = FitStatus("cancelled", running.evaluations, running.log_evidence, running.seconds)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _read(self, name: str) -> dict | None:
        try:
            return json.loads((self.directory / name).read_text())
        except (OSError, ValueError):
            return None


if __name__ == "__main__":
    _fit(Path(sys.argv[1]))
