"""Signed rulings: a table applies a ruling only when the director's key signed it.

The director signs each ruling with an Ed25519 private key that never leaves the
director's machine; every table holds only the public key. A ruling names its table and
the moment it was made, so a ruling for another table, or one replayed long after it
was made, is refused even with a good signature. A ruling also names the game and hand
it is about (the table refuses it for another one, table/app.py), and its id is applied
once (the table's log keeps the ids it applied), so the director may send it again until
the table answers (docs/feed.md, "Rulings that always arrive"). The signature covers the
canonical JSON (sorted keys, no spaces, ASCII) of every field of the payload except
``"sig"``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from table_controller.errors import TableControllerError

VERSION = 1
KINDS = ("confirm_renege", "dismiss_renege", "adjust_score", "void_hand")
# The input event each kind carries (None: the ruling changes nothing at the table).
_EVENT_FOR_KIND: dict[str, str | None] = {
    "confirm_renege": None,
    "dismiss_renege": "score_adjusted",
    "adjust_score": "score_adjusted",
    "void_hand": "hand_voided",
}
_FIELDS = ("ruling_id", "table", "kind", "event", "reason", "director", "at", "game", "hand")
# A ruling is sent again until the table answers, so it must stay valid while a table is
# away (a reboot, a dead network): a replay is refused by its id and its game and hand.
MAX_AGE = 12 * 3600.0
FUTURE = 900.0  # a ruling dated this far ahead: a clock is wrong


class RulingRejected(TableControllerError, ValueError):
    """A ruling the table must not apply; the message says why and what to do."""


@dataclass(frozen=True)
class Ruling:
    """A director's decision for one table (see docs/feed.md, "Rulings")."""

    ruling_id: str
    table: str
    kind: str
    event: dict[str, Any] | None
    reason: str
    director: str
    at: float
    game: int | None = None  # the table's game the ruling is about
    hand: int | None = None  # and its hand (None: before the first deal)


def new_keys() -> tuple[bytes, bytes]:
    """A fresh director key pair: (private PEM, public PEM)."""
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public


