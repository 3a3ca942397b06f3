"""Signed orders (fleet/orders.py): the director's key signs a config or a command for
one table; a table refuses, in words, anything else."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.feed.signing import new_keys
from table_controller.fleet.orders import (
    COMMAND_MAX_AGE,
    CONFIG_MAX_AGE,
    OrderRejected,
    sign_order,
    verify_order,
)

KEYS = new_keys()
OTHER = new_keys()
NOW = 1_800_000_000.0
PLAYERS = {"N": "Ada", "E": "Bo", "S": "Cy", "W": "Di"}


def config(**kw: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "kind": "config",
        "table": "table-7",
        "id": "c-1",
        "at": NOW,
        "seq": 3,
        "name": "Table 7",
        "event": "Spring Open",
        "rules": "td-tournament",
        "options": {},
        "players": PLAYERS,
        "round": 1,
    }
    order.update(kw)
    return order


def check(payload: Any, **kw: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"table": "table-7", "kind": "config", "now": NOW + 5}
    args.update(kw)
    return verify_order(payload, KEYS[1], **args)


def test_a_signed_config_verifies_to_itself() -> None:
    signed = sign_order(config(), KEYS[0])
    assert signed["v"] == 1 and isinstance(signed["sig"], str)
    got = check(signed)
    assert {k: got[k] for k in config()} == config()
    # As the bytes of the message too, and again when it is the config the table holds.
    assert check(json.dumps(signed).encode(), last_seq=3)["seq"] == 3


@pytest.mark.parametrize(
    ("payload", "kw", "words"),
    [
        (sign_order(config(), OTHER[0]), {}, "signature does not match"),
        (sign_order(config(table="table-8"), KEYS[0]), {}, "for table 'table-8'"),
        (sign_order(config(seq=2), KEYS[0]), {"last_seq": 3}, "older than number 3"),
        (sign_order(config(at=NOW - CONFIG_MAX_AGE - 60), KEYS[0]), {}, "ago"),
        (sign_order(config(at=NOW + 3600), KEYS[0]), {}, "in the future"),
        ({**sign_order(config(), KEYS[0]), "extra": 1}, {}, "fields this table does not know"),
        (sign_order(config(extra=1), KEYS[0]), {}, "fields this table does not know"),
        (b"{not json", {}, "not JSON"),
        (b"[1, 2]", {}, "not a JSON object"),
        ({k: v for k, v in sign_order(config(), KEYS[0]).items() if k != "sig"}, {}, "not signed"),
        ({**sign_order(config(), KEYS[0]), "sig": "%%"}, {}, "base64"),
        ({**sign_order(config(), KEYS[0]), "v": 2}, {}, "version"),
        (sign_order(config(kind="reboot"), KEYS[0]), {}, "kind this table does not know"),
        (sign_order(config(players={"X": "Ada"}), KEYS[0]), {}, "by seat"),
        (sign_order(config(seq="4"), KEYS[0]), {}, "whole number"),
        (sign_order(config(), KEYS[0]), {"kind": "commands"}, "where a command was expected"),
    ],
)
def test_an_order_not_for_this_table_now_is_refused_in_words(
    payload: Any, kw: dict[str, Any], words: str
) -> None:
    with pytest.raises(OrderRejected, match=words):
        check(payload, **kw)


def test_a_command_is_valid_for_minutes_and_taken_once() -> None:
    order = {"kind": "camera-view", "table": "table-7", "id": "k-1", "at": NOW}
    signed = sign_order(order, KEYS[0])
    assert check(signed, kind="commands")["id"] == "k-1"
    with pytest.raises(OrderRejected, match="taken already"):
        check(signed, kind="commands", seen={"k-1"})
    with pytest.raises(OrderRejected, match="ago"):
        check(signed, kind="commands", now=NOW + COMMAND_MAX_AGE + 1)
    with pytest.raises(OrderRejected, match="where a config was expected"):
        check(signed, kind="config")


def test_signing_needs_the_common_fields() -> None:
    with pytest.raises(ValueError, match="table"):
        sign_order({"kind": "config", "id": "x", "at": NOW}, KEYS[0])


@given(field=st.sampled_from(sorted(config())), value=st.integers() | st.text(max_size=5))
def test_any_field_changed_after_signing_is_refused(field: str, value: Any) -> None:
    signed = sign_order(config(), KEYS[0])
    if signed[field] == value:
        return
    signed[field] = value
    with pytest.raises(OrderRejected):
        check(signed)
