"""New-user report 9, Minor 9: research jargon on pages an expert uses ('MPMR … (seed 003)', "Seed 002's GP",
'a Beta(7, 3) prior', 'log-odds', 'Refit and scoring 3 ms · cold').  The pages' words, tooltips too, name
methods, not the papers' seed numbers, and say the prior and the weight's scale in plain words.  Issue 33, item 5:
the Toy cubic page said "Seed 001 §4.1" and the README's Terms "seed 003": the Toy cubic and Data pages, and the
README's part for users (up to "The library in a few lines"), name methods in words too; so do the choices of
a box (new-user report 12, F10: the Model page's regressors)."""

import re
from pathlib import Path

from tests.studio_app import add_default_rule, engine, send_key

JARGON = re.compile(r"\bseeds? 00\d|§|Beta\(|log-odds|\bcold\b|\bwarm\b|eq\. \(", re.IGNORECASE)
README = Path(__file__).parents[1] / "README.md"


def words(at) -> list[str]:
    """Every text the page shows: headings, captions, messages, metrics, and widgets' labels and tooltips."""
    said = [e.value for kind in ("title", "header", "subheader", "markdown", "caption") for e in getattr(at, kind)]
    said += [e.value for kind in ("info", "warning", "success", "error") for e in getattr(at, kind)]
    said += [f"{m.label} {m.value} {m.delta or ''} {m.help or ''}" for m in at.metric]
    said += [
        f"{w.label} {w.help or ''}"
        for kind in ("radio", "selectbox", "number_input", "button")
        for w in getattr(at, kind)
    ]
    # the choices a box offers too (new-user report 12, F10: "Regressor: Order-preference LP (seeds 000/001)")
    said += [option for kind in ("radio", "selectbox") for w in getattr(at, kind) for option in w.options]
    return said


def jargon(at) -> list[str]:
    return [text for text in words(at) if JARGON.search(str(text))]


def test_the_model_rules_and_ratings_pages_speak_without_seed_numbers_or_jargon(ready):
    add_default_rule(ready)
    at = ready.switch_page("app_pages/rules.py").run()
    assert not at.exception and not jargon(at), jargon(at)
    at = at.switch_page("app_pages/model.py").run()
    assert not at.exception and any("MPMR" in s.value for s in at.subheader)
    assert not jargon(at), jargon(at)
    at = at.switch_page("app_pages/ratings.py").run()
    for value in ("1", "5"):
        send_key(at, "grade_answers", value, [at.session_state["screen"].item])
        engine(at).grading.wait()
        at.run()
    assert not at.exception and any(m.label == "Refit and scoring" for m in at.metric)
    assert not jargon(at), jargon(at)


def test_the_toy_cubic_and_data_pages_speak_without_seed_numbers_or_jargon(ready):
    at = ready.switch_page("app_pages/toy_cubic.py").run()
    assert not at.exception and at.title[0].value == "Toy cubic"
    assert not jargon(at), jargon(at)
    at = at.switch_page("app_pages/data.py").run()
    assert not at.exception and not jargon(at), jargon(at)


def test_the_readmes_part_for_users_names_methods_not_seed_numbers():
    """Its Terms, set-up, first five minutes and page-by-page guide; the library's and reproduction's parts
    below cite the papers by number, as docs/REPRODUCTION.md does."""
    users = README.read_text().split("## The library in a few lines")[0]
    found = [line for line in users.splitlines() if JARGON.search(line)]
    assert "## Terms" in users and not found, found


def test_terms_are_defined_in_plain_words_where_they_appear(ready):
    """Issue 33, a first-time expert's Minor 6: "Wilson interval", "RBF γ (auto = 1 / features)", the button
    "Fit HistGradientBoostingRegressor" and "a Laplace fit of the latent values" were left undefined.  The
    Rules page says what its interval is, the Model page names the button in words (the class in its help)
    and says what γ is, and the GP's progress says what an evidence evaluation does."""
    from ordercore.studio.numbers import gp_starting_text

    add_default_rule(ready)
    at = ready.switch_page("app_pages/rules.py").run()
    said = " ".join(words(at))
    assert not at.exception and "Wilson" not in said and "19 times in 20" in said and "independent checks" in said
    at = at.switch_page("app_pages/model.py").run()
    (button,) = [b for b in at.button if b.key == "model_fit_hgb"]
    assert button.label == "Fit gradient boosting" and "HistGradientBoostingRegressor" in button.help
    gamma = [s for s in at.select_slider if "γ" in s.label]
    assert gamma and all("radial basis function" in s.help and "RBF" not in s.label for s in gamma)
    text = gp_starting_text("exact", 0, 100, 3.0)
    assert "Laplace approximation" in text and "hidden value of every row" in text and "latent" not in text
