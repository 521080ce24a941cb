"""A model of one's own table, as the command line's ``fit``, ``predict``, ``rules apply`` and
``check`` use it: the table read with the Studio's preprocessing, preference and rule files read
against its rows, a model fitted with the Studio's defaults, and predictions for new rows.

Rows are addressed by 0-based position, or by the values of an id column when one is named.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.data.tables import Preprocessing, read_csv, target_values
from ordercore.experiments.table1 import refuse_leaking_rules
from ordercore.inputs.feature_names import missing_columns
from ordercore.inputs.printable import quoted
from ordercore.inputs.row_ids import as_held_ids, other_positions
from ordercore.inputs.table_formats import ending
from ordercore.inputs.text_files import parse_json, read_utf8
from ordercore.knowledge.quality import GraphReport, check_preference_graph
from ordercore.knowledge.rules import Rule, generate
from ordercore.models.files import ModelFile
from ordercore.models.registry import Learns, ModelFamily, Offer, families, family_of
from ordercore.preference_tables import read_preference_table
from ordercore.preferences import ZERO, PreferenceSet
from ordercore.studio.fingerprints import refuse_another_table, row_fingerprints, split_fingerprints

SEED = 0
"""The seed (``random_state``) of an estimator that draws random numbers, so that a fit is reproducible."""


def table_models() -> dict[str, ModelFamily]:
    """What ``fit --model`` offers, by key: every registered family that learns from labels and/or
    preferences and whose estimator a model file can hold."""
    return {
        key: f
        for key, f in families().items()
        if f.learns & {Learns.LABELS, Learns.PREFERENCES} and f.estimator in f.saved
    }


@dataclass
class Table:
    """A table read from CSV, its target (None when not given) and features, and the values of its
    id column as text (None: rows are addressed by position)."""

    frame: pd.DataFrame
    target: str | None
    features: list[str]
    ids: pd.Index | None

    @classmethod
    def read(cls, path: Path, target=None, features=None, id_column=None, text_columns=()) -> Table:
        """``ValueError`` naming the file for an unreadable table, an unknown column or a bad id column; the
        id column and ``text_columns`` read as text ('00041' stays itself)."""
        try:
            frame = read_csv(path, text_columns=[*text_columns, *([id_column] if id_column else [])])
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
        if target is not None and target == id_column:
            raise ValueError(
                f"{path}: the target and --id name the same column {quoted(target)}; the id column cannot be the target"
            )
        named = [c for c in [target, id_column, *(features or ())] if c is not None]
        _refuse_alike(named, frame.columns, path)
        missing = missing_columns(named, frame.columns)
        if missing:
            raise ValueError(f"{path}: {missing}")
        if features is None:
            features = [c for c in frame.columns if c not in (target, id_column)]
        elif id_column in features or target in features:
            raise ValueError(f"{path}: the target and the id column cannot also be features")
        return cls(frame, target, list(features), None if id_column is None else _ids(frame[id_column], path))

    @property
    def y(self) -> np.ndarray:
        """The target (n,), NaN where the cell is empty (an unlabeled row)."""
        return target_values(self.frame, self.target)

    def labeled(self) -> np.ndarray:
        """Mask (n,) of rows with a target value; ``ValueError`` when no row has one."""
        labeled = ~np.isnan(self.y)
        if not labeled.any():
            raise ValueError(f"the target column {quoted(self.target)} is empty: label at least one row")
        return labeled

    def rows(self, references, what: str) -> np.ndarray:
        """Row positions (k,) of row references (k,) read as text: 0-based positions, or the id
        column's values when the table has one ('115.0' names the id 115: ``as_held_ids``); an empty
        reference (or -1 without ids) is the constant 0 (``ZERO``) of a unary preference."""
        text = pd.Series(references, dtype=object).astype("string").str.strip()
        empty = (text.isna() | (text == "")).to_numpy()
        rows = np.full(len(text), ZERO, dtype=np.int64)
        given = text[~empty]
        if self.ids is None:
            positions = pd.to_numeric(given, errors="coerce")
            bad = given[positions.isna() | (positions != positions.round())]
        else:
            positions = pd.Series(self.ids.get_indexer(as_held_ids(given, self.ids)), index=given.index)
            bad = given[positions < 0]
        if len(bad):
            expected = "a 0-based row position" if self.ids is None else "a value of the id column"
            raise ValueError(f"{what}: {len(bad)} reference(s) are not {expected}, e.g. {quoted(bad.iloc[0])}")
        outside = given[(positions < 0) | (positions >= len(self.frame))]
        if len(outside):
            raise ValueError(
                f"{what}: {len(outside)} reference(s) are not a row of the table's {len(self.frame)} "
                f"(0 ... {len(self.frame) - 1}), e.g. {quoted(outside.iloc[0])}"
            )
        rows[~empty] = positions.to_numpy(dtype=np.int64)
        return rows

    def fingerprints(self) -> np.ndarray:
        """Each row's fingerprint (n,) as a Studio session on this table has it (``row_fingerprints``): its id
        column read as the Studio reads an upload, a number where every id is one."""
        frame = self.frame
        if self.ids is not None:
            column = frame[self.ids.name]
            numbers = pd.to_numeric(column, errors="coerce")
            if not (numbers.isna() & column.notna()).any():
                frame = frame.assign(**{self.ids.name: numbers})
        return row_fingerprints(frame)

    def name(self, row: int) -> str:
        """'home_id 102' (the id column and value) or 'row 3' (0-based) without ids."""
        return f"row {int(row)}" if self.ids is None else f"{self.ids.name} {self.ids[int(row)]}"


def _ids(column: pd.Series, path: Path) -> pd.Index:
    if column.isna().any():
        raise ValueError(f"{path}: the id column {quoted(column.name)} has empty cells")
    ids = pd.Index(column.astype(str).str.strip())
    if not ids.is_unique:
        raise ValueError(f"{path}: the id column {column.name!r} repeats {quoted(ids[ids.duplicated()][0])}")
    return ids


UNITS = ("line", "record")
"""What a refusal counts in a preference CSV, and in a JSON file."""

ANOTHER_TABLE = "fit on the table they were exported from (or drop their columns i_fingerprint, j_fingerprint)"
"""What to do with preferences a Studio session exported from a table that holds other values."""


def read_preferences(path: Path, table: Table) -> PreferenceSet:
    """Preferences from a CSV (columns i, j[, margin, weight]) or JSON file, their rows checked
    against ``table``, and against the fingerprints a Studio export writes beside them (rows that hold
    other values in ``table`` are refused, as the Studio's import refuses them: ``fingerprints``).
    ``ValueError`` naming the file for anything wrong."""
    try:
        unit = UNITS[ending(path) in (".json", ".jsonl")]  # a JSON file counts records from 1, no header
        frame, fingerprints = split_fingerprints(read_preference_table(path), unit)
        frame = by_ids(frame, table, unit)
        frame["i"], frame["j"] = table.rows(frame["i"], "i"), table.rows(frame["j"], "j")
        refuse_another_table(
            "preferences", frame, fingerprints, table.fingerprints(), table.name, "this table", ANOTHER_TABLE
        )
        neither = np.flatnonzero((frame["i"] == ZERO).to_numpy() & (frame["j"] == ZERO).to_numpy())
        if neither.size:
            raise ValueError(
                f"{neither.size} preference(s) name no row in either i or j (an empty cell or -1 is the "
                f"constant 0 of a unary preference; one side must be a row), e.g. preference {neither[0] + 1}"
            )
        preferences = PreferenceSet.from_frame(frame)
        preferences.check_indices(len(table.frame))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return preferences


def by_ids(frame: pd.DataFrame, table: Table, unit: str) -> pd.DataFrame:
    """A preference table whose rows are named by the id columns the Studio's exports write beside the
    positions i and j (``home_id_i``, ``home_id_j`` for the id column home_id), or instead of them: those
    ids as i and j, when the table has that id column; ``ValueError`` when it has none (positions would
    land on other rows of a table in another order); a warning names the first {unit} whose i or j is not
    the position of its id in the table."""
    named = [c[:-2] for c in frame.columns if str(c).endswith("_i") and f"{c[:-2]}_j" in frame.columns]
    if not named:
        return frame
    if table.ids is None or table.ids.name not in named:
        raise ValueError(
            f"it names its rows by {quoted(named[0])} (columns {named[0]}_i, {named[0]}_j): give --id {named[0]}"
        )
    column = table.ids.name
    ids = {side: _id_text(frame[f"{column}_{side}"]) for side in ("i", "j")}
    for side in [side for side in ids if side in frame.columns]:  # positions beside the ids: said if not theirs
        named = f"{column}_{side}"
        differ = other_positions(frame[side], table.rows(ids[side], named), ids[side], named, unit)
        if differ:
            warnings.warn(differ, stacklevel=2)
    return frame.assign(**ids)


def named_by_ids(frame: pd.DataFrame) -> pd.DataFrame:
    """A preference table whose rows are named by their ids alone (``<id>_i``, ``<id>_j``, no i or j) with
    those ids as i and j (``check`` names rows as the file does); any other as it is."""
    stems = [c[:-2] for c in frame.columns if str(c).endswith("_i") and f"{c[:-2]}_j" in frame.columns]
    if not stems or "i" in frame.columns or "j" in frame.columns:
        return frame
    return frame.assign(i=_id_text(frame[f"{stems[0]}_i"]), j=_id_text(frame[f"{stems[0]}_j"]))


def _id_text(values: pd.Series) -> pd.Series:
    """Ids as text; a column of whole numbers read as floats (an empty cell among them) without '.0'."""
    if not pd.api.types.is_float_dtype(values):
        return values
    return values.map(lambda v: "" if pd.isna(v) else (str(int(v)) if float(v).is_integer() else str(v)))


def _refuse_alike(named, columns, path) -> None:
    """``ValueError`` when a named column reads alike, once spaces around the names are trimmed, as two of
    the table's columns ('age' and 'age '): which one was meant cannot be told."""
    for name in named:
        alike = [c for c in columns if isinstance(c, str) and c.strip() == str(name).strip()]
        if len(alike) > 1:
            raise ValueError(
                f"{path}: the column name {quoted(name)} is ambiguous: the table has the columns "
                f"{' and '.join(map(quoted, alike))}, which differ only in spaces; rename one of them"
            )


def read_rules(path: Path) -> list[Rule]:
    """The rules in a JSON file (UTF-8, with or without a byte-order mark): one rule as ``Rule.to_json``
    writes it, or a list of them."""
    try:
        document = parse_json(read_utf8(path))
    except (json.JSONDecodeError, RecursionError) as error:
        raise ValueError(f"{path}: not a JSON file ({error})") from None
    except ValueError as error:  # not UTF-8 text, a key given twice
        raise ValueError(f"{path}: {error}") from None
    try:
        return [Rule.from_dict(item) for item in (document if isinstance(document, list) else [document])]
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def check_rules(rules: list[Rule], target: str | None = None) -> None:
    """``ValueError`` for a rule that reads the ``target`` column (it would leak labels) or repeats an
    earlier one (the same conditions and ordering: it would count its preferences twice), rules counted
    from 1 in the order given."""
    refuse_leaking_rules(rules, target)
    for k, rule in enumerate(rules):
        first = next((h for h in range(k) if rules[h].identity() == rule.identity()), None)
        if first is not None:
            raise ValueError(
                f"rule {k + 1} {quoted(rule.name)} is the same as rule {first + 1} {quoted(rules[first].name)} "
                "(the same conditions and ordering): leave one out"
            )


def rule_preferences(rules: list[Rule], table: Table, labeled=None, max_pairs: int | None = None):
    """The preferences every rule makes over the table's rows (as the Rules page: pairs with at least
    one unlabeled row when ``labeled`` is given; every pair, or at most ``max_pairs`` per rule sampled
    with seed 0)."""
    check_rules(rules, table.target)
    scope = "all" if labeled is None else "training"
    made = []
    for rule in rules:
        rule.refuse_id_column(None if table.ids is None else table.ids.name, "the --id column")
        rule.check_columns(table.frame)
        made.append(generate(rule, table.frame, labeled, scope=scope, max_pairs=max_pairs, random_state=0))
    return PreferenceSet.concatenate([m.preferences for m in made])


def label_chain(y: np.ndarray) -> PreferenceSet:
    """The labels' order as preferences for a model that learns from preferences only (the GP):
    each labeled row over the next lower one, d = 0; tied labels are left unordered."""
    labeled = np.flatnonzero(~np.isnan(y))
    ranked = labeled[np.argsort(-y[labeled], kind="stable")]
    higher, lower = ranked[:-1], ranked[1:]
    strict = y[higher] > y[lower]
    return PreferenceSet.order(higher[strict], lower[strict])


def fit_table(table: Table, preferences: PreferenceSet, model: str, parameters: dict):
    """(estimator, preprocessing) fitted on every row of ``table`` by the family ``model`` (a key of
    ``table_models()``), with its Studio settings ``parameters`` and its estimator's defaults for the
    rest: from the labels and the preferences when it learns both; from the labeled rows when it learns
    labels alone (then there may be no preferences); from the pairwise preferences and the labels' order
    (``label_chain``) when it learns preferences alone, its predictions a latent utility on no target's
    scale."""
    models = table_models()
    if model not in models:
        raise ValueError(f"model must be one of {sorted(models)}, got {quoted(model)}")
    chosen = models[model]
    unknown = sorted(set(parameters) - set(chosen.studio_settings))
    if unknown:
        able = [key for key, f in models.items() if set(parameters) <= set(f.studio_settings)]
        raise ValueError(
            f"the {chosen.label} has no setting {unknown}: --gamma, --lambda1 and --lambda2 apply to the LP only, "
            f"or to a model with the same settings ({', '.join(able)})"
        )
    preprocessing = Preprocessing.fit(table.frame, table.features)
    X, y = preprocessing.transform(table.frame), table.y
    _check_gamma(parameters.get("gamma"), X)
    estimator = chosen.make(parameters)
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=SEED)
    return _fit(chosen, estimator, X, y, preferences), preprocessing


