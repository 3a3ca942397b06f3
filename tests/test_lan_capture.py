"""The LAN capture the fleet's tests sniff with (tests/lan_capture.py) sees what crosses
the network in clear, and nothing of what crosses it over TLS: so a test that finds no
secret in a capture could have found one."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
from pathlib import Path

import lan_capture
import netns
from waiting import wait_until

from table_controller.feed.tls import make_certs

SERVER = """
import socket, ssl, sys
port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
plain = socket.create_server(("0.0.0.0", port))
secure = socket.create_server(("0.0.0.0", port + 1))
context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)
print("ready", flush=True)
for listener in (plain, secure):
    conn, _ = listener.accept()
    if listener is secure:
        conn = context.wrap_socket(conn, server_side=True)
    data = b""
    while not data.endswith(b"\\n"):
        data += conn.recv(4096)
    conn.sendall(data)
    conn.close()
"""


def test_a_secret_in_clear_is_seen_and_one_over_tls_is_not(tmp_path: Path) -> None:
    with netns.hosts(1) as net:
        certs = make_certs(tmp_path / "tls", [net.address(1)])
        frames = tmp_path / "lan.frames"
        sniffer = lan_capture.start(["ip", "netns", "exec", net.hub], frames)
        server = net.popen(
            1,
            [sys.executable, "-c", SERVER, "9000", str(certs.cert), str(certs.key)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        clear, hidden = b"password=in-clear-1234", b"password=over-tls-5678"
        with socket.create_connection((net.address(1), 9000), timeout=30) as s:
            s.sendall(clear + b"\n")
            assert s.recv(4096).startswith(clear)
        context = ssl.create_default_context(cafile=str(certs.ca_cert))
        with (
            socket.create_connection((net.address(1), 9001), timeout=30) as raw,
            context.wrap_socket(raw, server_hostname=net.address(1)) as s,
        ):
            s.sendall(hidden + b"\n")
            assert s.recv(4096).startswith(hidden)
        wait_until(
            "the capture holds the clear one", lambda: clear in lan_capture.found(frames, [clear])
        )
        lan_capture.stop(sniffer)
        assert lan_capture.found(frames, [clear, hidden]) == {clear}
        server.wait(30)
