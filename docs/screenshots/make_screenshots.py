"""The README's screenshots: one PNG of every page of the Studio, as a user sees it on the sample homes.

    python docs/screenshots/make_screenshots.py [--out DIR]

Starts ``streamlit run app.py`` on a free port over a temporary store holding one session on the sample
homes (l = 60) with a rule, a dozen answers and a dozen grades, opens it in Debian's headless chromium
(``apt-get install chromium``; never a downloaded browser), visits every page the sidebar's navigation
lists and writes ``<page title>.png`` for each (lower case, words joined by '_': toy_cubic.png) into DIR
(default: this folder, where the README finds them).  The Data and Experiments pages offer the benchmark
data sets when ORDERCORE_DATA names their folder.  A page that shows an exception stops the run (exit
status 1).  Needs the test extra (Playwright, pytest); the server and browser helpers are the browser
tests' (tests/browser.py).  tests/test_screenshots.py runs it into a temporary directory."""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHROMIUM = "/usr/bin/chromium"
SESSION, ANNOTATOR = "sample homes", "docs"
MAX_HEIGHT = 2400
"""A page taller than this is cut (its first 2,400 pixels: what the README needs to show)."""


def file_name(title: str) -> str:
    return re.sub(r"\W+", "_", title.strip().lower()).strip("_") + ".png"


def seeded_session(store_path: Path) -> None:
    """A session on the sample homes as the Data page sets it up, with what a first hour leaves: the
    README's bedroom rule, twelve answers and twelve grades (each true to the price)."""
    import numpy as np

    from ordercore.knowledge.rules import Near, Ordering, Rule, Within, generate
    from ordercore.studio.data import data_settings, load_source
    from ordercore.studio.store import Store

    frame, target, features = load_source("sample")
    settings, data = data_settings(frame, "sample", target, features, {"n_labeled": 60, "test_fraction": 0.2})
    store = Store(f"sqlite:///{store_path}")
    session_id = store.create_session(SESSION, settings=settings).id
    labeled = np.zeros(len(frame), dtype=bool)
    labeled[data.labeled] = True
    rule = Rule(
        "more bedrooms",
        [Near("latitude", "longitude", miles=2.0), Within("age", 10), Within("income", 10)],
        Ordering("bedrooms", direction="higher"),
    )
    made = generate(rule, frame, labeled, max_pairs=2_000, random_state=0)
    store.add_rule(session_id, rule, made.preferences, ANNOTATOR)
    rng = np.random.default_rng(0)
    price = frame[target].to_numpy()
    for a, b in rng.choice(data.pool, size=(12, 2), replace=False):
        store.add_answer(session_id, int(a), int(b), "a" if price[a] > price[b] else "b", ANNOTATOR)
    quintiles = np.quantile(price, [0.2, 0.4, 0.6, 0.8])
    for row in rng.choice(data.pool, size=12, replace=False):
        store.add_grade(session_id, int(row), int(np.searchsorted(quintiles, price[row])) + 1, ANNOTATOR)
    store.engine.dispose()


def quiet(page, settle, title: str, timeout: float = 180.0) -> None:
    """Wait until the page shows its title and has been idle for two seconds in a row (no run in
    progress, no spinner, no background work with a Cancel button), then give the charts a moment to
    draw.  A page still busy after ``timeout`` seconds is taken as it is."""
    page.get_by_role("heading", name=title).first.wait_for()
    busy = page.locator('[data-testid="stStatusWidget"], [data-testid="stSpinner"], button:has-text("Cancel")')
    deadline, idle_since = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        if busy.count():
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= 2.0:
            break
        page.wait_for_timeout(250)
    settle(page)
    page.wait_for_timeout(1_000)


def shoot(page, path: Path) -> None:
    """The page, whole, at most MAX_HEIGHT pixels tall.  Streamlit scrolls inside its main container,
    so the viewport is first made as tall as that container's content."""
    height = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
            return Math.max(main.scrollHeight, document.scrollingElement.scrollHeight);
        }"""
    )
    page.set_viewport_size({"width": 1400, "height": max(1000, min(int(height), MAX_HEIGHT))})
    # Streamlit's own toolbar (Deploy, the running man) is not the Studio's: leave it out of the picture.
    page.add_style_tag(content='[data-testid="stToolbar"], [data-testid="stStatusWidget"] {visibility: hidden}')
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1400, "height": 1000})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where the PNGs go (default: %(default)s)")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).is_file():
        parser.exit(1, f"error: Debian's chromium is needed at {CHROMIUM} (apt-get install chromium)\n")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        parser.exit(1, "error: Playwright is needed: python -m pip install -r requirements.txt (the test extra)\n")
    sys.path.insert(0, str(ROOT))
    from tests.browser import open_page, running_studio, settle

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        store_path = Path(scratch) / "studio.sqlite"
        seeded_session(store_path)
        with running_studio(store_path) as studio:
            page = open_page(studio.browser, 120_000)
            page.goto(f"{studio.url}/?session={SESSION.replace(' ', '+')}&annotator={ANNOTATOR}")
            navigation = page.locator('[data-testid="stSidebarNav"] a')
            navigation.first.wait_for()
            settle(page)
            # A link reads "<icon's name>\n\n<title>": the title is its last line.
            titles = [text.strip().splitlines()[-1].strip() for text in navigation.all_inner_texts()]
            for number, title in enumerate(titles):
                navigation.nth(number).click()
                quiet(page, settle, title)
                shoot(page, args.out / file_name(title))
                if page.locator('[data-testid="stException"]').count():
                    parser.exit(1, f"error: the {title} page shows an exception ({args.out / file_name(title)})\n")
                print(args.out / file_name(title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
