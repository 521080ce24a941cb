"""The Data page in a real browser (tests/browser.py): before "Use this data for the session" it previews the
table (new-user report 9: the table showed only after use): which column is the target and each column's
kind, and the first rows with the target only on the rows the split labels, never on a held-out row (issue
33, item 1), checked against the split the store holds once the data is used."""

from ordercore.studio.data import load_source
from ordercore.studio.store import Store
from tests.browser import open_page, running_studio, settle

TABLE = """(header) => {
  const table = [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .find((t) => [...t.querySelectorAll("th")].some((h) => h.innerText.trim() === header));
  if (!table) return null;
  const heads = [...table.querySelectorAll("thead th")].map((h) => h.innerText.trim());
  const cells = (r) => [...r.querySelectorAll("td")].map((d) => d.innerText.trim());
  const rows = [...table.querySelectorAll("tbody tr")].map(cells);
  return [heads, rows];
}"""
"""The headers and rows of the grid with a column headed ``header``, as its accessible table holds them."""


def grid(page, header: str):
    """(headers, rows) of the grid headed ``header``, waiting until the page has drawn it."""
    page.wait_for_function(f"() => ({TABLE})({header!r}) !== null")
    return page.evaluate(TABLE, header)


def test_the_data_page_previews_the_table_before_use_without_a_held_out_target(tmp_path):
    store_path = tmp_path / "studio.sqlite"
    store = Store(f"sqlite:///{store_path}")
    store.create_session("fresh")
    frame, target, _ = load_source("sample")
    with running_studio(store_path) as studio:
        page = open_page(studio.browser, 120_000)
        page.goto(f"{studio.url}/?session=fresh&annotator=ann")
        page.get_by_text("Preview before use").wait_for()
        settle(page)
        heads, kinds = grid(page, "kind")
        roles = {row[heads.index("column")]: row[heads.index("role")] for row in kinds}
        assert roles[target].startswith("target") and set(roles) == set(map(str, frame.columns))
        heads, rows = grid(page, "row is")
        assert rows, "no rows previewed"
        page.get_by_role("button", name="Use this data for the session").click()
        page.get_by_text("Session uses").wait_for()
    settings = store.session("fresh").settings
    store.engine.dispose()
    identifier = "home_id"
    by_id = {str(v): k for k, v in enumerate(frame[identifier])}
    for row in rows:
        position = by_id[row[heads.index(identifier)].replace(",", "")]
        shown = row[heads.index(target)]
        if position in settings["labeled"]:
            assert shown != "", f"a labeled row's target is hidden: {row}"
        else:  # unlabeled or held out: its target never shown
            assert shown == "", f"row {position} ({'held out' if position in settings['test'] else 'pool'}): {row}"
    assert any(by_id[r[heads.index(identifier)].replace(",", "")] in settings["test"] for r in rows)
