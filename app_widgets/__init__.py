"""Widgets of the Studio that Streamlit does not have, each a component of its own (no network: its
HTML, CSS and JavaScript are served by the app)."""
