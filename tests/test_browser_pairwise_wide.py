"""End to end in a real browser (tests/browser.py): a pair of many context columns, one of them a long free
text, fits on a 1024 x 768 screen with its answer buttons, its cells never overlap, and the text is there whole
(new-user report 13, F5: the guitars' eleven columns; their 'listing', wrapped to four lines, pushed two
columns below the fold).  A Studio and a store of its own (tests/test_browser_pairwise_fits.py's session on
the sample homes stays as it is)."""

import pytest

from ordercore.studio.data import data_settings, load_source
from ordercore.studio.store import Store
from tests.browser import running_studio, settle

LISTING = (
    "Bright home on a quiet street, close to schools, parks and shops; new roof and windows, a large garden "
    "with mature trees, a double garage and a workshop; viewing by appointment only, please call ahead."
)
"""The wide table's free text, as long as a used guitar's listing or a tweet (new-user report 13, F5)."""

MEASURE_ROWS = """() => {
  const root = document.querySelector(".answer-keys");
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const rows = [...root.querySelectorAll("table")].flatMap((table) => [...table.rows].slice(1));
  return {
    screen: [window.innerWidth, window.innerHeight],
    rows: rows.map((row) => [row.cells[0].textContent, box(row)]),
    cells: rows.flatMap((row) => [...row.cells].map((cell) => [cell.textContent, box(cell)])),
    buttons: [...root.querySelectorAll("button")].map((button) => [button.textContent, box(button)]),
  };
}"""
"""Each row of the pair (its column's name and box), each of its cells and each answer button, with their
boxes (left, top, right, bottom) in the viewport's coordinates."""


def wide_session(store_path, name: str, coordinates: bool) -> None:
    """A session ``name`` on the sample homes, uploaded as a CSV, with eleven context columns, one of them a
    long free text, 'listing'; like the guitars of new-user report 13 (F5), their values short (two
    categories, numbers of up to six characters); ``coordinates``: with the homes' latitude and longitude
    (ten characters each) in place of two of the numbers."""
    import io

    import pandas as pd

    frame, target, features = load_source("sample")
    frame = frame.assign(lot_size=frame["floor_area"] * 3, garage=frame["rooms"] % 3, listing=LISTING)
    if not coordinates:
        frame = frame.drop(columns=["latitude", "longitude"]).assign(
            year_built=2024 - frame["age"], condition=frame["rooms"].map(lambda rooms: ("good", "fair")[rooms % 2])
        )
    numeric = [c for c in frame.columns if c not in (target, "home_id", "neighbourhood", "condition", "listing")]
    content = frame.to_csv(index=False).encode()
    store = Store(f"sqlite:///{store_path}")
    dataset_id = store.add_dataset(f"{name}.csv", pd.read_csv(io.BytesIO(content)), content)
    split = {"n_labeled": 60, "test_fraction": 0.2}
    settings, _ = data_settings(frame, "upload", target, numeric, split, name=f"{name}.csv")
    store.create_session(name, dataset_id, settings)
    store.engine.dispose()


WIDE_COLUMNS = [
    "neighbourhood", "age", "income", "bedrooms", "rooms", "floor_area", "lot_size", "garage", "listing",
    "year_built", "condition",
]  # fmt: skip


@pytest.fixture(scope="module")
def wide_studio(tmp_path_factory):
    """A Studio of its own on the session 'wide' (a store apart: the other tests' session stays as it is)."""
    store_path = tmp_path_factory.mktemp("wide") / "studio.sqlite"
    wide_session(store_path, "wide", coordinates=False)
    wide_session(store_path, "wide_map", coordinates=True)
    with running_studio(store_path) as studio:
        yield studio


def open_wide_pair(studio, width: int, height: int, session: str = "wide"):
    page = studio.browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{studio.url}/pairwise?session={session}&annotator=ann")
    page.locator(".answer-keys table").first.wait_for()
    settle(page)
    return page


def inside(box, width: int, height: int) -> bool:
    left, top, right, bottom = box
    return 0 <= left and 0 <= top and right <= width and bottom <= height


@pytest.mark.parametrize("session", ["wide", "wide_map"])
def test_a_wide_pair_and_its_buttons_fit_at_1024_by_768(wide_studio, session):
    """Eleven context columns, one of them a long free text (new-user report 13, F5: at 1024 x 768 the
    guitars' 'listing', wrapped to four lines, pushed two columns below the fold): every row of the pair
    (each column's name) and every answer button inside the viewport as the page opens; the values short
    (in two halves) or a longitude's ten characters (one tighter table: 16 px to spare here)."""
    page = open_wide_pair(wide_studio, 1024, 768, session)
    shown = page.evaluate(MEASURE_ROWS)
    page.context.close()
    columns = WIDE_COLUMNS if session == "wide" else [*WIDE_COLUMNS[:-2], "latitude", "longitude"]
    assert shown["screen"] == [1024, 768]
    assert sorted(name for name, _ in shown["rows"]) == sorted(columns), shown
    assert len(shown["buttons"]) == 5, shown
    outside = [name for name, box in shown["rows"] + shown["buttons"] if not inside(box, 1024, 768)]
    assert outside == [], shown


def overlapping(cells) -> list:
    """The pairs of cells whose boxes overlap (by more than a pixel's rounding)."""
    found = []
    for i, (one, (l1, t1, r1, b1)) in enumerate(cells):
        for other, (l2, t2, r2, b2) in cells[i + 1 :]:
            if min(r1, r2) - max(l1, l2) > 1 and min(b1, b2) - max(t1, t2) > 1:
                found.append((one, other))
    return found


@pytest.mark.parametrize("session", ["wide", "wide_map"])
@pytest.mark.parametrize("width,height", [(1024, 768), (1400, 1000)])
def test_a_wide_pair_s_cells_do_not_overlap_and_its_text_is_read_whole(wide_studio, width, height, session):
    """No cell of the wide pair overlaps another, all of them inside the screen's width (its values short,
    or a longitude's ten characters: then not in halves), and the free text, shortened to fit, is there
    whole: in its cell's title (on hover) and, on a click on it, in full on screen."""
    page = open_wide_pair(wide_studio, width, height, session)
    page.set_default_timeout(20_000)
    shown = page.evaluate(MEASURE_ROWS)
    assert overlapping(shown["cells"]) == [], shown
    assert all(0 <= box[0] and box[2] <= width for _, box in shown["cells"]), shown
    text = page.locator(".answer-keys td", has_text="Bright home").first
    assert text.locator("[title]").first.get_attribute("title") == LISTING
    before = text.bounding_box()["height"]
    text.click()
    whole = text.evaluate(
        "(cell) => { const t = cell.querySelector('[title]'); return t.scrollHeight <= t.clientHeight + 1; }"
    )
    after = text.bounding_box()["height"]
    page.context.close()
    assert whole and after > before, (before, after)
