"""Command line: ``python -m ordercore fit|predict|rules|check|experiments ...`` (see ``--help``).

Every bad argument or unreadable file ends with one line on standard error and exit status 1
(argparse's own usage errors: status 2); ``check`` exits with 1 when it finds a problem.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ordercore.cli.tabular import (
    MODELS,
    Table,
    check_preference_file,
    fit_table,
    predict_table,
    read_preferences,
    read_rules,
    rule_preferences,
)
from ordercore.data.benchmarks import BENCHMARKS, load_dataset
from ordercore.data.tables import prepare
from ordercore.exceptions import ClusterUnavailableError, SolverError
from ordercore.experiments import mpmr as mpmr_experiments
from ordercore.experiments import npsvor as npsvor_experiments
from ordercore.experiments.mpmr import BostonData
from ordercore.experiments.npsvor import ORDINAL_DATASETS
from ordercore.experiments.protocol import (
    BEDROOM_READINGS,
    REGRESSORS,
    SWEEPS,
    TUNINGS,
    Protocol,
    bedroom_rule,
    norm_comparison_table,
    read_result,
    report_table,
    run_experiment,
    with_household_columns,
)
from ordercore.experiments.sentiment import QUICK_GRID as SENTIMENT_QUICK_GRID
from ordercore.experiments.sentiment import SentimentProtocol, load_sentiment, sentiment
from ordercore.models.files import read_model
from ordercore.mpmr.estimator import PAPER_RHO
from ordercore.preferences import PreferenceSet

MAX_LISTED = 10
"""Cycles, conflicts or duplicates ``check`` lists of each kind (it counts them all)."""


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


# ---------------------------------------------------------------------------------------- argument types
def _number(kind, minimum, name: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {name}") from None
        if not value >= minimum:  # also refuses NaN
            raise argparse.ArgumentTypeError(f"{text!r} must be at least {minimum}")
        return value

    return parse


positive_int = _number(int, 1, "a whole number")
count = _number(int, 0, "a whole number")
non_negative = _number(float, 0.0, "a number")


def positive(text: str) -> float:
    value = non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
    return value


def columns(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one column")
    return names


def writable(path: Path) -> Path:
    """``path`` if a file can be written there (checked by creating it, and removing it again when it
    was not there before), so that a long run never ends unable to save."""
    if path.is_dir():
        raise ValueError(f"cannot write {path}: it is a directory")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a"):
            pass
    except OSError as error:
        raise ValueError(f"cannot write {path}: {error.strerror or error}") from None
    if not existed:
        path.unlink()
    return path


# ---------------------------------------------------------------------------------------- parsers
def _add_own_data(parser: argparse.ArgumentParser, target_required: bool) -> None:
    parser.add_argument("data", type=Path, help="CSV table, one row per item, with a header")
    parser.add_argument("--target", required=target_required, help="column to predict; empty cells: unlabeled rows")
    parser.add_argument("--features", type=columns, help="comma-separated feature columns (default: all others)")
    parser.add_argument("--id", dest="id_column", help="column naming the rows in preference files")


def _add_max_pairs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-pairs", type=count, help="preferences per rule at most, a uniform sample beyond (default: every pair)"
    )


def _fit_parser(commands) -> None:
    fit = commands.add_parser("fit", help="fit a model to a CSV table, its labels, preferences and rules")
    _add_own_data(fit, target_required=True)
    fit.add_argument("--preferences", type=Path, nargs="+", default=[], help="CSV or JSON preference files")
    fit.add_argument("--rules", type=Path, nargs="+", default=[], help="JSON files of one rule or a list")
    _add_max_pairs(fit)
    fit.add_argument("--model", choices=MODELS, default="lp", help="'lp' (seeds 000/001, default) or 'gp' (seed 002)")
    fit.add_argument("--gamma", type=positive, help="LP: RBF kernel width (default 1 / features)")
    fit.add_argument("--lambda1", type=non_negative, help="LP: weight of the 1-norm of alpha")
    fit.add_argument("--lambda2", type=non_negative, help="LP: weight of the preferences")
    fit.add_argument("--out", type=Path, required=True, help="model file to write (.npz)")
    predict = commands.add_parser("predict", help="predict every row of a CSV table with a saved model")
    predict.add_argument("model", type=Path, help="model file written by 'fit'")
    predict.add_argument("data", type=Path, help="CSV table with the model's feature columns")
    predict.add_argument("--out", type=Path, required=True, help="CSV to write: prediction (and std for the GP)")


def _preference_parsers(commands) -> None:
    rules = commands.add_parser("rules", help="turn rules into preferences").add_subparsers(
        dest="action", required=True
    )
    apply = rules.add_parser("apply", help="the preferences rules make over a CSV table's rows")
    apply.add_argument("rules", type=Path, help="JSON file of one rule or a list")
    _add_own_data(apply, target_required=False)
    _add_max_pairs(apply)
    apply.add_argument("--out", type=Path, required=True, help="preference CSV to write (i, j, margin, weight)")
    check = commands.add_parser("check", help="cycles, conflicts and duplicates in preference files (exit 1: some)")
    check.add_argument("preferences", type=Path, nargs="+", help="CSV or JSON preference files")


def _experiment_parsers(commands) -> None:
    experiments = commands.add_parser("experiments", help="reproduce the seeds' experiments, or run them on a table")
    kinds = experiments.add_subparsers(dest="experiment", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--trials", type=positive_int, default=20, help="random trials (default 20, as the seeds)")
    common.add_argument("--seed", type=int, default=0, help="seed of the trial seeds (default 0)")
    common.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    common.add_argument("--backend", choices=["local", "dask"], default="local", help="'dask': on --scheduler")
    common.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (with --backend dask)")
    common.add_argument("--out", type=Path, required=True, help="JSON file to write")
    common.add_argument("--quick", action="store_true", help="3x3 grid and 3 folds: a fast smoke run")
    common.add_argument(
        "--tune",
        choices=TUNINGS,
        default=None,
        help="'svr': the seeds' protocol (table1 and figure2 default); 'preferences': also tune SSL's gamma, "
        "lambda1, lambda2 on held-out preferences; 'labels': also tune SSL's lambda2 by cross-validation on the "
        "labels; 'trust': weigh each rule by its accuracy on labeled pairs and choose lambda2 by repeated "
        "cross-validation on the labels, keeping SVR unless preferences clearly help (rules and bedroom default)",
    )
    common.add_argument("--lambda2", type=non_negative, default=None, help="SSL's lambda2 (default 1, the seeds')")
    common.add_argument(
        "--centers",
        choices=["labeled", "all"],
        default="labeled",
        help="SSL's expansion: over the labeled points (the seeds) or also every preference point",
    )
    common.add_argument(
        "--norm",
        type=int,
        choices=sorted(REGRESSORS),
        default=1,
        help="the regulariser of SVR and SSL: 1, ||alpha||_1 (the seeds' LP (9), default); "
        "2, ||f||_H^2 (seed 001's QP (7), with --tune svr)",
    )
    table = argparse.ArgumentParser(add_help=False)
    source = table.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", choices=sorted(BENCHMARKS), help="a benchmark in ORDERCORE_DATA")
    source.add_argument("--data", type=Path, help="any CSV table (with --target, --labeled, --unlabeled)")
    table.add_argument("--target", help="with --data: the column to predict (rows without it are dropped)")
    table.add_argument("--features", type=columns, help="with --data: comma-separated features (default: all)")
    table.add_argument("--labeled", type=positive_int, help="l, labeled rows per trial (benchmarks: the seeds')")
    table.add_argument("--unlabeled", type=count, help="u, unlabeled rows per trial (benchmarks: the seeds')")
    rules = kinds.add_parser("rules", parents=[table, common], help="Table 1's protocol with a rule file's preferences")
    rules.add_argument(
        "--rules", type=Path, required=True, help="JSON rule file (one rule or a list, as 'rules apply')"
    )
    oracle = argparse.ArgumentParser(add_help=False, parents=[table])
    oracle.add_argument("--preferences", type=count, default=None, help="p (default 1000)")
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
    _sentiment_parser(kinds)
    _mpmr_parsers(kinds)
    _npsvor_parser(kinds)
    report = kinds.add_parser("report", help="a Markdown table of table1 (or sentiment) result files")
    report.add_argument("files", type=Path, nargs="+", help="JSON files written by 'experiments table1'")
    compare = kinds.add_parser("compare", help="the 2-norm beside the 1-norm on the same trials, paired t-tests")
    compare.add_argument("files", type=Path, nargs="+", help="per data set a table1 file of each --norm")
    sweep = kinds.add_parser("figure2", parents=[oracle, common], help="seed 001 Fig. 2: vary p, l or beta")
    sweep.add_argument("--vary", choices=sorted(SWEEPS), required=True)
    sweep.add_argument("--values", type=float, nargs="+", help="values of the varied parameter (defaults: the seeds')")
    sweep.add_argument("--figure", type=Path, help="also write the figure (.html; .png needs kaleido)")


def _sentiment_parser(kinds) -> None:
    defaults = SentimentProtocol()
    sentiment = kinds.add_parser(
        "sentiment", help="seed 000 Table 2's setting: movie snippets, a proxy expert trained on tweets, SVR vs SSL"
    )
    sentiment.add_argument("--trials", type=positive_int, default=20, help="random trials (default 20, as the seeds)")
    sentiment.add_argument("--seed", type=int, default=0, help="seed of the trial seeds (default 0)")
    sentiment.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    sentiment.add_argument("--labeled", type=positive_int, default=defaults.n_labeled, help="l (default 30)")
    sentiment.add_argument("--unlabeled", type=count, default=defaults.n_unlabeled, help="u (default 500)")
    sentiment.add_argument("--pairs", type=count, default=defaults.n_preferences, help="p, proxy preferences (500)")
    sentiment.add_argument(
        "--min-difference",
        type=non_negative,
        default=defaults.min_difference,
        help="the proxy prefers only where its scores differ by more (default 0.25, the seed's threshold)",
    )
    sentiment.add_argument("--kernel", choices=["linear", "rbf"], default=defaults.kernel, help="default linear")
    sentiment.add_argument("--lambda2", type=non_negative, default=defaults.lambda2, help="SSL's lambda2 (default 1)")
    sentiment.add_argument(
        "--centers",
        choices=["labeled", "all"],
        default=defaults.centers,
        help="SSL's expansion: over the labeled points (the seeds) or also every preference point",
    )
    sentiment.add_argument(
        "--flip", action="store_true", help="reverse every proxy preference (the seed's sanity check)"
    )
    sentiment.add_argument("--quick", action="store_true", help="a 3-point lambda1 grid and 3 folds: a smoke run")
    sentiment.add_argument("--out", type=Path, required=True, help="JSON file to write")


MPMR_EXPERIMENTS = {
    "mpmr-sinc": ("seed 003 Table 1 and Fig. 1(d, e): MPMR on the noisy sinc", 100),
    "mpmr-boston": ("seed 003 Table 2: MPMR on Boston housing, 481 / 25 splits per epsilon", 100),
    "mpmr-coverage": ("beyond seed 003: Omega against measured, cross-validated and conformal coverage", 200),
}
"""Seed 003's experiments: subcommand -> (help, default trials)."""


