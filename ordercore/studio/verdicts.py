"""What the Studio says of the model's figures, in words the expert can act on (issue 33, item 3):

- ``gain_verdict``: a cross-validated gain over SVR worded by its interval: helps, harms, or "within
  the noise" when the interval spans 0 (a point estimate on a few dozen labels is mostly noise).  An
  annotator's own answers as the last retrain treats them: ``click_standing.ClickStanding``.
- ``zero_weight_reasons``: why a rule (or an import) automatic trust weighs 0 counts for nothing, though
  it may be right on most labeled pairs, and what would change it.
- ``wrong_way_warning``: a rule more often wrong than right on the pairs checked, whatever its weight.
- ``few_rows_warning``: a figure measured on fewer than ``FEW_ROWS`` rows is mostly noise.
- ``effect_words`` and ``hurting_sources``: each source's effect worded by its interval as the gain is,
  and why a source that surely raises the cross-validated error keeps its weight, and what would change it.
- ``raised_error_advice``: when the preferences raise the cross-validated error, which sources of the
  same assessment's table have a negative effect or none measured, by name, and what to do (a new user
  was sent to "the sources below with a negative effect" by a table that showed none).
- ``assessment_words`` and ``changes_since``: which full assessment the gain, the verdict and the effects
  come from (when it was made) and, when the sources have changed since, what changed.
"""

from __future__ import annotations

import time

import numpy as np

from ordercore.knowledge.expert_accuracy import AgreementEstimate
from ordercore.knowledge.source_weights import CLICKS
from ordercore.knowledge.trust import SourceTrust
from ordercore.studio.numbers import to_digits_of


def zero_weight_reasons(trust: SourceTrust) -> list[str]:
    """For each source but clicks (``ClickStanding`` says theirs) of weight 0: why, in words ("surely worse
    than a coin" when ``SourceCheck.share_interval``, which knows its pairs share rows, lies below ½).  Its weight
    rests on the labeled pairs where it orders the rows against SVR (``SourceTrust.contradicting``), the
    only pairs where its preferences move the fit; right on most labeled pairs says little, since SVR
    orders most of them rightly too."""
    reasons = []
    rows = zip(trust.names, trust.trust.weights, trust.contradicting(), trust.checked(), trust.checks, strict=True)
    for name, weight, (right, against), (agreed, checked), check in rows:
        if weight > 0 or str(name).startswith(CLICKS) or not checked:
            continue
        if check.share_interval()[1] < 0.5:
            reasons.append(
                f"{name}: weight 0: right on only {agreed:,} of {checked:,} labeled pairs ({agreed / checked:.0%}), "
                "surely worse than a coin: it orders the rows the wrong way round. Is its direction reversed "
                "(higher and lower swapped)?"
            )
            continue
        overall = f"{name}: weight 0, though right on {agreed:,} of {checked:,} labeled pairs."
        if not against:
            reasons.append(
                f"{overall} SVR orders each of those pairs as it does, so none shows that it would correct SVR; "
                "its weight needs labeled pairs where they disagree (audit its pairs on Pairwise)."
            )
        else:
            reasons.append(
                f"{overall} Where SVR orders the rows the other way ({against:,} pairs, the only ones where its "
                f"preferences move the fit) it is right on {right:,} ({right / against:.0%}): not surely better "
                "than a coin. Auditing its pairs on Pairwise measures it on more."
            )
    return reasons


FEW_ROWS = 30
"""Rows below which a figure measured on them (the test MAEs, the GP's rank correlation) is said to be
mostly noise."""


def few_rows_warning(figure: str, rows: int, where: str = "held-out rows", plural: bool = True) -> str | None:
    """'The test MAEs are measured on 4 held-out rows: so few that they are mostly noise.' for ``figure``
    ('The test MAEs are') on 1 to ``FEW_ROWS`` - 1 rows; None on none or enough (on 2 rows a rank
    correlation can only be ±1)."""
    if not 0 < rows < FEW_ROWS:
        return None
    return f"{figure} measured on {rows:,} {where}: so few that {'they are' if plural else 'it is'} mostly noise."


