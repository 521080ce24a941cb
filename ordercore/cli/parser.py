"""The command line's parser (``python -m ordercore ...``) and the checks of its arguments: every
subcommand's options, their types, and whether an output file can be written.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path

from ordercore.cli.arguments import DISTINCT, click_count, count, non_negative, positive, positive_int, trial_count
from ordercore.cli.tabular import table_models
from ordercore.data.benchmarks import BENCHMARKS
from ordercore.experiments.bedroom import BEDROOM_READINGS
from ordercore.experiments.gp_instance import INSTANCE_SETS
from ordercore.experiments.gp_labels import FIGURE3_LABELS, TABLE2_DATASETS
from ordercore.experiments.label_svms import COARSE_POINTS, FINE_POINTS
from ordercore.experiments.npsvor import ORDINAL_DATASETS
from ordercore.experiments.protocol import NORMS, TUNINGS
from ordercore.experiments.sentiment import SentimentProtocol
from ordercore.experiments.session import SessionProtocol
from ordercore.experiments.table1 import SWEEPS
from ordercore.inputs.table_formats import ending
from ordercore.mpmr.estimator import PAPER_RHO
from ordercore.studio.workbench import PAIR_CANDIDATES, PAIR_STRATEGIES


def file_path(text: str) -> Path:
    """A path argument; an empty one is refused (Path('') reads '.', the directory, so "" was reported as
    '. is a directory'), and so is one ending in a separator, which names a directory (Path drops it: --out
    o/new/ wrote a file named o/new)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"the path is empty ({text!r}): name a file")
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(
            f"the path {text!r} ends in {text[-1]!r}, which names a directory; name a file"
        )
    return Path(text)


def json_path(text: str) -> Path:
    """An experiment's --out (``file_path``): its results are JSON, so its name ends in .json or in no format;
    any other ending is refused before the run (.csv and .jsonl got JSON, corpus 11's E07)."""
    path = file_path(text)
    if ending(path) not in ("", ".json"):
        raise argparse.ArgumentTypeError(
            f"{text!r} ends in {ending(path)!r}: an experiment writes its results as JSON; name a file ending in .json"
        )
    return path


def input_path(text: str) -> Path:
    """A file to read (``file_path``); '-' is refused: standard input is not read ('fit -' said '[Errno 2] No
    such file or directory'), a pipe is named as /dev/stdin."""
    if text == "-":
        raise argparse.ArgumentTypeError(
            "'-' (standard input) is not read: name a file, or /dev/stdin to read the table through a pipe"
        )
    return file_path(text)


def rho(text: str) -> float | str:
    """MPMR's ρ: 'auto' (chosen from the data) or a number >= 0."""
    return "auto" if text == "auto" else non_negative(text)


IMAGE_SUFFIXES = (".png", ".svg", ".pdf")
"""What a --figure may be besides .html: images, which plotly writes with the kaleido package."""


def figure_path(text: str) -> Path:
    """A --figure file write_figure can write: .html, or an image (``IMAGE_SUFFIXES``) when kaleido is
    installed; refused before the run (a figure.txt was refused after it, its results unsaved)."""
    path = Path(text)
    suffix = path.suffix.lower()
    if suffix == ".html":
        return path
    if suffix not in IMAGE_SUFFIXES:
        raise argparse.ArgumentTypeError(f"{text!r} must end in .html (or {', '.join(IMAGE_SUFFIXES)}: images)")
    if importlib.util.find_spec("kaleido") is None:
        raise argparse.ArgumentTypeError(f"{text!r}: images need the kaleido package (not installed); use .html")
    return path


