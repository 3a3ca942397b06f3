"""Hosts on a private network for the tests, each in a network namespace of its own.

A fleet test needs tables that find the director by multicast DNS, as on a real LAN:
processes on one loopback share every address, so a table could not tell the director's
announcement from its own, and multicast on ``lo`` is not what a Pi sees. Here a hub
namespace holds a bridge (multicast snooping off, so mDNS reaches every port), each host
namespace a veth into it at ``10.213.X.k/24``, and the test's own namespace one more at
``10.213.X.254``, so a browser the test drives reaches the hosts' web pages.

Namespaces are named after the test's pid (``tcnet-<pid>-hub``, ``tcnet-<pid>-h<k>``):
two runs at once do not collide, and the namespaces of a run that died (its pid gone) are
removed by the next run. ``X`` is chosen per run among the subnets not in use here.

Usage::

    with netns.hosts(2) as net:          # skips the test (with the reason) if it cannot
        proc = net.popen(1, ["python", "-m", "http.server", "8000"])
        url = f"http://{net.address(1)}:8000/"
"""

from __future__ import annotations

import atexit
import fcntl
import ipaddress
import os
import random
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

PREFIX = "tcnet"
SUBNET = "10.213"
TEST_HOST = 254  # the test's own address on the hosts' network: 10.213.X.254
LOCK = Path("/tmp/tcnet.lock")  # one run at a time chooses its subnet and names
_NAME = re.compile(rf"^{PREFIX}-(\d+)-")


def skip_reason() -> str | None:
    """Why namespaces cannot be made here, in words; None when they can."""
    if os.geteuid() != 0:
        return "network namespaces need root: run this test as root (e.g. in the CI container)"
    if shutil.which("ip") is None:
        return "the `ip` command is missing: install iproute2 (`make test` does)"
    return None


def _ip(*args: str, netns: str | None = None, check: bool = True) -> str:
    argv = ["ip", *(["-n", netns] if netns else []), *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"`{' '.join(argv)}` failed: {done.stderr.strip()}")
    return done.stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip()]


def remove_stale() -> list[str]:
    """Removes the namespaces of runs whose process is gone; returns their names."""
    stale = []
    for name in _namespaces():
        match = _NAME.match(name)
        if match and not _alive(int(match.group(1))):
            _ip("netns", "delete", name, check=False)
            stale.append(name)
    return stale


def _subnets_in_use() -> set[int]:
    """Third octets of 10.213.X.0/24 already routed here (this namespace or a live run's hub)."""
    used = set()
    for name in [None, *(n for n in _namespaces() if n.startswith(PREFIX))]:
        for line in _ip("-4", "-o", "addr", "show", netns=name, check=False).splitlines():
            for word in line.split():
                if word.startswith(f"{SUBNET}."):
                    used.add(int(ipaddress.ip_interface(word).ip.packed[2]))
    return used


class Hosts:
    """``count`` hosts numbered 1..count on one bridged network; see the module's text."""

    def __init__(self, count: int, *, seed: int | None = None):
        if not 1 <= count <= 200:
            raise ValueError(f"between 1 and 200 hosts, not {count}")
        self.count = count
        self.pid = os.getpid()
        self.hub = f"{PREFIX}-{self.pid}-hub"
        self._outside = f"tc{self.pid}t"  # the test's end of its veth (<= 15 characters)
        self._closed = False
        self._procs: list[subprocess.Popen[Any]] = []
        with LOCK.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            remove_stale()
            free = sorted(set(range(1, 254)) - _subnets_in_use())
            if not free:
                raise RuntimeError(f"every subnet {SUBNET}.X.0/24 is in use here")
            self.subnet = random.Random(seed if seed is not None else self.pid).choice(free)
            atexit.register(self.close)
            try:
                self._build()
            except BaseException:
                self.close()
                raise

    def namespace(self, host: int) -> str:
        self._check(host)
        return f"{PREFIX}-{self.pid}-h{host}"

    def address(self, host: int) -> str:
        """The host's IPv4 address; host 254 is the test's own."""
        if host != TEST_HOST:
            self._check(host)
        return f"{SUBNET}.{self.subnet}.{host}"

    @property
    def test_address(self) -> str:
        return self.address(TEST_HOST)

    def argv(self, host: int, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside the host's namespace."""
        return ["ip", "netns", "exec", self.namespace(host), *argv]

    def popen(self, host: int, argv: Sequence[str], **kw: Any) -> subprocess.Popen[Any]:
        """Starts ``argv`` in the host; it is killed at close() if still running."""
        proc: subprocess.Popen[Any] = subprocess.Popen(self.argv(host, argv), **kw)
        self._procs.append(proc)
        return proc

    run = popen  # SPEC's name

    def wait_listening(self, host: int, port: int, timeout: float = 120.0) -> None:
        """Until something in ``host`` accepts TCP connections on ``port`` from the test's
        namespace; ``timeout`` only guards against a hang."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection((self.address(host), port), timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"nothing listens on {self.address(host)}:{port} after {timeout:.0f} s"
                    ) from None
                time.sleep(0.05)

    def close(self) -> None:
        """Stops the processes started here and removes every namespace; safe to repeat."""
        if self._closed:
            return
        self._closed = True
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)
        for host in range(1, self.count + 1):
            _ip("netns", "delete", self.namespace(host), check=False)
        _ip("netns", "delete", self.hub, check=False)  # takes the test's veth with it
        _ip("link", "delete", self._outside, check=False)
        atexit.unregister(self.close)

    def __enter__(self) -> Hosts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check(self, host: int) -> None:
        if not 1 <= host <= self.count:
            raise ValueError(f"host {host} is not one of 1..{self.count}")

    def _build(self) -> None:
        _ip("netns", "add", self.hub)
        _ip("link", "set", "lo", "up", netns=self.hub)
        _ip("link", "add", "br0", "type", "bridge", "mcast_snooping", "0", netns=self.hub)
        _ip("link", "set", "br0", "up", netns=self.hub)
        for host in range(1, self.count + 1):
            ns = self.namespace(host)
            _ip("netns", "add", ns)
            _ip("link", "set", "lo", "up", netns=ns)
            port = f"h{host}"
            # Made in the hub, then one end moved: names only need to be unique per namespace.
            _ip("link", "add", port, "type", "veth", "peer", "name", "eth0", netns=self.hub)
            _ip("link", "set", "eth0", "netns", ns, netns=self.hub)
            self._plug(port)
            _ip("addr", "add", f"{self.address(host)}/24", "dev", "eth0", netns=ns)
            _ip("link", "set", "eth0", "up", netns=ns)
            # mDNS goes to 224.0.0.251: without a default route the kernel needs this one.
            _ip("route", "add", "224.0.0.0/4", "dev", "eth0", netns=ns)
        _ip("link", "add", self._outside, "type", "veth", "peer", "name", "test", "netns", self.hub)
        self._plug("test")
        _ip("addr", "add", f"{self.test_address}/24", "dev", self._outside)
        _ip("link", "set", self._outside, "up")

    def _plug(self, port: str) -> None:
        _ip("link", "set", port, "master", "br0", netns=self.hub)
        _ip("link", "set", port, "up", netns=self.hub)


@contextmanager
def hosts(count: int, *, seed: int | None = None) -> Iterator[Hosts]:
    """``count`` hosts for a test, removed after it; skips the test when it cannot make them."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with Hosts(count, seed=seed) as net:
        yield net
