"""Argument actions of the command line's list options (``--datasets``, ``--values``, ``--labels``,
``--pairs``, ``--strategy``): a value given twice would run twice and count twice."""

from __future__ import annotations

import argparse


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