def _mpmr_parsers(kinds) -> None:
    for name, (text, trials) in MPMR_EXPERIMENTS.items():
        parser = kinds.add_parser(name, help=text)
        parser.add_argument("--trials", type=positive_int, default=trials, help=f"random trials (default {trials})")
        parser.add_argument("--seed", type=int, default=0, help="seed of the trial seeds (default 0)")
        parser.add_argument("--out", type=Path, required=True, help="JSON file to write")
        if name != "mpmr-coverage":
            parser.add_argument(
                "--rho", type=non_negative, default=PAPER_RHO, help=f"covariance regulariser (default {PAPER_RHO:g})"
            )


def _npsvor_parser(kinds) -> None:
    npsvor = kinds.add_parser(
        "npsvor", help="seed 004 Tables 2, 4, 5: NPSVOR's two rules and linear SVC / SVR / logistic regression"
    )
    npsvor.add_argument("--dataset", choices=ORDINAL_DATASETS, required=True, help="an ordinal data set")
    npsvor.add_argument(
        "--ranks", type=positive_int, default=5, help="california, abalone: quantile ranks of the target (default 5)"
    )
    npsvor.add_argument("--trials", type=positive_int, default=1, help="splits (default 1; Treebank's is fixed)")
    npsvor.add_argument("--seed", type=int, default=0, help="seed of the trial seeds (default 0)")
    npsvor.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    npsvor.add_argument("--out", type=Path, required=True, help="JSON file to write")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ordercore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _fit_parser(commands)
    _preference_parsers(commands)
    _experiment_parsers(commands)
    return parser


