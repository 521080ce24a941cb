"""What a browser tab was sent to answer ahead of the one on screen (``Offers``), and how the answers it
sends back are applied once each, in order (``Offers.apply``).  Plain Python: the app keeps one per
tab and page (``app_state.Screen``), and its answer keys (``app_widgets.answer_keys``) send the events."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from numbers import Integral
from typing import NamedTuple

import numpy as np
import pandas as pd

from ordercore.inputs.printable import quoted
from ordercore.knowledge.expert_accuracy import is_audit_pair

UNDO = "undo"
"""The choice of an event that undoes the annotator's own last answer (it names no target)."""

_log = logging.getLogger(__name__)

NOT_OFFERED = "sent for what this page no longer offers (another session, or the server restarted meanwhile)"


@dataclass
class Offers:
    """The targets (row pairs (a, b) on Pairwise, items (row,) on Ratings) a browser tab was sent ahead
    of the one it shows (the app's answer keys).  ``upcoming`` those it shows in turn, the first on
    screen; ``offered`` every target sent in this context (``offered_for``: the session, the source,
    ...) and not yet answered, with what its answer needs (a pair's side mapping: swapped), so that an
    answer to any of them counts; ``answered`` the targets answered here (a pair either way round);
    ``read`` the ids of the answer events applied or refused; ``entries`` what the browser shows of each
    target, computed once; ``basis`` what the targets were drawn from (the model's version); ``earlier``
    the targets offered in the context just left (the same session) and unanswered, each with (its extra,
    that context): a key pressed while a new context's targets were on their way answered one of them
    (the browser showed it), and its answer counts, under the context it was shown in."""

    upcoming: list = field(default_factory=list)
    offered: dict = field(default_factory=dict)
    offered_for: tuple | None = None
    answered: set = field(default_factory=set)
    read: set = field(default_factory=set)
    entries: dict = field(default_factory=dict)
    basis: object = None
    earlier: dict = field(default_factory=dict)

    def offer(self, context: tuple, drawn: list, basis=None) -> None:
        """Hold ``len(drawn)`` targets for the browser: those sent already, topped up from ``drawn``
        ((target, extra), best first); when ``basis`` (the model they were drawn from) changed, only the
        one on screen is kept (the browser shows it now) and the rest are ``drawn`` afresh.  A target
        offered already keeps the side it was offered with (the browser may hold an answer to it, under
        that name).  A new ``context`` starts afresh (those offered in the one left stay answerable:
        ``earlier``)."""
        if context != self.offered_for:
            same_session = self.offered_for is not None and self.offered_for[0] == context[0]
            self.earlier = {target: (extra, self.offered_for) for target, extra in self.offered.items()}
            self.earlier = self.earlier if same_session else {}
            self.upcoming, self.offered, self.offered_for, self.answered, self.entries = [], {}, context, set(), {}
        kept = self.kept(context, basis)
        held = set(map(frozenset, kept))
        fresh = []
        for target, extra in map(self._as_offered, drawn):
            if frozenset(target) not in held:
                held.add(frozenset(target))
                fresh.append((target, extra))
        fresh = fresh[: max(len(drawn) - len(kept), 0)]
        for target, extra in fresh:
            self.offered.setdefault(target, extra)
        self.upcoming, self.basis = kept + [target for target, _ in fresh], basis

    def kept(self, context: tuple, basis=None) -> list:
        """The targets ``offer(context, drawn, basis)`` keeps, in the order shown, before those it tops up
        with: all it holds for the same ``basis``, else the one on screen; none in another ``context``."""
        if context != self.offered_for:
            return []
        held = self.upcoming if basis == self.basis else self.upcoming[:1]
        return [target for target in held if target in self.offered]

    def _as_offered(self, drawn: tuple) -> tuple:
        """(target, extra) as offered already, either way round, or as ``drawn`` if it was not."""
        target = drawn[0]
        for same in (target, target[::-1]):
            if same in self.offered:
                return same, self.offered[same]
        return drawn

    def take(self, target: tuple) -> tuple[bool, object, tuple | None]:
        """Withdraw an offered ``target`` being answered: (True, its extra, the context it was offered in:
        ``offered_for``, or the one just left for a target of ``earlier``), or (False, None, None) if it
        was not offered (or is answered already)."""
        if target in self.offered:
            self.answered.add(frozenset(target))
            self.upcoming = [shown for shown in self.upcoming if frozenset(shown) != frozenset(target)]
            self.earlier.pop(target, None)
            extra = self.offered.pop(target)
            self.offered.pop(target[::-1], None)
            return True, extra, self.offered_for
        if target in self.earlier:
            self.answered.add(frozenset(target))
            extra, context = self.earlier.pop(target)
            return True, extra, context
        return False, None, None

    def give_back(self, target: tuple, extra=None) -> None:
        """Offer ``target`` again, first (its answer was refused or undone)."""
        self.answered.discard(frozenset(target))
        self.offered[target] = extra
        self.upcoming = [target, *(shown for shown in self.upcoming if shown != target)]

    def apply(self, events: list[dict], session_id: int, answer, undo) -> tuple[list, str | None]:
        """Apply the answer events the browser sent (dicts: ``id``, a str or int; ``choice``, a str;
        ``target``, a list of ints, None for ``UNDO``) not yet read, in the order given: ``answer(target,
        choice, extra, context)`` for a target offered here and still unanswered, ``context`` the one it was
        offered in (``take``; one answered already is ignored; one not offered is refused, and said);
        ``undo()`` for ``UNDO``, which returns (target, extra) to show again first (the undone target and
        what its answer needs, as ``offer`` holds it), or None.  Events for another session than
        ``session_id``, and malformed ones, are read and refused (and said).  An event is read once its
        answer is stored or refused in words (a ``ValueError``, which gives its target back).  Any other
        error (a lost database connection, a full disk, a bug) gives the target back and leaves that event
        and those after it unread, applied when the browser sends them again; it is said, and logged with
        its traceback (``answer`` and ``undo`` store, or raise having stored nothing).  A run stopped
        meanwhile (a ``BaseException``: Streamlit's stop, maybe after the write) leaves the event read and
        its target taken, the events after it unread.  The target the browser shows after the last event
        applied (its ``next``, optional) goes first (``_show_first``).  Call no Streamlit function
        meanwhile: a key pressed then cannot cut a write short.
        Returns (the ids read: the browser stops sending them, the last error's message or None)."""
        if not isinstance(events, list):
            raise TypeError(f"events must be a list of answer events (dicts), not {type(events).__name__}")
        error, sent = None, []
        for place, event in enumerate(events, start=1):
            refusal = _malformed(event, place)
            if refusal is None:
                sent.append(event)
                continue
            error = refusal
            if _has_id(event):
                self.read.add(event["id"])
        unread = [event for event in sent if event["id"] not in self.read]
        if self.offered_for is None or self.offered_for[0] != session_id:
            self.read.update(event["id"] for event in unread)
            return self._read_of(events), (
                f"{len(unread)} answer(s) were not stored: {NOT_OFFERED}" if unread else error
            )
        applied = []
        for place, event in enumerate(unread):
            self.read.add(event["id"])  # read already if Streamlit stops the run (a BaseException) after the write
            try:
                error = self._apply_one(event, answer, undo) or error
            except ValueError as refused:  # refused in words: read, its target answerable again
                error = str(refused)
            except Exception as failure:  # not stored: answerable again when the browser sends it again
                self.read.discard(event["id"])
                _log.warning("an answer event was not applied; it stays unread", exc_info=True)
                error = _not_stored(event, failure, len(unread) - place - 1)
                break
            applied.append(event)
        self._show_first(applied)
        return self._read_of(events), error

    def _apply_one(self, event: dict, answer, undo) -> str | None:
        """Apply one well-formed, unread ``event`` (as ``apply``); why it stored nothing, or None.  An error
        of ``answer`` (which stores the answer or raises having stored nothing) gives its target back before
        it is raised on."""
        if event["choice"] == UNDO:
            shown_again = undo()
            if shown_again is None:
                return None
            if not (isinstance(shown_again, tuple) and len(shown_again) == 2 and _is_target(shown_again[0])):
                return f"the undo was stored, but undo() returned {quoted(shown_again)}, not (target, extra) or None"
            self.give_back(tuple(shown_again[0]), shown_again[1])
            return None
        target = tuple(event["target"])
        offered, extra, context = self.take(target)
        if not offered:
            return (
                None if frozenset(target) in self.answered else f"the answer for {target} was not stored: {NOT_OFFERED}"
            )
        try:
            answer(target, event["choice"], extra, context)
        except Exception:
            if context not in (None, self.offered_for):
                self.answered.discard(frozenset(target))
                self.earlier[target] = (extra, context)  # answerable again, in the context it was shown in
            else:
                self.give_back(target, extra)
            raise
        return None

    def _read_of(self, events: list) -> list:
        """The ids of ``events`` read (now or before), in the order sent."""
        return [event["id"] for event in events if _has_id(event) and event["id"] in self.read]

    def _show_first(self, events: list[dict]) -> None:
        """Put first the target the browser showed after the last of ``events`` (its ``next``), if it is
        offered and unanswered: the browser keeps it on screen (its other targets may have been drawn
        afresh meanwhile), and the page's view of the pair on screen follows.  Nothing after an undo
        (the browser then shows what the page puts first: the undone target, if it gives one back)."""
        last = events[-1] if events else {}
        shown = last.get("next") if last.get("choice") != UNDO else None
        if _is_target(shown) and tuple(shown) in self.offered:
            self.upcoming = [tuple(shown), *(target for target in self.upcoming if target != tuple(shown))]


