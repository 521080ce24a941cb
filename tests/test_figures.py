"""The GP's band view against a hand computation."""

import numpy as np

from ordercore.studio import figures


def test_the_band_averages_each_quantile_bin_of_the_target(monkeypatch):
    monkeypatch.setattr(figures, "BAND_BINS", 2)
    actual = np.array([4.0, 1.0, 3.0, 2.0])
    mean = np.array([40.0, 10.0, 30.0, 20.0])
    std = np.array([4.0, 1.0, 3.0, 2.0])
    dots, band, line = figures.latent_band_figure(actual, mean, std, "t", "actual").data
    # Bins by the target's median: {1, 2} and {3, 4}.
    assert np.allclose(line.x, [1.5, 3.5]) and np.allclose(line.y, [15.0, 35.0])
    assert np.allclose(band.y, [16.5, 38.5, 31.5, 13.5]) and np.allclose(band.x, [1.5, 3.5, 3.5, 1.5])
    assert sorted(dots.x) == [1.0, 2.0, 3.0, 4.0]
