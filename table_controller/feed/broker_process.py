"""The fleet's broker as a process of the director's: started, waited for, stopped.

mosquitto says why it stopped on its output (a port taken, a plugin it cannot load);
that output is kept in ``mosquitto.log`` beside its conf, and what it says at a failed
start becomes the error, in words, with what to do.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from table_controller.errors import TableControllerError

LOG = "mosquitto.log"


class BrokerStartError(TableControllerError, RuntimeError):
    """The broker did not start: why, in words, and what to do."""


def parent_death_signal() -> Callable[[], None] | None:
    """For the broker (Linux): SIGTERM when the thread that started it ends, so a
    director (or the event demo) killed outright leaves no broker behind. The library is
    loaded here, before the fork: the child only makes the one call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def set_it() -> None:
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return set_it


def port_taken(port: int, host: str = "") -> bool:
    """Whether another program listens on ``port`` (said before mosquitto is started,
    since a connection to that other program would look like ours answering)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as mosquitto binds
        try:
            s.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def why_stopped(said: str, port: int, conf: Path) -> str:
    """mosquitto's last words at start, as a director reads them."""
    if "Address already in use" in said:
        return (
            f"the broker's port {port} is taken (another broker, or a director already "
            f"running, uses it): stop that one, or give another with --broker-port"
        )
    if "Unable to load" in said and "plugin" in said:
        return (
            "mosquitto cannot load its dynamic security plugin: install Debian's package "
            "`mosquitto` (2.0 or later, `sudo apt-get install mosquitto`), then start again"
        )
    tail = "\n".join(said.strip().splitlines()[-6:])
    return (
        f"mosquitto stopped as it started:\n{tail}\n"
        f"(its conf: {conf}; its log: {conf.parent / LOG})"
    )


class BrokerProcess:
    """``mosquitto -c conf``, listening on ``port``: ``start()`` returns once it accepts
    a connection; ``stop()`` ends it (safe to call twice). Start it from a thread that
    lives as long as the broker should (the main thread)."""

    def __init__(self, conf: Path, port: int, mosquitto: str, *, host: str = "127.0.0.1"):
        self.conf = conf
        self.port = port
        self.mosquitto = mosquitto
        self.host = host  # where to knock to see it listens
        self.log = conf.parent / LOG
        self.proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None

    def start(self, timeout: float = 30.0) -> BrokerProcess:
        if port_taken(self.port):
            raise BrokerStartError(why_stopped("Address already in use", self.port, self.conf))
        start = self.log.stat().st_size if self.log.exists() else 0
        self._out = self.log.open("ab")
        try:
            self.proc = subprocess.Popen(
                [self.mosquitto, "-c", str(self.conf)],
                stdin=subprocess.DEVNULL,
                stdout=self._out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches the director, which stops it last
                preexec_fn=parent_death_signal(),
            )
        except OSError as exc:
            self.stop()
            raise BrokerStartError(
                f"mosquitto cannot be started ({exc.strerror or exc}): install Debian's "
                "package `mosquitto` (`sudo apt-get install mosquitto`)"
            ) from None
        deadline = time.monotonic() + timeout  # only against a hang
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = self._said(start)
                self.stop()
                raise BrokerStartError(why_stopped(said, self.port, self.conf))
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        said = self._said(start)
        self.stop()
        raise BrokerStartError(
            f"mosquitto did not listen on port {self.port} within {timeout:g} s: "
            + why_stopped(said, self.port, self.conf)
        )

    def _said(self, start: int) -> str:
        try:
            with self.log.open("rb") as f:
                f.seek(start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(10)
            self.proc = None
        if self._out is not None:
            with contextlib.suppress(OSError):
                self._out.close()
            self._out = None

    def __enter__(self) -> BrokerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["LOG", "BrokerProcess", "BrokerStartError", "port_taken", "why_stopped"]