# ---------------------------------------------------------------------------------------- commands
def fit(args) -> int:
    writable(args.out)
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = table.labeled()
    preferences = PreferenceSet.concatenate(
        [read_preferences(path, table) for path in args.preferences]
        + [rule_preferences(read_rules(path), table, labeled, args.max_pairs) for path in args.rules]
    )
    parameters = {
        name: getattr(args, name) for name in ("gamma", "lambda1", "lambda2") if getattr(args, name) is not None
    }
    estimator, preprocessing = fit_table(table, preferences, args.model, parameters)
    metadata = {"target": args.target, "features": table.features, "id": args.id_column, "model": args.model}
    estimator.save(args.out, preprocessing=preprocessing, metadata=metadata)
    print(
        f"fitted {args.model} on {len(table.frame)} rows ({int(labeled.sum())} labeled) and {len(preferences)} "
        f"preferences; wrote {args.out}"
    )
    return 0


def predict(args) -> int:
    writable(args.out)
    model_file = read_model(args.model)
    table = Table.read(args.data)
    predict_table(model_file, table.frame).to_csv(args.out, index=False, float_format="%.17g")
    print(f"predicted {len(table.frame)} rows; wrote {args.out}")
    return 0


def apply_rules(args) -> int:
    writable(args.out)
    rules = read_rules(args.rules)
    table = Table.read(args.data, args.target, args.features, args.id_column)
    labeled = None if args.target is None else table.labeled()
    preferences = rule_preferences(rules, table, labeled, args.max_pairs)
    frame = preferences.to_frame()
    if table.ids is not None:
        frame["i"], frame["j"] = table.ids[frame["i"]], table.ids[frame["j"]]  # rules make no unary preferences
    frame.to_csv(args.out, index=False, float_format="%.17g")
    print(f"{len(rules)} rule(s) made {len(preferences)} preferences; wrote {args.out}")
    return 0


