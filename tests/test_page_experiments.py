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
    # in Boston's units, medv in thousands of dollars, on the figure's axes and above the metrics (pass 10, Minor 9)
    assert any("thousands of USD" in caption.value for caption in at.caption)
    # 'trial(s)' read as unsure; the p-value is defined in words where it is shown (issue 33, Minor 6)
    assert any("the mean over 2 trials. p (paired t-test): how often chance" in c.value for c in at.caption)
    import json

    figure = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert all("thousands of USD" in figure[axis]["title"]["text"] for axis in ("xaxis", "yaxis")), figure
    assert "if neither were better" in next(m for m in at.metric if m.label == "p (paired t-test)").help
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
    assert not at.exception and any("set ORDERCORE_DATA" in box.value for box in at.info)
    assert "experiment_run" not in [button.key for button in at.button]


def test_the_experiments_page_says_what_it_reproduces_and_how_to_run_it_on_ones_own_table(store_path, tmp_path):
    """New-user pass 10, Minor 9: only controls ('Table 1 / Fig. 2 sweep / Bedroom rule'), no word of what a
    protocol does, and no way to run one on the user's own table.  The page says what it reproduces and
    defines each protocol where it first names it; it says the protocols run on the papers' data sets and gives
    the commands that run them on one's own table, each a command the CLI's own parser takes."""
    import shlex

    import pandas as pd

    from ordercore.cli.main import parser
    from tests.test_page_terms import texts

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("app_pages/experiments.py").run()
    assert not at.exception
    shown = texts(at.main)
    assert "main table" in next(text for text in shown if "Table 1" in text)
    assert "one setting varies" in next(text for text in shown if "Fig. 2 sweep" in text)
    assert "Zhu and Goldberg" in next(text for text in shown if "Bedroom rule" in text)
    assert any("your session's table" in box.value for box in at.info)
    commands = [code.value for code in at.code]  # no session: the placeholders
    assert [c.split()[4] for c in commands] == ["table1", "rules"], commands
    table, rules = tmp_path / "TABLE.csv", tmp_path / "RULES.json"
    pd.DataFrame({"x": [1.0, 2.0], "TARGET": [3.0, 4.0]}).to_csv(table, index=False)
    rules.write_text("[]")
    for command in commands:
        argv = [str(tmp_path / word) if word in ("TABLE.csv", "RULES.json") else word for word in shlex.split(command)]
        argv = [str(tmp_path / word) if word.endswith(".json") and "/" not in word else word for word in argv]
        args = parser("").parse_args(argv[3:])  # after 'python -m ordercore'
        assert args.data == table and args.target == "TARGET" and args.features == ["A", "B", "C"]
        assert args.labeled == 40 and args.unlabeled == 150


def test_the_experiments_commands_use_the_sessions_table_target_and_features(ready, tmp_path):
    """New-user report 12, F14: the commands used placeholders (--data TABLE.csv --target TARGET --features A,B,C)
    though the session knows its table.  A session on an uploaded 'used bikes.csv' (a space: quoted) shows it,
    its target and features and its labeled rows, and, once it holds a rule, its rules export's file name; the
    CLI's own parser reads back the session's names."""
    import shlex

    from ordercore.cli.main import parser
    from tests.studio_app import add_default_rule, bikes_table, engine, upload

    at = ready
    at.switch_page("app_pages/data.py").run()
    bikes = bikes_table()
    upload(at, "used bikes.csv", bikes.to_csv(index=False).encode())
    at.button(key="data_apply").click().run()
    assert not at.exception
    settings = engine(at).data_settings()
    assert settings["name"] == "used bikes.csv" and settings["target"] == "asking_price"
    add_default_rule(at)
    at.switch_page("app_pages/experiments.py").run()
    assert not at.exception
    commands = [code.value for code in at.code]
    (tmp_path / "used bikes.csv").write_text(bikes.to_csv(index=False))
    (tmp_path / "s1-rules.json").write_text("[]")
    for command in commands:
        assert "TABLE.csv" not in command and "TARGET" not in command and "A,B,C" not in command, command
        words = shlex.split(command)
        argv = [str(tmp_path / w) if w in ("used bikes.csv", "s1-rules.json") else w for w in words]
        argv = [str(tmp_path / w) if w.endswith(".json") and "/" not in w else w for w in argv]
        args = parser("").parse_args(argv[3:])
        assert args.data == tmp_path / "used bikes.csv" and args.target == "asking_price"
        assert args.features == settings["features"] and args.labeled == len(settings["labeled"])
    assert "--rules s1-rules.json" in commands[1], commands[1]
