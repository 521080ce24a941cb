"""Data loading and the seeds' preprocessing."""

import json

import numpy as np
import pandas as pd
import pytest

from ordercore.data import feature_checks
from ordercore.data import tables as datasets
from ordercore.data.benchmarks import load_dataset
from ordercore.data.tables import load_csv


@pytest.mark.parametrize(
    "name, shape, target_first",
    [("boston", (506, 13), 24.0), ("abalone", (4177, 10), 15.0), ("california", (20640, 8), 452600.0)],
)
def test_benchmarks_load_with_the_seeds_preprocessing(data_directory, name, shape, target_first):
    data = load_dataset(name)
    assert data.X.shape == shape and data.y.shape == (shape[0],)
    assert data.y[0] == target_first
    numeric = [k for k, feature in enumerate(data.feature_names) if "=" not in feature]
    np.testing.assert_allclose(data.X[:, numeric].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(data.X[:, numeric].std(axis=0), 1, atol=1e-12)


def test_abalone_gender_becomes_three_indicators(data_directory):
    data = load_dataset("abalone")
    columns = [k for k, feature in enumerate(data.feature_names) if feature.startswith("Gender=")]
    assert [data.feature_names[k] for k in columns] == ["Gender=F", "Gender=I", "Gender=M"]
    indicators = data.X[:, columns]
    assert set(np.unique(indicators)) == {0.0, 1.0} and np.all(indicators.sum(axis=1) == 1)
    assert indicators[0].tolist() == [0.0, 0.0, 1.0]  # the first abalone is M


def test_a_missing_file_names_the_variable_and_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ORDERCORE_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="ORDERCORE_DATA.*boston_housing.csv"):
        load_dataset("boston")
    monkeypatch.delenv("ORDERCORE_DATA")
    with pytest.raises(FileNotFoundError, match="set ORDERCORE_DATA.*abalone.csv"):
        load_dataset("abalone")
    with pytest.raises(ValueError, match="unknown data set"):
        load_dataset("census")


def test_california_falls_back_to_scikit_learn_in_the_same_units(monkeypatch):
    monkeypatch.delenv("ORDERCORE_DATA", raising=False)
    frame = pd.DataFrame(
        {
            "MedInc": [8.3252, 3.0],
            "HouseAge": [41.0, 20.0],
            "AveRooms": [6.984127, 5.0],
            "AveBedrms": [1.02381, 1.1],
            "Population": [322.0, 1000.0],
            "AveOccup": [2.555556, 2.5],
            "Latitude": [37.88, 34.0],
            "Longitude": [-122.23, -118.0],
            "MedHouseVal": [4.526, 1.5],
        }
    )

    class Bunch:
        pass

    bunch = Bunch()
    bunch.frame = frame
    monkeypatch.setattr("sklearn.datasets.fetch_california_housing", lambda as_frame: bunch)
    data = load_dataset("california")
    raw = data.frame
    # cal_housing.csv's first row: 880 rooms, 129 bedrooms, 126 households, value 452600
    assert raw.loc[0, "households"] == 126 and raw.loc[0, "total_rooms"] == 880
    assert raw.loc[0, "total_bedrooms"] == 129 and raw.loc[0, "median_house_value"] == pytest.approx(452600)
    assert data.metadata["source"] == "sklearn.datasets.fetch_california_housing"


def test_a_user_csv_goes_through_the_same_path(tmp_path):
    path = tmp_path / "homes.csv"
    path.write_text("price,rooms,area,town\n300,3,80,north\n,4,95,south\n250,2,60,north\n410,5,120,east\n")
    data = load_csv(str(path), target="price", features=["rooms", "area", "town"])
    assert data.feature_names == ["rooms", "area", "town=east", "town=north", "town=south"]
    assert np.isnan(data.y[1]) and data.y[3] == 410  # an empty target is simply unlabeled
    np.testing.assert_allclose(data.X[:, 0], (np.array([3, 4, 2, 5]) - 3.5) / np.std([3, 4, 2, 5]))


