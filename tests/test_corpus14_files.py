"""The fourteenth corpus's findings on files (issue 32, "nothing silently wrong"): a preferences, answers
or grades file holding both the rows' positions and their ids, the two disagreeing (PI12: the positions
were dropped without a word and the ids used).  Each refusal leaves the store as it was
(``store_checks.snapshot``).  The session's table names its homes 100, 101, … (``home_id`` = position + 100)."""

from __future__ import annotations

import pytest

from tests.store_checks import snapshot
from tests.test_corpus12_studio import engine  # noqa: F401 (the fixture)


# ------------------------------------------------------------- R9: positions and ids that disagree
@pytest.mark.parametrize(
    "name, content, said",
    [
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,120,20\n119,30,120,31\n", "line 3 gives i '30'"),
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,120,21\n", "line 2 gives j '21'"),
        ("p.csv", "home_id_i,i,home_id_j,j\n119,19,,5\n", "line 2 gives j '5' but an empty home_id_j, which is no row"),
        (
            "p.json",
            '[{"home_id_i": 119, "i": 19, "home_id_j": 120, "j": 20}, {"home_id_i": 121, "i": 2, '
            '"home_id_j": 122, "j": 22}]',
            "record 2 gives i '2'",
        ),  # fmt: skip
        ("a.csv", "home_id_a,row_a,home_id_b,row_b,choice,annotator\n119,19,120,40,a,ann\n", "line 2 gives row_b '40'"),
        ("g.csv", "home_id,row,grade,annotator\n105,5,3,ann\n106,7,4,ann\n", "line 3 gives row '7'"),
    ],
)
def test_a_file_whose_positions_and_ids_disagree_is_refused_naming_the_line(store, engine, name, content, said):  # noqa: F811
    before = snapshot(store)
    with pytest.raises(ValueError, match=said) as refused:
        engine.import_file(name, content.encode(), "imp")
    assert "nothing was imported" in str(refused.value)
    assert snapshot(store) == before


def test_a_file_whose_positions_and_ids_agree_imports_those_rows(store, engine):  # noqa: F811
    """home_id 119 is row 19 (119 - 100), 120 row 20; an empty home_id_j with j = -1 is a unary preference's 0."""
    content = "home_id_i,i,home_id_j,j,margin,weight\n119,19,120,20,0.5,1\n121,21,,-1,2,1\n"
    engine.import_file("p.csv", content.encode(), "imp")
    made = store.preferences(engine.id)[0]
    assert sorted(zip(made.i.tolist(), made.j.tolist(), made.margin.tolist(), strict=True)) == [
        (19, 20, 0.5),
        (21, -1, 2.0),
    ]
