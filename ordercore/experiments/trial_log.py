"""A run's finished trials on disk as they finish, so that a stopped run loses only the trials under way.

The progress file (``run.trials.jsonl`` beside the result file ``run.json``) is JSON Lines: a header line
``{"run": {...}}`` naming the run (experiment, data set, seed, protocol: what makes two runs' trial k the
same), then one trial record per line, appended in one write and flushed to disk as each trial finishes.
A line cut short by a stop mid-write is dropped on resuming; every complete line is a whole trial.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

SUFFIX = ".trials.jsonl"


def progress_path(out: Path) -> Path:
    """The progress file beside the result file ``out``: ``run.json`` -> ``run.trials.jsonl`` (a name not
    ending in .json: ``.trials.jsonl`` added)."""
    out = Path(out)
    stem = out.name[: -len(".json")] if out.suffix.lower() == ".json" else out.name
    return out.with_name(stem + SUFFIX)


class TrialLog:
    """The progress file of one run: ``finished`` (trial index -> record) read from it, ``append`` for more.

    Open it with ``TrialLog.open``; ``ValueError`` (before the file changes) when it belongs to another run,
    is not a progress file, or exists without ``resume``."""

    def __init__(self, path: Path, finished: dict[int, dict]):
        self.path, self.finished = path, finished

    @classmethod
    def open(cls, path: Path, run: dict, resume: bool) -> TrialLog:
        """The log at ``path`` for ``run`` (a JSON object): created with its header when absent; when present,
        only with ``resume``, and only if its header names the same run."""
        path = Path(path)
        if not path.exists():
            _write_line(path, {"run": run})
            return cls(path, {})
        if not path.is_file():
            raise ValueError(f"progress file {path} is not a regular file")
        lines, complete = _complete_lines(path)
        finished = _read(path, lines, run)
        if not resume:
            raise ValueError(
                f"progress file {path} already holds {len(finished)} finished trial(s) of this run: give --resume "
                "to run only the missing ones, or remove the file to start again"
            )
        if complete < path.stat().st_size:  # a record cut short when the run stopped: drop it before appending
            with path.open("r+b") as file:
                file.truncate(complete)
        return cls(path, finished)

    def append(self, record: dict) -> None:
        """Add one finished trial (a JSON object with its ``trial`` index) as one line, flushed to disk."""
        _write_line(self.path, record)
        self.finished.setdefault(record["trial"], record)


def _write_line(path: Path, record: dict) -> None:
    """``record`` as one JSON line at the end of ``path``, in a single append, synced to disk."""
    data = (json.dumps(record) + "\n").encode()
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        written = 0
        while written < len(data):  # a regular file takes it whole; a short write is finished, never dropped
            written += os.write(descriptor, data[written:])
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _complete_lines(path: Path) -> tuple[list[bytes], int]:
    """The file's lines ending in a newline, and the byte count they take (the rest: a cut-short line)."""
    content = path.read_bytes()
    complete = content.rfind(b"\n") + 1
    return content[:complete].splitlines(), complete


def _read(path: Path, lines: list[bytes], run: dict) -> dict[int, dict]:
    """Trial index -> record of a progress file's ``lines``; ``ValueError`` unless its header names ``run``."""
    run = json.loads(json.dumps(run))  # as read back: tuples as lists
    try:
        header = json.loads(lines[0]) if lines else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        header = None
    if not isinstance(header, dict) or not isinstance(header.get("run"), dict):
        raise ValueError(f"{path} is not a progress file (its first line names no run): give another --out")
    differing = [key for key in sorted(set(run) | set(header["run"])) if header["run"].get(key) != run.get(key)]
    if differing:
        found = ", ".join(f"{key} {header['run'].get(key)!r} (this run: {run.get(key)!r})" for key in differing)
        raise ValueError(
            f"progress file {path} is another run's: its {found}; give another --out, or remove the file to start again"
        )
    finished: dict[int, dict] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            record = None
        trial = record.get("trial") if isinstance(record, dict) else None
        if isinstance(trial, bool) or not isinstance(trial, int):
            raise ValueError(f"line {number} of progress file {path} is not a trial record")
        finished.setdefault(record["trial"], record)
    return finished