def effect_words(effect: float, low: float, high: float) -> str:
    """A source's effect (the cross-validated error without it minus with it) in words by its 95 %
    interval [low, high], as ``gain_verdict`` words the gain: 'helps' above 0, 'hurts' below, 'within the
    noise' when it spans 0; 'none' for an effect of exactly 0 (zeroing it changes no weight); 'not
    measured' for NaN; '—' with no interval (an assessment stored before effects had one)."""
    if np.isnan(effect):
        return "not measured"
    if effect == 0 and low == high == 0:
        return "none (weight 0)"
    if np.isnan(low) or np.isnan(high):
        return "—"
    if low > 0:
        return "helps"
    if high < 0:
        return "hurts"
    return "within the noise"


def interval_words(trust: SourceTrust, of: str = "") -> str:
    """What the effects' intervals are (``SourceTrust.effect_intervals``): '95 % interval{of}' for one source
    tested, '95 % interval{of}, together over the 5 sources assessed' for several."""
    tested = trust.tested()
    return f"95 % interval{of}" + (f", together over the {tested} sources assessed" if tested > 1 else "")


def well_checked(trust: SourceTrust, k: int) -> str | None:
    """'right on 39 of 49 pairs that check it (95 % interval 68 %–90 %)' for a rule (not clicks) whose
    checked accuracy's interval (``SourceCheck.share_interval``) lies above ½; else None."""
    check = trust.checks[k]
    if check is None or str(trust.names[k]).startswith(CLICKS) or not check.counts()[1]:
        return None
    low, high = check.share_interval()
    if not low > 0.5:
        return None
    right, checked = check.counts()
    return f"right on {right:,} of {checked:,} pairs that check it (95 % interval {low:.0%}–{high:.0%})"


def surely_right_annotator(trust: SourceTrust, k: int) -> AgreementEstimate | None:
    """Source k's agreement when it is an annotator's clicks measured surely above a coin
    (``AgreementEstimate.informative``); else None."""
    agreement = trust.agreement_of(k) if str(trust.names[k]).startswith(CLICKS) else None
    return agreement if agreement is not None and agreement.informative else None