def _check_gamma(gamma: float | None, X: np.ndarray) -> None:
    """``ValueError`` for a ``gamma`` whose kernel exponent, gamma times a squared distance between rows
    (at most the sum of the features' squared ranges), overflows float64."""
    reach = float(np.sum(np.ptp(X, axis=0) ** 2))
    if gamma is not None and not np.isfinite(gamma * reach):
        raise ValueError(
            f"--gamma {gamma:g} is too large: gamma times the squared distance between rows (up to {reach:.3g}) "
            "overflows float64"
        )


def _fit(chosen: ModelFamily, estimator, X: np.ndarray, y: np.ndarray, preferences: PreferenceSet):
    """``estimator`` fitted as ``fit_table`` says, by what ``chosen`` learns from."""
    if Learns.PREFERENCES not in chosen.learns:
        if len(preferences):
            raise ValueError(f"the {chosen.label} learns from labels alone: leave out --preferences and --rules")
        labeled = ~np.isnan(y)
        return estimator.fit(X[labeled], y[labeled])
    if Learns.LABELS in chosen.learns:
        return estimator.fit(X, y, preferences)
    pairwise = preferences[~preferences.is_unary] + label_chain(y)
    if len(pairwise) == 0:
        raise ValueError(f"the {chosen.label} needs pairwise preferences or at least two different labels")
    return estimator.fit(X, pairwise)


