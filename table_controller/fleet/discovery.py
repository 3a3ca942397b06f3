"""Finding the director on the local network, without an address typed in.

The director's service announces itself over mDNS/DNS-SD (``announce``): service type
``_euchre-director._tcp.local.``, the event's name as the instance, the dashboard's
port, and in its TXT record the event, the broker's port, the release and the
director's public signing key itself (``key``: its DER, base64). A table browses for a
few seconds (``find_directors``). Where a network blocks multicast (some venues' Wi-Fi
does), a table is given the director's address instead (``parse_director``), and asks
its dashboard ``GET /api/fleet/hello`` for the rest.

Anyone on the network can announce a "director", so the key is required: a table
refuses an announcement or a hello without one (before, an empty key was taken and
nothing was compared), checks that the director's bundle carries that same key, and
shows the key's fingerprint (``key_fingerprint``: five groups of four digits, about 66
bits, a form two people read aloud) for a person to compare with the director's screen,
or pins it (``join --fingerprint``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import json
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import ifaddr
from cryptography.hazmat.primitives import serialization
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from table_controller import __version__
from table_controller.errors import TableControllerError
from table_controller.fleet.sealing import digit_groups

SERVICE = "_euchre-director._tcp.local."
DEFAULT_WEB_PORT = 8090
HELLO = "/api/fleet/hello"
HELLO_TIMEOUT = 5.0
MAX_INSTANCE = 63  # bytes in a DNS label
MAX_KEY_TEXT = 200  # characters of a key in a TXT entry (an Ed25519 key is 60)
FINGERPRINT_DIGITS = 20
FINGERPRINT = b"table-controller director key v2"


class DiscoveryError(TableControllerError, OSError):
    """The director could not be found or asked: what to check, what to do."""


@dataclass(frozen=True)
class Found:
    """A director found on the network (or at the address given)."""

    event: str
    host: str
    port: int
    broker_port: int
    key: str  # the director's public key as announced (DER, base64); "" when none
    version: str
    tls: bool = True  # its dashboard is HTTPS (False: started with --insecure)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    @property
    def key_problem(self) -> str | None:
        """Why this director's key cannot be trusted to join, in words; None if it is a
        public key."""
        try:
            key_der(self.key)
        except DiscoveryError as exc:
            return str(exc)
        return None

    @property
    def key_fingerprint(self) -> str:
        """The fingerprint of the key announced ("" when there is no usable key)."""
        return "" if self.key_problem else key_fingerprint(key_der(self.key))

    def words(self) -> str:
        """How a person tells this director from another: its event, where, its key."""
        key = f"key {self.key_fingerprint}" if self.key_fingerprint else "no key"
        clear = "" if self.tls else ", in clear: started with --insecure"
        return f"{self.event} at {self.host}:{self.port} ({key}{clear})"


def key_der(text: str) -> bytes:
    """The director's public key (DER) of its announced text (base64 DER);
    DiscoveryError in words when there is none or it is not a key."""
    if not text:
        raise DiscoveryError(
            "it gave no key: a director always announces its key, so this one is refused "
            "(another machine may be posing as the director)"
        )
    try:
        der = base64.b64decode(text[:MAX_KEY_TEXT], validate=True)
        serialization.load_der_public_key(der)
    except (binascii.Error, ValueError, TypeError):
        raise DiscoveryError(
            "its key is not a public key: it is refused (another machine may be posing as "
            "the director, or it runs another release)"
        ) from None
    return der


def key_text(public: bytes) -> str:
    """A public key (PEM or DER) as announced: its DER, base64."""
    return base64.b64encode(_der(public)).decode()


def key_fingerprint(public: bytes) -> str:
    """The director key's fingerprint (of its PEM or DER), as two people compare it
    aloud: five groups of four digits, "0412 7731 5820 0093 6614" (about 66 bits, so no
    other key is found with the same one)."""
    return digit_groups(hashlib.sha256(FINGERPRINT + _der(public)).digest())


def normal_fingerprint(text: str) -> str:
    """A fingerprint as typed ("0412-7731 ...", spaces and dashes as one likes) in its
    shown form; DiscoveryError in words when it is not 20 digits."""
    digits = "".join(c for c in text if c.isdigit())
    if len(digits) != FINGERPRINT_DIGITS or any(c not in "0123456789 -" for c in text.strip()):
        raise DiscoveryError(
            f"{text[:60]!r} is not a director's key fingerprint: write the {FINGERPRINT_DIGITS} "
            "digits the director's screen shows (e.g. 0412 7731 5820 0093 6614)"
        )
    return " ".join(digits[i : i + 4] for i in range(0, FINGERPRINT_DIGITS, 4))


def _der(public: bytes) -> bytes:
    if public.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(public)
        except ValueError:
            raise DiscoveryError(
                "the director's key file is damaged (not a public key): restore it from a "
                "backup or start a new event's folder"
            ) from None
        return key.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    return public


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses, loopback and link-local left out: where the
    tables can reach the director."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6: (address, flowinfo, scope)
            address = ipaddress.IPv4Address(ip.ip)
            if address.is_loopback or address.is_link_local or str(address) in found:
                continue
            found.append(str(address))
    return found


def _instance(event: str) -> str:
    """The event's name as a DNS-SD instance label: at most 63 bytes, no dot."""
    text = " ".join(event.replace(".", " ").split()) or "Euchre event"
    while len(text.encode()) > MAX_INSTANCE:
        text = text[:-1]
    return text


