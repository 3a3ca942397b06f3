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
    hosts = [h.strip() for h in hosts if h.strip()]
    if not hosts:
        raise ValueError(
            "give the name the tables use for the broker (--host director.local, or its "
            "IP address): the certificate must carry it"
        )
    start = (now or datetime.datetime.now(datetime.UTC)) - datetime.timedelta(minutes=5)
    end = start + datetime.timedelta(days=days)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("Euchre event CA")
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
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
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(hosts[0]))
        .issuer_name(ca_name)
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
    folder.mkdir(parents=True, exist_ok=True)
    files = CertFiles(
        folder / "ca.crt", folder / "ca.key", folder / "broker.crt", folder / "broker.key"
    )
    write_private(files.ca_key, _key_pem(ca_key))
    write_private(files.key, _key_pem(key))
    files.ca_cert.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return files


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


__all__ = ["DAYS", "CertFiles", "make_certs", "probe", "refused"]
