"""HTTPS for a table's page served to the network, and what the start says of it.

Why: with ``[web] host = "0.0.0.0"`` (a tablet at the table, the players' phones) the
page crosses the venue's Wi-Fi, and over plain HTTP so would the operator's PIN as it is
typed, the operator's session cookie, and every card the page shows. On the table's own
screen (``127.0.0.1``, the default) nothing leaves the machine, so plain HTTP stays.

A venue's network has no name the table owns, and its address changes from one venue
(or DHCP lease) to the next, so no certificate can be bought for it. The table makes its
own instead, on the first start that needs one: a small certificate authority of its own
and a certificate it signs for the machine's names (``NAME``, ``NAME.local``,
``localhost``) and its current addresses. They are kept in ``page-tls/`` in the folder
of the table's state (the fleet's folder with ``[fleet]``, else the event log's folder),
keys readable by their owner only, and the same certificate serves every start until
the machine's names or addresses change, or it is a month from expiring: then a new one
is issued. A browser does not know that authority, so a phone warns at its first visit;
the start prints the certificate's SHA-256 fingerprint for a person to compare with the
one the phone shows (docs/table-page.md, "HTTPS"). ``[web] tls_cert`` and ``tls_key``
name a certificate of the club's own instead; ``[web] insecure = true`` serves plain
HTTP all the same, and the start warns what that exposes.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller.web.server import PageError

if TYPE_CHECKING:
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric.types import (
        PrivateKeyTypes,
        PublicKeyTypes,
    )

    from table_controller.feed.tls import Authority
    from table_controller.table.config import TableConfig

FOLDER = "page-tls"  # in the table's state folder
CA_DAYS = 3650  # the table's own authority: a phone that trusts it keeps trusting it
CERT_DAYS = 397  # the page's certificate (browsers take at most 398 days)
RENEW_DAYS = 30  # a certificate this close to its end is issued again at the start
LOOPBACK_NAMES = ("localhost",)
DOCS = 'docs/table-page.md, "HTTPS"'
WIDTH = 88  # the start's lines, for a terminal


class PageTlsError(PageError):
    """The page's certificate cannot be used or made: which file, what is wrong, what to
    do (the start stops: the page is never served in clear instead)."""


@dataclass(frozen=True)
class PageTls:
    """The files the page is served over HTTPS with, and what the start says of them."""

    cert: Path
    key: Path
    fingerprint: str  # the certificate's SHA-256, as a browser shows it (AB:CD:...)
    ca: Path | None = None  # the table's own authority's certificate; None: the config's
    names: tuple[str, ...] = ()  # the names and addresses the table's own certificate holds
    # A new certificate in place of the one kept (the addresses changed, it was ending
    # or damaged): a phone that accepted the last one warns once more.
    renewed: bool = False

    @property
    def own(self) -> bool:
        """The table's own certificate (not ``[web] tls_cert``)."""
        return self.ca is not None


def on_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (``127.0.0.1``, ``::1``, ``localhost``)."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def state_folder(config: TableConfig) -> Path:
    """Where the table keeps ``page-tls/``: the fleet's folder (``[fleet] folder``,
    which holds the table's membership) or, for a table on its own, the event log's."""
    if config.fleet is not None:
        return config.fleet.folder / FOLDER
    return config.log.parent / FOLDER


def machine_names(host: str, addresses: Sequence[str]) -> list[str]:
    """The names and addresses a browser may reach this machine's page by: its host name
    (plain and ``.local``, its mDNS name), ``localhost`` and loopback, ``addresses`` (the
    machine's on the network) and the configured ``host`` when it names one."""
    full = socket.gethostname().lower().rstrip(".")
    short = full.split(".")[0] or "table"
    names = [short, f"{short}.local", full, "localhost", "127.0.0.1", "::1"]
    wanted = host.strip().strip("[]").lower()
    if wanted and wanted not in ("0.0.0.0", "::"):
        names.append(wanted)
    names += [_normal(a) for a in addresses]
    return list(dict.fromkeys(names))


def prepare(
    config: TableConfig,
    *,
    addresses: Sequence[str] | None = None,
    now: datetime.datetime | None = None,
) -> PageTls | None:
    """The page's HTTPS for this start; None when it is plain HTTP (on loopback, or
    ``insecure``). ``addresses``: the machine's on the network (default: found now).
    Raises PageTlsError in words."""
    web = config.web
    if web.tls_cert is None and (on_loopback(web.host) or web.insecure):
        return None
    try:
        import cryptography  # noqa: F401  (the feed's extra; a Pi's install has it)
    except ModuleNotFoundError:
        from table_controller.extras import install_hint

        raise PageTlsError(
            "the page is open to the network and served over HTTPS, which needs the "
            f"package cryptography: {install_hint('pi')} (or keep the page on this machine: "
            '[web] host = "127.0.0.1")'
        ) from None
    if web.tls_cert is not None and web.tls_key is not None:
        return given(web.tls_cert, web.tls_key, now=now)
    if addresses is None:
        from table_controller.fleet.discovery import local_addresses

        addresses = local_addresses()
    return own(state_folder(config), machine_names(web.host, addresses), now=now)


