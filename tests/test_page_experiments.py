"""AppTests of the Experiments page: a quick Table 1 on Boston, what it says without the benchmark
data, and result files of the wrong shape refused in one line."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.studio_app import APP, metric


def test_experiments_page_runs_a_quick_table1(store_path, data_directory):
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/experiments.py").run()
    assert not at.exception
    at.selectbox(key="experiment_dataset").set_value("boston").run()
    at.button(key="experiment_run").click().run()
    assert not at.exception
    result = at.session_state["experiment_result"]
    assert result["experiment"] == "table1" and len(result["trials"]) == 2
    assert metric(at, "SVR test MAE") == f"{result['summary']['svr_mae_mean']:,.4g}"
    p_value, change = result["summary"]["p_value"], abs(result["summary"]["improvement"])
    said = [box.value for box in [*at.info, *at.success, *at.error]]
    assert any(f"{change:.1%}" in words and f"(p = {p_value:.2g})" in words for words in said), said


@pytest.mark.parametrize(
    "content",
    [
        b'{"experiment": "table1", "protocol": {}, "summary": [1]}',
        b'{"experiment": "figure2", "protocol": {}, "dataset": "boston", "vary": 3, "points": "x"}',
        b'{"experiment": "bedroom", "protocol": {}, "summary": null}',
        b"[" * 100_000,
        b"\xff\xfe",
    ],
)
def test_the_experiments_page_refuses_a_result_file_of_the_wrong_shape_in_one_line(store_path, content):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("app_pages/experiments.py").run()
    at.file_uploader(key="experiment_file").set_value(("result.json", content, "application/json")).run()
    assert not at.exception and len(at.error) == 1
    assert at.error[0].value.startswith("Could not open this file: ") and "\n" not in at.error[0].value


def test_the_experiments_page_without_benchmark_data_says_what_to_do(store_path, monkeypatch):
    """No ORDERCORE_DATA: no data set to pick and no Run (it failed with the advice said twice)."""
    monkeypatch.delenv("ORDERCORE_DATA", raising=False)
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("app_pages/experiments.py").run()
    assert not at.exception and "set ORDERCORE_DATA" in at.info[0].value
    assert "experiment_run" not in [button.key for button in at.button]
