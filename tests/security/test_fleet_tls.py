"""`director start` serves only TLS on the network (issue: trust over the air, finding 2),
and a table takes the event's authority only from a bundle the director signed.

Before: the broker listened in clear on 1883 and the dashboard on plain HTTP, so a
capture held a table's broker password in its MQTT CONNECT and the director's password
in ``POST /api/login``, and the session cookie had no Secure flag. Now the broker's one
listener and the dashboard present a certificate of the event's own CA; plain HTTP only
redirects; ``--insecure`` must be asked for, and says what it exposes. The LAN capture
of a whole event is in tests/test_fleet_e2e.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from mosquitto import free_port
from test_director_start import Director, started, trusting
from test_director_web import log_in

from table_controller.director.https_redirect import https_location
from table_controller.director.start import FleetStartError, open_folder
from table_controller.feed.signing import new_keys
from table_controller.feed.tls import make_certs
from table_controller.fleet import sealing
from table_controller.fleet.discovery import Found, key_text
from table_controller.table.fleet.join import JoinError, _opened

EVENT = "Spring Open"


def mqtt_connect(user: str, password: str) -> bytes:
    """An MQTT 3.1.1 CONNECT with a login, as a table's client sends it in clear."""

    def text(s: str) -> bytes:
        return len(s.encode()).to_bytes(2, "big") + s.encode()

    body = text("MQTT") + bytes([4, 0xC2]) + (30).to_bytes(2, "big")
    body += text(user) + text(user) + text(password)
    return bytes([0x10, len(body)]) + body


