"""The look back's process: one finished game analysed at a time, in a process of its
own, so the table's event loop, its lights, its page and the bots' thread never wait on
it (the analysis holds the interpreter for seconds: a thread would slow all of them).

The process is started fresh for each game (the ``spawn`` way: a clean interpreter, no
copy of the running table's threads), is given the game (``Job``) and answers once
(``Looked``) through a one-way pipe only it and the table hold; the table's event loop
reads the answer when the pipe says it is there. ``drop`` kills a look back not yet
answered (the visitor walked away, the next game began): its answer can never arrive,
and nothing waits for the process to end. A process that dies without answering is
answered for, in words.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from table_controller.clip import clip
from table_controller.kiosk.look_back.work import Job, Looked, look_over

log = logging.getLogger(__name__)

Work = Callable[[Job], Looked]  # run in the process: a module-level function


def _run(work: Work, job: Job, answer: Connection) -> None:
    """The process's whole life: the work, its answer sent, the pipe closed."""
    try:
        looked = work(job)
    except Exception as exc:  # a bug: said in words, never a silent end
        looked = Looked(job.game, (), job.deals, f"the analysis failed ({clip(exc)})")
    try:
        answer.send(looked)
    finally:
        answer.close()


@dataclass(eq=False)
class _Pending:
    job: Job
    done: Callable[[Looked], None]
    process: BaseProcess
    reading: Connection
    writing: Connection
    started: bool = False
    watched: bool = False


class Analyst:
    """Looks back at one game at a time (``start``), answering ``done`` on the event
    loop; ``work`` is what the process runs (``look_over``; a test gives its own)."""

    def __init__(self, work: Work = look_over) -> None:
        self.work = work
        self._context = multiprocessing.get_context("spawn")
        self._pending: _Pending | None = None
        self._ending: list[BaseProcess] = []  # killed or answered, not yet reaped

    @property
    def busy(self) -> bool:
        """A look back is being worked out."""
        return self._pending is not None

    @property
    def game(self) -> int | None:
        """The game being looked back at, if any."""
        return None if self._pending is None else self._pending.job.game

    def start(self, job: Job, done: Callable[[Looked], None]) -> None:
        """Look back at ``job``'s game (any look back pending is dropped). Called on the
        event loop; the process is started from a worker thread, since handing it a
        long game can wait on the pipe."""
        self.drop()
        self._reap()
        reading, writing = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_run, args=(self.work, job, writing), name="kiosk-look-back", daemon=True
        )
        pending = _Pending(job, done, process, reading, writing)
        self._pending = pending
        loop = asyncio.get_running_loop()
        starting = loop.run_in_executor(None, process.start)
        starting.add_done_callback(lambda f: self._started(pending, f))

    def _started(self, pending: _Pending, starting: asyncio.Future[None]) -> None:
        pending.writing.close()  # the process's end: held only by the process now
        error = starting.exception() if not starting.cancelled() else None
        if error is None and not starting.cancelled():
            pending.started = True
        if self._pending is not pending:  # dropped while it started
            self._end(pending)
            return
        if not pending.started:
            self._pending = None
            log.error("the look back could not start: %s", error)
            why = f"its process could not start ({clip(error) if error else 'cancelled'})"
            pending.reading.close()
            pending.done(Looked(pending.job.game, (), pending.job.deals, why))
            return
        loop = asyncio.get_running_loop()
        loop.add_reader(pending.reading.fileno(), self._answered, pending)
        pending.watched = True

    def _answered(self, pending: _Pending) -> None:
        loop = asyncio.get_running_loop()
        loop.remove_reader(pending.reading.fileno())
        pending.watched = False
        try:
            looked = pending.reading.recv()
        except (EOFError, OSError):  # it died without answering (a crash, out of memory)
            why = "its process ended without an answer"
            looked = Looked(pending.job.game, (), pending.job.deals, why)
        pending.reading.close()
        self._ending.append(pending.process)
        if self._pending is not pending:
            return
        self._pending = None
        if not isinstance(looked, Looked) or looked.game != pending.job.game:
            looked = Looked(pending.job.game, (), pending.job.deals, "its answer was not a game's")
        pending.done(looked)

    def drop(self) -> None:
        """Drop the look back being worked out, if any: its process is killed, its answer
        never taken. Never waits."""
        pending, self._pending = self._pending, None
        if pending is not None and pending.started:
            self._end(pending)
        # (still starting: ``_started`` ends it)

    def _end(self, pending: _Pending) -> None:
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
        """At the kiosk's stop: drop what is pending and wait for every process to end."""
        self.drop()
        loop = asyncio.get_running_loop()
        for process in self._ending:
            if process.exitcode is None:
                process.kill()
            await loop.run_in_executor(None, process.join, 10.0)
        self._reap()


__all__ = ["Analyst", "Work"]
