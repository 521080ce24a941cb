"""A column the CLI is told to use and the table lacks, said so that the difference shows (corpus 13, C21,
C23): a name differing only in Unicode normalisation (NFC 'âge' against the header's NFD) is named escaped
with what differs, and a name of 10,000 characters is quoted short, not echoed whole."""

import unicodedata

import pytest

from ordercore.cli.tabular import Table
from ordercore.inputs.printable import SHOWN_CELL

COMPOSED, DECOMPOSED = "\u00e2ge", "a\u0302ge"  # NFC and NFD of 'âge', written out by hand


@pytest.fixture
def homes(tmp_path):
    path = tmp_path / "homes.csv"
    path.write_text(f"home_id,{DECOMPOSED},income,price\n1,30,2.5,100\n2,40,3.5,200\n3,50,1.5,150\n")
    return path


def test_a_name_differing_only_in_unicode_normalisation_is_named_escaped_with_what_differs(homes):
    assert unicodedata.normalize("NFC", DECOMPOSED) == COMPOSED  # they differ in form only
    with pytest.raises(ValueError) as refused:
        Table.read(homes, target="price", features=[COMPOSED, "income"], id_column="home_id")
    said = str(refused.value)
    assert "Unicode normalisation" in said
    assert "'\\xe2ge'" in said and "'a\\u0302ge'" in said  # both escaped, so they do not print alike


def test_a_long_name_is_quoted_short_with_its_length(homes):
    name = "t" * 10_000
    with pytest.raises(ValueError) as refused:
        Table.read(homes, target=name, id_column="home_id")
    said = str(refused.value)
    assert "10,000 characters" in said and "t" * (SHOWN_CELL + 1) not in said
    assert len(said) < 400


def test_a_wide_table_lists_some_columns_and_counts_the_rest(tmp_path):
    path = tmp_path / "wide.csv"
    names = ["price", *(f"c{k}" for k in range(99))]
    path.write_text(",".join(names) + "\n" + ",".join(["1"] * 100) + "\n")
    with pytest.raises(ValueError, match=r"no column\(s\) \['cost'\]; the columns are \['price', 'c0', .*and 80 more"):
        Table.read(path, target="cost")
