"""The Studio's figures against hand computations: the GP's band view, and the map of rows (every kth
row and the marked ones, drawn to scale)."""

import numpy as np
import pytest

from ordercore.studio import figures


def test_the_band_averages_each_quantile_bin_of_the_target(monkeypatch):
    monkeypatch.setattr(figures, "BAND_BINS", 2)
    monkeypatch.setattr(figures, "BAND_ROWS", 2)
    actual = np.array([4.0, 1.0, 3.0, 2.0])
    mean = np.array([40.0, 10.0, 30.0, 20.0])
    std = np.array([4.0, 1.0, 3.0, 2.0])
    dots, band, line = figures.latent_band_figure(actual, mean, std, "t", "actual").data
    # Bins by the target's median: {1, 2} and {3, 4}.
    assert np.allclose(line.x, [1.5, 3.5]) and np.allclose(line.y, [15.0, 35.0])
    assert np.allclose(band.y, [16.5, 38.5, 31.5, 13.5]) and np.allclose(band.x, [1.5, 3.5, 3.5, 1.5])
    assert sorted(dots.x) == [1.0, 2.0, 3.0, 4.0]
    assert band.mode == "lines"  # the band's legend entry is a band, not a marker


def test_few_rows_get_fewer_bins_and_below_two_bins_worth_the_dots_alone():
    """A new user's 7 held-out rows were averaged in 7 bins of one row each: a bin averages at least 10
    rows (25 rows: 2 bins of the target's median), and 19 rows are drawn as rows alone."""
    rng = np.random.default_rng(2)
    actual = rng.permutation(25).astype(float)
    dots, band, line = figures.latent_band_figure(actual, 10 * actual, np.ones(25), "t", "actual").data
    low, high = actual[actual < 12], actual[actual >= 12]  # the median, 12, opens the upper bin
    assert np.allclose(line.x, [low.mean(), high.mean()]) and np.allclose(line.y, [10 * low.mean(), 10 * high.mean()])
    (alone,) = figures.latent_band_figure(actual[:19], actual[:19], np.ones(19), "t", "actual").data
    assert alone.name.startswith("each row") and len(alone.x) == 19


def test_the_map_draws_every_kth_row_and_the_marked_ones_exactly():
    import numpy as np

    from ordercore.studio.figures import rows_map

    latitude, longitude = np.linspace(32, 42, 4999), np.linspace(-124, -114, 4999)
    figure = rows_map(latitude, longitude, marked={"A": 17, "B": 4000}, max_dots=1000)
    dots, a, b = figure.data
    assert np.array_equal(dots.y, latitude[::5]) and len(dots.y) == 1000  # every 5th of 4,999
    assert (a.y[0], b.x[0]) == (latitude[17], longitude[4000])
    assert len(rows_map(latitude, longitude, max_dots=None).data[0].y) == 4999
    # To scale: at 37° a degree of latitude is drawn 1 / cos 37° times a degree of longitude.
    assert figure.layout.yaxis.scaleanchor == "x" and figure.layout.yaxis.scaleratio == pytest.approx(1.2521, abs=1e-4)
    # Nothing a browser would fetch: no geo or tile-map trace (those load outlines or tiles online).
    assert {trace.type for trace in figure.data} == {"scatter"}


def test_a_few_rows_gp_view_shows_each_rows_mean_with_its_sd_in_the_palette_and_a_legend():
    """A new user's 10 held-out rows were tiny pale-grey dots with no sd and no legend (issue 33, M2): each
    row is a marker large and opaque enough to see, in an Okabe–Ito colour, with ± its sd as an error bar,
    named in a legend; the axes say what they are in."""
    actual = np.array([800.0, 810, 840, 870, 960, 1000, 1020, 1300, 1370, 1500])
    mean, std = np.linspace(-0.7, 1.7, 10), np.linspace(0.2, 0.6, 10)
    figure = figures.latent_band_figure(actual, mean, std, "t", "price_eur")
    (rows,) = [trace for trace in figure.data if trace.mode == "markers"]
    assert rows.marker.size >= 6 and (rows.marker.opacity is None or rows.marker.opacity >= 0.8)
    assert rows.marker.color.lower() in {"#000000", "#e69f00", "#56b4e9", "#009e73", "#0072b2", "#cc79a7"}
    assert rows.error_y.visible is not False and np.allclose(rows.error_y.array, std)
    assert figure.layout.showlegend is True and "sd" in rows.name
    assert "price_eur" in figure.layout.xaxis.title.text and "latent" in figure.layout.yaxis.title.text
    assert "(" in figure.layout.yaxis.title.text  # its scale said (the GP's own, no unit)


def test_the_answers_bought_axis_names_the_target_and_says_it_does_not_start_at_zero():
    import pandas as pd

    metrics = [{"answers": a, "cv_svr_mae": 5.0, "cv_ssl_mae": 4.0 + a / 100} for a in (0, 10)]
    figure = figures.answers_bought_figure(pd.DataFrame({"metrics": metrics}), None, 10.0, 60, "price_eur")
    title = figure.layout.yaxis.title.text
    assert "price_eur" in title and "not from 0" in title, title
