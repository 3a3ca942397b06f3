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
