"""A table's signature on its pictures (pure: bytes in, bytes out).

Why a form of its own: a picture is sent as its bytes (a JPEG of some 30 KB), not as
JSON, on ``evidence/{game}/{seq}`` (the picture of an event's card, sent just before
the event) and ``evidence/{game}/{seq}/clear`` (a clearer one, sent after it). Putting
it in JSON would mean base64 (a third more bytes) and signing its megabytes twice over
(Ed25519 hashes what it signs twice). So the table signs a short record of the picture
instead: its table, game and seq (what the topic says) and the SHA-256 of its bytes,
under the kind (``evidence`` or ``evidence/clear``), in the canonical form of every
other message (feed/table_signing.py ``signed_bytes``). One pass of SHA-256 over the
picture, one signature of some 150 bytes.

The signature travels after the picture's bytes: the picture, then ``MARK`` (a fixed
marker a picture does not end with), then the 64 bytes of the signature. The director
takes the marker and the signature off (``split_picture``) before it stores the
picture. A director of an older release stores them with it: a JPEG viewer ignores
bytes after the picture's end.

The record names the picture's event and whether it is the clearer one, so a signed
picture cannot be moved to another event or table, nor pass as a clearer picture. A
copy of a signed picture sent again changes nothing: the first picture of an event is
kept, and the clearer one (one at most an event) replaces it with the same bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_controller.feed.table_signing import SIG_BYTES, Verdict, signed_bytes, words

PICTURE_KINDS = ("evidence", "evidence/clear")
MARK = b"\x00table-controller signed picture 1\x00"
_TRAILER = len(MARK) + SIG_BYTES


@dataclass(frozen=True)
class PictureCheck:
    """What the director makes of a picture: its ``verdict`` and the ``picture``'s own
    bytes (the marker and signature taken off), which it stores when the verdict is ok."""

    verdict: Verdict
    picture: bytes


def picture_record(kind: str, table: str, game: int, seq: int, picture: bytes) -> dict[str, Any]:
    """What is signed of a picture: whose, of which event, and the SHA-256 of its bytes."""
    if kind not in PICTURE_KINDS:
        raise ValueError(f"a {kind!r} is not a picture: {', '.join(PICTURE_KINDS)}")
    return {
        "table": table,
        "game": int(game),
        "seq": int(seq),
        "sha256": hashlib.sha256(picture).hexdigest(),
    }


def picture_bytes(kind: str, table: str, game: int, seq: int, picture: bytes) -> bytes:
    """The exact bytes a table signs for a picture (``signed_bytes`` of its record)."""
    return signed_bytes(kind, picture_record(kind, table, game, seq, picture))


def sign_picture(
    kind: str, table: str, game: int, seq: int, picture: bytes, key: Ed25519PrivateKey
) -> bytes:
    """The picture as sent: its bytes, ``MARK``, then the signature."""
    signature = key.sign(picture_bytes(kind, table, game, seq, picture))
    return b"".join((picture, MARK, signature))  # one copy of the picture, not two


def split_picture(wire: bytes) -> tuple[bytes, bytes | None]:
    """(the picture, its signature) of what came; the signature None when none is there
    (a table of an older release, or without a key)."""
    if len(wire) >= _TRAILER and wire[-_TRAILER:-SIG_BYTES] == MARK:
        return wire[:-_TRAILER], wire[-SIG_BYTES:]
    return wire, None


def check_picture(
    kind: str,
    table: str,
    game: int,
    seq: int,
    wire: bytes,
    key: Ed25519PublicKey | None,
) -> PictureCheck:
    """Whether the director may store the picture that came as ``wire`` on ``table``'s
    topic for (``game``, ``seq``): with no key registered any picture is taken (its
    signature, if any, taken off); with one, only one its private half signed."""
    picture, sig = split_picture(wire)
    if key is None:
        return PictureCheck(Verdict(ok=True, signed=sig is not None), picture)
    if sig is None:
        problem = f"{words(kind)} came without the table's signature"
        return PictureCheck(Verdict(ok=False, signed=False, problem=problem), picture)
    try:
        key.verify(sig, picture_bytes(kind, table, game, seq, picture))
    except InvalidSignature:
        problem = (
            f"{words(kind)} of game {game}'s event {seq} came with a signature that is not "
            f"the one registered for {table} on that picture (another key, another event, "
            "or the picture changed on the way)"
        )
        return PictureCheck(Verdict(ok=False, signed=True, problem=problem), picture)
    return PictureCheck(Verdict(ok=True, signed=True), picture)


__all__ = [
    "MARK",
    "PICTURE_KINDS",
    "PictureCheck",
    "check_picture",
    "picture_bytes",
    "picture_record",
    "sign_picture",
    "split_picture",
]
