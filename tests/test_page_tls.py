"""A table's page open to the network is HTTPS (docs/table-page.md, "HTTPS"), each check
against the real thing: the real ``Table`` served by uvicorn on every address
(``0.0.0.0``, a free port) and reached at 127.0.0.1, as a phone on the venue's Wi-Fi
reaches it at the table's address; ``table-controller run`` as a process for what the
start prints; Debian's chromium trusting the table's key alone, as a person who compared
the fingerprint does. No test asserts how long anything takes."""

from __future__ import annotations

import base64
import datetime
import hashlib
import http.client
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium import ARGS, CHROMIUM
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from mosquitto import free_port
from playwright.sync_api import expect, sync_playwright
from waiting import InThread

from table_controller.cards import Card
from table_controller.feed.tls import fingerprint, issue, make_ca
from table_controller.rules.events import HandDealt
from table_controller.rules.game import Phase
from table_controller.sim import World, WorldCamera
from table_controller.table.app import Table
from table_controller.table.config import ConfigError, TableConfig, parse_config, to_toml
from table_controller.table.fleet.display import JoinDisplay
from table_controller.table.noticed import Ruled
from table_controller.table.options import TableOptions
from table_controller.table.page.tls import (
    CERT_DAYS,
    INSECURE,
    PageTls,
    PageTlsError,
    given,
    machine_names,
    on_loopback,
    own,
    prepare,
)
from table_controller.vision.synthetic import Effects
from table_controller.web.guard import COOKIE
from table_controller.web.pin import hash_pin

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
GUARD = 60.0  # seconds: only against a hang
PIN = "2580"
PIN_HASH = hash_pin(PIN, iterations=1000)
ADDRESSES = ["192.0.2.10"]  # the machine's address on the venue's network (a test one)


def table_config(folder: Path, **web: Any) -> TableConfig:
    """A table on its own whose page listens on every address (a tablet at the table)."""
    data: dict[str, Any] = {
        "table": {"name": "Table 7", "gpio": "mock", "log": "table.sqlite", "first_dealer": "W"},
        "camera": {"source": "synthetic", "lost_after": 60.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"host": "0.0.0.0", "port": 0, **web},
    }
    return parse_config(data, folder, "<page tls test>")


def sha256_of(der: bytes) -> str:
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


class Served(InThread):
    """A real table run in its own event loop on a thread, its page on 0.0.0.0."""

    def __init__(self, table: Table) -> None:
        super().__init__(table, "the table", GUARD)
        self.until("the page is served", lambda: table.url is not None)
        url = urllib.parse.urlsplit(table.url)
        self.port = url.port or 0
        self.url = str(table.url)
        tls = table.page_tls
        assert tls is not None and tls.ca is not None
        self.tls: PageTls = tls
        self.ca: Path = tls.ca

    def trusting(self) -> ssl.SSLContext:
        """A client that trusts the table's own authority alone."""
        return ssl.create_default_context(cafile=str(self.ca))

    def post(
        self, path: str, body: str, origin: str, cookie: str | None = None
    ) -> http.client.HTTPResponse:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", self.port, timeout=GUARD, context=self.trusting()
        )
        headers = {"Content-Type": "application/json", "Origin": origin}
        if cookie is not None:
            headers["Cookie"] = f"{COOKIE}={cookie}"
        try:
            conn.request("POST", path, body=body.encode(), headers=headers)
            answer = conn.getresponse()
            answer.read()
            return answer
        finally:
            conn.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    world = World(effects=Effects())
    table = Table(
        table_config(tmp_path, operator_pin_hash=PIN_HASH),
        TableOptions(camera=lambda: WorldCamera(world, fps=5.0, realtime=True)),
    )
    running = Served(table)
    table.submit_threadsafe(Ruled(HandDealt(Card.parse("9H"))))  # N is to bid
    running.until("the deal", lambda: table.game.phase is Phase.BIDDING)
    yield running
    running.close()


# --- where the page is HTTPS --------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "mine"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("", False),
        ("::", False),
        ("192.168.1.20", False),
        ("table-3.local", False),
    ],
)
def test_only_loopback_is_this_machine_alone(host: str, mine: bool) -> None:
    assert on_loopback(host) is mine


