"""New-user pass 10, Minor 8: terms a page used without saying what they are: λ1 and λ2 in the Model page's
verdict, MPMR's ρ and Ω, NPSVOR on Ratings, Spearman's ρ on Rules, and the weight note's log-odds reworded
("its odds, on a log scale, in units of 7 right to 3 wrong").  The first element of a page that names a term
(in the order drawn, tooltips and options included) says what it is."""

import re

from tests.studio_app import add_default_rule
from tests.test_page_model import walked

TERMS = {
    # term: what its first mention must say (a pattern of the definition's words)
    "λ1": r"λ1: what a complex fit costs",
    "λ2": r"λ2: what SSL pays for each violated preference",
    "Ω": r"Ω, a lower bound on\s+P\(",
    "ρ": r"ρ, its ridge penalty",
}


def texts(node) -> list[str]:
    """Every element's text under ``node`` in the order drawn, Markdown's bold and escapes dropped."""
    return [re.sub(r"\\(.)", r"\1", str(e.proto)).replace("*", "").replace("\\n", " ") for e in walked(node)]


def first_with(shown: list[str], term: str) -> str:
    return next(text for text in shown if term in text)


def test_the_model_page_defines_lambda_omega_and_rho_where_it_first_shows_them(ready):
    add_default_rule(ready)
    at = ready.switch_page("app_pages/model.py").run()
    at.button(key="model_fit_mpmr").click().run()
    assert not at.exception and any("Ω" in m.label for m in at.metric)
    shown = texts(at.main)
    for term, definition in TERMS.items():
        assert re.search(definition, first_with(shown, term)), (term, first_with(shown, term))
    assert not any(re.search(r"log.odds|log scale", text) for text in shown)


def test_the_rules_page_says_what_rho_is_and_the_weight_without_log_odds(ready):
    at = ready.switch_page("app_pages/rules.py").run()
    add_default_rule(at)
    at.run()
    shown = texts(at.main)
    assert "rank correlation, −1 to 1" in first_with(shown, "ρ")
    weight = first_with(shown, "Weight:")
    assert "1 when right 7 times in 10" in weight and not re.search(r"log.odds|log scale", weight)


def test_the_ratings_page_says_what_npsvor_is_where_it_names_it(ready):
    at = ready.switch_page("app_pages/ratings.py").run()
    assert not at.exception
    assert "ordinal regression" in first_with(texts(at.main), "NPSVOR")
    # the choice itself, not only its tooltip: it read 'NPSVOR (linear, refitted warm …)'
    (shown,) = [option for option in at.radio(key="rating_model_choice").options if "NPSVOR" in option]
    assert "ordinal regression" in shown and "warm" not in shown, shown
