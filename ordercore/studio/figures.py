"""Plotly figures of the Studio's pages: maps of rows, fits against the truth, the toy cubic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ordercore.studio.toy_cubic import DOMAIN, GRID, ToyFit, cubic_target

OKABE_ITO = {
    "black": "#000000",
    "orange": "#e69f00",
    "sky blue": "#56b4e9",
    "bluish green": "#009e73",
    "yellow": "#f0e442",
    "blue": "#0072b2",
    "vermillion": "#d55e00",
    "reddish purple": "#cc79a7",
}
"""Okabe and Ito's colour-blind-safe palette (Color Universal Design, 2008): every chart's colours."""

SVR_COLOUR, SSL_COLOUR = OKABE_ITO["blue"], OKABE_ITO["vermillion"]
"""SVR (labels only) and SSL (labels and preferences), the same on every chart of the Studio."""

OTHER_COLOURS = [OKABE_ITO[name] for name in ("bluish green", "orange", "reddish purple", "sky blue", "black")]
"""The colours of every other series, in turn (never SVR's or SSL's)."""


LEGEND_ABOVE = {"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0}
"""A legend in a row above the plotting area: beside it, at 1024 px it squeezed a scatter to 60 px and lay
over its points."""


def model_colour(name: str) -> str | None:
    """SVR's or SSL's colour for a series whose name says it is one of them, else None."""
    return SVR_COLOUR if "SVR" in name else SSL_COLOUR if "SSL" in name else None


def styled(figure: go.Figure) -> go.Figure:
    """The Studio's look on ``figure``: the palette for series without a colour of their own, and
    numbers on linear axes with thousands separators, never an exponent or an SI suffix (46.499k)."""
    figure.update_layout(colorway=OTHER_COLOURS)
    figure.update_xaxes(exponentformat="none", separatethousands=True)
    figure.update_yaxes(exponentformat="none", separatethousands=True)
    return figure


def toy_cubic_figure(training_x, pairs, fit: ToyFit) -> go.Figure:
    """Seed 000 Fig. 1: target (dotted), training points (circles), SVR (dashed), SSL (solid), and
    each preference as two dots joined by a line below the curves, the larger value the larger dot."""
    training_x = np.asarray(training_x, dtype=np.float64)
    truth = cubic_target(GRID)
    figure = go.Figure()
    figure.add_scatter(x=GRID, y=truth, name="target", mode="lines", line=dict(dash="dot", color="black"))
    figure.add_scatter(
        x=GRID, y=fit.svr, name="SVR (labels only)", mode="lines", line=dict(dash="dash", color=SVR_COLOUR)
    )
    figure.add_scatter(
        x=GRID, y=fit.ssl, name="SSL (labels + preferences)", mode="lines", line=dict(color=SSL_COLOUR, width=3)
    )
    figure.add_scatter(
        x=training_x,
        y=cubic_target(training_x),
        name="training points",
        mode="markers",
        marker=dict(symbol="circle-open", size=14, line=dict(width=2), color="black"),
    )
    low = min(truth.min(), fit.svr.min(), fit.ssl.min())
    step = 0.12
    for k, (higher, lower) in enumerate(pairs):
        level = low - step * (k % 12 + 1)
        figure.add_scatter(
            x=[lower, higher],
            y=[level, level],
            mode="lines+markers",
            showlegend=k == 0,
            name="preference (larger dot: higher value)",
            legendgroup="preferences",
            line=dict(color="gray", width=1),
            marker=dict(size=[6, 12], color="black"),
            hovertemplate=f"f({higher:.2f}) ≥ f({lower:.2f})<extra></extra>",
        )
    figure.update_layout(
        xaxis=dict(range=[DOMAIN[0] - 0.05, DOMAIN[1] + 0.05], title="x"),
        yaxis=dict(title="f(x)"),
        legend=dict(orientation="h", y=-0.15),
        margin=dict(t=30),
    )
    return styled(figure)


MAP_DOTS = 2000


"""Rows ``rows_map`` draws as grey dots by default (every k-th): a map of a large table stays light."""


def rows_map(latitude, longitude, pairs=None, marked=None, title=None, height=420, max_dots=MAP_DOTS) -> go.Figure:
    """The rows as grey dots by longitude and latitude (at most ``max_dots``, every k-th row; None:
    all of them), drawn to scale (a degree of longitude is cos(latitude) of a degree of latitude);
    ``pairs`` (i, j arrays) as lines between their rows; ``marked`` {label: row} as large labelled dots.
    A plain chart, not a tile or geo map: it needs no internet (plotly's geo maps fetch their outlines)."""
    latitude, longitude = np.asarray(latitude, dtype=np.float64), np.asarray(longitude, dtype=np.float64)
    step = 1 if max_dots is None else max(1, -(-latitude.size // max_dots))
    figure = go.Figure()
    figure.add_scatter(
        x=longitude[::step], y=latitude[::step], mode="markers", marker={"size": 3, "color": "lightgray"}, name="rows"
    )
    if pairs is not None:
        i, j = pairs
        gap = np.full(len(i), np.nan)  # one polyline, broken between pairs
        figure.add_scatter(
            x=np.column_stack([longitude[i], longitude[j], gap]).ravel(),
            y=np.column_stack([latitude[i], latitude[j], gap]).ravel(),
            mode="lines",
            line={"width": 1, "color": "crimson"},
            name="paired",
        )
    for label, row in (marked or {}).items():
        figure.add_scatter(
            x=[longitude[row]],
            y=[latitude[row]],
            mode="markers+text",
            text=[label],
            textposition="top center",
            marker={"size": 12},
            name=label,
        )
    middle = np.nanmean(latitude) if latitude.size else 0.0
    figure.update_xaxes(title="longitude", showgrid=False)
    figure.update_yaxes(title="latitude", showgrid=False, scaleanchor="x", scaleratio=1 / np.cos(np.radians(middle)))
    figure.update_layout(
        title=title,
        height=height,
        showlegend=pairs is not None,
        margin={"l": 0, "r": 0, "t": 40 if title else 10, "b": 0},
        plot_bgcolor="white",
    )
    return styled(figure)


SCATTER_DOTS = 1_000
"""Most rows a scatter of predictions draws (a random sample beyond: 4,116 held-out rows of two models
were one brown mass)."""


def drawn_rows(n: int, most: int = SCATTER_DOTS) -> tuple[np.ndarray, str]:
    """The rows of n a scatter draws (every one, or a random ``most``, the same each time), and the words
    its title adds for a sample (', a random 1,000 of 4,116 rows'; '' for every row)."""
    if n <= most:
        return np.arange(n), ""
    return np.sort(np.random.default_rng(0).permutation(n)[:most]), f", a random {most:,} of {n:,} rows"


def against_figure(x, series: dict, title: str, xaxis: str, yaxis: str, diagonal: str | None = None):
    """Each of ``series`` {name: y} plotted against x (at most ``SCATTER_DOTS`` rows: ``drawn_rows``), with
    the line y = x named ``diagonal`` if given (over every row)."""
    figure = go.Figure()
    rows, sampled = drawn_rows(len(x))
    for name, y in series.items():  # SVR's and SSL's own colours, not faded: a white rim parts overlapping dots
        figure.add_scatter(
            x=np.asarray(x)[rows], y=np.asarray(y)[rows], mode="markers", name=name,
            marker={"color": model_colour(name), "size": 5, "line": {"width": 0.5, "color": "white"}},
        )  # fmt: skip
    title += sampled
    if diagonal is not None:
        values = np.concatenate(
            [np.asarray(x, dtype=np.float64)] + [np.asarray(y, dtype=np.float64) for y in series.values()]
        )
        low, high = float(np.min(values)), float(np.max(values))
        figure.add_scatter(
            x=[low, high], y=[low, high], mode="lines", name=diagonal, line={"dash": "dot", "color": "gray"}
        )
    figure.update_layout(title=title, xaxis_title=xaxis, yaxis_title=yaxis, legend=LEGEND_ABOVE)
    return styled(figure)


BAND_BINS = 20
"""Quantile bins of the target in ``latent_band_figure``."""


BAND_DOTS = 1_500
"""Most individual rows ``latent_band_figure`` draws under its band."""

BAND_ROWS = 10
"""Fewest rows a bin of ``latent_band_figure`` averages (a new user's band averaged 7 rows in 7 bins)."""

ERROR_BAR_ROWS = 100
"""Most rows ``latent_band_figure`` draws each with its own ± sd error bar (beyond, the band shows it)."""


def latent_band_figure(actual, mean, std, title: str, xaxis: str) -> go.Figure:
    """The GP's latent mean against the target ``xaxis`` names: each row (a random sample of at most
    ``BAND_DOTS``) a marker, with ± its latent sd as an error bar up to ``ERROR_BAR_ROWS`` rows (a new
    user's 10 rows were faint grey dots with no sd); and per quantile bin of ``actual`` (n,), the bin's
    average latent mean (a line) in a band ± the average latent sd, at least ``BAND_ROWS`` rows a bin
    (no band below two bins' worth)."""
    actual, mean, std = (np.asarray(values, dtype=np.float64) for values in (actual, mean, std))
    dots, _ = drawn_rows(actual.size, BAND_DOTS)
    few = actual.size <= ERROR_BAR_ROWS
    figure = go.Figure()
    figure.add_scatter(
        x=actual[dots], y=mean[dots], mode="markers", name="each row: latent mean ± sd" if few else "each row",
        marker={"size": 8 if few else 5, "color": OKABE_ITO["bluish green"], "opacity": 1.0 if few else 0.5},
        error_y={"type": "data", "array": std[dots], "thickness": 1.5, "visible": few},
    )  # fmt: skip
    figure.update_layout(
        title=title,
        xaxis_title=f"actual {xaxis}",
        yaxis_title="latent f (the GP's own scale, no unit)",
        showlegend=True,
        legend=LEGEND_ABOVE,
    )
    n_bins = min(BAND_BINS, actual.size // BAND_ROWS)
    if n_bins < 2:
        return styled(figure)
    edges = np.unique(np.quantile(actual, np.linspace(0, 1, n_bins + 1)))
    bins = np.clip(np.searchsorted(edges, actual, side="right") - 1, 0, max(len(edges) - 2, 0))
    counts = np.bincount(bins)
    filled = counts > 0
    centre = (np.bincount(bins, actual) / np.maximum(counts, 1))[filled]
    average = (np.bincount(bins, mean) / np.maximum(counts, 1))[filled]
    spread = (np.bincount(bins, std) / np.maximum(counts, 1))[filled]
    figure.add_scatter(
        x=np.concatenate([centre, centre[::-1]]),
        y=np.concatenate([average + spread, (average - spread)[::-1]]),
        mode="lines",  # no markers (plotly's default for a short trace drew one in the legend)
        fill="toself",
        fillcolor="rgba(0, 158, 115, 0.2)",  # bluish green, faint (blue is SVR's)
        line={"width": 0},
        name="± latent sd (bin average)",
        hoverinfo="skip",
    )
    figure.add_scatter(
        x=centre, y=average, mode="lines+markers", name="latent mean (bin average)", line={"color": OKABE_ITO["black"]}
    )
    return styled(figure)


def whole_numbers(axis_length: int) -> dict:
    """An axis of counts (answers, model runs): whole-number ticks with separators, at most about ten,
    a step of 1, 2 or 5 times a power of ten (never 1.5 runs)."""
    rung = 0  # steps 1, 2, 5, 10, 20, 50, …
    while axis_length / ((1, 2, 5)[rung % 3] * 10 ** (rung // 3)) > 10:
        rung += 1
    step = (1, 2, 5)[rung % 3] * 10 ** (rung // 3)
    return {"tickmode": "linear", "tick0": 0, "dtick": step, "tickformat": ",d"}


def mae_axis(name: str, unit: str | None) -> str:
    """An MAE axis's title: in the target's ``unit`` (its column's name), and that it does not start at 0
    (plotly's range fits the data: a new user read a change of 4 from 58.5 up as large)."""
    return f"{name}{'' if unit is None else f', {unit}'} (axis not from 0)"


def mae_history_figure(runs: pd.DataFrame, unit: str | None = None) -> go.Figure:
    """Test MAE of SVR and SSL at each of the session's model runs (``runs``, the store's, oldest first:
    run 1, 2, …), in ``unit``; the preferences and answers each run had show on hover."""
    metrics = pd.DataFrame(runs["metrics"].tolist(), columns=["svr_mae", "ssl_mae", "answers"])
    run = np.arange(1, len(runs) + 1)
    answers = metrics["answers"].fillna(-1).to_numpy(dtype=np.int64)
    held = np.column_stack([runs["n_preferences"].to_numpy(dtype=np.int64), answers])
    hover = "run %{x}: MAE %{y:,.4~r}<br>%{customdata[0]:,} preferences, %{customdata[1]:,} answers<extra></extra>"
    figure = go.Figure()
    for name, column, colour in (("SVR", "svr_mae", SVR_COLOUR), ("SSL", "ssl_mae", SSL_COLOUR)):
        figure.add_scatter(
            x=run, y=metrics[column], mode="lines+markers", name=name, line={"color": colour},
            customdata=held, hovertemplate=f"{name}, {hover}",
        )  # fmt: skip
    figure.update_layout(title="Test MAE at each model run (demo)", xaxis_title="model run (one per retrain)",
                         yaxis_title=mae_axis("test MAE", unit), legend=LEGEND_ABOVE)  # fmt: skip
    styled(figure)
    figure.update_xaxes(**whole_numbers(len(run)), range=[0.5, len(run) + 0.5])
    return figure


def answers_bought_figure(
    runs: pd.DataFrame, curve, label_cost: float, n_labeled: int, unit: str | None = None
) -> go.Figure | None:
    """The session's cross-validated MAE against the number of answers given (skips apart: runs recorded
    before they were counted apart include them): SSL's at each retrain under
    automatic trust (``runs``, the store's model runs, whose metrics hold answers, cv_svr_mae and
    cv_ssl_mae), SVR's, and the labels-instead estimate: SVR's scaled by its learning curve (``LabelCurve``)
    at l + answers / label_cost labels; MAEs in ``unit``.  None when no run was cross-validated."""
    metrics = pd.DataFrame([m for m in runs["metrics"] if m.get("cv_ssl_mae") is not None and "answers" in m])
    if metrics.empty:
        return None
    metrics = metrics.drop_duplicates("answers", keep="last").sort_values("answers")
    answers = metrics["answers"].to_numpy(dtype=np.float64)
    svr = metrics["cv_svr_mae"].to_numpy(dtype=np.float64)
    if answers[0] > 0:  # SVR's and the labels' lines start where the session did, at 0 answers (no answer moves SVR)
        answers, svr = np.r_[0.0, answers], np.r_[svr[0], svr]
    figure = go.Figure()
    # Markers on every line: a first run is one point, and a line of one point draws nothing (nor widens the axis).
    figure.add_scatter(x=metrics["answers"], y=metrics["cv_ssl_mae"], mode="lines+markers",
                       name="SSL (labels + preferences)", line={"color": SSL_COLOUR})  # fmt: skip
    figure.add_scatter(x=answers, y=svr, mode="lines+markers", name="SVR (labels alone)",
                       line={"dash": "dash", "color": SVR_COLOUR})  # fmt: skip
    if curve is not None:
        instead = svr * curve.ratio(n_labeled + answers / label_cost)
        figure.add_scatter(x=answers, y=instead, mode="lines+markers",
                           name=f"labels instead (1 per {label_cost:g} answers)", line={"dash": "dot"})  # fmt: skip
    figure.update_layout(
        title="What the answers bought (cross-validated on the labels)",
        xaxis_title="answers given (a, b or about equal; skips not counted)",
        yaxis_title=mae_axis("cross-validated MAE", unit),
        legend=LEGEND_ABOVE,
    )
    styled(figure)
    figure.update_xaxes(**whole_numbers(int(answers.max()) if answers.size else 1))
    return figure


def tube_against_figure(actual, predicted, epsilon: float, title: str, xaxis: str) -> go.Figure:
    """Predicted ± ε (error bars) against actual (n,), rows inside the tube and outside it apart, with
    the diagonal: a row is covered when its bar crosses the diagonal."""
    actual, predicted = np.asarray(actual, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    inside = np.abs(predicted - actual) <= epsilon
    figure = go.Figure()
    rows, sampled = drawn_rows(actual.size)
    drawn = np.zeros(actual.size, dtype=bool)
    drawn[rows] = True
    sides = ((inside, "within ε", OKABE_ITO["bluish green"]), (~inside, "outside ε", OKABE_ITO["orange"]))
    for mask, name, colour in sides:  # named by every row's count, drawn on the sample's
        figure.add_scatter(
            x=actual[mask & drawn],
            y=predicted[mask & drawn],
            mode="markers",
            name=f"{name} ({int(mask.sum())})",
            marker={"color": colour, "size": 5},
            error_y={"type": "constant", "value": epsilon, "thickness": 1, "color": colour},
        )
    ends = [min(actual.min(), predicted.min()), max(actual.max(), predicted.max())]
    figure.add_scatter(x=ends, y=ends, mode="lines", name="y = f", line={"dash": "dot", "color": "black"})
    figure.update_layout(title=title + sampled, xaxis_title=xaxis, yaxis_title="prediction ± ε", legend=LEGEND_ABOVE)
    return styled(figure)


def confusion_figure(confusion, grades) -> go.Figure:
    """A confusion matrix (K, K) of grades as a heatmap: true grade by row, predicted by column, each
    cell's count written in it."""
    labels = [str(grade) for grade in grades]
    figure = go.Figure(
        go.Heatmap(
            z=confusion, x=labels, y=labels, colorscale="Blues", text=confusion, texttemplate="%{text}", showscale=False
        )
    )
    figure.update_layout(
        xaxis=dict(title="predicted grade (cross-validated)", type="category"),
        yaxis=dict(title="given grade", type="category", autorange="reversed"),
        margin=dict(t=30),
        height=320,
    )
    return figure
