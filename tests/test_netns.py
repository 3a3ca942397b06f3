"""The test network (netns.py): hosts find each other by multicast DNS as on a LAN, and the
test reaches a host's web server; every namespace is gone afterwards, even a dead run's."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import netns
import pytest
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.skipif(netns.skip_reason() is not None, reason=str(netns.skip_reason()))

ANNOUNCE = """
import socket, sys
from zeroconf import ServiceInfo, Zeroconf
zc = Zeroconf(interfaces=[sys.argv[1]])
zc.register_service(ServiceInfo(
    "_euchre-test._tcp.local.", "Spring Open._euchre-test._tcp.local.",
    addresses=[socket.inet_aton(sys.argv[1])], port=8090, properties={"event": "Spring Open"},
))
print("announced", flush=True)
sys.stdin.read()  # until the test closes it
zc.close()
"""

BROWSE = """
import sys, threading
from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf
zc = Zeroconf(interfaces=[sys.argv[1]])
found = threading.Event()
names = []
def changed(zeroconf, service_type, name, state_change):
    if state_change is ServiceStateChange.Added:
        names.append(name); found.set()
ServiceBrowser(zc, "_euchre-test._tcp.local.", handlers=[changed])
found.wait(120)  # only against a hang
info = zc.get_service_info("_euchre-test._tcp.local.", names[0], timeout=30_000)
print(names[0], info.parsed_addresses()[0], info.port, info.properties[b"event"].decode())
zc.close()
"""


def test_a_host_finds_another_by_multicast_dns() -> None:
    with netns.hosts(2) as net:
        announcer = net.popen(
            1,
            [sys.executable, "-c", ANNOUNCE, net.address(1)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert announcer.stdout is not None and announcer.stdin is not None
        assert announcer.stdout.readline().strip() == "announced"
        browser = net.popen(
            2, [sys.executable, "-c", BROWSE, net.address(2)], stdout=subprocess.PIPE, text=True
        )
        out, _ = browser.communicate(timeout=180)
        announcer.stdin.close()
        assert browser.returncode == 0
        assert out.strip() == (
            f"Spring Open._euchre-test._tcp.local. {net.address(1)} 8090 Spring Open"
        )


def _get(url: str, deadline: float) -> bytes:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return bytes(reply.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_the_test_reaches_a_hosts_web_server(tmp_path: Path, browser: Browser) -> None:
    (tmp_path / "hello.txt").write_text("a table's page\n")
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title><h1>Table 1</h1>")
    with netns.hosts(1) as net:
        net.popen(
            1,
            [
                sys.executable,
                "-m",
                "http.server",
                "8000",
                "--bind",
                net.address(1),
                "--directory",
                str(tmp_path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        net.wait_listening(1, 8000)
        page = _get(f"http://{net.address(1)}:8000/hello.txt", time.monotonic() + 120)
        assert page == b"a table's page\n"
        tab = browser.new_page()  # Chromium, in the test's namespace, too
        tab.goto(f"http://{net.address(1)}:8000/")
        expect(tab.locator("h1")).to_have_text("Table 1")
        tab.close()
        # The host is not the test's own namespace: its server is not on this loopback.
        names = net.namespace(1), net.hub
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(name in listed for name in names)


def test_a_dead_runs_namespaces_are_removed() -> None:
    # A child makes a network and dies without cleaning up (SIGKILL: no atexit).
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, os, signal; sys.path.insert(0, 'tests'); import netns;"
            "net = netns.Hosts(1); print(net.hub, flush=True);"
            "os.kill(os.getpid(), signal.SIGKILL)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parent.parent,
    )
    assert child.stdout is not None
    hub = child.stdout.readline().strip()
    child.wait(60)
    assert hub in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert hub in netns.remove_stale()
    assert hub not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
