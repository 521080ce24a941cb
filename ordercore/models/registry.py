"""The model families: one registry that every reader of them asks.

A model family declares once what it is: its key and label, its estimator, what it learns from
(``Learns``), what it offers (``Offer``), the settings the Studio offers, the classes its model files
hold and, if it learns grades, how (``Grading``).  The readers choose among the registered families
by what they declare, never by key:

- the Studio's Model page and ``Workbench`` (``ordercore.studio.workbench.studio_models``): families
  that learn from labels and preferences and offer what the Workbench uses (``WORKBENCH_OFFERS``);
  automatic trust only where a family offers ``Offer.AUTOMATIC_TRUST``;
- the Ratings page (``ordercore.studio.ratings.rating_models``): families with a ``grading``;
- ``python -m ordercore fit --model`` (``ordercore.cli.tabular.table_models``): families that learn
  from labels and/or preferences and whose estimator a model file can hold; ``predict`` writes ``std``
  for ``Offer.UNCERTAINTY``, ``lower`` and ``upper`` for ``Offer.INTERVALS``;
- the experiments (``ordercore.experiments.protocol.trial_families``): families that offer
  ``Offer.SEEDS_PROTOCOL``; tunings beyond the seeds' only with ``Offer.AUTOMATIC_TRUST``;
- model files (``ordercore.models.files``): every class of every family's ``saved``, and no other.

This module imports no family: each family registers itself when its ``family`` module is imported,
and ``ordercore/__init__.py`` imports them all, so the registry is complete whenever ``ordercore``
is (importing any ``ordercore`` module imports the package first).

How to add a model family, step by step:

1. Write its estimator in a package of its own, ``ordercore/<family>/`` (the maths as pure functions,
   the scikit-learn estimator in ``estimator.py``), importing no other family, and add the package to
   the families' layer in ``tests/test_layers.py`` (``LAYERS``).
2. To save it, give the estimator ``_saved_arrays`` (entry -> (dtype, shape in named dimensions)),
   ``_saved_scalars`` (entry -> type), ``_saved_state()``, ``_restore_state(arrays, scalars)`` and a
   ``save(path, preprocessing=None, metadata=None)`` that calls ``ordercore.models.files.save_model``.
3. Declare it in ``ordercore/<family>/family.py``: ``register(ModelFamily(key=..., label=...,
   estimator=..., learns={Learns.LABELS, Learns.PREFERENCES}, offers={Offer.SUGGEST_PAIRS, ...},
   studio_settings={"gamma": Setting((...), "RBF γ")}, saved=(TheEstimator,)))``.  Declare only what
   the estimator does: each ``Offer`` says which methods and attributes it promises.
4. Import that module in ``ordercore/__init__.py``, in the block of family imports (their order is
   the order readers list the families in).
5. Nothing else: the readers above find it.  ``tests/test_registry.py`` registers a toy family (with
   ``registered``) and finds it in each of them; do the same for a new family's own tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np


class Learns(StrEnum):
    """What a family learns from.  LABELS and PREFERENCES are its estimator's: ``fit(X, y,
    preferences)`` with both (y NaN for unlabeled rows), ``fit(X, y)`` with labels alone (labeled rows
    only), ``fit(X, preferences)`` with preferences alone.  GRADES are its ``grading``'s."""

    LABELS = "labels"
    PREFERENCES = "preferences"
    GRADES = "grades"


