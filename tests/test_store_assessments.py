"""Shared trust assessments: one claimant computes an assessment and everyone reads it, a claim whose
owner stopped beating is taken over, a failure may be retried, two claims at once give one claimant,
a session keeps its three newest, and bad values are refused with nothing stored, on both backends."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from ordercore.studio.store import Store
from ordercore.studio.store.schema import assessments as assessments_table
from tests.store_checks import own_connection

LEASE = 60.0


def assessments(store: Store) -> list[tuple]:
    """Every stored assessment, read on a connection of the test's own: (session, key, state, owner,
    content, message), oldest first."""
    with own_connection(store) as connection:
        rows = connection.execute(
            sa.text("SELECT session_id, key, state, owner, content, message FROM assessments ORDER BY id")
        ).all()
    return [(*row[:4], None if row[4] is None else bytes(row[4]), row[5]) for row in rows]


def beat_back(store: Store, key: str, seconds: float) -> None:
    """Set the last heartbeat of ``key``'s claim ``seconds`` into the past (as if its owner had died)."""
    at = datetime.now(UTC) - timedelta(seconds=seconds)
    with own_connection(store) as connection:
        connection.execute(assessments_table.update().where(assessments_table.c.key == key).values(updated_at=at))


def test_one_claimant_computes_an_assessment_and_everyone_reads_it(store):
    session = store.create_session("s", settings={"n_rows": 10})
    other = Store(store.url)  # another process, or another tab
    assert store.assessment(session.id, "k1") is None and store.latest_assessment(session.id) is None
    assert store.claim_assessment(session.id, "k1", "tab of ann", LEASE)
    assert not other.claim_assessment(session.id, "k1", "tab of bob", LEASE)  # tab of ann computes it
    assert store.claim_assessment(session.id, "k1", "tab of ann", LEASE)  # it is hers already
    assert store.renew_assessment(session.id, "k1", "tab of ann")
    assert not other.renew_assessment(session.id, "k1", "tab of bob")
    running = other.assessment(session.id, "k1")
    assert (running.key, running.state, running.owner, running.content, running.message) == (
        "k1",
        "running",
        "tab of ann",
        None,
        None,
    )
    with pytest.raises(
        ValueError, match="'tab of bob' does not hold the claim of assessment 'k1': 'tab of ann' holds the claim now"
    ):
        other.finish_assessment(session.id, "k1", "tab of bob", b"result of bob")
    store.finish_assessment(session.id, "k1", "tab of ann", b"PK\x03\x04 the npz\x00")
    done = other.assessment(session.id, "k1")
    assert (done.state, done.owner, done.content, done.message) == (
        "done",
        "tab of ann",
        b"PK\x03\x04 the npz\x00",
        None,
    )
    assert done.started_at <= done.updated_at <= datetime.now(UTC)
    assert other.latest_assessment(session.id) == done
    assert not other.claim_assessment(session.id, "k1", "tab of bob", LEASE)  # done: nothing to compute
    assert not store.claim_assessment(session.id, "k1", "tab of ann", LEASE)
    assert not store.renew_assessment(session.id, "k1", "tab of ann")
    with pytest.raises(ValueError, match="it is done"):
        store.finish_assessment(session.id, "k1", "tab of ann", b"again")
    assert assessments(store) == [(session.id, "k1", "done", "tab of ann", b"PK\x03\x04 the npz\x00", None)]


def test_a_claim_whose_owner_stopped_beating_is_taken_over(store):
    """The claim's last heartbeat is older than the lease (its owner died): another takes it over; the
    old owner's heartbeat and result are refused.  A heartbeat within the lease keeps the claim."""
    session = store.create_session("s", settings={"n_rows": 10})
    assert store.claim_assessment(session.id, "k", "dead", LEASE)
    beat_back(store, "k", LEASE - 5)
    assert not store.claim_assessment(session.id, "k", "alive", LEASE)
    beat_back(store, "k", LEASE + 5)
    assert not store.claim_assessment(session.id, "k", "alive", 2 * LEASE)  # a longer lease waits longer
    assert store.claim_assessment(session.id, "k", "alive", LEASE)
    taken = store.assessment(session.id, "k")
    assert (taken.state, taken.owner) == ("running", "alive")
    assert datetime.now(UTC) - taken.started_at < timedelta(seconds=LEASE)  # started again
    assert not store.renew_assessment(session.id, "k", "dead")
    with pytest.raises(ValueError, match="'alive' holds the claim now"):
        store.finish_assessment(session.id, "k", "dead", b"late")
    with pytest.raises(ValueError, match="'alive' holds the claim now"):
        store.fail_assessment(session.id, "k", "dead", "late")
    beat_back(store, "k", LEASE + 5)
    assert store.renew_assessment(session.id, "k", "alive")  # a heartbeat: the claim is fresh again
    assert not store.claim_assessment(session.id, "k", "third", LEASE)
    store.finish_assessment(session.id, "k", "alive", b"result")
    assert assessments(store) == [(session.id, "k", "done", "alive", b"result", None)]