def hurting_sources(trust: SourceTrust, scale: float) -> list[str]:
    """For each source of weight above 0 whose effect is surely negative (its whole interval below 0,
    simultaneous over the sources assessed: ``SourceTrust.effect_intervals``): that it raises the
    cross-validated error, why it keeps its weight (set by the accuracy check on labeled pairs, not by the
    effect) and what would change it; for a rule surely right on most pairs that check it (``well_checked``),
    or an annotator whose agreement is surely above a coin's (``AgreementEstimate.informative``), that the two
    disagree and no advice to remove it or review the answers; figures to the digits of ``scale``."""
    intervals = trust.effect_intervals()
    if intervals is None:
        return []
    reasons = []
    for k, (name, weight, effect, (low, high)) in enumerate(
        zip(trust.names, trust.trust.weights, trust.effects, intervals, strict=True)
    ):
        if not (weight > 0 and high < 0):
            continue
        measured = (
            f"{name}: with its weight set to 0 the cross-validated error is {to_digits_of(-effect, scale)} lower "
            f"({interval_words(trust, ' of how much lower')}: {to_digits_of(-high, scale)} to "
            f"{to_digits_of(-low, scale)}), yet its weight is {weight:.2f}."
        )
        if (agreement := surely_right_annotator(trust, k)) is not None:
            reasons.append(
                f"{measured} Yet their answers are surely more often right than wrong (agreement "
                f"{agreement.words()}): the labels' cross-validation and the answers' agreement disagree, and a "
                "cross-validation on a few dozen labels is the weaker evidence. Do not discard the answers on this "
                "alone: label more rows (the cross-validation then measures their effect better)."
            )
        elif str(name).startswith(CLICKS):
            reasons.append(
                f"{measured} An annotator's weight comes from how often their answers agree with SVR's order, "
                "not from this effect. Review their answers (Pairwise, My answers): wrong ones can be changed "
                "or removed."
            )
        elif (checked := well_checked(trust, k)) is not None:
            reasons.append(
                f"{measured} Yet it is {checked}, surely more often right than wrong: the labels' cross-validation "
                "and the pairs that check it disagree, and a cross-validation on a few dozen labels is the weaker "
                "evidence. Do not remove it on this alone: audit more of its pairs on Pairwise, or label more rows."
            )
        else:
            reasons.append(
                f"{measured} Its weight comes from the accuracy check on labeled pairs (where it orders the rows "
                "against SVR), not from this effect, which only measures it. To change it: audit its pairs on "
                "Pairwise (answers where it is wrong lower its weight), or remove it on Rules (and add it again "
                "with a lower weight w to keep some of its pull)."
            )
    return reasons


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def raised_error_advice(trust: SourceTrust, unmeasured_next: str) -> str:
    """What to do when the preferences raise the cross-validated error (the red verdict), from the effects
    of the same assessment ``trust``, by name: the sources of weight above 0 whose effect is surely
    negative, simultaneously over the sources assessed (audit or remove them; audit first a rule surely
    right on most pairs that check it, ``well_checked``), negative within the noise, or not measured (new or
    changed since the full assessment, or none computed), then ``unmeasured_next`` (what will measure them: 'the full
    assessment running now measures them'); when no source shows a negative effect, that the preferences
    raise it together, and what SSL does about it.  Never points to a negative effect the table lacks."""
    if trust.effects is None:
        return f" This assessment measured no source's effect; {unmeasured_next}."
    intervals = trust.effect_intervals()
    intervals = intervals if intervals is not None else np.full((len(trust.names), 2), np.nan)
    surely, noisy, conflicted = [], [], []
    rows = zip(trust.names, trust.trust.weights, trust.effects, intervals, strict=True)
    for k, (name, weight, effect, (_, high)) in enumerate(rows):
        if weight > 0 and effect < 0:
            (surely if high < 0 else noisy).append(str(name))
            if high < 0 and (well_checked(trust, k) is not None or surely_right_annotator(trust, k) is not None):
                conflicted.append(str(name))
    unmeasured = trust.unmeasured()
    advice = []
    if surely:
        its, them = ("its", "it") if len(surely) == 1 else ("their", "them")
        advice.append(
            f"Measured to raise it: {_listed(surely)} ('hurts' below): audit {its} pairs on Pairwise (wrong "
            f"answers lower a weight) or remove {them}."
        )
    if conflicted:
        advice.append(
            f"But {_listed(conflicted)} {'is' if len(conflicted) == 1 else 'are'} surely right on most of the pairs "
            "that check it (a rule's checked pairs, an annotator's agreement), which the labels' cross-validation "
            "contradicts: audit before removing."
        )
    if noisy:
        advice.append(
            f"Also negative, but within the noise: {_listed(noisy)}."
            if surely
            else f"Negative, but within the noise: {_listed(noisy)}: auditing their pairs on Pairwise measures "
            "them on more; none surely raises it alone."
        )
    if not surely and not noisy:
        advice.append(
            "No source measured below has a negative effect."
            if unmeasured
            else "No source below has a negative effect: left out one at a time, none lowers the cross-validated "
            "error, so the preferences raise it together. SSL takes only the share of their fit that "
            "cross-validates best (its CV MAE above); more labels, or audit answers on Pairwise, tell the "
            "sources apart."
        )
    if unmeasured:
        why = " (new or changed since the full assessment these figures come from)" if not trust.is_full else ""
        advice.append(f"Not measured: {_listed(unmeasured)}{why}; {unmeasured_next}.")
    return " " + " ".join(advice)


