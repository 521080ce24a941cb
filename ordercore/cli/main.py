"""Command line: ``python -m ordercore fit|predict|rules|check|experiments ...`` (see ``--help``).

Every bad argument or unreadable file ends with one line on standard error and exit status 1
(argparse's own usage errors: status 2); ``check`` exits with 1 when it finds a problem.
"""

from __future__ import annotations

from ordercore.cli.experiment_commands import experiments
from ordercore.cli.parser import parser
from ordercore.cli.table_commands import apply_rules, check, fit, predict
from ordercore.exceptions import ClusterUnavailableError, SolverError

COMMANDS = {"fit": fit, "predict": predict, "rules": apply_rules, "check": check, "experiments": experiments}


def main(argv=None) -> int:
    """Run one command; a bad argument or file ends with ``error: ...`` and exit status 1."""
    args = parser(__doc__).parse_args(argv)
    args.argv = argv
    try:
        return COMMANDS[args.command](args)
    except (ValueError, OSError, SolverError, ClusterUnavailableError) as error:
        raise SystemExit(f"error: {error}") from None
