"""The commands on one's own tables: ``fit``, ``predict``, ``rules apply`` and ``check`` (their logic is
``ordercore.cli.tabular``'s)."""

from __future__ import annotations

from ordercore.cli.parser import writable
from ordercore.cli.tabular import (
    Table,
    check_preference_file,
    fit_table,
    predict_table,
    read_preferences,
    read_rules,
    rule_preferences,
)
from ordercore.models.files import read_model
from ordercore.preferences import PreferenceSet

MAX_LISTED = 10
"""Cycles, conflicts or duplicates ``check`` lists of each kind (it counts them all)."""


def fit(args) -> int:
    writable(args.out)
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = table.labeled()
    preferences = PreferenceSet.concatenate(
        [read_preferences(path, table) for path in args.preferences]
        + [rule_preferences(read_rules(path), table, labeled, args.max_pairs) for path in args.rules]
    )
    parameters = {
        name: getattr(args, name) for name in ("gamma", "lambda1", "lambda2") if getattr(args, name) is not None
    }
    estimator, preprocessing = fit_table(table, preferences, args.model, parameters)
    metadata = {"target": args.target, "features": table.features, "id": args.id_column, "model": args.model}
    estimator.save(args.out, preprocessing=preprocessing, metadata=metadata)
    print(
        f"fitted {args.model} on {len(table.frame)} rows ({int(labeled.sum())} labeled) and {len(preferences)} "
        f"preferences; wrote {args.out}"
    )
    return 0


def predict(args) -> int:
    writable(args.out)
    model_file = read_model(args.model)
    table = Table.read(args.data)
    predict_table(model_file, table.frame).to_csv(args.out, index=False, float_format="%.17g")
    print(f"predicted {len(table.frame)} rows; wrote {args.out}")
    return 0


def apply_rules(args) -> int:
    writable(args.out)
    rules = read_rules(args.rules)
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = None if args.target is None else table.labeled()
    preferences = rule_preferences(rules, table, labeled, args.max_pairs)
    frame = preferences.to_frame()
    if table.ids is not None:
        frame["i"], frame["j"] = table.ids[frame["i"]], table.ids[frame["j"]]  # rules make no unary preferences
    frame.to_csv(args.out, index=False, float_format="%.17g")
    print(f"{len(rules)} rule(s) made {len(preferences)} preferences; wrote {args.out}")
    return 0


def check(args) -> int:
    """Print what ``check_preference_graph`` finds in each file; 1 when anything, else 0."""
    found = False
    for path in args.preferences:
        report, n_preferences, names = check_preference_file(path)
        problems = [("cycle", [" > ".join(names[rows]) for rows in report.cycles])]
        problems.append(("conflict", [f"{names[i]} and {names[j]} preferred both ways" for i, j in report.conflicts]))
        problems.append(
            ("duplicate", [f"{names[i]} over {names[j]} stated more than once" for i, j in report.duplicates])
        )
        counts = ", ".join(f"{len(items)} {kind}{'s' * (len(items) != 1)}" for kind, items in problems)
        print(f"{path}: {n_preferences} preferences: {counts}")
        for kind, items in problems:
            for item in items[:MAX_LISTED]:
                print(f"  {kind}: {item}")
            if len(items) > MAX_LISTED:
                print(f"  ... and {len(items) - MAX_LISTED} more {kind}s")
        found |= not report.ok
    return int(found)
