"""The Data page's choice of a session's data: what the page starts from (the session's own choices
on its source, else the source's defaults), what it refuses, and the one call that stores the choice.

The page lays these out; nothing here imports Streamlit.  The data itself (sources, preparation, the
split) is ``data.py``'s; the store keeps the table and the session's settings.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ordercore.inputs.counts import row_numbers, whole_number
from ordercore.studio import store as store_module
from ordercore.studio.data import (
    DEFAULT_N_LABELED,
    StudyData,
    available_sources,
    data_settings,
    is_free_text,
)
from ordercore.studio.splits import DEFAULT_TEST_FRACTION
from ordercore.studio.store import describe_contents


def fixed_data_notice(settings: dict, held: dict) -> str | None:
    """Why the session's data can no longer change, or None while it can: once a session on a source
    holds anything (``held``: ``Store.contents``), their row numbers refer to its table."""
    if not (settings.get("source") and any(held.values())):
        return None
    return (
        f"This session holds {describe_contents(held)} on {settings.get('name', settings['source'])}: its "
        "data is fixed, as their row numbers refer to it. Create a new session (sidebar) to work on other data."
    )


def source_choice(settings: dict) -> tuple[list[str], int]:
    """The sources the page offers (``available_sources`` and an upload) and the position of the
    session's among them (the sample's when it has none, or its source is not available here)."""
    sources = available_sources() + ["upload"]
    current = settings.get("source", "sample")
    return sources, sources.index(current) if current in sources else 0


def upload_megabytes() -> int:
    """The largest upload the store keeps, in MB (``store.MAX_DATASET_BYTES``, read at each call)."""
    return store_module.MAX_DATASET_BYTES // 2**20


def check_upload_size(size: int) -> None:
    """``ValueError`` for an upload of ``size`` bytes larger than the store keeps: said before the
    file is read."""
    if size > store_module.MAX_DATASET_BYTES:
        raise ValueError(f"it is larger than {upload_megabytes()} MB.")


@dataclass(frozen=True)
class DataForm:
    """What the page starts from for a table of ``source``: the session's target, features, labeled
    budget, test share and seed when the session is on that source, else the source's defaults.
    ``most_labeled``: all rows but two (one to test, one to pair) and all rows with a target but one,
    at least 1; the budget starts at ``DEFAULT_N_LABELED`` or four in five of the rows with a target,
    whichever is fewer (the rest are held out or pooled: ``study_data``).  ``test_fraction``: of a table
    whose target is missing in some rows (an expert's own, with a few known values), every other row with
    a target is held out to measure the models (1; a new user saw 8 of their 49 known prices pooled,
    their values unused, and 2 held out), of a table with every target known 0.2."""

    columns: list[str]
    target: str
    features: list[str]
    most_labeled: int
    n_labeled: int
    test_fraction: float
    seed: int

    @classmethod
    def of(cls, settings: dict, source: str, frame: pd.DataFrame, default_target: str, default_features) -> DataForm:
        """The form over ``frame`` (n rows), from the session's ``settings`` and the source's defaults."""
        same = source == settings.get("source", "sample")
        columns = [str(c) for c in frame.columns]
        target = settings["target"] if same and settings.get("target") in columns else default_target
        features = settings.get("features") if same and settings.get("features") else default_features
        known = int(pd.to_numeric(frame[target], errors="coerce").notna().sum()) if target in columns else len(frame)
        most = max(1, min(len(frame) - 2, known - 1))
        budget = int(settings.get("n_labeled", min(DEFAULT_N_LABELED, max(1, round(0.8 * known)))))
        return cls(
            columns=columns,
            target=target,
            features=list(features),
            most_labeled=most,
            n_labeled=min(budget, most),
            test_fraction=float(settings.get("test_fraction", DEFAULT_TEST_FRACTION if known == len(frame) else 1.0)),
            seed=int(settings.get("seed", 0)),
        )

    def feature_options(self, target: str) -> list[str]:
        """Every column but the target."""
        return [c for c in self.columns if c != target]

    def starting_features(self, target: str) -> list[str]:
        """The features the form starts from, without the target."""
        return [c for c in self.features if c != target]


def split_choice(n_labeled: int, test_fraction: float, seed: int, labeled=None) -> dict:
    """The split ``data_settings`` draws from: the labeled budget, the test share of the rest and the
    seed, and the ``labeled`` rows when they are chosen by hand (None: drawn at random)."""
    split = {
        "n_labeled": whole_number(n_labeled, "the labeled budget", 1),
        "test_fraction": float(test_fraction),
        "seed": whole_number(seed, "the seed"),
    }
    if labeled is not None:
        split["labeled"] = row_numbers(labeled, None, "labeled row").tolist()
    return split


def use_data(
    store,
    session_id: int,
    frame: pd.DataFrame,
    source: str,
    target: str,
    features,
    split: dict,
    upload=None,
    name: str | None = None,
) -> StudyData:
    """Make ``frame`` of ``source`` (with its CSV bytes ``upload`` and file ``name``, if uploaded) the
    session's data with this target, these features and this ``split``, in ``store``; the data it gives.  ``ValueError``
    saying why for a choice the models cannot take or a session whose data is fixed: then the
    session's settings are unchanged."""
    settings, data = data_settings(frame, source, target, features, split, name)
    dataset_id = store.add_dataset(settings["name"], frame, upload)
    store.update_settings(session_id, settings, dataset_id)
    return data


def split_summary(name: str, data: StudyData) -> str:
    """The split of the data set ``name`` (an upload's file name, or ``SOURCE_LABELS``') in one sentence,
    e.g. 'Session uses Sample homes (generated): 60 labeled, 588 held out, 2,352 in the pool.'"""
    counts = f"{data.labeled.size:,} labeled, {data.test.size:,} held out, {data.pool.size:,} in the pool"
    return f"Session uses {name}: {counts}."


def split_warning(data: StudyData) -> str | None:
    """What the split leaves too little of, in words (None: enough to compare): a labeled budget near
    the table's size labels most of it and leaves fewer than ``FEW_TO_COMPARE`` rows to compare."""
    if data.pool.size >= FEW_TO_COMPARE:
        return None
    return (
        f"Only {data.pool.size:,} of the {len(data.frame):,} rows are left unlabeled to compare "
        f"({data.labeled.size:,} labeled, {data.test.size:,} held out): lower the labeled budget."
    )


FEW_TO_COMPARE = 10
"""Fewer unlabeled rows than this in the pool: the Data page says the split leaves too few to compare."""


def split_counts(data: StudyData) -> list[tuple[str, str]]:
    """(label, count) of the session's rows: all, labeled, held out for testing, in the unlabeled pool."""
    return [
        ("Rows", f"{len(data.frame):,}"),
        ("Labeled", f"{data.labeled.size:,}"),
        ("Held out for testing", f"{data.test.size:,}"),
        ("Unlabeled pool", f"{data.pool.size:,}"),
    ]


def in_use(settings: dict, source: str, target: str, features, split: dict, same_table: bool = True) -> bool:
    """Whether the session's ``settings`` hold this choice already (its source, target, features and
    ``split_choice``) on ``same_table`` (``kept_upload``: another file of the same columns is not in use):
    the Data page then shows the session's table, not a preview before use."""
    chosen = {"source": source, "target": target, "features": list(features), **split}
    return same_table and all(settings.get(key) == value for key, value in chosen.items())


def kept_upload(store, session, upload: bytes | None) -> bool:
    """Whether ``upload`` (a CSV file's bytes; None: no upload) is, byte for byte, the upload the
    ``session`` (``SessionInfo``) uses, as ``store`` keeps it; True without an upload."""
    if upload is None:
        return True
    return session.dataset_id is not None and store.dataset(session.dataset_id)["content"] == upload


def column_kinds(data: StudyData) -> pd.DataFrame:
    """Each column of the table with its kind (numbers, categories, text, id) and its role in the session
    (target, feature, the id naming the rows, or not used): the Data page's preview before use."""
    target, features = data.dataset.metadata["target"], data.dataset.metadata["features"]
    identifier = data.row_names.identifier
    rows = []
    for column in data.frame.columns:
        values = data.frame[column]
        if column == identifier:
            kind = "id"
        elif is_free_text(values):
            kind = "text"
        elif pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            kind = "numbers"
        else:
            kind = f"categories ({values.nunique():,} values)"
        role = (
            "target (what the model predicts)"
            if column == target
            else "feature"
            if column in features
            else "names the rows"
            if column == identifier
            else "not a feature"
        )
        rows.append({"column": str(column), "kind": kind, "role": role})
    return pd.DataFrame(rows)