def test_plain_http_stays_on_the_tables_own_screen(tmp_path: Path) -> None:
    """The default page (127.0.0.1) is plain HTTP, and nothing is made on the disk."""
    config = table_config(tmp_path, host="127.0.0.1")
    assert prepare(config, addresses=ADDRESSES) is None
    assert prepare(table_config(tmp_path, insecure=True), addresses=ADDRESSES) is None
    assert not (tmp_path / "page-tls").exists()


def test_the_certificate_is_kept_where_the_tables_state_is(tmp_path: Path) -> None:
    """Beside the event log for a table on its own; in the fleet's folder for a fleet's."""
    alone = prepare(table_config(tmp_path), addresses=ADDRESSES)
    assert alone is not None and alone.cert.parent == tmp_path / "page-tls"
    data: dict[str, Any] = {
        "table": {"gpio": "mock"},
        "camera": {"source": "synthetic"},
        "cube": {"port": "none"},
        "web": {"host": "0.0.0.0", "port": 0},
        "fleet": {"folder": "state/fleet"},
    }
    fleet = prepare(parse_config(data, tmp_path, "<fleet>"), addresses=ADDRESSES)
    assert fleet is not None and fleet.cert.parent == tmp_path / "state" / "fleet" / "page-tls"


def test_the_tables_own_certificate_is_kept_and_made_again_when_addresses_change(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "page-tls"
    names = machine_names("0.0.0.0", ADDRESSES)
    short = socket.gethostname().split(".")[0].lower()
    assert {short, f"{short}.local", "localhost", "127.0.0.1", "192.0.2.10"} <= set(names)
    first = own(folder, names)
    assert first.own and not first.renewed
    assert folder.stat().st_mode & 0o777 == 0o700
    for key in ("ca.key", "page.key"):
        assert (folder / key).stat().st_mode & 0o777 == 0o600, key
    assert first.fingerprint == fingerprint(first.cert)
    authority = (folder / "ca.crt").read_bytes()

    again = own(folder, names)  # the next start, the same addresses: the same certificate
    assert again.fingerprint == first.fingerprint and not again.renewed

    moved = own(folder, machine_names("0.0.0.0", ["198.51.100.7"]))  # another venue
    assert moved.renewed and moved.fingerprint != first.fingerprint
    assert (folder / "ca.crt").read_bytes() == authority  # a tablet that trusts it still does
    held = x509.load_pem_x509_certificate(moved.cert.read_bytes())
    alt = held.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "198.51.100.7" in {str(a) for a in alt.get_values_for_type(x509.IPAddress)}
    assert "192.0.2.10" not in {str(a) for a in alt.get_values_for_type(x509.IPAddress)}

    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=CERT_DAYS - 10)
    ending = own(folder, machine_names("0.0.0.0", ["198.51.100.7"]), now=later)
    assert ending.renewed and ending.fingerprint != moved.fingerprint

    # Made while the clock was a day ahead (a Pi before its clock is set): made again
    # once the clock is right, since a phone would call it "not yet valid".
    ahead = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    early = own(folder, machine_names("0.0.0.0", ["198.51.100.7"]), now=ahead)
    assert early.renewed
    righted = own(folder, machine_names("0.0.0.0", ["198.51.100.7"]))
    assert righted.renewed and righted.fingerprint != early.fingerprint
    assert own(folder, machine_names("0.0.0.0", ["198.51.100.7"])).renewed is False

    (folder / "page.key").write_text("damaged")
    mended = own(folder, machine_names("0.0.0.0", ["198.51.100.7"]))
    assert mended.renewed and (folder / "page.key").stat().st_mode & 0o777 == 0o600


