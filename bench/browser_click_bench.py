"""One answer on the Pairwise page in a real browser, from the click until the next pair shows (issue 13).

The session of ``click_bench.py`` (California, l = 60, --preferences none, 40k or 500k rule preferences),
stored in a temporary SQLite file, served by ``streamlit run app.py`` and driven by Debian's
chromium through Playwright (headless).  The Pairwise page is opened once (its first visit fits the
models, cold), then each of --clicks presses "A higher" and waits until the page shows the new
answer count and a new pair, with the app no longer running.  Prints the median and the worst.

Run: ORDERCORE_DATA=../shared/data python bench/browser_click_bench.py [--preferences 40k] [--clicks 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from click_bench import SCENARIOS, session_with_rules  # noqa: E402

from ordercore.studio.store import Store  # noqa: E402
from tests.browser import free_port, open_page, start_server, stop_server  # noqa: E402

SHOWN = """([answers, before]) => {
    const metric = [...document.querySelectorAll('[data-testid="stMetric"]')]
        .find((element) => element.innerText.includes("Answers given"));
    const caption = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
        .map((element) => element.innerText).find((text) => text.startsWith("Rows "));
    return metric && metric.querySelector('[data-testid="stMetricValue"]').innerText === String(answers)
        && caption && caption !== before && !document.querySelector('[data-testid="stStatusWidget"]');
}"""
"""True once the page shows ``answers`` answers and a pair other than ``before``, and is not running."""


def pair_caption(page) -> str:
    return page.locator('[data-testid="stCaptionContainer"]', has_text="Rows ").first.inner_text()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preferences", choices=sorted(SCENARIOS), default="40k")
    parser.add_argument("--clicks", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        store_path = Path(directory) / "studio.sqlite"
        store = Store(f"sqlite:///{store_path}")
        session_with_rules(store, args.preferences)
        store.engine.dispose()
        port = free_port()
        server = start_server(port, store_path)
        try:
            seconds = clicks_in_browser(f"http://127.0.0.1:{port}", args.clicks)
        finally:
            stop_server(server)
    every = ", ".join(f"{s:.2f}" for s in seconds)
    print(f"{args.preferences} preferences: click to next pair shown, median {statistics.median(seconds):.2f} s")
    print(f"worst {max(seconds):.2f} s over {args.clicks} clicks ({every})")


def clicks_in_browser(url: str, clicks: int) -> list[float]:
    """Seconds from each press of "A higher" until the next pair shows."""
    with sync_playwright() as driver:
        browser, page = open_page(driver, 600_000)
        page.goto(url)
        page.get_by_role("link", name="Pairwise").click()
        page.wait_for_function(SHOWN, arg=[0, ""])
        seconds = []
        for answered in range(1, clicks + 1):
            before = pair_caption(page)
            start = time.perf_counter()
            page.get_by_role("button", name="A higher").click()
            page.wait_for_function(SHOWN, arg=[answered, before], polling="raf")
            seconds.append(time.perf_counter() - start)
        browser.close()
    return seconds


if __name__ == "__main__":
    main()
