"""Plotly figures of ordercore results, shared by the app's pages and the command line."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ordercore.toy_cubic import DOMAIN, GRID, ToyFit, cubic_target


def toy_cubic_figure(training_x, pairs, fit: ToyFit) -> go.Figure:
    """Seed 000 Fig. 1: target (dotted), training points (circles), SVR (dashed), SSL (solid), and
    each preference as two dots joined by a line below the curves, the larger value the larger dot."""
    training_x = np.asarray(training_x, dtype=np.float64)
    truth = cubic_target(GRID)
    figure = go.Figure()
    figure.add_scatter(x=GRID, y=truth, name="target", mode="lines", line=dict(dash="dot", color="black"))
    figure.add_scatter(
        x=GRID, y=fit.svr, name="SVR (labels only)", mode="lines", line=dict(dash="dash", color="#1f77b4")
    )
    figure.add_scatter(
        x=GRID, y=fit.ssl, name="SSL (labels + preferences)", mode="lines", line=dict(color="#d62728", width=3)
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
    return figure