PREDICTED = ("prediction", "std", "lower", "upper")
"""The columns ``predict_table`` writes besides the id: an id column may not be named as one of them."""


def predict_table(model_file: ModelFile, frame: pd.DataFrame) -> pd.DataFrame:
    """One row per row of ``frame``, in order: the id column when the model was fitted with one and
    ``frame`` has it, ``prediction``, and ``std`` where its family offers uncertainty (the GP), ``lower``
    and ``upper`` where it offers intervals (MPMR)."""
    if model_file.preprocessing is None:
        raise ValueError("the model file holds no preprocessing; save it with 'python -m ordercore fit'")
    X = model_file.preprocessing.transform(frame)
    try:
        return _predictions(model_file, frame, X)
    except ValueError as error:
        if "too large to compute" not in str(error):
            raise
        raise ValueError(_largest_cell(frame, model_file.metadata.get("features") or [])) from None


def _largest_cell(frame: pd.DataFrame, features: list) -> str:
    """Where ``frame``'s feature column holds the value of largest magnitude, in the table's own units: the
    kernel's overflow named a scaled value and sklearn's StandardScaler."""
    numeric = frame[[c for c in features if c in frame.columns]].apply(pd.to_numeric, errors="coerce").abs()
    column = numeric.max().idxmax()
    row = int(numeric[column].to_numpy().argmax())
    return (
        f"feature column {quoted(column)} holds {frame[column].iloc[row]} on line {row + 2} (row {row} counted from 0 "
        "below the header), too large for the model's kernel to compute in float64: correct the value or drop "
        "the row"
    )


