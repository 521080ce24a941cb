"""The Rules page's import: a file chosen over one staged and not imported replaces it, and the page says so
(new-user report 12, F11); a file imported, removed, or chosen again says nothing.  Sequences written out by
hand, the words expected spelled out."""

from ordercore.studio.session_files import ImportChoice

REPLACED = (
    "rules.json was chosen but not imported; it is replaced by answers.csv. To import both, import answers.csv, "
    "then choose rules.json again and import it."
)


def test_a_file_chosen_over_one_not_imported_says_it_replaced_it_until_imported():
    choice = ImportChoice()
    assert choice.choose("rules.json", "u1") is None  # the first file: nothing replaced
    assert choice.choose("rules.json", "u1") is None  # a rerun with the same file
    assert choice.choose("answers.csv", "u2") == REPLACED
    assert choice.choose("answers.csv", "u2") == REPLACED  # said on every run while it stays staged
    choice.done()
    assert choice.choose("answers.csv", "u2") is None


def test_a_file_imported_before_the_next_is_chosen_says_nothing():
    choice = ImportChoice()
    choice.choose("rules.json", "u1")
    choice.done()
    assert choice.choose("answers.csv", "u2") is None  # the rules were imported first
    choice.done()
    assert choice.choose(None, None) is None  # the answers file removed after its import
    assert choice.choose("grades.csv", "u3") is None
    # the same name chosen again (another upload) over a staged copy is still a replacement
    assert choice.choose("grades.csv", "u4") == REPLACED.replace("rules.json", "grades.csv").replace(
        "answers.csv", "grades.csv"
    )


def test_a_run_without_a_file_between_two_files_forgets_nothing_staged():
    """The uploader passes through no file when answers.csv replaces rules.json: under load a run fell there,
    forgot rules.json, and the replacement went unsaid (CI of this session, test_browser_rules)."""
    choice = ImportChoice()
    assert choice.choose("rules.json", "u1") is None
    assert choice.choose(None, None) is None  # no file on screen: nothing to say
    assert choice.choose("answers.csv", "u2") == REPLACED
