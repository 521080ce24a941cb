"""The ``--quick`` option every bench has: the same code path end to end on the smallest inputs that
exercise it, in seconds.  ``tests/test_benches.py`` runs each bench so, so that none rots; its figures
are not the bench's (they say only that the path still runs)."""

from __future__ import annotations

import argparse

QUICK_HELP = "the same path on the smallest inputs, in seconds (tests/test_benches.py runs it); figures not comparable"
QUICK_NOTICE = "quick mode: the smallest inputs, to check that the bench runs; its figures are not the bench's"


def parse_arguments(parser: argparse.ArgumentParser, argv=None, **quick_defaults) -> argparse.Namespace:
    """``parser``'s arguments with ``--quick`` added; given, ``quick_defaults`` replace the defaults they
    name (an option given on the command line still wins) and a line says so."""
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args(argv)
    if args.quick:
        parser.set_defaults(**quick_defaults)
        args = parser.parse_args(argv)
        print(QUICK_NOTICE, flush=True)
    return args
