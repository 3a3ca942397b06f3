"""Sealed bundles: what the director sends a table it approved (its broker password,
its name, the director's key) is readable by that table alone.

The table makes an X25519 key pair when it asks to join and sends only the public half.
The director seals the bundle to it with a fresh (ephemeral) X25519 key: the shared
secret of the two, through HKDF-SHA256, keys ChaCha20-Poly1305. Anyone may fetch the
sealed bundle (the table polls for it without a login); only the holder of the private
key opens it, and a changed byte makes it fail to open rather than open to something
else. The join code (``code_of``) is the public key's short fingerprint: the director
approves the code the table shows, so a bundle goes to the key of the table in front of
them, not to a stranger's request.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from table_controller.errors import TableControllerError

VERSION = 1
KEY_BYTES = 32
NONCE_BYTES = 12
INFO = b"table-controller fleet bundle v1"
HEADER = 1 + KEY_BYTES + NONCE_BYTES  # version, ephemeral public key, nonce
CODE_DIGITS = 4


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


def code_of(table_public_key: bytes) -> str:
    """The join code of a table's public key: 4 digits, each 1 to 9 (no 0, so a seat's
    lights can blink each digit as that many flashes), from its SHA-256."""
    number = int.from_bytes(hashlib.sha256(table_public_key).digest()[:8], "big")
    digits = []
    for _ in range(CODE_DIGITS):
        number, digit = divmod(number, 9)
        digits.append(str(digit + 1))
    return "".join(digits)


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


__all__ = ["SealError", "code_of", "new_private", "open", "public_of", "seal"]
