"""A table's signature on its events and status (feed/table_signing.py), on bytes; and
what the director stores of a table with a registered key (director/service.py).
The other kinds, pictures and the order: test_table_signing_forms.py, test_table_trust.py."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from table_controller.cli import main
from table_controller.director.cli import register_table_keys
from table_controller.director.fleet import Fleet
from table_controller.director.fleet.join import approve
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.feed import messages
from table_controller.feed.signing import new_keys
from table_controller.feed.table_order import Place, placed
from table_controller.feed.table_signing import (
    CONTEXT,
    TableKeyError,
    check_message,
    load_private,
    load_public,
    new_table_key,
    public_pem,
    sign_message,
    signed_bytes,
)
from table_controller.fleet import sealing
from table_controller.table.fleet import membership

TOPICS = messages.Topics.of("euchre", "sig")
FIRST = Place(boot=1_767_000_000, link=1, n=1)  # a status's place: its table's first


def event(seq: int, card: str = "JH", table: str = "table-1") -> dict[str, object]:
    return messages.event_message(
        table=table, game=1, seq=seq, at=1_700_000_000.25, source="camera",
        input_event={"event": "card_played", "seat": "N", "card": card}, outputs=[],
        hand=1, evidence=False,
    )  # fmt: skip


def test_the_signed_bytes_are_the_context_the_kind_and_canonical_json() -> None:
    payload = {"b": 1.5, "a": "Zoë", "sig": "ignored", "n": [1, (2, 3)]}
    assert signed_bytes("events", payload) == (
        CONTEXT + b'events\n{"a":"Zo\\u00eb","b":1.5,"n":[1,[2,3]]}'
    )
    # What the director parses gives the same bytes as what the table built.
    assert signed_bytes("status", json.loads(json.dumps(payload))) == signed_bytes(
        "status", payload
    )
    with pytest.raises(ValueError, match="not one a table sends"):
        signed_bytes("rulings", payload)


def test_a_signed_message_checks_against_its_key_only() -> None:
    pair, other = new_table_key(), new_table_key()
    key = load_private(pair.private_pem)
    public = load_public(pair.public_pem, table="table-1")
    signed = sign_message("events", event(1), key)
    wire = json.loads(json.dumps(signed))  # as the director receives it
    assert check_message("events", wire, public, table="table-1").ok
    assert len(base64.b64decode(signed["sig"])) == 64
    # Another key, a changed card, another kind, no signature, a signature that is none.
    assert "another key" in str(
        check_message(
            "events", wire, load_public(other.public_pem, table="t"), table="table-1"
        ).problem
    )
    forged = {**wire, "input": {"event": "card_played", "seat": "N", "card": "AS"}}
    assert not check_message("events", forged, public, table="table-1").ok
    assert not check_message("status", wire, public, table="table-1").ok
    unsigned = check_message("events", event(1), public, table="table-1")
    assert (unsigned.ok, unsigned.signed) == (False, False)
    assert unsigned.problem == "a game event came without the table's signature"
    assert not check_message("events", {**wire, "sig": "not base64!"}, public, table="t").ok
    # No key registered: taken as before, signed or not (a table of an older release).
    assert check_message("events", event(1), None, table="table-1").ok
    assert check_message("events", wire, None, table="table-1").signed


def test_a_key_that_is_not_one_says_what_to_do() -> None:
    with pytest.raises(TableKeyError, match="copy this table's signing key again"):
        load_private(b"not a key")
    with pytest.raises(TableKeyError, match="register it again"):
        load_public("not a key", table="table-1")


def signed(kind: str, payload: dict[str, object], key: Ed25519PrivateKey) -> bytes:
    return json.dumps(sign_message(kind, payload, key)).encode()


def _service(store: DirectorStore) -> DirectorService:
    return DirectorService(store, BrokerConfig(port=1), prefix=TOPICS.prefix)


def test_a_table_with_a_key_has_only_its_signed_messages_stored(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    svc = _service(store)
    pair = new_table_key()
    key = load_private(pair.private_pem)
    assert store.keys.register_key("table-1", pair.public_pem.decode(), source="test")
    assert not store.keys.register_key("table-1", pair.public_pem.decode(), source="test")
    try:
        svc.handle(TOPICS.events("table-1"), json.dumps(event(1, "AS")).encode())  # forged
        svc.handle(TOPICS.events("table-1"), json.dumps(event(2, "AS")).encode())
        assert store.events.events("table-1") == []
        alerts = [a for a in store.alerts.alerts() if a["kind"] == "signature"]
        assert len(alerts) == 1  # one alert, not one a message
        assert "without the table's signature" in alerts[0]["text"]
        assert "new password" in alerts[0]["text"]
        # The real table's copy of the same game and seq is stored.
        svc.handle(TOPICS.events("table-1"), signed("events", event(1), key))
        assert [e["input"]["card"] for e in store.events.events("table-1")] == ["JH"]
        assert svc.marks("table-1") == {1: 1}
        status = messages.status_message(
            table="table-1", at=1.0, every=5.0, game=1, hand=1, phase="playing",
            scores=(0, 0), players={}, faults=[], backlog=0,
        )  # fmt: skip
        svc.handle(TOPICS.status("table-1"), json.dumps(status).encode())
        assert store.tables.tables()[0]["game"] is None  # only seen, not stored
        svc.handle(TOPICS.status("table-1"), signed("status", placed(status, FIRST), key))
        assert store.tables.table_position("table-1") == (1, 1)
        # A table with no key registered (an older release) is taken as before.
        svc.handle(TOPICS.events("table-2"), json.dumps(event(1, table="table-2")).encode())
        assert len(store.events.events("table-2")) == 1
        assert [a["action"] for a in store.accounts.audit()] == ["table_key_registered"]
    finally:
        store.close()


def test_a_fleet_key_is_enforced_from_the_tables_first_signed_message(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    svc = _service(store)
    pair = new_table_key()
    key = load_private(pair.private_pem)
    store.keys.register_key("table-1", pair.public_pem.decode(), source="fleet", enforced=False)
    try:
        svc.handle(TOPICS.events("table-1"), json.dumps(event(1)).encode())  # an older release
        svc.handle(TOPICS.events("table-1"), signed("events", event(2), key))
        svc.handle(TOPICS.events("table-1"), json.dumps(event(3)).encode())  # now refused
        assert [e["seq"] for e in store.events.events("table-1")] == [1, 2]
        assert store.keys.table_keys()[0]["enforced"] == 1
        assert [a["kind"] for a in store.alerts.alerts()] == ["signature"]
    finally:
        store.close()


def test_two_copies_of_an_event_from_a_table_without_a_key_are_both_shown(
    tmp_path: Path,
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    try:
        store.events.add_event(event(1, "AS"))
        store.events.add_event({**event(1, "JH"), "at": 1_700_000_100.0})
        (alert,) = store.alerts.alerts()
        assert alert["kind"] == "game_reused"
        assert "the one held: Card played: North, Ace of Spades" in alert["text"]
        assert "the one sent now, not stored: Card played: North, Jack of Hearts" in alert["text"]
    finally:
        store.close()


class _Logins:
    """A stand-in for the broker's table logins."""

    def add_table(self, table_id: str) -> str:
        return f"password-{table_id}"

    def remove_table(self, table_id: str) -> None:
        pass


