"""Texts as features: TF-IDF as seed 004's text experiments prepare them."""

SNIPPET_TFIDF = {"ngram_range": (1, 2), "min_df": 3, "max_df": 0.5, "stop_words": "english", "sublinear_tf": True}
"""§4.1's preprocessing as far as scikit-learn does it: unigrams and bigrams, terms in fewer than 3
texts or more than half left out, English stop words removed (no stemming), 2+ character tokens."""
