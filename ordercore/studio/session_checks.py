"""What the session engine checks before it writes (issue 32): imported margins the models can fit,
rules that do not read the target, items of this session, model settings the Studio offers, and
option groups and options it knows, and what ``next_pairs`` is asked for.  Each check raises one ``ValueError``
(``KeyError`` for an unknown option group) in words, before the store is touched."""

from __future__ import annotations

import math
import numbers
from dataclasses import fields

import numpy as np
import pandas as pd

from ordercore.inputs.counts import row_numbers, whole_number
from ordercore.inputs.printable import quoted
from ordercore.knowledge.rules import Rule
from ordercore.lp.problem import LARGEST_SCALED_MARGIN, TargetScaling, unary_sign
from ordercore.preferences import PreferenceSet
from ordercore.studio.data import check_margin
from ordercore.studio.fingerprints import refuse_another_table
from ordercore.studio.ratings import refuse_numbers_as_texts
from ordercore.studio.rule_preferences import check_made
from ordercore.studio.training import ModelSettings
from ordercore.studio.workbench import studio_models

MODEL_SETTINGS = tuple(setting.name for setting in fields(ModelSettings))
"""What ``set_model`` changes: family, parameters, automatic_trust, time_limit."""

TIME_LIMIT_RANGE = (5.0, 600.0)
"""The seconds a retrain may take, as the Model page offers them (its shortest and longest)."""


def check_rule(data, rule: Rule, made: PreferenceSet | None = None) -> None:
    """``ValueError`` for a rule the session cannot take: a column its table lacks or a text column it
    compares as numbers (``Rule.check_columns``; such a rule was stored, and every view of it failed), a
    margin the models cannot fit on ``data``'s labels, the id column (``Rule.refuse_id_column``, as the CLI),
    or a column that is the target (its preferences would order rows by their labels, the held-out rows'
    too: the test error would flatter SSL)."""
    rule.check_columns(data.frame)
    rule.refuse_id_column(data.row_names.identifier)
    check_margin(data, rule.margin)
    target = data.dataset.metadata["target"]
    if target in {rule.ordering.column, *(c for condition in rule.conditions for c in condition.columns())}:
        raise ValueError(f"rule {rule.name!r} reads the target column {target!r}: its preferences would leak labels")
    if made is not None:
        check_made(data.frame, data.labeled, rule, made)


def check_file(file, data) -> None:
    """``ValueError`` naming the first line of an imported ``file`` (``session_files.SessionFile``) whose
    margin the models cannot fit on ``data``'s labels (more than 1e9 times their spread), or the first
    rule that reads the target (``check_rule``), or whose rows hold other values in ``data``'s table than in
    the one it was exported from (``fingerprints.refuse_another_table``)."""
    if file.table is not None:
        names = data.row_names
        refuse_another_table(file.kind, file.table, file.fingerprints, names.fingerprints, names.name)
    scaling = TargetScaling.from_labels(data.y_true[data.labeled])
    if file.kind == "rules":
        for k, document in enumerate(file.rules, start=1):
            try:
                rule = Rule.from_dict(document)
            except (ValueError, TypeError, KeyError):  # the import says what is wrong with it
                continue
            try:
                check_rule(data, rule)
            except ValueError as error:
                raise ValueError(f"rule {k} of the file: {error}; nothing was imported") from None
        margins = [document.get("margin", 0.0) for document in file.rules]
        # a margin that is no finite number is the rule's to name ('rule 'x': the margin must be finite')
        made = _pairs_with([m if isinstance(m, numbers.Real) and math.isfinite(m) else 0.0 for m in margins])
        _first_bad(scaling, made, "rule {} of the file")
    elif file.kind == "preferences":
        _first_bad(scaling, PreferenceSet.from_frame(file.table), "line {} of the preferences")
    elif file.kind == "answers" and "margin" in file.table.columns:
        margins = pd.to_numeric(file.table["margin"], errors="coerce").to_numpy(dtype=np.float64)
        _first_bad(scaling, _pairs_with(np.where(np.isfinite(margins), margins, 0.0)), "line {} of the answers")


def _pairs_with(margins) -> PreferenceSet:
    """Preferences between two rows (0 over 1) with these margins (m,): what each answer's margin means."""
    margins = np.asarray(margins, dtype=np.float64)
    return PreferenceSet(np.zeros(len(margins), np.int64), np.ones(len(margins), np.int64), margins)


