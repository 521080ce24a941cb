"""docs/screenshots/make_screenshots.py, run into a temporary directory, makes one non-blank PNG per page
of the Studio's navigation (the pages counted from app.py and app_pages/, not from the script).  Skipped
where Debian's chromium or Playwright is missing, like the other browser tests (tests/browser.py)."""

import struct
import subprocess
import sys
import zlib

from tests.browser import ROOT
from tests.navigation import navigation_pages, screenshot_name

SCRIPT = ROOT / "docs" / "screenshots" / "make_screenshots.py"


def test_every_page_file_is_in_the_navigation():
    """The two counts agree: app.py's navigation names every page file in app_pages/ (a module with a
    ``main()``; a part of a page's view beside it has none), each once."""
    declared = [path for path, _ in navigation_pages()]
    pages = [path for path in (ROOT / "app_pages").glob("*.py") if "\ndef main() -> None:" in path.read_text()]
    assert sorted(declared) == sorted(f"app_pages/{path.name}" for path in pages)
    assert len(declared) == len(set(declared)) >= 7


def png_rows(path) -> tuple[int, int, list[bytes]]:
    """Width, height and the (filtered) pixel rows of a PNG, read with zlib alone (no imaging library)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    chunks, at = {}, 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        chunks[kind] = chunks.get(kind, b"") + data[at + 8 : at + 8 + length]
        at += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert depth == 8 and colour in (2, 6), f"{path.name}: not 8-bit RGB(A)"
    raw = zlib.decompress(chunks[b"IDAT"])
    stride = 1 + width * (3 if colour == 2 else 4)
    assert len(raw) == height * stride
    return width, height, [raw[k : k + stride] for k in range(0, len(raw), stride)]


def non_blank(path) -> bool:
    """A blank page's pixel rows are all alike (after PNG's row filters, mostly zeros): a page with
    content has hundreds of different ones."""
    _, height, rows = png_rows(path)
    return len(set(rows)) >= min(200, height // 4)


def test_one_non_blank_png_per_page(tmp_path):
    out = tmp_path / "shots"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    expected = {screenshot_name(title) for _, title in navigation_pages()}
    assert {path.name for path in out.iterdir()} == expected
    for name in sorted(expected):
        width, height, _ = png_rows(out / name)
        assert width >= 1000 and height >= 500, name
        assert non_blank(out / name), f"{name} is blank"