def canonical(payload: Mapping[str, Any]) -> bytes:
    """The bytes signed: every field but ``sig``, as sorted, spaceless, ASCII JSON."""
    body = {k: v for k, v in payload.items() if k != "sig"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _private_key(private_pem: bytes) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(private_pem, password=None)
    except (ValueError, TypeError) as e:
        raise ValueError(
            "the director's private key is not a readable PEM key without a password: "
            "make a new pair with `table-controller feed keys`"
        ) from e
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(
            "the director's private key is not an Ed25519 key: "
            "make a new pair with `table-controller feed keys`"
        )
    return key


def load_public_key(public_pem: bytes) -> Ed25519PublicKey:
    """The director's public key; ValueError with words when it is not one."""
    try:
        key = serialization.load_pem_public_key(public_pem)
    except (ValueError, TypeError) as e:
        raise ValueError(
            "the director's public key is not a readable PEM key: copy director.pub "
            "from the director's machine again"
        ) from e
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(
            "the director's public key is not an Ed25519 key: copy director.pub "
            "made by `table-controller feed keys`"
        )
    return key


def _check_shape(ruling: Ruling) -> None:
    """Refuse a ruling whose kind and carried event do not match (either side)."""
    if ruling.kind not in _EVENT_FOR_KIND:
        raise RulingRejected(
            f"the ruling's kind {ruling.kind!r} is not one this table knows "
            f"({', '.join(KINDS)}): update the table's software or the director's"
        )
    expected = _EVENT_FOR_KIND[ruling.kind]
    if expected is None:
        if ruling.event is not None:
            raise RulingRejected(
                f"a {ruling.kind} ruling changes nothing at the table but carries an event: "
                "the director's software is faulty; make the ruling again"
            )
        return
    if not isinstance(ruling.event, dict) or ruling.event.get("event") != expected:
        raise RulingRejected(
            f"a {ruling.kind} ruling must carry a {expected} event: "
            "the director's software is faulty; make the ruling again"
        )


def position_problem(ruling: Ruling, *, game: int, hand: int | None) -> str | None:
    """Why the table, at ``game`` and ``hand``, must refuse ``ruling`` (None: it may
    apply it). A void is for the hand in play only; a score ruling (an adjustment, a
    renege confirmed or dismissed) is for the game in play, about its current hand or
    one already scored, since a director often rules once a hand is over."""
    if ruling.game is None:
        return "the ruling does not name its game: update the director's software"
    if ruling.game != game:
        return (
            f"the ruling is about game {ruling.game}, and this table is playing game {game} "
            "(a finished game is corrected in the standings)"
        )
    if ruling.kind == "void_hand" and ruling.hand != hand:
        return f"the ruling voids hand {ruling.hand}, and this table is on hand {hand}"
    if ruling.hand is not None and (hand is None or ruling.hand > hand):
        return f"the ruling is about hand {ruling.hand}, not yet dealt at this table"
    return None


def sign_statement(statement: Mapping[str, Any], private_pem: bytes) -> str:
    """A director's signed statement that is not a ruling (the results confirmed final):
    the Ed25519 signature of its canonical JSON, in base64, for the audit."""
    return base64.b64encode(_private_key(private_pem).sign(canonical(statement))).decode("ascii")


def sign(ruling: Ruling, private_pem: bytes) -> dict[str, Any]:
    """The payload to publish: the ruling's fields, ``"v": 1`` and ``"sig"``."""
    _check_shape(ruling)
    payload: dict[str, Any] = {
        "v": VERSION,
        "ruling_id": ruling.ruling_id,
        "table": ruling.table,
        "kind": ruling.kind,
        "event": ruling.event,
        "reason": ruling.reason,
        "director": ruling.director,
        "at": float(ruling.at),
        "game": ruling.game,
        "hand": ruling.hand,
    }
    sig = _private_key(private_pem).sign(canonical(payload))
    payload["sig"] = base64.b64encode(sig).decode("ascii")
    return payload


def _text(payload: Mapping[str, Any], key: str) -> str:
    v = payload.get(key)
    if not isinstance(v, str) or not v.strip():
        raise RulingRejected(
            f"the ruling's {key!r} is missing or not a text: "
            "the director's software is faulty; make the ruling again"
        )
    return v


def _number(payload: Mapping[str, Any], key: str) -> int | None:
    v = payload.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**31:
        raise RulingRejected(
            f"the ruling's {key} {v!r} is not a game or hand number: make the ruling again"
        )
    return v


def verify(
    payload: Mapping[str, Any],
    public_pem: bytes,
    *,
    table: str,
    now: float,
    max_age: float = MAX_AGE,
    future: float = FUTURE,
) -> Ruling:
    """The ruling, if the director's key signed it for this table recently enough.

    Raises RulingRejected saying what is wrong: not a ruling, another version, a bad or
    missing signature, another table's ruling, too old (a replay) or from the future.
    """
    if not isinstance(payload, Mapping):
        raise RulingRejected("the ruling is not a JSON object: the director's software is faulty")
    if payload.get("v") != VERSION:
        raise RulingRejected(
            f"the ruling is version {payload.get('v')!r} and this table reads version "
            f"{VERSION}: update the table's or the director's software so they match"
        )
    unknown = sorted(set(payload) - {*_FIELDS, "v", "sig"})
    if unknown:
        raise RulingRejected(
            f"the ruling has fields this table does not know ({', '.join(unknown)}): "
            "update the table's software or the director's"
        )
    sig_text = payload.get("sig")
    if not isinstance(sig_text, str):
        raise RulingRejected(
            "the ruling is not signed: only rulings made on the director's dashboard count"
        )
    try:
        sig = base64.b64decode(sig_text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise RulingRejected(
            "the ruling's signature is not valid base64: it was not made "
            "by the director's dashboard"
        ) from e
    try:
        key = load_public_key(public_pem)
    except ValueError as e:
        raise RulingRejected(str(e)) from e
    try:
        key.verify(sig, canonical(payload))
    except InvalidSignature as e:
        raise RulingRejected(
            "the ruling's signature does not match the director's key: it was not made on "
            "this event's dashboard, or the table holds another event's director.pub "
            "(copy it again from the director's machine)"
        ) from e
    # Signed by the director: now check it is meant for this table, now.
    at = payload.get("at")
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        raise RulingRejected("the ruling's time 'at' is not a number: make the ruling again")
    ruling = Ruling(
        ruling_id=_text(payload, "ruling_id"),
        table=_text(payload, "table"),
        kind=_text(payload, "kind"),
        event=payload.get("event"),
        reason=_text(payload, "reason"),
        director=_text(payload, "director"),
        at=float(at),
        game=_number(payload, "game"),
        hand=_number(payload, "hand"),
    )
    if ruling.event is not None and not isinstance(ruling.event, dict):
        raise RulingRejected("the ruling's event is not a JSON object: make the ruling again")
    if ruling.table != table:
        raise RulingRejected(
            f"the ruling is for table {ruling.table!r}, not this table {table!r}: "
            "the director should make it again for the right table"
        )
    age = now - ruling.at
    if age > max_age:
        raise RulingRejected(
            f"the ruling was made {age:.0f} s ago, more than the {max_age:.0f} s a ruling "
            "stays valid (an old ruling sent again is refused): the director should make "
            "it again, and check this table's clock"
        )
    if age < -future:
        raise RulingRejected(
            f"the ruling is dated {-age:.0f} s in the future: this table's clock or the "
            "director's is wrong; set both clocks right (NTP), then make the ruling again"
        )
    _check_shape(ruling)
    return ruling