def test_a_folder_that_cannot_be_written_is_said(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the folder goes")
    with pytest.raises(PageTlsError) as refused:
        own(blocker / "page-tls", machine_names("0.0.0.0", ADDRESSES))
    said = str(refused.value)
    assert "cannot be written in" in said and "[web] tls_cert and tls_key" in said


# --- a certificate the config names -------------------------------------------------------


@pytest.fixture
def pairs(tmp_path: Path) -> dict[str, Path]:
    """Two certificates of a club's own authority, each with its key."""
    ca = make_ca(tmp_path / "ca.crt", tmp_path / "ca.key", name="Club CA")
    files: dict[str, Path] = {}
    for name in ("a", "b"):
        cert, key = tmp_path / f"{name}.crt", tmp_path / f"{name}.key"
        issue(ca, ["table-3.club.lan", "192.0.2.10"], cert, key)
        files[f"{name}.crt"], files[f"{name}.key"] = cert, key
    return files


def test_a_certificate_the_config_names_is_served_as_it_is(pairs: dict[str, Path]) -> None:
    tls = given(pairs["a.crt"], pairs["a.key"])
    assert not tls.own and tls.fingerprint == fingerprint(pairs["a.crt"])
    assert set(tls.names) == {"table-3.club.lan", "192.0.2.10"}


def test_a_certificate_and_key_that_do_not_match_are_refused_in_words(
    pairs: dict[str, Path], tmp_path: Path
) -> None:
    with pytest.raises(PageTlsError) as refused:
        given(pairs["a.crt"], pairs["b.key"])
    said = str(refused.value)
    assert f"[web] tls_key: {pairs['b.key']} is not the key of the certificate" in said
    assert "give the key that certificate was made for" in said

    with pytest.raises(PageTlsError, match=r"\[web\] tls_cert: .* cannot be read .*copy"):
        given(tmp_path / "nowhere.crt", pairs["a.key"])
    with pytest.raises(PageTlsError, match="is not a PEM certificate"):
        given(pairs["a.key"], pairs["a.key"])
    with pytest.raises(PageTlsError, match="is not a PEM private key"):
        given(pairs["a.crt"], pairs["a.crt"])

    locked = tmp_path / "locked.key"
    key = serialization.load_pem_private_key(pairs["a.key"].read_bytes(), password=None)
    locked.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    locked.chmod(0o600)
    with pytest.raises(PageTlsError, match="protected by a password.*openssl pkey"):
        given(pairs["a.crt"], locked)

    pairs["a.key"].chmod(0o644)
    with pytest.raises(PageTlsError, match="can be read by every user.*chmod o-rwx"):
        given(pairs["a.crt"], pairs["a.key"])

    pairs["b.key"].chmod(0o600)
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=500)
    with pytest.raises(PageTlsError, match="expired on .*renew it"):
        given(pairs["b.crt"], pairs["b.key"], now=later)


