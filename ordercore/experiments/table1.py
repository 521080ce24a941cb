"""Seed 001's Table 1 (SVR against SSL on a data set, the paper's numbers beside), the same protocol
with the preferences of a rule file, and Fig. 2's sweeps of p, l or beta.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from ordercore.data.tables import Dataset
from ordercore.experiments.protocol import Protocol, protocol_record, result_document, run_trials, summarize
from ordercore.knowledge.rules import Rule

PAPER_TABLE1 = {
    "boston": {"svr": (4.780, 1.351), "ssl": (3.511, 0.376)},
    "abalone": {"svr": (1.856, 0.180), "ssl": (1.685, 0.102)},
    "california": {"svr": (58268, 4435), "ssl": (52120, 1843)},
}
"""Seed 001 Table 1: test MAE, mean and standard deviation over 20 trials."""


def table1(
    data: Dataset,
    name: str,
    protocol: Protocol,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 001 Table 1 for one data set: per-trial results, summary, and the paper's numbers.
    ``jobs``, ``progress``, ``scheduler``: as ``run_trials``."""
    results = [
        r for _, r in run_trials(data, [("table1", protocol)], trials, seed, jobs, progress, scheduler=scheduler)
    ]
    return result_document("table1", name, protocol, seed, results, PAPER_TABLE1.get(name))


def refuse_leaking_rules(rules, target: str | None) -> None:
    """``ValueError`` naming the first rule that reads the ``target`` column: its preferences would leak labels."""
    for rule in rules:
        if target is not None and target in rule.columns():
            raise ValueError(
                f"rule {rule.name!r} reads the target column {target!r}: its preferences would leak labels"
            )


def rules_experiment(data: Dataset, name: str, protocol: Protocol, trials: int, seed: int, *args, **kwargs) -> dict:
    """Table 1's protocol with the preferences of ``protocol.rules`` (any rule file) instead of the
    oracle's, per-trial results like ``table1``'s (the other arguments are its)."""
    if not protocol.rules:
        raise ValueError("the rules experiment needs at least one rule (protocol.rules)")
    rules = [Rule.from_dict(rule) for rule in protocol.rules]
    for rule in rules:
        rule.check_columns(data.frame)
    refuse_leaking_rules(rules, data.metadata.get("target"))
    return {**table1(data, name, protocol, trials, seed, *args, **kwargs), "experiment": "rules", "paper": None}


SWEEPS = {
    "p": ("n_preferences", (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)),
    "l": ("n_labeled", None),  # multiples of the data set's l, see sweep_values
    "beta": ("beta", (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)),
}
"""Seed 001 Fig. 2: the protocol field each sweep varies and its default values."""


def sweep_values(vary: str, protocol: Protocol) -> tuple:
    if vary == "l":
        return tuple(int(round(protocol.n_labeled * f)) for f in (0.5, 1, 2, 4, 8))
    return SWEEPS[vary][1]


def figure2(
    data: Dataset,
    name: str,
    protocol: Protocol,
    vary: str,
    values,
    trials: int,
    seed: int,
    jobs: int = 1,
    progress=None,
    *,
    scheduler: str | None = None,
) -> dict:
    """Seed 001 Fig. 2: test MAE of SVR and SSL as p, l or beta varies, on shared trial seeds.
    ``jobs``, ``progress``, ``scheduler``: as ``run_trials``."""
    if vary not in SWEEPS:
        raise ValueError(f"--vary must be one of {sorted(SWEEPS)}")
    field_name = SWEEPS[vary][0]
    values = tuple(values) if values else sweep_values(vary, protocol)
    protocols = [(value, replace(protocol, **{field_name: value})) for value in values]
    for _, varied in protocols:
        varied.check(len(data.y))
    results = run_trials(data, protocols, trials, seed, jobs, progress, scheduler=scheduler)
    points = []
    for value in values:
        chosen = [r for label, r in results if label == value]
        points.append({"value": value, **summarize(chosen), "trials": [asdict(r) for r in chosen]})
    return {
        "experiment": "figure2",
        "dataset": name,
        "vary": vary,
        "protocol": protocol_record(protocol),
        "seed": seed,
        "points": points,
    }
