"""How the Studio shows a session's rows to the expert (issue 33, item 1): each row named once, by the
table's identifier where it has one; every context column, texts included, and never the target of a
held-out row; numbers written per column so that two different values of a column never read the same.

- ``RowNames.of(data)``: built once per session's data (``StudyData.row_names``), with each row's
  ``fingerprints`` (a digest of its values, which exports write beside its name: ``fingerprints``).
- ``name(row)``: 'home_id 1960' (the identifier column and value) or 'row 1959' (a 0-based position).
- ``context_columns``: what a pair shows side by side: every column but the target and the identifier
  (which heads the pair already).
- ``value(column, x)`` and ``difference(column, a, b)``: a number with thousands separators, the
  column's own decimals (``decimals_to_tell_apart``) and ``MINUS`` for a minus, text as it is;
  ``shade(column, a, b)``: how strongly B − A is coloured, by its size against the column's spread.
- ``answers_table(answers, rule_names, numbers=..., rule_numbers=...)``: the stored answers in words, rows by
  name, each by its number in the session (``session_numbers``), an audit by its rule's number;
  ``preferences_table(preferences)``: preferences likewise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.inputs.row_ids import as_held_ids
from ordercore.knowledge.rules.forms import column_spread
from ordercore.studio.fingerprints import row_fingerprints
from ordercore.studio.numbers import MINUS, reads_as_zero

MAX_DECIMALS = 6
"""The most decimals a column is written with in a fixed format (``decimals_to_tell_apart``)."""

CHOICES = {"a": "A higher", "b": "B higher", "equal": "about equal", "skip": "skipped"}
"""An answer's choice in words."""


def session_numbers(answers: pd.DataFrame) -> pd.Series:
    """The number of each of a session's ``answers`` (``Store.answers``) in the session, indexed by its id:
    1, 2, 3 … in the order given, kept when another is removed (a number a colleague quotes still names
    that answer; the store's ids run across sessions: an imported session's jumped from #67 to #135)."""
    return pd.Series(answers["number"].to_numpy(dtype=np.int64), index=answers["id"].to_numpy(dtype=np.int64))


def decimals_to_tell_apart(values: pd.Series) -> int | None:
    """The decimals a column's numbers are written with: the fewest (0 … ``MAX_DECIMALS``) that write
    every one of them exactly (to 1e-9 of its size), so that two different values never read the same
    and none is rounded; None when some need more (each is then written in full, positionally)."""
    numbers = pd.to_numeric(values, errors="coerce").dropna().to_numpy(dtype=float)
    tolerance = 1e-9 * np.maximum(np.abs(numbers), 1.0)
    for decimals in range(MAX_DECIMALS + 1):
        if np.all(np.abs(np.round(numbers, decimals) - numbers) <= tolerance):
            return decimals
    return None