def _predictions(model_file: ModelFile, frame: pd.DataFrame, X) -> pd.DataFrame:
    out = pd.DataFrame(index=frame.index)
    id_column = model_file.metadata.get("id")
    if id_column is not None and id_column in frame.columns:
        out[id_column] = frame[id_column]
    estimator = model_file.estimator
    chosen = family_of(type(estimator))
    offers = frozenset() if chosen is None else chosen.offers
    if Offer.UNCERTAINTY in offers:
        out["prediction"], out["std"] = estimator.predict(X, return_std=True)
    else:
        out["prediction"] = estimator.predict(X)
    if Offer.INTERVALS in offers:
        out["lower"], out["upper"] = estimator.predict_interval(X)
    return out.reset_index(drop=True)


def check_preference_file(*paths: Path) -> tuple[GraphReport, int, pd.Index]:
    """(report, number of preferences, names) for preference files read together (several: a cycle may
    run across them) whose rows are named by position or id alike: the report's row numbers index
    ``names``, the files' references as text.  A ``source`` column, when present, tells equalities from
    conflicts (``check_preference_graph``)."""
    frames = []
    for path in paths:
        try:
            frames.append(named_by_ids(read_preference_table(path)))
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    frame = pd.concat(frames, ignore_index=True)
    try:
        text = {c: frame[c].astype("string").str.strip().fillna("") for c in ("i", "j")}
        names = pd.Index(sorted((set(text["i"]) | set(text["j"])) - {"", str(ZERO)}))
        # Row numbers into names; an empty reference or -1 is ZERO, get_indexer's "not found".
        preferences = PreferenceSet.from_frame(frame.assign(**{c: names.get_indexer(text[c]) for c in text}))
    except ValueError as error:
        raise ValueError(f"{', '.join(map(str, paths))}: {error}") from None
    sources = frame["source"].astype(str).to_numpy() if "source" in frame else None
    return check_preference_graph(preferences, sources), len(preferences), names
