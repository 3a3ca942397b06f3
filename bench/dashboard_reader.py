"""The dashboard as a director's browser reads it, for bench/feed.py ``--dashboard-tls``:
served over HTTPS (a certificate from the event's own CA, made for the run), a director logged in
through ``/api/login`` (Argon2id, the throttle, the Origin and JSON checks), and the
overview's stream (``/events``) read in a process of its own, as a browser on another
machine reads it (a thread here would take the director's interpreter lock from it and
count its own waits as the director's), noting when each message arrives.
So the feed's latency is measured to a logged-in reader over TLS, not only to the
server's publishing of the snapshot: after the run, the stream's changes are applied as
the page applies them, and an event is on the dashboard when its table's count of
events shown reaches it."""

from __future__ import annotations

import http.client
import json
import multiprocessing as mp
import os
import secrets
import ssl
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from table_controller.director.dashboard.stream import apply_change
from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore


class DashboardReader:
    """A logged-in director's stream over HTTPS; ``arrivals`` the time of each snapshot."""

    def __init__(self, store: DirectorStore, url: str, cert: Path) -> None:
        password = secrets.token_urlsafe(16)
        store.accounts.add_login("bench", password)
        self._url = urllib.parse.urlsplit(url)
        self._ctx = ssl.create_default_context(cafile=str(cert))
        conn = self._connect()
        conn.request(
            "POST",
            "/api/login",
            json.dumps({"name": "bench", "password": password}),
            {"Content-Type": "application/json"},
        )
        resp = conn.getresponse()
        resp.read()
        if resp.status != 200:
            raise RuntimeError(f"the bench's login was refused ({resp.status})")
        self._cookie = str(resp.headers["Set-Cookie"]).split(";")[0]
        assert self._cookie.startswith(COOKIE + "=")
        conn.close()
        self.arrivals: list[float] = []
        self.messages: list[bytes] = []  # each message's data, read after the run
        fd, name = tempfile.mkstemp(prefix="bench-dashboard-", suffix=".log")
        os.close(fd)
        self._log = Path(name)
        host, port = self._url.hostname or "127.0.0.1", self._url.port or 443
        self._proc = mp.get_context("spawn").Process(
            target=read_stream,
            args=(host, port, str(cert), self._cookie, str(self._log)),
            name="dashboard-reader",
            daemon=True,
        )
        self._proc.start()

    def _connect(self) -> http.client.HTTPSConnection:
        host, port = self._url.hostname or "127.0.0.1", self._url.port or 443
        return http.client.HTTPSConnection(host, port, context=self._ctx, timeout=60)

    def join(self) -> None:
        """Waits for the stream to end (the dashboard stopped), then takes what it read."""
        self._proc.join(60)
        with self._log.open("rb") as f:
            for line in f:
                at, _, data = line.partition(b" ")
                self.arrivals.append(float(at))
                self.messages.append(data.rstrip(b"\n"))
        self._log.unlink()

    def shown_counts(self) -> tuple[dict[str, list[tuple[float, int]]], int]:
        """What the reader's page showed, as the page applies the stream's changes
        (``apply_change``): for each table, when its count of events stored grew and to
        what; and how many messages could not be applied (a change from a snapshot the
        page did not have: the run fails on one)."""
        shown: dict[str, Any] | None = None
        counts: dict[str, list[tuple[float, int]]] = {}
        refused = 0
        for at, data in zip(self.arrivals, self.messages, strict=True):
            message = json.loads(data)
            after = apply_change(shown, message)
            if after is None:
                refused += 1
                continue
            shown = after
            if after.get("store_problem"):
                continue
            for t in after["tables"]:
                seen = counts.setdefault(t["table"], [])
                if not seen or t["events"] > seen[-1][1]:
                    seen.append((at, int(t["events"])))
        return counts, refused


def read_stream(host: str, port: int, cafile: str, cookie: str, log: str) -> None:
    """The reader's process: each message of the stream, as it arrives, with the time."""
    ctx = ssl.create_default_context(cafile=cafile)
    conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=60)
    conn.request("GET", "/events", headers={"Cookie": cookie})
    resp = conn.getresponse()
    with open(log, "wb") as out:
        while line := resp.readline():  # ends when the dashboard stops
            if line.startswith(b"data:"):
                out.write(repr(time.time()).encode() + b" " + line[5:].rstrip(b"\n") + b"\n")
    conn.close()
