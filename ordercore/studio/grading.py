"""A session's ordinal model of its grades, kept fitted: the items (the table's rows, or the texts of a
column) built once per choice, one ``RatingModel`` per items and model refitted warm after each grade,
and the fit's scores of every item.  One object per session, shared by every tab: a lock keeps a fit
and its scores together when two runs ask at once (the Ratings page's fast reruns)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd

from ordercore.studio.data import StudyData
from ordercore.studio.ratings import RatingItems, RatingModel, table_items, text_items, why_no_model


class SessionGrading:
    """The items and the refitted model of one session's grades (thread-safe)."""

    def __init__(self):
        self._lock = threading.RLock()
        self._items: tuple | None = None  # (key, RatingItems)
        self._model: tuple | None = None  # (key, RatingModel)
        self._fit: tuple | None = None  # (key, fit)

    def items(self, data: StudyData, data_key, text: str | None) -> RatingItems:
        """What is graded: the table's rows (``text`` None) or the texts of column ``text`` (TF-IDF of
        10,000 texts: about 0.5 s, once per data and choice).  ``ValueError`` when they cannot be graded."""
        key = (data_key, text)
        with self._lock:
            if self._items is None or self._items[0] != key:
                built = table_items(data.dataset.X) if text is None else text_items(data.frame[text])
                self._items = (key, built)
            return self._items[1]

    def fit(self, items: RatingItems, items_key, model_name: str, grades: pd.DataFrame) -> dict:
        """The model refitted on the grades (every annotator's, in the order given) once per change: its
        predicted grade and sureness of every item, the seconds it took, whether it started warm, the
        model itself and the fit's key; or {'problem': why it cannot fit}."""
        rows, values = grades["row"].to_numpy(np.int64), grades["grade"].to_numpy(np.int64)
        key = (items_key, model_name, tuple(grades["id"]), tuple(values))
        with self._lock:
            if self._model is None or self._model[0] != (items_key, model_name):
                self._model = ((items_key, model_name), RatingModel(items, model_name))
            model = self._model[1]
            if self._fit is None or self._fit[0] != key:
                self._fit = (key, self._refit(model, rows, values, model_name))
            return self._fit[1] | {"model": model, "key": key}

    @staticmethod
    def _refit(model: RatingModel, rows: np.ndarray, values: np.ndarray, model_name: str) -> dict:
        problem = why_no_model(values, model_name)
        if problem:
            return {"problem": problem}
        start = time.perf_counter()
        model.fit(rows, values)
        scores = model.scores()
        return {
            "problem": None,
            "predicted": model.predict(scores),
            "sureness": model.uncertainty(scores),
            "seconds": time.perf_counter() - start,
            "warm": model.warm,
        }