def _first_bad(scaling: TargetScaling, made: PreferenceSet, where: str) -> None:
    scaled = np.abs((made.margin - scaling.center * unary_sign(made)) / scaling.scale)
    bad = np.flatnonzero(scaled > LARGEST_SCALED_MARGIN)
    if bad.size:
        k = int(bad[0])
        try:
            scaling.margins(made[k : k + 1])
        except ValueError as error:
            number = k + 1 if where.startswith("rule") else k + 2  # lines counted after the CSV's header
            raise ValueError(f"{where.format(number)}: {error}; nothing was imported") from None


def check_model(family: str, changes: dict) -> None:
    """``ValueError`` naming a setting ``set_model`` was given that the Studio does not offer: a
    parameter value off its family's choices, a time limit off ``TIME_LIMIT_RANGE``, a setting that is none
    of ``MODEL_SETTINGS`` (a model parameter given beside them, not in ``parameters``), parameters that are
    no dict, automatic trust that is not True or False ('no' was stored, and read back as True)."""
    models = studio_models()
    unknown = [name for name in changes if name not in MODEL_SETTINGS]
    if unknown:
        hint = f" (a model's {unknown[0]} goes in parameters={{{unknown[0]!r}: ...}})" if family in models else ""
        raise ValueError(f"no model setting {unknown[0]!r}; the settings are {', '.join(MODEL_SETTINGS)}{hint}")
    if "automatic_trust" in changes and not isinstance(changes["automatic_trust"], bool):
        raise ValueError(f"automatic_trust must be True or False, got {quoted(changes['automatic_trust'])}")
    if "parameters" in changes and not isinstance(changes["parameters"], dict):
        raise ValueError(f"parameters must be a dict of the model's settings, got {quoted(changes['parameters'])}")
    if family in models:
        offered = models[family].studio_settings
        for name, value in (changes.get("parameters") or {}).items():
            if name in offered and not _offered(value, offered[name].values):
                choices = ", ".join("auto" if v is None else f"{v:g}" for v in offered[name].values)
                raise ValueError(
                    f"{name} = {value!r} is not offered for {models[family].label}: choose one of {choices}"
                )
    if "time_limit" in changes:
        check_time_limit(changes["time_limit"])


def _offered(value, values) -> bool:
    if value is None or isinstance(value, bool | np.bool_):
        return value is None and None in values
    return isinstance(value, numbers.Real) and any(v is not None and v == value for v in values)


def check_time_limit(value) -> float:
    """A retrain's time limit in seconds: a number within ``TIME_LIMIT_RANGE``."""
    low, high = TIME_LIMIT_RANGE
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"the retrain time limit must be {low:g} to {high:g} seconds, got {value!r}")
    return float(value)


OPTION_VALUES = {
    "goal": (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0, "a whole number >= 0"),
    "weigh_annotators": (lambda v: isinstance(v, bool | np.bool_), "True or False"),
}
"""Options whose values the session checks here (the rating scale is the store's, ``rating_scale``):
what a value must be, and that in words.  A goal of -5 or 2.5 was stored, and weigh_annotators='no'
weighed the clicks (any non-empty text is true)."""


def check_options(group, groups: dict, changes=(), data=None):
    """``groups[group]`` (an option group's defaults); ``KeyError`` naming the group and the known ones,
    or an option of ``changes`` the group does not have (a typo would be stored and do nothing);
    ``ValueError`` for a value ``OPTION_VALUES`` refuses, or a 'text' column the session's ``data``
    (when chosen) lacks (stored, every grading then failed with a bare KeyError) or that holds numbers."""
    if not isinstance(group, str) or group not in groups:
        raise KeyError(f"no option group {group!r}; the session's are {', '.join(map(repr, groups))}")
    unknown = [name for name in changes if name not in groups[group]]
    if unknown:
        raise KeyError(f"no option {unknown[0]!r} in {group!r}; its options are {', '.join(map(repr, groups[group]))}")
    for name in changes:
        if name in OPTION_VALUES and not OPTION_VALUES[name][0](changes[name]):
            raise ValueError(f"option {name!r} must be {OPTION_VALUES[name][1]}, got {changes[name]!r}")
    text = dict(changes).get("text")
    if text is not None and data is not None and text not in data.frame.columns:
        raise ValueError(
            f"option 'text' must be None (grade the rows) or one of the table's columns "
            f"{list(map(str, data.frame.columns))}, got {text!r}"
        )
    if text is not None and data is not None:
        refuse_numbers_as_texts(data, text)
    return groups[group]


