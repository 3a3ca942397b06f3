"""Waiting on a condition, never on the clock: the tests' one way to wait for another
thread or process. ``timeout`` only guards against a hang."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def wait_until(what: str, cond: Callable[[], bool], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.02)


def until_or_stopped(
    what: str,
    check: Callable[[], bool],
    error: Callable[[], BaseException | None],
    guard: float,
    who: str = "the table",
) -> None:
    """Wait until ``check()``; fail at once if the thing waited on stopped (``error()``
    says why), or after ``guard`` seconds (a hang)."""
    end = time.monotonic() + guard
    while not check():
        stopped = error()
        if stopped is not None:
            raise AssertionError(f"{who} stopped: {stopped!r}")
        if time.monotonic() > end:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.02)


async def until_async(
    what: str,
    check: Callable[[], bool],
    guard: float = 60.0,
    stopped: Callable[[], BaseException | None] | None = None,
) -> None:
    """``until_or_stopped`` for a coroutine: waits without blocking its event loop."""
    loop = asyncio.get_running_loop()
    end = loop.time() + guard
    while not check():
        why = stopped() if stopped is not None else None
        if why is not None:
            raise AssertionError(f"stopped: {why!r}")
        if loop.time() > end:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.02)


class ShiftedClock:
    """Wall-clock time moved on by the test (``advance``): code that takes a clock sees
    the time pass that a test would otherwise sleep through."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self.offset = 0.0

    def __call__(self) -> float:
        return self._now() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class InThread:
    """A table (or kiosk) run in an event loop of its own on a thread, so a test's
    thread can speak HTTP to it or drive its page; ``until`` fails at once if it
    stopped. Subclasses wait in ``__init__`` for what "started" means to them."""

    def __init__(self, table: Any, who: str, guard: float) -> None:
        self.table = table
        self.who = who
        self.guard = guard
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.table.run(stop=self.stop))
        except BaseException as exc:  # shown by until()
            self.error = exc

    def until(self, what: str, check: Callable[[], bool], guard: float | None = None) -> None:
        until_or_stopped(what, check, lambda: self.error, guard or self.guard, self.who)

    def close(self) -> None:
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.stop.set)
            self.thread.join(timeout=self.guard)
        self.loop.close()


def apart(work: Callable[[], Coroutine[Any, Any, T]], timeout: float | None = None) -> T:
    """``work()`` run in an event loop on a thread of its own (as the table's loop, and
    because Playwright's loop may hold this thread's); its error raised here."""
    out: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            out.append(asyncio.run(work()))
        except BaseException as exc:  # raised again in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout)
    if errors:
        raise errors[0]
    assert out, "the event loop's work never ended"
    return out[0]
