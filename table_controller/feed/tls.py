"""A small certificate authority for one event's broker, made with ``cryptography``.

``table-controller feed tls-certs --out DIR --host NAME`` writes a CA (``ca.crt``, and
``ca.key``, which signs and stays off the network) and the broker's certificate and key
(``broker.crt``, ``broker.key``) for the names the tables use to reach it. The tables
and the director trust ``ca.crt`` only, and check that the broker's certificate names
the host they connect to, so a machine that answers in the broker's place (a laptop on
the venue's Wi-Fi) is refused. Keys are ECDSA P-256, written readable by their owner
only; the certificates are valid for ``days`` (a season, by default).
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from table_controller.feed.broker import write_private

DAYS = 400


@dataclass(frozen=True)
class CertFiles:
    ca_cert: Path
    ca_key: Path
    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _alt_names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return names


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def make_certs(
    folder: Path,
    hosts: Sequence[str],
    *,
    days: int = DAYS,
    now: datetime.datetime | None = None,
) -> CertFiles:
    """A new CA and a broker certificate for ``hosts`` (names or IP addresses) in
    ``folder``. ValueError in words when no host is given."""
    hosts = _hosts(hosts)
    folder.mkdir(parents=True, exist_ok=True)
    ca = make_ca(folder / "ca.crt", folder / "ca.key", days=days, now=now)
    files = CertFiles(ca.cert, ca.key, folder / "broker.crt", folder / "broker.key")
    issue(ca, hosts, files.cert, files.key, days=days, now=now)
    return files


@dataclass(frozen=True)
class Authority:
    """A CA's certificate and key files."""

    cert: Path
    key: Path


def _hosts(hosts: Sequence[str]) -> list[str]:
    chosen = [h.strip() for h in hosts if h.strip()]
    if not chosen:
        raise ValueError(
            "give the name the tables use for the broker (--host director.local, or its "
            "IP address): the certificate must carry it"
        )
    return chosen


def _start(now: datetime.datetime | None) -> datetime.datetime:
    return (now or datetime.datetime.now(datetime.UTC)) - datetime.timedelta(minutes=5)


def make_ca(
    cert_path: Path,
    key_path: Path,
    *,
    days: int = DAYS,
    now: datetime.datetime | None = None,
    name: str = "Euchre event CA",
) -> Authority:
    """A new CA: its key (0600) and self-signed certificate, valid ``days``."""
    start = _start(now)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name(name)
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    write_private(key_path, _key_pem(ca_key))
    cert_path.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return Authority(cert_path, key_path)


def issue(
    ca: Authority,
    hosts: Sequence[str],
    cert_path: Path,
    key_path: Path,
    *,
    days: int = DAYS,
    now: datetime.datetime | None = None,
) -> None:
    """A server certificate signed by ``ca`` for ``hosts`` (names or IP addresses), and
    its new key (0600). ValueError in words when the CA's files cannot be used."""
    hosts = _hosts(hosts)
    try:
        ca_cert = x509.load_pem_x509_certificate(ca.cert.read_bytes())
        ca_key = serialization.load_pem_private_key(ca.key.read_bytes(), password=None)
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"the certificate authority {ca.cert} cannot be used ({exc}): restore it and its "
            "key from a copy (the tables that joined trust only it)"
        ) from None
    if not isinstance(ca_key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{ca.key} is not the authority's EC key: restore it from a copy")
    start = _start(now)
    end = min(start + datetime.timedelta(days=days), ca_cert.not_valid_after_utc)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(hosts[0]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(_alt_names(hosts)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    write_private(key_path, _key_pem(key))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def fingerprint(cert_path: Path) -> str:
    """A certificate's SHA-256 fingerprint as browsers show it (AB:CD:...)."""
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def client_context(
    ca: Path | None = None, *, ca_pem: str | None = None, check_name: bool = True
) -> ssl.SSLContext:
    """A client's TLS context: checking the server (its name too) against the CA in the
    file ``ca``, or given as ``ca_pem`` text, alone; with neither, checking nothing:
    only for a first contact whose answer is checked otherwise (table/fleet/join.py).

    ``check_name=False``: the certificate is still checked against the CA, but not
    against the address connected to. Only for an event's own authority (a fleet's
    table, from the director's signed bundle), which issues the director's certificates
    and nothing else: a certificate it signed is the director's at whatever address the
    table reached it, and that address (a router's name, a NAT's, a lease renewed since
    the director started) need not be one the certificate names."""
    if ca is not None:
        context = ssl.create_default_context(cafile=str(ca))
    elif ca_pem is not None:
        context = ssl.create_default_context(cadata=ca_pem)
    else:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    context.check_hostname = check_name
    return context


def refused(host: str, port: int, exc: ssl.SSLCertVerificationError) -> str:
    """A broker's certificate refused, in one line: which check failed, what to do."""
    why = getattr(exc, "verify_message", None) or str(exc).splitlines()[0]
    return (
        f"the broker {host}:{port} is not the event's broker: its TLS certificate was "
        f"refused ({why}); check that tls_ca is the event's ca.crt and that the broker's "
        f"certificate was made for the name {host!r} (docs/feed.md, TLS)"
    )


def probe(host: str, port: int, ca: str | Path, timeout: float = 5.0) -> str | None:
    """Why the broker at host:port would be refused with TLS checked against ``ca``
    (None: it is fine, or it cannot be reached now, which the client retries)."""
    context = ssl.create_default_context(cafile=str(ca))
    try:
        with (
            socket.create_connection((host, port), timeout=timeout) as sock,
            context.wrap_socket(sock, server_hostname=host),
        ):
            return None
    except ssl.SSLCertVerificationError as exc:
        return refused(host, port, exc)
    except (OSError, ValueError):
        return None


__all__ = [
    "DAYS",
    "Authority",
    "CertFiles",
    "client_context",
    "fingerprint",
    "issue",
    "make_ca",
    "make_certs",
    "probe",
    "refused",
]