# --- a certificate the config names ------------------------------------------------------


def given(cert_path: Path, key_path: Path, *, now: datetime.datetime | None = None) -> PageTls:
    """``[web] tls_cert`` and ``tls_key``, checked as uvicorn will use them: readable,
    PEM, one the other's, the key unencrypted and not readable by everyone, the
    certificate not expired."""
    from cryptography import x509

    drop = "or remove tls_cert and tls_key from [web] to let the table make its own"
    cert_pem = _read(cert_path, "tls_cert", "the certificate (PEM)", drop)
    key_pem = _read(key_path, "tls_key", "the certificate's key (PEM)", drop)
    try:
        cert = x509.load_pem_x509_certificate(cert_pem)
    except ValueError:
        raise PageTlsError(
            f"[web] tls_cert: {cert_path} is not a PEM certificate (a text file starting "
            f"-----BEGIN CERTIFICATE-----): give the certificate itself, {drop}"
        ) from None
    key = _private_key(key_pem, key_path, drop)
    if _public(cert.public_key()) != _public(key.public_key()):
        raise PageTlsError(
            f"[web] tls_key: {key_path} is not the key of the certificate {cert_path} (they "
            f"do not match): give the key that certificate was made for, {drop}"
        )
    if key_path.stat().st_mode & 0o007:
        raise PageTlsError(
            f"[web] tls_key: {key_path} can be read by every user of this machine: "
            f"chmod o-rwx {key_path} (or chmod 600)"
        )
    moment = now or datetime.datetime.now(datetime.UTC)
    if cert.not_valid_after_utc <= moment:
        raise PageTlsError(
            f"[web] tls_cert: {cert_path} expired on {cert.not_valid_after_utc:%Y-%m-%d}: "
            f"renew it, {drop}"
        )
    _loads(cert_path, key_path, f"give another certificate and key, {drop}")
    return PageTls(cert_path, key_path, _fingerprint(cert), names=tuple(_names_in(cert)))