@contextmanager
def announce(
    *,
    event: str,
    web_port: int,
    broker_port: int,
    key: str,
    addresses: Sequence[str] | None = None,
    tls: bool = True,
) -> Iterator[ServiceInfo]:
    """The director announced on the network while the block runs (withdrawn after).
    ``key``: the director's public key as announced (``key_text``), which tables
    require. ``addresses``: the IPv4 addresses announced and answered on (default: this
    machine's, loopback left out). Another director with the same event's name gets a
    changed instance name, not a refusal."""
    key_der(key)  # a director without its key would be refused by every table
    chosen = list(addresses) if addresses is not None else local_addresses()
    if not chosen:
        raise DiscoveryError(
            "this machine has no network address to announce the director on: connect it "
            "to the tables' network (cable or Wi-Fi) and start again"
        )
    host = socket.gethostname().split(".")[0] or "director"
    info = ServiceInfo(
        SERVICE,
        f"{_instance(event)}.{SERVICE}",
        port=web_port,
        properties={
            "event": event,
            "broker_port": str(broker_port),
            "version": __version__,
            "key": key,
            "tls": "1" if tls else "0",
        },
        server=f"{host}-director.local.",
        parsed_addresses=chosen,
    )
    try:
        zc = Zeroconf(interfaces=chosen, ip_version=IPVersion.V4Only)
    except OSError as exc:
        raise DiscoveryError(
            f"the director cannot be announced on {', '.join(chosen)} ({exc}): check the "
            "network; tables can still join with --director HOST:PORT"
        ) from None
    try:
        zc.register_service(info, allow_name_change=True)
        yield info
    finally:
        try:
            zc.unregister_service(info)
        finally:
            zc.close()


def find_directors(timeout: float = 5.0, *, interfaces: Sequence[str] | None = None) -> list[Found]:
    """Every director announced on the network, browsing for ``timeout`` seconds (all
    of them: a table that finds two must not pick one by chance). Those announced
    without a usable key are in the list too (``Found.key_problem``), for the table to
    say it refuses them."""
    try:
        zc = Zeroconf(
            interfaces=list(interfaces) if interfaces is not None else local_addresses(),
            ip_version=IPVersion.V4Only,
        )
    except OSError as exc:
        raise DiscoveryError(
            f"this table cannot listen for the director on the network ({exc}): check its "
            "network, or give the director's address with --director HOST:PORT"
        ) from None
    names: list[str] = []
    seen = threading.Condition()

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added:
            with seen:
                names.append(name)
                seen.notify_all()

    found: dict[str, Found] = {}
    try:
        browser = ServiceBrowser(zc, SERVICE, handlers=[changed])
        deadline = time.monotonic() + timeout
        done = 0
        while True:
            with seen:
                left = deadline - time.monotonic()
                if done == len(names) and left > 0:
                    seen.wait(left)
                todo = names[done:]
                done = len(names)
            for name in todo:
                info = zc.get_service_info(SERVICE, name, timeout=3000)
                one = None if info is None else _found(info)
                if one is not None:
                    found[name] = one
            if time.monotonic() >= deadline and done == len(names):
                break
        browser.cancel()
    finally:
        zc.close()
    return sorted(found.values(), key=lambda f: (f.event, f.host, f.port))


def _found(info: ServiceInfo) -> Found | None:
    props = {
        (k.decode(errors="replace") if isinstance(k, bytes) else str(k)): (
            v.decode(errors="replace") if isinstance(v, bytes) else ""
        )
        for k, v in info.properties.items()
    }
    hosts = info.parsed_addresses(IPVersion.V4Only)
    if not hosts or info.port is None:
        return None
    try:
        broker_port = int(props.get("broker_port", ""))
    except ValueError:
        return None
    return Found(
        event=props.get("event") or info.name.removesuffix("." + SERVICE),
        host=hosts[0],
        port=int(info.port),
        broker_port=broker_port,
        key=props.get("key", "")[:MAX_KEY_TEXT],
        version=props.get("version", ""),
        tls=props.get("tls") != "0",
    )