def answer_to_plain(port: int, data: bytes) -> bytes:
    """What a server on ``port`` answers to ``data`` sent in clear (b"": it hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        try:
            return s.recv(64)
        except (ConnectionResetError, TimeoutError):
            return b""


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kw: Any) -> None:
        return None


def redirected(url: str, data: bytes | None = None) -> tuple[int, str]:
    opener = urllib.request.build_opener(NoRedirect())
    with pytest.raises(urllib.error.HTTPError) as err:
        opener.open(urllib.request.Request(url, data), timeout=30)
    return err.value.code, str(err.value.headers.get("Location"))


@pytest.mark.slow(budget=60)
def test_director_start_serves_only_tls_and_plain_http_only_redirects(tmp_path: Path) -> None:
    folder = tmp_path / "spring"
    web, broker = free_port(), free_port()
    director = started(folder, web, broker)
    try:
        password = director.wait_for(r"as director, password (\S+)")[1]
        url = director.wait_for(r"The dashboard: (\S+)")[1]
        printed = director.wait_for(r"^\s+((?:[0-9A-F]{2}:){31}[0-9A-F]{2})\s*$")[1]
        plain = int(director.wait_for(r"Plain http:// on port (\d+) only sends")[1])
        director.wait_for("Press Ctrl-C to stop")
        assert url == f"https://127.0.0.1:{web}/"

        # The certificate served is the one whose fingerprint was printed, of the CA.
        tls = trusting(folder)
        with (
            socket.create_connection(("127.0.0.1", web), timeout=30) as raw,
            tls.wrap_socket(raw, server_hostname="127.0.0.1") as wrapped,
        ):
            served = wrapped.getpeercert(binary_form=True)
        assert served is not None
        digest = hashlib.sha256(served).hexdigest().upper()
        assert printed.replace(":", "") == digest

        # The login over HTTPS: its session cookie is Secure (and HttpOnly, Strict).
        req = urllib.request.Request(
            url + "api/login",
            json.dumps({"name": "director", "password": password}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=30, context=tls) as answer:
            cookie = answer.headers["Set-Cookie"].lower()
        assert "secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie

        # In clear, neither the broker nor the dashboard takes anything.
        reply = answer_to_plain(broker, mqtt_connect("table-1", "sniffed"))
        assert not reply.startswith(b"\x20"), reply  # no CONNACK: not MQTT in clear
        reply = answer_to_plain(web, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b"HTTP/1.1 200" not in reply
        # Plain http:// only sends the browser to HTTPS (a form too, kept a POST).
        assert redirected(f"http://127.0.0.1:{plain}/fleet?x=1") == (
            301,
            f"https://127.0.0.1:{web}/fleet?x=1",
        )
        assert redirected(f"http://127.0.0.1:{plain}/api/login", b"{}")[0] == 308

        # A machine with a certificate of another authority is not the director.
        other = make_certs(tmp_path / "other", ["127.0.0.1"])
        stranger = ssl.create_default_context(cafile=str(other.ca_cert))
        for port in (web, broker):
            with (
                socket.create_connection(("127.0.0.1", port), timeout=30) as raw,
                pytest.raises(ssl.SSLCertVerificationError),
            ):
                stranger.wrap_socket(raw, server_hostname="127.0.0.1")
    finally:
        assert director.interrupt() == 0, "".join(director.said)
    assert (folder / "tls" / "ca.key").stat().st_mode & 0o077 == 0
    assert (folder / "tls" / "director.key").stat().st_mode & 0o077 == 0


@pytest.mark.slow(budget=60)
def test_insecure_is_asked_for_and_says_what_it_exposes(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    web = free_port()
    director = Director(
        folder, "--event", "Club", "--web-port", str(web),
        "--broker-port", str(free_port()), "--insecure",
    )  # fmt: skip
    try:
        password = director.wait_for(r"as director, password (\S+)")[1]
        url = director.wait_for(r"The dashboard: (\S+)")[1]
        warning = director.wait_for(r"WARNING: --insecure: (.*)")[1]
        director.wait_for("Press Ctrl-C to stop")
        assert url == f"http://127.0.0.1:{web}/"
        for exposed in ("broker password", "director's password", "every card"):
            assert exposed in warning
        assert log_in(url, "director", password)
    finally:
        assert director.interrupt() == 0, "".join(director.said)
    assert not (folder / "tls").exists()
    assert json.loads((folder / "fleet.json").read_text())["tls"] is False


def test_insecure_cannot_be_given_to_an_event_that_runs_with_tls(tmp_path: Path) -> None:
    folder = tmp_path / "cup"
    ev, made = open_folder(folder, event="Cup", rules=None, web_port=None, broker_port=None)
    assert made and ev.tls and ev.broker_port == 8883
    folder.mkdir()
    ev.save()
    with pytest.raises(FleetStartError, match="--insecure cannot be given now"):
        open_folder(folder, event=None, rules=None, web_port=None, broker_port=None, insecure=True)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=40), st.text(max_size=40))
@example("evil.example@127.0.0.1", "/", "")
@example("127.0.0.1/evil.example", "/", "")
@example("[::1]:8080", "/x", "a=1")
@example("127.0.0.1:8080", "/%0d%0aSet-Cookie:x", "")
@example("127.0.0.1:8080", "/\r\nSet-Cookie: x", "")
def test_the_redirect_never_leaves_the_host_asked_for(host: str, path: str, query: str) -> None:
    where = https_location(host, path, query, 8090)
    if where is None:
        return
    parts = urlsplit(where)
    named = host.strip()
    asked = named[1 : named.index("]")] if named.startswith("[") else named.rsplit(":", 1)[0]
    assert parts.scheme == "https" and parts.port == 8090 and parts.username is None
    assert parts.hostname == asked.lower()
    assert all(0x21 <= ord(c) <= 0x7E for c in where)  # nothing that breaks a header


# --- the bundle: what only the director makes ---------------------------------------


def bundle(director_public: bytes, ca: str = "") -> dict[str, Any]:
    return {
        "table": "table-7", "name": "Table 7", "username": "table-7", "password": "pw",
        "broker_port": 8883, "topic": "euchre/spring-open", "event": EVENT,
        "rules": "td-tournament", "options": {}, "director_key": director_public.decode(),
        "signing_key": "", "ca": ca,
    }  # fmt: skip


def table_keys() -> tuple[bytes, bytes]:
    private = sealing.new_private()
    return private, sealing.public_of(private)


def found_at(director_public: bytes) -> Found:
    return Found(EVENT, "10.0.0.2", 8090, 8883, key_text(director_public), "0.1.0")


def sealed_for(table_public: bytes, content: dict[str, Any]) -> str:
    return base64.b64encode(sealing.seal(table_public, json.dumps(content).encode())).decode()


def test_a_signed_bundle_is_taken_with_its_authority(tmp_path: Path) -> None:
    private, public = new_keys()
    t_private, t_public = table_keys()
    ca = make_certs(tmp_path / "ca", ["127.0.0.1"]).ca_cert.read_text()
    signed = sealing.sign_bundle(bundle(public, ca), private, t_public)
    m = _opened(t_private, sealed_for(t_public, signed), found_at(public), t_public)
    assert m.ca == ca and m.tls


def test_a_bundle_the_director_did_not_sign_is_refused(tmp_path: Path) -> None:
    """A machine relaying a table's request to the real director, then answering with a
    bundle of its own (the real director's public key, its own broker and authority):
    before, the table would have trusted the stranger's broker."""
    private, public = new_keys()
    rogue_private, _ = new_keys()
    t_private, t_public = table_keys()
    rogue_ca = make_certs(tmp_path / "rogue", ["10.0.0.66"]).ca_cert.read_text()
    forged = bundle(public, rogue_ca)
    attempts = {
        "unsigned": forged,
        "signed by another key": sealing.sign_bundle(forged, rogue_private, t_public),
        "signed for another table": sealing.sign_bundle(forged, private, table_keys()[1]),
        "changed after signing": {
            **sealing.sign_bundle(bundle(public), private, t_public),
            "ca": rogue_ca,
        },
    }
    for what, content in attempts.items():
        with pytest.raises(JoinError, match="not signed by the director's key"):
            _opened(t_private, sealed_for(t_public, content), found_at(public), t_public)
        assert what


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(bundle(b"x"))), st.text(min_size=1, max_size=20))
def test_any_field_changed_breaks_the_signature(field: str, value: str) -> None:
    private, public = new_keys()
    _, t_public = table_keys()
    signed = sealing.sign_bundle(bundle(public), private, t_public)
    changed = {**signed, field: value}
    if changed[field] == signed[field] or field == "director_key":
        return  # the same bundle; another key is refused as not the one announced
    with pytest.raises(sealing.SealError):
        sealing.check_bundle(changed, t_public)
