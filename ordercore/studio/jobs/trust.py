"""Automatic trust (``trust.assess_sources``) in a background process, with progress and cancel (the
Studio's Model page: at tens of thousands of preferences its cross-validation takes a minute or two).

The job (``ordercore.studio.jobs.process``) runs ``python -m ordercore.studio.jobs.trust DIRECTORY``.  The
inputs are X, y, the preferences' columns, each preference's source (a code into the source names)
and the sources' checks; the options lambda1, the seed and the LP's options (gamma, ...); the
progress the folds done of all the cross-validations; the result the ``SourceTrust`` as plain
arrays (``write_assessment``, ``read_assessment``), read back exactly (a result written before it
carried its ``AssessmentBasis`` reads back without one).  Its folds run on every core (``fold_workers``).
"""

from __future__ import annotations

import io
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import joblib
import numpy as np
from threadpoolctl import threadpool_limits

from ordercore.knowledge.label_cv import Blend, LabelCV
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.knowledge.trust import AssessmentBasis, SourceTrust, Trust, assess_sources
from ordercore.preferences import COLUMNS, PreferenceSet
from ordercore.studio.jobs.process import BackgroundJob, JobStatus, end_with, run


class AssessmentStatus(JobStatus):
    """A background assessment's ``JobStatus``, with the folds done of every cross-validation it runs
    (``assess_sources``'s progress; 0 of 0 before the first)."""

    @property
    def done(self) -> int:
        return self.progress.get("done", 0)

    @property
    def total(self) -> int:
        return self.progress.get("total", 0)


def _check_arrays(prefix: str, names, checks) -> dict:
    """Sources' names (k,) and their ``SourceCheck`` or None (k,) as arrays: ``{prefix}names`` (k,),
    ``{prefix}sizes`` (k,; -1 for None) and the checks' winner, loser and right end to end."""
    joined = SourceCheck.concatenate(check for check in checks if check is not None)
    return {
        f"{prefix}names": np.asarray(names, dtype=str),
        f"{prefix}sizes": np.array([-1 if check is None else check.right.size for check in checks], dtype=np.int64),
        f"{prefix}winner": joined.winner,
        f"{prefix}loser": joined.loser,
        f"{prefix}right": joined.right,
    }


def _checks(arrays, prefix: str) -> tuple[tuple, tuple]:
    """The sources' names and checks ``_check_arrays`` wrote under ``prefix``."""
    sizes = arrays[f"{prefix}sizes"]
    ends = np.cumsum(np.maximum(sizes, 0))
    checks = tuple(
        None
        if size < 0
        else SourceCheck.of(*(arrays[f"{prefix}{name}"][end - size : end] for name in ("winner", "loser", "right")))
        for size, end in zip(sizes, ends, strict=True)
    )
    return tuple(str(name) for name in arrays[f"{prefix}names"]), checks


def write_assessment(path: Path, assessed: SourceTrust) -> None:
    """``assessed`` to the npz file ``path`` as plain arrays (no pickle); its cross-validation, reference
    predictions and effects only when it has them."""
    trust = assessed.trust
    arrays = _check_arrays("source_", assessed.names, assessed.checks) | {
        "weights": trust.weights,
        "blend_settings": np.array(trust.blend.settings, dtype=np.float64),
        "blend_weights": trust.blend.weights,
    }
    if trust.cv is not None:
        cv = trust.cv
        arrays |= {
            "cv_grid": np.array(cv.grid, dtype=np.float64),
            "cv_predictions": cv.predictions,
            "cv_folds": cv.folds,
            "cv_truth": cv.truth,
        }
    if trust.reference is not None:
        arrays["reference"] = trust.reference
    if assessed.effects is not None:
        arrays["effects"] = assessed.effects
    if assessed.effect_errors is not None:
        arrays["effect_errors"] = assessed.effect_errors
    if assessed.agreement is not None:
        arrays["agreement"] = assessed.agreement
    if assessed.basis is not None:
        basis = assessed.basis
        arrays |= {
            "basis_inputs": np.array(basis.inputs),
            "basis_names": np.asarray(basis.names, dtype=str),
            "basis_mass": basis.mass,
            "basis_steps": np.array(basis.steps),
        }
        if basis.size is not None:
            arrays["basis_size"] = basis.size
        if basis.made_at is not None:
            arrays["basis_made_at"] = np.array(basis.made_at, dtype=np.float64)
    np.savez(path, **arrays)


def read_assessment(path) -> SourceTrust:
    """The ``SourceTrust`` ``write_assessment`` wrote to ``path`` (a path or a binary file object)."""
    with np.load(path, allow_pickle=False) as arrays:
        names, checks = _checks(arrays, "source_")
        cv = None
        if "cv_grid" in arrays:
            grid = _settings(arrays["cv_grid"])
            cv = LabelCV(grid, arrays["cv_predictions"], arrays["cv_folds"], arrays["cv_truth"])
        blend = Blend(_settings(arrays["blend_settings"]), arrays["blend_weights"])
        trust = Trust(arrays["weights"], blend, cv, arrays["reference"] if "reference" in arrays else None)
        basis = None
        if "basis_inputs" in arrays:
            basis_names = tuple(str(name) for name in arrays["basis_names"])
            basis = AssessmentBasis(
                str(arrays["basis_inputs"]),
                basis_names,
                arrays["basis_mass"],
                int(arrays["basis_steps"]),
                arrays["basis_size"] if "basis_size" in arrays else None,
                float(arrays["basis_made_at"]) if "basis_made_at" in arrays else None,  # (none stored before issue 33)
            )
        effects = arrays["effects"] if "effects" in arrays else None
        agreement = arrays["agreement"] if "agreement" in arrays else None
        errors = arrays["effect_errors"] if "effect_errors" in arrays else None  # (none stored before issue 33)
        return SourceTrust(names, checks, trust, effects, basis, agreement, errors)