def check(args) -> int:
    """Print what ``check_preference_graph`` finds in each file; 1 when anything, else 0."""
    found = False
    for path in args.preferences:
        report, n_preferences, names = check_preference_file(path)
        problems = [("cycle", [" > ".join(names[rows]) for rows in report.cycles])]
        problems.append(("conflict", [f"{names[i]} and {names[j]} preferred both ways" for i, j in report.conflicts]))
        problems.append(
            ("duplicate", [f"{names[i]} over {names[j]} stated more than once" for i, j in report.duplicates])
        )
        counts = ", ".join(f"{len(items)} {kind}{'s' * (len(items) != 1)}" for kind, items in problems)
        print(f"{path}: {n_preferences} preferences: {counts}")
        for kind, items in problems:
            for item in items[:MAX_LISTED]:
                print(f"  {kind}: {item}")
            if len(items) > MAX_LISTED:
                print(f"  ... and {len(items) - MAX_LISTED} more {kind}s")
        found |= not report.ok
    return int(found)


TABLES = {"report": report_table, "compare": norm_comparison_table}
"""Experiments subcommands that print a Markdown table of result files."""


def experiments(args) -> int:
    if args.experiment in TABLES:
        try:
            print(TABLES[args.experiment]([read_result(path.read_bytes()) for path in args.files]))
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"cannot {args.experiment} {' '.join(map(str, args.files))}: {error}") from None
        return 0
    if args.experiment == "sentiment":
        return sentiment_experiment(args)
    if args.experiment in MPMR_EXPERIMENTS:
        return mpmr_experiment(args)
    if args.experiment == "npsvor":
        return npsvor_experiment(args)
    for path in (args.out, getattr(args, "figure", None)):
        if path is not None:
            writable(path)
    scheduler = _scheduler(args)
    data, name, protocol = _experiment_setup(args)
    values = None
    if getattr(args, "values", None):
        # p and l are counts: a whole value becomes an int, any other is left for Protocol.check to refuse
        values = [int(v) if args.vary in ("p", "l") and v.is_integer() else v for v in args.values]
    progress = TerminalProgress(f"{args.experiment} {name}")
    result = run_experiment(
        args.experiment, data, name, protocol, args.trials, args.seed, args.jobs, progress,
        vary=getattr(args, "vary", None), values=values, scheduler=scheduler,
    )  # fmt: skip
    print(_summary_line(args, name, result))
    if getattr(args, "figure", None):
        from ordercore.experiments.figures import sweep_figure, write_figure

        write_figure(sweep_figure(result), args.figure)
    return write_result(args, result)


