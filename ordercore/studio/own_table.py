"""The command lines that run the papers' protocols on a session's own table (new-user report 12, F14): the
Experiments page showed `--data TABLE.csv --target TARGET --features A,B,C` though the session knows its table,
target and features.  Each is filled in from the session's data settings, quoted for a POSIX shell
(``shlex.quote``: a file named "my laptops.csv" or "x;rm" stays one argument); a placeholder stays only where
the session cannot say (no session, the generated sample homes, a feature name the comma-separated
``--features`` cannot carry).  Nothing here imports Streamlit."""

from __future__ import annotations

import shlex

from ordercore.data.benchmarks import BENCHMARKS
from ordercore.studio.session_files import export_file_name

UNLABELED = 150
"""u, unlabeled rows per trial, where the table has room for them (the page's example before F14)."""

LABELED = 40
"""l, labeled rows per trial, without a session."""


def table_arguments(settings: dict | None) -> str:
    """The table's arguments of ``experiments table1`` or ``rules``: ``--dataset NAME`` for a benchmark (it has
    its own target and features), else ``--data FILE --target COLUMN --features A,B`` from ``settings``
    (``data.data_settings``: source, name, target, features; None: no session), each quoted, placeholders
    (TABLE.csv, TARGET, A,B,C) where unknown."""
    settings = settings or {}
    source = settings.get("source")
    if source in BENCHMARKS:
        return f"--dataset {shlex.quote(source)}"
    table = settings.get("name") if source == "upload" and settings.get("name") else "TABLE.csv"
    target = settings.get("target") or "TARGET"
    features = list(settings.get("features") or [])
    carried = features and all("," not in f and f == f.strip() and f for f in features)
    named = ",".join(features) if carried else "A,B,C"
    return f"--data {shlex.quote(table)} --target {shlex.quote(target)} --features {shlex.quote(named)}"


def trial_sizes(settings: dict | None) -> str:
    """``--labeled L --unlabeled U``: the session's labeled rows, and up to ``UNLABELED`` of the rest of its
    rows that are neither labeled nor held out (``LABELED`` and ``UNLABELED`` without a session)."""
    settings = settings or {}
    labeled = len(settings.get("labeled") or []) or LABELED
    rows = settings.get("n_rows")
    unlabeled = UNLABELED if rows is None else max(1, min(UNLABELED, rows - labeled - len(settings.get("test") or [])))
    return f"--labeled {labeled} --unlabeled {unlabeled}"


def own_table_commands(settings: dict | None, rules_file: str | None = None) -> tuple[str, str]:
    """(table1, rules): the commands that run Table 1's protocol and the rules' on the session's table
    (``settings``, as ``table_arguments``), the second with ``rules_file`` (the session's rules export's name;
    None: the placeholder RULES.json)."""
    table, sizes = table_arguments(settings), trial_sizes(settings)
    rules = shlex.quote(rules_file) if rules_file else "RULES.json"
    return (
        f"python -m ordercore experiments table1 {table} {sizes} --trials 20 --out table1.json",
        f"python -m ordercore experiments rules {table} {sizes} --rules {rules} --trials 20 --out rules.json",
    )


def session_commands(engine) -> tuple[str, str]:
    """``own_table_commands`` for a ``SessionEngine``'s session (None: no session), with its rules export's
    file name (``session_files.export_file_name``) once it holds rules."""
    if engine is None:
        return own_table_commands(None)
    rules_file = export_file_name(engine.info().name, "rules", "json") if engine.rules() else None
    return own_table_commands(engine.data_settings(), rules_file)
