"""The protocol's experiments by name, as the command line and the Experiments page run them, and their
result files: checked when read, and set out as Markdown tables (Table 1's, and the 2-norm beside the
1-norm).
"""

from __future__ import annotations

import json

import numpy as np
from scipy import stats

from ordercore.data.tables import Dataset
from ordercore.experiments.bedroom import bedroom
from ordercore.experiments.protocol import Protocol
from ordercore.experiments.table1 import SWEEPS, figure2, rules_experiment, table1

EXPERIMENTS = ("table1", "figure2", "bedroom", "rules")


def run_experiment(
    kind: str,
    data: Dataset,
    name: str,
    protocol: Protocol,
    trials: int,
    seed: int = 0,
    jobs: int = 1,
    progress=None,
    *,
    vary: str | None = None,
    values=None,
    scheduler: str | None = None,
) -> dict:
    """One of ``EXPERIMENTS`` on ``data`` (the bedroom rule: California with its household columns),
    as the command line and the Experiments page run it; figure2 varies ``vary`` over ``values``.
    ``ValueError`` before any trial runs when l + u leave no test rows."""
    protocol.check(len(data.y))
    if kind == "bedroom":
        return bedroom(data, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "rules":
        return rules_experiment(data, name, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "table1":
        return table1(data, name, protocol, trials, seed, jobs, progress, scheduler=scheduler)
    if kind == "figure2":
        return figure2(data, name, protocol, vary, values, trials, seed, jobs, progress, scheduler=scheduler)
    raise ValueError(f"experiment must be one of {EXPERIMENTS}, got {kind!r}")


def report_table(results: list[dict]) -> str:
    """A Markdown table of Table 1 results (the JSON of ``table1``): per data set and configuration,
    the regulariser, SVR and SSL test MAE (mean ± std), the improvement, the paired t-test, and the
    paper's SSL (its LP, so only beside 1-norm rows)."""
    lines = [
        "| data set | norm | SSL centers | tuning | trials | SVR MAE | SSL MAE | improvement | paired t-test p "
        "| paper SSL |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in _table1_results(results):
        summary, protocol, paper = result["summary"], result["protocol"], result.get("paper") or {}
        norm = protocol.get("norm", 1)  # 1 in files that do not say; None for a family of neither norm
        shown = protocol.get("model") if norm is None else norm
        digits = _digits(summary["svr_mae_mean"])
        paper_ssl = (
            f"{paper['ssl'][0]:.{digits}f} ± {paper['ssl'][1]:.{digits}f}" if "ssl" in paper and norm == 1 else "—"
        )
        lines.append(
            f"| {result['dataset']} | {shown} | {protocol['centers']} | {protocol['tune']} | {summary['n_trials']} "
            f"| {_mean_sd([t['svr_mae'] for t in result['trials']], digits)} "
            f"| {_mean_sd([t['ssl_mae'] for t in result['trials']], digits)} "
            f"| {100 * summary['improvement']:.1f}% | {summary.get('p_value', float('nan')):.1e} | {paper_ssl} |"
        )
    return "\n".join(lines)


TABLE1_LIKE = ("table1", "sentiment", "rules")
"""Experiments whose JSON has Table 1's shape (one protocol, SVR and SSL per trial), which
``report_table`` reads."""


def _table1_results(results: list[dict]) -> list[dict]:
    if any(result.get("experiment") not in TABLE1_LIKE for result in results):
        raise ValueError("report takes Table 1 results (JSON written by 'experiments table1' or 'sentiment')")
    return results


def _digits(mae: float) -> int:
    return 0 if mae > 1000 else 3


def _mean_sd(values, digits: int) -> str:
    values = np.asarray(values, dtype=float)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.{digits}f} ± {sd:.{digits}f}"


def _paired_p(a, b) -> float:
    """Two-sided paired t-test p-value of equal means (NaN with fewer than two trials or no difference)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(stats.ttest_rel(a, b).pvalue) if a.size > 1 and np.any(a != b) else float("nan")


def norm_comparison_table(results: list[dict]) -> str:
    """Seed 001's 2-norm (7) beside its LP (9) on the same trials: for each data set, one Table 1 result
    of each norm (same seed and protocol but the norm), trials paired by their seeds.  Columns: test MAE
    (mean ± std) of each norm's SVR and SSL, and paired t-tests of SSL 2-norm against its own SVR, against
    SSL 1-norm, and against SVR 1-norm.  ``ValueError`` unless the two runs share every trial seed and
    their protocols (as far as both files record them) differ only in the norm."""
    by_dataset: dict[str, dict[int, dict]] = {}
    for result in _table1_results(results):
        norm = result["protocol"].get("norm", 1)
        if norm in by_dataset.setdefault(result["dataset"], {}):
            raise ValueError(f"two {norm}-norm results for {result['dataset']}; give one of each norm")
        by_dataset[result["dataset"]][norm] = result
    lines = [
        "| data set | trials | SVR 1-norm | SSL 1-norm | SVR 2-norm | SSL 2-norm | SSL 2-norm vs SVR 2-norm: p "
        "| SSL 2-norm vs SSL 1-norm: p | SSL 2-norm vs SVR 1-norm: p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for dataset, runs in by_dataset.items():
        if set(runs) != {1, 2}:
            raise ValueError(f"{dataset}: give one 1-norm and one 2-norm result, got norms {sorted(runs)}")
        protocols = [runs[norm]["protocol"] for norm in (1, 2)]
        differing = sorted(
            k for k in set(protocols[0]) & set(protocols[1]) - {"norm", "model"} if protocols[0][k] != protocols[1][k]
        )
        if differing:
            raise ValueError(f"{dataset}: the two runs' protocols differ in {differing}, not only in the norm")
        one, two = ({t["seed"]: t for t in runs[norm]["trials"]} for norm in (1, 2))
        if set(one) != set(two):
            raise ValueError(f"{dataset}: the two runs do not share their trials (different --seed or --trials?)")
        seeds = sorted(one)
        svr1, ssl1, svr2, ssl2 = (
            [trials[s][key] for s in seeds]
            for trials, key in ((one, "svr_mae"), (one, "ssl_mae"), (two, "svr_mae"), (two, "ssl_mae"))
        )
        digits = _digits(np.mean(svr1))
        lines.append(
            f"| {dataset} | {len(seeds)} | {_mean_sd(svr1, digits)} | {_mean_sd(ssl1, digits)} "
            f"| {_mean_sd(svr2, digits)} | {_mean_sd(ssl2, digits)} | {_paired_p(ssl2, svr2):.1e} "
            f"| {_paired_p(ssl2, ssl1):.1e} | {_paired_p(ssl2, svr1):.1e} |"
        )
    return "\n".join(lines)


RESULT_NUMBERS = {
    "summary": ("svr_mae_mean", "ssl_mae_mean", "improvement"),
    "trials": ("svr_mae", "ssl_mae"),
    "points": ("value", "svr_mae_mean", "svr_mae_std", "ssl_mae_mean", "ssl_mae_std"),
}
"""The numbers a result file must hold where the Experiments page reads it: per field of the document,
the names each record (the summary, every trial, every point of a sweep) has."""


def read_result(content: bytes) -> dict:
    """A result file written by ``python -m ordercore experiments`` (its bytes), parsed as JSON and
    checked to have the shape the Experiments page reads; ``ValueError`` saying what is wrong."""
    try:
        result = json.loads(content)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a JSON file ({error})") from None
    except RecursionError:
        raise ValueError("not a result file: its JSON is nested too deeply") from None
    if not isinstance(result, dict) or result.get("experiment") not in (*EXPERIMENTS, *TABLE1_LIKE):
        raise ValueError("not a result of 'python -m ordercore experiments' (its 'experiment' field names none)")
    if not isinstance(result.get("protocol"), dict):
        raise ValueError("'protocol' must be an object (the settings the experiment ran with)")
    if result["experiment"] != "figure2":
        _check_numbers(result, "summary", many=False)
        _check_numbers(result, "trials", many=True)
        if not isinstance(result["summary"].get("p_value", 0.0), int | float | None):
            raise ValueError(f"summary.p_value must be a number, got {result['summary']['p_value']!r}")
        return result
    if result.get("vary") not in SWEEPS or not isinstance(result.get("dataset"), str):
        raise ValueError(f"a figure2 result names its data set and what it varies (one of {sorted(SWEEPS)})")
    _check_numbers(result, "points", many=True)
    return result


def _check_numbers(result: dict, field: str, many: bool) -> None:
    """``ValueError`` unless result[field] is an object (``many``: a list of objects) holding every
    number ``RESULT_NUMBERS[field]`` names."""
    records = result.get(field)
    if not (isinstance(records, list) if many else isinstance(records, dict)):
        kind = "a list of objects" if many else "an object"
        raise ValueError(f"'{field}' must be {kind}, got {type(records).__name__}")
    for position, record in enumerate(records if many else [records]):
        where = f"{field}[{position}]" if many else field
        if not isinstance(record, dict):
            raise ValueError(f"{where} must be an object, got {type(record).__name__}")
        for name in RESULT_NUMBERS[field]:
            value = record.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{where}.{name} must be a number, got {value!r}")
