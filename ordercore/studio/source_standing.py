"""Where SSL breaks more of a rule's (or an import's) preferences than SVR, what the Model page says: why and
what would change it, as ``click_standing.ClickStanding`` says it of an annotator's answers (new-user report 13, F6:
"violated by SVR 22, violated by SSL 25" for a rule, with no word)."""

from __future__ import annotations

import numpy as np

from ordercore.knowledge.source_weights import CLICKS
from ordercore.knowledge.trust import SourceTrust


def broken_more_words(name: str, names, svr_violated, ssl_violated, trust: SourceTrust | None) -> str | None:
    """For source ``name`` (not clicks: ``ClickStanding`` says theirs), given each preference's source
    ``names`` (p,) and whether SVR and SSL violate it (p,) in the last retrain, and the trust in force (None:
    off or not assessed): when SSL breaks more of its preferences than SVR, that it does, why (its weight, the
    share of SSL's blend from the fit with preferences, the labels and other sources pulling the other way)
    and what would change it; else None."""
    if str(name).startswith(CLICKS):
        return None
    own = np.asarray(names, dtype=object) == name
    svr, ssl = (int(np.count_nonzero(np.asarray(v)[own])) for v in (svr_violated, ssl_violated))
    if ssl <= svr:
        return None
    said = f"SSL breaks {ssl} of the {int(own.sum())} preferences of {name}, SVR {svr}."
    if trust is None or name not in trust.names:
        return (
            f"{said} Automatic trust has not weighed it (it is off, or has not run since it changed): SSL fits "
            "every source at the λ2 set under Model, so the labels and the other sources pull as hard as it, and "
            "where they order a pair the other way SSL can break it. Automatic trust weighs each source by its "
            "measured accuracy; removing a source that is often wrong helps too."
        )
    k = trust.names.index(name)
    right, against = trust.contradicting()[k]
    rests = (
        f"right on {right} of {against} labeled pairs where SVR orders them the other way" if against else "no check"
    )
    return (
        f"{said} Its weight is {trust.trust.weights[k]:.2f} of 1 ({rests}), and SSL takes "
        f"{trust.trust.blend.alpha:.0%} of its blend from the fit with preferences (the λ2 share): SSL also "
        "weighs the labels and the other sources, and where those disagree with it (conflicting pairs: Rules), it "
        "can still break its preferences, which SVR, never seeing them, breaks by chance alone. Audit its pairs "
        "on Pairwise (answers where it is right raise its weight), or remove a source that conflicts with it."
    )
