"""Model files: a saved estimator predicts exactly as the one in memory, and every damaged,
foreign or tampered file is refused with a ModelFileError naming the file, without unpickling."""

import io
import json
import os
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import ordercore
from ordercore import GPLabelPreferenceModel, GPPreferenceModel, ModelFileError, OrderPreferenceRegressor, PreferenceSet
from ordercore.data.tables import Preprocessing
from ordercore.models.files import read_model, save_model


@pytest.fixture(scope="module")
def problem():
    """X (60, 3), labels on 10 rows, preferences from the true f on 40 other pairs, fresh X (25, 3)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    f = X[:, 0] + np.sin(2 * X[:, 1]) - 0.5 * X[:, 2]
    y = np.full(60, np.nan)
    y[:10] = f[:10]
    a, b = rng.integers(10, 60, 40), rng.integers(10, 60, 40)
    keep = f[a] != f[b]
    higher = f[a] > f[b]
    preferences = PreferenceSet(np.where(higher, a, b)[keep], np.where(higher, b, a)[keep], 0.1)
    return X, y, preferences, rng.normal(size=(25, 3))


def lp_model(problem, **parameters):
    X, y, preferences, _ = problem
    return OrderPreferenceRegressor(**parameters).fit(X, y, preferences)


def gp_model(problem, kernel):
    X, _, preferences, _ = problem
    return GPPreferenceModel(kernel=kernel, random_state=0).fit(X, preferences)


def label_model(problem):
    X, y, _, _ = problem
    labels = np.where(X[:30, 0] > 0.3, "high", np.where(X[:30, 0] < -0.3, "low", "mid"))
    return GPLabelPreferenceModel(graph="ordinal").fit(X[:30], labels)


@pytest.fixture
def model_path(tmp_path, problem):
    path = tmp_path / "model.npz"
    lp_model(problem, gamma=0.5).save(path, metadata={"target": "f"})
    return path


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("centers", ["labeled", "all"])
def test_a_loaded_lp_model_predicts_as_the_original(tmp_path, problem, kernel, centers):
    X, _, preferences, X_new = problem
    model = lp_model(problem, kernel=kernel, centers=centers)
    model.save(tmp_path / "lp.npz")
    loaded = ordercore.load(tmp_path / "lp.npz")
    assert type(loaded) is OrderPreferenceRegressor and loaded.get_params() == model.get_params()
    assert np.array_equal(loaded.predict(X_new), model.predict(X_new))
    other = PreferenceSet(np.arange(20), np.arange(20, 40), 0.5)
    assert np.array_equal(loaded.violated(other), model.violated(other))
    assert np.array_equal(loaded.violated(preferences), model.violated(preferences))
    assert loaded.preferences_ == model.preferences_ and np.array_equal(loaded.violation_, model.violation_)
    assert loaded.n_violated_ == model.n_violated_ and loaded.objective_ == model.objective_
    assert loaded.score(X_new, X_new[:, 0]) == model.score(X_new, X_new[:, 0])
    candidates = np.column_stack([np.arange(10, 30), np.arange(30, 50)])
    assert np.array_equal(loaded.suggest_pairs(candidates, 5), model.suggest_pairs(candidates, 5))
    loaded.save(tmp_path / "again.npz")  # what the loaded model saves is what was saved
    again, first = entries_of(tmp_path / "again.npz")[0], entries_of(tmp_path / "lp.npz")[0]
    assert again.keys() == first.keys()
    for name in first:
        np.testing.assert_array_equal(again[name], first[name], strict=True)


def test_a_loaded_lp_model_changes_preferences_by_a_cold_solve(tmp_path, problem):
    X, y, preferences, X_new = problem
    model = lp_model(problem, centers="all")
    model.save(tmp_path / "lp.npz")
    loaded = ordercore.load(tmp_path / "lp.npz")
    more = preferences + PreferenceSet([12, 13], [14, 15], 0.2)
    loaded.update_preferences(more)
    reference = OrderPreferenceRegressor(centers="all").fit(X, y, more)
    assert loaded.solve_start_ == "cold"
    np.testing.assert_allclose(loaded.predict(X_new), reference.predict(X_new), rtol=1e-9, atol=1e-9)
    loaded.remove_preferences([-1])
    assert loaded.solve_start_ in ("hot", "kept") and len(loaded.preferences_) == len(preferences) + 1


@pytest.mark.parametrize("kernel", ["rbf", "ard"])
def test_a_loaded_gp_model_predicts_as_the_original(tmp_path, problem, kernel):
    X, _, preferences, X_new = problem
    model = gp_model(problem, kernel)
    model.save(tmp_path / "gp.npz")
    loaded = ordercore.load(tmp_path / "gp.npz")
    Xa, Xb = X_new[:12], X_new[12:24]
    outputs = [
        (loaded.predict(X_new, return_std=True), model.predict(X_new, return_std=True)),
        (loaded.predict_difference(Xa, Xb), model.predict_difference(Xa, Xb)),
        ((loaded.predict_preference(Xa, Xb),), (model.predict_preference(Xa, Xb),)),
    ]
    for got, expected in outputs:
        assert all(np.array_equal(g, e) for g, e in zip(got, expected, strict=True))
    assert loaded.score(X, preferences) == model.score(X, preferences)
    candidates = np.column_stack([np.arange(0, 20), np.arange(20, 40)])
    assert np.array_equal(loaded.suggest_pairs(candidates, 5), model.suggest_pairs(candidates, 5))
    assert loaded.preferences_ == model.preferences_ and loaded.log_evidence_ == model.log_evidence_


def test_a_loaded_label_model_predicts_as_the_original(tmp_path, problem):
    *_, X_new = problem
    model = label_model(problem)
    model.save(tmp_path / "labels.npz")
    loaded = ordercore.load(tmp_path / "labels.npz")
    assert np.array_equal(loaded.classes_, model.classes_)
    assert np.array_equal(loaded.decision_function(X_new), model.decision_function(X_new))
    assert np.array_equal(loaded.predict_ranking(X_new), model.predict_ranking(X_new))


def test_preprocessing_metadata_and_feature_names_come_back(tmp_path, problem):
    X, y, preferences, _ = problem
    frame = pd.DataFrame(X, columns=["area", "age", "rooms"]).assign(town=np.where(X[:, 0] > 0, "north", "south"))
    preprocessing = Preprocessing.fit(frame, ["area", "age", "rooms", "town"])
    features = pd.DataFrame(preprocessing.transform(frame), columns=preprocessing.feature_names)
    model = OrderPreferenceRegressor().fit(features, y, preferences)
    metadata = {"target": "price", "features": ["area", "age", "rooms", "town"], "id": None}
    model.save(tmp_path / "m.npz", preprocessing=preprocessing, metadata=metadata)
    saved = read_model(tmp_path / "m.npz")
    assert saved.preprocessing == preprocessing and saved.metadata == metadata
    assert list(saved.estimator.feature_names_in_) == preprocessing.feature_names
    new = frame.iloc[::-1].reset_index(drop=True)
    new_features = pd.DataFrame(saved.preprocessing.transform(new), columns=saved.preprocessing.feature_names)
    assert np.array_equal(saved.estimator.predict(new_features), model.predict(new_features))
    with pytest.warns(UserWarning, match="feature names"):
        saved.estimator.predict(new_features.to_numpy())


def test_the_file_holds_only_numbers_and_loads_without_pickle(model_path):
    with np.load(model_path, allow_pickle=False) as archive:
        entries = {name: archive[name] for name in archive.files}
    assert all(array.dtype.kind in "iuf" for array in entries.values())
    document = json.loads(entries.pop("metadata").tobytes().decode("utf-8"))
    assert document["format"] == "ordercore-model" and document["version"] == 1
    assert document["estimator"] == "OrderPreferenceRegressor" and document["arrays"] == sorted(entries)
    assert document["params"]["gamma"] == 0.5 and document["metadata"] == {"target": "f"}


def test_what_cannot_be_saved_is_refused(tmp_path, problem):
    with pytest.raises(NotFittedError):
        OrderPreferenceRegressor().save(tmp_path / "m.npz")
    with pytest.raises(NotFittedError):
        GPPreferenceModel().save(tmp_path / "m.npz")
    X, _, preferences, _ = problem
    model = GPPreferenceModel(optimizer=None, random_state=np.random.RandomState(0)).fit(X, preferences)
    with pytest.raises(TypeError, match="random_state"):
        model.save(tmp_path / "m.npz")
    with pytest.raises(TypeError, match="JSON"):
        lp_model(problem).save(tmp_path / "m.npz", metadata={"when": object()})
    with pytest.raises(TypeError, match="cannot save"):
        save_model(tmp_path / "m.npz", Preprocessing(("x",), (0.0,), (1.0,)))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fail", ["savez", "replace"])
def test_a_failed_save_leaves_the_existing_file_unchanged(model_path, problem, monkeypatch, fail):
    before = model_path.read_bytes()

    def broken_savez(file, **entries):
        file.write(b"PK\x03\x04 half an archive")
        raise OSError("disk full")

    def broken_replace(source, destination):
        raise OSError("rename failed")

    if fail == "savez":
        monkeypatch.setattr(np, "savez", broken_savez)
    else:
        monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        lp_model(problem, gamma=2.0).save(model_path)
    assert model_path.read_bytes() == before
    assert os.listdir(model_path.parent) == [model_path.name]


# ---------------------------------------------------------------------- damaged and tampered files
def entries_of(path) -> tuple[dict, dict]:
    """The arrays of a model file and its decoded metadata document."""
    with np.load(path, allow_pickle=False) as archive:
        entries = {name: archive[name] for name in archive.files}
    return entries, json.loads(entries.pop("metadata").tobytes().decode("utf-8"))


def rewrite(path, change_entries=None, change_document=None):
    """Write path again with its entries and document changed (as a tamperer would, with np.savez)."""
    entries, document = entries_of(path)
    if change_entries:
        change_entries(entries)
    if change_document:
        change_document(document)
    metadata = np.frombuffer(json.dumps(document).encode("utf-8"), dtype=np.uint8)
    np.savez(path, **entries, metadata=metadata)


def assert_refused(path, message):
    with pytest.raises(ModelFileError, match=message) as caught:
        read_model(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("fraction", [0.001, 0.1, 0.5, 0.9, 0.99, 0.999])
def test_a_truncated_file_is_refused(model_path, fraction):
    data = model_path.read_bytes()
    model_path.write_bytes(data[: int(fraction * len(data))])
    assert_refused(model_path, "damaged or truncated archive")


def test_a_file_cut_at_every_length_is_refused(tmp_path, problem):
    path = tmp_path / "small.npz"
    OrderPreferenceRegressor().fit(*problem[:2]).save(path)
    data = path.read_bytes()
    for length in range(0, len(data), 7):
        path.write_bytes(data[:length])
        with pytest.raises(ModelFileError, match="small.npz"):
            read_model(path)


@pytest.mark.parametrize(
    "content, message",
    [
        (np.random.default_rng(0).bytes(3000), "not an .npz archive"),
        (b"", "not an .npz archive"),
        (b"PK\x03\x04" + bytes(200), "damaged or truncated archive"),
    ],
)
def test_a_file_that_is_no_archive_is_refused(tmp_path, content, message):
    path = tmp_path / "model.npz"
    path.write_bytes(content)
    assert_refused(path, message)


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_model(tmp_path / "absent.npz")


def test_foreign_numpy_files_are_refused(tmp_path):
    np.savez(tmp_path / "other.npz", weights=np.arange(3.0))
    assert_refused(tmp_path / "other.npz", "no 'metadata' entry")
    np.save(tmp_path / "array.npy", np.arange(3.0))
    assert_refused(tmp_path / "array.npy", "single .npy array")
    np.savez(tmp_path / "meta.npz", metadata=np.frombuffer(b'{"format": "other"}', dtype=np.uint8))
    assert_refused(tmp_path / "meta.npz", "not an ordercore model")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(version=2, ordercore_version="9.0"), "newer ordercore \\(9.0, format version 2\\)"),
        (lambda d: d.update(version="1"), "format version '1'"),
        (lambda d: d.update(estimator="os.system"), "unknown estimator class 'os.system'"),
        (lambda d: d.update(estimator=["OrderPreferenceRegressor"]), "unknown estimator class"),
        (lambda d: d.pop("params"), "lacks \\['params'\\]"),
        (lambda d: d["params"].update(kernel="sigmoid"), "kernel"),
        (lambda d: d["params"].update(lambda1=-1.0), "lambda1"),
        (lambda d: d["params"].update(gamma="0.5"), "gamma"),
        (lambda d: d["params"].pop("epsilon"), "missing \\['epsilon'\\]"),
        (lambda d: d["params"].update(solver="glpk"), "extra \\['solver'\\]"),
        (lambda d: d["scalars"].update(intercept="0.1"), "scalar 'intercept'"),
        (lambda d: d["scalars"].update(n_iter=True), "scalar 'n_iter'"),
        (
            lambda d: d["scalars"].update(intercept=float("inf")),
            "scalar 'intercept' is inf; fits write a finite number",
        ),
        (lambda d: d["scalars"].update(intercept=float("nan")), "scalar 'intercept' is nan"),
        (lambda d: d["scalars"].pop("objective"), "missing \\['objective'\\]"),
        (lambda d: d["scalars"].update(n_features_in=4), "X.*shape \\(60, 3\\), but n_features is 4"),
        (lambda d: d["scalars"].update(feature_names_in=["a"]), "feature_names_in must be 3 names"),
        (lambda d: d.update(arrays=["X"]), "metadata lists the arrays"),
        (lambda d: d.update(preprocessing={"numeric": ["x"]}), "preprocessing must be"),
        (lambda d: d.update(metadata=[1, 2]), "JSON object"),
        (lambda d: d.clear(), "does not say format"),
    ],
)
def test_a_tampered_document_is_refused(model_path, change, message):
    rewrite(model_path, change_document=change)
    assert_refused(model_path, message)


def test_metadata_that_is_not_json_is_refused(model_path):
    entries, _ = entries_of(model_path)
    np.savez(model_path, **entries, metadata=np.frombuffer(b'{"format": "ordercore-model",', dtype=np.uint8))
    assert_refused(model_path, "not valid JSON")
    np.savez(model_path, **entries, metadata=np.frombuffer(b"\xff\xfe", dtype=np.uint8))
    assert_refused(model_path, "utf-8")


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda e: e.pop("dual_coef"), "missing \\['dual_coef'\\]"),
        (lambda e: e.update(weights=np.zeros(3)), "extra \\['weights'\\]"),
        (lambda e: e.update(dual_coef=e["dual_coef"][:-1]), "'dual_coef' has shape"),
        (lambda e: e.update(X=e["X"][:, :2]), "'X' has shape \\(60, 2\\)"),
        (lambda e: e.update(y=e["y"][:, None]), "'y' has shape \\(60, 1\\), expected 1 dimension"),
        (lambda e: e.update({"preferences.j": e["preferences.j"][:-1]}), "'preferences.j' has shape"),
        (lambda e: e.update(center_rows=e["center_rows"].astype(float)), "'center_rows' holds float64, expected int64"),
        (lambda e: e.update(X=e["X"].astype(np.float32)), "'X' holds float32"),
        (lambda e: e.update(X=e["X"].astype(">f8")), "'X' holds >f8"),
        (lambda e: e.update(center_rows=e["center_rows"] + 1000), "center rows must lie in"),
        (lambda e: e.update({"preferences.i": e["preferences.i"] + 1000}), "out of range"),
        (lambda e: e.update({"preferences.weight": -e["preferences.weight"]}), "weight"),
        (lambda e: e.update(y=np.full(60, np.nan)), "no labeled row"),
        (lambda e: e.update(dual_coef=np.array([{"__reduce__": "os.system"}] * 10, dtype=object)), "Python objects"),
        (lambda e: e.update(dual_coef=np.r_[np.nan, e["dual_coef"][1:]]), "array 'dual_coef' holds nan at \\[0\\]"),
        (lambda e: e.update(X=np.r_[e["X"][:1] * np.inf, e["X"][1:]]), "array 'X' holds -?inf at \\[0, "),
        (lambda e: e.update(y=np.r_[e["y"][:-1], np.inf]), "array 'y' holds inf at \\[59\\]"),
    ],
)
def test_tampered_arrays_are_refused(model_path, change, message):
    rewrite(model_path, change_entries=change)
    assert_refused(model_path, message)


def test_an_object_array_in_place_of_the_metadata_is_refused_unread(model_path):
    entries, _ = entries_of(model_path)
    np.savez(model_path, **entries, metadata=np.array([{"format": "ordercore-model"}], dtype=object))
    assert_refused(model_path, "'metadata' holds Python objects")


def test_a_gp_file_written_before_the_sparse_model_loads_as_exact(tmp_path, problem):
    """Files from before issue 15 lack the parameters method, n_inducing, memory_limit and the
    scalar method: they load with the defaults, as the exact fits they are."""
    path = tmp_path / "gp.npz"
    model = gp_model(problem, "rbf")
    model.save(path)

    def older(document):
        for name in ("method", "n_inducing", "memory_limit"):
            document["params"].pop(name)
        document["scalars"].pop("method")

    rewrite(path, change_document=older)
    loaded = ordercore.load(path)
    assert loaded.method_ == "exact" and loaded.method == "auto"
    assert np.array_equal(loaded.predict(problem[3]), model.predict(problem[3]))
    rewrite(path, change_document=lambda d: d["scalars"].update(method="dense"))
    assert_refused(path, "method must be 'exact' or 'sparse'")
    rewrite(path, change_document=lambda d: d["params"].pop("kernel"))
    assert_refused(path, "missing \\['kernel'\\]")


def test_a_tampered_gp_file_is_refused(tmp_path, problem):
    path = tmp_path / "gp.npz"
    gp_model(problem, "ard").save(path)
    rewrite(path, change_entries=lambda e: e.update(length_scale=e["length_scale"][:1]))
    assert_refused(path, "ard kernel has 3 length scale")
    gp_model(problem, "rbf").save(path)
    rewrite(path, change_entries=lambda e: e.update(predictive_matrix=e["predictive_matrix"][:, 1:]))
    assert_refused(path, "'predictive_matrix' has shape")
    gp_model(problem, "rbf").save(path)
    rewrite(path, change_document=lambda d: d["params"].update(length_scale_prior=[1.0, -2.0]))
    assert_refused(path, "length_scale_prior")
    label_model(problem).save(path)
    rewrite(path, change_document=lambda d: d["scalars"].update(classes=["high", "low"]))
    assert_refused(path, "one label .* per column of alpha")


def test_a_forged_shape_is_refused_before_numpy_allocates_it(model_path):
    """An entry whose header claims 10^12 values in a few bytes: refused from the header alone."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    with zipfile.ZipFile(model_path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["y.npy"] = header.getvalue() + bytes(8)
    with zipfile.ZipFile(model_path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    assert_refused(model_path, "claims shape \\(1000000000000,\\)")


def test_a_compressed_archive_is_refused(model_path):
    entries, document = entries_of(model_path)
    metadata = np.frombuffer(json.dumps(document).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(model_path, **entries, metadata=metadata)
    assert_refused(model_path, "compressed")