def write_result(args, result: dict) -> int:
    """Write an experiment's ``result`` to ``args.out`` as JSON, with the command that made it."""
    result["command"] = "python -m ordercore " + " ".join(sys.argv[1:] if args.argv is None else args.argv)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")
    return 0


def sentiment_experiment(args) -> int:
    """``experiments sentiment``: seed 000 Table 2's setting, per-trial JSON like ``table1``'s."""
    writable(args.out)
    protocol = SentimentProtocol(
        n_labeled=args.labeled,
        n_unlabeled=args.unlabeled,
        n_preferences=args.pairs,
        min_difference=args.min_difference,
        kernel=args.kernel,
        lambda2=args.lambda2,
        centers=args.centers,
        flip=args.flip,
        **({"grid": SENTIMENT_QUICK_GRID, "folds": 3} if args.quick else {}),
    )
    data = load_sentiment()
    result = sentiment(data, protocol, args.trials, args.seed, args.jobs, TerminalProgress("sentiment"))
    summary = result["summary"]
    print(
        f"sentiment (l = {args.labeled}, u = {args.unlabeled}, p = {args.pairs}): proxy pair accuracy "
        f"{100 * summary['preference_accuracy_mean']:.1f}%; SVR {summary['svr_mae_mean']:.4g} ± "
        f"{summary['svr_mae_std']:.3g}, SSL {summary['ssl_mae_mean']:.4g} ± {summary['ssl_mae_std']:.3g}, "
        f"improvement {100 * summary['improvement']:.1f}%, paired t-test p = {summary.get('p_value', 1.0):.2g}"
    )
    return write_result(args, result)


def mpmr_experiment(args) -> int:
    """``experiments mpmr-sinc|mpmr-boston|mpmr-coverage``: per-trial JSON, and the tables beside the paper."""
    writable(args.out)
    progress = TerminalProgress(args.experiment)
    if args.experiment == "mpmr-sinc":
        result = mpmr_experiments.sinc_experiment(args.trials, args.seed, progress, args.rho)
    elif args.experiment == "mpmr-boston":
        result = mpmr_experiments.boston_experiment(BostonData.load(), args.trials, args.seed, progress, args.rho)
    else:
        result = mpmr_experiments.coverage_study(BostonData.load(), args.trials, args.seed, progress)
    print(mpmr_experiments.report(result))
    return write_result(args, result)


def npsvor_experiment(args) -> int:
    """``experiments npsvor``: per-trial JSON, and the summary table."""
    writable(args.out)
    data = npsvor_experiments.load_ordinal(args.dataset, args.ranks)
    result = npsvor_experiments.npsvor_experiment(data, args.trials, args.seed, args.jobs)
    print(npsvor_experiments.report(result))
    return write_result(args, result)


