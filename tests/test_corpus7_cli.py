"""The seventh outside probing's findings on the command line (/tmp/corpus7, X cases): a value given twice
in an experiments list option is refused, predict --out x.tsv writes tab-separated text, a directory given
as an input file is said to be one, a missing pyrimidines or Treebank file is named, report and compare say
which experiment a result they cannot read is of, gp-figure3's memory limit in labels."""

from __future__ import annotations

import pytest

from tests.test_corpus6_cli import usage_error


# ---------------------------------------------------------------------------------------- X112, X140
@pytest.mark.parametrize(
    "arguments, said",
    [
        (["gp-table2", "--datasets", "digits", "digits"], "argument --datasets: 'digits' is given twice"),
        (
            ["figure2", "--dataset", "boston", "--vary", "l", "--values", "5", "5"],
            "argument --values: 5 is given twice",
        ),
        (["figure2", "--dataset", "boston", "--vary", "l", "--values", "5", "5.0"], "argument --values: 5 is given"),
        (["gp-figure3", "--labels", "3", "4", "3"], "argument --labels: 3 is given twice"),
        (["gp-figure2", "--pairs", "100", "100"], "argument --pairs: 100 is given twice"),
        (["session", "--dataset", "sample", "--strategy", "random", "random"], "argument --strategy: 'random' is"),
    ],
)
def test_a_value_given_twice_in_an_experiments_list_option_is_refused(tmp_path, capsys, arguments, said):
    out = tmp_path / "r.json"
    message = usage_error(["experiments", *arguments, "--trials", "1", "--out", out], capsys)
    assert said in message and "twice" in message
    assert not out.exists()


def test_distinct_values_in_a_list_option_are_kept_in_their_order(capsys):
    from ordercore.cli.parser import parser

    args = parser().parse_args(["experiments", "gp-figure3", "--labels", "4", "3", "--out", "r.json"])
    assert args.labels == [4, 3]
