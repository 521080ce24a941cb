"""Every script in bench/ runs with ``--quick`` (the same path on the smallest inputs), so that none rots.

Each runs as a subprocess (this Python, in the repository, ORDERCORE_DATA as the other tests have it);
the test checks only that it exits 0 and prints its figures' labels, never a time.  A bench whose data
or browser is missing is skipped."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.quick_mode import QUICK_NOTICE

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
NUMBER = r"[-+]?\d[\d,]*(\.\d+)?(e[-+]\d+)?"

CLICK_PARTS = r"per click, median of 3 \(ms\): " + ", ".join(
    f"{part} {NUMBER}" for part in ("store write", "store read", "retrain", "plot data", "next pair", "page data")
)
BENCHES = {
    "lp_bench.py": (
        ["cal_housing.csv"],
        [
            rf"objective \(9\): ours {NUMBER}, naive linprog {NUMBER}",
            rf"cold fit +median +{NUMBER} ms",
            rf"naive dense linprog +median +{NUMBER} ms",
            rf"warm re-solve, \+1 pref +median +{NUMBER} ms",
            rf"ratio cold / naive +{NUMBER}",
            rf"ratio warm / cold +{NUMBER}",
            r"Scale curve: California",
            r"cold \(s\) +warm add \(ms\) +peak \(MB\)",
            rf"centers='all'.*\n +cold fit {NUMBER} s.*warm add median {NUMBER} ms.*active centers",
            rf"time_limit: seconds until the fit returns.*\n +p= +{NUMBER} centers=\w+ +time_limit= *{NUMBER} s",
            r"one click on the Pairwise page, 40k preferences",
            CLICK_PARTS,
        ],
    ),
    "rules_bench.py": (
        ["cal_housing.csv"],
        [
            rf"pairs matched and kept {NUMBER}",
            rf"generation median {NUMBER} s",
            rf"store write median {NUMBER} s",
            rf"peak memory {NUMBER} MB",
        ],
    ),
    "npsvor_bench.py": (
        ["treebank/Treebank.train", "treebank/Treebank.test"],
        [
            rf"numba compilation or cache load.*: {NUMBER} s",
            rf"Treebank \(C = 1, eps = 0.1\), no bias +ours: MAE {NUMBER}.*fit {NUMBER} s",
            rf"Treebank \(C = 1, eps = 0.1\), bias +ours: MAE {NUMBER}.*fit {NUMBER} s",
            rf"synthetic 2,000 x 500: ours fit {NUMBER} s",
            r"load average after",
        ],
    ),
    "app_bench.py": (
        ["cal_housing.csv"],
        [
            rf"first fit \(SVR \+ SSL, cold\): {NUMBER} ms",
            rf"per click, retrain \+ plot data: median {NUMBER} ms, worst {NUMBER} ms over 3 clicks",
        ],
    ),
    "click_bench.py": (
        ["cal_housing.csv"],
        [
            rf"first fit \(SVR \+ SSL, cold\) on {NUMBER} preferences: {NUMBER} s, CPU {NUMBER} s",
            CLICK_PARTS,
            rf"total median {NUMBER} ms",
        ],
    ),
    "click_bench.py --trust": (
        ["cal_housing.csv"],
        [
            rf"first fit \(SVR \+ SSL, cold\) on {NUMBER} preferences: {NUMBER} s, CPU {NUMBER} s",
            CLICK_PARTS,
            rf"total median {NUMBER} ms",
            rf"a member's warm add, CPU median of {NUMBER} \({NUMBER} kept\): priced where new {NUMBER} ms, "
            rf"every preference {NUMBER} ms \(ratio {NUMBER}\); objectives' largest relative difference {NUMBER}",
        ],
    ),
    **{
        f"browser_click_bench.py{arguments}": (
            ["cal_housing.csv"],
            [
                rf"{page}, {NUMBER} {held}.*: 3 presses",
                rf"key press to next ready to answer: p50 {NUMBER} ms, p95 {NUMBER} ms \(×{NUMBER} and ×{NUMBER} of",
                rf"key press to the answer counted: p50 {NUMBER} ms, p95 {NUMBER} ms",
            ],
        )
        for arguments, page, held in (("", "Pairwise", "preferences"), (" --page ratings", "Ratings", "grades held"))
    },
    "trust_bench.py": (
        ["cal_housing.csv"],
        [
            rf"{NUMBER} preferences from 1 rule\(s\), 60 labels",
            rf"full assessment, quick: median {NUMBER} s of 1",
            rf"full assessment, quick: median CPU {NUMBER} s in this process \+ {NUMBER} s in the fold workers; "
            rf"alone on {NUMBER} cores about {NUMBER} s \(load average {NUMBER}\)",
            rf"incremental re-assessment, quick: median {NUMBER} s of {NUMBER}",
        ],
    ),
    "ratings_bench.py": (
        ["cal_housing.csv", "sentiment/movie_snippets.csv"],
        [
            r"refit warm +refit cold +cv +warm\+cv",
            *(rf"{re.escape(name)} +50( +{NUMBER}){{4}}" for name in ("snippets (TF-IDF)", "california (rows)")),
        ],
    ),
    "rules_page_bench.py": (
        ["cal_housing.csv"],
        [
            rf"{NUMBER} preferences, 20 audit answers",
            *(
                rf"{re.escape(name)}: +{NUMBER} ms \(median of 1\)"
                for name in ("rule_trust", "rule_quality, stored preferences", "generating the rule", "next_rule_pair")
            ),
        ],
    ),
    "gp_label_bench.py": (
        [],
        [r"\| labels \| latent values \| dense", rf"\| 2 \| 600 \| {NUMBER} \| {NUMBER} \| {NUMBER} \| {NUMBER}"],
    ),
    "gp_bench.py": (
        ["boston_housing.csv"],
        [
            r"Boston, 200 training pairs",
            r"Synthetic: 100 instances, 300 pairs",
            rf"GP default \(ARD\+prior\) +error {NUMBER}% .*fit median {NUMBER} s",
            rf"GP ard, plain evidence +error {NUMBER}% .*fit median {NUMBER} s",
        ],
    ),
    "gp_bench.py --rule": (
        ["cal_housing.csv"],
        [rf"fit median {NUMBER} s \({NUMBER}x the 20 s target\), inducing inputs median {NUMBER} s"],
    ),
    "gp_bench.py --scale": (
        ["cal_housing.csv"],
        [
            r"California scale curve \(1 trials",
            *(
                rf"{re.escape(name)} +fit median +{NUMBER} s +peak median {NUMBER} GB +error {NUMBER}%"
                for name in ("default, 300 rows", "exact, same 300 rows", "default, 600 rows", "default, 1,500 rows")
            ),
            rf"sparse - exact at 300 rows: {NUMBER} points",
            rf"1,500 rows - exact on a 300-row sample: {NUMBER} points",
        ],
    ),
    "gp_prior_selection.py": (
        ["boston_housing.csv", "abalone.csv", "cal_housing.csv"],
        [
            *(rf"{name} \(1 development trials" for name in ("boston", "abalone", "california")),
            *(rf"{re.escape(name)} +error {NUMBER}%" for name in ("ard, Gamma(2.4, 2.16)", "rbf, plain evidence")),
        ],
    ),
    "mpmr_bench.py": (
        ["boston_housing.csv", "cal_housing.csv"],
        [rf"N = +{n}: median fit +{NUMBER} ms .*ratio {NUMBER}\), peak {NUMBER} GB" for n in (481, 500)],
    ),
    "store_concurrency_bench.py": (
        [],
        [
            *(rf"sqlite +{k} x 5 answers: lost {NUMBER}, duplicated {NUMBER}.*{NUMBER} answers/s" for k in (1, 2)),
            rf"sqlite +throughput of 2 annotators at once / one alone: {NUMBER}",
            r"postgresql( +throughput of 2 annotators|: skipped)",
        ],
    ),
}
"""command (a script and its mode's arguments) -> (the data files it reads from ORDERCORE_DATA, patterns its
quick run prints)."""


def test_every_bench_is_here():
    scripts = [path.name for path in (ROOT / "bench").glob("*.py") if path.name != "quick_mode.py"]
    assert sorted({command.split()[0] for command in BENCHES}) == sorted(scripts)


@pytest.mark.parametrize("command", sorted(BENCHES))
def test_bench_runs_in_quick_mode(command, request):
    script, *arguments = command.split()
    files, patterns = BENCHES[command]
    if files:
        data = request.getfixturevalue("data_directory")  # skips without the data; sets ORDERCORE_DATA
        missing = [name for name in files if not (data / name).is_file()]
        if missing:
            pytest.skip(f"{script} reads {', '.join(missing)}, not in {data}")
    if script.startswith("browser"):
        pytest.importorskip("playwright.sync_api")
        if not CHROMIUM.is_file():
            pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    finished = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *arguments, "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert QUICK_NOTICE in finished.stdout
    for pattern in patterns:
        assert re.search(pattern, finished.stdout), f"{pattern!r} not printed:\n{finished.stdout}"
