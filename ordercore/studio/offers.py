"""What a browser tab was sent to answer ahead of the one on screen (``Offers``), and how the answers it
sends back are applied once each, in order (``Offers.apply``).  Plain Python: the app keeps one per
tab and page (``app_state.Screen``), and its answer keys (``app_widgets.answer_keys``) send the events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from ordercore.knowledge.expert_accuracy import is_audit_pair

UNDO = "undo"
"""The choice of an event that undoes the annotator's own last answer (it names no target)."""

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

    def apply(self, events: list[dict], session_id: int, answer, undo) -> tuple[list[str], str | None]:
        """Apply the answer events the browser sent (dicts: ``id``, ``choice``, ``target``: a list of ints,
        None for ``UNDO``) not yet read, in the order given: ``answer(target, choice, extra, context)`` for
        a target offered here and still unanswered, ``context`` the one it was offered in (``take``; one
        answered already is ignored; one not offered is refused, and said); ``undo()`` for ``UNDO``, which
        returns (target, extra) to show again first (the undone target and what its answer needs, as
        ``offer`` holds it), or None.  Events for another session than ``session_id`` are read and refused
        (and said).  A ``ValueError`` of either
        gives the target back.  The target the browser shows after the last of them (an event's ``next``,
        optional) goes first (``_show_first``).  Call no Streamlit function meanwhile: a key pressed then
        cannot cut a write short.
        Returns (the ids read: the browser stops sending them, the last error's message or None)."""
        ids = [event["id"] for event in events]
        unread = [event for event in events if event["id"] not in self.read]
        self.read.update(ids)
        if self.offered_for is None or self.offered_for[0] != session_id:
            return ids, (f"{len(unread)} answer(s) were not stored: {NOT_OFFERED}" if unread else None)
        error = None
        for event in unread:
            target, extra, context = None if event["target"] is None else tuple(event["target"]), None, None
            try:
                if event["choice"] == UNDO:
                    shown_again = undo()
                    if shown_again is not None:
                        self.give_back(tuple(shown_again[0]), shown_again[1])
                    continue
                offered, extra, context = self.take(target)
                if offered:
                    answer(target, event["choice"], extra, context)
                elif frozenset(target) not in self.answered:
                    error = f"the answer for {target} was not stored: {NOT_OFFERED}"
            except ValueError as refused:
                if target is not None and context not in (None, self.offered_for):
                    self.answered.discard(frozenset(target))
                    self.earlier[target] = (extra, context)  # answerable again, in the context it was shown in
                elif target is not None:
                    self.give_back(target, extra)
                error = str(refused)
        self._show_first(unread)
        return ids, error

    def _show_first(self, events: list[dict]) -> None:
        """Put first the target the browser showed after the last of ``events`` (its ``next``), if it is
        offered and unanswered: the browser keeps it on screen (its other targets may have been drawn
        afresh meanwhile), and the page's view of the pair on screen follows.  Nothing after an undo
        (the browser then shows what the page puts first: the undone target, if it gives one back)."""
        last = events[-1] if events else {}
        shown = last.get("next") if last.get("choice") != UNDO else None
        if shown is not None and tuple(shown) in self.offered:
            self.upcoming = [tuple(shown), *(target for target in self.upcoming if target != tuple(shown))]


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
