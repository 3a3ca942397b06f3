"""A real PostgreSQL server for the tests: Debian's binaries, a cluster made with initdb
in a folder of its own, listening on a free loopback port, trusted logins. Run as the
``postgres`` user when the tests run as root (the server refuses root), crashed
(SIGQUIT: no shutdown checkpoint, recovery at the next start) and started again on the
same port, as a director's database server might be."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
from mosquitto import free_port


def _bindir() -> Path:
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(Path(p).parts[4])
    )
    if found:
        return Path(found[-1]).parent
    which = shutil.which("postgres")
    if which:
        return Path(which).parent
    raise RuntimeError("PostgreSQL is not installed: run `make test`, which installs it")


class Postgres:
    USER = "director"

    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync  # off for the tests (they crash the server, never the machine)
        self.bin = _bindir()
        self.folder = Path(tempfile.mkdtemp(prefix="tc-postgres-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.folder / "postgres.log"
        self._names = itertools.count(1)
        # The server will not run as root: as root, it runs as Debian's postgres user.
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            self._as = {"user": "postgres", "group": "postgres"}
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(
            [
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                self.USER,
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "--locale=C",
            ],
            check=True,
            capture_output=True,
            **self._as,
        )

    def start(self, timeout: float = 30.0) -> Postgres:
        with self.log.open("ab") as out:
            if self._as:
                shutil.chown(self.log, "postgres", "postgres")
            self.proc = subprocess.Popen(
                [
                    str(self.bin / "postgres"),
                    "-D",
                    str(self.data),
                    "-p",
                    str(self.port),
                    "-k",
                    str(self.folder),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    f"fsync={'on' if self.fsync else 'off'}",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                **self._as,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"postgres stopped at start:\n{self.log.read_text()}")
            try:
                psycopg.connect(self.url("postgres"), connect_timeout=1).close()
                return self
            except psycopg.OperationalError:
                time.sleep(0.05)
        raise RuntimeError(f"postgres did not answer on {self.port}:\n{self.log.read_text()}")

    def url(self, database: str) -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database's URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def crash(self) -> None:
        """Immediate shutdown: every backend quits at once, nothing is checkpointed."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            self.proc.wait(30)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