def check_answer(data, pair, margin) -> tuple:
    """An answer's pair as its two rows (a, b), once its margin is one the models can fit on ``data``'s
    labels (``check_margin``); ``ValueError`` else, also for a pair that is not two rows (three rows
    were passed on as the answer's weight: a TypeError about arguments), and for a margin that is no
    number ('abc' and None raised float()'s words, not naming the margin)."""
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise ValueError(f"an answer's margin must be a number (in the target's units), got {quoted(margin)}")
    check_margin(data, margin)
    if isinstance(pair, str | bytes) or np.ndim(pair) != 1 or len(pair) != 2:
        raise ValueError(f"an answer's pair is two rows (a, b), got {pair!r}")
    return tuple(pair)


MOST_PAIRS_AT_ONCE = 10_000
"""The most pairs ``next_pairs`` draws in one call (a tab holds a few dozen ahead; 10**9 ran out of memory)."""


PAIR_SOURCES = ("active", "queue")
"""Where the next pair comes from besides a rule's id: the active choice, or the shared queue."""


def pair_request(source, rng, count, exclude, ahead, rules) -> tuple:
    """``next_pairs``' arguments as it uses them: (source, rng, count, exclude and ahead as lists of two-row
    pairs).  ``source`` is one of ``PAIR_SOURCES`` or the id of one of the session's ``rules`` ((id, rule)
    pairs; ``KeyError`` naming another: 999 gave no pairs without a word); ``rng`` None is a fresh generator
    (as numpy's and scikit-learn's); ``count`` a whole number from 0 (no pairs) to ``MOST_PAIRS_AT_ONCE``;
    ``ValueError`` naming the argument otherwise."""
    if isinstance(source, str):
        if source not in PAIR_SOURCES:
            raise ValueError(f"source must be {' or '.join(map(repr, PAIR_SOURCES))} or a rule's id, got {source!r}")
    else:
        source = in_session(source, [rule_id for rule_id, _ in rules], "rule")
    if rng is None:
        rng = np.random.default_rng()
    elif not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng()) or None, got {quoted(rng)}")
    count = whole_number(count, "count (the number of pairs)", most=MOST_PAIRS_AT_ONCE)
    return source, rng, count, row_pairs(exclude, "exclude"), row_pairs(ahead, "ahead")


def row_pairs(pairs, name: str) -> list[tuple[int, int]]:
    """``pairs`` (an iterable of (a, b)) as a list of two-row tuples; ``ValueError`` naming ``name`` for an
    entry that is not two row numbers (ahead=[(1, 2, 3)] met numpy's 'cannot reshape array of size 3')."""
    checked = []
    for pair in pairs:
        if isinstance(pair, str | bytes) or np.ndim(pair) != 1 or len(pair) != 2:
            raise ValueError(f"{name} holds pairs of two rows (a, b), got {quoted(pair)}")
        checked.append(tuple(row_numbers(pair, None, f"{name}'s row")))
    return checked


def in_session(item_id, held, kind: str) -> int:
    """``item_id`` if it is one of the session's ``held`` ids (its answers', grades' or rules'); else
    ``KeyError``: another session's item is never changed through this one, and an id that is no whole
    number (1.7, True, '1') names none (``int`` would have made it item 1)."""
    if isinstance(item_id, bool) or not isinstance(item_id, numbers.Integral):  # as the store's id_number
        raise KeyError(f"no {kind} {item_id!r}")
    if int(item_id) not in {int(k) for k in held}:
        raise KeyError(f"{kind} #{item_id} is not one of this session's")
    return int(item_id)


def stored_ok(settings):
    """``settings`` (``ModelSettings``) as stored, or ``ValueError`` in words for a time limit an older
    version stored that the Studio no longer offers."""
    try:
        check_time_limit(settings.time_limit)
    except ValueError as error:
        raise ValueError(f"this session's stored settings are off: {error}; choose one on the Model page") from None
    return settings
