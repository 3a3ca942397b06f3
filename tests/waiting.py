"""Waiting on a condition, never on the clock: the tests' one way to wait for another
thread or process. ``timeout`` only guards against a hang."""

from __future__ import annotations

import time
from collections.abc import Callable


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
