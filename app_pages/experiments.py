"""Experiments: the papers' protocols (Table 1, Fig. 2, the bedroom rule) on their data sets with a progress
bar, or a saved result file opened and plotted; what each protocol does, and the command that runs it on
one's own table."""

import json
import time

import pandas as pd
import streamlit as st

import app_state
from ordercore.data.benchmarks import BENCHMARKS, load_dataset
from ordercore.experiments.bedroom import bedroom_rule
from ordercore.experiments.figures import mae_units, sweep_figure
from ordercore.experiments.protocol import Protocol
from ordercore.experiments.results import read_result, run_experiment
from ordercore.experiments.table1 import SWEEPS
from ordercore.studio.data import available_sources
from ordercore.studio.figures import against_figure
from ordercore.studio.numbers import counted, significant, work_done
from ordercore.studio.own_table import session_commands
from ordercore.studio.verdicts import trials_verdict

MAX_RESULT_BYTES = 20 * 1024 * 1024

ABOUT = (
    "Reproduces the papers' experiments on their data sets (Boston, Abalone, California): how much order "
    "preferences lower the test error there, and a check of this code against the published numbers "
    "(docs/REPRODUCTION.md). Each trial draws l labeled and u unlabeled rows at random and compares SVR (labels "
    "only) with SSL (labels and preferences) by test MAE on the other rows. **Table 1**: Goldberg and Zhu's "
    "main table (1-norm SVR against SSL): SSL's preferences come from the true target of unlabeled rows (a "
    "simulated expert who is always right). **Fig. 2 sweep**: the same, repeated as one setting varies (the "
    "number of preferences p, of labels l, or the margin's β). **Bedroom rule**: Zhu and Goldberg's (AAAI 2007) "
    "rule on California (of two blocks within 25 miles, of similar age and income, the one with more bedrooms, "
    "read as you choose, is worth more), weighed by automatic trust."
)
# What the page reproduces and why one would run it (new-user pass 10, Minor 9: it was only controls); a
# comment, not a docstring: Streamlit would draw a bare string.

OWN_TABLE = (
    "These run on the papers' data sets only: Table 1's simulated expert reads the target of every row it "
    "compares, which a table of one's own rarely has. To run the same protocols on your session's table (its rows "
    "with a target), use the command line in the folder that holds it, then open the result file in the next tab:"
)
RULES_COMMAND = "or, with your session's rules (exported on Rules, *Export and import*):"
# Why the page offers no session table; the commands that run the protocols on it follow, filled in from the
# session (ordercore.studio.own_table).


def show(result: dict, prefix: str) -> None:
    if result.get("experiment") == "figure2":
        st.plotly_chart(sweep_figure(result), key=f"{prefix}_sweep")
        return
    summary, units = result["summary"], mae_units(result)
    st.caption(
        f"Test MAE in {units}, the mean over {counted(len(result['trials']), 'trial')}. p (paired t-test): how often "
        "chance alone would make a difference this large if neither model were better."
    )
    cells = st.columns(4)
    cells[0].metric("SVR test MAE", significant(summary["svr_mae_mean"]), help=f"In {units}.")
    cells[1].metric("SSL test MAE", significant(summary["ssl_mae_mean"]), help=f"In {units}.")
    cells[2].metric("Improvement", f"{100 * summary['improvement']:.1f}%", help="(SVR − SSL) / SVR, test MAE.")
    p_value = summary.get("p_value")
    cells[3].metric(
        "p (paired t-test)",
        "—" if p_value is None else significant(p_value, 2),
        help="The p-value of a paired t-test: the chance of a difference between SSL and SVR at least this large "
        "over these trials if neither were better (Student's t on the difference of the two in each trial, the "
        "trials paired because both models see the same split); below 0.05: more than chance explains.",
    )
    kind, words = trials_verdict(summary["improvement"], p_value, len(result["trials"]))
    getattr(st, kind)(words)
    trials = pd.DataFrame(result["trials"])
    figure = against_figure(
        trials["svr_mae"],
        {"trials": trials["ssl_mae"]},
        "Test MAE per trial (below the line: SSL better)",
        f"SVR's test MAE ({units})",
        f"SSL's test MAE ({units})",
        diagonal="SSL = SVR",
    )
    st.plotly_chart(figure, key=f"{prefix}_trials_chart")