def test_a_failed_assessment_may_be_claimed_again_and_a_released_one_is_gone(store):
    session = store.create_session("s", settings={"n_rows": 10})
    assert store.claim_assessment(session.id, "k", "ann", LEASE)
    store.fail_assessment(session.id, "k", "ann", "the worker crashed:\nMemoryError")
    failed = store.assessment(session.id, "k")
    assert (failed.state, failed.owner, failed.content, failed.message) == (
        "failed",
        "ann",
        None,
        "the worker crashed:\nMemoryError",
    )
    assert store.latest_assessment(session.id) is None
    assert store.claim_assessment(session.id, "k", "bob", LEASE)  # a retry
    assert assessments(store) == [(session.id, "k", "running", "bob", None, None)]
    store.release_assessment(session.id, "k", "ann")  # not ann's: nothing happens
    assert assessments(store) == [(session.id, "k", "running", "bob", None, None)]
    store.release_assessment(session.id, "k", "bob")  # a cancel
    assert store.assessment(session.id, "k") is None and assessments(store) == []
    assert store.claim_assessment(session.id, "k", "ann", LEASE)


def test_a_session_keeps_its_three_newest_assessments(store):
    """Five assessments finished one after another, one failed and one running: the three newest done
    are kept with the failed and running ones; another session's stay as they are."""
    session = store.create_session("s", settings={"n_rows": 10})
    other = store.create_session("t", settings={"n_rows": 10})
    assert store.claim_assessment(other.id, "k0", "ann", LEASE)
    store.finish_assessment(other.id, "k0", "ann", b"other's")
    for key in ("failed", "running"):
        assert store.claim_assessment(session.id, key, "ann", LEASE)
    store.fail_assessment(session.id, "failed", "ann", "no")
    for k in range(5):
        assert store.claim_assessment(session.id, f"k{k}", "ann", LEASE)
        store.finish_assessment(session.id, f"k{k}", "ann", f"result {k}".encode())
        assert store.latest_assessment(session.id).key == f"k{k}"
    kept = {key for key in ("k0", "k1", "k2", "k3", "k4", "failed", "running") if store.assessment(session.id, key)}
    assert kept == {"k2", "k3", "k4", "failed", "running"}
    assert store.latest_assessment(session.id).content == b"result 4"
    assert store.latest_assessment(other.id).content == b"other's"


def test_deleting_a_session_deletes_its_assessments(store):
    session = store.create_session("s", settings={"n_rows": 10})
    other = store.create_session("t", settings={"n_rows": 10})
    for session_id in (session.id, other.id):
        assert store.claim_assessment(session_id, "k", "ann", LEASE)
    with store.engine.begin() as connection:  # the store's own connections: foreign keys on
        connection.execute(sa.text("DELETE FROM sessions WHERE id = :id"), {"id": session.id})
    assert assessments(store) == [(other.id, "k", "running", "ann", None, None)]


