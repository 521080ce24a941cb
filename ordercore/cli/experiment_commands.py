"""The ``experiments`` commands: the seeds' protocol (Table 1, Fig. 2, the bedroom and rules
experiments, on a benchmark or one's own table), seed 000's sentiment, seed 003's MPMR and seed 004's
NPSVOR experiments, and the Markdown tables of result files.  Each writes its result as JSON with the
command that made it, showing progress on standard error."""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from dataclasses import replace

import numpy as np
import pandas as pd

from ordercore.cli.arguments import not_directories
from ordercore.cli.parser import MPMR_EXPERIMENTS, writable
from ordercore.cli.table_commands import status
from ordercore.cli.tabular import Table, check_rules, read_rules
from ordercore.cli.trial_progress import TrialProgress
from ordercore.data.benchmarks import load_dataset
from ordercore.data.tables import prepare
from ordercore.experiments import gp_instance, npsvor_figure4
from ordercore.experiments import mpmr as mpmr_experiments
from ordercore.experiments import npsvor as npsvor_experiments
from ordercore.experiments.bedroom import bedroom_rule, with_household_columns
from ordercore.experiments.label_svms import COARSE_POINTS, FINE_POINTS, QUICK_POINTS
from ordercore.experiments.mpmr import BostonData
from ordercore.experiments.protocol import Protocol
from ordercore.experiments.results import (
    TABLE1_LIKE,
    norm_comparison_table,
    read_result,
    report_table,
    run_experiment,
)
from ordercore.experiments.sentiment import QUICK_GRID as SENTIMENT_QUICK_GRID
from ordercore.experiments.sentiment import SentimentProtocol, load_sentiment, sentiment
from ordercore.experiments.session import (
    LABELS_INSTEAD,
    SessionProtocol,
    SessionSource,
    session_experiment,
    session_report,
)
from ordercore.experiments.trial_log import progress_path
from ordercore.inputs.printable import quoted
from ordercore.knowledge.experts import noise_for_accuracy
from ordercore.studio.data import IDENTIFIER_NAMES, load_source, named_like, upload_features


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


TABLES = {"report": report_table, "compare": norm_comparison_table}
"""Experiments subcommands that print a Markdown table of result files."""


def _read_table1_like(path, command: str) -> dict:
    """``read_result`` of the file at ``path``; ``ValueError`` naming the experiment of a genuine result
    that ``command`` (report, compare) does not read: they said its 'experiment' field named none."""
    content = path.read_bytes()
    try:
        kind = json.loads(content).get("experiment")
    except (ValueError, AttributeError, RecursionError):
        kind = None  # read_result says what is wrong with it
    others = ("npsvor", "npsvor-figure4", "gp-table2", "gp-figure3", "session", *MPMR_EXPERIMENTS, *GP_EXPERIMENTS)
    if isinstance(kind, str) and kind in others:
        raise ValueError(
            f"{path} is a result of 'experiments {kind}', which {command} does not read: it reads results of "
            f"{', '.join(TABLE1_LIKE)} (their trials' SVR and SSL test MAE)"
        )
    return read_result(content)


def experiments(args) -> int:
    if args.experiment in TABLES:
        try:
            print(TABLES[args.experiment]([_read_table1_like(path, args.experiment) for path in args.files]))
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"cannot {args.experiment} {' '.join(map(str, args.files))}: {error}") from None
        return 0
    if args.experiment == "sentiment":
        return sentiment_experiment(args)
    if args.experiment in MPMR_EXPERIMENTS:
        return mpmr_experiment(args)
    if args.experiment in ("npsvor", "npsvor-figure4"):
        return npsvor_experiment(args)
    if args.experiment in ("gp-table2", "gp-figure3"):
        return gp_label_experiment(args)
    if args.experiment == "session":
        return session_experiment_command(args)
    if args.experiment in GP_EXPERIMENTS:
        return GP_EXPERIMENTS[args.experiment](args)
    inputs = [path for path in (getattr(args, "data", None), getattr(args, "rules", None)) if path is not None]
    for option, path in (("--out", args.out), ("--figure", getattr(args, "figure", None))):
        if path is not None:
            writable(path, inputs, option)
    scheduler = _scheduler(args)
    data, name, protocol = _experiment_setup(args)
    values = _sweep_values(args, data.y)
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


