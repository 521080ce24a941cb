"""The pairs a browser tab holds ahead for its annotator (``hold_pairs``): what the Pairwise page sends
to the browser, drawn by the session engine for the annotator answering now.

The pairs are held for one *context*: the session, the source ("Pairs from"), the annotator and the
active choice's strategy and candidates.  A new context starts afresh, the pair on screen included:
a second annotator named in the sidebar of the same tab gets their own draw (audit pairs first), not the
pairs drawn for the first (new-user report 10: the colleague given the laptop answered the first
annotator's hard pairs and was scored 'worse than a coin'); a new strategy or candidates shows its own
pairs at once.  Within a context, a retrain keeps the pair on screen (the expert is reading it) and
draws the rest afresh (``Offers.offer``)."""

from __future__ import annotations

from typing import NamedTuple

from ordercore.studio.offers import Offers
from ordercore.studio.session import ACTIVE


class PairContext(NamedTuple):
    """What the pairs held are drawn for (``Offers.offered_for``), and what an answer to one of them is
    stored under (its source: the active choice, the queue or a rule's id; its annotator)."""

    session_id: int
    source: object
    annotator: str
    strategy: str | None
    candidates: str | None


def pair_context(session_id: int, source, annotator: str, strategy: str, candidates: str) -> PairContext:
    """What the pairs held are drawn for: a change of any part starts afresh (``Offers.offer``); the
    strategy and candidates count for the active choice only (the other sources do not use them)."""
    choice = (strategy, candidates) if source == ACTIVE else (None, None)
    return PairContext(session_id, source, annotator, *choice)


def hold_pairs(engine, offers: Offers, source, annotator: str, rng, strategy: str, candidates: str, count: int):
    """Top ``offers`` up to ``count`` pairs from ``engine.next_pairs`` (a ``SessionEngine``) for
    ``annotator``: drawn afresh in a new ``pair_context``, else those held kept (only the one on screen
    once the model changed) and shown before the ones drawn, their rows counting as recent."""
    if not isinstance(offers, Offers):
        raise TypeError(f"offers must be the Offers a tab holds (ordercore.studio.offers.Offers), got {offers!r}")
    context = pair_context(engine.id, source, annotator, strategy, candidates)
    basis = engine.models.version
    drawn = engine.next_pairs(
        source,
        annotator,
        rng,
        strategy,
        candidates,
        count,
        exclude=[tuple(pair) for pair in offers.answered] if offers.offered_for == context else (),
        ahead=offers.kept(context, basis),
    )
    offers.offer(context, drawn, basis=basis)
