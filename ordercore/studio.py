"""What a labelling session needs besides storage: its data (source, target, features, the labeled
budget and a hidden test split) and its models, retrained as preferences change.

The Streamlit pages call this module and lay out what it returns; nothing here imports Streamlit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import mean_absolute_error

from ordercore.datasets import BENCHMARKS, Dataset, data_directory, load_dataset, prepare, read_csv
from ordercore.gp.estimator import GPPreferenceModel
from ordercore.lp.estimator import OrderPreferenceRegressor
from ordercore.preferences import PreferenceSet

SAMPLE_PATH = Path(__file__).resolve().parents[1] / "sample_data" / "homes.csv"
SAMPLE_TARGET = "price"
SAMPLE_FEATURES = ["latitude", "longitude", "age", "income", "bedrooms", "rooms", "floor_area"]

N_CANDIDATES = 400
"""Random pool pairs the next-question scorer ranks at each step."""


def available_sources() -> list[str]:
    """'sample' always; each benchmark whose file is in ORDERCORE_DATA ('california' also online)."""
    sources = ["sample"]
    directory = data_directory()
    for name, spec in BENCHMARKS.items():
        if (directory is not None and (directory / spec.file).is_file()) or name == "california":
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
        return frame, str(frame.columns[-1]), [str(c) for c in frame.columns[:-1]]
    if source in BENCHMARKS:
        dataset = load_dataset(source)
        target = dataset.metadata["target"]
        return dataset.frame, target, [c for c in dataset.frame.columns if c != target]
    raise ValueError(f"unknown data source {source!r}")


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

    def y_train(self) -> np.ndarray:
        """The target on labeled rows, NaN elsewhere (test rows included)."""
        y = np.full(len(self.y_true), np.nan)
        y[self.labeled] = self.y_true[self.labeled]
        return y


def study_data(frame: pd.DataFrame, target: str, features: list[str], settings: dict) -> StudyData:
    """Prepare the table and apply a session's split: settings['labeled'] and settings['test'] are
    row lists; missing, they are drawn from settings['n_labeled'] (default 60), settings['test_fraction']
    (default 0.2) and settings['seed'] (default 0) among rows whose target is known.  With
    settings['labeled'] alone (rows chosen by hand), only the test rows are drawn."""
    dataset = prepare(frame, target, features, name=settings.get("name", "data"))
    known = np.flatnonzero(~np.isnan(dataset.y))
    rng = np.random.default_rng(int(settings.get("seed", 0)))
    if "labeled" in settings and "test" in settings:
        labeled, test = np.asarray(settings["labeled"], int), np.asarray(settings["test"], int)
    elif "labeled" in settings:  # chosen by hand; the test split is drawn from the other known rows
        labeled = np.unique(np.asarray(settings["labeled"], int))
        if labeled.size == 0 or np.any((labeled < 0) | (labeled >= len(dataset.y))):
            raise ValueError("choose at least one labeled row, among the table's rows")
        if np.isnan(dataset.y[labeled]).any():
            raise ValueError("every labeled row needs a target value")
        rest = rng.permutation(np.setdiff1d(known, labeled))
        test = np.sort(rest[: int(round(float(settings.get("test_fraction", 0.2)) * rest.size))])
    else:
        n_labeled = int(settings.get("n_labeled", 60))
        if not 1 <= n_labeled < known.size:
            raise ValueError(f"the labeled budget must be between 1 and {known.size - 1} (rows with a target)")
        order = rng.permutation(known)
        n_test = int(round(float(settings.get("test_fraction", 0.2)) * (known.size - n_labeled)))
        labeled, test = np.sort(order[:n_labeled]), np.sort(order[n_labeled : n_labeled + n_test])
    if np.intersect1d(labeled, test).size:
        raise ValueError("labeled and test rows overlap")
    return StudyData(dataset, labeled, test)


@dataclass
class Retrain:
    """What one retrain did: seconds, how it started ('cold', 'hot', 'kept'), test MAE of SVR and
    SSL (NaN without a test split), preferences violated by each, and how far SSL's test
    predictions moved (mean absolute change)."""

    seconds: float
    start: str
    svr_mae: float
    ssl_mae: float
    svr_violated: int
    ssl_violated: int
    moved: float


@dataclass
class Workbench:
    """The LP models of a session: SVR (labels only) and SSL (labels and preferences).

    ``update(preferences)`` re-solves SSL warm when the new set extends or shortens the last one
    (a click, an undo), and from scratch otherwise (a rule removed, hyperparameters changed).  It
    keeps what the pages plot: both models' predictions on the held-out rows (``svr_test``,
    ``ssl_test``) and which preferences each violates (``svr_violated``, ``ssl_violated``)."""

    data: StudyData
    gamma: float | None = None
    lambda1: float = 1e-3
    lambda2: float = 1.0
    svr: OrderPreferenceRegressor = field(init=False)
    ssl: OrderPreferenceRegressor | None = field(init=False, default=None)
    svr_test: np.ndarray = field(init=False)
    ssl_test: np.ndarray | None = field(init=False, default=None)
    svr_violated: np.ndarray | None = field(init=False, default=None)
    ssl_violated: np.ndarray | None = field(init=False, default=None)

    def __post_init__(self):
        X, y = self.data.dataset.X, self.data.y_train()
        self.svr = OrderPreferenceRegressor(gamma=self.gamma, lambda1=self.lambda1, lambda2=0.0).fit(X, y)
        self.svr_test = self.svr.predict(X[self.data.test]) if self.data.test.size else np.zeros(0)

    def update(self, preferences: PreferenceSet) -> Retrain:
        start = time.perf_counter()
        X, y = self.data.dataset.X, self.data.y_train()
        current = self.ssl.preferences_ if self.ssl is not None else None
        if current is not None and len(preferences) >= len(current) and preferences[: len(current)] == current:
            if len(preferences) > len(current):
                self.ssl.add_preferences(preferences[len(current) :])
        elif current is not None and len(preferences) < len(current) and current[: len(preferences)] == preferences:
            self.ssl.remove_preferences(np.arange(len(preferences), len(current)))
        else:
            self.ssl = OrderPreferenceRegressor(gamma=self.gamma, lambda1=self.lambda1, lambda2=self.lambda2).fit(
                X, y, preferences
            )
        seconds = time.perf_counter() - start
        previous = self.ssl_test
        self.ssl_test = self.ssl.predict(X[self.data.test]) if self.data.test.size else np.zeros(0)
        self.svr_violated = self.svr.violated(preferences)
        self.ssl_violated = self.ssl.violated_
        svr_mae = ssl_mae = moved = float("nan")
        if self.data.test.size:
            truth = self.data.y_true[self.data.test]
            svr_mae = float(mean_absolute_error(truth, self.svr_test))
            ssl_mae = float(mean_absolute_error(truth, self.ssl_test))
            if previous is not None:
                moved = float(np.mean(np.abs(self.ssl_test - previous)))
        return Retrain(
            seconds=seconds,
            start=self.ssl.solve_start_,
            svr_mae=svr_mae,
            ssl_mae=ssl_mae,
            svr_violated=int(self.svr_violated.sum()),
            ssl_violated=int(self.ssl_violated.sum()),
            moved=moved,
        )

    def next_pair(self, strategy: str, rng: np.random.Generator) -> tuple[int, int] | None:
        """The next pair of pool rows to ask: 'margin' (SSL least sure of the order),
        'disagreement' (SSL and SVR differ most) or 'random'.  None when the pool has < 2 rows."""
        pool = self.data.pool
        if pool.size < 2:
            return None
        a = rng.choice(pool, N_CANDIDATES)
        b = rng.choice(pool, N_CANDIDATES)
        candidates = np.column_stack([a, b])[a != b]
        if strategy == "random" or self.ssl is None:
            return tuple(int(v) for v in candidates[0])
        if strategy not in ("margin", "disagreement"):
            raise ValueError(f"strategy must be 'margin', 'disagreement' or 'random', got {strategy!r}")
        reference = self.svr if strategy == "disagreement" else None
        chosen = self.ssl.suggest_pairs(candidates, k=1, reference=reference)
        return tuple(int(v) for v in chosen[0]) if len(chosen) else tuple(int(v) for v in candidates[0])


def gp_latent(data: StudyData, preferences: PreferenceSet, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The GP preference model's latent mean and standard deviation at ``rows`` (from pairwise
    preferences only; unary ones are left out)."""
    pairwise = preferences[~preferences.is_unary]
    if len(pairwise) == 0:
        raise ValueError("the GP learns from pairwise preferences: answer a few pairs first")
    model = GPPreferenceModel(random_state=0).fit(data.dataset.X, pairwise)
    return model.predict(data.dataset.X[rows], return_std=True)