def columns(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one column")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"column(s) {repeated} named more than once")
    return names


def writable(path: Path, inputs=(), option: str = "--out") -> Path:
    """``path`` if a file can be written there (checked by creating it, and removing it again when it
    was not there before), so that a long run never ends unable to save; ``ValueError`` when it is '-',
    one of the ``inputs`` (it would destroy it), or exists and is no regular file (a FIFO would block, a
    device be replaced), named as ``option``.  A symbolic link to a regular file is written through: its target
    changes."""
    if str(path) == "-":
        raise ValueError("--out '-': this command writes a file, not standard output; name a file")
    for source in inputs:
        if _same_file(path, Path(source)):
            raise ValueError(f"{option} {path} is the input file {source}: writing it would destroy it; name another")
    if path.is_dir():
        raise ValueError(f"{option} {path} is a directory; name a file in it")
    existed = path.exists()
    if existed and not path.is_file():
        raise ValueError(f"{option} {path} is not a regular file")
    folder = next((parent for parent in path.parents if parent.exists()), None)
    if folder is not None and not folder.is_dir():
        raise ValueError(f"cannot write {path}: {folder} is not a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a"):
            pass
    except OSError as error:
        raise ValueError(f"cannot write {path}: {error.strerror or error}") from None
    if not existed:
        path.resolve().unlink()  # what was created: a dangling link's target, the link kept
    return path


def _same_file(path: Path, other: Path) -> bool:
    """Whether ``path`` and ``other`` name one file (resolving links and relative paths)."""
    try:
        return path.exists() and other.exists() and path.samefile(other)
    except OSError:
        return path.resolve() == other.resolve()


def _add_own_data(parser: argparse.ArgumentParser, target_required: bool) -> None:
    parser.add_argument("data", type=input_path, help="CSV table, one row per item, with a header")
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
    fit.add_argument(
        "--preferences", type=input_path, nargs="+", default=[], help="CSV, JSON or JSON Lines preference files"
    )
    fit.add_argument("--rules", type=input_path, nargs="+", default=[], help="JSON files of one rule or a list")
    _add_max_pairs(fit)
    models = table_models()
    fit.add_argument(
        "--model",
        choices=list(models),
        default="lp",
        help="; ".join(
            f"'{key}': {family.label}{f' ({family.reference})' if family.reference else ''}"
            for key, family in models.items()
        )
        + " (default 'lp')",
    )
    fit.add_argument("--gamma", type=positive, help="LP: RBF kernel width (default 1 / features)")
    fit.add_argument("--lambda1", type=non_negative, help="LP: weight of the 1-norm of alpha")
    fit.add_argument("--lambda2", type=non_negative, help="LP: weight of the preferences")
    fit.add_argument("--out", type=file_path, required=True, help="model file to write (.npz)")
    predict = commands.add_parser("predict", help="predict every row of a CSV table with a saved model")
    predict.add_argument("model", type=input_path, help="model file written by 'fit'")
    predict.add_argument("data", type=input_path, help="CSV table with the model's feature columns")
    predict.add_argument(
        "--out",
        type=file_path,
        required=True,
        help="table to write, .csv, .tsv, .json (a list of records) or .jsonl (JSON Lines) ('-': CSV on standard "
        "output): prediction (and std for the GP, lower, upper for MPMR)",
    )


def _preference_parsers(commands) -> None:
    rules = commands.add_parser("rules", help="turn rules into preferences").add_subparsers(
        dest="action", required=True
    )
    apply = rules.add_parser("apply", help="the preferences rules make over a CSV table's rows")
    apply.add_argument("rules", type=input_path, help="JSON file of one rule or a list")
    _add_own_data(apply, target_required=False)
    _add_max_pairs(apply)
    apply.add_argument(
        "--out",
        type=file_path,
        required=True,
        help="preferences to write, .csv, .tsv, .json (a list of records) or .jsonl (JSON Lines) ('-': CSV on "
        "standard output): i, j, margin, weight",
    )
    check = commands.add_parser("check", help="cycles, conflicts and duplicates in preference files (exit 1: some)")
    check.add_argument("preferences", type=input_path, nargs="+", help="CSV, JSON or JSON Lines preference files")


def _experiment_parsers(commands) -> None:
    experiments = commands.add_parser("experiments", help="reproduce the seeds' experiments, or run them on a table")
    kinds = experiments.add_subparsers(dest="experiment", required=True)
    local = argparse.ArgumentParser(add_help=False)  # how trials run (in this process's pool) and where to
    local.add_argument("--trials", type=trial_count, default=20, help="random trials (default 20, as the seeds)")
    local.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
    local.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    local.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")
    runs = argparse.ArgumentParser(add_help=False, parents=[local])  # ... or on a Dask cluster
    runs.add_argument("--backend", choices=["local", "dask"], default="local", help="'dask': on --scheduler")
    runs.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786 (with --backend dask)")
    common = argparse.ArgumentParser(add_help=False, parents=[runs])
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
        choices=sorted(NORMS),
        default=1,
        help="the regulariser of SVR and SSL: 1, ||alpha||_1 (the seeds' LP (9), default); "
        "2, ||f||_H^2 (seed 001's QP (7), with --tune svr)",
    )
    table = argparse.ArgumentParser(add_help=False)
    source = table.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", choices=sorted(BENCHMARKS), help="a benchmark in ORDERCORE_DATA")
    source.add_argument("--data", type=input_path, help="any CSV table (with --target, --labeled, --unlabeled)")
    table.add_argument("--target", help="with --data: the column to predict (rows without it are dropped)")
    table.add_argument("--features", type=columns, help="with --data: comma-separated features (default: all)")
    table.add_argument("--labeled", type=positive_int, help="l, labeled rows per trial (benchmarks: the seeds')")
    table.add_argument("--unlabeled", type=count, help="u, unlabeled rows per trial (benchmarks: the seeds')")
    rules = kinds.add_parser("rules", parents=[table, common], help="Table 1's protocol with a rule file's preferences")
    rules.add_argument(
        "--rules", type=input_path, required=True, help="JSON rule file (one rule or a list, as 'rules apply')"
    )
    oracle = argparse.ArgumentParser(add_help=False, parents=[table])
    oracle.add_argument(
        "--preferences", type=positive_int, default=None, help="p, at least 1: SSL's preferences (default 1000)"
    )
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
    _session_parser(kinds, runs)
    _mpmr_parsers(kinds)
    _npsvor_parser(kinds)
    _gp_label_parsers(kinds)
    _gp_parsers(kinds, local)
    report = kinds.add_parser("report", help="a Markdown table of table1 (or sentiment) result files")
    report.add_argument("files", type=input_path, nargs="+", help="JSON files written by 'experiments table1'")
    compare = kinds.add_parser("compare", help="the 2-norm beside the 1-norm on the same trials, paired t-tests")
    compare.add_argument("files", type=input_path, nargs="+", help="per data set a table1 file of each --norm")
    sweep = kinds.add_parser("figure2", parents=[oracle, common], help="seed 001 Fig. 2: vary p, l or beta")
    sweep.add_argument("--vary", choices=sorted(SWEEPS), required=True)
    sweep.add_argument("--values", type=float, **DISTINCT, help="values of the varied parameter (defaults: the seeds')")
    sweep.add_argument("--figure", type=figure_path, help="also write the figure (.html; .png needs kaleido)")


