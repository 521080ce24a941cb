"""A session's model runs: which model was fitted, with what parameters, on how many preferences,
and its metrics (the Model page records one per retrain)."""

from __future__ import annotations

import json

import pandas as pd
import sqlalchemy as sa

from ordercore.studio.store.limits import check_count, check_name, check_size, id_number
from ordercore.studio.store.schema import model_runs
from ordercore.studio.store.sessions import known_session, now, touch


def _model_json(values) -> str:
    """A model run's parameters or metrics as stored: a dict of JSON values, numpy numbers as floats."""
    try:
        if not isinstance(values, dict):
            raise TypeError(f"got {type(values).__name__}")
        return json.dumps(values, default=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"model parameters and metrics must be dicts of numbers and text: {error}") from None


class ModelRunStore:
    """``Store``'s model runs (a part of it: ``engine`` is the store's)."""

    engine: sa.Engine

    def add_model_run(self, session_id: int, model: str, parameters: dict, metrics: dict, n_preferences: int) -> int:
        session_id = id_number(session_id, "session")
        values = {
            "model": check_name(model, "model", model_runs.c.model),
            "parameters": check_size(_model_json(parameters), "the model's parameters"),
            "metrics": check_size(_model_json(metrics), "the model's metrics"),
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