def changes_since(trust: SourceTrust, sizes: dict[str, float]) -> list[str]:
    """What changed in the sources since the full assessment the cross-validation and effects of ``trust``
    come from (its basis), given the sources now and the sum of their preferences' w (``sizes``, by name):
    each source new since ('clicks: Jonas: new, 14 preferences'), removed since, or whose weight or
    preferences moved ('clicks: Marta: 27 → 41 preferences, weight 0.92 → 1.00'); [] when nothing did, or
    without a basis.  A weight now is ``trust``'s (its own sources'), unknown for a source it lacks."""
    basis = trust.basis
    if basis is None:
        return []
    weights_then = basis.weights()
    sizes_then = dict(zip(basis.names, basis.size, strict=True)) if basis.size is not None else {}
    weights_now = dict(zip(trust.names, trust.trust.weights, strict=True))
    changes = []
    for name in sorted(set(sizes) | set(basis.names)):
        if name not in sizes:
            changes.append(f"{name}: removed")
        elif name not in weights_then:
            changes.append(f"{name}: new, {preference_count(sizes[name])} preferences")
        else:
            moved = []
            if name in sizes_then and not np.isclose(sizes_then[name], sizes[name]):
                moved.append(f"{preference_count(sizes_then[name])} → {preference_count(sizes[name])} preferences")
            then, now = weights_then[name], weights_now.get(name)
            if then is not None and now is not None and f"{then:.2f}" != f"{now:.2f}":
                moved.append(f"weight {then:.2f} → {now:.2f}")
            if moved:
                changes.append(f"{name}: {', '.join(moved)}")
    return changes


def preference_count(size: float) -> str:
    """A sum of preferences' w as a count: '41' (w = 1, the default), '20.5' otherwise."""
    return f"{size:,.0f}" if float(size).is_integer() else f"{size:,.1f}"


def made_words(trust: SourceTrust) -> str:
    """When the full assessment ``trust`` rests on was made: 'made at 21:34 UTC' ('' when not recorded:
    stored before it was).  The clock time alone: an age ('55 s ago') froze until the page's next rerun, and
    a page left open understated how old the assessment was (new-user report 13, F8)."""
    made_at = None if trust.basis is None else trust.basis.made_at
    if made_at is None:
        return ""
    return f"made at {time.strftime('%H:%M UTC', time.gmtime(made_at))}"


def assessment_words(trust: SourceTrust, sizes: dict[str, float], current: bool) -> tuple[bool, str]:
    """(stale, words): which assessment the Model page's gain, verdict and effects come from.  A full
    assessment of the sources now (``current``): not stale, 'One assessment, made at 21:50 UTC,
    gives …'.  Else stale (a warm re-assessment in force, whose cross-validation and kept effects are the
    last full one's; or a full one of earlier sources while theirs is queued, runs or was stopped): that they
    are the last full assessment's, when it was made, of the sources as they were then, what changed since
    (``changes_since``, on the sources now and their ``sizes``), and where a warm one measured the weights
    on the sources now."""
    made = made_words(trust)
    if trust.is_full and current:
        when = f", {made}," if made else ""
        return False, f"One assessment{when} gives the gain, the verdict and each source's weight and effect below."
    changes = changes_since(trust, sizes)
    when = f" ({made})" if made else ""
    since = f" Since then: {'; '.join(changes)}." if changes else ""
    weights = (
        " The weights below are measured on the sources now; a source new or changed since has no effect measured."
        if not trust.is_full
        else " A source new since is not in the table."
        if any(name not in trust.names for name in sizes)
        else ""
    )
    return True, (
        f"The gain, the verdict and the effects below are the last full assessment's{when}, of the sources "
        f"as they were then.{since}{weights}"
    )


