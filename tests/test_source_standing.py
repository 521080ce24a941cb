"""Where SSL breaks more of a rule's preferences than SVR, the words (new-user report 13, F6), on a hand-made case."""

import numpy as np

from ordercore.knowledge.label_cv import Blend
from ordercore.knowledge.source_weights import SourceCheck
from ordercore.knowledge.trust import SourceTrust, Trust
from ordercore.studio.source_standing import broken_more_words


def test_a_rule_ssl_breaks_more_than_svr_is_said_with_why_and_what_would_change_it():
    """Rule #3's 38 preferences, SVR breaking the first 22 and SSL the last 25 (counted by hand), weight 0.18,
    a blend of share 0.4 (set by hand), right on 3 of its 4 checked pairs, all where the reference (None: every
    pair) disagrees; rule #1, broken less by SSL, gets nothing."""
    names = np.array(["rule #3: feedback"] * 38 + ["rule #1: grade"] * 5, dtype=object)
    svr = np.r_[np.arange(38) < 22, np.ones(5, bool)]
    ssl = np.r_[np.arange(38) >= 13, np.zeros(5, bool)]
    check = SourceCheck.of([0, 2, 4, 6], [1, 3, 5, 7], [True, True, True, False])
    trust = Trust(np.array([1.0, 0.18]), Blend.mixing(((0.1, 0.0), (0.1, 1.0)), 0.4), object(), None)
    assessed = SourceTrust(("rule #1: grade", "rule #3: feedback"), (None, check), trust, None)
    said = broken_more_words("rule #3: feedback", names, svr, ssl, assessed)
    assert said.startswith("SSL breaks 25 of the 38 preferences of rule #3: feedback, SVR 22. Its weight is 0.18")
    assert "right on 3 of 4 labeled pairs" in said and "40% of its blend" in said and "Audit its pairs" in said
    assert broken_more_words("rule #1: grade", names, svr, ssl, assessed) is None
    assert "has not weighed it" in broken_more_words("rule #3: feedback", names, svr, ssl, None)
    assert broken_more_words("clicks: Gus", names, svr, ssl, assessed) is None
