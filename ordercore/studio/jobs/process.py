"""Long work in a background process, with progress and cancel (the Studio's Model page: the GP fit,
``ordercore.studio.jobs.gp``, and automatic trust, ``ordercore.studio.jobs.trust``).

The work runs in a fresh Python process (``python -m MODULE DIRECTORY``), so it never blocks the
page that started it or anyone else's session, and a cancel ends it at once, with its memory.
Everything passes through files in the job's directory, none of them pickled: the inputs as plain
arrays (``input.npz``) and options (``options.json``); the progress as the work reports it
(``progress.json``); the result (``result.npz``, in the kind of job's own format) or the error
(``error.json``).  The page polls ``status()``.  (A multiprocessing child would re-import the
parent's main module, under Streamlit the app itself.)

A kind of job is a subclass of ``BackgroundJob`` naming its ``module``, whose ``__main__`` calls
``run(directory, work)``, and reading its result (``_read_result``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

STATES = ("running", "done", "failed", "cancelled")

RESULT = "result.npz"
"""The file the work writes its result to, in the job's directory."""

STARTER = "starter.pid"
"""The file holding the pid of the process that started the job, in the job's directory."""


@dataclass(frozen=True)
class JobStatus:
    """Where a background job stands: state (one of ``STATES``), the work's last progress report
    ({} before the first), seconds since the start, and the error message if it failed."""

    state: str
    progress: dict
    seconds: float
    message: str = ""


def _write_json(path: Path, document: dict) -> None:
    """``document`` to ``path``, replaced whole (a reader never sees half a file)."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(document))
    os.replace(partial, path)


ORPHAN_CHECK_SECONDS = 1.0
"""How often a job's process checks that the process that started it is still there."""


def end_with(parent: int, seconds: float = ORPHAN_CHECK_SECONDS, before_exit=None) -> Callable[[], None]:
    """In a child process: a thread that ends it at once (``before_exit()`` first, if given) when
    ``parent`` is no longer its parent process (gone: a server killed or stopped).  Returns that check
    for the main thread to make last: if the parent went as the work ended, the process must not exit
    by itself half-way through the thread's ``before_exit`` (it would stop the thread with it)."""
    ending = threading.Lock()

    def end_if_orphaned() -> None:
        if os.getppid() != parent:
            with ending:  # one thread ends the process; another waits here until it has
                if before_exit is not None:
                    before_exit()
                os._exit(1)

    def watch() -> None:
        while True:
            end_if_orphaned()
            time.sleep(seconds)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
    return end_if_orphaned


def _end_when_orphaned(directory: Path) -> Callable[[], None]:
    """In the child: once the process that started the job has gone (a server killed or stopped), nobody
    will read the result: remove the job's files and end at once.  The starter wrote its pid to the file
    ``STARTER`` (it may be gone before this process has even started)."""

    def remove_files() -> None:
        for _ in range(100):  # the work may write its progress meanwhile: remove until nothing is left
            shutil.rmtree(directory, ignore_errors=True)
            if not directory.exists():
                break
            time.sleep(0.01)

    return end_with(int((directory / STARTER).read_text()), before_exit=remove_files)


def run(directory: Path, work: Callable) -> None:
    """The child process: ``work(inputs, options, progress, result)`` with the arrays of input.npz (a
    dict), the options, ``progress(**numbers)`` writing progress.json, and the path to write the
    result to; error.json with the error's type and message (on one line) if it raises.  It ends by
    itself, its files removed, when the process that started it has gone."""
    end_if_orphaned = _end_when_orphaned(directory)
    try:
        with np.load(directory / "input.npz", allow_pickle=False) as arrays:
            inputs = dict(arrays)
        options = json.loads((directory / "options.json").read_text())
        work(inputs, options, lambda **numbers: _write_json(directory / "progress.json", numbers), directory / RESULT)
    except Exception as error:  # noqa: BLE001 - every failure is reported to the page, not lost
        _write_json(directory / "error.json", {"message": " ".join(f"{type(error).__name__}: {error}".split())})
    finally:
        end_if_orphaned()


class BackgroundJob:
    """The work of ``module`` on ``inputs`` (arrays by name) and ``options`` (JSON) in a background
    process, started at once.  A subclass sets ``module``, ``prefix`` (of its directory's name) and
    ``Status`` (a ``JobStatus`` that reads its progress), and reads its result in ``_read_result``."""

    module: str
    prefix: str = "ordercore-job-"
    Status: type = JobStatus

    def __init__(self, inputs: dict[str, np.ndarray], options: dict):
        self.directory = Path(tempfile.mkdtemp(prefix=self.prefix))
        self.started = time.monotonic()
        self._ended: JobStatus | None = None  # the status, frozen once the job has ended
        self._lock = threading.RLock()
        self._result = None
        np.savez(self.directory / "input.npz", **inputs)
        (self.directory / "options.json").write_text(json.dumps(options))
        (self.directory / STARTER).write_text(str(os.getpid()))
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module, str(self.directory)],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def status(self) -> JobStatus:
        """The job's state now (never waits); once it has ended, the same status every time (its
        seconds and progress as they were at the end).  A failed job's files are removed then, a done
        one's once its result is read.  Safe to call from several threads."""
        with self._lock:
            return self._status()

    def _status(self) -> JobStatus:
        if self._ended is not None:
            return self._ended
        seconds = time.monotonic() - self.started
        progress = self._read("progress.json") or {}
        if self.process.poll() is None:
            return self.Status("running", progress, seconds)
        if (self.directory / RESULT).exists():
            self._ended = self.Status("done", progress, seconds)
            return self._ended
        if (error := self._read("error.json")) is not None:
            self._ended = self.Status("failed", progress, seconds, error["message"])
        else:
            self._ended = self.Status("failed", progress, seconds, ended_without_result(self.process.returncode))
        shutil.rmtree(self.directory, ignore_errors=True)
        return self._ended

    def wait(self, timeout: float | None = None) -> JobStatus:
        """Block until the job ends or ``timeout`` seconds pass, then its status (for scripts and tests)."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        return self.status()

    def result(self):
        """The job's result, once ``status().state == 'done'`` (read once, then the files are removed)."""
        with self._lock:
            return self._read_once()

    def _read_once(self):
        if self._result is None:
            if self.status().state != "done":
                raise RuntimeError("the background job has not finished")
            self._result = self._read_result(self.directory / RESULT)
            shutil.rmtree(self.directory, ignore_errors=True)
        return self._result

    def cancel(self) -> None:
        """Stop the job now (its process ends, its memory with it) and remove its files."""
        with self._lock:
            self._cancel()

    def _cancel(self) -> None:
        if self._ended is None:
            running = self.status()
            self._ended = self.Status("cancelled", running.progress, running.seconds)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _read_result(self, path: Path):
        raise NotImplementedError

    def _read(self, name: str) -> dict | None:
        try:
            return json.loads((self.directory / name).read_text())
        except (OSError, ValueError):
            return None


def ended_without_result(returncode: int) -> str:
    """What to tell when a job's process ended with neither a result nor an error of its own."""
    if returncode < 0:
        how = f"it was killed (signal {-returncode})"
        if returncode == -9:
            how += ": the machine may have run out of memory"
    else:
        how = f"it exited with code {returncode}"
    return f"the background process ended without a result ({how}); Run again to retry"
