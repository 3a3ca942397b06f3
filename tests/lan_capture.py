"""What crosses a test network's bridge, captured as a sniffer on the venue's Wi-Fi
would: every frame on the hub's bridge (tests/netns.py), written to a file.

Run as ``ip netns exec HUB python lan_capture.py OUT`` (``start``): a raw packet socket
(AF_PACKET, every protocol) bound to no interface, so it takes every frame on every port
of the hub's bridge (a socket on ``br0`` itself sees only what the bridge is sent, not
what it forwards between hosts), each written with its length before it, until SIGTERM.
No capture program is needed; a frame is bytes, and what a test looks for (a password,
a cookie, a card) is bytes too. ``frames`` reads the file back; ``found`` says which of
the given secrets appear in any flow's bytes in clear.
"""

from __future__ import annotations

import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ETH_P_ALL = 0x0003


def _capture(out: Path) -> None:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.settimeout(0.2)
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    with out.open("wb") as f:
        print("capturing", flush=True)
        while not stopping:
            try:
                frame = sock.recv(65_536)
            except TimeoutError:
                continue
            f.write(struct.pack(">I", len(frame)) + frame)
            f.flush()


def start(argv_in_hub: list[str], out: Path) -> subprocess.Popen[str]:
    """The capture, started with ``argv_in_hub`` (``ip netns exec HUB``) and running
    once this returns."""
    proc = subprocess.Popen(
        [*argv_in_hub, sys.executable, __file__, str(out)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "capturing":
        proc.kill()
        raise RuntimeError(f"the capture did not start: {line!r}")
    return proc


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)


def frames(path: Path) -> Iterator[bytes]:
    data = path.read_bytes()
    at = 0
    while at + 4 <= len(data):
        (size,) = struct.unpack(">I", data[at : at + 4])
        yield data[at + 4 : at + 4 + size]
        at += 4 + size


def streams(path: Path) -> dict[tuple[Any, ...], bytes]:
    """Each IPv4 flow's payloads, in the order captured: a TCP connection's bytes one
    way, or a UDP port pair's datagrams; a frame of anything else as a flow of its own."""
    flows: dict[tuple[Any, ...], list[bytes]] = {}
    for n, frame in enumerate(frames(path)):
        if len(frame) < 34 or frame[12:14] != b"\x08\x00":
            flows.setdefault(("frame", n), []).append(frame)
            continue
        ip = frame[14:]
        header = (ip[0] & 0x0F) * 4
        total = int.from_bytes(ip[2:4], "big")
        proto, src, dst = ip[9], ip[12:16], ip[16:20]
        body = ip[header:total]
        if proto == 6 and len(body) >= 20:
            payload = body[(body[12] >> 4) * 4 :]
        elif proto == 17 and len(body) >= 8:
            payload = body[8:]
        else:
            payload = body
        key = (proto, src, body[0:2], dst, body[2:4])
        flows.setdefault(key, []).append(payload)
    return {k: b"".join(v) for k, v in flows.items()}


def found(path: Path, secrets: Iterable[bytes]) -> set[bytes]:
    """The ``secrets`` seen in clear in the capture at ``path``: in any flow's bytes
    (so a secret cut between two segments is found too)."""
    wanted = {s for s in secrets if s}
    seen: set[bytes] = set()
    for data in streams(path).values():
        seen |= {s for s in wanted if s in data}
    return seen


def count(path: Path) -> int:
    return sum(1 for _ in frames(path))


if __name__ == "__main__":
    _capture(Path(sys.argv[1]))
