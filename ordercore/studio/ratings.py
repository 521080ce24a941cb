"""Ordinal ratings: an expert grades items (rows of a table, or texts) on a scale 1 … K, and an ordinal
model learns the grades as they come (the Studio's Ratings page; nothing here imports Streamlit).

The models are the registered families that learn grades (``rating_models``), each as its ``Grading``
declares:

- **NPSVOR** (seed 004, ``ordercore.npsvor``), linear, refitted after every grade *warm*: the grades are
  training rows in the order they were given, so a new grade appends a row and the previous fit's duals
  start the next (``NPSVOR(warm_start=True)``); an edited grade keeps the rows, and its duals are clipped
  into the new bounds.  A removed grade (undo) changes the rows, and the fit starts cold.
- **GP label preferences** (seed 002 §3, ``GPLabelPreferenceModel(graph='ordinal')``), the nonlinear
  alternative for few grades: its cost grows as (n·K)³, so it is refused above its ``max_grades``.

Quality is k-fold cross-validated MAE over the grades (``cross_validate``), with each fold's MAE for its
spread and the cross-validated predictions' confusion matrix of grades.  The next item to grade is the
one the model is least sure of (``least_sure``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import confusion_matrix
from sklearn.model_selection import KFold

from ordercore.data.texts import SNIPPET_TFIDF
from ordercore.models.registry import Grading, Learns, families, family
from ordercore.studio.data import StudyData, identifier_column


def rating_models() -> dict[str, str]:
    """The models a session's grades can train: key → what the page calls it, for every registered
    family that learns grades."""
    return {key: f.grading.label for key, f in families(learns={Learns.GRADES}).items()}


def grading(model: str) -> Grading:
    """How the rating model ``model`` (a key of ``rating_models()``) learns grades; ``ValueError`` for
    another key."""
    if model not in rating_models():
        raise ValueError(f"model must be one of {sorted(rating_models())}, got {model!r}")
    return family(model).grading


GP_TEXT_COMPONENTS = 100
"""Texts enter the GP as their TF-IDF reduced to this many latent semantic components (a dense kernel
over a vocabulary of tens of thousands of words would not fit in memory at 10,000 texts)."""

FOLDS = 5
"""k of the k-fold cross-validation."""

MIN_GRADES_PER_FOLD = 2
"""Cross-validation needs ``FOLDS * MIN_GRADES_PER_FOLD`` grades (10) and two different grades."""


@dataclass(frozen=True)
class RatingItems:
    """What is graded: ``n`` items and their features, sparse (n, d) CSR for NPSVOR; ``text`` names the
    text column when the items are texts (their TF-IDF), None for a table's rows (its features)."""

    features: sp.csr_matrix
    text: str | None = None

    @property
    def n(self) -> int:
        return self.features.shape[0]

    def dense(self) -> np.ndarray:
        """Dense features (n, d') for a model that takes no sparse ones (the GP): a table's features as they
        are, texts' TF-IDF reduced to ``GP_TEXT_COMPONENTS`` latent semantic components (truncated SVD,
        fixed seed)."""
        if self.text is None:
            return self.features.toarray()
        components = min(GP_TEXT_COMPONENTS, self.features.shape[1] - 1)
        return TruncatedSVD(components, random_state=0).fit_transform(self.features)


def table_items(X: np.ndarray) -> RatingItems:
    """A table's rows as items, X (n, d) the session's prepared features."""
    return RatingItems(sp.csr_matrix(np.asarray(X, dtype=np.float64)))


def default_text_column(frame: pd.DataFrame) -> str | None:
    """The column a table's items are most likely graded by, when it has one: of the non-numeric columns
    whose values are mostly phrases (a space in at least half of them, 20 characters on average), the
    one with the longest; None when there is no such column (then the rows are graded)."""
    best, longest = None, 20.0
    for column in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[column]):
            continue
        values = frame[column].dropna().astype(str)
        length = float(values.str.len().mean()) if len(values) else 0.0
        if length >= longest and values.str.contains(" ").mean() >= 0.5:
            best, longest = str(column), length
    return best


def default_items(data: StudyData) -> str | None:
    """The text column a session's grades start on (``default_text_column``), only when its rows have no
    features but their identifier (a table of texts): rows described by features are graded by them,
    their texts shown beside (a camera shown by its seller's note alone could not be valued)."""
    frame, metadata = data.frame, data.dataset.metadata
    identifier = identifier_column(frame, [metadata["target"]])
    return None if any(str(f) != identifier for f in metadata["features"]) else default_text_column(frame)


