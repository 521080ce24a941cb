"""A session's model runs: which model was fitted, with what parameters, on how many preferences,
and its metrics (the Model page records one per retrain)."""

from __future__ import annotations

import json

import pandas as pd
import sqlalchemy as sa

from ordercore.studio.store.limits import check_count, check_name, check_size, id_number, json_text
from ordercore.studio.store.schema import model_runs
from ordercore.studio.store.sessions import known_session, now, touch


class ModelRunStore:
    """``Store``'s model runs (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def add_model_run(self, session_id: int, model: str, parameters: dict, metrics: dict, n_preferences: int) -> int:
        """Record a fit of ``model``: its ``parameters`` and ``metrics`` are dicts of JSON values, numbers finite
        (``limits.json_text``); refused in words naming the entry before anything is written."""
        session_id = id_number(session_id, "session")
        values = {
            "model": check_name(model, "model", model_runs.c.model),
            "parameters": check_size(json_text(parameters, "model parameters", "model parameter"), "the parameters"),
            "metrics": check_size(json_text(metrics, "model metrics", "model metric"), "the metrics"),
            "n_preferences": check_count(n_preferences, "the number of preferences"),
        }
        with self.engine.begin() as connection:
            touch(connection, session_id, content=False)
            inserted = connection.execute(model_runs.insert().values(**values, session_id=session_id, created_at=now()))
            return int(inserted.inserted_primary_key[0])

    def model_runs(self, session_id: int) -> pd.DataFrame:
        """A session's model runs, oldest first, with parameters and metrics as dicts."""
        with self.engine.connect() as connection:
            session_id = known_session(connection, session_id)
            query = sa.select(model_runs).where(model_runs.c.session_id == session_id).order_by(model_runs.c.id)
            frame = pd.DataFrame(
                connection.execute(query).mappings().all(), columns=list(query.selected_columns.keys())
            )
        for column in ("parameters", "metrics"):
            frame[column] = frame[column].map(json.loads)
        return frame
