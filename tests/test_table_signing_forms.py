"""The signed forms of everything a table sends, on bytes (feed/table_signing.py for the
JSON kinds, feed/picture_signing.py for pictures) and the place a status or an answer
carries in its table's order (feed/table_order.py, its start kept by feed/outbox.py).
Pure: no broker, no director; the director's side is test_table_trust.py."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from hypothesis import given
from hypothesis import strategies as st

from table_controller.event_log import EventLog
from table_controller.feed.messages import Topics
from table_controller.feed.outbox import Outbox
from table_controller.feed.picture_signing import (
    MARK,
    PICTURE_KINDS,
    check_picture,
    picture_bytes,
    sign_picture,
    split_picture,
)
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.feed.table_order import (
    LAST,
    Place,
    Places,
    is_ordered,
    next_boot,
    place_of,
    placed,
)
from table_controller.feed.table_signing import (
    CONTEXT,
    SIGNED_KINDS,
    check_message,
    is_signed_kind,
    load_private,
    load_public,
    new_table_key,
    sign_message,
    signed_bytes,
)

PAIR, OTHER = new_table_key(), new_table_key()
KEY = load_private(PAIR.private_pem)
PUBLIC = load_public(PAIR.public_pem, table="table-1")
OTHER_PUBLIC = load_public(OTHER.public_pem, table="table-1")
JSON_KINDS = [k for k in SIGNED_KINDS if k not in PICTURE_KINDS]

# Any JSON a table could put in a payload: what json.loads gives back as it was.
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
payloads = st.dictionaries(st.text(max_size=10), values, max_size=8)
kinds = st.sampled_from(JSON_KINDS) | st.from_regex(r"fleet/[a-z][a-z0-9-]{0,20}", fullmatch=True)


@given(kind=kinds, payload=payloads)
def test_any_payload_of_any_kind_round_trips_through_the_wire(
    kind: str, payload: dict[str, Any]
) -> None:
    signed = sign_message(kind, payload, KEY)
    wire = json.loads(json.dumps(signed))  # as the director parses it
    verdict = check_message(kind, wire, PUBLIC, table="table-1")
    assert verdict.ok and verdict.signed and verdict.problem is None
    assert signed_bytes(kind, wire) == signed_bytes(kind, signed)
    assert signed_bytes(kind, wire).startswith(CONTEXT + kind.encode() + b"\n")
    # Another kind, another key: refused.
    other = "status" if kind != "status" else "acks"
    assert not check_message(other, wire, PUBLIC, table="table-1").ok
    assert "another key" in str(check_message(kind, wire, OTHER_PUBLIC, table="t").problem)


@given(kind=kinds, payload=payloads, data=st.data())
def test_any_flipped_byte_of_what_is_signed_or_of_the_signature_fails(
    kind: str, payload: dict[str, Any], data: st.DataObject
) -> None:
    signed = sign_message(kind, payload, KEY)
    body = signed_bytes(kind, signed)
    sig = base64.b64decode(signed["sig"])
    where = data.draw(st.integers(0, len(body) + len(sig) - 1), label="byte")
    flip = data.draw(st.integers(1, 255), label="xor")
    if where < len(body):
        changed = bytearray(body)
        changed[where] ^= flip
        with pytest.raises(InvalidSignature):
            PUBLIC.verify(sig, bytes(changed))
    else:
        changed = bytearray(sig)
        changed[where - len(body)] ^= flip
        forged = {**signed, "sig": base64.b64encode(bytes(changed)).decode()}
        assert not check_message(kind, forged, PUBLIC, table="table-1").ok


@given(kind=kinds, payload=payloads.filter(lambda p: any(k != "sig" for k in p)), data=st.data())
def test_any_value_changed_after_signing_fails(
    kind: str, payload: dict[str, Any], data: st.DataObject
) -> None:
    signed = json.loads(json.dumps(sign_message(kind, payload, KEY)))
    field = data.draw(st.sampled_from(sorted(k for k in signed if k != "sig")), label="field")
    new = data.draw(values.filter(lambda v: json.dumps(v) != json.dumps(signed[field])))
    forged = {**signed, field: new}
    assert not check_message(kind, forged, PUBLIC, table="table-1").ok


def test_the_kinds_a_table_signs(tmp_path: Path) -> None:
    assert set(SIGNED_KINDS) == {
        "events", "status", "acks", "fleet/config", "fleet/camera", "fleet/update",
        "evidence", "evidence/clear",
    }  # fmt: skip
    assert is_signed_kind("fleet/lights")  # a fleet answer of a later release
    assert not is_signed_kind("rulings") and not is_signed_kind("fleet/../status")
    unsigned = check_message("fleet/camera", {"table": "table-1"}, PUBLIC, table="table-1")
    assert unsigned.problem == "a camera answer came without the table's signature"
    ack = check_message("acks", {"table": "table-1"}, PUBLIC, table="table-1")
    assert ack.problem == "an answer to a ruling came without the table's signature"
    # The table's feed sends no fleet answer of a kind it could not sign.
    settings = FeedSettings(table="table-1", topics=Topics.of("euchre", "forms"))
    with pytest.raises(ValueError, match="not a kind of fleet answer"):
        Publisher(settings, tmp_path / "log.sqlite").send("../status", {})


# --- pictures ---------------------------------------------------------------------------

pictures = st.binary(max_size=4096)
numbers = st.integers(1, 2**31 - 1)


@given(kind=st.sampled_from(PICTURE_KINDS), game=numbers, seq=numbers, picture=pictures)
def test_any_picture_round_trips_and_comes_back_as_it_was(
    kind: str, game: int, seq: int, picture: bytes
) -> None:
    wire = sign_picture(kind, "table-1", game, seq, picture, KEY)
    assert len(wire) == len(picture) + len(MARK) + 64  # no base64, no copy of the picture
    checked = check_picture(kind, "table-1", game, seq, wire, PUBLIC)
    assert checked.verdict.ok and checked.verdict.signed and checked.picture == picture
    assert split_picture(picture) == (picture, None) or picture.endswith(MARK)


@given(kind=st.sampled_from(PICTURE_KINDS), picture=pictures, data=st.data())
def test_any_flipped_byte_of_a_signed_picture_fails(
    kind: str, picture: bytes, data: st.DataObject
) -> None:
    wire = bytearray(sign_picture(kind, "table-1", 3, 41, picture, KEY))
    wire[data.draw(st.integers(0, len(wire) - 1), label="byte")] ^= data.draw(st.integers(1, 255))
    assert not check_picture(kind, "table-1", 3, 41, bytes(wire), PUBLIC).verdict.ok


def test_a_signed_picture_passes_for_its_own_table_event_and_kind_only() -> None:
    picture = b"\xff\xd8\xff" + bytes(range(256)) * 40
    wire = sign_picture("evidence", "table-1", 3, 41, picture, KEY)
    assert check_picture("evidence", "table-1", 3, 41, wire, PUBLIC).verdict.ok
    for kind, table, game, seq in [
        ("evidence/clear", "table-1", 3, 41),  # not a clearer picture
        ("evidence", "table-2", 3, 41),
        ("evidence", "table-1", 4, 41),
        ("evidence", "table-1", 3, 42),
    ]:
        verdict = check_picture(kind, table, game, seq, wire, PUBLIC).verdict
        assert not verdict.ok and verdict.signed
        assert "another key, another event, or the picture changed" in str(verdict.problem)
    unsigned = check_picture("evidence", "table-1", 3, 41, picture, PUBLIC).verdict
    assert (unsigned.ok, unsigned.signed) == (False, False)
    assert unsigned.problem == "a picture came without the table's signature"
    other = check_picture("evidence", "table-1", 3, 41, wire, OTHER_PUBLIC).verdict
    assert not other.ok
    # What is signed: the kind, and a record of the picture with its SHA-256.
    signed = picture_bytes("evidence", "table-1", 3, 41, picture)
    assert signed.startswith(CONTEXT + b"evidence\n{")
    assert json.loads(signed.split(b"\n", 2)[2]) == {
        "game": 3, "seq": 41, "table": "table-1", "sha256": hashlib.sha256(picture).hexdigest(),
    }  # fmt: skip
    # No key registered (a table of an older release, or one set up without keys): taken,
    # the signature taken off before the picture is stored.
    keyless = check_picture("evidence", "table-1", 3, 41, wire, None)
    assert keyless.verdict.ok and keyless.verdict.signed and keyless.picture == picture
    assert check_picture("evidence", "table-1", 3, 41, picture, None).picture == picture


# --- the order ----------------------------------------------------------------------------


def test_places_go_start_then_connection_then_message_the_last_will_last() -> None:
    count = Places(boot=100)
    count.connected()
    first, second, will = count.next(), count.next(), count.last_word()
    count.connected()
    after = count.next()
    keys = [p.key for p in (first, second, will, after)]
    assert keys == sorted(keys) and len(set(keys)) == 4
    assert will.key == (100, 1, LAST) and after.key == (100, 2, 1)
    assert Place(101, 1, 1).key > will.key
    assert place_of(placed({"v": 1}, will)) == will
    assert json.loads(json.dumps(placed({}, second))) == {"order": [100, 1, 2]}
    assert will.words() == "start 100, connection 1, its last will"
    assert is_ordered("status") and is_ordered("acks") and is_ordered("fleet/update")
    assert not is_ordered("events") and not is_ordered("evidence")


@pytest.mark.parametrize(
    "order",
    [None, [], [1, 1], [1, 1, 1, 1], [True, 1, 1], [1, 0, 1], [1, 1, 0], [-1, 1, 1],
     [1.0, 1, 1], ["1", 1, 1], [2**53, 1, 1], {"boot": 1}],
)  # fmt: skip
def test_a_place_that_cannot_be_read_is_none(order: Any) -> None:
    assert place_of({"order": order}) is None


@given(clocks=st.lists(st.floats(0, 4e9), min_size=1, max_size=30))
def test_each_start_counts_up_whatever_the_clock_says(clocks: list[float]) -> None:
    boots: list[int] = []
    for now in clocks:
        boots.append(next_boot(boots[-1] if boots else None, now))
    assert boots == sorted(set(boots))  # strictly up, a clock put back or not
    assert boots[0] == max(int(clocks[0]), 1)


def test_the_start_is_kept_in_the_log_and_outlives_a_clock_put_back(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    EventLog(path, table="table-1").close()
    starts = []
    for now in (1_767_000_000.7, 1_000.0, 1_000.0, 1_767_000_500.0):  # a clock lost, then right
        outbox = Outbox(path)
        try:
            starts.append(outbox.start_boot(now))
        finally:
            outbox.close()
    assert starts == [1_767_000_000, 1_767_000_001, 1_767_000_002, 1_767_000_500]