def refuse_numbers_as_texts(data: StudyData, text: str) -> None:
    """``ValueError`` when column ``text`` of ``data``'s table holds numbers (the target, say): its
    "texts" would be numbers written out, nearly every item an empty TF-IDF vector, and the target's
    would grade each item by its label."""
    if pd.api.types.is_numeric_dtype(data.frame[text]):
        target = " (it is the session's target)" if text == data.dataset.metadata["target"] else ""
        raise ValueError(
            f"column {text!r} holds numbers, not texts{target}: grade the table's rows (text None) or a column of texts"
        )


def text_items(texts: pd.Series) -> RatingItems:
    """Texts as items: TF-IDF of unigrams and bigrams as in seed 004's text experiments (``SNIPPET_TFIDF``),
    fitted on all the texts (no grade is read); ``ValueError`` when they share too few words."""
    try:
        features = TfidfVectorizer(**SNIPPET_TFIDF).fit_transform(texts.fillna("").astype(str))
    except ValueError:  # scikit-learn's "no terms remain" / "empty vocabulary"
        raise ValueError(
            f"the texts of column {texts.name!r} share too few words to compare them (a term must be in at "
            f"least {SNIPPET_TFIDF['min_df']} texts)"
        ) from None
    return RatingItems(sp.csr_matrix(features, dtype=np.float64), str(texts.name))


def why_no_model(grades: np.ndarray, model: str) -> str | None:
    """What the grades (m,) lack for ``model`` to fit, in words, or None when it can."""
    if np.unique(grades).size < 2:
        return "grade items with at least two different grades first (an ordinal model needs two ranks)"
    most = grading(model).max_grades
    if most is not None and grades.size > most:
        others = [f.grading.label for f in families(learns={Learns.GRADES}).values() if f.key != model]
        return (
            f"{grading(model).label} takes at most {most} grades (its cost grows too fast beyond); "
            f"this session has {grades.size:,}: choose {' or '.join(others) or 'fewer grades'}"
        )
    return None


class RatingModel:
    """A session's ratings model, kept between grades.

    Parameters
    ----------
    items : RatingItems, the n items that can be graded.
    model : a key of ``rating_models()``.
    parameters : dict of the model's parameters beyond those its ``Grading`` sets.

    ``fit(rows, grades)`` refits on the grades given so far; ``predict`` and ``uncertainty`` then score
    every item.
    """

    def __init__(self, items: RatingItems, model: str = "npsvor", parameters: dict | None = None):
        self.items, self.model, self.grading = items, model, grading(model)
        self.parameters = {**self.grading.parameters, **(parameters or {})}
        self.estimator = None
        self.rows = np.zeros(0, dtype=np.int64)
        self.warm = False
        self._dense = None

    def features(self, rows) -> sp.csr_matrix | np.ndarray:
        """The features of ``rows`` (m,) as the model takes them: sparse (NPSVOR) or dense (the GP)."""
        if self.grading.sparse:
            return self.items.features[rows]
        if self._dense is None:
            self._dense = self.items.dense()
        return self._dense[rows]

    def new_estimator(self):
        """A new model of this kind (warm-started from its last fit where its ``Grading`` says ``warm``)."""
        warm = {"warm_start": True} if self.grading.warm else {}
        return self.grading.estimator(**self.parameters, **warm)

    def fit(self, rows: np.ndarray, grades: np.ndarray) -> RatingModel:
        """Refit on the items ``rows`` (m,) graded ``grades`` (m,), in the order they were graded.  A warm
        model (NPSVOR) starts from the previous fit's duals when the previous rows are the first of
        ``rows`` (grades appended or edited; ``warm`` says whether it did), else cold.  ``ValueError`` saying what is
        missing (``why_no_model``)."""
        rows, grades = np.asarray(rows, dtype=np.int64), np.asarray(grades, dtype=np.int64)
        problem = why_no_model(grades, self.model)
        if problem:
            raise ValueError(problem)
        previous, last = self.rows, self.estimator
        warm = (
            self.grading.warm
            and last is not None
            and previous.size <= rows.size
            and np.array_equal(previous, rows[: previous.size])
            and np.array_equal(last.classes_, np.unique(grades))  # else NPSVOR starts cold itself
        )
        # The fit is made on a copy (it reads the last fit's duals, never writes them) and kept only once it
        # is complete: a fit stopped part-way (an error; the Studio's overlapping reruns share this model)
        # leaves the last one in place.
        estimator = copy.copy(last) if warm else self.new_estimator()
        estimator.fit(self.features(rows), grades)
        self.estimator, self.rows, self.warm = estimator, rows, warm
        return self

    def scores(self) -> np.ndarray:
        """Every item's decision values (n, K'), one column per grade seen: NPSVOR's f_k(x) (seed 004
        eq. (2)), the GP's latent mean of each grade (seed 002 eq. (25)), up to a shift common to a row's."""
        X = self.features(slice(None))
        scores = self.estimator.decision_function(X)
        # the GP gives f_1 − f_0 alone for two grades: the means (0, f_1 − f_0) rank and differ alike
        return np.column_stack([np.zeros(scores.shape[0]), scores]) if scores.ndim == 1 else scores

    def predict(self, scores: np.ndarray | None = None) -> np.ndarray:
        """Every item's predicted grade (n,), by the model's rule: NPSVOR's rule (36), the GP's grade of
        largest latent mean."""
        scores = self.scores() if scores is None else scores
        return self.estimator.classes_[self.grading.rank(scores)]

    def uncertainty(self, scores: np.ndarray | None = None) -> np.ndarray:
        """How near each item (n,) is to another predicted grade: ``sureness`` of its scores."""
        return sureness(self.scores() if scores is None else scores, self.model)


