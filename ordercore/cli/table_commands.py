"""The commands on one's own tables: ``fit``, ``predict``, ``rules apply`` and ``check`` (their logic is
``ordercore.cli.tabular``'s)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.cli.arguments import not_directories
from ordercore.cli.parser import writable
from ordercore.cli.tabular import (
    PREDICTED,
    Table,
    check_preference_file,
    fit_table,
    predict_table,
    read_preferences,
    read_rules,
    rule_preferences,
)
from ordercore.inputs.printable import quoted, shown
from ordercore.inputs.table_formats import table_format
from ordercore.models.files import read_model
from ordercore.preferences import PreferenceSet

MAX_LISTED = 10
"""Cycles, conflicts or duplicates ``check`` lists of each kind (it counts them all)."""


def fit(args) -> int:
    if args.max_pairs is not None and not args.rules:  # was ignored without a word (corpus 14 CL09)
        raise ValueError(
            f"--max-pairs {args.max_pairs} applies to the preferences --rules make (at most that many per rule); "
            "give --rules, or leave --max-pairs out"
        )
    writable(args.out, [args.data, *args.preferences, *args.rules])
    if args.id_column in PREDICTED:
        raise ValueError(f"--id {quoted(args.id_column)}: predict writes a column of that name; rename the id column")
    _refuse_repeated(args.preferences)
    not_directories(args.data, "CSV table", *[(p, "preference file") for p in args.preferences])
    not_directories(*[(p, "rules JSON file") for p in args.rules])
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = table.labeled()
    sources = [(path, read_preferences(path, table)) for path in args.preferences]
    rules = [r for path in args.rules for r in read_rules(path)]
    sources.append((None, rule_preferences(rules, table, labeled, args.max_pairs)))
    preferences = PreferenceSet.concatenate([made for _, made in sources])
    parameters = {
        name: getattr(args, name) for name in ("gamma", "lambda1", "lambda2") if getattr(args, name) is not None
    }
    estimator, preprocessing = fit_table(table, preferences, args.model, parameters)
    metadata = {"target": args.target, "features": table.features, "id": args.id_column, "model": args.model}
    estimator.save(args.out, preprocessing=preprocessing, metadata=metadata)
    status(
        f"fitted {args.model} on {len(table.frame)} rows ({int(labeled.sum())} labeled) and {len(preferences)} "
        f"preferences{_repeats_note(sources)}; wrote {args.out}"
    )
    return 0


def _repeats(preferences: PreferenceSet) -> int:
    """How many of ``preferences`` repeat an earlier one (the same i, j and margin)."""
    return int(preferences.to_frame().duplicated(["i", "j", "margin"]).sum())


def _repeats_note(sources: list) -> str:
    """Words for the preferences stated more than once, within one file (named) and across files or rules:
    each counts.  ``sources``: (path, or None for the rules, PreferenceSet) as ``fit`` read them."""
    within = [(name, _repeats(made)) for name, made in sources]
    across = _repeats(PreferenceSet.concatenate([made for _, made in sources])) - sum(n for _, n in within)
    said = [f"{n} of them stated more than once in {shown(str(name))}" for name, n in within if n and name is not None]
    said += [f"{n} of them made more than once by the rules" for name, n in within if n and name is None]
    said += [f"{across} of them given again by another file or rule"] if across else []
    return f" ({'; '.join(said)}: each counts)" if said else ""


def _refuse_repeated(paths: list[Path]) -> None:
    """``ValueError`` for a preference file named twice, by one path or two (a link): it would count twice."""
    for k, path in enumerate(paths):
        first = next((other for other in paths[:k] if Path(other).resolve() == Path(path).resolve()), None)
        if first is not None:
            twice = f"{path} twice" if first == path else f"one file twice ({first} and {path})"
            raise ValueError(f"--preferences names {twice}: its preferences would count twice")


def status(line: str) -> None:
    """A line on what a command did, on standard error: standard output holds only its data."""
    print(line, file=sys.stderr)


def _table_out(path: Path, inputs) -> Path | None:
    """Where a command's table goes: ``path`` (checked writable, its name ending in one of ``TABLE_FORMATS``
    or in none), or None for '-' (standard output).  Any other ending is refused before work starts: .tsv got
    commas (corpus 7), .jsonl CSV text (corpus 10), a file named just .jsonl or x.json. CSV (corpus 11)."""
    if str(path) == "-":
        return None
    writable(path, inputs)  # first: an --out that is an input file is refused as such, whatever its suffix
    try:
        table_format(path)
    except ValueError as error:
        raise ValueError(f"--out {path}: {error}") from None
    return path


def _write_table(frame: pd.DataFrame, path: Path | None) -> str:
    """``frame`` to ``path`` in the format its name's ending names (``TABLE_FORMATS``; none: CSV), or as CSV
    to standard output (None); where it went, for the status line."""
    if path is None:
        to_stdout(frame.to_csv(index=False, float_format="%.17g"))  # CSV, as TABLE_FORMATS[".csv"] writes it
        return "standard output"
    table_format(path).write(frame, path)
    return str(path)


def to_stdout(text: str) -> None:
    """``text`` written to standard output and flushed; ``OSError`` 'cannot write standard output' when
    it is closed or fails (a full disk), ``BrokenPipeError`` when its reader has gone."""
    if sys.stdout is None:
        raise OSError("cannot write standard output: it is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as error:
        raise OSError(f"cannot write standard output: {getattr(error, 'strerror', None) or error}") from None


def predict(args) -> int:
    out = _table_out(args.out, [args.model, args.data])
    model_file = read_model(args.model)
    not_directories(args.data, "CSV table")
    table = Table.read(args.data, text_columns=[model_file.metadata["id"]] if model_file.metadata.get("id") else ())
    wrote = _write_table(predict_table(model_file, table.frame), out)
    status(f"predicted {len(table.frame)} rows; wrote {wrote}")
    return 0


def apply_rules(args) -> int:
    """The rules' preferences over the table, in the format --out's ending names (``TABLE_FORMATS``; ``fit
    --preferences`` and ``check`` read each)."""
    out = _table_out(args.out, [args.rules, args.data])
    not_directories(args.rules, "rules JSON file", args.data, "CSV table")
    rules = read_rules(args.rules)
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = None if args.target is None else table.labeled()
    preferences = rule_preferences(rules, table, labeled, args.max_pairs)
    frame = preferences.to_frame()
    if table.ids is not None:
        frame["i"], frame["j"] = table.ids[frame["i"]], table.ids[frame["j"]]  # rules make no unary preferences
    wrote = _write_table(frame, out)
    status(f"{len(rules)} rule(s) made {len(preferences)} preferences; wrote {wrote}")
    return 0


def check(args) -> int:
    """Print what ``check_preference_graph`` finds in each file, and in them all together when there are
    several (a cycle may run across files, as ``fit`` reads them); 1 when anything, else 0."""
    found, paths = False, args.preferences
    not_directories(*[(p, "preference file") for p in paths])
    for group in [[path] for path in paths] + ([paths] if len(paths) > 1 else []):
        report, n_preferences, names = check_preference_file(*group)
        names = names.map(shown)
        path = group[0] if len(group) == 1 else f"the {len(group)} files together"
        problems = [("cycle", [" > ".join(names[rows]) for rows in report.cycles])]
        problems.append(("conflict", [f"{names[i]} and {names[j]} preferred both ways" for i, j in report.conflicts]))
        stated = zip(report.duplicates, report.duplicate_times, strict=True)
        problems.append(
            ("duplicate", [f"{names[i]} over {names[j]} stated {times:,} times" for (i, j), times in stated])
        )
        counts = ", ".join(f"{len(items)} {kind}{'s' * (len(items) != 1)}" for kind, items in problems[:2])
        counts += f", {_duplicates_in_words(report.duplicate_times)}"
        equal = [f"{names[i]} and {names[j]}" for i, j in report.equalities]
        if equal:  # not a problem, but said: both ways with margins <= 0 from one source reads "about equal"
            counts += f"; {len(equal)} pair{'s' * (len(equal) != 1)} stated both ways at margin 0, read as about equal"
            problems.append(("about equal", equal))
        if n_preferences == 0:  # a JSON [] was said to lack the columns i and j
            print(f"{shown(str(path))}: holds no preferences")
            continue
        print(f"{shown(str(path))}: {n_preferences} preferences: {counts}")
        for kind, items in problems:
            for item in items[:MAX_LISTED]:
                print(f"  {kind}: {item}")
            if len(items) > MAX_LISTED:
                print(f"  ... and {len(items) - MAX_LISTED} more {kind}s")
        found |= not report.ok
    return int(found)


def _duplicates_in_words(times: np.ndarray) -> str:
    """'1 pair stated 100,000 times (99,999 extra lines)', '2 pairs stated more than once (5 extra lines)' or
    '0 duplicates', of how often each duplicate pair is stated (k,): "1 duplicate" read as one extra line."""
    if times.size == 0:
        return "0 duplicates"
    extra = int(times.sum()) - times.size
    stated = f"stated {int(times[0]):,} times" if times.size == 1 else "stated more than once"
    return f"{times.size:,} pair{'s' * (times.size != 1)} {stated} ({extra:,} extra line{'s' * (extra != 1)})"
