"""The model registry: a toy family, registered by a test, reaches every reader of the families (the
Model page and the Workbench, the Ratings models, ``fit --model``, the experiments, model files), each
checked against an independent fit (scikit-learn's ridge regression and logistic regression); once it
is unregistered, none of them knows it.  Also what ``register`` refuses, and MPMR's intervals on the
command line."""

from numbers import Real

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

import ordercore
from ordercore import ModelFileError, PreferenceSet
from ordercore.cli.main import main
from ordercore.cli.parser import parser
from ordercore.cli.tabular import table_models
from ordercore.data.tables import prepare
from ordercore.experiments.protocol import Protocol, run_trial, split, trial_families
from ordercore.models.files import read_model, save_model
from ordercore.models.registry import (
    Grading,
    Learns,
    ModelFamily,
    Offer,
    Setting,
    families,
    family,
    register,
    registered,
    unregister,
)
from ordercore.mpmr.estimator import MPMRegressor
from ordercore.studio.data import SAMPLE_FEATURES, SAMPLE_PATH, study_data
from ordercore.studio.ratings import RatingModel, rating_models, sureness, table_items
from ordercore.studio.training import ModelSettings
from ordercore.studio.workbench import Workbench, studio_models
from tests.studio_app import answer_button, engine, metric


class LeastSquares(RegressorMixin, BaseEstimator):
    """f(x) = w·x + b by least squares on the labeled rows with the ridge penalty lambda1 ||w||²
    (b free); preferences are taken and ignored.  gamma, lambda2, centers and time_limit are the
    parameters the Workbench and the seeds' protocol pass, unused."""

    _parameter_constraints: dict = {
        "gamma": [None, Interval(Real, 0, None, closed="neither")],
        "lambda1": [Interval(Real, 0, None, closed="left")],
        "lambda2": [Interval(Real, 0, None, closed="left")],
        "centers": [StrOptions({"labeled", "all"})],
        "time_limit": [None, Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, gamma=None, lambda1=1.0, lambda2=1.0, centers="labeled", time_limit=None):
        self.gamma, self.lambda1, self.lambda2, self.centers, self.time_limit = (
            gamma,
            lambda1,
            lambda2,
            centers,
            time_limit,
        )

    def fit(self, X, y, preferences=None):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        labeled = ~np.isnan(y)
        d = X.shape[1]
        # min ||[X 1][w; b] - y||² + lambda1 ||w||²: least squares on rows stacked with sqrt(lambda1) [I 0]
        A = np.vstack([np.column_stack([X[labeled], np.ones(labeled.sum())]), np.sqrt(self.lambda1) * np.eye(d, d + 1)])
        solution = np.linalg.lstsq(A, np.concatenate([y[labeled], np.zeros(d)]), rcond=None)[0]
        self.coef_, self.intercept_, self.n_features_in_, self._X = solution[:d], float(solution[d]), d, X
        self.solve_time_, self.solve_start_ = 0.0, "cold"
        return self.update_preferences(PreferenceSet.empty() if preferences is None else preferences)

    def update_preferences(self, preferences):
        self.preferences_ = preferences
        self.n_violated_ = int(self.violated(preferences).sum())
        return self

    def predict(self, X):
        check_is_fitted(self)
        return np.asarray(X, dtype=float) @ self.coef_ + self.intercept_

    def violated(self, preferences):
        return preferences.violated(self.predict(self._X))

    def suggest_pairs(self, candidate_pairs, k=1, *, reference=None):
        return np.asarray(candidate_pairs)[:k]

    _saved_arrays = {"coef": ("float64", ("n_features",))}
    _saved_scalars = {"intercept": float}

    def _saved_state(self):
        return {"coef": self.coef_}, {"intercept": self.intercept_}

    def _restore_state(self, arrays, scalars):
        self.coef_, self.intercept_ = arrays["coef"], scalars["intercept"]

    def save(self, path, preprocessing=None, metadata=None):
        save_model(path, self, preprocessing, metadata)


TOY = ModelFamily(
    key="toy",
    label="Toy least squares",
    estimator=LeastSquares,
    learns={Learns.LABELS, Learns.PREFERENCES, Learns.GRADES},
    offers={Offer.UPDATE_PREFERENCES, Offer.SUGGEST_PAIRS, Offer.TIME_LIMIT, Offer.SEEDS_PROTOCOL},
    studio_settings={"lambda1": Setting((0.1, 1.0, 10.0), "toy λ1")},
    saved=(LeastSquares,),
    grading=Grading(
        label="Toy logistic grades",
        estimator=LogisticRegression,
        parameters={"C": 1.0},
        rank=lambda scores: np.argmax(scores, axis=1),
        sureness=lambda scores: -np.max(scores, axis=1),
        sparse=True,
    ),
)


@pytest.fixture
def toy():
    with registered(TOY):
        yield TOY
    assert "toy" not in families()


def ridge(X, y, lambda1):
    """The same fit by scikit-learn: Ridge minimises ||y - Xw - b||² + alpha ||w||², b unpenalised."""
    labeled = ~np.isnan(y)
    return Ridge(alpha=lambda1).fit(X[labeled], y[labeled])


@pytest.fixture(scope="module")
def data():
    frame = pd.read_csv(SAMPLE_PATH).iloc[:200].reset_index(drop=True)
    return study_data(frame, "price", SAMPLE_FEATURES, {"n_labeled": 30, "test_fraction": 0.2, "seed": 3})


def test_the_workbench_fits_and_updates_a_registered_family(toy, data):
    assert studio_models()["toy"] is toy
    assert toy.settings({"lambda1": 10.0}) == {"lambda1": 10.0}
    assert toy.settings({"lambda1": 1e-3, "gamma": 0.1}) == {"lambda1": 1.0}  # not offered: the default
    bench = Workbench(data, "toy", {"lambda1": 10.0})
    X, y = data.dataset.X, data.y_train()
    expected = ridge(X, y, 10.0).predict(X[data.test])
    np.testing.assert_allclose(bench.svr_test, expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())
    preferences = PreferenceSet.order(data.pool[:4], data.pool[4:8])
    report = bench.update(preferences)
    assert report.fitted == 4 and report.start == "cold" and bench.ssl.time_limit == bench.time_limit
    report = bench.update(preferences[:2])  # through update_preferences
    assert report.fitted == 2 and bench.ssl.preferences_ == preferences[:2]
    np.testing.assert_allclose(bench.ssl_test, expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())
    assert not bench.trust_applies and not ModelSettings("toy").trust_applies()


def test_the_model_page_offers_a_registered_family_and_trains_it(toy, ready):
    at = ready.switch_page("app_pages/model.py").run()
    assert not at.exception and "Toy least squares" in at.selectbox(key="model_select").options
    at.selectbox(key="model_select").set_value("toy").run()
    at.select_slider(key="model_toy_lambda1").set_value(10.0).run()
    assert not at.exception
    bench = engine(at).models.workbench
    assert bench.family is toy and isinstance(bench.svr, LeastSquares) and bench.svr.lambda1 == 10.0
    data = bench.data
    expected = ridge(data.dataset.X, data.y_train(), 10.0).predict(data.dataset.X[data.test])
    truth = data.y_true[data.test]
    assert metric(at, "Test MAE, SVR (demo)") == metric(at, "Test MAE, SSL (demo)")  # no preferences yet
    assert bench.svr_test == pytest.approx(expected, rel=1e-8)
    assert engine(at).models.history[-1]["svr_mae"] == pytest.approx(mean_absolute_error(truth, expected))
    at.switch_page("app_pages/pairwise.py").run()
    answer_button(at, "answer_a").click().run()
    at.switch_page("app_pages/model.py").run()  # automatic trust is on, but cannot cross-validate the toy
    assert not at.exception and metric(at, "Preferences") == "1" and engine(at).trust.status().state == "off"
    assert engine(at).models.workbench is bench and len(bench.ssl.preferences_) == 1


def test_the_ratings_models_include_a_registered_family_that_learns_grades(toy):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    grades = 1 + np.digitize(X @ [1.0, -1.0, 0.5], [-1.0, 0.0, 1.0])
    assert rating_models()["toy"] == "Toy logistic grades"
    rows = np.arange(40)
    model = RatingModel(table_items(X), "toy").fit(rows, grades[rows])
    reference = LogisticRegression(C=1.0).fit(X[rows], grades[rows])
    np.testing.assert_array_equal(model.predict(), reference.predict(X))
    np.testing.assert_allclose(sureness(model.scores(), "toy"), -reference.decision_function(X).max(axis=1))


def test_fit_model_accepts_a_registered_family_and_its_file_predicts_the_same(toy, tmp_path):
    assert "toy" in table_models()
    assert parser().parse_args(["fit", "t.csv", "--target", "y", "--model", "toy", "--out", "m.npz"]).model == "toy"
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)})
    frame["y"] = 2 * frame["a"] - frame["b"] + 0.1 * rng.normal(size=30)
    frame.loc[20:, "y"] = np.nan
    frame.to_csv(tmp_path / "t.csv", index=False)
    main(["fit", str(tmp_path / "t.csv"), "--target", "y", "--model", "toy", "--out", str(tmp_path / "m.npz")])
    main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "t.csv"), "--out", str(tmp_path / "p.csv")])
    written = pd.read_csv(tmp_path / "p.csv")
    X = prepare(frame, "y").X  # the command line's preprocessing: standardised features
    expected = ridge(X, frame["y"].to_numpy(), 1.0).predict(X)  # lambda1: the toy's default
    loaded = ordercore.load(tmp_path / "m.npz")
    assert isinstance(loaded, LeastSquares) and list(written.columns) == ["prediction"]
    np.testing.assert_allclose(written["prediction"], expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(loaded.predict(X), read_model(tmp_path / "m.npz").estimator.predict(X))
    np.testing.assert_allclose(loaded.predict(X), expected, rtol=1e-9, atol=1e-12)
    with pytest.raises(SystemExit, match="has no setting"):
        main(["fit", str(tmp_path / "t.csv"), "--target", "y", "--model", "toy", "--gamma", "1", "--out", "x.npz"])


def test_a_trial_runs_a_registered_family_as_svr_and_ssl(toy):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"])
    frame["y"] = frame["a"] + 0.2 * rng.normal(size=80)
    data = prepare(frame, "y")
    protocol = Protocol.create(20, 30, quick=True, model="toy")
    assert "toy" in trial_families() and protocol.norm is None
    [(_, result)] = run_trial(data, [("toy", protocol)], 0, 5)
    labeled, _, test = split(80, 20, 30, np.random.default_rng(np.random.SeedSequence(5).spawn(3)[0]))
    fitted = ridge(data.X[labeled], data.y[labeled], result.lambda1)
    assert result.lambda1 in protocol.grid and result.n_preferences == 1000
    assert result.svr_mae == pytest.approx(mean_absolute_error(data.y[test], fitted.predict(data.X[test])), rel=1e-9)
    assert result.ssl_mae == pytest.approx(result.svr_mae, rel=1e-12)  # the toy ignores preferences
    with pytest.raises(ValueError, match="tune 'svr'"):
        Protocol.create(20, 30, model="toy", tune="labels").check(80)


def test_model_files_hold_a_family_only_while_it_is_registered(tmp_path):
    X, y = np.arange(12.0).reshape(6, 2), np.arange(6.0)
    model = LeastSquares().fit(X, y)
    with registered(TOY):
        model.save(tmp_path / "toy.npz")
        np.testing.assert_array_equal(ordercore.load(tmp_path / "toy.npz").predict(X), model.predict(X))
    with pytest.raises(TypeError, match="cannot save a LeastSquares"):
        model.save(tmp_path / "again.npz")
    with pytest.raises(ModelFileError, match="unknown estimator class 'LeastSquares'"):
        ordercore.load(tmp_path / "toy.npz")
    assert "toy" not in studio_models() | table_models() | trial_families() | rating_models()


def test_register_refuses_a_taken_key_a_taken_class_name_and_inconsistent_declarations():
    with pytest.raises(ValueError, match="registered already"):
        register(ModelFamily("lp", "another LP", LeastSquares, {Learns.LABELS}))
    impostor = type("OrderPreferenceRegressor", (LeastSquares,), {})
    with pytest.raises(ValueError, match="saves a OrderPreferenceRegressor"):
        register(ModelFamily("impostor", "impostor", impostor, {Learns.LABELS}, saved=(impostor,)))
    with pytest.raises(ValueError, match="grades exactly when"):
        ModelFamily("toy2", "toy", LeastSquares, {Learns.GRADES})
    with pytest.raises(ValueError, match="no parameter"):
        ModelFamily("toy2", "toy", LeastSquares, {Learns.LABELS}, studio_settings={"C": Setting((1.0,), "C")})
    with registered(TOY):
        assert unregister("toy") is TOY and "toy" not in families()
    with pytest.raises(ValueError, match="unknown model family 'toy'"):
        family("toy")
    assert list(families()) == ["lp", "two_norm", "npsvor", "gp", "mpmr"]


def test_mpmr_on_the_command_line_writes_its_interval_and_takes_labels_only(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.uniform(-3, 3, size=40)})
    frame["y"] = np.sinc(frame["x"]) + 0.1 * rng.normal(size=40)
    frame.loc[30:, "y"] = np.nan
    frame.to_csv(tmp_path / "s.csv", index=False)
    main(["fit", str(tmp_path / "s.csv"), "--target", "y", "--model", "mpmr", "--out", str(tmp_path / "m.npz")])
    main(["predict", str(tmp_path / "m.npz"), str(tmp_path / "s.csv"), "--out", str(tmp_path / "p.csv")])
    written = pd.read_csv(tmp_path / "p.csv")
    X = prepare(frame, "y").X
    fitted = MPMRegressor().fit(X[:30], frame["y"][:30])  # the labeled rows, MPMR's defaults (epsilon 0.1)
    assert list(written.columns) == ["prediction", "lower", "upper"]
    np.testing.assert_allclose(written["prediction"], fitted.predict(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(written["upper"] - written["prediction"], 0.1, rtol=1e-9)
    np.testing.assert_allclose(written["prediction"] - written["lower"], 0.1, rtol=1e-9)
    pd.DataFrame({"i": [0], "j": [1]}).to_csv(tmp_path / "clicks.csv", index=False)
    with pytest.raises(SystemExit, match="learns from labels alone"):
        main(["fit", str(tmp_path / "s.csv"), "--target", "y", "--model", "mpmr", "--preferences",
              str(tmp_path / "clicks.csv"), "--out", str(tmp_path / "x.npz")])  # fmt: skip
