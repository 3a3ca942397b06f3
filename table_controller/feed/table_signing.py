"""A table's signature on what it sends: its events and its status (pure: bytes in, bytes out).

Why: the broker's password says only that a client knows it, and a password crosses
the hall's network (in clear without TLS) and sits on the table's disk. Anyone who has
it could send events as that table and rewrite its results. So each table also holds an
Ed25519 key of its own, made for it when it is set up (``feed broker-config`` writes one
per table; a fleet's table is given one when the director approves it), and the
director holds only its public half, registered in its store. A message signed by
another key, or not signed, from a table whose key is registered is not stored.

What is signed (the canonical form, ``signed_bytes``): the line ``CONTEXT``, the kind of
message (``events`` or ``status``) and a newline, then the payload without its ``sig``
as JSON with sorted keys, no spaces and ASCII only, taken through JSON once first (so
what the director parses gives the same bytes as what the table built). The kind is
signed so that a status cannot be passed off as an event; the payload names its table
(and an event its game and seq), so a message cannot be moved to another table or
place. The signature goes in the payload's ``sig`` field, in base64: a director of an
older release ignores it.

A signed message can still be sent again as it was (a copy of a status, an event the
director already holds): a copy of an event changes nothing, and a copy of an old
status is taken for what it is, the table's picture at its ``at``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_controller.errors import TableControllerError

CONTEXT = b"table-controller table message 1\n"
SIGNED_KINDS = ("events", "status")
SIG = "sig"
_SIG_BYTES = 64


class TableKeyError(TableControllerError, ValueError):
    """A table's key that cannot be used: which one, why, what to do."""


@dataclass(frozen=True)
class TableKeyPair:
    """A table's key pair as PEM text: the private half stays on the table, the public
    half is registered at the director."""

    private_pem: bytes
    public_pem: bytes


@dataclass(frozen=True)
class Verdict:
    """What the director makes of one message's signature. ``ok``: store it;
    ``problem``: why not, in words (None when ok); ``signed``: it carried a ``sig``."""

    ok: bool
    signed: bool
    problem: str | None = None


def new_table_key() -> TableKeyPair:
    """A fresh Ed25519 key pair for one table."""
    key = Ed25519PrivateKey.generate()
    return TableKeyPair(private_pem=private_pem(key), public_pem=public_pem(key.public_key()))


def private_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def public_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def load_private(pem: bytes, *, where: str = "the table's signing key") -> Ed25519PrivateKey:
    """The table's private key; TableKeyError in words when ``pem`` is not one."""
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as e:
        raise TableKeyError(
            f"{where} is not a readable PEM key without a password: copy this table's "
            "signing key again from the director's machine (secrets/TABLE.signing.key)"
        ) from e
    if not isinstance(key, Ed25519PrivateKey):
        raise TableKeyError(
            f"{where} is not an Ed25519 key: use the one `table-controller feed "
            "broker-config` wrote for this table (secrets/TABLE.signing.key)"
        )
    return key


def load_public(pem: bytes | str, *, table: str) -> Ed25519PublicKey:
    """A table's registered public key; TableKeyError in words when it is not one."""
    data = pem.encode() if isinstance(pem, str) else pem
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError) as e:
        raise TableKeyError(
            f"the key registered for {table} is not a readable PEM public key: register "
            'it again (docs/feed.md, "Signed messages")'
        ) from e
    if not isinstance(key, Ed25519PublicKey):
        raise TableKeyError(
            f"the key registered for {table} is not an Ed25519 key: register the one "
            "`table-controller feed broker-config` wrote (table-keys.json)"
        )
    return key


def signed_bytes(kind: str, payload: Mapping[str, Any]) -> bytes:
    """The exact bytes a table signs for a ``kind`` message (see the module's note)."""
    if kind not in SIGNED_KINDS:
        raise ValueError(f"a {kind!r} message is not signed: only {', '.join(SIGNED_KINDS)}")
    body = json.loads(json.dumps({k: v for k, v in payload.items() if k != SIG}))
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return CONTEXT + kind.encode("ascii") + b"\n" + text.encode("ascii")


def sign_message(kind: str, payload: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """``payload`` with its ``sig``: the signature of ``signed_bytes``, in base64."""
    out = {k: v for k, v in payload.items() if k != SIG}
    out[SIG] = base64.b64encode(key.sign(signed_bytes(kind, out))).decode("ascii")
    return out


def check_message(
    kind: str, payload: Mapping[str, Any], key: Ed25519PublicKey | None, *, table: str
) -> Verdict:
    """Whether the director may store ``payload`` from ``table``: with no key registered
    (a table of an older release, or one set up without keys) any message is taken, as
    before; with one, only a message its private half signed."""
    sig_text = payload.get(SIG)
    signed = sig_text is not None
    if key is None:
        return Verdict(ok=True, signed=signed)
    if not isinstance(sig_text, str):
        return Verdict(
            ok=False,
            signed=signed,
            problem=f"a {_WORDS[kind]} came without the table's signature",
        )
    try:
        sig = base64.b64decode(sig_text, validate=True)
    except (binascii.Error, ValueError):
        sig = b""
    if len(sig) != _SIG_BYTES:
        return Verdict(
            ok=False, signed=True, problem=f"a {_WORDS[kind]} came with a signature that is not one"
        )
    try:
        key.verify(sig, signed_bytes(kind, payload))
    except InvalidSignature:
        return Verdict(
            ok=False,
            signed=True,
            problem=(
                f"a {_WORDS[kind]} came signed by another key than the one registered for {table}"
            ),
        )
    return Verdict(ok=True, signed=True)


_WORDS = {"events": "game event", "status": "status"}


__all__ = [
    "CONTEXT",
    "SIG",
    "SIGNED_KINDS",
    "TableKeyError",
    "TableKeyPair",
    "Verdict",
    "check_message",
    "load_private",
    "load_public",
    "new_table_key",
    "private_pem",
    "public_pem",
    "sign_message",
    "signed_bytes",
]
