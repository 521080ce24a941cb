"""Order Preference Studio: teach a regression model what you know about order.

Run with ``streamlit run app.py``."""

import streamlit as st

st.set_page_config(page_title="Order Preference Studio", page_icon="↕️", layout="wide")

pages = [
    st.Page("pages/toy_cubic.py", title="Toy cubic", icon="📈", default=True),
]
st.navigation(pages).run()
