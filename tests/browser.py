"""The Studio in a real browser, shared by the browser tests (tests/test_browser_*.py): ``streamlit run
app.py`` on a free port, Debian's chromium driven by Playwright, waits for the app to settle, and a
session on the sample homes.  A test module importing it is skipped where chromium or Playwright is
missing (.ci/run installs both)."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ordercore.studio.data import data_settings, load_source
from ordercore.studio.store import Store

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"

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


class Studio:
    """``streamlit run app.py`` on a free port over the store at ``store_path``, and the headless
    chromium that opens it (``browser``, set by ``running_studio``)."""

    def __init__(self, store_path: Path):
        self.store_path, self.port = store_path, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = start_server(self.port, store_path)

    def restart(self) -> None:
        """Kill the server as a crash would, and start it again on the same port and store."""
        stop_server(self.server)
        self.server = start_server(self.port, self.store_path)


@contextlib.contextmanager
def running_studio(store_path: Path):
    """A ``Studio`` with its browser; the server is killed on the way out, whatever happened."""
    studio = Studio(store_path)
    try:
        with playwright.sync_playwright() as driver:
            studio.browser = launch(driver)
            yield studio
            studio.browser.close()
    finally:
        stop_server(studio.server)


def launch(driver):
    """Debian's chromium, headless (never a downloaded browser)."""
    return driver.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )


def open_page(browser, timeout_ms: float):
    """A page in a browser context of its own (its own Streamlit session), whose waits time out after
    timeout_ms."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(timeout_ms)
    return page


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


def page_alerts(page) -> str:
    """The errors, exceptions and notices the page shows now, for a failing test's message."""
    shown = page.locator('[data-testid="stException"], [data-testid="stAlert"]')
    return " | ".join(text.strip() for text in shown.all_inner_texts()) or "none"


def shared_session(store_path: Path) -> int:
    """A session on the sample homes (l = 60), as the Data page sets it up; its id."""
    frame, target, features = load_source("sample")
    settings, _ = data_settings(frame, "sample", target, features, {"n_labeled": 60, "test_fraction": 0.2})
    store = Store(f"sqlite:///{store_path}")
    session_id = store.create_session("shared", settings=settings).id
    store.engine.dispose()
    return session_id
