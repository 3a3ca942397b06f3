"""Sealed bundles: what the director sends a table it approved (its broker password,
its name, the director's key) is readable by that table alone.

The table makes an X25519 key pair when it asks to join and sends only the public half.
The director seals the bundle to it with a fresh (ephemeral) X25519 key: the shared
secret of the two, through HKDF-SHA256, keys ChaCha20-Poly1305. Anyone may fetch the
sealed bundle (the table polls for it without a login); only the holder of the private
key opens it, and a changed byte makes it fail to open rather than open to something
else.

The join code and check (``join_check``) bind three things: the director's key, the
table's key and a salt the director draws for the request after it has the table's key.
So nobody can make, ahead of asking, a key that shows a given table's code (before, 4
digits of the table's key alone were matched in seconds), a table that found another
"director" shows a code and check the real director's page does not, and the check
(20 digits, 66 bits) the table's page and the director's Fleet page both show lets two
people, reading it aloud, tie the approval to the whole of the table's key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from table_controller.errors import TableControllerError

if TYPE_CHECKING:  # only the alias: the join loads nothing of the orders
    from table_controller.fleet.orders import JSONValue

VERSION = 1
KEY_BYTES = 32
NONCE_BYTES = 12
INFO = b"table-controller fleet bundle v1"
HEADER = 1 + KEY_BYTES + NONCE_BYTES  # version, ephemeral public key, nonce
CODE_DIGITS = 4
SALT_BYTES = 16
CHECK_GROUPS = 5  # of four digits: 10**20, about 2**66
JOIN = b"table-controller join v2"
BUNDLE = b"table-controller join bundle v1\n"
SIGNATURE = "signature"  # the bundle's field that carries the director's signature


class Bundle(TypedDict):
    """What the director seals to a table it approved (director/fleet/join.py), before
    ``sign_bundle`` adds its ``signature``: the table's id and name, its broker login,
    where the event's feed is, the event's rules, the director's public key (PEM), the
    table's own signing key (PEM, its private half) and the event's CA (PEM; "": the
    director runs in clear)."""

    table: str
    name: str
    username: str
    password: str
    broker_port: int
    topic: str
    event: str
    rules: str
    options: dict[str, JSONValue]
    director_key: str
    signing_key: str
    ca: str


class SealError(TableControllerError, ValueError):
    """A sealed bundle that cannot be opened (another table's, damaged): what to do."""


def new_private() -> bytes:
    """A new X25519 private key, raw (32 bytes)."""
    return X25519PrivateKey.generate().private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )


def public_of(private: bytes) -> bytes:
    """The raw public key (32 bytes) of a raw private key."""
    return _raw(_private(private).public_key())


@dataclass(frozen=True)
class JoinCheck:
    """What a joining table shows and the director compares: ``code`` (4 digits, each
    1 to 9, so a seat's lights can blink each digit as that many flashes; typed to
    approve) and ``check`` (five groups of four digits, read aloud to compare)."""

    code: str
    check: str


def join_check(director_key: bytes, table_public_key: bytes, salt: bytes) -> JoinCheck:
    """The code and check of a table's request: of the director's key (its public key's
    DER), the table's public key and the salt the director drew for the request."""
    h = hashlib.sha256(JOIN)
    for part in (director_key, table_public_key, salt):
        h.update(len(part).to_bytes(4, "big") + part)
    digest = h.digest()
    number = int.from_bytes(digest[:8], "big")
    digits = []
    for _ in range(CODE_DIGITS):
        number, digit = divmod(number, 9)
        digits.append(str(digit + 1))
    return JoinCheck(code="".join(digits), check=digit_groups(digest[8:]))


def digit_groups(digest: bytes, groups: int = CHECK_GROUPS) -> str:
    """``groups`` groups of four decimal digits of ``digest`` (at least 9 bytes): a form
    two people compare aloud, "0412 7731 ...", 10**(4*groups) values."""
    number = int.from_bytes(digest[:9], "big") % 10 ** (4 * groups)
    text = f"{number:0{4 * groups}d}"
    return " ".join(text[i : i + 4] for i in range(0, len(text), 4))


def new_salt() -> bytes:
    """A request's salt, drawn by the director once it has the table's key."""
    return os.urandom(SALT_BYTES)


