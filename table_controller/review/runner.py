"""An analysis worked out off the event loop: one job at a time, in a process of its
own, so a table's event loop, its lights, its page, the bots' thread and the director's
service never wait on it (the analysis holds the interpreter for seconds: a thread would
slow all of them). The kiosk's coach (its look back at a visitor's game), the table and
the director (each game's verdicts, kept) all run their analyses here.

The process is started fresh for each job (the ``spawn`` way: a clean interpreter, no
copy of the running table's threads), is given the job and answers once through a
one-way pipe only it and the caller hold; the event loop reads the answer when the pipe
says it is there. ``drop`` kills a job not yet answered (the visitor walked away, the
next game began): its answer can never arrive, and nothing waits for the process to end.
A process that dies without answering, or a work that raises, is answered for in words
(``failed``). ``Backlog`` queues jobs for one ``Analyst``: every job is worked out in
turn, none dropped (a game's verdicts, which are kept).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

from table_controller.clip import clip

log = logging.getLogger(__name__)

J = TypeVar("J")  # a job: a frozen dataclass that crosses the pipe
A = TypeVar("A")  # its answer, the same

Work = Callable[[J], A]  # run in the process: a module-level function
Failed = Callable[[J, str], A]  # the answer for a job that could not be worked out, why


def _run(work: Work[J, A], failed: Failed[J, A], job: J, answer: Connection) -> None:
    """The process's whole life: the work, its answer sent, the pipe closed."""
    try:
        looked = work(job)
    except Exception as exc:  # a bug: said in words, never a silent end
        looked = failed(job, f"the analysis failed ({clip(exc)})")
    try:
        answer.send(looked)
    finally:
        answer.close()


@dataclass(eq=False)
class _Pending(Generic[J, A]):
    job: J
    done: Callable[[A], None]
    process: BaseProcess
    reading: Connection
    writing: Connection
    started: bool = False
    watched: bool = False


class Analyst(Generic[J, A]):
    """Works out one job at a time (``start``), answering ``done`` on the event loop.
    ``work`` is what the process runs (a module-level function: a test gives its own);
    ``failed`` the answer for a job whose process failed, and ``fits`` whether an
    answer is the job's (an answer that is not is answered for as a failure)."""

    def __init__(
        self,
        work: Work[J, A],
        failed: Failed[J, A],
        fits: Callable[[J, object], bool],
        name: str = "analysis",
    ) -> None:
        self.work = work
        self.failed = failed
        self.fits = fits
        self.name = name
        self._context = multiprocessing.get_context("spawn")
        self._pending: _Pending[J, A] | None = None
        self._ending: list[BaseProcess] = []  # killed or answered, not yet reaped

    @property
    def busy(self) -> bool:
        """A job is being worked out."""
        return self._pending is not None

    @property
    def job(self) -> J | None:
        """The job being worked out, if any."""
        return None if self._pending is None else self._pending.job

    def start(self, job: J, done: Callable[[A], None]) -> None:
        """Work ``job`` out (any job pending is dropped). Called on the event loop; the
        process is started from a worker thread, since handing it a long game can wait
        on the pipe."""
        self.drop()
        self._reap()
        reading, writing = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_run,
            args=(self.work, self.failed, job, writing),
            name=self.name,
            daemon=True,
        )
        pending = _Pending(job, done, process, reading, writing)
        self._pending = pending
        loop = asyncio.get_running_loop()
        starting = loop.run_in_executor(None, process.start)
        starting.add_done_callback(lambda f: self._started(pending, f))

    def _started(self, pending: _Pending[J, A], starting: asyncio.Future[None]) -> None:
        pending.writing.close()  # the process's end: held only by the process now
        error = starting.exception() if not starting.cancelled() else None
        if error is None and not starting.cancelled():
            pending.started = True
        if self._pending is not pending:  # dropped while it started
            self._end(pending)
            return
        if not pending.started:
            self._pending = None
            log.error("the %s could not start: %s", self.name, error)
            why = f"its process could not start ({clip(error) if error else 'cancelled'})"
            pending.reading.close()
            pending.done(self.failed(pending.job, why))
            return
        loop = asyncio.get_running_loop()
        loop.add_reader(pending.reading.fileno(), self._answered, pending)
        pending.watched = True

    def _answered(self, pending: _Pending[J, A]) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(pending.reading.fileno())
        pending.watched = False
        try:
            looked = pending.reading.recv()
        except (EOFError, OSError):  # it died without answering (a crash, out of memory)
            looked = self.failed(pending.job, "its process ended without an answer")
        pending.reading.close()
        self._ending.append(pending.process)
        if self._pending is not pending:
            return
        self._pending = None
        if not self.fits(pending.job, looked):
            looked = self.failed(pending.job, "its answer was not this game's")
        pending.done(looked)

    def drop(self) -> None:
        """Drop the job being worked out, if any: its process is killed, its answer
        never taken. Never waits."""
        pending, self._pending = self._pending, None
        if pending is not None and pending.started:
            self._end(pending)
        # (still starting: ``_started`` ends it)

    def _end(self, pending: _Pending[J, A]) -> None:
        if pending.watched:
            asyncio.get_running_loop().remove_reader(pending.reading.fileno())
            pending.watched = False
        pending.reading.close()
        if pending.started:
            if pending.process.exitcode is None:
                pending.process.kill()
            self._ending.append(pending.process)
        self._reap()

    def _reap(self) -> None:
        """Forget the processes that have ended (their exit taken, so none is left a
        zombie); never waits."""
        still = []
        for process in self._ending:
            if process.exitcode is None:
                still.append(process)
            else:
                process.close()
        self._ending = still

    async def close(self) -> None:
        """At the stop: drop what is pending and wait for every process to end."""
        self.drop()
        loop = asyncio.get_running_loop()
        for process in self._ending:
            if process.exitcode is None:
                process.kill()
            await loop.run_in_executor(None, process.join, 10.0)
        self._reap()


class Backlog(Generic[J, A]):
    """Jobs worked out in turn by one ``Analyst``, none dropped: ``add`` queues a job
    (one with the same ``key`` as a queued one replaces it: its game has moved on),
    ``done`` is told each answer on the event loop."""

    def __init__(
        self,
        analyst: Analyst[J, A],
        done: Callable[[J, A], None],
        key: Callable[[J], object],
    ) -> None:
        self.analyst = analyst
        self._done = done
        self._key = key
        self._queue: deque[J] = deque()

    def add(self, job: J) -> None:
        key = self._key(job)
        self._queue = deque(j for j in self._queue if self._key(j) != key)
        self._queue.append(job)
        self._next()

    @property
    def waiting(self) -> int:
        """Jobs queued or being worked out."""
        return len(self._queue) + (1 if self.analyst.busy else 0)

    def pending(self, key: object) -> bool:
        """A job of ``key`` is queued or being worked out."""
        running = self.analyst.job
        if running is not None and self._key(running) == key:
            return True
        return any(self._key(j) == key for j in self._queue)

    def _next(self) -> None:
        if self.analyst.busy or not self._queue:
            return
        job = self._queue.popleft()
        self.analyst.start(job, lambda answer: self._answered(job, answer))

    def _answered(self, job: J, answer: A) -> None:
        try:
            self._done(job, answer)
        finally:
            self._next()

    async def close(self) -> None:
        self._queue.clear()
        await self.analyst.close()


__all__ = ["Analyst", "Backlog", "Failed", "Work"]
