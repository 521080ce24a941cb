"""Every Markdown table in the docs renders: a header, a separator row, then rows of the same width.

A blank line inside a table ends it; the rows after it lose their header and render as text.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("sample_data/*.md")])
TABLE_LINE = re.compile(r" {0,3}\|")  # four spaces or more would make it a code block
SEPARATOR = re.compile(r"\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?")


def width(row: str) -> int:
    """Number of cells of a table row (escaped pipes do not split)."""
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


def tables(text: str) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of every run of table lines outside fenced code."""
    found, current, fenced = [], None, False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and TABLE_LINE.match(line):
            if current is None:
                current = (number, [])
                found.append(current)
            current[1].append(line)
        else:
            current = None
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_table_has_a_header_and_rows_of_one_width(document):
    for start, lines in tables(document.read_text(encoding="utf-8")):
        where = f"{document.relative_to(ROOT)}:{start}"
        assert len(lines) >= 2 and SEPARATOR.fullmatch(lines[1].strip()), f"{where}: no header separator"
        assert {width(line) for line in lines} == {width(lines[0])}, f"{where}: rows of different widths"
