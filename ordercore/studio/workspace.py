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
        self._results: dict[str, tuple] = {}
        self._lock = threading.Lock()

    def engine(self, session_id: int) -> SessionEngine:
        """The session's engine (``KeyError`` for an unknown session)."""
        with self._lock:
            if session_id not in self._engines:
                self._engines[session_id] = SessionEngine(self.store, session_id)
            return self._engines[session_id]

    def keep(self, name: str, key, value) -> None:
        """Keep ``value``, computed from inputs ``key`` (a session's id among them), as the result ``name``
        for every tab of this process, a reloaded one too (the Model page's MPMR and boosting fits)."""
        with self._lock:
            self._results[name] = (key, value)

    def kept(self, name: str, key):
        """The result ``name`` kept with inputs ``key``, or None (none kept, or kept from other inputs)."""
        with self._lock:
            kept = self._results.get(name)
        return kept[1] if kept is not None and kept[0] == key else None

    def session_names(self) -> list[str]:
        """Every session's name, newest activity first."""
        return self.store.sessions()["name"].tolist()

    def close(self) -> None:
        """Stop every engine's background work."""
        with self._lock:
            for engine in self._engines.values():
                engine.close()