@pytest.mark.parametrize(
    "text, target, message",
    [
        ("a,b\n1,2\n", "c", "target column 'c'"),
        ("a,b\nx,2\ny,3\n", "a", "not numeric"),
        ("a,b\n1,\n2,3\n", "a", "missing values"),
        ("a\n1\n", "a", "at least two columns"),
        ("a,b\n", "a", r"a header \(a, b\) but no rows"),
        ("", "a", "could not read"),
    ],
)
def test_bad_user_csvs_are_refused_with_the_reason(text, target, message):
    with pytest.raises(ValueError, match=message):
        load_csv(text.encode(), target=target)


def test_a_numeric_column_with_a_stray_text_names_its_cells_not_categories():
    """40 ages and 'twelve' once: refused naming the row and value, not 41 indicator levels; named as
    categorical it is categories, as asked.  A column mostly text stays categorical."""
    ages = [str(k) for k in range(40)]
    frame = pd.DataFrame({"y": np.arange(42.0), "age": ages[:17] + ["twelve"] + ages[17:] + ["n/a"]})
    with pytest.raises(ValueError, match=r"'age' holds numbers except at row\(s\) 17 \('twelve'\), 41 \('n/a'\)"):
        datasets.prepare(frame, "y", ["age"])
    assert datasets.prepare(frame, "y", ["age"], categorical=["age"]).X.shape == (42, 42)
    mostly_text = pd.DataFrame({"y": np.arange(4.0), "kind": ["a", "b", "3", "a"]})
    assert datasets.prepare(mostly_text, "y", ["kind"]).X.shape == (4, 3)


@pytest.mark.parametrize("delimiter", [";", "\t", "|"])
def test_a_csv_separated_by_another_mark_reads_as_the_comma_one(delimiter):
    """The mark the header holds most of separates the columns (a ';' CSV failed with pandas' tokenizer)."""
    rows = [("y", "x", "z"), ("1.5", "2", "a"), ("2.5", "4", "b"), ("3.5", "6", "a")]
    comma = load_csv("\n".join(",".join(row) for row in rows).encode(), target="y")
    other = load_csv("\n".join(delimiter.join(row) for row in rows).encode(), target="y")
    np.testing.assert_array_equal(other.X, comma.X)
    np.testing.assert_array_equal(other.y, [1.5, 2.5, 3.5])


def test_a_csv_past_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(datasets, "MAX_CSV_BYTES", 19)
    path = tmp_path / "big.csv"
    path.write_text("y,x\n1,2\n3,4\n5,6\n7,8\n")  # 20 bytes
    for source in (path, path.read_bytes()):
        with pytest.raises(ValueError, match=r"holds 20 bytes; at most 19 \("):
            load_csv(source, target="y")
    assert load_csv(b"y,x\n1,2\n3,4\n", target="y").X.shape == (2, 1)  # 16 bytes


def test_identifier_like_text_columns_are_refused():
    rows = "\n".join(f"{k},id{k}" for k in range(feature_checks.MAX_CATEGORIES + 1))
    with pytest.raises(ValueError, match="identifier"):
        load_csv(f"y,name\n{rows}\n".encode(), target="y")


def test_preprocessing_of_the_fitting_table_gives_prepare_s_features(data_directory):
    data = load_dataset("abalone")
    features = data.metadata["features"]
    refit = datasets.Preprocessing.fit(data.frame, features, ["Gender"])
    assert refit == data.preprocessing and refit.feature_names == data.feature_names
    assert np.array_equal(refit.transform(data.frame), data.X)
    # independently: z-scores of the numeric columns (the same arithmetic, so bit for bit), then indicators
    numeric = data.frame[[c for c in features if c != "Gender"]].to_numpy(dtype=float)
    indicators = pd.get_dummies(data.frame["Gender"]).to_numpy(dtype=float)
    assert np.array_equal(data.X, np.hstack([(numeric - numeric.mean(axis=0)) / numeric.std(axis=0), indicators]))