def _read(path: Path, key: str, what: str, drop: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PageTlsError(
            f"[web] {key}: {path} cannot be read ({exc.strerror or exc}): copy {what} there "
            f"and let the table's user read it, {drop}"
        ) from None


def _private_key(pem: bytes, path: Path, drop: str) -> PrivateKeyTypes:
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization

    try:
        return serialization.load_pem_private_key(pem, password=None)
    except TypeError:  # a password was needed
        raise PageTlsError(
            f"[web] tls_key: {path} is protected by a password, which the table cannot type "
            f"at its start: write it without one (openssl pkey -in {path} -out PLAIN.key, "
            "then chmod 600 PLAIN.key and name that)"
        ) from None
    except (ValueError, UnsupportedAlgorithm) as exc:  # not a key the library reads
        raise PageTlsError(
            f"[web] tls_key: {path} is not a PEM private key (a text file starting "
            f"-----BEGIN ... PRIVATE KEY-----; {exc}): give the certificate's key, {drop}"
        ) from None


def _public(key: PublicKeyTypes) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _loads(cert: Path, key: Path, fix: str) -> None:
    """The pair loaded as the page's server will load it (its refusal in words)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(str(cert), str(key))
    except (ssl.SSLError, OSError) as exc:
        why = getattr(exc, "reason", None) or str(exc)
        raise PageTlsError(
            f"the page cannot be served with {cert} and {key} ({why}): {fix}"
        ) from None


def _fingerprint(cert: x509.Certificate) -> str:
    from cryptography.hazmat.primitives import hashes

    digest = cert.fingerprint(hashes.SHA256())
    return ":".join(f"{b:02X}" for b in digest)


# --- the table's own certificate -----------------------------------------------------------


def own(folder: Path, names: Sequence[str], *, now: datetime.datetime | None = None) -> PageTls:
    """The table's own certificate in ``folder`` for ``names``: the one kept there when
    it is whole, signed by the authority kept there, made for exactly these names and a
    month or more from its end; else a new one (and a new authority when its own is
    missing, damaged or ending)."""
    from table_controller.feed.tls import Authority, fingerprint, issue, make_ca

    moment = now or datetime.datetime.now(datetime.UTC)
    ca = Authority(folder / "ca.crt", folder / "ca.key")
    cert, key = folder / "page.crt", folder / "page.key"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.chmod(0o700)  # the keys' folder, whoever made it before
        had = cert.exists()
        fresh = not _authority_usable(ca, moment)
        if fresh:
            make_ca(ca.cert, ca.key, days=CA_DAYS, now=now, name=_ca_name())
        renewed = fresh or not _kept_usable(ca, cert, key, names, moment)
        if renewed:
            issue(ca, names, cert, key, days=CERT_DAYS, now=now)
        _loads(cert, key, f"remove the folder {folder} and start again (a new one is made)")
        return PageTls(cert, key, fingerprint(cert), ca.cert, tuple(names), had and renewed)
    except PageTlsError:
        raise
    except OSError as exc:
        raise PageTlsError(
            f"the page's certificate cannot be written in {folder} ({exc.strerror or exc}): "
            "check the disk (free space, permissions of the folder for the table's user), "
            "or name a certificate with [web] tls_cert and tls_key"
        ) from None
    except ValueError as exc:
        raise PageTlsError(
            f"the page's certificate cannot be made in {folder} ({exc}): remove the folder "
            "and start again (a new one is made)"
        ) from None


def _ca_name() -> str:
    short = socket.gethostname().split(".")[0] or "table"
    return f"Euchre table {short} page CA"


def _authority_usable(ca: Authority, moment: datetime.datetime) -> bool:
    """The kept authority: both files there, readable, begun, and a month or more from
    its end."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    try:
        cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
        serialization.load_pem_private_key(ca.key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return False
    return _in_time(cert, moment)


def _in_time(cert: x509.Certificate, moment: datetime.datetime) -> bool:
    """Begun (a Pi without a clock may have made it at a wrong time before its clock
    was set) and a month or more from its end."""
    return (
        cert.not_valid_before_utc <= moment
        and cert.not_valid_after_utc - moment > datetime.timedelta(days=RENEW_DAYS)
    )


def _kept_usable(
    ca: Authority, cert_path: Path, key_path: Path, names: Sequence[str], moment: datetime.datetime
) -> bool:
    """The kept certificate serves this start: signed by the authority, for exactly
    ``names``, its key its own, begun, and a month or more from its end."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    try:
        authority = x509.load_pem_x509_certificate(ca.cert.read_bytes())
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        cert.verify_directly_issued_by(authority)
    except Exception:  # missing, damaged, another authority's: a new one is issued
        return False
    return (
        set(_names_in(cert)) == {_normal(n) for n in names}
        and _public(cert.public_key()) == _public(key.public_key())
        and _in_time(cert, moment)
    )


def _names_in(cert: x509.Certificate) -> list[str]:
    """The names and addresses a certificate is for (its subject alternative names)."""
    from cryptography import x509

    try:
        held = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    ips = [_normal(str(n)) for n in held.get_values_for_type(x509.IPAddress)]
    return [n.lower() for n in held.get_values_for_type(x509.DNSName)] + ips


def _normal(name: str) -> str:
    try:
        return str(ipaddress.ip_address(name.strip().strip("[]")))
    except ValueError:
        return name.strip().lower()


# --- what the start says ---------------------------------------------------------------------


INSECURE = (
    "WARNING: [web] insecure = true: the table page is plain HTTP on the network. Anyone "
    "on this Wi-Fi can read the operator's PIN as it is typed, take over the operator's "
    "session (and with it the director's events on this table), and see every card the "
    "page shows. Remove insecure = true to serve it over HTTPS."
)


def start_words(config: TableConfig, url: str, tls: PageTls | None) -> list[str]:
    """What the start says after the page's address: where a phone reaches it and how to
    know it is this table's (the fingerprint to compare), or the insecure warning."""
    web = config.web
    if tls is None:
        return [] if on_loopback(web.host) or not web.insecure else [INSECURE]
    port = url.rstrip("/").rsplit(":", 1)[-1]
    lines: list[str] = []
    if not on_loopback(web.host):
        # A phone finds NAME.local (mDNS) or an address; the bare NAME it seldom does.
        reach = [n for n in tls.names if not on_loopback(n) and n != _bare_host()]
        reach = reach or [f"{_bare_host()}.local"]
        shown = [f"https://{f'[{n}]' if ':' in n else n}:{port}/" for n in reach[:3]]
        lines.append("From a phone or tablet on this network: " + " or ".join(shown))
    if not tls.own:
        lines.append(
            f"The page is HTTPS with the certificate in [web] tls_cert ({tls.cert}), SHA-256 "
            f"fingerprint {tls.fingerprint}."
        )
        return lines
    again = (
        " (a new one since the last start, for the machine's addresses now: a phone "
        "that accepted the last one warns once more)"
        if tls.renewed
        else ""
    )
    lines += _wrapped(
        "The page is HTTPS with this table's own certificate. Phones and tablets do not "
        'know it, so each warns once ("not private", "not secure"): open the warning\'s '
        "details and check that the certificate's SHA-256 fingerprint is"
    )
    lines.append(f"  {tls.fingerprint}")
    lines += _wrapped(
        f"before going on{again}. If it is another, do not go on: another machine is "
        f"answering in the table's place. A tablet that never warns: {DOCS}."
    )
    return lines


def _wrapped(text: str) -> list[str]:
    """A paragraph in lines a terminal shows whole (the journal keeps them apart)."""
    import textwrap

    return textwrap.wrap(text, WIDTH, break_on_hyphens=False)


def _bare_host() -> str:
    return socket.gethostname().split(".")[0].lower() or "table"


__all__ = [
    "CA_DAYS",
    "CERT_DAYS",
    "FOLDER",
    "INSECURE",
    "PageTls",
    "PageTlsError",
    "given",
    "machine_names",
    "on_loopback",
    "own",
    "prepare",
    "start_words",
    "state_folder",
]