def test_two_claims_at_once_give_one_claimant(store):
    """Another process claims the same assessment right after this one read that it has no record: it
    waits for this claim to commit (the session is locked), then finds it taken."""
    session = store.create_session("s", settings={"n_rows": 10})
    other = Store(store.url)
    outcome = []
    racer = threading.Thread(target=lambda: outcome.append(other.claim_assessment(session.id, "k", "bob", LEASE)))
    reads = []

    def after_cursor_execute(connection, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT") and "FROM assessments" in statement:
            reads.append(statement)
            if len(reads) == 2:  # the read in the transaction that writes the claim
                racer.start()
                racer.join(timeout=1.0)  # it waits for this transaction (or, unlocked, claims now)

    sa.event.listen(store.engine, "after_cursor_execute", after_cursor_execute)
    assert store.claim_assessment(session.id, "k", "ann", LEASE)
    sa.event.remove(store.engine, "after_cursor_execute", after_cursor_execute)
    racer.join()
    assert outcome == [False] and assessments(store) == [(session.id, "k", "running", "ann", None, None)]


def test_many_claimants_at_once_give_one_claimant_per_assessment(database_url):
    """Four processes' Stores (threads) claim each of three assessments at once: one claimant each."""
    stores = [Store(database_url) for _ in range(4)]
    session = stores[0].create_session("s", settings={"n_rows": 10})
    for key in ("k0", "k1", "k2"):
        start, claimed = threading.Barrier(len(stores)), {}

        def claim(k, key=key, start=start, claimed=claimed):
            start.wait()
            claimed[k] = stores[k].claim_assessment(session.id, key, f"worker {k}", LEASE)

        threads = [threading.Thread(target=claim, args=(k,)) for k in range(len(stores))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(claimed.values()) == [False, False, False, True]
        winner = next(k for k, won in claimed.items() if won)
        assert stores[0].assessment(session.id, key).owner == f"worker {winner}"


def test_bad_values_are_refused_with_nothing_stored(store, monkeypatch):
    session = store.create_session("s", settings={"n_rows": 10})
    assert store.claim_assessment(session.id, "k", "ann", LEASE)
    before = assessments(store)
    monkeypatch.setattr("ordercore.studio.store.limits.MAX_VALUE_BYTES", 2_000)
    refused = [
        (lambda: store.claim_assessment(session.id, "x" * 65, "ann", LEASE), ValueError, "at most 64 characters"),
        (lambda: store.claim_assessment(session.id, "", "ann", LEASE), ValueError, "at most 64 characters"),
        (
            lambda: store.claim_assessment(session.id, "k\x00", "ann", LEASE),
            ValueError,
            "control character: U\\+0000 NUL",
        ),
        (lambda: store.claim_assessment(session.id, "j", "a" * 201, LEASE), ValueError, "at most 200 characters"),
        (lambda: store.claim_assessment(session.id, "j", None, LEASE), ValueError, "owner must be a non-empty"),
        (lambda: store.claim_assessment(session.id, "j", "ann", -1.0), ValueError, "finite and >= 0"),
        (lambda: store.claim_assessment(session.id, "j", "ann", float("nan")), ValueError, "finite and >= 0"),
        (lambda: store.claim_assessment(session.id, "j", "ann", "60"), ValueError, "a number of seconds"),
        (lambda: store.claim_assessment(session.id, "j", "ann", True), ValueError, "a number of seconds"),
        (lambda: store.claim_assessment(session.id + 1, "j", "ann", LEASE), KeyError, "no session"),
        (lambda: store.claim_assessment("1", "j", "ann", LEASE), KeyError, "no session '1'"),
        (lambda: store.renew_assessment(session.id + 1, "k", "ann"), KeyError, "no session"),
        (lambda: store.finish_assessment(session.id, "k", "ann", "text"), TypeError, "content is bytes"),
        (lambda: store.finish_assessment(session.id, "k", "ann", b"x" * 2_001), ValueError, "limit of 2,000"),
        (lambda: store.finish_assessment(session.id, "j", "ann", b"x"), ValueError, "there is no claim of it"),
        (lambda: store.fail_assessment(session.id, "k", "ann", "a\x00b"), ValueError, "without NUL"),
        (lambda: store.fail_assessment(session.id, "k", "ann", "y" * 2_001), ValueError, "limit of 2,000"),
        (lambda: store.release_assessment(session.id + 1, "k", "ann"), KeyError, "no session"),
        (lambda: store.assessment(session.id, "x" * 65), ValueError, "at most 64 characters"),
        (lambda: store.latest_assessment(10**20), KeyError, "no session"),
    ]
    for call, error, message in refused:
        with pytest.raises(error, match=message):
            call()
    assert assessments(store) == before
