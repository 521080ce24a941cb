"""Gaussian-process preference learning (Chu & Ghahramani, ICML 2005 — seed 002)."""