@dataclass(frozen=True)
class RowNames:
    """A session's rows as the expert reads them: ``identifier`` (the id column or None), ``labels``
    (n,) the identifier's values as text, ``columns`` the context columns, ``decimals`` per numeric
    column, ``years`` the numeric columns written without thousands separators (``is_year``),
    ``fingerprints`` (n,) a digest of each row's values, which exports write beside its name
    (``fingerprints.row_fingerprints``; None: not taken), ``spreads`` per numeric column
    (``column_spread``, as the rules' tolerances: its interquartile range / 1.349)."""

    identifier: str | None
    labels: np.ndarray | None
    columns: tuple[str, ...]
    decimals: dict
    years: frozenset = frozenset()
    fingerprints: np.ndarray | None = None
    spreads: dict = field(default_factory=dict)

    @classmethod
    def of(cls, frame: pd.DataFrame, target: str, identifier: str | None) -> RowNames:
        """The names of ``frame``'s rows, by its ``identifier`` column (None: by position); ``ValueError``
        for an identifier the table lacks."""
        if identifier is not None and identifier not in frame.columns:
            raise ValueError(f"the identifier column {quoted(identifier)} is not in the table")
        columns = tuple(str(c) for c in frame.columns if c not in (target, identifier))
        numeric = [c for c in columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool]
        decimals = {c: decimals_to_tell_apart(frame[c]) for c in numeric}
        labels = None if identifier is None else frame[identifier].astype(str).to_numpy()
        years = frozenset(c for c in numeric if is_year(c, frame[c]))
        spreads = {c: column_spread(pd.to_numeric(frame[c], errors="coerce")) for c in numeric}
        return cls(identifier, labels, columns, decimals, years, row_fingerprints(frame), spreads)

    def name(self, row: int) -> str:
        """'ID_COLUMN VALUE', or 'row K' (0-based) without an identifier."""
        return f"row {int(row)}" if self.identifier is None else f"{self.identifier} {self.labels[int(row)]}"

    def positions(self, ids) -> np.ndarray:
        """The 0-based positions (k,) of the rows whose identifier reads ``ids`` (k,) as text (``as_held_ids``:
        '115.0' or ' 115 ' names 115); a ``ValueError`` naming the first id the table does not hold."""
        where = {label: k for k, label in enumerate(self.labels)}
        ids = as_held_ids(ids, self.labels).to_numpy()
        unknown = [label for label in ids if label not in where]
        if unknown:
            raise ValueError(
                f"{self.identifier} {unknown[0]} is not in this session's table ({len(unknown):,} of the "
                f"{len(ids):,} ids given are not)"
            )
        return np.array([where[label] for label in ids], dtype=np.int64)

    def value(self, column: str, value) -> str:
        """``value`` of ``column`` as the expert reads it: a number with separators and the column's
        decimals, '' for a missing one, text as it is."""
        if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
            return ""
        if column not in self.decimals or isinstance(value, bool | np.bool_):
            return str(value)
        return _number(float(value), self.decimals[column], column not in self.years)

    def difference(self, column: str, a, b) -> str:
        """B − A of a numeric column in its decimals ('' for text or a missing value); 0 without a sign."""
        if column not in self.decimals or pd.isna(a) or pd.isna(b):
            return ""
        difference = float(b) - float(a)
        text = _number(difference, self.decimals[column])
        if reads_as_zero(text):
            return _number(0.0, self.decimals[column])
        return "+" + text if difference > 0 else text

    def shade(self, column: str, a, b) -> float:
        """How strongly B − A is coloured, signed: its size over the column's spread, at most 1 (a
        difference of 62 km where the spread is 54,000 km is faint, one of 87 hp where it is 40 hp full);
        0 for text, a missing value, or a difference that reads as 0; 1 for any other in a column without spread."""
        text = self.difference(column, a, b)
        if not text or reads_as_zero(text):
            return 0.0
        difference, spread = float(b) - float(a), self.spreads.get(column, 0.0)
        size = 1.0 if spread <= 0 else min(1.0, abs(difference) / spread)
        return float(np.copysign(size, difference))

    def preferences_table(self, preferences, frame: pd.DataFrame | None = None, columns=(), known=None) -> pd.DataFrame:
        """A ``PreferenceSet`` as the expert reads it: f(higher) − f(lower) ≥ margin, rows by id, the id
        column in the headers ('higher (home_id)'; 'row K' without one; the constant 0 of a unary
        preference as '0'), with its weight; and each of ``frame``'s ``columns``
        (a rule's) on both sides, written as ``value`` writes them.  ``known``: (target, labels (n,) NaN
        off the labeled rows) to show both rows' targets where both are labeled (never a held-out one)."""

        def side(rows):  # the id alone, its column named in the header (repeated per cell it filled the width)
            return [("0" if row < 0 else self.labels[row] if self.identifier else f"row {row}") for row in rows]

        named = f" ({self.identifier})" if self.identifier else ""
        table = {f"higher{named}": side(preferences.i), f"lower{named}": side(preferences.j)}
        if known is not None:
            target, labels = known
            both = np.isfinite(labels[preferences.i]) & np.isfinite(labels[preferences.j]) & (preferences.j >= 0)
            for label, rows in (("higher", preferences.i), ("lower", preferences.j)):
                table[f"{target} ({label})"] = [f"{labels[r]:,g}" if b else "" for r, b in zip(rows, both, strict=True)]
        for column in columns:
            for label, rows in (("higher", preferences.i), ("lower", preferences.j)):
                table[f"{column} ({label})"] = [
                    "" if row < 0 else self.value(column, frame[column].iloc[row]) for row in rows
                ]
        table["target higher by at least"] = [f"{m:,g}" for m in preferences.margin]
        table["weight"] = [f"{w:g}" for w in preferences.weight]
        return pd.DataFrame(table)

    def answers_table(
        self, answers: pd.DataFrame, rule_names: dict, queued=None, *, numbers, rule_numbers: dict | None = None
    ) -> pd.DataFrame:
        """The stored ``answers`` (``Store.answers``) as the expert reads them: answer number (of
        ``numbers``, ``session_numbers`` of all the session's answers), who, the
        two rows by name, the answer in words, its confidence and margin, where the pair came from (the
        rule audited, by its number in ``rule_numbers``, ``Store.rule_numbers``, where given: "audit of rule #3
        'x'"; the shared queue — a pair of ``queued``, ``Store.queued_pairs``, either way round —
        the pair choice, or a file imported) and when."""
        numbered = rule_numbers or {}

        def audited(rule) -> str:
            if pd.isna(rule) or int(rule) not in rule_names:
                return "pair choice" if pd.isna(rule) else "audit of 'a removed rule'"
            number = f"rule #{numbered[int(rule)]} " if int(rule) in numbered else ""
            return f"audit of {number}{rule_names[int(rule)]!r}"

        source = answers["rule_id"].map(audited)
        if queued is not None and len(queued):
            pairs = {frozenset(pair) for pair in queued[["row_a", "row_b"]].to_numpy(dtype=np.int64).tolist()}
            in_queue = np.array([frozenset(pair) in pairs for pair in answers[["row_a", "row_b"]].to_numpy().tolist()])
            source = source.where(~(in_queue.astype(bool) & answers["rule_id"].isna().to_numpy()), "shared queue")
        if "imported" in answers:
            source = source.where(~answers["imported"].to_numpy(dtype=bool), "import (a file)")
        return pd.DataFrame(
            {
                "answer": answers["id"].astype(int).map(lambda k: f"#{numbers[k]}"),
                "annotator": answers["annotator"],
                "A": answers["row_a"].map(self.name),
                "B": answers["row_b"].map(self.name),
                "answer given": answers["choice"].map(CHOICES),
                "confidence": answers["weight"].map(lambda w: f"{w:g}"),
                "margin": answers["margin"].map(lambda m: f"{m:,g}"),
                "from": source,
                "when (UTC)": answers["created_at"].astype(str).str.slice(0, 19),
            }
        )


