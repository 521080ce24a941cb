"""End to end in a real browser: `streamlit run app.py`, Debian's chromium driven by Playwright.

Create a session, set up the sample data, answer three pairs by clicking, kill and restart the
server, and find the three answers still there.  On a California session with a rule touching
thousands of rows (more than the exact GP may take), start a GP fit, cancel it, start it again and
see it finish.  With ORDERCORE_UPDATE_SCREENSHOT=1 it also
rewrites docs/screenshots/pairwise.png, the README's screenshot.  Skipped where chromium or
Playwright is missing (.ci/run installs both).
"""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from ordercore import GPPreferenceModel, MemoryBudgetError
from ordercore.experiments import bedroom_rule
from ordercore.rules import generate
from ordercore.store import Store
from ordercore.studio import data_settings, load_source
from ordercore.workbench import GP_MEMORY_LIMIT_GB

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOT = ROOT / "docs" / "screenshots" / "pairwise.png"
UPDATE_SCREENSHOT = os.environ.get("ORDERCORE_UPDATE_SCREENSHOT") == "1"

playwright = pytest.importorskip("playwright.sync_api")
if not Path(CHROMIUM).is_file():
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int, store_path: Path) -> subprocess.Popen:
    env = {**os.environ, "ORDERCORE_STORE": str(store_path)}
    env.pop("ORDERCORE_STORE_URL", None)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return server
        except OSError:
            time.sleep(0.3)
    stop_server(server)
    raise RuntimeError("streamlit did not start within 60 s")


def stop_server(server: subprocess.Popen) -> None:
    """Kill the server's whole process group, as a crash would (no clean shutdown)."""
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=10)


def open_page(driver, timeout_ms: float):
    """(browser, page): Debian's chromium, headless, and a page whose waits time out after timeout_ms."""
    browser = driver.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(timeout_ms)
    return browser, page


def settle(page, timeout: float = 30.0) -> None:
    """Wait until the app has finished rerunning (Streamlit shows its status widget while it runs)."""
    page.wait_for_timeout(300)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and page.locator('[data-testid="stStatusWidget"]').count():
        page.wait_for_timeout(100)


def type_into(page, name: str, text: str) -> None:
    """Type into a text box and commit it with Enter, then let the rerun finish."""
    box = page.get_by_role("textbox", name=name)
    box.fill(text)
    box.press("Enter")
    settle(page)


def metric_value(page, label: str) -> str:
    return (
        page.locator('[data-testid="stMetric"]', has_text=label).locator('[data-testid="stMetricValue"]').inner_text()
    )


def wait_for_metric(page, label: str, value: str, failure: Path, timeout: float = 30.0) -> None:
    """Wait until the metric shows ``value`` and the app has finished its run (until then the last
    pair's buttons are still on the page beside the new ones)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if metric_value(page, label) == value:
                settle(page, deadline - time.monotonic())
                return
        except playwright.Error:
            pass
        page.wait_for_timeout(200)
    page.screenshot(path=str(failure), full_page=True)
    raise AssertionError(f"{label!r} never showed {value!r}; the page is in {failure}")


def test_three_answers_survive_a_server_kill(tmp_path):
    shots = SCREENSHOT.parent if UPDATE_SCREENSHOT else tmp_path
    store_path = tmp_path / "studio.sqlite"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_server(port, store_path)
    try:
        with playwright.sync_playwright() as driver:
            browser, page = open_page(driver, 60_000)
            page.goto(url)
            page.get_by_role("button", name="Create session").wait_for()
            settle(page)
            type_into(page, "Annotator", "e2e annotator")
            type_into(page, "Session name", "browser session")
            page.get_by_role("button", name="Create session").click()
            settle(page)
            page.get_by_role("button", name="Use this data for the session").click()
            page.get_by_text("Session uses").wait_for()
            page.get_by_role("link", name="Pairwise").click()
            wait_for_metric(page, "Answers given", "0", tmp_path / "failure.png")
            for done in range(1, 4):
                page.get_by_role("button", name="A higher").click()
                wait_for_metric(page, "Answers given", str(done), tmp_path / "failure.png")
            page.screenshot(path=str(shots / SCREENSHOT.name), full_page=True)
            stop_server(server)
            server = start_server(port, store_path)
            # Reopen the app as a user does (its address), then the Pairwise page.
            page.goto(url)
            page.get_by_role("link", name="Pairwise").click()
            wait_for_metric(page, "Answers given", "3", tmp_path / "failure.png")
            browser.close()
    finally:
        stop_server(server)
    store = Store(f"sqlite:///{store_path}")
    answers = store.answers(store.session("browser session").id)
    assert answers["choice"].tolist() == ["a", "a", "a"]
    assert set(answers["annotator"]) == {"e2e annotator"}


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


def test_a_gp_fit_too_large_for_the_exact_model_is_cancelled_then_finishes(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    n_rows, preferences = california_session_with_a_rule(store_path, 4_000)
    with pytest.raises(MemoryBudgetError):
        GPPreferenceModel(method="exact", memory_limit=GP_MEMORY_LIMIT_GB).fit_plan(n_rows, preferences)
    port = free_port()
    server = start_server(port, store_path)
    try:
        with playwright.sync_playwright() as driver:
            browser, page = open_page(driver, 300_000)
            page.goto(f"http://127.0.0.1:{port}")
            page.get_by_role("link", name="Model").click()
            fit = page.get_by_role("button", name="Fit the GP preference model")
            fit.wait_for()
            settle(page, 300)
            fit.click()
            page.get_by_text("in the background:").wait_for()
            assert "sparse" in page.get_by_text("GP (sparse").inner_text()
            page.get_by_role("button", name="Cancel the GP fit").click()
            page.get_by_text("GP fit cancelled after").wait_for()
            fit.click()
            page.get_by_text("in the background:").wait_for()
            page.get_by_text("Fitted in").wait_for(timeout=120_000)
            page.get_by_text("Rank correlation with").wait_for()
            assert page.get_by_text("in the background:").count() == 0
            browser.close()
    finally:
        stop_server(server)
