"""A real mosquitto broker for the tests: started on a free loopback port with a given
configuration in a folder of its own, waited for until it listens, stopped, killed
(SIGKILL) and started again on the same port."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


# The ports handed out in this run, by every worker process (pytest-xdist's run id names
# the run): a port one test frees to start its server again on it (a broker restarted)
# is never handed to another worker's test meanwhile.
_HANDED = Path(tempfile.gettempdir()) / (
    "table-controller-ports-" + os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))
)


def free_port() -> int:
    """A loopback port free now and not handed out before in this run."""
    with open(_HANDED, "a+") as handed:
        fcntl.flock(handed, fcntl.LOCK_EX)
        handed.seek(0)
        taken = {int(line) for line in handed.read().split()}
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in taken:
                handed.write(f"{port}\n")
                return port


class Mosquitto:
    """``conf`` is the configuration without its listener line (added here), and
    ``listener`` what goes under that line (a TLS listener's files)."""

    def __init__(
        self,
        folder: Path,
        conf: str = "allow_anonymous true\n",
        port: int = 0,
        listener: str = "",
    ):
        if not Path(MOSQUITTO).exists():
            raise RuntimeError("mosquitto is not installed: run `make test`, which installs it")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = folder / "test-mosquitto.conf"
        # As root mosquitto drops to its own user, which cannot read our 0600 files.
        who = "user root\n" if os.geteuid() == 0 and "\nuser " not in f"\n{conf}" else ""
        self.conf.write_text(who + conf + f"\nlistener {self.port} 127.0.0.1\n{listener}")
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = folder / "mosquitto.log"

    def start(self, timeout: float = 60.0) -> Mosquitto:  # only against a hang
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.conf)], stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto stopped at start:\n{self.log.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port}:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def restart(self) -> Mosquitto:
        self.stop()
        return self.start()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
