"""Several annotators answering one session at once, each a process with its own Store (issue 16's
acceptance: 4 annotators x 500 answers on SQLite and PostgreSQL, 0 lost, 0 duplicated, 0 errors).

For each backend, on a new, empty database (a SQLite file in a temporary directory; a schema of its
own in the PostgreSQL database of --postgres-url, dropped afterwards): first one annotator alone, then
--annotators at once, each giving --answers answers (a pair of rows no other answer has, the choices
a, b, about equal and skip in turn) as fast as ``Store.add_answer`` returns.  The processes start
together (a barrier), open their Store on the empty database and create the session, or find it made
by another.  Then the answers stored are compared with those given: lost (given, not stored),
duplicated (stored more than once) and errors (any exception a call raised).  Prints those, answers
per second (all answers over the wall time from the start to the last answer), the median and 95th
percentile of one answer's time, and the ratio of throughput together to alone.

Run: python bench/store_concurrency_bench.py [--annotators 4] [--answers 500] [--backends sqlite postgresql]
     [--postgres-url URL]   (default: ORDERCORE_TEST_POSTGRES_URL, as .ci/postgres sets it up)
     [--quick]   (2 annotators x 5 answers)
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.quick_mode import parse_arguments  # noqa: E402
from ordercore.studio.store import Store  # noqa: E402

CHOICES = ("a", "b", "equal", "skip")


def given(k: int, m: int, n_answers: int) -> tuple[str, int, int, str]:
    """Annotator k's m-th answer: (annotator, row A, row B, choice)."""
    return f"annotator {k}", m, n_answers + k, CHOICES[m % 4]


def annotator(url: str, k: int, n_answers: int, start, results) -> None:
    """One annotator's process: puts (start time, end time, seconds per answer, errors) on results."""
    errors, seconds = [], []
    start.wait()
    began = time.time()
    try:
        store = Store(url)
        try:
            store.create_session("bench", settings={"n_rows": n_answers + 100})
        except ValueError as error:
            if "already exists" not in str(error):
                raise
        session = store.session("bench")
        for m in range(n_answers):
            name, row_a, row_b, choice = given(k, m, n_answers)
            tick = time.perf_counter()
            try:
                store.add_answer(session.id, row_a, row_b, choice, name)
            except Exception as error:  # counted and shown, never expected
                errors.append(f"{type(error).__name__}: {error}")
            seconds.append(time.perf_counter() - tick)
    except Exception as error:
        errors.append(f"{type(error).__name__}: {error}")
    results.put((began, time.time(), seconds, errors))


def run(url: str, n_annotators: int, n_answers: int) -> dict:
    """``n_annotators`` processes at once on the (empty) database at url; the figures printed."""
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(n_annotators), context.Queue()
    workers = [context.Process(target=annotator, args=(url, k, n_answers, start, results)) for k in range(n_annotators)]
    for worker in workers:
        worker.start()
    reports = [results.get(timeout=3600) for _ in workers]
    for worker in workers:
        worker.join()
    store = Store(url)
    answers = store.answers(store.session("bench").id)
    stored = Counter(zip(answers["annotator"], answers["row_a"], answers["row_b"], answers["choice"], strict=True))
    expected = {given(k, m, n_answers) for k in range(n_annotators) for m in range(n_answers)}
    store.engine.dispose()
    seconds = sorted(s for report in reports for s in report[2])
    wall = max(report[1] for report in reports) - min(report[0] for report in reports)
    return {
        "lost": len(expected - set(stored)),
        "duplicated": sum(count - 1 for count in stored.values()),
        "unexpected": len(set(stored) - expected),
        "errors": [error for report in reports for error in report[3]],
        "per second": len(expected) / wall,
        "median ms": 1000 * statistics.median(seconds),
        "p95 ms": 1000 * seconds[int(0.95 * (len(seconds) - 1))],
    }


@contextmanager
def empty_database(backend: str, postgres_url: str | None):
    """The URL of a new, empty database on the backend, removed afterwards."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            yield f"sqlite:///{Path(directory) / 'bench.sqlite'}"
        return
    admin = sa.create_engine(postgres_url, poolclass=sa.pool.NullPool)
    schema = f"bench_{uuid.uuid4().hex}"
    with admin.begin() as connection:
        connection.execute(sa.schema.CreateSchema(schema))
    try:
        yield (
            sa.make_url(postgres_url)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as connection:
            connection.execute(sa.schema.DropSchema(schema, cascade=True))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=4)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--backends", nargs="+", choices=("sqlite", "postgresql"), default=["sqlite", "postgresql"])
    parser.add_argument("--postgres-url", default=os.environ.get("ORDERCORE_TEST_POSTGRES_URL"))
    args = parse_arguments(parser, annotators=2, answers=5)
    for backend in args.backends:
        if backend == "postgresql" and not args.postgres_url:
            print("postgresql: skipped (no --postgres-url or ORDERCORE_TEST_POSTGRES_URL; see .ci/postgres)")
            continue
        figures = {}
        for n_annotators in (1, args.annotators):
            with empty_database(backend, args.postgres_url) as url:
                figures[n_annotators] = result = run(url, n_annotators, args.answers)
            print(
                f"{backend:10s} {n_annotators} x {args.answers} answers: lost {result['lost']}, duplicated "
                f"{result['duplicated']}, unexpected {result['unexpected']}, errors {len(result['errors'])}; "
                f"{result['per second']:.0f} answers/s, one answer median {result['median ms']:.1f} ms "
                f"(95th percentile {result['p95 ms']:.1f} ms)"
            )
            for error in result["errors"][:5]:
                print(f"    {error.splitlines()[0]}")
        ratio = figures[args.annotators]["per second"] / figures[1]["per second"]
        print(f"{backend:10s} throughput of {args.annotators} annotators at once / one alone: {ratio:.2f}")


if __name__ == "__main__":
    main()