def test_the_fleets_approval_gives_the_table_its_key_and_registers_its_public_half(
    tmp_path: Path,
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    private, public = new_keys()
    fleet = Fleet(
        store=store, credentials=_Logins(), event="Open", topic="euchre",
        prefix="euchre/open", broker_port=1883, public_pem=public, private_pem=private,
        rules="td-tournament", options={},
    )  # fmt: skip
    table_private = sealing.new_private()
    try:
        r = fleet.requests.ask(
            sealing.public_of(table_private), host="pi", address="10.0.0.7", version="0.1.0"
        )
        approve(fleet, r.request, r.code, "Table 7", who="ann", now=100.0)
        assert r.sealed is not None
        bundle = json.loads(sealing.open(table_private, base64.b64decode(r.sealed)))
        m = membership.Membership.of_bundle(bundle, host="10.0.0.1", port=8090)
        key = load_private(m.signing_key.encode())
        (registered,) = store.keys.table_keys()
        assert registered["table"] == "table-7" and registered["enforced"] == 0
        assert registered["public_key"].encode() == public_pem(key.public_key())
        assert ("ann", "table_key_registered") in [
            (a["who"], a["action"]) for a in store.accounts.audit()
        ]
        # The table keeps it (0600) and its feed signs with it.
        membership.save(tmp_path / "fleet", m)
        assert membership.load(tmp_path / "fleet") == m
        path = tmp_path / "fleet" / membership.SIGNING_KEY
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        store.close()


def test_broker_config_writes_each_tables_key_keeps_it_and_the_director_registers_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "broker"
    args = ["feed", "broker-config", "--event", "sig", "--tables", "2", "--out", str(out)]
    assert main(args) == 0
    keys = json.loads((out / "table-keys.json").read_text())
    assert sorted(keys) == ["table-1", "table-2"]
    secret = out / "secrets" / "table-1.signing.key"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert public_pem(load_private(secret.read_bytes()).public_key()).decode() == keys["table-1"]
    assert main(args) == 0  # written again: the tables' keys kept
    assert json.loads((out / "table-keys.json").read_text()) == keys
    store = DirectorStore(tmp_path / "director.sqlite")
    try:
        assert register_table_keys(store, out / "table-keys.json") == 2
        assert register_table_keys(store, out / "table-keys.json") == 0
        assert {k["table"]: k["enforced"] for k in store.keys.table_keys()} == {
            "table-1": 1,
            "table-2": 1,
        }
    finally:
        store.close()
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="broker-config"):
        register_table_keys(store, tmp_path / "bad.json")
