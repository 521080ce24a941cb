"""The command line's shared argument types and actions: numbers (whole, at least 0 or 1, and ``--trials``
and ``--clicks`` up to a bound), the list options' action (``--datasets``, ``--values``, ``--labels``,
``--pairs``, ``--strategy``: a value given twice would run twice and count twice), and input paths that are
no directory (``not_directories``)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ordercore.inputs.printable import quoted


def _number(kind, minimum, name: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not {name}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a finite number")
        if not value >= minimum:
            raise argparse.ArgumentTypeError(f"{quoted(text)} must be at least {minimum}")
        return value

    return parse


positive_int = _number(int, 1, "a whole number")

count = _number(int, 0, "a whole number")

non_negative = _number(float, 0.0, "a number")


def positive(text: str) -> float:
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} must be greater than 0")
    return value


MAX_TRIALS = 10_000
"""The most ``--trials`` an experiment runs (the seeds run 20): 10,000 trials of the quickest take hours;
``--trials 1000000000000`` was taken and ran until killed.  A larger study is several runs, each with its
own ``--seed``."""

MAX_CLICKS = 10_000
"""The most ``--clicks`` (a simulated expert's answers per trial) ``experiments session`` gives (300 by
default; an expert answers a few thousand pairs in a day at keyboard speed)."""


def _at_most(most: int, what: str):
    """A whole number from 1 to ``most``, refused beyond it in words naming ``what`` it counts."""

    def parse(text: str) -> int:
        value = positive_int(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"{text} is more than {most:,}, the most {what}")
        return value

    return parse


trial_count = _at_most(MAX_TRIALS, "trials a run takes (a larger study: several runs, each with its own --seed)")

click_count = _at_most(MAX_CLICKS, "answers a simulated session gives in a trial")


class Distinct(argparse.Action):
    """Stores a ``nargs='+'`` option's values, refusing one given twice (``--values 5 5``, or ``5 5.0``):
    ``experiments gp-table2 --datasets digits digits`` ran digits twice and stored one trial twice."""

    def __call__(self, parser, namespace, values, option_string=None):
        for k, value in enumerate(values):
            if value in values[:k]:
                shown = f"{value:g}" if isinstance(value, float) else repr(value)
                raise argparse.ArgumentError(self, f"{shown} is given twice: give each value once")
        setattr(namespace, self.dest, list(values))


DISTINCT = {"nargs": "+", "action": Distinct}
"""A list option's ``nargs`` and ``action``: one or more values, none twice."""


def not_directories(*named) -> None:
    """``ValueError`` '<path> is a directory, not a <what>' for an input path that is a directory; ``named``:
    path, what, path, what ... or (path, what) pairs.  ``rules apply`` and ``check`` said '[Errno 21]'."""
    flat = [item for entry in named for item in (entry if isinstance(entry, tuple) else (entry,))]
    for path, what in zip(flat[::2], flat[1::2], strict=True):
        if Path(path).is_dir():
            raise ValueError(f"{path} is a directory, not a {what}")
