"""The event's own certificate authority: TLS for everything ``director start`` serves.

Why a CA of the event's own, and not a certificate bought for a name: a venue's network
has no name the director owns, and its address changes from one venue (or one DHCP
lease) to the next. So the first run makes a CA in the event's folder (``tls/ca.crt``,
and ``tls/ca.key``, 0600, which never leaves the folder), and every run issues a fresh
certificate from it (``tls/director.crt``) for the names and addresses the machine has
now: the broker's TLS listener and the dashboard's HTTPS both present it.

A table learns the CA in its join bundle, which the director signs and seals to the
table (table/fleet/join.py), and from then on checks the broker and the dashboard against it
alone: a laptop on the venue's Wi-Fi answering in the director's place is refused. A
browser does not know the CA: the director compares the certificate's fingerprint the
start prints with the one the browser shows, or adds ``tls/ca.crt`` to the browser's
trusted authorities (docs/fleet.md, "TLS").
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from table_controller.errors import TableControllerError

FOLDER = "tls"
CA_DAYS = 400  # a season of events from one folder
CERT_DAYS = 30  # a new one is issued at every start


class EventTlsError(TableControllerError, ValueError):
    """The event's certificates cannot be made or used: which file, what to do."""


@dataclass(frozen=True)
class EventTls:
    """The files ``director start`` serves TLS with, and what it tells people."""

    ca: Path
    cert: Path
    key: Path
    fingerprint: str  # the served certificate's SHA-256, as a browser shows it
    names: tuple[str, ...]  # the names and addresses the certificate carries

    @property
    def ca_pem(self) -> str:
        return self.ca.read_text(encoding="ascii")


def machine_names(addresses: Sequence[str]) -> list[str]:
    """The names and addresses a table or a browser may reach this machine by: its host
    name (plain, ``.local`` and the announcement's ``-director.local``), loopback, and
    ``addresses`` (this machine's on the network)."""
    host = socket.gethostname().split(".")[0] or "director"
    names = [host, f"{host}.local", f"{host}-director.local", "localhost", "127.0.0.1", "::1"]
    return list(dict.fromkeys([*names, *addresses]))


def prepare(folder: Path, addresses: Sequence[str]) -> EventTls:
    """The event's CA (made on the first call, kept after) and a certificate issued now
    for ``machine_names(addresses)``."""
    from table_controller.feed.tls import Authority, fingerprint, issue, make_ca

    where = folder / FOLDER
    ca = Authority(where / "ca.crt", where / "ca.key")
    names = tuple(machine_names(addresses))
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        if ca.cert.exists() != ca.key.exists():
            missing = ca.key if ca.cert.exists() else ca.cert
            raise EventTlsError(
                f"{missing} is missing: the tables that joined trust this event's authority "
                "only; restore the file from a copy, or start the event in a new --folder"
            )
        if not ca.cert.exists():
            make_ca(ca.cert, ca.key, days=CA_DAYS, name="Euchre event director CA")
        cert, key = where / "director.crt", where / "director.key"
        issue(ca, names, cert, key, days=CERT_DAYS)
        return EventTls(ca.cert, cert, key, fingerprint(cert), names)
    except ValueError as exc:
        raise EventTlsError(str(exc)) from None
    except OSError as exc:
        raise EventTlsError(
            f"the event's certificates cannot be written in {where} ({exc.strerror or exc}): "
            "check the disk (free space, permissions)"
        ) from None


__all__ = ["FOLDER", "EventTls", "EventTlsError", "machine_names", "prepare"]
