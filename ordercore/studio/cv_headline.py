"""The Model page's headline of "do the preferences help?": what they do to the model in use (issue 33,
new-user report 12, F3).

Automatic trust cross-validates two fits against SVR on the labels (``LabelCV.comparison``): the fit
with the preferences, unblended (the average over its λ2 path), and SSL in force, the blend of the
weakest of those fits with SVR in the share that cross-validates best.  A new user read "CV gain over SVR
−27.0" and a red "The preferences raise the cross-validated error" of the unblended fit, while SSL in
force (67.6) was below SVR (69.6).  So the headline is the blend in force, the unblended fit a
secondary figure, each worded by its 95 % interval (within the noise when it spans 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ordercore.studio.numbers import change, metric_delta, to_digits_of


def _interval(compared: dict, of: float) -> str:
    """'95 % interval of the gain (SVR − SSL) -1.0 to 5.0' to the digits of ``of``."""
    low, high = (to_digits_of(compared[end], of) for end in ("low", "high"))
    return f"95 % interval of the gain (SVR − SSL) {low} to {high}"


@dataclass(frozen=True)
class CVHeadline:
    """``in_force`` and ``unblended``: ``LabelCV.comparison`` of the blend in force and of the fit with
    preferences unblended (svr, ssl, gain = svr − ssl, low, high: the gain's 95 % interval); ``alpha``:
    the share of the fit with preferences in the blend in force (0: SSL is SVR)."""

    in_force: dict
    unblended: dict
    alpha: float

    @property
    def unblended_raises(self) -> bool:
        """Whether the unblended fit surely raises the error (its whole interval below 0): the page then
        names the sources that show it (``verdicts.raised_error_advice``)."""
        return self.unblended["high"] < 0

    def kind(self) -> str:
        """'success' | 'error' | 'info': the blend in force surely lowers, surely raises, or is within the
        noise of SVR's error (SSL being SVR is 'info')."""
        if self.alpha == 0:
            return "info"
        low, high = self.in_force["low"], self.in_force["high"]
        return "success" if low > 0 else "error" if high < 0 else "info"

    def words(self, scale: float | None = None) -> str:
        """The headline, of SSL in force, then the unblended fit's as a secondary figure; each figure to
        the digits of ``scale`` (default: SVR's MAE)."""
        of = self.in_force["svr"] if scale is None else scale
        return f"{self._in_force_words(of)} {self._unblended_words(of)}"

    def _in_force_words(self, of: float) -> str:
        if self.alpha == 0:
            return "SSL in force is SVR (λ2 = 0): it uses none of the preferences until they lower the error."
        gain, kind = self.in_force["gain"], self.kind()
        share = "keeps only the share of the fit with preferences that helps" if self.alpha < 1 else "is that fit"
        way = "below" if gain > 0 else "above"
        size = f"{to_digits_of(abs(gain), of)} {way} SVR's"
        interval = _interval(self.in_force, of)
        if kind == "success":
            return f"SSL in force {share}: its cross-validated error is {size}, surely lower ({interval})."
        if kind == "error":
            return f"SSL in force {share}: its cross-validated error is {size}, surely higher ({interval})."
        return f"SSL in force {share}: its cross-validated error is {size}, within the noise ({interval} spans 0)."

    def _unblended_words(self, of: float) -> str:
        gain, svr = self.unblended["gain"], self.unblended["svr"]
        interval = _interval(self.unblended, of)
        lead = "The fit with all the preferences, unblended (not in use),"
        if self.unblended["low"] > 0:
            return f"{lead} would lower it by {to_digits_of(gain, of)} ({interval})."
        if self.unblended_raises:
            share = f" ({-gain / svr:.0%})" if svr else ""
            return f"{lead} would raise it by {to_digits_of(-gain, of)}{share} ({interval})."
        return f"{lead} is within the noise of SVR's ({interval} spans 0)."

    def in_force_delta(self, scale: float) -> dict:
        """``st.metric``'s delta of SSL in force's CV MAE from SVR's: green when it falls, red when it
        rises, whatever its interval (the verdict's words say whether it is within the noise)."""
        return metric_delta(change(-self.in_force["gain"], scale), lower_is_better=True, within_noise=False)
