"""The dashboard as a director's browser reads it, for bench/feed.py ``--dashboard-tls``:
served over HTTPS (a self-signed certificate made for the run), a director logged in
through ``/api/login`` (Argon2id, the throttle, the Origin and JSON checks), and the
overview's stream (``/events``) read by a thread that notes when each snapshot arrives.
So the feed's latency is measured to a logged-in reader over TLS, not only to the
server's publishing of the snapshot."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import secrets
import ssl
import threading
import time
import urllib.parse
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from table_controller.director.store import DirectorStore
from table_controller.director.web import COOKIE


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files in ``folder``)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "dashboard.pem", folder / "dashboard.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class DashboardReader:
    """A logged-in director's stream over HTTPS; ``arrivals`` the time of each snapshot."""

    def __init__(self, store: DirectorStore, url: str, cert: Path) -> None:
        password = secrets.token_urlsafe(16)
        store.add_login("bench", password)
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
        self._thread = threading.Thread(target=self._read, name="dashboard-reader", daemon=True)
        self._thread.start()

    def _connect(self) -> http.client.HTTPSConnection:
        host, port = self._url.hostname or "127.0.0.1", self._url.port or 443
        return http.client.HTTPSConnection(host, port, context=self._ctx, timeout=60)

    def _read(self) -> None:
        conn = self._connect()
        conn.request("GET", "/events", headers={"Cookie": self._cookie})
        resp = conn.getresponse()
        while line := resp.readline():  # ends when the dashboard stops
            if line.startswith(b"data:"):
                self.arrivals.append(time.time())
        conn.close()

    def join(self) -> None:
        self._thread.join(30)
