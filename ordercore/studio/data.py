"""What a labelling session needs besides storage and models: its data (source, target, features,
the labeled budget and a hidden test split).  Its models are in ``ordercore.studio.workbench``.

The Streamlit pages call this module and lay out what it returns; nothing here imports Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from ordercore.data.benchmarks import BENCHMARKS, data_directory, load_dataset
from ordercore.data.feature_checks import MAX_CATEGORIES
from ordercore.data.tables import Dataset, prepare, read_csv
from ordercore.inputs.counts import row_numbers, whole_number
from ordercore.inputs.printable import quoted
from ordercore.lp.problem import TargetScaling
from ordercore.preferences import PreferenceSet
from ordercore.studio.numbers import significant
from ordercore.studio.row_names import RowNames
from ordercore.studio.splits import check_split, held_out_share

SAMPLE_PATH = Path(__file__).resolve().parents[2] / "sample_data" / "homes.csv"
SAMPLE_TARGET = "price"
SAMPLE_FEATURES = ["latitude", "longitude", "age", "income", "bedrooms", "rooms", "floor_area"]
SOURCE_LABELS = {
    "sample": "Sample homes (generated)",
    "california": "California housing",
    "boston": "Boston housing",
    "abalone": "Abalone",
    "upload": "Upload a CSV",
}
DEFAULT_N_LABELED = 60


def available_sources() -> list[str]:
    """'sample' always; each benchmark whose file is in ORDERCORE_DATA (the Studio never downloads)."""
    sources = ["sample"]
    directory = data_directory()
    for name, spec in BENCHMARKS.items():
        if directory is not None and (directory / spec.file).is_file():
            sources.append(name)
    return sources


def load_source(source: str, upload: bytes | None = None) -> tuple[pd.DataFrame, str, list[str]]:
    """(table, default target, default features) of a source: 'sample', a benchmark name, or
    'upload' with the CSV's bytes (parsed as data only; raises ``ValueError`` with what is wrong)."""
    if source == "sample":
        return pd.read_csv(SAMPLE_PATH), SAMPLE_TARGET, list(SAMPLE_FEATURES)
    if source == "upload":
        if upload is None:
            raise ValueError("choose a CSV file to upload")
        frame = read_csv(upload)
        return (frame, *upload_defaults(frame))
    if source in BENCHMARKS:
        dataset = load_dataset(source)
        target = dataset.metadata["target"]
        return dataset.frame, target, [c for c in dataset.frame.columns if c != target]
    raise ValueError(f"unknown data source {source!r}")


SPREAD_NAMES = ("sd", "std", "se", "sem", "var", "variance", "stderr")
"""Column names (lower case, or ending in '_' + one of them) of a spread, such as a rating's standard
deviation beside its mean: ``upload_defaults`` does not start from one as the target."""


def upload_defaults(frame: pd.DataFrame) -> tuple[str, list[str]]:
    """(target, features) an uploaded table starts from: the last numeric column not named as an
    identifier or a spread (``IDENTIFIER_NAMES``, ``SPREAD_NAMES``: the movie snippets' mean_rating, not
    its rating_sd), else the last numeric column, else the last column; and every other column a model
    can take, numeric or with at most ``MAX_CATEGORIES`` distinct values (free text, such as a column
    of sentences, is left out)."""
    numeric = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    measured = [c for c in numeric if not named_like(c, IDENTIFIER_NAMES + SPREAD_NAMES)]
    target = (measured or numeric or [str(frame.columns[-1])])[-1]
    return target, upload_features(frame, target)


def upload_features(frame: pd.DataFrame, target: str) -> list[str]:
    """Every column but ``target`` a model can take: numeric, or with at most ``MAX_CATEGORIES`` values;
    neither the row identifier (``identifier_column``: car_id 5001 … is a name, not a measurement) nor
    free text (``is_free_text``), which the Studio shows beside each row instead.  The identifier only
    when nothing else is left (a table of texts, graded by its texts: the models need one feature)."""
    identifier = identifier_column(frame, [target])
    measured = [
        str(c)
        for c in frame.columns
        if str(c) not in (target, identifier)
        and (
            pd.api.types.is_numeric_dtype(frame[c])
            or (frame[c].nunique() <= MAX_CATEGORIES and not is_free_text(frame[c]))
        )
    ]
    return measured or ([identifier] if identifier is not None else [])


def is_free_text(values: pd.Series) -> bool:
    """Whether a column holds phrases ('one owner, small dent') rather than categories ('N01', 'sedan'):
    not numeric, a space in at least half of its values, 12 characters or more on average."""
    if pd.api.types.is_numeric_dtype(values):
        return False
    texts = values.dropna().astype(str)
    return bool(len(texts)) and texts.str.contains(" ").mean() >= 0.5 and texts.str.len().mean() >= 12


