"""A "roughly equal" rule (seed 000): conditions that make two rows roughly equal, an ``Ordering``
that says which of the two has the higher target, and the margin d and weight w of every preference
it creates (f(x_i) - f(x_j) >= d, weight w).

A rule is data, never code: it round-trips through JSON (``RULE_FORMAT``, ``RULE_VERSION``), its
conditions found by kind in the registry ``CONDITIONS``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from ordercore.inputs.printable import unprintable
from ordercore.inputs.text_files import parse_json
from ordercore.knowledge.rules.conditions import CONDITIONS, Condition
from ordercore.preferences import MAX_WEIGHT

RULE_FORMAT, RULE_VERSION = "ordercore.rule", 1
NAME_MAX_LENGTH = 200
"""Longest rule name (the store's limit for every name)."""

RULE_FIELDS = frozenset(
    ["format", "version", "name", "conditions", "ordering", "margin", "weight", "annotator", "pairs", "rule_number"]
)
"""The fields of a rule document: ``Rule.to_dict``'s, and the three the Studio's rules export adds beside
each rule (who added it, how many preferences it made, its number in the session: ignored on import, where the
importing session numbers it); any other is refused by ``Rule.from_dict``."""


def _is_number(value) -> bool:
    """A real number, not a bool (True is no margin), text or array: what a rule's amounts must be."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)


@dataclass(frozen=True)
class Ordering:
    """Of two roughly equal rows, the one with the higher (``direction='higher'``) or lower value of
    ``column`` has the higher target; pairs whose values differ by less than ``min_difference``
    (or not at all) give no preference."""

    column: str
    direction: str = "higher"
    min_difference: float = 0.0

    def words(self) -> str:
        """'the one with lower age (by at least 2)'."""
        by = f" (by at least {self.min_difference:,g})" if self.min_difference else ""
        return f"the one with {self.direction} {self.column}{by}"

    def check(self) -> None:
        if self.direction not in ("higher", "lower"):
            raise ValueError(f"Ordering direction must be 'higher' or 'lower', got {self.direction!r}")
        if not _is_number(self.min_difference) or not np.isfinite(self.min_difference) or self.min_difference < 0:
            raise ValueError(f"Ordering min_difference must be a finite number >= 0, got {self.min_difference!r}")


@dataclass(frozen=True)
class Rule:
    """Roughly-equal conditions, an ordering, and the margin d and weight w of every preference."""

    name: str
    conditions: tuple
    ordering: Ordering
    margin: float = 0.0
    weight: float = 1.0

    def identity(self) -> tuple:
        """What makes two rules the same rule: their conditions, as a set, and their ordering (frozen
        dataclasses: amounts compare as numbers, 5 == 5.0).  Not the name, margin or weight."""
        return frozenset(self.conditions), self.ordering

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise ValueError(f"a rule's name must be text, got {type(self.name).__name__} {self.name!r}")
        if not self.name.strip():
            raise ValueError("a rule needs a name")
        if isinstance(self.conditions, Condition | str | bytes | dict) or not hasattr(self.conditions, "__iter__"):
            raise TypeError(
                f"rule {self.name!r}: conditions must be a list of conditions (e.g. [Within('age', 5)]), got "
                f"{type(self.conditions).__name__} {self.conditions!r}"
            )
        object.__setattr__(self, "conditions", tuple(self.conditions))
        if len(self.name) > NAME_MAX_LENGTH:
            raise ValueError(f"a rule name has at most {NAME_MAX_LENGTH} characters; this one has {len(self.name)}")
        if unprintable(self.name):
            raise ValueError(f"a rule name may not hold {unprintable(self.name)}")
        if not self.conditions:
            raise ValueError(f"rule {self.name!r} needs at least one 'roughly equal' condition")
        for condition in self.conditions:
            if not isinstance(condition, Condition):
                raise TypeError(f"rule {self.name!r}: {condition!r} is not a condition")
            condition.check()
        if not isinstance(self.ordering, Ordering):
            raise TypeError(f"rule {self.name!r}: the ordering must be an Ordering")
        self.ordering.check()
        if not _is_number(self.margin):
            raise ValueError(f"rule {self.name!r}: the margin must be a number, got {self.margin!r}")
        if not np.isfinite(self.margin):
            raise ValueError(f"rule {self.name!r}: the margin must be finite")
        if not _is_number(self.weight) or not np.isfinite(self.weight) or not 0 <= self.weight <= MAX_WEIGHT:
            raise ValueError(
                f"rule {self.name!r}: the weight must be a number in [0, {MAX_WEIGHT:g}], got {self.weight!r}"
            )

    def words(self, target: str = "target") -> str:
        """The rule in one line, as its form reads: 'same brand, year within ± 5; then the one with lower action
        has the higher price' (the ``target``), its margin d after it when it has one."""
        margin = f" (margin d {self.margin:,g})" if self.margin else ""
        conditions = ", ".join(condition.words() for condition in self.conditions)
        return f"{conditions}; then {self.ordering.words()} has the higher {target}{margin}"

    def columns(self) -> list[str]:
        return [c for condition in self.conditions for c in condition.columns()] + [self.ordering.column]

    def refuse_id_column(self, identifier: str | None, called: str = "the table's id column") -> None:
        """``ValueError`` when the rule reads the ``identifier`` column (``called`` so; None: the table has
        none): it names the rows, and no rule measures it (ids within 5 are no similar homes)."""
        if identifier is not None and identifier in self.columns():
            raise ValueError(
                f"rule {self.name!r}: column {identifier!r} is {called}, which names the rows: it cannot be a "
                "rule's column"
            )

    def check_columns(self, frame: pd.DataFrame) -> None:
        """Raise ``ValueError`` for a column the table lacks, or a non-numeric column a numeric
        condition or the ordering needs."""
        missing = [c for c in self.columns() if c not in frame.columns]
        if missing:
            raise ValueError(f"rule {self.name!r}: unknown column(s) {missing}; the table has {list(frame.columns)}")
        numeric = [c for condition in self.conditions for c in condition.numeric_columns()]
        for column in numeric + [self.ordering.column]:
            if not pd.api.types.is_numeric_dtype(frame[column]) or pd.api.types.is_bool_dtype(frame[column]):
                raise ValueError(
                    f"rule {self.name!r}: column {column!r} must be numeric, it holds {frame[column].dtype}"
                )

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        return {
            "format": RULE_FORMAT,
            "version": RULE_VERSION,
            "name": self.name,
            "conditions": [condition.to_dict() for condition in self.conditions],
            "ordering": asdict(self.ordering),
            "margin": self.margin,
            "weight": self.weight,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Rule:
        """A rule from ``to_dict``'s output; raises ``ValueError`` on anything else."""
        if not isinstance(data, dict) or data.get("format") != RULE_FORMAT:
            raise ValueError(f"not an ordercore rule (expected format {RULE_FORMAT!r})")
        if data.get("version") != RULE_VERSION:
            raise ValueError(f"unsupported rule version {data.get('version')!r}; this is version {RULE_VERSION}")
        unknown = sorted(map(str, set(data) - RULE_FIELDS))
        if unknown:
            raise ValueError(
                f"rule {data.get('name')!r}: unknown field(s) {unknown} (a misspelt weight or margin would be left at "
                f"its default); a rule's fields are {', '.join(sorted(RULE_FIELDS))}"
            )
        absent = [name for name in ("name", "conditions", "ordering") if name not in data]
        if absent:
            named = ", ".join(f'"{name}"' for name in absent)
            raise ValueError(
                f"rule {data.get('name')!r} has no {named} field{'s' if len(absent) > 1 else ''} (a rule's fields are "
                f"{', '.join(sorted(RULE_FIELDS))})"
            )
        try:
            conditions = []
            if not isinstance(data["conditions"], list) or not all(isinstance(c, dict) for c in data["conditions"]):
                raise ValueError(f"a rule's conditions must be a list of objects, got {data['conditions']!r:.80}")
            for spec in data["conditions"]:
                spec = dict(spec)
                kind = spec.pop("kind", None)
                if kind not in CONDITIONS:
                    raise ValueError(f"unknown condition kind {kind!r}; known: {sorted(CONDITIONS)}")
                conditions.append(_condition(kind, spec))
            return cls(
                name=data["name"],
                conditions=conditions,
                ordering=Ordering(**data["ordering"]),
                margin=_number(data.get("margin", 0.0), "margin"),
                weight=_number(data.get("weight", 1.0), "weight"),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"malformed rule: {error}") from None

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str | bytes) -> Rule:
        """A rule from ``to_json``'s text (or its bytes), a UTF-8 byte order mark (Notepad's) allowed."""
        try:
            data = parse_json(text.removeprefix("\ufeff") if isinstance(text, str) else text)
        except (ValueError, RecursionError) as error:  # JSONDecodeError, or a key given twice
            raise ValueError(f"rule JSON does not parse: {error}") from None
        return cls.from_dict(data)


def _condition(kind: str, spec: dict):
    """A condition of ``kind`` from its fields ``spec``; ``ValueError`` naming a field it does not have."""
    known = [f.name for f in fields(CONDITIONS[kind]) if f.init]
    unknown = sorted(map(str, set(spec) - set(known)))
    if unknown:
        raise ValueError(f"a {kind} condition has no field {unknown[0]!r}; its fields are {', '.join(known)}")
    return CONDITIONS[kind](**spec)


def _number(value, name: str) -> float:
    """A rule's ``name`` from JSON as a float; ``ValueError`` for anything but a number (true, "10")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a rule's {name} must be a number, got {value!r}")
    return float(value)
