"""Automatic trust as the session's own: the assessment of its sources (``knowledge.trust.assess_sources``,
a cross-validation of a minute or two) is computed once, stored with the session and used by every
annotator, tab and Studio process on the same store.

``SessionTrust.update(inputs)`` names the sources now.  Their assessment is keyed by a digest of what it
is computed from (``AssessmentInputs.key``: the data, the labels, the LP's settings trust uses, each
source's name and checks; a new click of a source already assessed changes none of it).  When the store
holds none for that key, the first engine to claim it (``Store.claim_assessment``) re-assesses warm
from the session's newest assessment (``knowledge.trust.reassess_sources``, milliseconds: a click that
changed some checks) or, when only a full one will do, runs the job (``ordercore.studio.jobs.trust``);
a thread of this process watches it, renews the claim (a claim not renewed for ``LEASE_SECONDS`` is
taken over: its process died) and stores the result or the failure.
Meanwhile SSL uses the newest assessment the session holds (of earlier sources), or none.

A warm re-assessment is a stop-gap: its weights are the sources now's, but its cross-validation (the
Model page's gain and verdict), blend and kept effects are the last full assessment's, of the sources as
they were then, and a source new or changed since has no effect measured.  So (unless ``refine_after``
is None) the full assessment of the same sources follows in the background once they have stood still
``refine_after`` seconds (a new user's second annotator was never measured: each of their answers was
re-assessed warm, and the red verdict of the last full assessment stayed for good).
It is stored under ``full_key(key)``; while it is queued or runs, the warm one is in force.
"""

from __future__ import annotations

import hashlib
import io
import threading
import time
import zipfile
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from ordercore.knowledge.source_weights import SourceCheck
from ordercore.knowledge.trust import SourceTrust, reassess_sources
from ordercore.preferences import PreferenceSet
from ordercore.studio.jobs.trust import BackgroundAssessment, read_assessment, write_assessment

LEASE_SECONDS = 30.0
"""A claim whose heartbeat is older than this is taken over by the next engine that asks (its owner died)."""

HEARTBEAT_SECONDS = 2.0
"""How often the watching thread renews its claim (and looks at its job)."""

CANCELLED = "cancelled"
"""How the message of a cancelled assessment starts (stored as a failure: nobody retries it until
*Run again*)."""

DAMAGED = "the stored assessment could not be read; Run again computes it anew"
"""How the message of an assessment whose stored content is damaged starts."""

SEED = 0
"""The assessment's random stream (its folds): fixed, so that one key always means one result."""

REFINE_SECONDS = 3.0
"""How long the sources must stand still after a warm re-assessment before the full one of them starts
in the background (``SessionTrust.refine_after``): an expert answering pair after pair changes
them every few answers (an audit answer, a size class), and a full assessment started at each change
would be stopped at the next one while it took the cores from the retrain."""

FULL_SUFFIX = ":full"
"""What ``full_key`` appends to the key of sources whose warm re-assessment is stored under their key."""


def full_key(key: str) -> str:
    """The key the full assessment of sources of ``key`` is stored under when a warm one is stored under
    ``key`` itself."""
    return f"{key}{FULL_SUFFIX}"


CLASSES_PER_DOUBLING = 4
"""How many size classes (``size_class``) a source passes through as it doubles: an annotator's clicks are
assessed again (warm, ``reassess_sources``, unless they doubled since the last full assessment) each
time they grow by a fifth, so that the gate on their agreement with SVR (``knowledge.expert_accuracy``)
follows their answers.  Replayed on the answers of ``experiments session`` (20 trials, an expert right on
80 % of typical pairs, random pairs), four classes a doubling rather than one gained 1-2.4 points at 50
answers and 1.7 at 100 on the sample homes, and as much or less than a point either way elsewhere."""


def size_class(count: int) -> int:
    """floor(CLASSES_PER_DOUBLING x log2(count)) for a source of ``count`` preferences (-1 for none): its
    assessment is keyed by it, so that a source whose clicks grow is assessed again (the blend chosen for
    its first answers would otherwise stay in force for all later ones)."""
    return int(np.floor(CLASSES_PER_DOUBLING * np.log2(count))) if count > 0 else -1


