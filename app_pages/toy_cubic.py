"""Toy cubic: watch order preferences pull a three-point fit towards the target (seed 000 Fig. 1)."""

import numpy as np
import streamlit as st

from ordercore.figures import toy_cubic_figure
from ordercore.toy_cubic import DOMAIN, ToyCubicDemo, fit_toy

LAMBDA1_CHOICES = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]
LAMBDA2_CHOICES = [0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0]


@st.cache_data(max_entries=64)
def cached_fit(training_x: tuple, pairs: tuple, kernel: str, lambda1: float, lambda2: float):
    return fit_toy(np.array(training_x), list(pairs), kernel, lambda1, lambda2)


def new_draw() -> None:
    st.session_state.toy_seed += 1
    st.session_state.toy_demo = ToyCubicDemo.draw(st.session_state.toy_seed)


def main() -> None:
    if "toy_seed" not in st.session_state:
        st.session_state.toy_seed = 0
        st.session_state.toy_demo = ToyCubicDemo.draw(0)
        st.session_state.toy_rng = np.random.default_rng(0)
    demo: ToyCubicDemo = st.session_state.toy_demo

    st.title("Toy cubic")
    st.caption(
        "Three labeled points cannot pin down a cubic. Tell the model which of two x values has the "
        "higher target, without saying by how much, and watch the SSL fit (solid) leave SVR (dashed)."
    )

    controls, plot = st.columns([1, 3])
    with controls:
        kernel = st.radio(
            "Kernel",
            ["poly", "rbf", "linear"],
            key="toy_kernel",
            horizontal=True,
            help="poly: (x·x' + 1)³; rbf: exp(-|x - x'|²); linear: x·x'",
        )
        lambda1 = st.select_slider("λ1 (1-norm of α)", LAMBDA1_CHOICES, value=1e-3, key="toy_lambda1")
        lambda2 = st.select_slider("λ2 (weight of preferences)", LAMBDA2_CHOICES, value=1.0, key="toy_lambda2")
        st.divider()
        if st.button("Add a random preference", key="toy_add_random", type="primary", width="stretch"):
            demo.add_random_pair(st.session_state.toy_rng)
        x_a = st.number_input("x of A", *DOMAIN, value=-0.15, step=0.05, key="toy_x_a")
        x_b = st.number_input("x of B", *DOMAIN, value=0.30, step=0.05, key="toy_x_b")
        if st.button("Add A vs B in their true order", key="toy_add_pair", width="stretch"):
            try:
                demo.add_pair(x_a, x_b)
            except ValueError as error:
                st.error(f"{error}. Pick two different x values.")
        undo, clear = st.columns(2)
        if undo.button("Undo last", key="toy_undo", disabled=not demo.pairs, width="stretch"):
            demo.pairs.pop()
        if clear.button("Clear all", key="toy_clear", disabled=not demo.pairs, width="stretch"):
            demo.pairs.clear()
        st.button("New random draw", key="toy_new_draw", on_click=new_draw, width="stretch")

    fit = cached_fit(tuple(demo.training_x), tuple(demo.pairs), kernel, lambda1, lambda2)
    with plot:
        counts = st.columns(4)
        counts[0].metric("Preferences", len(demo.pairs))
        counts[1].metric("Violated by SVR", fit.svr_violated)
        counts[2].metric("Violated by SSL", fit.ssl_violated)
        counts[3].metric(
            "Error to target (SSL)",
            f"{fit.ssl_error:.3f}",
            delta=f"{fit.ssl_error - fit.svr_error:+.3f} vs SVR",
            delta_color="inverse",
        )
        st.plotly_chart(toy_cubic_figure(demo.training_x, demo.pairs, fit), key="toy_chart")


main()