def _sentiment_parser(kinds) -> None:
    defaults = SentimentProtocol()
    sentiment = kinds.add_parser(
        "sentiment", help="seed 000 Table 2's setting: movie snippets, a proxy expert trained on tweets, SVR vs SSL"
    )
    sentiment.add_argument("--trials", type=trial_count, default=20, help="random trials (default 20, as the seeds)")
    sentiment.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
    sentiment.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    sentiment.add_argument("--labeled", type=positive_int, default=defaults.n_labeled, help="l (default 30)")
    sentiment.add_argument("--unlabeled", type=count, default=defaults.n_unlabeled, help="u (default 500)")
    sentiment.add_argument(
        "--pairs",
        type=positive_int,
        default=defaults.n_preferences,
        help="p, proxy preferences (500; at least 1: the run measures the proxy's accuracy on them)",
    )
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
    sentiment.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")


def _session_parser(kinds, runs) -> None:
    defaults = SessionProtocol()
    session = kinds.add_parser(
        "session",
        parents=[runs],
        help="the Studio's labelling loop answered by a simulated expert: test MAE against answers, per pair choice",
    )
    source = session.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", choices=["sample", *sorted(BENCHMARKS)], help="the sample homes or a benchmark")
    source.add_argument("--data", type=input_path, help="any CSV table (with --target)")
    session.add_argument("--target", help="with --data: the column to predict")
    session.add_argument(
        "--features", type=columns, help="with --data: comma-separated features (default: every other column "
        "a model can take, but identifiers such as id or *_id)",
    )  # fmt: skip
    session.add_argument("--labeled", type=positive_int, default=defaults.n_labeled, help="l (default 60)")
    session.add_argument("--clicks", type=click_count, default=defaults.clicks, help="answers (default 300)")
    session.add_argument(
        "--strategy", **DISTINCT, choices=PAIR_STRATEGIES, default=[defaults.strategy],
        help=f"how the next pairs are chosen, one arm each (default {defaults.strategy}, the Studio's)",
    )  # fmt: skip
    session.add_argument(
        "--candidates", choices=PAIR_CANDIDATES, default=defaults.candidates, help="default: the Studio's"
    )
    noise = session.add_mutually_exclusive_group()
    noise.add_argument(
        "--expert-noise", type=non_negative, default=None,
        help=f"the expert's perception noise, a fraction of the target's SD (default {defaults.expert_noise:g})",
    )  # fmt: skip
    noise.add_argument(
        "--expert-accuracy", type=float, default=None,
        help="or the expert's accuracy on typical pairs, 0.5 < A < 1 (the noise is found from it per data set)",
    )  # fmt: skip
    session.add_argument(
        "--expert-tolerance", type=non_negative, default=defaults.expert_tolerance,
        help="'about equal' below this perceived difference, a fraction of the target's SD (default 0.05)",
    )  # fmt: skip
    session.add_argument(
        "--expert-skip", type=non_negative, default=defaults.expert_skip, help="share of pairs skipped (0.05)"
    )
    session.add_argument(
        "--label-cost", type=non_negative, default=defaults.label_cost,
        help=f"answers one value label costs, for the labels-instead arm (default {defaults.label_cost:g})",
    )  # fmt: skip
    session.add_argument("--every", type=positive_int, default=defaults.every, help="answers between checkpoints")
    session.add_argument(
        "--lambda2", type=non_negative, default=None, help="automatic trust off, SSL at this lambda2 (default: on)"
    )
    session.add_argument("--figure", type=figure_path, help="also draw the learning curves (.html; .png needs kaleido)")


