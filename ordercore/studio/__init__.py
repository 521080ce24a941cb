"""The Studio's engine, with no Streamlit: a session's data, store, models, background jobs, ratings,
shared queue, files and figures, and the teaching demo."""
