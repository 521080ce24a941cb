"""The fifth outside probing's findings (/tmp/corpus5): numbers beyond int64, labels one extreme value
swamps, a gamma the kernel cannot resolve, names that read alike, files that are not UTF-8, booleans as
hyperparameters, ordered categoricals, and messages that name what is wrong."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from ordercore import NPSVOR, GPPreferenceModel, MPMRegressor, OrderPreferenceRegressor
from ordercore.cli.main import main
from ordercore.data.tables import Preprocessing, read_csv
from ordercore.knowledge.rules import Ordering, Rule, Within
from ordercore.models.files import read_model
from ordercore.preferences import PreferenceSet
from tests.test_corpus4_cli import homes, refusal, rules_file  # noqa: F401 (a fixture)

HUGE = "99999999999999999999999"
"""An integer beyond int64 (N040): pandas leaves its column as Python ints, 'object'."""


# ---------------------------------------------------------------------------------------- N040/N095
def test_an_integer_beyond_int64_reads_as_a_number(tmp_path, homes):  # noqa: F811
    frame = pd.read_csv(homes)
    frame["age"] = frame["age"].astype(object)
    frame.loc[3, "age"] = HUGE
    frame.to_csv(tmp_path / "huge.csv", index=False)
    read = read_csv(tmp_path / "huge.csv")
    assert read["age"].dtype == np.float64
    assert read.loc[3, "age"] == float(HUGE)
    assert read.loc[4, "age"] == frame.loc[4, "age"]
    assert "age" in Preprocessing.fit(read, ["age", "rooms"]).numeric


def test_an_integer_beyond_float64_is_refused_naming_its_row(tmp_path, homes):  # noqa: F811
    frame = pd.read_csv(homes)
    frame["age"] = frame["age"].astype(object)
    frame.loc[5, "age"] = "9" * 400
    frame.to_csv(tmp_path / "huge.csv", index=False)
    out = tmp_path / "m.npz"
    message = refusal(["fit", tmp_path / "huge.csv", "--target", "price", "--out", out])
    assert "'age' holds an infinite value" in message and "at row 5" in message
    assert not out.exists()


# ---------------------------------------------------------------------------------------- N031
def test_one_label_that_swamps_the_rest_is_refused_naming_it(homes):  # noqa: F811
    frame = pd.read_csv(homes)
    labeled = frame.index[frame["price"].notna()]
    outlier = 10 * frame["price"].max()
    frame.loc[labeled[1], "price"] = 123456789012345678901234567890  # N031's file's label
    X = frame[["age", "rooms"]].to_numpy(float)
    with pytest.raises(ValueError, match=r"^the label 1\.23457e\+29 swamps the others"):
        OrderPreferenceRegressor().fit(X, frame["price"].to_numpy())
    frame.loc[labeled[1], "price"] = outlier  # an outlier the solver still resolves
    OrderPreferenceRegressor().fit(X, frame["price"].to_numpy())


# ---------------------------------------------------------------------------------------- N061
@pytest.mark.parametrize("estimator", [OrderPreferenceRegressor, MPMRegressor])
def test_a_gamma_too_small_for_the_kernel_to_differ_from_1_is_refused(estimator):
    X, y = np.array([[0.0], [1.0], [0.5]] * 4), np.arange(12.0)
    # the largest squared distance is 1: exp(-1e-17) rounds to 1, exp(-1e-15) does not
    with pytest.raises(ValueError, match=r"^gamma = 1e-17 is too small for the 'rbf' kernel over X"):
        estimator(gamma=1e-17).fit(X, y)
    estimator(gamma=1e-15).fit(X, y)


# ---------------------------------------------------------------------------------------- N035/N046
def test_a_column_name_two_columns_read_as_once_trimmed_is_refused(tmp_path, homes):  # noqa: F811
    frame = pd.read_csv(homes)
    frame["age "] = frame["age"] + 1
    frame.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "m.npz"
    message = refusal(["fit", tmp_path / "t.csv", "--target", "price", "--features", "age ,rooms", "--out", out])
    assert message.endswith(
        "the table has the columns 'age' and 'age ', which differ only in spaces; rename one of them"
    )
    assert not out.exists()


def test_the_target_as_the_id_column_is_said_so(tmp_path, homes):  # noqa: F811
    out = tmp_path / "m.npz"
    message = refusal(["fit", homes, "--target", "home_id", "--id", "home_id", "--out", out])
    assert "the target and --id name the same column 'home_id'" in message
    assert not out.exists()


# ---------------------------------------------------------------------------------------- N156/N160
def test_rules_apply_to_a_json_out_writes_json_that_fit_reads(tmp_path, homes):  # noqa: F811
    rules = rules_file(tmp_path, Rule("r", [Within("age", 10.0)], Ordering("bedrooms")).to_dict())
    main(["rules", "apply", str(rules), str(homes), "--id", "home_id", "--out", str(tmp_path / "p.csv")])
    main(["rules", "apply", str(rules), str(homes), "--id", "home_id", "--out", str(tmp_path / "p.json")])
    records = json.loads((tmp_path / "p.json").read_text())
    as_csv = pd.read_csv(tmp_path / "p.csv", dtype={"i": str, "j": str, "margin": float, "weight": float})
    assert pd.DataFrame.from_records(records).equals(as_csv)
    out = tmp_path / "m.npz"
    main(
        ["fit", str(homes), "--target", "price", "--id", "home_id", "--preferences", str(tmp_path / "p.json")]
        + ["--out", str(out)]
    )
    assert out.exists()


def test_a_pair_one_file_states_twice_is_said_to_be_stated_more_than_once_there(tmp_path, homes, capsys):  # noqa: F811
    (tmp_path / "p.csv").write_text("i,j\n1,2\n1,2\n3,4\n")
    main(
        ["fit", str(homes), "--target", "price", "--preferences", str(tmp_path / "p.csv"), "--out", str(tmp_path / "m")]
    )
    said = capsys.readouterr().err
    assert f"3 preferences (1 of them stated more than once in {tmp_path / 'p.csv'}: each counts)" in said
    assert "another file" not in said


# ---------------------------------------------------------------------------------------- Q004/Q030
def ranked_features() -> tuple[np.ndarray, np.ndarray]:
    """30 rows whose first feature is 0, 3 or 6 by rank (1, 2, 3) plus a little noise; X and the ranks."""
    ranks = np.repeat([1, 2, 3], 10)
    X = np.random.default_rng(0).normal(size=(30, 3)) * 0.1
    X[:, 0] += 3 * (ranks - 1)
    return X, ranks


@pytest.mark.parametrize(
    "estimator, name, fit",
    [
        (OrderPreferenceRegressor(lambda2=True), "lambda2", lambda m, X, r: m.fit(X, r * 1.0)),
        (NPSVOR(C1=True), "C1", lambda m, X, r: m.fit(X, r)),
        (MPMRegressor(gamma=np.True_), "gamma", lambda m, X, r: m.fit(X, r * 1.0)),
        (GPPreferenceModel(noise=False), "noise", lambda m, X, r: m.fit(X, PreferenceSet.order([20], [0]))),
    ],
)
def test_a_boolean_for_a_numeric_hyperparameter_is_refused(estimator, name, fit):
    X, ranks = ranked_features()
    value = bool(estimator.get_params()[name])
    with pytest.raises(
        ValueError, match=rf"^The '{name}' parameter of \w+ must be a number, not the boolean {value}\.$"
    ):
        fit(estimator, X, ranks)
    NPSVOR(warm_start=True).fit(X, ranks)  # a boolean parameter takes a boolean


# ---------------------------------------------------------------------------------------- Q062
def test_an_ordered_categorical_y_ranks_by_its_categories(tmp_path):
    X, ranks = ranked_features()
    order = ["low", "mid", "high"]
    y = pd.Series(pd.Categorical(np.array(order)[ranks - 1], categories=order, ordered=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = NPSVOR().fit(X, y)
    assert model.classes_.tolist() == order
    assert model.predict(X[[0, 10, 20]]).tolist() == order  # the rows of rank 1, 2, 3
    model.save(tmp_path / "m.npz")
    assert read_model(tmp_path / "m.npz").estimator.classes_.tolist() == order
    with pytest.warns(UserWarning, match="'high' < 'low' < 'mid'.*or y as an ordered pandas Categorical"):
        NPSVOR().fit(X, y.astype(str))


# ---------------------------------------------------------------------------------------- N001/N002/N005/Q076
@pytest.mark.parametrize(
    "encoding, said",
    [
        ("utf-16", r"it is not UTF-8 text \(it begins with a UTF-16 byte-order mark\); save it as UTF-8"),
        ("utf-32", r"it is not UTF-8 text \(it begins with a UTF-32 byte-order mark\); save it as UTF-8"),
        # 'i' then its NUL byte: the NUL is the line's second byte
        ("utf-16-le", r"it is not UTF-8 text \(a NUL byte on line 1, column 2: UTF-16 or UTF-32\?\); save it as UTF-8"),
    ],
)
def test_a_preference_file_in_utf16_or_utf32_is_said_not_to_be_utf8(tmp_path, homes, encoding, said):  # noqa: F811
    for name in ("p.csv", "p.json"):
        text = "i,j\n1,2\n" if name == "p.csv" else '[{"i": 1, "j": 2}]'
        (tmp_path / name).write_bytes(text.encode(encoding))
        out = tmp_path / "m.npz"
        message = refusal(["fit", homes, "--target", "price", "--preferences", tmp_path / name, "--out", out])
        assert message.startswith(f"error: {tmp_path / name}: ") and re.search(said, message)
        assert not out.exists()
    with pytest.raises(ValueError, match="^not a readable preference CSV: " + said):
        PreferenceSet.from_csv(tmp_path / "p.csv")
    with pytest.raises(ValueError, match="^not a readable preference JSON: " + said):
        PreferenceSet.from_json(tmp_path / "p.json")


# ---------------------------------------------------------------------------------------- N007/N008/N010/N115
def test_a_rules_file_with_a_utf8_mark_reads_and_one_in_utf16_is_refused(tmp_path, homes):  # noqa: F811
    rules = rules_file(tmp_path, Rule("r", [Within("age", 10.0)], Ordering("bedrooms")).to_dict())
    main(["rules", "apply", str(rules), str(homes), "--out", str(tmp_path / "plain.csv")])
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + rules.read_bytes())
    main(["rules", "apply", str(marked), str(homes), "--out", str(tmp_path / "marked.csv")])
    assert (tmp_path / "marked.csv").read_text() == (tmp_path / "plain.csv").read_text()
    wide = tmp_path / "wide.json"
    wide.write_bytes(rules.read_text().encode("utf-16"))
    message = refusal(["rules", "apply", wide, homes, "--out", tmp_path / "wide.csv"])
    assert message == f"error: {wide}: it is not UTF-8 text (it begins with a UTF-16 byte-order mark); save it as UTF-8"
    assert not (tmp_path / "wide.csv").exists()


# ---------------------------------------------------------------------------------------- N014/N153/T015
def test_a_header_with_spaces_around_i_and_j_shows_the_names_found(tmp_path):
    (tmp_path / "p.csv").write_text(" i , j , margin , weight \n0,1,0,1\n")
    message = refusal(["check", tmp_path / "p.csv"])
    assert message.endswith("found ' i ', ' j ', ' margin ', ' weight ' (remove the spaces around the names)")


@pytest.mark.parametrize("kept, partner", [("home_id_i", "home_id_j"), ("home_id_j", "home_id_i")])
def test_an_id_column_without_its_partner_says_the_partner_is_missing(tmp_path, homes, kept, partner):  # noqa: F811
    pd.DataFrame({"i": [0], "j": [1], kept: [1]}).to_csv(tmp_path / "p.csv", index=False)
    out = tmp_path / "m.npz"
    message = refusal(
        ["fit", homes, "--target", "price", "--id", "home_id", "--preferences", tmp_path / "p.csv", "--out", out]
    )
    assert f"the column '{kept}' has no partner '{partner}'" in message
    assert not out.exists()


# ---------------------------------------------------------------------------------------- Q072/Q077
def test_an_unsigned_index_beyond_int64_is_said_too_large():
    with pytest.raises(ValueError, match=f"^i holds {2**63 + 5}, too large for a row index$"):
        PreferenceSet.order(i=np.array([2**63 + 5], dtype=np.uint64), j=[1])


def test_from_json_reads_a_list_of_records_and_csv_text_is_not_taken_for_a_path():
    read = PreferenceSet.from_json('[{"i": 3, "j": 4, "margin": 2.5}, {"i": 5, "j": 6, "margin": 0}]')
    assert read == PreferenceSet.order([3, 5], [4, 6], [2.5, 0.0])
    assert PreferenceSet.from_json('[{"i": 3, "j": 4}]') == PreferenceSet.order([3], [4])
    with pytest.raises(ValueError, match="^empty cell"):
        PreferenceSet.from_json('[{"i": 3, "j": 4, "margin": 2.5}, {"i": 5, "j": 6}]')
    with pytest.raises(ValueError, match="^not valid preference JSON"):
        PreferenceSet.from_json("i,j,margin,weight\n0,1,0,1\n")


# ---------------------------------------------------------------------------------------- N102/N138
def test_too_few_unlabeled_rows_for_the_pairs_name_unlabeled(tmp_path, homes):  # noqa: F811
    out = tmp_path / "r.json"
    arguments = ["experiments", "table1", "--data", homes, "--target", "price", "--labeled", 10, "--unlabeled", 1]
    message = refusal([*arguments, "--quick", "--trials", 1, "--preferences", 50, "--out", out])
    assert message == (
        "error: --unlabeled 1: the 50 preferences are drawn among the unlabeled rows, which needs at least 2 of "
        "them (or --preferences 0)"
    )
    assert not out.exists()


def test_too_few_instances_for_the_pair_counts_name_instances(tmp_path):
    out = tmp_path / "r.json"
    # 4 sentences make 4 * 3 / 2 = 6 pairs; 5 make 10 > 6
    message = refusal(["experiments", "gp-figure2", "--instances", 4, "--pairs", 6, "--quick", "--out", out])
    assert message == (
        "error: --instances 4: 4 sentence(s) make at most 6 pairs, fewer than the largest pair count 6 and pairs "
        "to test on: give --instances 5 or more"
    )
    assert not out.exists()


# ---------------------------------------------------------------------------------------- Q043/Q046/Q049/Q060/Q061
def frame_of(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(X, columns=["a", "b", "c"])


FITS = {
    "lp": lambda X, r: OrderPreferenceRegressor().fit(X, r * 1.0),
    "mpmr": lambda X, r: MPMRegressor().fit(X, r * 1.0),
    "npsvor": lambda X, r: NPSVOR().fit(X, r),
    "gp": lambda X, r: GPPreferenceModel().fit(X, PreferenceSet.order([20], [0])),
}


@pytest.mark.parametrize("family", FITS)
def test_a_frame_whose_columns_repeat_a_name_is_refused_in_fit_and_predict(family):
    X, ranks = ranked_features()
    repeated = frame_of(X).set_axis(["a", "a", "c"], axis=1)
    said = r"^X's columns repeat the name 'a': give each column its own name$"
    with pytest.raises(ValueError, match=said):
        FITS[family](repeated, ranks)
    model = FITS[family](frame_of(X), ranks)
    with pytest.raises(ValueError, match=said):
        model.predict(repeated)


@pytest.mark.parametrize(
    "column, said",
    [
        (pd.Categorical(["u", "v", "w"] * 10), r"^X's column 'c' holds 'u' at row 0, not a number: encode text"),
        (np.array(["1.5"] * 29 + ["high"], dtype=object), r"^X's column 'c' holds 'high' at row 29, not a number"),
        (pd.date_range("2020-01-01", periods=30), r"^X's column 'c' holds dates or times \(datetime64"),
    ],
)
def test_a_column_of_text_or_dates_is_named(column, said):
    X, ranks = ranked_features()
    frame = frame_of(X).assign(c=column)
    for fit in FITS.values():
        with pytest.raises(ValueError, match=said):
            fit(frame, ranks)


def test_x_as_a_generator_is_said_to_need_rows():
    X, ranks = ranked_features()
    with pytest.raises(TypeError, match=r"^X must be an array-like of rows \(a list, a numpy array or a DataFrame\)"):
        OrderPreferenceRegressor().fit((list(row) for row in X), ranks * 1.0)
