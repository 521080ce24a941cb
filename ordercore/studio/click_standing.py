"""An annotator's own answers as the last retrain treats them (``ClickStanding``): how many SVR and SSL
break, the weight automatic trust gives them and why, and what would change it; what the Pairwise page
says under the answers and the Model page of each annotator (one of the Studio's verdicts in words)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ordercore.knowledge.expert_accuracy import FULL_ACCURACY, AgreementEstimate
from ordercore.knowledge.source_weights import CLICKS
from ordercore.knowledge.trust import FULL_WEIGHT_ANSWERS, SourceTrust
from ordercore.studio.broken_answers import answers_words


def own_answers(annotator: str, names, answer_ids) -> tuple[np.ndarray, np.ndarray]:
    """Which preferences (p,) are ``annotator``'s (bool, from their sources' ``names`` (p,)) and the answer
    each of them comes from (``answer_ids`` (p,), the store's; None or NA for a rule's or an import's), as
    ints (the own preferences' ids, in order)."""
    own = np.asarray(names, dtype=object) == f"{CLICKS}{annotator}"
    ids = pd.array(list(answer_ids), dtype="Int64")[own]
    if ids.isna().any():
        raise ValueError(f"each of {annotator}'s preferences needs the id of its answer (answer_ids); some are missing")
    return own, ids.to_numpy(dtype=np.int64)


@dataclass(frozen=True)
class ClickStanding:
    """An annotator's answers in the last retrain: how many of them made ``answers`` preferences (skips make
    none; an "about equal" makes two), and how many of those SVR and SSL break (an answer is broken when any
    of its preferences is violated: counted once, as *My answers* lists it; new-user report 13, F9: "13 of the
    40 preferences" above "13 of 39" answers); the weight automatic trust gives their clicks (None: trust off
    or not assessed yet), their agreement with SVR (an ``AgreementEstimate``, its accuracy within [0, 1];
    None when not measured) and the λ2 SSL fits the clicks with (None: not known here); ``ssl_is_svr``: the
    trust in force mixes no fit with preferences into SSL (its blend's alpha is 0), so no answer moves it."""

    annotator: str
    answers: int
    svr_violated: int
    ssl_violated: int
    weight: float | None
    agreement: AgreementEstimate | None
    lambda2: float | None
    ssl_is_svr: bool = False

    @classmethod
    def of(
        cls, annotator: str, names, answer_ids, svr_violated, ssl_violated, trust: SourceTrust | None
    ) -> ClickStanding:
        """From the sources' names (p,), the answer each preference comes from (``answer_ids`` (p,): the
        store's ids, NA for a rule's or an import's) and the violations (p,) of the last retrain, and the
        trust in force (None: automatic trust off or nothing assessed)."""
        name = f"{CLICKS}{annotator}"
        own, ids = own_answers(annotator, names, answer_ids)
        weight, agreement, lambda2 = None, None, None
        if trust is not None and name in trust.names:
            k = trust.names.index(name)
            weight = float(trust.trust.weights[k])
            if (agreement := trust.agreement_of(k)) is not None:  # within [0, 1], as ``agreement_text`` shows it
                agreement = replace(agreement, accuracy=min(max(agreement.accuracy, 0.0), 1.0))
            if trust.clicks_only:
                lambda2 = float(trust.trust.blend.active().settings[-1][1])

        def broken(violated) -> int:  # the answers at least one of whose preferences is violated
            return np.unique(ids[np.asarray(violated, dtype=bool)[own]]).size

        return cls(
            annotator,
            np.unique(ids).size,
            broken(svr_violated),
            broken(ssl_violated),
            weight,
            agreement,
            lambda2,
            trust is not None and trust.trust.blend.alpha == 0,
        )

    @classmethod
    def from_violations(cls, annotator: str, violations, trust: SourceTrust | None) -> ClickStanding:
        """``of`` the last retrain's ``workbench.Violations`` (its sources' names and answers given)."""
        return cls.of(annotator, violations.names, violations.answer_ids, violations.svr, violations.ssl, trust)

    def summary(self) -> str:
        """'SSL breaks 10 of ann's 17 answers (skips aside), SVR 5.' (nothing to say without any)."""
        if not self.answers:
            return ""
        return (
            f"SSL breaks {self.ssl_violated} of {self.annotator}'s {answers_words(self.answers)}, "
            f"SVR {self.svr_violated}."
        )

    def as_of(self, names_now, answer_ids_now, failed: bool = False) -> str:
        """Said before the figures while SSL is refitted on newer answers (``names_now``, ``answer_ids_now``
        (p,): the sources of the preferences now and their answers), or once that refit ``failed``: what they
        are of (a new user read "SSL breaks 3 of the 27 preferences from Marta's answers" beside 32 answers,
        with no mark; "Updating" stayed beside a failed refit's error)."""
        now = np.unique(own_answers(self.annotator, names_now, answer_ids_now)[1]).size
        state = (
            "The refit on the newest answers failed (said above). As of the last fit"
            if failed
            else "Updating: SSL is being refitted on the newest answers. Until then, as of the last fit"
        )
        return f"{state}, which had {self.answers} of {self.annotator}'s {answers_words(now)} now."

    def why(self) -> str | None:
        """Why SSL breaks more of them than SVR, and what would change it; or that they weigh nothing yet,
        or that SSL is SVR for now (said whatever SSL breaks: the annotator should know their answers move
        nothing, a new user answered 45 pairs rightly without a word why); else None."""
        if self.weight == 0 and self.answers:
            measured_text = "not measured yet" if self.agreement is None else f"{self.agreement.words()}: not above 0.5"
            return (
                f"{self.summary()} Their weight is 0 for now: automatic trust counts an annotator's clicks once "
                f"their accuracy, estimated from where they agree with SVR's order, is surely better than a coin "
                f"({measured_text}). More answers — especially on pairs far apart, where SVR is sure — settle it."
            )
        if self.ssl_is_svr and self.answers and self.weight is not None:
            return (
                f"{self.summary()} SSL is SVR for now (λ2 = 0), so no answer moves it: automatic trust mixes in "
                "the fit with preferences only where cross-validation on the labels finds it better than SVR, "
                "and with the rules and answers in force it does not (the Model page shows the figures). "
                f"Your answers count (weight {self.weight:.2f}) and are assessed again as they grow; a rule "
                "with a negative effect there, removed or audited, can hold them back."
            )
        if self.ssl_violated <= self.svr_violated:
            return None
        if self.weight is None:
            return (
                f"{self.summary()} Automatic trust has not weighed these answers (it is off, or its assessment "
                "has not run since they were given): SSL fits every source at the λ2 set under Model, so the "
                "labels, the rules and any other answers pull as hard as these, and where they order a pair "
                "the other way SSL can break it (the Model page's 'Preferences violated, by source': which SSL "
                "keeps). Automatic trust weighs each source by its measured accuracy; removing a source that is "
                "often wrong helps too."
            )
        ramp = ""
        if self.lambda2 is not None and self.lambda2 < 1:
            ramp = f" SSL fits clicks at λ2 = {self.lambda2:.2f}, growing to 1 at {FULL_WEIGHT_ANSWERS} answers."
        return (
            f"{self.summary()} Their weight is {self.weight:.2f} of 1 (their accuracy, estimated from where they "
            f"agree with SVR's order: {self.agreement.words() if self.agreement else 'not measured yet'}; "
            f"full weight once at least {FULL_ACCURACY}).{ramp} "
            "SSL also weighs the labels and any rules: where those disagree with an answer, it can still break "
            "it. More answers raise their pull."
        )
