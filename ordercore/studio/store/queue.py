"""A session's shared queue: pairs of rows queued for several annotators to answer
(``ordercore.studio.shared_queue`` draws from it)."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import sqlalchemy as sa

from ordercore.studio.store.limits import check_annotator, check_row
from ordercore.studio.store.schema import queued_pairs
from ordercore.studio.store.sessions import lock_session, n_rows, now, session_rows, touch

MAX_COPIES = 10
"""Most annotators one pair of the shared queue goes to."""


class QueueStore:
    """``Store``'s shared queue (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def queue_pairs(self, session_id: int, pairs, copies: int, annotator: str) -> int:
        """Add pairs of rows (k, 2) to the session's shared queue, each to be answered by ``copies``
        annotators (1 to ``MAX_COPIES``); pairs already queued (either way round) are left out.
        Returns how many were added; ``ValueError`` for a bad row or count, nothing written."""
        annotator = check_annotator(annotator)
        if isinstance(copies, bool) or not isinstance(copies, numbers.Integral) or not 1 <= copies <= MAX_COPIES:
            raise ValueError(f"each queued pair goes to 1 to {MAX_COPIES} annotators, got {copies!r}")
        with self.engine.begin() as connection:
            session_id = lock_session(connection, session_id)
            n = n_rows(connection, session_id)
            pairs = [(check_row(a, n, "row A"), check_row(b, n, "row B")) for a, b in _pairs(pairs)]
            if any(a == b for a, b in pairs):
                raise ValueError("a queued pair compares two different rows")
            held = {
                frozenset(pair)
                for pair in connection.execute(
                    sa.select(queued_pairs.c.row_a, queued_pairs.c.row_b).where(queued_pairs.c.session_id == session_id)
                )
            }
            new = []
            for pair in pairs:
                if frozenset(pair) not in held:
                    held.add(frozenset(pair))
                    new.append(pair)
            if new:
                touch(connection, session_id, content=False)
                created = now()
                connection.execute(
                    queued_pairs.insert(),
                    [
                        {"session_id": session_id, "row_a": a, "row_b": b, "copies": int(copies)}
                        | {"annotator": annotator, "created_at": created}
                        for a, b in new
                    ],
                )
        return len(new)

    def queued_pairs(self, session_id: int) -> pd.DataFrame:
        """The session's shared queue, oldest first: id, row_a, row_b, copies, annotator, created_at."""
        return session_rows(self.engine, queued_pairs, session_id)


def _pairs(pairs) -> np.ndarray:
    """``pairs`` as an array (k, 2) of objects; ``ValueError`` for anything but a list of (row, row) pairs."""
    array = np.asarray(pairs, dtype=object)
    if array.size and (array.ndim != 2 or array.shape[1] != 2):
        raise ValueError(f"queued pairs are (row, row) pairs, a table (k, 2); got an array of shape {array.shape}")
    return array.reshape(-1, 2)
