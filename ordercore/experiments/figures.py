"""Plotly figures of the experiments, shared by the Experiments page and the command line."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ordercore.data.benchmarks import BENCHMARKS
from ordercore.experiments.mpmr import SincDemo, sinc
from ordercore.studio.figures import OKABE_ITO, SSL_COLOUR, SVR_COLOUR, styled

SWEEP_TITLES = {
    "p": "number of preferences p",
    "l": "number of labeled points l",
    "beta": "β in f(x_i) − f(x_j) ≥ β(y_i − y_j)",
}


def mae_units(result: dict) -> str:
    """What a result's MAEs are in: its benchmark's target and units ('medv, thousands of USD'), else the
    target's own units (a table of one's own, run from the command line)."""
    spec = BENCHMARKS.get(result.get("dataset"))
    return f"{spec.target}, {spec.units}" if spec else "the target's units"


def sweep_figure(result: dict) -> go.Figure:
    """Seed 001 Fig. 2: test MAE (mean ± std over trials) of SVR and SSL against the varied parameter."""
    values = [point["value"] for point in result["points"]]
    figure = go.Figure()
    for model, colour, dash in (("svr", SVR_COLOUR, "dash"), ("ssl", SSL_COLOUR, "solid")):
        figure.add_scatter(
            x=values,
            y=[point[f"{model}_mae_mean"] for point in result["points"]],
            name=model.upper(),
            mode="lines+markers",
            line=dict(color=colour, dash=dash),
            error_y=dict(type="data", array=[point[f"{model}_mae_std"] for point in result["points"]], visible=True),
        )
    figure.update_layout(
        title=f"{result['dataset']}: test MAE as {SWEEP_TITLES[result['vary']]} varies",
        xaxis=dict(title=SWEEP_TITLES[result["vary"]], type="log" if result["vary"] == "p" else "linear"),
        yaxis=dict(title=f"test mean absolute error ({mae_units(result)})"),
        margin=dict(t=50),
    )
    return styled(figure)


def session_figure(result: dict) -> go.Figure:
    """``experiments session``'s learning curves: each arm's mean test MAE against the expert's answers,
    SVR's (the labels alone, the same in every arm) dashed."""
    figure = go.Figure()
    first = next(iter(result["arms"].values()))["checkpoints"]
    figure.add_scatter(
        x=[c["answers"] for c in first], y=[c["svr_mae"] for c in first], name="SVR (labels alone)",
        mode="lines", line=dict(color=SVR_COLOUR, dash="dash"),
    )  # fmt: skip
    for label, arm in result["arms"].items():
        points = arm["checkpoints"]
        figure.add_scatter(
            x=[c["answers"] for c in points], y=[c["ssl_mae"] for c in points], name=label, mode="lines+markers"
        )
    figure.update_layout(
        title=f"{result['dataset']}: what the expert's answers buy",
        xaxis=dict(title="answers (a label costs its label cost in answers)"),
        yaxis=dict(title="test mean absolute error (mean over trials)"),
        margin=dict(t=50),
    )
    return styled(figure)


def write_figure(figure: go.Figure, path) -> None:
    """Write ``figure`` as HTML (.html) or an image (.png, .svg, .pdf: needs the kaleido package)."""
    path = str(path)
    if path.endswith(".html"):
        figure.write_html(path, include_plotlyjs="cdn")
    else:
        try:
            figure.write_image(path)
        except (ValueError, ImportError, RuntimeError) as error:
            raise SystemExit(f"could not write {path}: {error} (images need the kaleido package; use .html)") from None


def sinc_tube_figure(demo: SincDemo, epsilon: float) -> go.Figure:
    """The sinc toy: noisy training points, sin(πx)/(πx), the MPMR fit and its tube ± ε."""
    figure = go.Figure()
    figure.add_scatter(
        x=np.concatenate([demo.grid, demo.grid[::-1]]),
        y=np.concatenate([demo.fit + epsilon, (demo.fit - epsilon)[::-1]]),
        fill="toself",
        fillcolor="rgba(204, 121, 167, 0.2)",
        line={"width": 0},
        name="MPMR ± ε",
        hoverinfo="skip",
    )
    figure.add_scatter(x=demo.x, y=demo.y, mode="markers", name="training points", marker={"color": "gray"})
    figure.add_scatter(x=demo.grid, y=sinc(demo.grid), name="sin(πx)/(πx)", line={"dash": "dot", "color": "black"})
    figure.add_scatter(x=demo.grid, y=demo.fit, name="MPMR", line={"color": OKABE_ITO["reddish purple"], "width": 3})
    figure.update_layout(xaxis_title="x", yaxis_title="y", legend={"orientation": "h", "y": -0.15}, margin={"t": 30})
    return styled(figure)


def coverage_curve_figure(demo: SincDemo, epsilon: float) -> go.Figure:
    """Against ε: the paper's bound Ω, the measured coverage of fresh noisy points, and the cross-
    validated estimate; a vertical line at the chosen ε."""
    epsilons = np.linspace(0.01, 2.0, 200)
    figure = go.Figure()
    figure.add_scatter(x=epsilons, y=demo.coverage(epsilons), name="measured coverage", line={"color": "black"})
    figure.add_scatter(
        x=epsilons, y=demo.omega(epsilons), name="Ω (the paper's bound)", line={"color": OKABE_ITO["reddish purple"]}
    )
    figure.add_scatter(
        x=epsilons,
        y=demo.cv_coverage(epsilons),
        name="cross-validated estimate",
        line={"dash": "dash", "color": OKABE_ITO["bluish green"]},
    )
    figure.add_vline(x=epsilon, line={"dash": "dot", "color": "gray"})
    figure.update_layout(
        xaxis_title="ε", yaxis_title="P(|f − y| ≤ ε)", yaxis_range=[0, 1.02], legend={"orientation": "h", "y": -0.2}
    )
    return styled(figure)


def dcd_figure(result: dict) -> go.Figure:
    """Seed 004 Fig. 4: each solver's relative difference to the dual optimum (eq. (39)) against its
    training time after every sweep, one line per trial, both axes logarithmic (differences of 0, the
    optimum itself to rounding, cannot be drawn there and are left out)."""
    figure = go.Figure()
    colours = {"dcd1": OKABE_ITO["orange"], "dcd2": OKABE_ITO["bluish green"]}
    for solver, colour in colours.items():
        for row in result["trials"]:
            seconds, difference = (np.array(row[solver][key]) for key in ("seconds", "relative_difference"))
            shown = difference > 0
            figure.add_scatter(
                x=seconds[shown], y=difference[shown], name=solver.upper().replace("DCD", "DCD-"), mode="lines",
                line={"color": colour}, legendgroup=solver, showlegend=row["trial"] == 0,
            )  # fmt: skip
    figure.update_layout(
        title=f"{result['dataset']}, rank {result['rank']}: C = {result['protocol']['C1']:g}, "
        f"ε = {result['protocol']['epsilon']:g}",
        xaxis={"title": "training time (seconds)", "type": "log"},
        yaxis={"title": "(f(α) − f(α*)) / |f(α*)|", "type": "log"},
        margin={"t": 50},
    )
    styled(figure)
    figure.update_xaxes(exponentformat="power")
    figure.update_yaxes(exponentformat="power")
    return figure
