"""What a Studio process shares: one store and one engine per labelling session, made on first use and
kept, so that every tab and annotator of a session works on the same engine."""

from __future__ import annotations

import threading

from ordercore.studio.session import SessionEngine
from ordercore.studio.store import Store


class Workspace:
    """The sessions of ``store`` and their engines.  Thread-safe."""

    def __init__(self, store: Store):
        self.store = store
        self._engines: dict[int, SessionEngine] = {}
        self._lock = threading.Lock()

    def engine(self, session_id: int) -> SessionEngine:
        """The session's engine (``KeyError`` for an unknown session)."""
        with self._lock:
            if session_id not in self._engines:
                self._engines[session_id] = SessionEngine(self.store, session_id)
            return self._engines[session_id]

    def session_names(self) -> list[str]:
        """Every session's name, newest activity first."""
        return self.store.sessions()["name"].tolist()

    def close(self) -> None:
        """Stop every engine's background work."""
        with self._lock:
            for engine in self._engines.values():
                engine.close()