def wrong_way_warning(name: str, accuracy: float, low: float, high: float) -> str | None:
    """Words for a rule more often wrong than right on the pairs checked (``accuracy`` below ½, its 95 %
    interval [low, high], ``SourceCheck.share_interval``'s: it knows the pairs share rows), whatever its weight,
    or None: surely so, and perhaps reversed, when the interval lies below ½; else so far, as likely irrelevant as
    reversed (a first-time expert was told to reverse a rule that was a coin, on 103 pairs of 40 rows)."""
    if not accuracy < 0.5:  # NaN (nothing checked) too
        return None
    measured = f"{name!r} is right on only {accuracy:.0%} of the pairs checked (95 % interval {low:.0%}–{high:.0%})"
    if high < 0.5:
        return f"{measured}: surely more often wrong than right. Is its direction reversed (higher and lower swapped)?"
    return (
        f"{measured}: more often wrong than right so far, but not surely (the interval reaches above half): "
        "it may as well be irrelevant as reversed. Audit its pairs on Pairwise to measure it on more before you "
        "reverse it."
    )


GAIN_WAY = "Gain = SVR's MAE − SSL's: positive, SSL's error is lower"
"""Which way every gain and interval of the Model page runs (a new user read "CV gain over SVR … 95 % interval
−1.84 to 2.18" beside the test MAE's "95 % interval −3.78 to 0.21", SSL − SVR, with nothing saying which way)."""


def gain_verdict(gain: float, low: float, high: float, svr: float, scale: float | None = None) -> tuple[str, str]:
    """('success' | 'error' | 'info', words) for the preferences' cross-validated gain over SVR's MAE
    ``svr`` with its 95 % interval [low, high]: clearly better when the interval is above 0, clearly
    worse below 0, within the noise when it spans 0.  Each figure to the digits of ``scale`` (default: the
    MAE; a new user read '-14.59 to 11.2' beside MAEs of two decimals)."""
    of = svr if scale is None else scale
    interval = f"95 % interval of the gain (SVR − SSL) {to_digits_of(low, of)} to {to_digits_of(high, of)}"
    if low > 0:
        return "success", f"The preferences lower the cross-validated error by {to_digits_of(gain, of)} ({interval})."
    if high < 0:
        worse = f"{to_digits_of(-gain, of)} ({-gain / svr:.0%})" if svr else to_digits_of(-gain, of)
        return "error", f"The preferences raise the cross-validated error, by {worse} ({interval})."
    return (
        "info",
        f"Within the noise: the preferences neither clearly lower nor raise the cross-validated error "
        f"({interval} spans 0; a few dozen labels cannot tell yet).",
    )


def trials_verdict(improvement: float, p_value: float | None, trials: int) -> tuple[str, str]:
    """('success' | 'error' | 'info', words) for an experiment's mean improvement of SSL over SVR's test
    MAE (a fraction) over ``trials`` trials, with its paired test's two-sided ``p_value``: SSL better or
    worse where p < 0.05, within the noise otherwise (or with too few trials for a test); no verdict on
    an improvement that is not a number."""
    if not np.isfinite(improvement):
        return "info", (
            f"No verdict: the mean change of the test MAE over {trials} trial(s) is not a number (a trial's MAE "
            "is missing or infinite); check the trials' results."
        )
    change = f"{abs(improvement):.1%}"
    if p_value is None or not np.isfinite(p_value):
        return "info", f"Too few trials to tell the {change} change from chance ({trials} trial(s): run more)."
    if p_value < 0.05:
        better = improvement > 0
        return (
            ("success" if better else "error"),
            f"SSL's test MAE is {change} {'lower' if better else 'higher'} than SVR's over {trials} trials, "
            f"more than chance explains (p = {p_value:.2g}).",
        )
    return (
        "info",
        f"Within the noise: a {change} {'lower' if improvement > 0 else 'higher'} test MAE over {trials} trials, "
        f"which chance alone gives often (p = {p_value:.2g}); more trials would tell.",
    )