def sureness(scores: np.ndarray, model: str) -> np.ndarray:
    """How far each item's prediction is from changing, (n,) from scores (n, K'); smallest = least sure:
    the ``sureness`` of the model's ``Grading``.  NPSVOR: the nearest threshold of rule (36),
    min_k |f_k(x) + f_{k+1}(x)| (``npsvor.problem.threshold_distance``).  GP: the gap between the largest
    and the second largest latent mean (``gp.labels.mean_gap``, margin sampling)."""
    return grading(model).sureness(scores)


def least_sure(sure: np.ndarray, graded: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` items least sure (``sureness``, (n_items,)) among those not in ``graded``, least sure
    first (ties by item number)."""
    candidates = np.setdiff1d(np.arange(sure.size), graded)
    order = np.lexsort((candidates, sure[candidates]))
    return candidates[order[:n]]


@dataclass(frozen=True)
class CrossValidation:
    """``cross_validate``'s result: each fold's MAE in grades and size (FOLDS,), the cross-validated
    prediction of every grade (m,), and their confusion matrix (K, K): true grade 1 … K by row,
    predicted by column."""

    fold_mae: np.ndarray
    fold_sizes: np.ndarray
    predicted: np.ndarray
    confusion: np.ndarray

    @property
    def mae(self) -> float:
        """MAE over all grades (each fold weighted by its size)."""
        return float(np.average(self.fold_mae, weights=self.fold_sizes))


CV_EVERY_GRADE_UP_TO = 1000
"""Cross-validation runs after every grade up to this many grades (5 cold fits: 0.06-0.2 s at 1,000
grades, ``bench/ratings_bench.py``), then after every ``CV_STEP`` grades: at 5,000 graded rows of 8 dense
features it took 0.35-1.4 s on the shared 2-core machine, beyond the 300 ms a grade may take."""

CV_STEP = 50


def cross_validation_due(n_grades: int, last: int | None) -> bool:
    """Whether to cross-validate again at ``n_grades`` grades, ``last`` the count at the last one (None:
    none yet, or the grades were edited or removed since)."""
    return last is None or n_grades <= CV_EVERY_GRADE_UP_TO or abs(n_grades - last) >= CV_STEP


def cross_validation_needs(n_grades: int) -> str | None:
    """Why there are too few grades to cross-validate, or None."""
    needed = FOLDS * MIN_GRADES_PER_FOLD
    if n_grades < needed:
        return f"cross-validation needs ≥ {needed} grades ({FOLDS} folds of {MIN_GRADES_PER_FOLD}); {n_grades} so far"
    return None


def cross_validate(model: RatingModel, rows: np.ndarray, grades: np.ndarray, scale: int, seed: int = 0):
    """``FOLDS``-fold cross-validation (``KFold``, shuffled with ``seed``) of ``model``'s kind on the
    grades (m,) of items ``rows`` (m,): each fold predicted by a cold fit on the others.  A training
    part with one grade only predicts that grade (an ordinal model needs two).  ``ValueError`` when
    there are too few grades (``cross_validation_needs``)."""
    rows, grades = np.asarray(rows, dtype=np.int64), np.asarray(grades, dtype=np.int64)
    problem = cross_validation_needs(grades.size) or why_no_model(grades, model.model)
    if problem:
        raise ValueError(problem)
    predicted = np.zeros_like(grades)
    fold_mae, sizes = [], []
    for train, test in KFold(FOLDS, shuffle=True, random_state=seed).split(rows):
        if np.unique(grades[train]).size < 2:
            predicted[test] = grades[train][0]
        else:
            fold = model.new_estimator().fit(model.features(rows[train]), grades[train])
            predicted[test] = fold.predict(model.features(rows[test]))
        fold_mae.append(np.abs(predicted[test] - grades[test]).mean())
        sizes.append(test.size)
    labels = np.arange(1, scale + 1)
    return CrossValidation(
        np.array(fold_mae), np.array(sizes), predicted, confusion_matrix(grades, predicted, labels=labels)
    )