@dataclass(frozen=True)
class AssessmentInputs:
    """What an assessment is computed from: X (n, d); y (n,), NaN where unlabeled; the preferences (p,)
    and each one's source name (p,); each source's ``SourceCheck`` (or None) by name; the LP's lambda1
    and its other options (gamma)."""

    X: np.ndarray
    y: np.ndarray
    preferences: PreferenceSet
    names: np.ndarray
    checks: dict[str, SourceCheck | None]
    lambda1: float
    options: dict = field(default_factory=dict)

    @cached_property
    def key(self) -> str:
        """A digest of the data, the labels, the settings and each source's name, checks and ``size_class``
        (not of the preferences themselves: a click adds to a source, it does not make a new one, and is
        assessed anew when it doubles the source)."""
        digest = hashlib.sha256()
        for array in (self.X, self.y):
            digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
        digest.update(repr((float(self.lambda1), sorted(self.options.items()), SEED)).encode())
        sizes = pd.Series(np.asarray(self.names, dtype=object)).astype(str).value_counts().to_dict()
        for name in sorted(set(sizes) | set(self.checks)):
            digest.update(f"{name}\0{size_class(sizes.get(name, 0))}\0".encode())
            check = self.checks.get(name)
            if check is not None:
                for array in (check.winner, check.loser, check.right):
                    digest.update(np.ascontiguousarray(array).tobytes() + b"\1")
        return digest.hexdigest()[:40]


@dataclass(frozen=True)
class TrustStatus:
    """Where the session's assessment stands.  ``state``: 'off' (nothing to assess), 'assessed' (the
    sources now are), 'queued' (their full assessment starts once they have stood still a few seconds),
    'running' (here: ``done`` of ``total`` folds after ``seconds``), 'elsewhere' (another Studio process
    computes it), 'failed' (``message`` says why) or 'cancelled'.  ``in_force``: the assessment SSL uses:
    of the sources now when 'assessed'; else their warm re-assessment (``SourceTrust.is_full`` False: its
    weights the sources now's, its cross-validation and effects the last full one's), one of earlier
    sources, or None.  (Without ``refine_after`` a warm one in force is 'assessed', as nothing follows it.)"""

    state: str
    in_force: SourceTrust | None
    done: int = 0
    total: int = 0
    seconds: float = 0.0
    message: str = ""


