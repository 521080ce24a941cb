"""Key press → the next pair (or item) ready to answer, in a real browser (issue 30).

Pairwise: the session of ``click_bench.py`` (California, l = 60; --preferences none, 40k or 500k rule
preferences: 500k is seed 000's bedroom rule, every pair, 498,791), with --trust the automatic trust
assessment computed first (in this process, stored as the Studio stores it) so that the blend is in
force, else automatic trust off.  Ratings (--page ratings): a California session holding --grades
grades (by the labels' quantiles, annotator "seed").  Served by ``streamlit run app.py`` over a
temporary SQLite file and driven by Debian's chromium through Playwright (headless), as annotator
"bench".  The page is opened once (its first visit fits the models, cold); then each of --presses
presses a key (A, or a grade) and the page itself times, from the keydown, the first animation frame
showing a new pair (item) whose answer buttons are enabled: **ready** (a key pressed now answers it).
It also times **stored**: the page's answer (grade) count showing the new answer, the server's
round trip.  The next press follows once stored, then --pause ms (an expert reading).  Prints p50 and
p95 of both and their ratio to the issue's targets (ready p50 ≤ 150 ms, p95 ≤ 300 ms).  Anything the
page does not show within --wait s ends the run, saying what it waited for.

Run: ORDERCORE_DATA=../shared/data python bench/browser_click_bench.py [--preferences 40k] [--trust]
     [--page ratings --grades 5000] [--presses 20] [--wait 600] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from click_bench import SCENARIOS, session_with_rules  # noqa: E402

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.studio.session import SessionEngine  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402
from tests.browser import free_port, launch, open_page, start_server, stop_server  # noqa: E402

TARGETS = {"p50": 0.150, "p95": 0.300}

SHOWN = """() => {
    const caption = document.querySelector(".answer-keys .caption");
    const button = document.querySelector('.answer-keys button:not([data-choice="undo"])');
    const text = caption && caption.innerText.trim();
    return text && button && !button.disabled && !text.startsWith("The next ones") ? text : null;
}"""
"""What the page shows ready to answer (its caption naming the pair or item), or null."""

TIMER = """(metric) => {
    const now = SHOWN;
    const count = () => {
        const boxes = [...document.querySelectorAll('[data-testid="stMetric"]')];
        const box = boxes.find((node) => node.innerText.includes(metric));
        return box ? box.querySelector('[data-testid="stMetricValue"]').innerText.replace(/,/g, "") : null;
    };
    window.timing = null;
    window.addEventListener("keydown", () => {
        const before = now(), counted = count(), at = performance.now();
        const timing = { ready: null, stored: null };
        window.timing = timing;
        const check = () => {
            const shownNow = now();
            if (timing.ready === null && shownNow && shownNow !== before) timing.ready = performance.now() - at;
            if (timing.stored === null && count() !== counted) timing.stored = performance.now() - at;
            if (timing.ready === null || timing.stored === null) requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
    }, true);
}"""
"""At each keydown (before the app sees it), times in the page the frames where a new pair or item is
ready and where the count changes (ms)."""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", choices=["pairwise", "ratings"], default="pairwise")
    parser.add_argument("--preferences", choices=sorted(SCENARIOS), default="40k")
    parser.add_argument("--trust", action="store_true", help="automatic trust's assessment in force first")
    parser.add_argument("--grades", type=int, default=5000, help="grades held (--page ratings)")
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--pause", type=float, default=300.0, help="ms between a stored answer and the next key")
    parser.add_argument("--max-pairs", type=int, default=None, help="at most this many pairs per rule")
    parser.add_argument("--wait", type=float, default=600.0, help="s the page may take to show anything awaited")
    args = parse_arguments(
        parser, argv, preferences="40k", max_pairs=500, grades=100, presses=3, pause=100.0, wait=180.0
    )
    with tempfile.TemporaryDirectory() as directory:
        store_path = Path(directory) / "studio.sqlite"
        store = Store(f"sqlite:///{store_path}")
        name, setup = session_for(store, args)
        store.engine.dispose()
        port = free_port()
        server = start_server(port, store_path)
        url = f"http://127.0.0.1:{port}/?session={name}&annotator=bench"
        try:
            timings = presses_in_browser(url, args)
        finally:
            stop_server(server)
    report(args, setup, timings)


def session_for(store: Store, args) -> tuple[str, str]:
    """The session the bench answers in: its name, and what it holds (a line)."""
    if args.page == "ratings":
        return "bench", graded_session(store, args.grades)
    session, _ = session_with_rules(store, args.preferences, max_pairs=args.max_pairs)
    engine = SessionEngine(store, session.id)
    try:
        engine.set_model(automatic_trust=args.trust)
        n = len(engine.preferences()[0])
        if not args.trust:
            return session.name, f"{n:,} preferences, automatic trust off"
        start = time.perf_counter()
        engine.sync_trust()
        status = engine.trust.wait()
        if engine.trust.in_force() is None:
            raise SystemExit(f"the trust assessment did not finish: {status}")
        return (
            session.name,
            f"{n:,} preferences, the trust blend in force (assessed in {time.perf_counter() - start:.1f} s)",
        )
    finally:
        engine.close()


def graded_session(store: Store, grades: int) -> str:
    """A California session (l = 60) with ``grades`` rows graded 1 … 5 by their labels' quintiles."""
    session, data = session_with_rules(store, "none")
    rows = np.random.default_rng(0).choice(len(data.y_true), size=grades, replace=False)
    edges = np.quantile(data.y_true, [0.2, 0.4, 0.6, 0.8])
    for row in rows:
        store.add_grade(session.id, int(row), int(np.searchsorted(edges, data.y_true[row])) + 1, "seed")
    return f"{grades:,} grades held"


def presses_in_browser(url: str, args) -> list[dict]:
    """The page's timings (ms) of each press: ready and stored."""
    page_name, key, metric = (
        ("Pairwise", "a", "Answers given") if args.page == "pairwise" else ("Ratings", "3", "Grades given")
    )
    with sync_playwright() as driver:
        browser = launch(driver)
        page = open_page(browser, args.wait * 1000)
        awaiting = f"the {page_name} page ready to answer"
        try:
            page.goto(url)
            page.get_by_role("link", name=page_name).click()
            page.wait_for_function(SHOWN, polling="raf")
            page.evaluate(TIMER.replace("SHOWN", SHOWN), metric)
            timings = []
            for press in range(1, args.presses + 1):
                awaiting = f"press {press} of {args.presses}: the next one ready and the answer counted"
                page.evaluate("document.activeElement && document.activeElement.blur()")  # keys go to the page
                page.keyboard.press(key)
                page.wait_for_function("window.timing && window.timing.ready !== null && window.timing.stored !== null")
                timings.append(page.evaluate("window.timing"))
                page.wait_for_timeout(args.pause)
        except PlaywrightTimeoutError:
            raise SystemExit(f"waited {args.wait:g} s (--wait) for {awaiting}: it never came") from None
        finally:
            browser.close()
    return timings


def report(args, setup: str, timings: list[dict]) -> None:
    where = "Ratings" if args.page == "ratings" else "Pairwise"
    print(f"{where}, {setup}: {len(timings)} presses")
    for what in ("ready", "stored"):
        p50, p95 = np.percentile([t[what] / 1000 for t in timings], [50, 95])
        ratios = (
            f" (×{p50 / TARGETS['p50']:.2f} and ×{p95 / TARGETS['p95']:.2f} of the targets)" if what == "ready" else ""
        )
        label = "key press to next ready to answer" if what == "ready" else "key press to the answer counted"
        print(f"{label}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms{ratios}")


if __name__ == "__main__":
    main()