def _sweep_values(args, y: np.ndarray) -> list | None:
    """figure2's ``--values`` (None: the defaults): p and l whole numbers (any other, and a value that is
    not finite, is left for Protocol.check to refuse); ``ValueError`` for a beta whose margins, beta times
    differences of ``y``, overflow float64."""
    if not getattr(args, "values", None):
        return None
    span = float(np.ptp(y))
    for value in args.values if args.vary == "beta" else ():
        if math.isfinite(value) and not math.isfinite(value * span):  # NaN, inf: Protocol.check's
            raise ValueError(
                f"--values {value:g}: beta times the target's range ({span:.3g}) overflows float64; give a smaller beta"
            )
    return [int(v) if args.vary in ("p", "l") and v.is_integer() else v for v in args.values]


def write_result(args, result: dict) -> int:
    """Write an experiment's ``result`` to ``args.out`` as JSON, with the command that made it; a number
    that is not finite (NaN: not computed) as null, as JSON has no NaN (Python's ``json`` wrote the
    bare ``NaN`` other readers refuse)."""
    result["command"] = "python -m ordercore " + " ".join(sys.argv[1:] if args.argv is None else args.argv)
    args.out.write_text(json.dumps(_finite(result), indent=1, allow_nan=False))
    status(f"wrote {args.out}")  # on standard error, as every command's status line
    return 0


def _finite(value):
    """``value`` (JSON-like: dicts, lists, numbers, text) with every float that is not finite as None."""
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


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
        result = mpmr_experiments.coverage_study(BostonData.load(), args.trials, args.seed, progress, args.rho)
    print(mpmr_experiments.report(result))
    return write_result(args, result)


def npsvor_experiment(args) -> int:
    """``experiments npsvor``: per-trial JSON, and the summary table; ``npsvor-figure4``: both solvers'
    traces as JSON, the seconds to each relative difference, and the figure."""
    writable(args.out)
    if args.experiment == "npsvor-figure4":
        return npsvor_figure4_command(args)
    data = npsvor_experiments.load_ordinal(args.dataset, args.ranks)
    result = npsvor_experiments.npsvor_experiment(data, args.trials, args.seed, args.jobs)
    print(npsvor_experiments.report(result))
    return write_result(args, result)


def npsvor_figure4_command(args) -> int:
    """``experiments npsvor-figure4``, its output already checked writable."""
    if args.figure is not None:
        writable(args.figure, option="--figure")
    data = npsvor_experiments.load_ordinal(args.dataset)
    result = npsvor_figure4.figure4_experiment(data, args.rank, args.trials, args.seed, args.repeats, args.quick)
    print(npsvor_figure4.report(result))
    if args.figure is not None:
        from ordercore.experiments.figures import dcd_figure, write_figure

        write_figure(dcd_figure(result), args.figure)
    return write_result(args, result)


def gp_label_experiment(args) -> int:
    """``experiments gp-table2|gp-figure3``: seed 002's label-preference experiments, per-trial JSON and the
    Markdown table (and Figure 3's figure)."""
    from ordercore.experiments import gp_labels

    for option, path in (("--out", args.out), ("--figure", getattr(args, "figure", None))):
        if path is not None:
            writable(path, option=option)
    default = (QUICK_POINTS, QUICK_POINTS) if args.quick else (COARSE_POINTS, FINE_POINTS)
    grid = (args.coarse or default[0], args.fine or default[1])  # points given beside --quick are kept
    progress = TerminalProgress(args.experiment)
    if args.experiment == "gp-table2":
        sizes = (60, 100) if args.quick else (gp_labels.N_TRAIN, gp_labels.N_TEST)
        result = gp_labels.table2_experiment(args.datasets, args.trials, args.seed, args.jobs, grid, sizes, progress)
        print(gp_labels.table2_report(result))
    else:
        if any(n < 2 for n in args.labels):
            raise ValueError("--labels: each number of labels must be at least 2")
        _refuse_labels_beyond_memory(args.labels, gp_labels.FIGURE3_TRAIN)
        result = gp_labels.figure3_experiment(
            args.labels, args.trials, args.seed, args.jobs, grid, progress, args.gp_kernel
        )
        print(gp_labels.figure3_report(result))
        if args.figure is not None:
            from ordercore.experiments.figures import write_figure

            write_figure(gp_labels.figure3_figure(result), args.figure)
    return write_result(args, result)