def seal(recipient_public: bytes, plaintext: bytes) -> bytes:
    """``plaintext`` readable only by the holder of ``recipient_public``'s private key."""
    recipient = _public(recipient_public)
    ephemeral = X25519PrivateKey.generate()
    ephemeral_public = _raw(ephemeral.public_key())
    key = _key(ephemeral.exchange(recipient), ephemeral_public, recipient_public)
    nonce = os.urandom(NONCE_BYTES)
    header = bytes([VERSION]) + ephemeral_public + nonce
    return header + ChaCha20Poly1305(key).encrypt(nonce, plaintext, header)


def open(private: bytes, sealed: bytes) -> bytes:
    """The plaintext of ``sealed``; ``SealError`` if it was sealed for another key or
    changed on the way."""
    if len(sealed) < HEADER + 16 or sealed[0] != VERSION:
        raise SealError(
            "the director's answer is not a sealed bundle this table can read: "
            "check that the table and the director run the same release"
        )
    ephemeral_public = sealed[1 : 1 + KEY_BYTES]
    nonce = sealed[1 + KEY_BYTES : HEADER]
    me = _private(private)
    my_public = _raw(me.public_key())
    try:
        shared = me.exchange(X25519PublicKey.from_public_bytes(ephemeral_public))
        key = _key(shared, ephemeral_public, my_public)
        return ChaCha20Poly1305(key).decrypt(nonce, sealed[HEADER:], sealed[:HEADER])
    except (InvalidTag, ValueError):
        raise SealError(
            "the director's bundle cannot be opened with this table's key (it was sealed "
            "for another table, or changed on the way): ask to join again"
        ) from None


def _bundle_bytes(bundle: Mapping[str, Any], recipient_public: bytes) -> bytes:
    body = {k: v for k, v in bundle.items() if k != SIGNATURE}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return BUNDLE + recipient_public + text.encode()


def sign_bundle(
    bundle: Mapping[str, Any], private_pem: bytes, recipient_public: bytes
) -> dict[str, Any]:
    """``bundle`` with the director's Ed25519 signature of it and of the table's key it
    is sealed to. Why: anyone can seal a bundle to a table's public key, so a machine
    answering in the director's place could hand the table the director's public key
    with its own broker and certificate; the signature is what only the director makes."""
    key = serialization.load_pem_private_key(private_pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise SealError("the director's key is not an Ed25519 key: start a new event folder")
    sig = key.sign(_bundle_bytes(bundle, recipient_public))
    return {**bundle, SIGNATURE: base64.b64encode(sig).decode("ascii")}


def check_bundle(bundle: Mapping[str, Any], recipient_public: bytes) -> None:
    """SealError in words unless ``bundle`` carries the signature of its own
    ``director_key`` (which the caller compares with the key the director announced)."""
    try:
        key = serialization.load_pem_public_key(str(bundle.get("director_key", "")).encode())
        sig = base64.b64decode(str(bundle.get(SIGNATURE, "")), validate=True)
        if not isinstance(key, Ed25519PublicKey) or not sig:
            raise ValueError("no signature")
        key.verify(sig, _bundle_bytes(bundle, recipient_public))
    except (ValueError, TypeError, binascii.Error, InvalidSignature):
        raise SealError(
            "the director's bundle is not signed by the director's key: another machine "
            "may have answered in its place, and nothing was kept; check the network, and "
            "that the table and the director run the same release, then join again"
        ) from None


def _key(shared: bytes, ephemeral_public: bytes, recipient_public: bytes) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=INFO + ephemeral_public + recipient_public,
    ).derive(shared)


def _raw(key: X25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def _public(raw: bytes) -> X25519PublicKey:
    if len(raw) != KEY_BYTES:
        raise SealError(f"a table's key is {KEY_BYTES} bytes, not {len(raw)}: ask to join again")
    return X25519PublicKey.from_public_bytes(raw)


def _private(raw: bytes) -> X25519PrivateKey:
    if len(raw) != KEY_BYTES:
        raise SealError(
            f"the table's private key is {KEY_BYTES} bytes, not {len(raw)}: delete it and "
            "ask to join again"
        )
    return X25519PrivateKey.from_private_bytes(raw)


__all__ = [
    "Bundle",
    "JoinCheck",
    "SealError",
    "check_bundle",
    "digit_groups",
    "join_check",
    "new_private",
    "new_salt",
    "open",
    "public_of",
    "seal",
    "sign_bundle",
]
