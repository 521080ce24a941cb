"""The Model page's headline (``ordercore/studio/cv_headline.py``, new-user report 12, F3): what the
preferences do to the model in use, on hand-made cross-validations (the report's figures)."""

from ordercore.studio.cv_headline import CVHeadline


def compared(svr, ssl, low, high):
    """A ``LabelCV.comparison`` by hand: the gain is SVR's MAE minus SSL's."""
    return {"svr": svr, "ssl": ssl, "gain": svr - ssl, "low": low, "high": high}


def test_the_headline_is_the_blend_in_force_the_unblended_fit_a_secondary_figure():
    """The report's session: SVR 69.6, the fit with preferences 96.5 (surely worse), SSL in force 67.6."""
    headline = CVHeadline(compared(69.6, 67.6, -1.0, 5.0), compared(69.6, 96.5, -40.0, -13.8), alpha=0.3)
    words = headline.words(scale=600.0)  # the labels spread 600: one decimal
    first, second = words.split(". ", 1)
    assert first.startswith("SSL in force keeps only the share of the fit with preferences that helps")
    assert "its cross-validated error is 2.0 below SVR's, within the noise" in first
    assert "−1.0 to 5.0 spans 0" in first
    assert second.startswith("The fit with all the preferences, unblended (not in use), would raise it by 26.9 (39%)")
    assert headline.kind() == "info"  # within the noise: not green, not red
    assert headline.unblended_raises  # the page names the sources that show it
    delta = headline.in_force_delta(600.0)  # a falling error shows as good, not grey
    assert (delta["delta"], delta["delta_arrow"], delta["delta_color"]) == ("2.0", "down", "green")


def test_every_verdict_of_the_blend_in_force_is_worded_by_its_interval():
    unblended = compared(50.0, 45.0, 1.0, 9.0)
    better = CVHeadline(compared(50.0, 44.0, 2.0, 10.0), unblended, alpha=1.0)
    assert better.kind() == "success"
    assert better.words(500.0).startswith("SSL in force is that fit: its cross-validated error is 6.0 below SVR's")
    assert "surely lower" in better.words(500.0) and "would lower it by 5.0" in better.words(500.0)
    worse = CVHeadline(compared(50.0, 53.0, -5.0, -1.0), compared(50.0, 52.0, -3.0, 0.5), alpha=0.5)
    assert worse.kind() == "error" and "3.0 above SVR's, surely higher" in worse.words(500.0)
    assert "is within the noise of SVR's" in worse.words(500.0) and not worse.unblended_raises
    assert worse.in_force_delta(500.0)["delta_color"] == "red"
    svr = CVHeadline(compared(50.0, 50.0, 0.0, 0.0), compared(50.0, 60.0, -15.0, -5.0), alpha=0.0)
    assert svr.kind() == "info" and svr.words(500.0).startswith("SSL in force is SVR (λ2 = 0)")
    assert svr.in_force_delta(500.0)["delta"] == "no change"