def _scheduler(args) -> str | None:
    if args.backend == "dask" and not args.scheduler:
        raise ValueError("--backend dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    if args.scheduler and args.backend != "dask":
        raise ValueError("--scheduler applies with --backend dask only")
    return args.scheduler


RULE_EXPERIMENTS = ("rules", "bedroom")
"""Experiments whose preferences come from rules: they run with automatic trust unless --tune says."""


def _experiment_setup(args):
    """(data, its name, protocol) from the arguments: a benchmark, or --data with --target, -l, -u."""
    tune = args.tune or ("trust" if args.experiment in RULE_EXPERIMENTS and args.lambda2 is None else "svr")
    if tune in ("trust", "labels", "preferences") and args.lambda2 is not None:
        raise ValueError(f"--tune {tune} chooses lambda2 itself; --lambda2 fixes it (with --tune svr)")
    changes = dict(tune=tune, centers=args.centers, norm=args.norm)
    for option, field in (("preferences", "n_preferences"), ("labeled", "n_labeled"), ("unlabeled", "n_unlabeled")):
        if getattr(args, option, None) is not None:
            changes[field] = getattr(args, option)
    if args.lambda2 is not None:
        changes["lambda2"] = args.lambda2
    if args.experiment == "bedroom":
        changes.update(rules=(bedroom_rule(args.bedrooms).to_dict(),), rule_weights=args.weights)
        return load_dataset("california"), "california", Protocol.for_benchmark("california", args.quick, **changes)
    if args.experiment == "rules":
        changes["rules"] = tuple(rule.to_dict() for rule in read_rules(args.rules))
    if args.dataset is not None:
        if args.target or args.features:
            raise ValueError("--target and --features go with --data (a benchmark has its own)")
        data = load_dataset(args.dataset)
        if args.dataset == "california":  # the household columns the bedroom readings use, for rules
            data = with_household_columns(data)
        return data, args.dataset, Protocol.for_benchmark(args.dataset, args.quick, **changes)
    if not args.target or "n_labeled" not in changes or "n_unlabeled" not in changes:
        raise ValueError("--data needs --target COLUMN, --labeled L and --unlabeled U")
    table = Table.read(args.data, args.target, args.features)
    known = table.frame[args.target].notna().to_numpy()
    if not known.all():
        print(f"note: {int((~known).sum())} rows without {args.target!r} are left out", file=sys.stderr)
    data = prepare(table.frame[known].reset_index(drop=True), args.target, table.features, name=args.data.stem)
    return data, args.data.stem, Protocol.create(quick=args.quick, **changes)


def _summary_line(args, name: str, result: dict) -> str:
    if args.experiment == "figure2":
        return "\n".join(
            f"{args.vary} = {point['value']}: SVR {point['svr_mae_mean']:.4g}, SSL {point['ssl_mae_mean']:.4g}"
            for point in result["points"]
        )
    summary = result["summary"]
    line = (
        f"SVR {summary['svr_mae_mean']:.4g} ± {summary['svr_mae_std']:.3g}, "
        f"SSL {summary['ssl_mae_mean']:.4g} ± {summary['ssl_mae_std']:.3g}, "
        f"improvement {100 * summary['improvement']:.1f}%, paired t-test p = {summary.get('p_value', 1.0):.2g}"
    )
    if args.experiment == "bedroom":
        return (
            f"bedroom rule ({args.bedrooms}, weights {args.weights}): {summary['n_preferences_mean']:.0f} "
            f"preferences per trial, {100 * summary['preference_accuracy_mean']:.0f}% accurate; {line}"
        )
    return f"{name}: {line}"


COMMANDS = {"fit": fit, "predict": predict, "rules": apply_rules, "check": check, "experiments": experiments}


def main(argv=None) -> int:
    """Run one command; a bad argument or file ends with ``error: ...`` and exit status 1."""
    args = _parser().parse_args(argv)
    args.argv = argv
    try:
        return COMMANDS[args.command](args)
    except (ValueError, OSError, SolverError, ClusterUnavailableError) as error:
        raise SystemExit(f"error: {error}") from None
