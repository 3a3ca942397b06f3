"""Finding the director on the local network, without an address typed in.

The director's service announces itself over mDNS/DNS-SD (``announce``): service type
``_euchre-director._tcp.local.``, the event's name as the instance, the dashboard's
port, and in its TXT record the event, the broker's port, the release and the
fingerprint of the director's signing key (``key_fingerprint``), which the table shows
next to its join code so the director can check the table found the right director.
A table browses for a few seconds (``find_directors``). Where a network blocks
multicast (some venues' Wi-Fi does), a table is given the director's address instead
(``parse_director``), and asks its dashboard ``GET /api/fleet/hello`` for the rest.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import ifaddr
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from table_controller import __version__
from table_controller.errors import TableControllerError

SERVICE = "_euchre-director._tcp.local."
DEFAULT_WEB_PORT = 8090
HELLO = "/api/fleet/hello"
HELLO_TIMEOUT = 5.0
MAX_INSTANCE = 63  # bytes in a DNS label


class DiscoveryError(TableControllerError, OSError):
    """The director could not be found or asked: what to check, what to do."""


@dataclass(frozen=True)
class Found:
    """A director found on the network (or at the address given)."""

    event: str
    host: str
    port: int
    broker_port: int
    key_fingerprint: str
    version: str

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def words(self) -> str:
        """How a person tells this director from another: its event, where, its key."""
        return f"{self.event} at {self.host}:{self.port} (key {self.key_fingerprint})"


def key_fingerprint(public_pem: bytes) -> str:
    """The director key's short fingerprint a person compares by eye: "AB12-CD34"."""
    digest = hashlib.sha256(public_pem).hexdigest()[:8].upper()
    return f"{digest[:4]}-{digest[4:]}"


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
    key_fingerprint: str,
    addresses: Sequence[str] | None = None,
) -> Iterator[ServiceInfo]:
    """The director announced on the network while the block runs (withdrawn after).
    ``addresses``: the IPv4 addresses announced and answered on (default: this
    machine's, loopback left out). Another director with the same event's name gets a
    changed instance name, not a refusal."""
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
            "key": key_fingerprint,
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
    of them: a table that finds two must not pick one by chance)."""
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
        key_fingerprint=props.get("key", ""),
        version=props.get("version", ""),
    )


def parse_director(text: str, *, timeout: float = HELLO_TIMEOUT) -> Found:
    """The director at a fixed address ("HOST[:PORT]", the dashboard's port, 8090 if
    none): asks its dashboard for the event, broker port and key fingerprint."""
    host, port = split_address(text)
    return hello(host, port, timeout=timeout)


def split_address(text: str) -> tuple[str, int]:
    """("HOST", PORT) of "HOST[:PORT]" ("[::1]:8090" for IPv6)."""
    text = text.strip().removeprefix("http://").rstrip("/")
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


def hello(host: str, port: int, *, timeout: float = HELLO_TIMEOUT) -> Found:
    """Ask the dashboard at ``host:port`` who it is (``GET /api/fleet/hello``)."""
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}{HELLO}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            body: Any = json.loads(answer.read(65_536))
    except urllib.error.HTTPError as exc:
        raise DiscoveryError(
            f"{shown}:{port} answered {exc.code}, not as a director's dashboard: check the "
            "address and the port (the dashboard's, 8090 unless the director chose another)"
        ) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DiscoveryError(
            f"the director at {shown}:{port} cannot be reached ({reason}): check that the "
            "director's service runs and the address, and that this table is on its network"
        ) from None
    try:
        return Found(
            event=str(body["event"]),
            host=host,
            port=port,
            broker_port=int(body["broker_port"]),
            key_fingerprint=str(body["key"]),
            version=str(body.get("version", "")),
        )
    except (KeyError, TypeError, ValueError):
        raise DiscoveryError(
            f"{shown}:{port} is not a director in fleet mode (its answer lacks the event or "
            "the broker's port): start it with `table-controller director start`"
        ) from None


__all__ = [
    "DEFAULT_WEB_PORT",
    "SERVICE",
    "DiscoveryError",
    "Found",
    "announce",
    "find_directors",
    "hello",
    "key_fingerprint",
    "local_addresses",
    "parse_director",
    "split_address",
]
