"""A kind of background job for tests/test_jobs.py: it sleeps for the seconds its options say."""

import sys
import time
from pathlib import Path

from ordercore.studio.jobs.process import BackgroundJob, run


def _sleep(inputs: dict, options: dict, progress, result: Path) -> None:
    progress(slept=0)
    time.sleep(options["seconds"])
    result.write_bytes(b"done")


class SlowJob(BackgroundJob):
    module = "tests.slow_job"
    prefix = "ordercore-test-slow-"

    def __init__(self, seconds: float):
        super().__init__({}, {"seconds": seconds})

    def _read_result(self, path: Path) -> bytes:
        return path.read_bytes()


if __name__ == "__main__":
    run(Path(sys.argv[1]), _sleep)