def run(kind: str, dataset: str, trials: int, quick: bool, extra: dict) -> dict:
    bar, start = st.progress(0.0, text="Starting…"), time.monotonic()

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=work_done(done, total, time.monotonic() - start, "trials"))

    if kind == "bedroom":
        rules = (bedroom_rule(extra["reading"]).to_dict(),)
        protocol = Protocol.for_benchmark("california", quick=quick, rules=rules, tune="trust")
        return run_experiment(kind, load_dataset("california"), "california", protocol, trials, progress=progress)
    protocol = Protocol.for_benchmark(dataset, quick=quick)
    return run_experiment(
        kind, load_dataset(dataset), dataset, protocol, trials, progress=progress, vary=extra.get("vary")
    )


def main() -> None:
    st.title("Experiments")
    st.markdown(ABOUT)
    table1, rules = session_commands(app_state.engine())
    st.info(OWN_TABLE)
    st.code(table1, language="bash")
    st.caption(RULES_COMMAND)
    st.code(rules, language="bash")
    run_tab, open_tab = st.tabs(["Run", "Open a result file"])
    with run_tab:
        run_section()
    with open_tab:
        open_section()


def run_section() -> None:
    """The protocols, run on the benchmark data sets ORDERCORE_DATA holds (none: what to do)."""
    datasets = [source for source in available_sources() if source in BENCHMARKS]
    if not datasets:
        st.info("The experiments run on the benchmark data sets: set ORDERCORE_DATA to their directory.")
        return
    kind = st.radio(
        "Protocol",
        ["table1", "figure2", "bedroom"],
        key="experiment_kind",
        horizontal=True,
        format_func={"table1": "Table 1", "figure2": "Fig. 2 sweep", "bedroom": "Bedroom rule (California)"}.get,
    )
    dataset = st.selectbox("Data set", datasets, key="experiment_dataset", disabled=kind == "bedroom")
    extra = {}
    if kind == "figure2":
        extra["vary"] = st.selectbox("Vary", sorted(SWEEPS), key="experiment_vary")
    if kind == "bedroom":
        extra["reading"] = st.selectbox(
            "Bedrooms read as", ["per_person", "total", "per_household"], key="experiment_reading"
        )
    trials = st.number_input("Trials", 1, 50, 2, key="experiment_trials")
    quick = st.checkbox("Quick (3 × 3 grid, 3 folds)", True, key="experiment_quick")
    if st.button("Run", type="primary", key="experiment_run"):
        try:
            st.session_state.experiment_result = run(kind, dataset, int(trials), quick, extra)
        except (FileNotFoundError, ValueError) as error:
            st.error(f"Could not run: {error}")
    if "experiment_result" in st.session_state:
        result = st.session_state.experiment_result
        show(result, "experiment_run")
        st.download_button(
            "Download the result (JSON)",
            json.dumps(result, indent=1),
            file_name=f"{result['experiment']}.json",
            key="experiment_download",
        )


def open_section() -> None:
    """A result file opened and plotted, or what is wrong with it in one line."""
    file = st.file_uploader(
        "Result JSON written by `python -m ordercore experiments`", type=["json"], key="experiment_file"
    )
    if file is not None:
        try:
            if file.size > MAX_RESULT_BYTES:
                raise ValueError("the file is larger than 20 MB")
            result = read_result(file.getvalue())
        except ValueError as error:
            st.error(f"Could not open this file: {error}.")
        else:
            show(result, "experiment_file")


main()