MPMR_EXPERIMENTS = {
    "mpmr-sinc": ("seed 003 Table 1 and Fig. 1(d, e): MPMR on the noisy sinc", 100),
    "mpmr-boston": ("seed 003 Table 2: MPMR on Boston housing, 481 / 25 splits per epsilon", 100),
    "mpmr-coverage": ("beyond seed 003: Omega against measured, cross-validated and conformal coverage", 200),
}
"""Seed 003's experiments: subcommand -> (help, default trials)."""


def _mpmr_parsers(kinds) -> None:
    for name, (text, trials) in MPMR_EXPERIMENTS.items():
        parser = kinds.add_parser(name, help=text)
        parser.add_argument("--trials", type=trial_count, default=trials, help=f"random trials (default {trials})")
        parser.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
        parser.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")
        parser.add_argument(
            "--rho",
            type=rho,
            default=PAPER_RHO,
            help=f"covariance regulariser: a number, or 'auto' to choose it from the data (default {PAPER_RHO:g}, "
            "the paper's)",
        )


def _npsvor_parser(kinds) -> None:
    """Seed 004's commands: ``npsvor`` (Tables 2, 4, 5) and ``npsvor-figure4``."""
    npsvor = kinds.add_parser(
        "npsvor", help="seed 004 Tables 2, 4, 5: NPSVOR's two rules and linear SVC / SVR / logistic regression"
    )
    npsvor.add_argument("--dataset", choices=ORDINAL_DATASETS, required=True, help="an ordinal data set")
    npsvor.add_argument(
        "--ranks", type=positive_int, default=5, help="california, abalone: quantile ranks of the target (default 5)"
    )
    npsvor.add_argument("--trials", type=trial_count, default=1, help="splits (default 1; Treebank's is fixed)")
    npsvor.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
    npsvor.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
    npsvor.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")
    figure4 = kinds.add_parser(
        "npsvor-figure4", help="seed 004 Fig. 4: DCD-1 against DCD-2, time to the dual optimum on one rank"
    )
    figure4.add_argument("--dataset", choices=ORDINAL_DATASETS, default="treebank", help="default treebank")
    figure4.add_argument(
        "--rank", type=positive_int, default=3, help="the rank, counted from 1 (default 3, the paper's)"
    )
    figure4.add_argument("--trials", type=trial_count, default=1, help="visiting orders per solver (default 1)")
    figure4.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
    figure4.add_argument(
        "--repeats", type=positive_int, default=5, help="runs of each trial, each sweep timed by its fastest (5)"
    )
    figure4.add_argument("--quick", action="store_true", help="loose stopping rules: a fast smoke run")
    figure4.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")
    figure4.add_argument("--figure", type=figure_path, help="also write the figure (.html; .png needs kaleido)")