ROLE_COLUMN = "row is"
"""The Data preview's first column: 'labeled', 'unlabeled' (asked about) or 'held out' (measures the models)."""


def _free_name(name: str, taken) -> str:
    """``name``, or ``name`` with a number after it when the table has a column of that name."""
    taken, k, free = {str(c) for c in taken}, 2, name
    while free in taken:
        free, k = f"{name} ({k})", k + 1
    return free


@dataclass
class StudyData:
    """A session's data: the prepared table, and which rows are labeled, held out for testing, or
    in the unlabeled pool.  y_true is the target where the table has it (NaN elsewhere); the models
    only ever see it on ``labeled`` rows."""

    dataset: Dataset
    labeled: np.ndarray
    test: np.ndarray

    @property
    def frame(self) -> pd.DataFrame:
        return self.dataset.frame

    @property
    def y_true(self) -> np.ndarray:
        return self.dataset.y

    @property
    def pool(self) -> np.ndarray:
        """Unlabeled rows that are not held out: where preferences are asked."""
        mask = np.ones(len(self.y_true), dtype=bool)
        mask[self.labeled] = False
        mask[self.test] = False
        return np.flatnonzero(mask)

    @cached_property
    def row_names(self) -> RowNames:
        """How the Studio names these rows and writes their values (``row_names.RowNames``), built once."""
        target = self.dataset.metadata["target"]
        identifier = identifier_column(self.frame, [target, *self.dataset.metadata["features"]])
        return RowNames.of(self.frame, target, identifier)

    def shown(self, n: int = 200) -> pd.DataFrame:
        """The first ``n`` rows as the expert may see them, as text: first what each row is in the
        session (``ROLE_COLUMN``: labeled, unlabeled or held out), then each value as ``RowNames``
        writes it (two different values never read the same; the id as written), the target only on
        the labeled rows (the others are unlabeled or held out: seeing their targets would colour the
        answers, and the held-out ones measure the models).  The id and the target come first, then the
        other columns in their order: a wide table (a long description) hid a new user's price_eur."""
        target, identifier = self.dataset.metadata["target"], self.row_names.identifier
        names = RowNames.of(self.frame, None, identifier)  # every column written, the target too
        first = [c for c in (identifier, target) if c is not None and c in self.frame.columns]
        head = self.frame.head(n)[[*first, *(c for c in self.frame.columns if c not in first)]]
        shown = pd.DataFrame({column: [names.value(str(column), v) for v in head[column]] for column in head.columns})
        labeled = np.isin(np.arange(len(head)), self.labeled)
        shown.loc[~labeled, target] = ""
        role = np.where(labeled, "labeled", np.where(np.isin(np.arange(len(head)), self.test), "held out", "unlabeled"))
        shown.insert(0, _free_name(ROLE_COLUMN, shown.columns), role)
        return shown

    def numeric_features(self) -> list[str]:
        """The session's feature columns that hold numbers (the raw table's, not X's indicators)."""
        features = self.dataset.metadata["features"]
        return [c for c in features if pd.api.types.is_numeric_dtype(self.frame[c])]

    def y_train(self) -> np.ndarray:
        """The target on labeled rows, NaN elsewhere (test rows included)."""
        y = np.full(len(self.y_true), np.nan)
        y[self.labeled] = self.y_true[self.labeled]
        return y


def study_data(frame: pd.DataFrame, target: str, features: list[str], settings: dict) -> StudyData:
    """Prepare the table and apply a session's split: settings['labeled'] and settings['test'] are
    row lists; missing, they are drawn from settings['n_labeled'] (default 60), settings['test_fraction']
    (the share of the other rows with a target held out; default 0.2, the rest pooled with their target
    hidden) and settings['seed'] (default 0) among rows whose target is known.  With
    settings['labeled'] alone (rows chosen by hand), only the test rows are drawn.  The settings pass
    ``splits.check_split``, as the store's do."""
    check_split(settings)
    repeated = frame.columns[frame.columns.duplicated()]
    if len(repeated):
        name = repeated[0]
        count = int((frame.columns == name).sum())
        raise ValueError(f"the table has {count} columns named {quoted(name)}: rename all but one")
    dataset = prepare(frame, target, features, name=settings.get("name", "data"))
    fraction = held_out_share(settings)
    known = np.flatnonzero(~np.isnan(dataset.y))
    rng = np.random.default_rng(whole_number(settings.get("seed", 0), "the seed"))
    if "labeled" in settings and "test" in settings:
        labeled = row_numbers(settings["labeled"], len(dataset.y), "labeled row")
        test = row_numbers(settings["test"], len(dataset.y), "test row")
    elif "labeled" in settings:  # chosen by hand; the test split is drawn from the other known rows
        labeled = np.unique(row_numbers(settings["labeled"], None, "labeled row"))
        outside = labeled[(labeled < 0) | (labeled >= len(dataset.y))]
        if labeled.size == 0 or outside.size:
            beyond = f" (row {outside[0]} is not one of its 0 … {len(dataset.y) - 1})" if outside.size else ""
            raise ValueError(f"choose at least one labeled row, among the table's rows{beyond}")
        if np.isnan(dataset.y[labeled]).any():
            raise ValueError("every labeled row needs a target value")
        rest = rng.permutation(np.setdiff1d(known, labeled))
        test = np.sort(rest[: int(round(fraction * rest.size))])
    else:
        n_labeled = whole_number(settings.get("n_labeled", DEFAULT_N_LABELED), "the labeled budget", 1)
        if known.size < 2:
            raise ValueError(f"the target column {target!r} has a value in {known.size} row(s); at least 2 are needed")
        if not 1 <= n_labeled < known.size:
            raise ValueError(f"the labeled budget must be between 1 and {known.size - 1} (rows with a target)")
        order = rng.permutation(known)
        n_test = int(round(fraction * (known.size - n_labeled)))
        labeled, test = np.sort(order[:n_labeled]), np.sort(order[n_labeled : n_labeled + n_test])
    if np.intersect1d(labeled, test).size:
        raise ValueError("labeled and test rows overlap")
    TargetScaling.from_labels(dataset.y[labeled])  # the models' scaling of the labels: ValueError if it overflows
    return StudyData(dataset, labeled, test)