class Offer(StrEnum):
    """What a family's estimator offers beyond ``fit`` and ``predict``; each member promises the
    methods and attributes it names."""

    UPDATE_PREFERENCES = "update_preferences"
    """``update_preferences(preferences)`` makes another PreferenceSet the one in force after a fit,
    warm where the family can (the LP re-solves from its last basis; the 2-norm QP refits), and
    ``preferences_`` is the set in force; ``violated(preferences)`` is the mask (p,) of those the fit
    violates; ``solve_start_`` says how the last solve started ('cold', 'hot', ...)."""

    SUGGEST_PAIRS = "suggest_pairs"
    """``suggest_pairs(candidate_pairs, k, *, reference=None)``: the k candidate pairs (k, 2) to ask
    next (with ``reference``, another fit: where the two differ most, when the family can say)."""

    TIME_LIMIT = "time_limit"
    """A ``time_limit`` parameter (seconds, or None): a fit or ``update_preferences`` that reaches it
    raises ``SolverTimeLimitError`` and leaves the last fit in place."""

    UNCERTAINTY = "uncertainty"
    """``predict(X, return_std=True)`` gives (mean (n,), standard deviation (n,))."""

    INTERVALS = "intervals"
    """``predict_interval(X)`` gives (lower (n,), upper (n,))."""

    AUTOMATIC_TRUST = "automatic_trust"
    """Automatic trust (``ordercore.knowledge.trust``) cross-validates it, as do the experiments'
    tunings beyond the seeds' (lambda2 by labels, gamma, lambda1, lambda2 by preferences): all of them
    along warm lambda paths of the order-preference LP, with the family's ``gamma`` and ``lambda1``
    settings."""

    SEEDS_PROTOCOL = "seeds_protocol"
    """The seeds' benchmark protocol can run it as SVR and SSL: parameters ``gamma``, ``lambda1``,
    ``lambda2`` (0: the labels alone) and ``centers``; ``fit(X, y, preferences)``;
    ``violated(preferences)``; after a fit ``n_violated_`` and ``solve_time_`` (seconds)."""


@dataclass(frozen=True)
class Setting:
    """A hyperparameter the Studio lets the user set: the values it offers and their label.  The
    default is the estimator's own.  ``weighs_preferences``: it only weighs the preferences (the LP's
    lambda2), so a fit on labels alone (SVR) does not depend on it and a change refits SSL alone.  ``help``:
    what it means in plain words, where its label names a term."""

    values: tuple
    label: str
    weighs_preferences: bool = False
    help: str | None = None


@dataclass(frozen=True)
class Grading:
    """How a family learns grades 1 … K as an expert gives them (the Studio's Ratings page).

    label : what the Ratings page calls it.
    estimator, parameters : each fit's model, ``estimator(**parameters)``: ``fit(X (m, d), grades (m,))``,
        ``classes_`` (K',) the grades seen, ``decision_function(X)`` the scores (m, K') of each grade
        seen ((m,) for two grades, scikit-learn's f_1 − f_0).
    rank : scores (n, K') -> the position in ``classes_`` of each item's predicted grade (n,).
    sureness : scores (n, K') -> how far each item's prediction is from changing (n,), smallest least sure.
    sparse : it takes sparse (CSR) features as they are (texts' TF-IDF); else dense ones.
    warm : with ``warm_start=True`` a refit after grades are appended starts from the last fit.
    max_grades : most grades it takes (its cost grows too fast beyond), or None.
    """

    label: str
    estimator: type
    rank: Callable[[np.ndarray], np.ndarray]
    sureness: Callable[[np.ndarray], np.ndarray]
    parameters: Mapping = field(default_factory=dict)
    sparse: bool = False
    warm: bool = False
    max_grades: int | None = None