class SessionTrust:
    """One session's automatic trust over ``store``, computed by at most one engine at a time
    (``owner`` names this one).  ``start`` makes the job (``BackgroundAssessment`` by default; a test
    may count or replace it); ``on_change`` is told when one this engine ran has ended (the engine
    refits SSL with it).  Thread-safe: one object serves every tab of a Studio process."""

    def __init__(self, store, session_id: int, owner: str, start=BackgroundAssessment, on_change=None):
        self.store, self.session_id, self.owner, self._start = store, session_id, owner, start
        self._on_change = on_change  # called (no arguments) once an assessment this engine ran is stored
        self.refine_after: float | None = REFINE_SECONDS
        """Seconds the sources stand still after a warm re-assessment before their full one starts (None:
        it never does; set before the first ``update``, as a simulated session that never pauses does)."""
        self.timer = threading.Timer
        """What waits those seconds: ``timer(seconds, function)``, then ``.args``, ``.start()``, ``.cancel()``
        (``threading.Timer``; a test fires one by hand rather than sleep)."""
        self._lock = threading.RLock()
        self._inputs: AssessmentInputs | None = None
        self._job = None  # (key, job) of the assessment this engine runs (the key, or full_key of it)
        self._timer: threading.Timer | None = None  # the queued full assessment of a warm one (``_queue``)
        self._decoded: dict[str, SourceTrust] = {}
        self._watcher: threading.Thread | None = None
        self.version = 0
        """Changes whenever what is in force may have changed (a page reruns, SSL refits)."""

    @property
    def key(self) -> str | None:
        return None if self._inputs is None else self._inputs.key

    def update(self, inputs: AssessmentInputs | None) -> None:
        """Make ``inputs`` the sources now (None: nothing to assess, automatic trust off): stop this
        engine's job for other sources, and start theirs unless the store holds it, someone computes it,
        or it failed or was cancelled (``run_again``)."""
        with self._lock:
            if inputs is not None and self._inputs is not None and inputs.key == self._inputs.key:
                return
            self._inputs = inputs
            self._unqueue()
            if self._job is not None and self._job[0] not in (self.key, full_key(self.key or "")):
                self._stop(release=True)
            if inputs is not None:
                self._claim_and_start(retry=False)
            self.version += 1

    def run_again(self) -> None:
        """Assess the sources now again after a failure or a cancel (in full, also when a warm
        re-assessment of them is in force)."""
        with self._lock:
            if self._inputs is not None and self._job is None:
                self._claim_and_start(retry=True)
                self.version += 1

    def cancel(self) -> None:
        """Stop the assessment this engine computes, for every annotator of the session: SSL keeps what
        was in force until ``run_again``.  (One computed by another process is that process's to stop.)"""
        with self._lock:
            if self._job is None:
                return
            key, status = self._job[0], self._job[1].status()
            message = f"{CANCELLED} after {status.seconds:.0f} s ({status.done:,} of {status.total:,} folds)"
            self._stop(release=False)
            self.store.fail_assessment(self.session_id, key, self.owner, message)
            self.version += 1

    def status(self) -> TrustStatus:
        """The state of the sources now's assessment, and the one in force."""
        with self._lock:
            key = self.key
            if key is None:
                return TrustStatus("off", None)
            record = self.store.assessment(self.session_id, key)
            if record is not None and record.state == "done":
                decoded = self._decode(record)
                if decoded is not None:
                    return self._full_status(decoded)
                record = self.store.assessment(self.session_id, key)  # marked damaged: failed
            in_force = self._latest()
            if record is not None and record.state == "failed":
                state = "cancelled" if record.message.startswith(CANCELLED) else "failed"
                return TrustStatus(state, in_force, message=record.message)
            if self._job is not None:
                status = self._job[1].status()
                return TrustStatus("running", in_force, status.done, status.total, status.seconds)
            if record is not None and record.state == "running":
                return TrustStatus("elsewhere", in_force, seconds=_age(record))
            self._claim_and_start(retry=False)  # its claim expired, or this engine restarted
            return TrustStatus("running", in_force)

    def _full_status(self, stored: SourceTrust) -> TrustStatus:
        """The status when the store holds the sources now's assessment ``stored``: 'assessed' when it is
        a full one (or no full one follows a warm one here); else, with the warm one in force, where its
        full one (``full_key``) stands: stored ('assessed', in force), queued, running here or elsewhere,
        failed or cancelled (until *Run again*); queued anew when none of these (this engine restarted)."""
        if stored.is_full or self.refine_after is None:
            return TrustStatus("assessed", stored)
        key = full_key(self.key)
        record = self.store.assessment(self.session_id, key)
        if record is not None and record.state == "done":
            decoded = self._decode(record)
            if decoded is not None:
                return TrustStatus("assessed", decoded)
            record = self.store.assessment(self.session_id, key)  # marked damaged: failed
        if record is not None and record.state == "failed":
            state = "cancelled" if record.message.startswith(CANCELLED) else "failed"
            return TrustStatus(state, stored, message=record.message)
        if record is not None and record.state == "running" and self._job is None:
            self._refine(self.key)  # takes the claim over only if it expired (its process died)
        if self._job is not None and self._job[0] == key:
            status = self._job[1].status()
            return TrustStatus("running", stored, status.done, status.total, status.seconds)
        if record is not None and record.state == "running":
            return TrustStatus("elsewhere", stored, seconds=_age(record))
        if self._timer is None:
            self._queue()  # this engine restarted, or the sources came back to these (an undo)
        return TrustStatus("queued", stored)

    def in_force(self) -> SourceTrust | None:
        """The assessment SSL uses: of the sources now if stored, else the session's newest."""
        return self.status().in_force

    @property
    def job(self):
        """The assessment job this engine runs now (``BackgroundAssessment``), or None."""
        return None if self._job is None else self._job[1]

    def wait(self, timeout: float | None = None) -> TrustStatus:
        """Block until this engine's job has ended and its result or failure is stored (scripts, tests);
        a queued full assessment starts at once, and is waited for."""
        with self._lock:
            self.status()  # queues the full assessment of a warm one in force, if due
            if self._timer is not None:
                self._unqueue()
                self._refine(self.key)
            watcher = self._watcher
        if watcher is not None:
            watcher.join(timeout)
        return self.status()

    def close(self) -> None:
        """Cancel this engine's job, if any (and a queued one), and let another engine take its claim at once."""
        with self._lock:
            self._unqueue()
            if self._job is not None:
                self._stop(release=True)

    # ---------------------------------------------------------------------------------- internals
    def _claim_and_start(self, retry: bool) -> None:
        key = self.key
        record = self.store.assessment(self.session_id, key)
        if record is not None and record.state == "done":
            stored = self._decode(record)
            if stored is not None and retry and not stored.is_full:  # Run again after its full one stopped
                self._refine(key, retry=True)
            elif stored is not None:
                self._full_status(stored)  # a warm one: its full one queued, unless stored, running or failed
            return
        if record is not None and record.state == "failed" and not retry:
            return
        if not self.store.claim_assessment(self.session_id, key, self.owner, LEASE_SECONDS):
            return
        if not retry and self._reassess(key):
            self._queue()
            return
        self._run(key)

    def _run(self, key: str) -> None:
        """Start the full assessment of the sources now as job ``key`` (claimed) and watch it."""
        inputs = self._inputs
        job = self._start(
            inputs.X, inputs.y, inputs.preferences, inputs.names, inputs.checks, inputs.lambda1, SEED, **inputs.options
        )
        self._job = (key, job)
        self._watcher = threading.Thread(target=self._watch, args=(key, job), daemon=True, name=f"trust-{key[:8]}")
        self._watcher.start()

    def _queue(self) -> None:
        """Queue the full assessment of the sources now (a warm one of them is stored): it starts once they
        have stood still ``refine_after`` seconds (``update`` unqueues it); nothing without ``refine_after``."""
        if self.refine_after is None:
            return
        self._unqueue()
        timer = self.timer(self.refine_after, self._queued)
        timer.args, timer.daemon = (self.key, timer), True
        self._timer = timer
        timer.start()

    def _unqueue(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _queued(self, key: str, timer: threading.Timer) -> None:
        """The queued full assessment's time has come (``timer``'s): start it, if the sources are still
        those of ``key`` and it was not unqueued meanwhile."""
        with self._lock:
            if self.key != key or self._timer is not timer:
                return
            self._timer = None
            self._refine(key)
            self.version += 1

    def _refine(self, key: str, retry: bool = False) -> None:
        """Claim and start the full assessment of the sources now (``key``, whose warm re-assessment is
        stored) under ``full_key(key)``, unless it is stored, computed (here or elsewhere) or, without
        ``retry``, failed or cancelled."""
        refined = full_key(key)
        if self._job is not None:
            return
        record = self.store.assessment(self.session_id, refined)
        if record is not None and (record.state == "done" or (record.state == "failed" and not retry)):
            return
        if self.store.claim_assessment(self.session_id, refined, self.owner, LEASE_SECONDS):
            self._run(refined)

    def _reassess(self, key: str) -> bool:
        """Store the sources now's assessment warm from the session's newest (``reassess_sources``), in
        this thread; False when only a full one will do (new labels or settings, a new rule, weights
        moved too far, too many steps since the last full one)."""
        previous, inputs = self._latest(), self._inputs
        if previous is None:
            return False
        found = reassess_sources(
            previous,
            inputs.X,
            inputs.y,
            inputs.preferences,
            inputs.names,
            inputs.checks,
            np.random.default_rng(SEED),
            inputs.lambda1,
            **inputs.options,
        )
        if found is None:
            return False
        content = io.BytesIO()
        write_assessment(content, found)
        self.store.finish_assessment(self.session_id, key, self.owner, content.getvalue())
        return True

    def _watch(self, key: str, job) -> None:
        """Renew the claim while the job runs; then store its result or its failure."""
        while (status := job.wait(HEARTBEAT_SECONDS)).state == "running":
            if not self.store.renew_assessment(self.session_id, key, self.owner):
                job.cancel()  # taken over: the other engine's result will count
                break
        with self._lock:
            if self._job is None or self._job[1] is not job:
                return  # stopped by update, cancel or close
            self._job = None
            if status.state == "done":
                self.store.finish_assessment(self.session_id, key, self.owner, job.result_bytes())
            elif status.state == "failed":
                self.store.fail_assessment(self.session_id, key, self.owner, status.message)
            self.version += 1
        if self._on_change is not None:
            self._on_change()

    def _stop(self, release: bool) -> None:
        key, job = self._job
        self._job = None
        job.cancel()
        if release:
            self.store.release_assessment(self.session_id, key, self.owner)

    def _latest(self) -> SourceTrust | None:
        """The session's newest finished assessment that can be read (damaged ones are marked so)."""
        while (record := self.store.latest_assessment(self.session_id)) is not None:
            decoded = self._decode(record)
            if decoded is not None:
                return decoded
        return None

    def _decode(self, record) -> SourceTrust | None:
        """The assessment ``record`` holds; None when its content cannot be read, which is then stored as
        a failure saying so (``DAMAGED``), to be computed anew."""
        if record.key not in self._decoded:
            try:
                self._decoded[record.key] = read_assessment(io.BytesIO(record.content))
            except (zipfile.BadZipFile, ValueError, KeyError, TypeError, OSError, EOFError) as error:
                # numpy's own words may advise loading it "unsafely" (pickles): never shown
                reason = f"not an assessment file: {type(error).__name__}"
                self.store.mark_assessment_damaged(self.session_id, record.key, f"{DAMAGED} ({reason})")
                return None
        return self._decoded[record.key]


def _age(record) -> float:
    """Seconds since the record's assessment started (0 when the store does not say)."""
    started = getattr(record, "started_at", None)
    return 0.0 if started is None else max(0.0, time.time() - started.timestamp())
