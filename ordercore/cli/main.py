"""Command line: ``python -m ordercore fit|predict|rules|check|experiments ...`` (see ``--help``).

Every bad argument or unreadable file ends with one line on standard error and exit status 1
(argparse's own usage errors: status 2); ``check`` exits with 1 when it finds a problem.  A library
warning is one line, ``warning: ...``; a reader that closes the pipe early (``| head``) ends the
command quietly, with status 141 as a shell's for SIGPIPE.
"""

from __future__ import annotations

import os
import sys
import warnings

from ordercore.cli.experiment_commands import experiments
from ordercore.cli.parser import parser
from ordercore.cli.table_commands import apply_rules, check, fit, predict, to_stdout
from ordercore.exceptions import ClusterUnavailableError, SolverError

COMMANDS = {"fit": fit, "predict": predict, "rules": apply_rules, "check": check, "experiments": experiments}

PIPE_CLOSED = 141
"""The exit status when standard output's reader has gone: 128 + SIGPIPE, as a shell reports it."""


def main(argv=None) -> int:
    """Run one command; a bad argument or file ends with ``error: ...`` and exit status 1."""
    args = parser(__doc__).parse_args(argv)
    args.argv = argv
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _plain_warning
            code = COMMANDS[args.command](args)
            if sys.stdout is not None:
                to_stdout("")  # what a command printed, flushed here so that a failure is reported
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (ValueError, OSError, SolverError, ClusterUnavailableError) as error:
        raise SystemExit(f"error: {error}") from None


def _plain_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _reader_gone() -> int:
    """Standard output pointed at /dev/null, so that the interpreter's last flush finds no broken pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing left to flush into a pipe
    return PIPE_CLOSED