def test_the_config_takes_both_files_or_neither_and_not_with_insecure(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as half:
        table_config(tmp_path, tls_cert="page.crt")
    assert "web.tls_key: [web] tls_cert is given without tls_key" in str(half.value)
    with pytest.raises(ConfigError) as both:
        table_config(tmp_path, tls_cert="page.crt", tls_key="page.key", insecure=True)
    assert "remove insecure = true to serve HTTPS with that certificate" in str(both.value)
    with pytest.raises(ConfigError, match="true or false"):
        table_config(tmp_path, insecure="yes")
    config = table_config(tmp_path, tls_cert="tls/page.crt", tls_key="tls/page.key")
    assert config.web.tls_cert == tmp_path / "tls" / "page.crt"
    assert config.web.tls_key == tmp_path / "tls" / "page.key"
    file = tmp_path / "table.toml"
    file.write_text(to_toml(config))
    from table_controller.table.config import load_config

    assert load_config(file).web == config.web
    assert table_config(tmp_path, tls_cert="", tls_key="").web.tls_cert is None


# --- the page served ----------------------------------------------------------------------


def test_the_page_answers_https_with_the_tables_certificate_and_never_plain_http(
    served: Served, tmp_path: Path
) -> None:
    assert served.url.startswith("https://127.0.0.1:")
    assert served.table.page is not None and served.table.page.bound == ("0.0.0.0", served.port)
    assert served.ca == tmp_path / "page-tls" / "ca.crt"
    # A client trusting the table's authority alone: the page, under each of its names.
    short = socket.gethostname().split(".")[0].lower()
    for name in ("127.0.0.1", "localhost", f"{short}.local"):
        with (
            socket.create_connection(("127.0.0.1", served.port), timeout=GUARD) as raw,
            served.trusting().wrap_socket(raw, server_hostname=name) as tls,
        ):
            der = tls.getpeercert(binary_form=True)
            assert der is not None and sha256_of(der) == served.tls.fingerprint, name
    with urllib.request.urlopen(served.url, timeout=GUARD, context=served.trusting()) as page:
        assert page.status == 200 and "Table 7" in page.read().decode()
    # A client that does not know the table (a phone's first visit): refused, so it warns.
    with pytest.raises(urllib.error.URLError) as unknown:
        urllib.request.urlopen(served.url, timeout=GUARD, context=ssl.create_default_context())
    assert isinstance(unknown.value.reason, ssl.SSLCertVerificationError)
    # Plain HTTP on the page's port gets no page at all.
    plain = http.client.HTTPConnection("127.0.0.1", served.port, timeout=GUARD)
    with pytest.raises((http.client.HTTPException, OSError)):
        plain.request("GET", "/")
        plain.getresponse().read()
    plain.close()


def test_the_operator_cookie_is_secure_and_the_origin_is_the_https_one(served: Served) -> None:
    own_origin = f"https://127.0.0.1:{served.port}"
    plain_origin = f"http://127.0.0.1:{served.port}"
    refused = served.post("/api/operator/login", f'{{"pin": "{PIN}"}}', plain_origin)
    assert refused.status == 403  # the http:// page is not this page
    answer = served.post("/api/operator/login", f'{{"pin": "{PIN}"}}', own_origin)
    assert answer.status == 200
    cookie = answer.headers["set-cookie"]
    parts = {p.strip().split("=")[0].lower() for p in cookie.split(";")}
    assert {"secure", "httponly", "samesite"} <= parts, cookie
    assert "samesite=strict" in cookie.lower()
    value = cookie.split(";")[0].split("=", 1)[1]
    with urllib.request.urlopen(
        urllib.request.Request(
            served.url + "api/operator", headers={"Cookie": f"{COOKIE}={value}"}
        ),
        context=served.trusting(),
        timeout=GUARD,
    ) as state:
        assert b'"operator":true' in state.read()
    out = served.post("/api/operator/logout", "{}", own_origin, cookie=value)
    assert out.status == 200 and "secure" in out.headers["set-cookie"].lower()


def spki_pin(cert: Path) -> str:
    """The certificate's key as Chromium's --ignore-certificate-errors-spki-list takes it
    (base64 of the SHA-256 of its SubjectPublicKeyInfo): trusting this key alone is
    what a person does who compared the fingerprint the table printed."""
    held = x509.load_pem_x509_certificate(cert.read_bytes())
    spki = held.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


@pytest.mark.slow(budget=60)
def test_the_page_works_in_chromium_over_https(served: Served) -> None:
    """Chromium not knowing the table refuses the page (a phone's warning); trusting the
    table's key alone, it shows the live page, and the operator logs in with a cookie
    that is Secure. The screenshot is test-artifacts/table-page-https.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        stranger = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            tab = stranger.new_page()
            with pytest.raises(Exception, match="ERR_CERT_AUTHORITY_INVALID"):
                tab.goto(served.url)
        finally:
            stranger.close()
        pinned = [f"--ignore-certificate-errors-spki-list={spki_pin(served.tls.cert)}"]
        chromium = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=[*ARGS, *pinned], headless=True
        )
        problems: list[str] = []
        try:
            context = chromium.new_context(viewport={"width": 1280, "height": 720})
            tab = context.new_page()
            tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            answer = tab.goto(served.url)
            assert answer is not None and answer.status == 200
            details = answer.security_details() or {}
            assert details.get("issuer", "").endswith("page CA"), details
            expect(tab.locator("#conn")).to_have_text("live")
            with tab.expect_response("**/api/input") as passed:
                tab.locator("#actions button", has_text="Pass").click()
            assert passed.value.status == 200
            tab.locator("#op-open").click()
            tab.locator("#op-pin").fill(PIN)
            tab.locator("#op-login-go").click()
            expect(tab.locator("#op-tools")).to_be_visible()
            [cookie] = [c for c in context.cookies() if c["name"] == COOKIE]
            assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            tab.locator("#op-close").click()
            expect(tab.locator("#op-tools")).to_be_hidden()
            tab.screenshot(path=str(ARTIFACTS / "table-page-https.png"))
        finally:
            chromium.close()
    assert not problems, problems


# --- what the start says ------------------------------------------------------------------


def table_file(folder: Path, **web: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    extra = "".join(f"{k} = {v}\n" for k, v in web.items())
    path = folder / "table.toml"
    path.write_text(
        '[table]\nname = "Table 7"\ngpio = "mock"\nlog = "table.sqlite"\n'
        '[camera]\nsource = "synthetic"\nlost_after = 60.0\ndrift_check = 0\n'
        '[cube]\nport = "none"\n'
        f'[web]\nhost = "0.0.0.0"\nport = {free_port()}\n{extra}',
        encoding="utf-8",
    )
    return path


class Run:
    """``table-controller run --config FILE`` as a process, its lines read as they come."""

    def __init__(self, config: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table_controller", "run", "--config", str(config), "--fast"],
            cwd=config.parent,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []

    def until(self, pattern: str) -> re.Match[str]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if found := re.search(pattern, line):
                return found
        raise AssertionError(f"{pattern!r} never said: {self.lines}")

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        rest, _ = self.proc.communicate(timeout=GUARD)
        return "\n".join(self.lines) + "\n" + rest


@pytest.mark.slow(budget=40)
def test_run_prints_the_https_address_and_the_fingerprint_it_serves(tmp_path: Path) -> None:
    run = Run(table_file(tmp_path / "table"))
    try:
        url = run.until(r"^The table page: (https://\S+) \(open to the network").group(1)
        phone = run.until(r"^From a phone or tablet on this network: https://\S+\.local:\d+/")
        run.until(r"so each warns once")
        run.until(r"SHA-256 fingerprint is$")
        printed = run.until(r"^  ([0-9A-F]{2}(:[0-9A-F]{2}){31})$").group(1)
        run.until(r"^before going on\. If it is another, do not go on")
        port = int(url.rsplit(":", 1)[1].rstrip("/"))
        assert phone.group(0).endswith(f":{port}/")
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # as a phone's first visit: it compares instead
        with (
            socket.create_connection(("127.0.0.1", port), timeout=GUARD) as raw,
            context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
        ):
            der = tls.getpeercert(binary_form=True)
        assert der is not None and sha256_of(der) == printed
    finally:
        said = run.stop()
    assert run.proc.returncode == 0, said
    assert printed == fingerprint(tmp_path / "table" / "page-tls" / "page.crt")


@pytest.mark.slow(budget=40)
def test_insecure_serves_plain_http_on_the_network_and_says_what_it_exposes(
    tmp_path: Path,
) -> None:
    run = Run(table_file(tmp_path / "table", insecure="true"))
    try:
        url = run.until(r"^The table page: (http://\S+) \(open to the network").group(1)
        warning = run.until(r"^WARNING: \[web\] insecure = true").string.strip()
        with urllib.request.urlopen(url + "health", timeout=GUARD) as answer:
            assert answer.status == 200
    finally:
        said = run.stop()
    assert run.proc.returncode == 0, said
    assert warning == INSECURE
    for exposed in ("operator's PIN", "session", "every card the page shows"):
        assert exposed in warning
    assert not (tmp_path / "table" / "page-tls").exists()


@pytest.mark.slow(budget=40)
def test_run_refuses_a_certificate_and_key_that_do_not_match(
    tmp_path: Path, pairs: dict[str, Path]
) -> None:
    config = table_file(
        tmp_path / "table", tls_cert=f'"{pairs["a.crt"]}"', tls_key=f'"{pairs["b.key"]}"'
    )
    done = subprocess.run(
        [sys.executable, "-m", "table_controller", "run", "--config", str(config), "--fast"],
        cwd=config.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: [web] tls_key: {pairs['b.key']} is not the key of the certificate" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    assert "The table page:" not in done.stdout  # never served in clear instead


# --- the join page, on the same port ------------------------------------------------------


def test_the_join_page_is_https_with_the_same_certificate(tmp_path: Path) -> None:
    """A joining table's page takes the port first: HTTPS too, with the certificate the
    table's page will use, so a phone accepts the table once."""
    data: dict[str, Any] = {
        "table": {"gpio": "mock"},
        "camera": {"source": "synthetic"},
        "cube": {"port": "none"},
        "web": {"host": "0.0.0.0", "port": 0},
        "fleet": {"folder": "fleet"},
    }
    config = parse_config(data, tmp_path, "<fleet>")
    with JoinDisplay(config) as display:
        assert display.url is not None and display.url.startswith("https://"), display.problems
        assert display.tls is not None and display.tls.ca is not None
        context = ssl.create_default_context(cafile=str(display.tls.ca))
        with urllib.request.urlopen(display.url, timeout=GUARD, context=context) as page:
            assert page.status == 200
        joined = display.tls.fingerprint
    assert display.tls.cert == tmp_path / "fleet" / "page-tls" / "page.crt"
    later = prepare(config)  # the table's page, once joined
    assert later is not None and later.fingerprint == joined