def _refuse_labels_beyond_memory(labels: list[int], n_rows: int) -> None:
    """``ValueError`` for a gp-figure3 ``--labels`` value whose exact GP (``n_rows`` training rows times the
    labels' latent values) would not fit the memory limit, naming the most labels that do: it said to use
    method='sparse' or raise memory_limit, settings the command line lacks."""
    from ordercore.gp.budget import default_memory_limit, fit_memory

    limit = default_memory_limit()
    most = max(L for L in range(1, max(labels) + 1) if fit_memory("exact", n_rows * L, n_rows * (L - 1), 0) <= limit)
    for L in labels:
        need = fit_memory("exact", n_rows * L, n_rows * (L - 1), 0)
        if need > limit:
            raise ValueError(
                f"--labels {L}: the exact GP over {n_rows} rows times {L} labels would need about {need / 1e9:.1f} "
                f"GB, more than this machine's limit of {limit / 1e9:.1f} GB; give at most {most} labels"
            )


def gp_table1_command(args) -> int:
    """``experiments gp-table1``: seed 002 Table 1 on one set, per-trial JSON and the summary table; each
    trial also in ``<out without .json>.trials.jsonl`` as it finishes, which ``--resume`` continues."""
    writable(args.out)
    progress = TrialProgress(f"gp-table1 {args.dataset}")
    result = gp_instance.gp_table1(
        args.dataset, args.trials, args.seed, args.jobs, args.quick, progress,
        log_path=progress_path(args.out), resume=args.resume,
    )  # fmt: skip
    print(gp_instance.table1_report(result))
    return write_result(args, result)


