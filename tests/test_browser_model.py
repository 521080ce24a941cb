"""End to end in a real browser (tests/browser.py) on the Model page: on a California session with a
rule touching thousands of rows (more than the exact GP may take), start a GP fit, cancel it, start
it again and see it finish."""

import re
from pathlib import Path

import numpy as np
import pytest

from ordercore import GPPreferenceModel, MemoryBudgetError
from ordercore.experiments.bedroom import bedroom_rule
from ordercore.knowledge.rules import generate
from ordercore.studio.comparisons import GP_MEMORY_LIMIT_GB
from ordercore.studio.data import data_settings, load_source
from ordercore.studio.store import Store
from tests.browser import open_page, running_studio, settle


def california_session_with_a_rule(store_path: Path, max_pairs: int):
    """A California session (l = 60) as the Data page sets it up, with seed 000's bedroom rule."""
    frame, target, features = load_source("california")
    settings, data = data_settings(frame, "california", target, features, {"n_labeled": 60, "test_fraction": 0.2})
    store = Store(f"sqlite:///{store_path}")
    session = store.create_session("gp session", settings=settings)
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[data.labeled] = True
    preferences = generate(bedroom_rule(), frame, labeled, max_pairs=max_pairs, random_state=0).preferences
    store.add_rule(session.id, bedroom_rule(), preferences, "e2e")
    store.engine.dispose()
    return len(frame), preferences


GP_PROGRESS = re.compile(r"^(Starting|Fitting) in the background:")
"""The GP fit's progress line (automatic trust's, 'Automatic trust, in the background: …', may show beside it)."""


def test_a_gp_fit_too_large_for_the_exact_model_is_cancelled_then_finishes(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    n_rows, preferences = california_session_with_a_rule(store_path, 4_000)
    with pytest.raises(MemoryBudgetError):
        GPPreferenceModel(method="exact", memory_limit=GP_MEMORY_LIMIT_GB).fit_plan(n_rows, preferences)
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 300_000)
        page.goto(studio.url)
        page.get_by_role("link", name="Model").click()
        fit = page.get_by_role("button", name="Fit the GP preference model")
        fit.wait_for()
        settle(page, 300)
        fit.click()
        page.get_by_text(GP_PROGRESS).wait_for()
        assert "sparse" in page.get_by_text("GP (sparse").inner_text()
        page.get_by_role("button", name="Cancel the GP fit").click()
        page.get_by_text("GP fit cancelled after").wait_for()
        fit.click()
        page.get_by_text(GP_PROGRESS).wait_for()
        page.get_by_text("Fitted in").wait_for(timeout=120_000)
        page.get_by_text("Rank correlation with").wait_for()
        assert page.get_by_text(GP_PROGRESS).count() == 0