def _has_id(event) -> bool:
    """Whether ``event`` is a dict whose id can be read (a str or an int)."""
    return isinstance(event, dict) and isinstance(event.get("id"), (str, int)) and not isinstance(event["id"], bool)


def _is_target(target) -> bool:
    """Whether ``target`` names rows: a non-empty list or tuple of whole numbers."""
    return (
        isinstance(target, (list, tuple))
        and len(target) > 0
        and all(isinstance(row, Integral) and not isinstance(row, bool) for row in target)
    )


def _malformed(event, place: int) -> str | None:
    """Why ``event``, the ``place``-th of those sent, is no answer event (``Offers.apply``), or None."""
    if not isinstance(event, dict):
        return f"answer event {place} was not read: it is a {type(event).__name__}, not a dict (id, choice, target)"
    if not _has_id(event):
        return f"answer event {place} was not read: its id is {quoted(event.get('id'))}; an id is a str or an int"
    choice = event.get("choice")
    if not isinstance(choice, str):
        return f"answer event {event['id']!r} was not stored: its choice is {quoted(choice)}; a choice is a str"
    if choice != UNDO and not _is_target(event.get("target")):
        target = quoted(event.get("target"))
        return f"answer event {event['id']!r} was not stored: its target is {target}; a target is a list of row numbers"
    return None


