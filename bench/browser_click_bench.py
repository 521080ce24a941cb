"""One answer on the Pairwise page in a real browser, from the key press until the next pair is ready (issue 13).

The session of ``click_bench.py`` (California, l = 60, --preferences none, 40k or 500k rule preferences),
stored in a temporary SQLite file, served by ``streamlit run app.py`` and driven by Debian's
chromium through Playwright (headless).  The Pairwise page is opened once, as the annotator "bench"
(its first visit fits the models, cold), then each of --clicks presses the key A ("A higher") and
waits until the page shows the new answer count and a new pair with its "A higher" button, with the
app no longer running: the pair is then ready to answer.  Both instants are taken in the page (the
keydown event's time and the first animation frame that finds the pair ready).  Prints the 50th and
95th percentiles, the median and the worst.

Run: ORDERCORE_DATA=../shared/data python bench/browser_click_bench.py [--preferences 40k] [--clicks 10] [--quick]
(--quick: no rule preferences, 3 presses)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from click_bench import SCENARIOS, session_with_rules  # noqa: E402

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402
from tests.browser import free_port, launch, open_page, start_server, stop_server  # noqa: E402

RECORD_KEY = """() => { window.keyAt = null; window.readyAt = null;
    window.addEventListener("keydown", (event) => { window.keyAt = performance.now(); }, true); }"""
"""Records in the page the time of each keydown (before the app sees it)."""
READY = """([answers, before]) => {
    const metric = [...document.querySelectorAll('[data-testid="stMetric"]')]
        .find((element) => element.innerText.includes("Answers given"));
    const caption = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
        .map((element) => element.innerText).find((text) => text.startsWith("Rows "));
    const button = [...document.querySelectorAll("button")].find((element) => element.innerText.includes("A higher"));
    const ready = metric && metric.querySelector('[data-testid="stMetricValue"]').innerText === String(answers)
        && caption && caption !== before && button && !button.disabled
        && !document.querySelector('[data-testid="stStatusWidget"]');
    if (ready) window.readyAt = performance.now();
    return ready;
}"""
"""True once the page shows ``answers`` answers and a pair other than ``before`` with its enabled "A higher"
button, and is not running; it then records the time in the page."""


def pair_caption(page) -> str:
    return page.locator('[data-testid="stCaptionContainer"]', has_text="Rows ").first.inner_text()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preferences", choices=sorted(SCENARIOS), default="40k")
    parser.add_argument("--clicks", type=int, default=10)
    args = parse_arguments(parser, argv, preferences="none", clicks=3)
    with tempfile.TemporaryDirectory() as directory:
        store_path = Path(directory) / "studio.sqlite"
        store = Store(f"sqlite:///{store_path}")
        session, _ = session_with_rules(store, args.preferences)
        store.engine.dispose()
        port = free_port()
        server = start_server(port, store_path)
        url = f"http://127.0.0.1:{port}/?session={session.name}&annotator=bench"
        try:
            seconds = presses_in_browser(url, args.clicks)
        finally:
            stop_server(server)
    every = ", ".join(f"{s:.2f}" for s in seconds)
    p50, p95 = np.percentile(seconds, [50, 95])
    print(f"{args.preferences} preferences: key press to next pair ready, p50 {p50:.3f} s, p95 {p95:.3f} s")
    print(f"median {statistics.median(seconds):.2f} s, worst {max(seconds):.2f} s over {args.clicks} clicks ({every})")


def presses_in_browser(url: str, presses: int) -> list[float]:
    """Seconds from each press of the key A until the next pair is ready, as the page measures them."""
    with sync_playwright() as driver:
        browser = launch(driver)
        page = open_page(browser, 600_000)
        page.goto(url)
        page.get_by_role("link", name="Pairwise").click()
        page.wait_for_function(READY, arg=[0, ""])
        page.evaluate(RECORD_KEY)
        seconds = []
        for answered in range(1, presses + 1):
            before = pair_caption(page)
            page.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the shortcuts
            page.keyboard.press("a")
            page.wait_for_function(READY, arg=[answered, before], polling="raf")
            seconds.append(page.evaluate("(window.readyAt - window.keyAt) / 1000"))
        browser.close()
    return seconds


if __name__ == "__main__":
    main()
