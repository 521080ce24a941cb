"""The Studio's pages as app.py declares them (``st.Page("app_pages/NAME.py", title=...)``), read from its
source without running it, and the screenshot each has in docs/screenshots/: a count made
independently of docs/screenshots/make_screenshots.py, which finds the pages in the browser."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def navigation_pages() -> list[tuple[str, str]]:
    """(script path, title) of every ``st.Page`` in app.py, in order."""
    pages = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Page":
            title = next(keyword.value.value for keyword in node.keywords if keyword.arg == "title")
            pages.append((node.args[0].value, title))
    return pages


def screenshot_name(title: str) -> str:
    """The file a page's screenshot has: its title in lower case, words joined by '_' ('Toy cubic':
    toy_cubic.png)."""
    return re.sub(r"\W+", "_", title.strip().lower()).strip("_") + ".png"
