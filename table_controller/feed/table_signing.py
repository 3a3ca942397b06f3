"""A table's signature on what it sends (pure: bytes in, bytes out).

Why: the broker's password says only that a client knows it, and a password crosses
the hall's network (in clear without TLS) and sits on the table's disk. Anyone who has
it could send events as that table and rewrite its results, answer the director's
rulings and orders for it, or send pictures as its evidence. So each table also holds
an Ed25519 key of its own, made for it when it is set up (``feed broker-config``
writes one per table; a fleet's table is given one when the director approves it),
and the director holds only its public half, registered in its store. A message signed
by another key, or not signed, from a table whose key is registered is not stored.

Every kind a table sends is signed (``SIGNED_KINDS``; the kind is the topic after
``tables/{id}/``): its events, its status, its answers to rulings (``acks``), its
fleet answers (``fleet/config``, ``fleet/camera``, ``fleet/update``, and any later
``fleet/...``) and its pictures (``evidence``, ``evidence/clear``: signed over a
digest, feed/picture_signing.py).

What is signed (the canonical form, ``signed_bytes``): the line ``CONTEXT``, the kind of
message and a newline, then the payload without its ``sig`` as JSON with sorted keys,
no spaces and ASCII only, taken through JSON once first (so what the director parses
gives the same bytes as what the table built). The kind is signed so that a status
cannot be passed off as an event, nor a config answer as an update's; the payload names
its table (an event its game and seq, an answer what it answers), so a message cannot
be moved to another table or place. The signature goes in the payload's ``sig`` field,
in base64: a director of an older release ignores it.

A signed message can still be sent again as it was: a status, an answer and a fleet
answer carry their place in the table's order (feed/table_order.py), by which the
director refuses an old one sent again; a copy of an event or a picture changes
nothing (each is stored once, under its game and seq).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_controller.errors import TableControllerError

CONTEXT = b"table-controller table message 1\n"
# Every kind a table sends, as its topic names it after ``tables/{id}/``; a ``fleet/``
# kind of a later release is signed the same way (``is_signed_kind``).
SIGNED_KINDS = (
    "events",
    "status",
    "acks",
    "fleet/config",
    "fleet/camera",
    "fleet/update",
    "evidence",
    "evidence/clear",
)
SIG = "sig"
SIG_BYTES = 64
_FLEET_KIND = re.compile(r"fleet/[a-z][a-z0-9-]{0,39}")


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
    if not is_signed_kind(kind):
        raise ValueError(f"a {kind!r} message is not one a table sends: {', '.join(SIGNED_KINDS)}")
    body = json.loads(json.dumps({k: v for k, v in payload.items() if k != SIG}))
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return CONTEXT + kind.encode("ascii") + b"\n" + text.encode("ascii")


def is_signed_kind(kind: str) -> bool:
    """Whether ``kind`` (a topic after ``tables/{id}/``) is one a table signs."""
    return kind in SIGNED_KINDS or _FLEET_KIND.fullmatch(kind) is not None


def words(kind: str) -> str:
    """The kind of message in words, for the alerts ("a game event", "an answer to a
    ruling")."""
    return _WORDS.get(kind, f"a fleet answer ({kind})")


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
            problem=f"{words(kind)} came without the table's signature",
        )
    try:
        sig = base64.b64decode(sig_text, validate=True)
    except (binascii.Error, ValueError):
        sig = b""
    if len(sig) != SIG_BYTES:
        return Verdict(
            ok=False, signed=True, problem=f"{words(kind)} came with a signature that is not one"
        )
    try:
        key.verify(sig, signed_bytes(kind, payload))
    except InvalidSignature:
        return Verdict(
            ok=False,
            signed=True,
            problem=(
                f"{words(kind)} came signed by another key than the one registered for {table}"
            ),
        )
    return Verdict(ok=True, signed=True)


_WORDS = {
    "events": "a game event",
    "status": "a status",
    "acks": "an answer to a ruling",
    "fleet/config": "an answer to a config",
    "fleet/camera": "a camera answer",
    "fleet/update": "an update's progress",
    "evidence": "a picture",
    "evidence/clear": "a clearer picture",
}


__all__ = [
    "CONTEXT",
    "SIG",
    "SIGNED_KINDS",
    "SIG_BYTES",
    "TableKeyError",
    "TableKeyPair",
    "Verdict",
    "check_message",
    "is_signed_kind",
    "load_private",
    "load_public",
    "new_table_key",
    "private_pem",
    "public_pem",
    "sign_message",
    "signed_bytes",
    "words",
]
