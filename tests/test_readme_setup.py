"""The README for a new user (issue 33, item 5): set-up commands that say how the data sets and the
browser test's chromium come in, terms defined where they are first used, the first five minutes as five
short steps, and a current screenshot of every page (docs/screenshots/make_screenshots.py makes them;
tests/test_screenshots.py runs it)."""

import re

import pytest

from tests.navigation import ROOT, navigation_pages, screenshot_name

README = (ROOT / "README.md").read_text(encoding="utf-8")
APP_COMMAND = (
    "python3 -m venv .venv && . .venv/bin/activate && python -m pip install -r requirements.txt && streamlit run app.py"
)
TEST_COMMAND = (
    "python3 -m venv .venv && . .venv/bin/activate && python -m pip install -r requirements.txt && "
    "python -m pytest -q -n 2 --dist loadgroup --max-worker-restart 0"
)
TERMS = {
    # term: how it may be written (its plural, its long form)
    "preference": r"(order )?preferences?",
    "rule": r"rules?",
    "session": r"sessions?",
    "annotator": r"annotators?",
    "SVR": r"SVR",
    "SSL": r"SSL",
    "automatic trust": r"(automatic )?trust",
    "λ1": r"λ1",
    "λ2": r"λ2",
    "Ω": r"Ω",
    "MAE": r"MAE",
    "GP": r"GP",
}
"""Terms a new user meets in the Studio, each to be defined before or where it is first used."""


def section(title: str) -> str:
    """The text of the '## title' section (up to the next '## ')."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.S | re.M)
    assert match, f"the README has no section '## {title}'"
    return match.group(1)


def prose(text: str) -> str:
    """The text without fenced code, inline code, images and headings (the title names the product)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    return re.sub(r"^#.*$", "", text, flags=re.M)


def test_the_set_up_commands_are_kept_word_for_word():
    setup = section("Set up")
    assert APP_COMMAND in setup and TEST_COMMAND in setup  # .ci/run runs the second


def test_the_set_up_says_how_to_add_the_data_sets():
    setup = section("Set up")
    line = next((line for line in setup.split("\n\n") if "ORDERCORE_DATA" in line), None)
    assert line, "the set-up section never mentions ORDERCORE_DATA"
    assert "export ORDERCORE_DATA=" in line  # how to point it at a folder
    assert re.search(r"sample homes", line) and re.search(r"upload", line)  # what appears without it
    for name in ("California", "Boston", "Abalone"):
        assert name in line


def test_the_set_up_states_the_browser_tests_need_chromium():
    setup = section("Set up")
    assert "apt-get install chromium" in setup
    paragraph = next(part for part in setup.split("\n\n") if "apt-get install chromium" in part)
    assert re.search(r"skip", paragraph) and re.search(r"browser test", paragraph)


def test_the_first_five_minutes_are_five_short_steps():
    steps_text = section("The first five minutes in the Studio")
    steps = re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |^\S|\Z)", steps_text, re.S | re.M)
    assert [number for number, _ in steps] == ["1", "2", "3", "4", "5"]
    for number, step in steps:
        words = len(step.split())
        lines = len(step.strip().splitlines())
        assert words <= 70 and lines <= 5, f"step {number}: {words} words on {lines} lines"


def first_use(pattern: str, text: str) -> re.Match:
    match = re.search(rf"(?<![\w-]){pattern}(?![\w-])", text)
    assert match
    return match


DEFINING = re.compile(r"\*\*[^*\n]+\*\*|(?<!\*)\*[^*\s][^*\n]*\*(?!\*)|\[[^\]\n]+\]\(#[^)\s]+\)")
"""Where a term is defined or linked to its definition: in bold or italics, or a link into the README."""


@pytest.mark.parametrize("term", TERMS)
def test_each_term_is_defined_at_its_first_use(term):
    text = prose(README)
    use = first_use(TERMS[term], text)
    spans = [match.span() for match in DEFINING.finditer(text)]
    where = text[max(0, use.start() - 60) : use.end() + 60]
    assert any(start <= use.start() and use.end() <= end for start, end in spans), (
        f"{term!r} is first used neither defined nor linked: ...{where}..."
    )
    glossary = section("Terms")
    assert re.search(rf"^- (\*\*[^*\n]+\*\*, )*\*\*{re.escape(term)}\*\*", glossary, re.M), f"no entry for {term!r}"


@pytest.mark.parametrize("title", [title for _, title in navigation_pages()])
def test_every_page_has_a_screenshot_in_the_readme(title):
    name = screenshot_name(title)
    assert f"](docs/screenshots/{name})" in README
    assert (ROOT / "docs" / "screenshots" / name).is_file()
