"""Run inside a clean virtual environment holding only the built wheel and its core dependencies:
every core module imports, and the models fit a tiny problem.

Modules that need an extra are named here; any other module failing to import is a packaging
fault (a subpackage left out of the wheel, or a core module importing an extra's package)."""

import importlib
import pkgutil
import sys

import numpy as np

import ordercore
from ordercore import NPSVOR, GPPreferenceModel, MPMRegressor, OrderPreferenceRegressor, PreferenceSet

NEEDS_EXTRA = {
    "ordercore.studio.store": "app (sqlalchemy), with every module of the package",
    "ordercore.studio.session_files": "app (sqlalchemy: it checks files against the store it imports into)",
    "ordercore.studio.data_choice": "app (sqlalchemy: it writes the session's data choice to the store)",
    "ordercore.studio.session": "app (sqlalchemy: the session engine works over the store)",
    "ordercore.studio.held_pairs": "app (sqlalchemy: it draws through the session engine)",
    "ordercore.studio.workspace": "app (sqlalchemy: the engines of a store)",
    "ordercore.studio.own_table": "app (sqlalchemy: it names the session's rules export, session_files)",
    "ordercore.studio.figures": "app (plotly)",
    "ordercore.experiments.figures": "app (plotly)",
}

if "site-packages" not in ordercore.__file__:
    sys.exit(f"ordercore was imported from {ordercore.__file__}, not from the installed wheel")
imported = []
for module in pkgutil.walk_packages(ordercore.__path__, "ordercore."):
    if any(module.name == name or module.name.startswith(name + ".") for name in NEEDS_EXTRA):
        continue
    if module.name == "ordercore.__main__":
        continue
    importlib.import_module(module.name)
    imported.append(module.name)
for name in ("streamlit", "plotly", "sqlalchemy", "pytest"):
    if importlib.util.find_spec(name) is not None:
        sys.exit(f"{name} is installed with the core dependencies; it belongs to an extra")

X = np.random.default_rng(0).normal(size=(8, 2))
y = np.array([1.0, np.nan, 0.0, np.nan, 2.0, np.nan, np.nan, 0.5])
preferences = PreferenceSet.order(i=[1, 3, 5], j=[3, 5, 6])
lp = OrderPreferenceRegressor(gamma=0.5).fit(X, y, preferences)
gp = GPPreferenceModel(n_restarts=0).fit(X, preferences)
assert np.all(np.isfinite(lp.predict(X))) and np.all(np.isfinite(gp.predict(X)))
labeled = ~np.isnan(y)
mpmr = MPMRegressor(gamma=0.5, epsilon=0.5).fit(X[labeled], y[labeled])
assert np.all(np.isfinite(mpmr.predict(X))) and 0 < mpmr.omega_ <= 1
npsvor = NPSVOR(random_state=0).fit(X, np.searchsorted([-0.5, 0.5], X[:, 0]))  # numba compiles in the wheel
assert set(npsvor.predict(X)) <= {0, 1, 2}
print(f"wheel: {len(imported)} core modules import; the LP, the GP, MPMR and NPSVOR fit ({ordercore.__file__})")