def check_margin(data: StudyData, margin: float) -> None:
    """``ValueError`` saying why when the models cannot fit a preference with this margin (in the
    target's units) on the session's labels (``TargetScaling.margins``)."""
    TargetScaling.from_labels(data.y_true[data.labeled]).margins(PreferenceSet([0], [1], float(margin)))


def data_settings(
    frame: pd.DataFrame, source: str, target: str, features: list[str], split: dict, name: str | None = None
) -> tuple[dict, StudyData]:
    """What a session stores for its data, and the data it gives: the source, target and features, its
    ``name`` (an upload's file name; else the source's label), and the split drawn once from ``split``
    (n_labeled, test_fraction, seed, and 'labeled' rows when chosen by hand), stored as row lists so
    that it never changes, and the models' scaling of its labels, 'label_scaling' (center, scale: the
    store refuses a margin they cannot fit, ``store.sessions.check_margins``).  ``ValueError`` for a bad
    choice."""
    if source not in SOURCE_LABELS:
        raise ValueError(f"unknown data source {quoted(source)}: the sources are {', '.join(SOURCE_LABELS)}")
    settings = {"source": source, "target": target, "features": list(features), **split}
    settings["name"] = name or SOURCE_LABELS[source]
    data = study_data(frame, target, features, settings)
    scaling = TargetScaling.from_labels(data.y_true[data.labeled])
    settings.update(labeled=data.labeled.tolist(), test=data.test.tolist(), n_rows=len(frame))
    settings["label_scaling"] = [scaling.center, scaling.scale]  # the store checks margins with it
    return settings, data


IDENTIFIER_NAMES = ("id", "name", "identifier", "key", "title")
"""Column names (lower case, or ending in '_' + one of them) that ``identifier_column`` takes for a
row identifier."""


def named_like(column, names) -> bool:
    """Whether a column's name, in lower case, is one of ``names`` or ends in '_' or ' ' and one of them."""
    name = str(column).strip().lower()
    return any(name == n or name.endswith(("_" + n, " " + n)) for n in names)


def identifier_column(frame: pd.DataFrame, exclude) -> str | None:
    """The table's identifier column, if it has one, among the columns not in ``exclude`` (the target
    and features) whose values are all present and distinct: the first named like one of
    ``IDENTIFIER_NAMES``, else the first of codes (``is_code_column``: 'F-3836', whatever its name)."""
    candidates = [c for c in frame.columns if c not in exclude and frame[c].notna().all() and frame[c].is_unique]
    named = [c for c in candidates if named_like(c, IDENTIFIER_NAMES)]
    codes = [c for c in candidates if len(frame) > 1 and is_code_column(frame[c])]
    return (named or codes or [None])[0]


def is_code_column(values: pd.Series) -> bool:
    """Whether a column of distinct values reads as codes naming rows ('F-3836', 'N01'): text, not
    numbers, not phrases (``is_free_text``)."""
    return (
        not pd.api.types.is_numeric_dtype(values)
        and not pd.api.types.is_bool_dtype(values)
        and not is_free_text(values)
    )


def readable(value) -> str:
    """A value as the Studio shows it: numbers rounded for reading (1,234 / 12.35 / 0.1235, "—" when not
    finite), text as it is, nothing for a missing value."""
    if value is None or (isinstance(value, float | np.floating) and np.isnan(value)):
        return "—" if value is not None else ""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return str(value)
    if not np.isfinite(value):
        return "—"
    return f"{value:,.0f}" if abs(value) >= 1000 else significant(value)
