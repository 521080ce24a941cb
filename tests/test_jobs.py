"""The background-job mechanism (ordercore/studio/jobs/process.py) on a job that only sleeps: its
result, a cancel, and a job whose starter dies (a server killed) ending by itself with its files."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from ordercore.studio.jobs.process import STARTER
from tests.slow_job import SlowJob

ROOT = Path(__file__).resolve().parents[1]


def ended(pid: int) -> bool:
    """Whether the process has ended (gone, or a zombie nobody has reaped yet)."""
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0] == "Z"
    except (FileNotFoundError, IndexError):
        return True


def test_a_job_runs_in_its_own_process_and_its_files_go_with_its_result():
    job = SlowJob(0.1)
    assert job.wait(60).state == "done" and job.result() == b"done"
    assert not job.directory.exists()


def test_a_cancel_ends_the_process_and_removes_the_files():
    job = SlowJob(600)
    deadline = time.monotonic() + 30
    while job.status().progress.get("slept") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    job.cancel()
    assert job.status().state == "cancelled" and job.process.poll() is not None and not job.directory.exists()


def test_a_job_whose_starter_dies_ends_and_removes_its_files():
    """A server killed with its jobs running: each job notices its parent has gone, removes its files
    and ends, instead of computing for nobody."""
    starter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nfrom tests.slow_job import SlowJob\njob = SlowJob(600)\n"
            "print(job.directory, job.process.pid, flush=True)\ntime.sleep(600)",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    directory, pid = starter.stdout.readline().split()
    assert Path(directory).is_dir() and not ended(int(pid))
    os.kill(starter.pid, signal.SIGKILL)
    starter.wait()
    deadline = time.monotonic() + 20
    while not (ended(int(pid)) and not Path(directory).exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ended(int(pid)) and not Path(directory).exists()


def test_a_job_orphaned_as_its_work_fails_still_removes_its_files(tmp_path):
    """The race CI once lost: the starter gone before the job's process has read its inputs, the work
    failing at once (here: no 'seconds' option), the main thread ending while the parent-watch thread
    removes the files.  The process must not exit half-way through that removal."""
    left = []
    for attempt in range(8):
        directory = tmp_path / f"job{attempt}"
        directory.mkdir()
        np.savez(directory / "input.npz")
        (directory / "options.json").write_text("{}")
        (directory / STARTER).write_text("1")  # not this process's parent: orphaned from the start
        subprocess.run([sys.executable, "-m", "tests.slow_job", str(directory)], cwd=ROOT, stderr=subprocess.DEVNULL)
        left += [directory.name] if directory.exists() else []
    assert left == []