def _enough_instances(instances: int, most: int) -> None:
    """``ValueError`` naming --instances when its sentences cannot make the largest pair count and one
    pair to test on: n sentences make at most n (n - 1) / 2 pairs."""
    if instances * (instances - 1) // 2 <= most:
        need = next(n for n in itertools.count(2) if n * (n - 1) // 2 > most)
        raise ValueError(
            f"--instances {instances}: {instances} sentence(s) make at most {instances * (instances - 1) // 2} "
            f"pairs, fewer than the largest pair count {most} and pairs to test on: give --instances {need} or more"
        )


def gp_figure2_command(args) -> int:
    """``experiments gp-figure2``: seed 002 Fig. 2 on Treebank, the points, the time exponents, a figure."""
    from ordercore.experiments import gp_scaling

    for option, path in (("--out", args.out), ("--figure", args.figure)):
        if path is not None:
            writable(path, option=option)
    pairs = args.pairs or gp_scaling.PAIR_COUNTS
    _enough_instances(args.instances, max(pairs))
    progress = TerminalProgress("gp-figure2 treebank")
    result = gp_scaling.gp_figure2(
        pairs, args.instances, args.trials, args.seed, args.jobs, args.quick, progress,
        gp_kernel=args.gp_kernel, cc_svm_solver=args.cc_svm_solver,
    )  # fmt: skip
    print(gp_scaling.figure2_report(result))
    if args.figure is not None:
        from ordercore.experiments.figures import write_figure

        write_figure(gp_scaling.scaling_figure(result), args.figure)
    return write_result(args, result)


GP_EXPERIMENTS = {"gp-table1": gp_table1_command, "gp-figure2": gp_figure2_command}
"""Seed 002's instance-preference experiments: subcommand -> its command."""


def session_experiment_command(args) -> int:
    """``experiments session``: one arm per --strategy and the labels-instead arm, on the same trials;
    per-trial and averaged checkpoints as JSON, the last checkpoint of each arm printed."""
    for option, path in (("--out", args.out), ("--figure", args.figure)):
        if path is not None:
            writable(path, option=option)
    scheduler = _scheduler(args)
    source, name = _session_source(args)
    noise = args.expert_noise
    if args.expert_accuracy is not None:
        noise = noise_for_accuracy(source.frame[source.target].to_numpy(float), args.expert_accuracy,
                                   args.expert_tolerance, args.expert_skip)  # fmt: skip
    base = SessionProtocol(
        n_labeled=args.labeled, clicks=args.clicks, candidates=args.candidates,
        expert_tolerance=args.expert_tolerance, expert_skip=args.expert_skip, label_cost=args.label_cost,
        every=args.every, lambda2=args.lambda2, **({} if noise is None else {"expert_noise": noise}),
    )  # fmt: skip
    arms = {strategy: replace(base, strategy=strategy) for strategy in args.strategy}
    arms[LABELS_INSTEAD] = replace(base, strategy="labels")
    progress = TerminalProgress(f"session {name}")
    result = session_experiment(source, name, arms, args.trials, args.seed, args.jobs, progress, scheduler=scheduler)
    print(session_report(result))
    if args.figure is not None:
        from ordercore.experiments.figures import session_figure, write_figure

        write_figure(session_figure(result), args.figure)
    return write_result(args, result)


def _session_source(args) -> tuple[SessionSource, str]:
    """The table a session experiment's trials are made from: the sample homes, a benchmark, or --data."""
    if args.dataset is not None:
        if args.target or args.features:
            raise ValueError("--target and --features go with --data (a benchmark has its own)")
        frame, target, features = load_source(args.dataset)
        return SessionSource(args.dataset, frame, target, features), args.dataset
    if not args.target:
        raise ValueError("--data needs --target COLUMN")
    not_directories(args.data, "CSV table")
    content = args.data.read_bytes()
    frame = load_source("upload", content)[0]
    if args.target not in frame.columns:
        raise ValueError(f"{args.data} has no column {quoted(args.target)}")
    _refuse_constant(frame[args.target].dropna(), args.target)
    features = args.features or [c for c in upload_features(frame, args.target) if not named_like(c, IDENTIFIER_NAMES)]
    return SessionSource("upload", frame, args.target, features, content), args.data.stem


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
        not_directories(args.rules, "rules JSON file")
        rules = read_rules(args.rules)
        check_rules(rules)
        changes["rules"] = tuple(rule.to_dict() for rule in rules)
    if args.dataset is not None:
        if args.target or args.features:
            raise ValueError("--target and --features go with --data (a benchmark has its own)")
        data = load_dataset(args.dataset)
        if args.dataset == "california":  # the household columns the bedroom readings use, for rules
            data = with_household_columns(data)
        return data, args.dataset, _enough_unlabeled(Protocol.for_benchmark(args.dataset, args.quick, **changes))
    if not args.target or "n_labeled" not in changes or "n_unlabeled" not in changes:
        raise ValueError("--data needs --target COLUMN, --labeled L and --unlabeled U")
    not_directories(args.data, "CSV table")
    table = Table.read(args.data, args.target, args.features)
    known = table.frame[args.target].notna().to_numpy()
    _refuse_constant(table.frame.loc[known, args.target], args.target)
    if not known.all():
        print(f"note: {int((~known).sum())} rows without {quoted(args.target)} are left out", file=sys.stderr)
    data = prepare(table.frame[known].reset_index(drop=True), args.target, table.features, name=args.data.stem)
    return data, args.data.stem, _enough_unlabeled(Protocol.create(quick=args.quick, **changes))


def _enough_unlabeled(protocol: Protocol) -> Protocol:
    """``protocol``, or ``ValueError`` naming --unlabeled when the oracle's preferences (drawn among the
    unlabeled rows, when no rules make them) have fewer than two rows to be drawn from."""
    if not protocol.rules and protocol.n_preferences > 0 and protocol.n_unlabeled < 2:
        raise ValueError(
            f"--unlabeled {protocol.n_unlabeled}: the {protocol.n_preferences} preferences are drawn among the "
            "unlabeled rows, which needs at least 2 of them (or --preferences 0)"
        )
    return protocol


def _refuse_constant(values: pd.Series, target: str) -> None:
    """``ValueError`` for a --data target empty in every row (formatting its one value raised IndexError),
    or with one value in every row that has one: both models fit it exactly, and the comparison read
    'improvement nan%' after numpy's warning of a division by 0."""
    if values.empty:
        raise ValueError(f"the target column {quoted(target)} is empty: label at least one row")
    if values.nunique() < 2:
        raise ValueError(
            f"the target column {quoted(target)} holds one value ({values.iloc[0]}) in every row that has one: "
            "SVR and SSL would both fit it exactly, there is nothing to compare"
        )


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
    if args.experiment == "rules" and summary["n_preferences_mean"] == 0:  # said 'improvement 0.0%' alone
        return (
            f"{name}: the rules made no preferences in any trial (no pair of a trial's rows meets their "
            f"conditions), so SSL is SVR: {line}"
        )
    if args.experiment == "bedroom":
        return (
            f"bedroom rule ({args.bedrooms}, weights {args.weights}): {summary['n_preferences_mean']:.0f} "
            f"preferences per trial, {100 * summary['preference_accuracy_mean']:.0f}% accurate; {line}"
        )
    return f"{name}: {line}"