def _not_stored(event: dict, failure: Exception, waiting: int) -> str:
    """What an unexpected error of ``event``'s write stored (nothing), and that it is tried again."""
    what = "the undo" if event["choice"] == UNDO else f"the answer for {tuple(event['target'])}"
    after = f", as are the {waiting} answer(s) sent after it" if waiting else ""
    return (
        f"{what} was not stored ({type(failure).__name__}: {quoted(failure)}); it is kept and stored when the "
        f"page runs again{after}"
    )


def skipped_pairs(answers: pd.DataFrame, annotator: str) -> np.ndarray:
    """The row pairs (k, 2) ``annotator`` skipped (``answers`` as ``Store.answers``): not drawn for
    them again (a skip makes no preference, so nothing else marks the pair as seen)."""
    mine = answers[(answers["annotator"] == annotator) & (answers["choice"] == "skip")]
    return mine[["row_a", "row_b"]].to_numpy(dtype=np.int64).reshape(-1, 2)


def asked_pairs(answers: pd.DataFrame, annotator: str) -> np.ndarray:
    """The row pairs (k, 2) ``annotator`` was asked in the session, oldest first (``answers`` as
    ``Store.answers``: every answer of theirs, skips and rule audits too, but not one read from a file):
    what ``Workbench.next_pairs`` keeps their recent rows out of the next pairs by."""
    mine = answers[(answers["annotator"] == annotator) & ~answers["imported"].astype(bool)]
    return mine[["row_a", "row_b"]].to_numpy(dtype=np.int64).reshape(-1, 2)


def audited_answers(answers: pd.DataFrame, annotator: str) -> int:
    """How many pairs ``annotator`` ordered (A or B higher, not for a rule's audit) are audit pairs
    (``expert_accuracy.is_audit_pair``): what ``committee_choice.audit_slots`` counts."""
    mine = answers[(answers["annotator"] == annotator) & answers["choice"].isin(("a", "b")) & answers["rule_id"].isna()]
    return int(is_audit_pair(mine["row_a"].to_numpy(dtype=np.int64), mine["row_b"].to_numpy(dtype=np.int64)).sum())


class AnnotatorHistory(NamedTuple):
    """What the active choice of an annotator's next pairs needs of their answers, in the order
    ``Workbench.next_pairs`` takes it: the row pairs not to ask (k, 2), how many audit pairs they ordered,
    and the row pairs they were asked last, oldest first (r, 2)."""

    passed: np.ndarray
    audited: int
    recent: np.ndarray

    @classmethod
    def of(cls, answers: pd.DataFrame, annotator: str, exclude=(), ahead=(), audits: bool = True) -> AnnotatorHistory:
        """From ``answers`` (as ``Store.answers``): ``exclude`` (row pairs offered already) and the pairs they
        skipped; their audited answers (0 unless ``audits``: the 'committee' choice counts them); the pairs they
        were asked (``asked_pairs``), then ``ahead`` (those shown before the next ones)."""
        passed = np.vstack([np.reshape(list(exclude), (-1, 2)), skipped_pairs(answers, annotator)]).astype(np.int64)
        audited = audited_answers(answers, annotator) if audits else 0
        recent = np.vstack([asked_pairs(answers, annotator), np.reshape(list(ahead), (-1, 2))]).astype(np.int64)
        return cls(passed, audited, recent)
