"""Command line: ``python -m ordercore experiments table1|figure2|bedroom|report ...`` (see ``--help``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ordercore.datasets import BENCHMARKS, load_dataset
from ordercore.experiments import (
    BEDROOM_READINGS,
    SWEEPS,
    Protocol,
    bedroom,
    bedroom_rule,
    figure2,
    report_table,
    table1,
)


class TerminalProgress:
    """A one-line progress bar on standard error: ``[#####-----] 7/20 trials, 12 s``."""

    def __init__(self, label: str, stream=sys.stderr, width: int = 30):
        self.label, self.stream, self.width, self.start = label, stream, width, time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        filled = int(self.width * done / total)
        elapsed = time.perf_counter() - self.start
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'-' * (self.width - filled)}] {done}/{total} trials, {elapsed:.0f} s"
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ordercore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    experiments = commands.add_parser("experiments", help="reproduce the seeds' benchmark experiments")
    kinds = experiments.add_subparsers(dest="experiment", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trials", type=int, default=20, help="random trials (default 20, as the seeds)")
    common.add_argument("--seed", type=int, default=0, help="seed of the trial seeds (default 0)")
    common.add_argument("--jobs", type=int, default=1, help="trials run in parallel (default 1; -1: all cores)")
    common.add_argument("--out", type=Path, required=True, help="JSON file to write")
    common.add_argument("--quick", action="store_true", help="3x3 grid and 3 folds: a fast smoke run")
    common.add_argument(
        "--tune",
        choices=["svr", "preferences", "labels"],
        default="svr",
        help="'svr': the seeds' protocol; 'preferences': also tune SSL's gamma, lambda1, lambda2 "
        "on held-out preferences; 'labels': also tune SSL's lambda2 by cross-validation on the labels",
    )
    common.add_argument("--lambda2", type=float, default=None, help="SSL's lambda2 (default 1, the seeds')")
    common.add_argument(
        "--centers",
        choices=["labeled", "all"],
        default="labeled",
        help="SSL's expansion: over the labeled points (the seeds) or also every preference point",
    )
    oracle = argparse.ArgumentParser(add_help=False)
    oracle.add_argument("--dataset", choices=sorted(BENCHMARKS), required=True)
    oracle.add_argument("--preferences", type=int, default=None, help="p (default 1000)")
    kinds.add_parser("table1", parents=[oracle, common], help="seed 001 Table 1: SVR vs SSL test MAE")
    bedroom = kinds.add_parser(
        "bedroom", parents=[common], help="seed 000's California bedroom rule: SVR vs SSL test MAE"
    )
    bedroom.add_argument(
        "--bedrooms",
        choices=sorted(BEDROOM_READINGS),
        default="total",
        help="the ordering column: the block's total bedrooms (the plain reading, default), or "
        "bedrooms or rooms per household",
    )
    bedroom.add_argument(
        "--weights",
        choices=["rule", "accuracy"],
        default="rule",
        help="'rule': w = 1; 'accuracy': w = log-odds of the rule's accuracy on labeled-labeled pairs",
    )
    report = kinds.add_parser("report", help="a Markdown table of table1 result files")
    report.add_argument("files", type=Path, nargs="+", help="JSON files written by 'experiments table1'")
    sweep = kinds.add_parser("figure2", parents=[oracle, common], help="seed 001 Fig. 2: vary p, l or beta")
    sweep.add_argument("--vary", choices=sorted(SWEEPS), required=True)
    sweep.add_argument("--values", type=float, nargs="+", help="values of the varied parameter (defaults: the seeds')")
    sweep.add_argument("--figure", type=Path, help="also write the figure (.html; .png needs kaleido)")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.experiment == "report":
        try:
            print(report_table([json.loads(path.read_text()) for path in args.files]))
        except (OSError, ValueError, KeyError) as error:
            raise SystemExit(f"error: cannot report {' '.join(map(str, args.files))}: {error}") from None
        return 0
    if args.trials < 1:
        raise SystemExit("--trials must be at least 1")
    changes = dict(tune=args.tune, centers=args.centers)
    if getattr(args, "preferences", None) is not None:
        changes["n_preferences"] = args.preferences
    if args.lambda2 is not None:
        if args.lambda2 < 0:
            raise SystemExit("--lambda2 must be >= 0")
        changes["lambda2"] = args.lambda2
    if args.experiment == "bedroom":
        args.dataset = "california"
        changes.update(rule=bedroom_rule(args.bedrooms).to_dict(), rule_weights=args.weights)
    protocol = Protocol.for_benchmark(args.dataset, quick=args.quick, **changes)
    try:
        data = load_dataset(args.dataset)
    except (FileNotFoundError, ValueError) as error:
        raise SystemExit(f"error: {error}") from None
    progress = TerminalProgress(f"{args.experiment} {args.dataset}")
    if args.experiment == "bedroom":
        result = bedroom(data, protocol, args.trials, args.seed, args.jobs, progress)
        summary = result["summary"]
        print(
            f"bedroom rule ({args.bedrooms}, weights {args.weights}): {summary['n_preferences_mean']:.0f} "
            f"preferences per trial, {100 * summary['preference_accuracy_mean']:.0f}% accurate; "
            f"SVR {summary['svr_mae_mean']:.0f}, SSL {summary['ssl_mae_mean']:.0f}, "
            f"improvement {100 * summary['improvement']:.1f}%, paired t-test p = {summary.get('p_value', 1.0):.2g}"
        )
    elif args.experiment == "table1":
        result = table1(data, args.dataset, protocol, args.trials, args.seed, args.jobs, progress)
        summary = result["summary"]
        print(
            f"{args.dataset}: SVR {summary['svr_mae_mean']:.4g} ± {summary['svr_mae_std']:.3g}, "
            f"SSL {summary['ssl_mae_mean']:.4g} ± {summary['ssl_mae_std']:.3g}, "
            f"improvement {100 * summary['improvement']:.1f}%, paired t-test p = {summary.get('p_value', 1.0):.2g}"
        )
    else:
        values = None
        if args.values:
            values = [int(v) if args.vary in ("p", "l") else v for v in args.values]
        result = figure2(data, args.dataset, protocol, args.vary, values, args.trials, args.seed, args.jobs, progress)
        for point in result["points"]:
            print(f"{args.vary} = {point['value']}: SVR {point['svr_mae_mean']:.4g}, SSL {point['ssl_mae_mean']:.4g}")
        if args.figure:
            from ordercore.figures import sweep_figure, write_figure

            write_figure(sweep_figure(result), args.figure)
    result["command"] = "python -m ordercore " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")
    return 0
