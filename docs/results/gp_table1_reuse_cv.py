"""Seed 002's Table 1 (``experiments gp-table1``) with CC-SVM's (C, κ) taken from an earlier run instead of
its cross validation, which is nearly all of a trial's CPU (a California trial with C ≥ 100: minutes).

For re-running the GP columns when only they changed (issue 34: GP-ARD started from the shared length
scale's optimum).  Everything else is ``gp_instance.run_trial`` as it is: each trial's pairs, CC-SVM's fit
at the earlier (C, κ), every GP column.  The cross validation's two draws from the trial's random stream
(its folds' seeds) are made as it makes them, so the GP columns' random states are the full run's; the
GP column must equal the earlier run's to the digit, or the script stops (then these are not the earlier
run's trials).  CC-SVM's errors are compared and differences printed.  With ``--trials`` beyond the
earlier run's, the further trials cross validate as ``gp-table1`` does.

    ORDERCORE_DATA=../shared/data python docs/results/gp_table1_reuse_cv.py docs/results/gp_table1_california.json \
        --out docs/results/gp_table1_california.json [--dataset NAME]   (NAME: the set, if renamed since)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ordercore.experiments import gp_instance


def earlier_choices(trials: list[dict]):
    """A stand-in for ``select_by_cross_validation`` returning each earlier trial's (C, κ) in turn, then
    cross validating as usual for the trials beyond them."""
    chosen = iter([trial["results"]["cc_svm"] for trial in trials])
    cross_validate = gp_instance.select_by_cross_validation

    def choose(X, winner, loser, rng, quick=False, **kwargs):
        earlier = next(chosen, None)
        if earlier is None:
            return cross_validate(X, winner, loser, rng, quick=quick, **kwargs)
        for _ in range(1 if quick else 2):  # each of the coarse and fine grids draws its folds' seed
            rng.integers(2**31 - 1)
        return {"C": earlier["C"], "kappa": earlier["kappa"], "cv_error": earlier["cv_error"]}

    return choose


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("earlier", type=Path, help="an earlier gp-table1 JSON of the same set and seed")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dataset", help="the set's name now, if not the earlier JSON's")
    parser.add_argument("--trials", type=int, help="trials, cross validating those beyond the earlier run's")
    args = parser.parse_args(argv)
    earlier = json.loads(args.earlier.read_text())
    gp_instance.select_by_cross_validation = earlier_choices(earlier["trials"])
    name = args.dataset or earlier["dataset"]
    trials = max(args.trials or 0, len(earlier["trials"]))
    result = gp_instance.gp_table1(name, trials, earlier["seed"], 1, earlier["protocol"]["quick"])
    for new, old in zip(result["trials"], earlier["trials"], strict=False):  # the earlier trials come first
        if new["results"]["gp"]["error"] != old["results"]["gp"]["error"]:
            sys.exit(f"trial {new['trial']}: GP's error differs from the earlier run's: not its trials")
        if new["results"]["cc_svm"]["error"] != old["results"]["cc_svm"]["error"]:
            errors = new["results"]["cc_svm"]["error"], old["results"]["cc_svm"]["error"]
            print(f"trial {new['trial']}: CC-SVM {errors[0]} (earlier {errors[1]})")
    result["command"] = "python docs/results/gp_table1_reuse_cv.py " + " ".join(sys.argv[1:] if argv is None else argv)
    result["cross_validation_from"] = {"file": str(args.earlier), "command": earlier.get("command")}
    args.out.write_text(json.dumps(result, indent=1))
    print(gp_instance.table1_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