@dataclass(frozen=True)
class ModelFamily:
    """One model family as its readers see it.

    key : its name in code, files and on the command line ('lp').  label : its name in words.
    estimator : the class ``make`` builds (scikit-learn style: keyword parameters, defaults its own).
    learns : ``Learns`` members; GRADES exactly when there is a ``grading``.
    offers : ``Offer`` members, what ``estimator`` does beyond fit and predict.
    studio_settings : name -> ``Setting``, the hyperparameters the Studio lets the user set
        (parameters of ``estimator``).
    saved : the classes a model file may hold for this family (each with ``_saved_arrays`` etc.).
    grading : how it learns grades (``Grading``), or None.
    reference : the paper it comes from, as docs/REPRODUCTION.md cites it ('seeds 000/001'): the command
        line's help names it; the Studio, which speaks the expert's words, does not.
    """

    key: str
    label: str
    estimator: type
    learns: frozenset[Learns]
    offers: frozenset[Offer] = frozenset()
    studio_settings: Mapping[str, Setting] = field(default_factory=dict)
    saved: tuple[type, ...] = ()
    grading: Grading | None = None
    reference: str = ""

    def __post_init__(self):
        object.__setattr__(self, "learns", frozenset(Learns(item) for item in self.learns))
        object.__setattr__(self, "offers", frozenset(Offer(item) for item in self.offers))
        object.__setattr__(self, "saved", tuple(self.saved))
        if not (isinstance(self.key, str) and self.key.isidentifier()):
            raise ValueError(f"a family's key is a name like 'lp', got {self.key!r}")
        if (Learns.GRADES in self.learns) != (self.grading is not None):
            raise ValueError(f"family {self.key!r}: it learns grades exactly when it declares a grading")
        unknown = sorted(set(self.studio_settings) - set(self.estimator().get_params()))
        if unknown:
            raise ValueError(f"family {self.key!r}: {self.estimator.__name__} has no parameter {unknown}")

    def defaults(self) -> dict:
        """The estimator's own defaults of the Studio's settings."""
        parameters = self.estimator().get_params()
        return {name: parameters[name] for name in self.studio_settings}

    def settings(self, parameters: dict) -> dict:
        """``parameters`` where they are this family's Studio settings and values it offers, its defaults
        elsewhere (e.g. for a value another family's setting of the same name offers)."""
        return {
            name: parameters[name] if parameters.get(name, object()) in self.studio_settings[name].values else default
            for name, default in self.defaults().items()
        }

    def make(self, parameters: dict | None = None, time_limit: float | None = None):
        """A new estimator with ``parameters`` (Studio settings only) and the estimator's defaults for
        the rest; ``time_limit`` for a family that offers ``Offer.TIME_LIMIT``."""
        parameters = parameters or {}
        unknown = set(parameters) - set(self.studio_settings)
        if unknown:
            raise ValueError(f"{self.label} has no setting {sorted(unknown)}; it has {sorted(self.studio_settings)}")
        if Offer.TIME_LIMIT in self.offers:
            return self.estimator(**{**self.defaults(), **parameters}, time_limit=time_limit)
        if time_limit is not None:
            raise ValueError(f"{self.label} takes no time limit")
        return self.estimator(**{**self.defaults(), **parameters})


_FAMILIES: dict[str, ModelFamily] = {}
"""The registered families by key, in the order they registered."""


def register(family: ModelFamily, *, replace: bool = False) -> ModelFamily:
    """Add ``family`` (``replace``: in place of the one of its key).  ``ValueError`` for a key taken
    by another family, or a saved class whose name another family's saved class has (a model file
    names its class)."""
    if not isinstance(family, ModelFamily):
        raise TypeError(f"register takes a ModelFamily, got {type(family).__name__}")
    if _FAMILIES.get(family.key, family) != family and not replace:
        raise ValueError(f"a model family {family.key!r} is registered already")
    for cls in family.saved:
        other = saved_classes(without=family.key).get(cls.__name__, cls)
        if other is not cls:
            raise ValueError(f"family {family.key!r} saves a {cls.__name__}, a name model files already give {other}")
    _FAMILIES[family.key] = family
    return family


def unregister(key: str) -> ModelFamily:
    """Remove the family ``key`` and return it; ``ValueError`` when none has that key."""
    return _FAMILIES.pop(family(key).key)


@contextmanager
def registered(*declared: ModelFamily) -> Iterator[None]:
    """Register the ``declared`` families (each in place of one of its key) for the ``with`` block,
    then restore the registry as it was (e.g. a test's own family)."""
    before = dict(_FAMILIES)
    try:
        for item in declared:
            register(item, replace=True)
        yield
    finally:
        _FAMILIES.clear()
        _FAMILIES.update(before)


def family(key: str) -> ModelFamily:
    """The family registered as ``key``; ``ValueError`` naming the registered ones otherwise."""
    if key not in _FAMILIES:
        raise ValueError(f"unknown model family {key!r}; registered: {sorted(_FAMILIES)}")
    return _FAMILIES[key]


def families(*, learns: Iterable[Learns] = (), offers: Iterable[Offer] = ()) -> dict[str, ModelFamily]:
    """The registered families (by key, in the order they registered) that learn from everything in
    ``learns`` and offer everything in ``offers``."""
    learns, offers = frozenset(learns), frozenset(offers)
    return {key: f for key, f in _FAMILIES.items() if learns <= f.learns and offers <= f.offers}


def family_of(cls: type) -> ModelFamily | None:
    """The first family whose estimator is ``cls`` (what it offers is that estimator's), or None."""
    return next((f for f in _FAMILIES.values() if f.estimator is cls), None)


def saved_classes(without: str | None = None) -> dict[str, type]:
    """Class name -> class of every class a model file may hold (those of every family but
    ``without``)."""
    return {cls.__name__: cls for key, f in _FAMILIES.items() if key != without for cls in f.saved}