def parse_director(text: str, *, timeout: float = HELLO_TIMEOUT) -> Found:
    """The director at a fixed address ("HOST[:PORT]", the dashboard's port, 8090 if
    none; "http://HOST:PORT" for a director started with --insecure): asks its
    dashboard for the event, broker port and key."""
    clear = text.strip().lower().startswith("http://")
    host, port = split_address(text)
    return hello(host, port, timeout=timeout, tls=not clear)


def split_address(text: str) -> tuple[str, int]:
    """("HOST", PORT) of "HOST[:PORT]" ("[::1]:8090" for IPv6), with or without
    ``https://`` or ``http://`` before it."""
    text = text.strip()
    for scheme in ("https://", "http://"):
        if text.lower().startswith(scheme):
            text = text[len(scheme) :]
    text = text.rstrip("/")
    usage = "write the director's address as HOST or HOST:PORT, e.g. 192.168.1.20:8090"
    if not text:
        raise DiscoveryError(f"no director's address was given: {usage}")
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host or any(c.isspace() or c in "/?#@" for c in host):
        raise DiscoveryError(f"{text[:80]!r} is not an address: {usage}")
    if not port_text:
        return host, DEFAULT_WEB_PORT
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise DiscoveryError(f"{port_text[:20]!r} is not a port number: {usage}")
    return host, int(port_text)


def first_contact() -> ssl.SSLContext:
    """TLS for asking a director the table has not joined yet: encrypted, so a sniffer
    reads nothing, but checked against no authority, since the table has none yet. What
    it is told is checked otherwise: the key by the fingerprint two people compare, the
    bundle by the director's signature (fleet/sealing.py ``check_bundle``)."""
    from table_controller.feed.tls import client_context

    return client_context(None)


def hello(host: str, port: int, *, timeout: float = HELLO_TIMEOUT, tls: bool = True) -> Found:
    """Ask the dashboard at ``host:port`` who it is (``GET /api/fleet/hello``, over
    HTTPS unless ``tls`` is False); one that gives no key, or not a key, is refused in
    words."""
    shown = f"[{host}]" if ":" in host else host
    url = f"{'https' if tls else 'http'}://{shown}:{port}{HELLO}"
    try:
        with urllib.request.urlopen(
            url, timeout=timeout, context=first_contact() if tls else None
        ) as answer:
            body: Any = json.loads(answer.read(65_536))
    except urllib.error.HTTPError as exc:
        raise DiscoveryError(
            f"{shown}:{port} answered {exc.code}, not as a director's dashboard: check the "
            "address and the port (the dashboard's, 8090 unless the director chose another)"
        ) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        if tls and isinstance(reason, ssl.SSLError) and "WRONG_VERSION" in str(reason).upper():
            raise DiscoveryError(
                f"the director at {shown}:{port} answers without TLS: it was started with "
                f"--insecure, or this is not the dashboard's port. To join it in clear, give "
                f"--director http://{shown}:{port} (everything the table sends can then be "
                "read on the network)"
            ) from None
        raise DiscoveryError(
            f"the director at {shown}:{port} cannot be reached ({reason}): check that the "
            "director's service runs and the address, and that this table is on its network"
        ) from None
    try:
        found = Found(
            event=str(body["event"]),
            host=host,
            port=port,
            broker_port=int(body["broker_port"]),
            key=str(body.get("key") or "")[:MAX_KEY_TEXT],
            version=str(body.get("version", "")),
            tls=tls,
        )
    except (KeyError, TypeError, ValueError):
        raise DiscoveryError(
            f"{shown}:{port} is not a director in fleet mode (its answer lacks the event or "
            "the broker's port): start it with `table-controller director start`"
        ) from None
    if found.key_problem:
        raise DiscoveryError(
            f"the director at {shown}:{port} is refused: {found.key_problem}. Check the "
            "address with the director, and that both run the same release"
        )
    return found


__all__ = [
    "DEFAULT_WEB_PORT",
    "SERVICE",
    "DiscoveryError",
    "Found",
    "announce",
    "find_directors",
    "first_contact",
    "hello",
    "key_der",
    "key_fingerprint",
    "key_text",
    "local_addresses",
    "normal_fingerprint",
    "parse_director",
    "split_address",
]