def _gp_label_parsers(kinds) -> None:
    """Seed 002's label-preference experiments: Table 2 and Figure 3."""
    table2 = kinds.add_parser(
        "gp-table2", help="seed 002 Table 2: classes as label preferences, GP vs pairwise-coupling SVM vs CC-SVM"
    )
    table2.add_argument(
        "--datasets", **DISTINCT, choices=list(TABLE2_DATASETS), default=list(TABLE2_DATASETS),
        help="multiclass sets standing in for the seed's (default: all five)",
    )  # fmt: skip
    figure3 = kinds.add_parser(
        "gp-figure3", help="seed 002 Fig. 3: label ranking by expected utility, GP vs CC-SVM, 2-10 labels"
    )
    figure3.add_argument(
        "--labels", **DISTINCT, type=positive_int, default=list(FIGURE3_LABELS), help="numbers of labels (2-10)"
    )
    figure3.add_argument("--figure", type=figure_path, help="also draw the figure (.html; .png needs kaleido)")
    figure3.add_argument(
        "--gp-kernel", choices=["rbf", "linear"], default="rbf",
        help="the GP's kernel: rbf (Gaussian, the default) or linear (the seed's, on the raw features)",
    )  # fmt: skip
    for parser in (table2, figure3):
        parser.add_argument("--trials", type=trial_count, default=20, help="random trials (default 20, as the seed)")
        parser.add_argument("--seed", type=count, default=0, help="seed of the trial seeds (default 0)")
        parser.add_argument("--jobs", type=positive_int, default=1, help="trials run in parallel (default 1)")
        parser.add_argument("--coarse", type=positive_int, help=f"SVMs' coarse grid points ({COARSE_POINTS}; quick 3)")
        parser.add_argument("--fine", type=positive_int, help=f"SVMs' fine grid points ({FINE_POINTS}; quick 3)")
        parser.add_argument("--quick", action="store_true", help="3-point grids unless --coarse/--fine given, "
                            "and Table 2: 60 / 100 rows: a smoke run")  # fmt: skip
        parser.add_argument("--out", type=json_path, required=True, help="JSON file to write (.json)")


def _gp_parsers(kinds, local) -> None:
    """Seed 002's instance preferences: Table 1 (``gp-table1``) and Fig. 2's scaling (``gp-figure2``), their
    trials in this process (``local``: no Dask backend)."""
    table1 = kinds.add_parser(
        "gp-table1", parents=[local], help="seed 002 Table 1: CC-SVM vs the GP (Gaussian, ARD) on instance preferences"
    )
    table1.add_argument(
        "--dataset", choices=list(INSTANCE_SETS), required=True,
        help="a regression set (abalone: pairs among all 4,177 rows; abalone-500: among 500 rows sampled per trial)",
    )  # fmt: skip
    table1.add_argument("--quick", action="store_true", help="CC-SVM on a 3 x 3 grid, no fine search: a smoke run")
    table1.add_argument("--resume", action="store_true", help="take the trials in OUT.trials.jsonl, run the rest")
    figure2 = kinds.add_parser(
        "gp-figure2", parents=[local], help="seed 002 Fig. 2: error and CPU time of CC-SVM and the GP against p"
    )
    figure2.add_argument("--pairs", type=positive_int, **DISTINCT, help="training pair counts (default 100 ... 1000)")
    figure2.add_argument("--instances", type=positive_int, default=100, help="Treebank sentences per trial (100)")
    figure2.add_argument("--quick", action="store_true", help="C from a 3-point grid: a smoke run")
    figure2.add_argument("--figure", type=figure_path, help="also write the figure (.html; .png needs kaleido)")
    figure2.add_argument(
        "--gp-kernel", choices=["rbf", "linear"], default="rbf",
        help="the GP's kernel: rbf (Gaussian, the default) or linear (the seed's)",
    )  # fmt: skip
    figure2.add_argument(
        "--cc-svm-solver", choices=["libsvm", "qp"], default="libsvm",
        help="the solver of CC-SVM's timed dual: libsvm (SMO, the default) or qp (HiGHS's general-purpose QP)",
    )  # fmt: skip


def parser(description: str | None = None) -> argparse.ArgumentParser:
    """``python -m ordercore``'s parser, its ``--help`` starting with ``description``."""
    parser = argparse.ArgumentParser(prog="python -m ordercore", description=description)
    commands = parser.add_subparsers(dest="command", required=True)
    _fit_parser(commands)
    _preference_parsers(commands)
    _experiment_parsers(commands)
    return parser