DEFAULT_ANSWER = {"confidence": "1", "margin": "0"}
"""An answer's confidence and margin unless the annotator set others, as ``answers_table`` writes them."""


def without_defaults(table: pd.DataFrame) -> pd.DataFrame:
    """An ``answers_table`` without the columns of ``DEFAULT_ANSWER`` in which every answer has the
    default: a column of 1s and one of 0s said nothing and pushed the table past 1,024 px."""
    return table.drop(
        columns=[c for c, default in DEFAULT_ANSWER.items() if c in table and (table[c] == default).all()]
    )


def is_year(column: str, values: pd.Series) -> bool:
    """Whether a numeric column holds calendar years (written 2013, not 2,013): named with 'year', its
    values whole numbers within 1000 … 2999."""
    numbers = pd.to_numeric(values, errors="coerce").dropna()
    in_range = bool(len(numbers)) and numbers.between(1000, 2999).all() and (numbers == numbers.round()).all()
    return "year" in str(column).lower() and in_range


def _number(value: float, decimals: int | None, grouped: bool = True) -> str:
    """``value`` with thousands separators (unless not ``grouped``), ``decimals`` decimals (None: every
    digit it needs) and ``MINUS`` for a minus (the Pairwise page read "-62" beside "−0.5" elsewhere)."""
    if not grouped:
        return _number(value, decimals).replace(",", "")
    if decimals is None:
        whole, _, fraction = np.format_float_positional(value, trim="-").partition(".")
        sign, digits = (MINUS, whole[1:]) if whole.startswith("-") else ("", whole)
        return f"{sign}{int(digits):,}" + (f".{fraction}" if fraction else "")
    return f"{value:,.{decimals}f}".replace("-", MINUS)
