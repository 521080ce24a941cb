"""AppTest of the Toy cubic page."""

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.delenv("ORDERCORE_STORE_URL", raising=False)
    monkeypatch.setenv("ORDERCORE_STORE", str(tmp_path / "studio.sqlite"))
    at = AppTest.from_file(str(Path(__file__).parents[1] / "app.py"), default_timeout=60).run()
    return at.switch_page("app_pages/toy_cubic.py").run()


def values(array) -> np.ndarray:
    """A Plotly JSON array: a list, or {"dtype", "bdata"} (base64 of the raw numbers)."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).astype(float)
    return np.asarray(array, dtype=float)


def curves(at) -> dict:
    """The chart's traces by name: name -> y values."""
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    return {trace["name"]: values(trace["y"]) for trace in figure["data"] if "name" in trace}


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_toy_page_starts_with_no_preferences(app):
    assert not app.exception
    assert app.title[0].value == "Toy cubic"
    assert metric(app, "Preferences") == "0"
    traces = curves(app)
    np.testing.assert_allclose(traces["SVR (labels only)"], traces["SSL (labels + preferences)"], atol=1e-9)


def test_adding_preferences_moves_ssl_but_not_svr(app):
    before = curves(app)
    for _ in range(5):
        app.button(key="toy_add_random").click().run()
    assert not app.exception
    assert metric(app, "Preferences") == "5"
    after = curves(app)
    np.testing.assert_allclose(after["SVR (labels only)"], before["SVR (labels only)"], atol=1e-9)
    assert np.abs(after["SSL (labels + preferences)"] - before["SSL (labels + preferences)"]).max() > 1e-2
    # the target is a fixed cubic; five true-order preferences bring SSL closer to it than SVR
    target = after["target"]
    assert np.mean(np.abs(after["SSL (labels + preferences)"] - target)) < np.mean(
        np.abs(after["SVR (labels only)"] - target)
    )


def test_a_pair_of_equal_x_values_is_refused_and_nothing_is_stored(app):
    app.number_input(key="toy_x_a").set_value(0.2).run()
    app.number_input(key="toy_x_b").set_value(0.2).run()
    app.button(key="toy_add_pair").click().run()
    assert not app.exception
    assert "two different x values" in app.error[0].value
    assert metric(app, "Preferences") == "0"


def test_undo_new_draw_and_kernel_switch(app):
    app.button(key="toy_add_pair").click().run()
    assert metric(app, "Preferences") == "1"
    app.button(key="toy_undo").click().run()
    assert metric(app, "Preferences") == "0"
    first_svr = curves(app)["SVR (labels only)"]
    app.button(key="toy_new_draw").click().run()
    assert np.abs(curves(app)["SVR (labels only)"] - first_svr).max() > 1e-3
    app.radio(key="toy_kernel").set_value("linear").run()
    assert not app.exception
    svr = curves(app)["SVR (labels only)"]
    np.testing.assert_allclose(np.diff(svr, 2), 0, atol=1e-9)  # a linear kernel fits a line


def test_paper_setting_fits_with_seed_001_section_4_1s_kernel_and_lambda1(app):
    app.button(key="toy_paper_setting").click().run()
    assert not app.exception
    # Seed 001 §4.1: "we used a linear kernel and set lambda_1 = 0"; SSL is LP (13), over the labeled points.
    assert app.radio(key="toy_kernel").value == "linear"
    assert app.select_slider(key="toy_lambda1").value == 0.0
    assert app.radio(key="toy_centers").value == "labeled"
    fitted = next(caption.value for caption in app.caption if caption.value.startswith("Fitted with:"))
    assert fitted.startswith("Fitted with: linear kernel, λ1 = 0,") and "SSL over the labeled points" in fitted
    # §4.1's one preference, between -0.15 and 0.30
    assert metric(app, "Preferences") == "1"
    figure = json.loads(app.get("plotly_chart")[0].proto.spec)
    traces = {trace["name"]: trace for trace in figure["data"] if "name" in trace}
    assert sorted(values(traces["preference (larger dot: higher value)"]["x"])) == [-0.15, 0.30]
    # A linear kernel in one dimension fits lines; with lambda1 = 0 SVR is the least-absolute-deviation
    # line of the three points, which passes through two of them.
    svr, ssl = (values(traces[name]["y"]) for name in ("SVR (labels only)", "SSL (labels + preferences)"))
    np.testing.assert_allclose(np.diff(svr, 2), 0, atol=1e-9)
    np.testing.assert_allclose(np.diff(ssl, 2), 0, atol=1e-9)
    grid = values(traces["SVR (labels only)"]["x"])
    training_x, training_y = (values(traces["training points"][axis]) for axis in ("x", "y"))
    on_line = np.isclose(np.interp(training_x, grid, svr), training_y, atol=1e-6)
    assert on_line.sum() == 2

    app.button(key="toy_demo_setting").click().run()
    assert app.radio(key="toy_kernel").value == "poly"
    assert any(caption.value.startswith("Fitted with: poly kernel") for caption in app.caption)


# ---------------------------------------------------------------------------------------- the sinc demo
def sinc_metric(at, label) -> float:
    return float(metric(at, label))


def test_the_sinc_demo_shows_omega_below_the_measured_coverage(app):
    """Defaults (noise std 0.5, Gaussian, ε = 0.2): Ω as Table 1 has it (0.16 ± 0.02) and below the
    coverage of fresh noisy points; a wider tube raises both; more noise lowers Ω."""
    assert not app.exception
    omega, coverage = sinc_metric(app, "P(|f − y| ≤ ε) ≥ Ω"), sinc_metric(app, "Measured coverage")
    assert 0.1 < omega < 0.22 and omega < coverage
    app.select_slider(key="sinc_epsilon").set_value(1.0).run()
    assert not app.exception
    assert sinc_metric(app, "P(|f − y| ≤ ε) ≥ Ω") > omega and sinc_metric(app, "Measured coverage") > coverage
    wide = sinc_metric(app, "P(|f − y| ≤ ε) ≥ Ω")
    app.select_slider(key="sinc_noise").set_value(1.0).run()
    assert not app.exception and sinc_metric(app, "P(|f − y| ≤ ε) ≥ Ω") < wide


def test_the_sinc_demo_draws_the_tube_and_the_curves(app):
    app.select_slider(key="sinc_epsilon").set_value(0.5).run()
    charts = [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]
    tube = next(c for c in charts if any(t.get("name") == "MPMR ± ε" for t in c["data"]))
    traces = {t["name"]: t for t in tube["data"]}
    band = values(traces["MPMR ± ε"]["y"])
    fit = values(traces["MPMR"]["y"])
    np.testing.assert_allclose(band[: fit.size] - fit, 0.5, atol=1e-12)  # the upper edge is f + ε
    curves_chart = next(c for c in charts if any(t.get("name") == "measured coverage" for t in c["data"]))
    omega_curve = next(t for t in curves_chart["data"] if t["name"].startswith("Ω"))
    epsilons, omegas = values(omega_curve["x"]), values(omega_curve["y"])
    assert np.all(np.diff(omegas) > 0) and epsilons.min() > 0  # Ω grows with ε
    app.radio(key="sinc_law").set_value("t3").run()
    assert not app.exception