def test_a_second_table_is_standardized_by_the_first_table_s_mean_and_scale():
    first = pd.DataFrame({"area": [2.0, 4.0, 6.0, 8.0], "floor": [3, 3, 3, 3], "town": ["b", "a", "b", "a"]})
    second = pd.DataFrame({"town": ["a", "b"], "area": [5.0, 10.0], "floor": [7, 3], "extra": [0, 0]})
    preprocessing = datasets.Preprocessing.fit(first, ["area", "floor", "town"])
    assert preprocessing.feature_names == ["area", "floor", "town=a", "town=b"]
    # area: mean 5, population variance (9 + 1 + 1 + 9) / 4 = 5; floor: constant 3, scale 1
    expected = [[0.0, 4.0, 1.0, 0.0], [5 / np.sqrt(5), 0.0, 0.0, 1.0]]
    np.testing.assert_allclose(preprocessing.transform(second), expected, rtol=1e-15)


def test_a_level_not_seen_in_fitting_gives_no_indicator():
    preprocessing = datasets.Preprocessing.fit(pd.DataFrame({"x": [1.0, 2.0], "town": ["a", "b"]}), ["x", "town"])
    X = preprocessing.transform(pd.DataFrame({"x": [1.0, 1.0], "town": ["c", "b"]}))
    assert X[:, 1:].tolist() == [[0.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize(
    "table, message",
    [
        ({"x": [1.0]}, r"lacks the feature column\(s\) \['town'\]"),
        ({"x": [np.nan], "town": ["a"]}, r"\['x'\] have missing values"),
        ({"x": ["many"], "town": ["a"]}, "column 'x' is not numeric \\(e.g. 'many'\\)"),
        ({"x": [np.inf], "town": ["a"]}, "infinite"),
    ],
)
def test_a_table_the_preprocessing_cannot_apply_to_is_refused(table, message):
    preprocessing = datasets.Preprocessing.fit(pd.DataFrame({"x": [1.0, 2.0], "town": ["a", "b"]}), ["x", "town"])
    with pytest.raises(ValueError, match=message):
        preprocessing.transform(pd.DataFrame(table))


def test_preprocessing_survives_json():
    frame = pd.DataFrame({"x": [1.0, 2.5, 4.0], "town": ["a", "b", "a"], "code": [1, 2, 2]})
    preprocessing = datasets.Preprocessing.fit(frame, ["x", "town", "code"], categorical=["code"])
    restored = datasets.Preprocessing.from_dict(json.loads(json.dumps(preprocessing.to_dict())))
    assert restored == preprocessing
    assert np.array_equal(restored.transform(frame), preprocessing.transform(frame))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("scale"), "dictionary of"),
        (lambda d: d.update(mean=[0.0, 1.0]), "one mean and one positive scale"),
        (lambda d: d.update(scale=[0.0]), "positive scale"),
        (lambda d: d.update(mean=["0"]), "finite numbers"),
        (lambda d: d.update(mean=[True]), "finite numbers"),
        (lambda d: d.update(numeric=[1]), "list of text"),
        (lambda d: d.update(categorical=[{"column": "town", "levels": "ab"}]), "list of text"),
        (lambda d: d.update(categorical=[["town", ["a"]]]), "column and its levels"),
        (lambda d: d.update(categorical=[{"column": "x", "levels": ["a"]}]), "distinct"),
    ],
)
def test_a_tampered_preprocessing_is_refused(change, message):
    data = {"numeric": ["x"], "mean": [1.0], "scale": [2.0], "categorical": []}
    change(data)
    with pytest.raises(ValueError, match=message):
        datasets.Preprocessing.from_dict(data)