def _settings(array: np.ndarray) -> tuple:
    """(lambda1, lambda2) settings (k, 2) as a tuple of float pairs."""
    return tuple(tuple(map(float, setting)) for setting in array)


def _assess(inputs: dict, options: dict, progress, result: Path) -> None:
    """The child process: ``assess_sources`` on ``fold_workers``, reporting after each fold, written to
    ``result``."""
    started = time.time()  # when it took its inputs: answers stored later are not in it
    preferences = PreferenceSet(*(inputs[name] for name in COLUMNS))
    names = inputs["source_names"][inputs["source"]]
    check_names, checks = _checks(inputs, "check_")
    with fold_workers() as executor:
        assessed = assess_sources(
            inputs["X"],
            inputs["y"],
            preferences,
            names,
            dict(zip(check_names, checks, strict=True)),
            np.random.default_rng(options["seed"]),
            options["lambda1"],
            progress=lambda done, total: progress(done=done, total=total),
            executor=executor,
            **options["model_options"],
        )
    write_assessment(result, stamped(assessed, started))


def stamped(assessed: SourceTrust, made_at: float) -> SourceTrust:
    """``assessed`` (a full assessment) with the time it was made, ``made_at`` (when it took its inputs), in
    its basis (``AssessmentBasis.made_at``): the Model page says how old the cross-validation in force is and
    how many answers came since, and warm re-assessments carry it on."""
    if assessed.basis is None:
        return assessed
    return replace(assessed, basis=replace(assessed.basis, made_at=made_at))


PARENT_CHECK_SECONDS = 0.2
"""How often a fold worker checks that the job's process is still there."""


def fold_workers() -> ProcessPoolExecutor:
    """One worker process per core for the assessment's folds, forked from the job's process: they start
    at once with its modules imported (a fresh interpreter spends about 2 s importing them), the job's
    only other thread sleeps (``process._end_when_orphaned``), and each worker ends as soon as the job's
    process does (``_end_with``), so a cancel stops every fold at once.  Measured at 8 folds of 10,000
    preferences, interleaved: processes 1.9x faster than in turn, threads 1.6x (HiGHS releases the GIL,
    the pricing between its runs does not)."""
    return ProcessPoolExecutor(
        joblib.cpu_count(),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_end_with,
        initargs=(os.getpid(),),
    )


def _end_with(parent: int) -> None:
    """In a fold worker: one BLAS thread (the cores are the workers'), and an end the moment ``parent``,
    the job's process, has gone."""
    threadpool_limits(1)  # kept until restored, which nothing here does
    end_with(parent, PARENT_CHECK_SECONDS)


class BackgroundAssessment(BackgroundJob):
    """``assess_sources(X, y, preferences, names, checks, np.random.default_rng(seed), lambda1,
    **model_options)`` in a background process, started at once; ``result()`` is its ``SourceTrust``.

    X : (n, n_features); y : (n,), NaN where unlabeled; preferences : PreferenceSet over rows of X;
    names : (p,) each preference's source; checks : ``SourceCheck`` (or None) by source name.
    """

    module = "ordercore.studio.jobs.trust"
    prefix = "ordercore-trust-"
    Status = AssessmentStatus

    def __init__(
        self, X, y, preferences: PreferenceSet, names, checks: dict, lambda1: float, seed: int, **model_options
    ):
        source_names, source = np.unique(np.asarray(names, dtype=str), return_inverse=True)
        inputs = {
            "X": np.asarray(X, dtype=np.float64),
            "y": np.asarray(y, dtype=np.float64),
            "source_names": source_names,
            "source": source,
        }
        inputs |= {name: getattr(preferences, name) for name in COLUMNS}
        inputs |= _check_arrays("check_", list(checks), list(checks.values()))
        options = {"lambda1": float(lambda1), "seed": int(seed), "model_options": model_options}
        super().__init__(inputs, options)

    def result_bytes(self) -> bytes:
        """The result file's bytes (what a store keeps), once ``status().state == 'done'``."""
        self.result()
        return self._content

    def _read_result(self, path: Path) -> SourceTrust:
        self._content = path.read_bytes()
        return read_assessment(io.BytesIO(self._content))


class InlineAssessment:
    """``BackgroundAssessment``'s job done in the calling thread, finished when made (its arguments):
    for scripts and experiments that run many sessions side by side, one per process, and want each
    assessment in force before they go on (``SessionTrust(start=InlineAssessment)``)."""

    def __init__(
        self, X, y, preferences: PreferenceSet, names, checks: dict, lambda1: float, seed: int, **model_options
    ):
        start, made_at = time.perf_counter(), time.time()
        assessed = assess_sources(
            X, y, preferences, names, checks, np.random.default_rng(seed), lambda1, **model_options
        )
        content = io.BytesIO()
        write_assessment(content, stamped(assessed, made_at))
        self._content = content.getvalue()
        self._status = AssessmentStatus("done", {}, time.perf_counter() - start)

    def status(self) -> AssessmentStatus:
        return self._status

    def wait(self, timeout: float | None = None) -> AssessmentStatus:
        return self._status

    def cancel(self) -> None:
        """Nothing to stop: it has finished."""

    def result_bytes(self) -> bytes:
        return self._content


if __name__ == "__main__":
    run(Path(sys.argv[1]), _assess)
