"""A session's ordinal model of its grades, kept fitted in the background: the items (the table's rows,
or the texts of a column) built once per choice, one ``RatingModel`` per items and model refitted warm
after each grade, the fit's scores of every item, and the cross-validation when it is due.

A grade never waits for a refit: ``SessionGrading.fit`` returns the last finished fit (of these items and
this model) at once and asks for the next in a thread of its own; requests made while it works fold into
one more round.  The next item is chosen from the last fit's scores; the page shows the last
cross-validation.  One object per session, shared by every tab."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.studio.data import StudyData
from ordercore.studio.ratings import (
    RatingItems,
    RatingModel,
    cross_validate,
    cross_validation_due,
    cross_validation_needs,
    refuse_numbers_as_texts,
    table_items,
    text_items,
    why_no_model,
)


class SessionGrading:
    """The items, the refitted model and the cross-validation of one session's grades (thread-safe)."""

    def __init__(self):
        self._lock = threading.Condition()
        self._items: tuple | None = None  # (key, RatingItems)
        self._model: tuple | None = None  # ((items key, model name), RatingModel)
        self._fit: tuple | None = None  # (key, fit): the last finished
        self._cv: dict | None = None  # the last cross-validation: its kind, rows, values, result
        self._wanted: tuple | None = None  # the fit asked for next
        self._worker: threading.Thread | None = None
        self.version = 0
        """Changes after every refit (a page that shows the model redraws)."""

    def items(self, data: StudyData, data_key, text: str | None) -> RatingItems:
        """What is graded: the table's rows (``text`` None) or the texts of column ``text`` (TF-IDF of
        10,000 texts: about 0.5 s, once per data and choice).  ``ValueError`` when they cannot be graded
        (the table has no column ``text``, or it holds numbers)."""
        if text is not None and text not in data.frame.columns:
            raise ValueError(
                f"the session's table has no column {quoted(text)} whose texts could be graded; its columns "
                f"are {[str(c) for c in data.frame.columns]}"
            )
        if text is not None:
            refuse_numbers_as_texts(data, text)
        key = (data_key, text)
        with self._lock:
            if self._items is None or self._items[0] != key:
                built = table_items(data.dataset.X) if text is None else text_items(data.frame[text])
                self._items = (key, built)
            return self._items[1]

    def fit(
        self, items: RatingItems, items_key, model_name: str, grades: pd.DataFrame, scale: int, wait: bool = False
    ) -> dict:
        """The model as last fitted on these items' grades (every annotator's, in the order given): its
        predicted grade and sureness of every item, the seconds the refit took, whether it started warm,
        the model itself, the fit's key and ``current`` (whether it is of these grades); or {'problem':
        why it cannot fit}.  A refit of these grades (and the cross-validation, when due) is asked for in
        the background; with ``wait``, or before the first fit of these items and model, it is awaited."""
        kind = (items_key, model_name)
        key = (kind, tuple(grades["id"]), tuple(grades["grade"]))
        with self._lock:
            if self._model is None or self._model[0] != kind:
                self._model = (kind, RatingModel(items, model_name))
            model = self._model[1]
            if self._fit is None or self._fit[0] != key:
                self._wanted = (model, kind, key, grades, scale)
                if self._worker is None:
                    # daemon=False, as the session's follower (session.py): no fit cut off at exit
                    self._worker = threading.Thread(target=self._work, daemon=False, name="grading")
                    self._worker.start()
            first = self._fit is None or self._fit[0][0] != kind
            if wait or first:
                self._lock.wait_for(lambda: self._worker is None or (self._fit is not None and self._fit[0] == key))
            fitted_key, fitted = self._fit if self._fit is not None else (key, {"problem": "no fit yet"})
            return fitted | {"model": model, "key": fitted_key, "current": fitted_key == key}

    def cross_validation(self, kind) -> tuple | None:
        """(the last ``CrossValidation`` of this items and model, how many grades it was run on), or None."""
        with self._lock:
            cv = self._cv
        return None if cv is None or cv["kind"] != kind else (cv["cv"], cv["rows"].size)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every refit asked for so far has run; False if ``timeout`` seconds passed first."""
        with self._lock:
            return self._lock.wait_for(lambda: self._worker is None, timeout)

    def _work(self) -> None:
        while True:
            with self._lock:
                wanted, self._wanted = self._wanted, None
                if wanted is None:
                    self._worker = None
                    self._lock.notify_all()
                    return
            model, kind, key, grades, scale = wanted
            rows, values = grades["row"].to_numpy(np.int64), grades["grade"].to_numpy(np.int64)
            fitted = _refit(model, rows, values, kind[1])
            with self._lock:
                self._fit = (key, fitted)
                self.version += 1
                self._lock.notify_all()
            if fitted["problem"] is None:
                self._cross_validate(model, kind, rows, values, scale)

    def _cross_validate(self, model: RatingModel, kind, rows: np.ndarray, values: np.ndarray, scale: int) -> None:
        """Run the cross-validation again when the grades changed, but only every ``CV_STEP`` added grades
        beyond ``CV_EVERY_GRADE_UP_TO`` (``cross_validation_due``); an edit or removal runs it at once."""
        if cross_validation_needs(rows.size):
            return
        last = self._cv
        extends = (
            last is not None
            and last["kind"] == kind
            and last["scale"] == scale
            and last["rows"].size <= rows.size
            and np.array_equal(last["rows"], rows[: last["rows"].size])
            and np.array_equal(last["values"], values[: last["rows"].size])
        )
        if extends and not (last["rows"].size < rows.size and cross_validation_due(rows.size, last["rows"].size)):
            return
        cv = cross_validate(model, rows, values, scale)
        with self._lock:
            self._cv = {"kind": kind, "scale": scale, "rows": rows, "values": values, "cv": cv}
            self.version += 1


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
