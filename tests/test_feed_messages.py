"""The feed's topics and payloads: ids, topics, no held card ever sent."""

from __future__ import annotations

from pathlib import Path

from table_controller.cards import Card
from table_controller.feed import messages
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.events import CardsExchanged, DealerDiscarded, HandDealt
from table_controller.seats import Seat
from table_controller.table.config import demo_config
from table_controller.table.simulated import FAST, simulated_table


def test_ids_and_topics() -> None:
    assert messages.table_id("Club Night #3") == "club-night-3"
    t = messages.Topics.of("euchre", "may")
    assert t.events("t-1") == "euchre/may/tables/t-1/events"
    assert t.evidence("t-1", 2, 7) == "euchre/may/tables/t-1/evidence/2/7"
    assert messages.Topics.of("euchre", "").prefix == "euchre/event"
    assert t.config("t-1") == "euchre/may/tables/t-1/config"
    assert t.commands("t-1") == "euchre/may/tables/t-1/commands"
    assert t.fleet("t-1", "camera") == "euchre/may/tables/t-1/fleet/camera"


def test_no_held_card_leaves_the_table() -> None:
    dealt = encode(HandDealt(Card.parse("JH"), {Seat.N: (Card.parse("9C"),)}))
    m = messages.event_message(
        table="t",
        game=1,
        seq=2,
        at=0.0,
        source="camera",
        input_event=dealt,
        outputs=[],
        hand=1,
        evidence=False,
    )
    assert "hands" not in m["input"] and m["input"]["upcard"] == "JH"
    assert decode_input(m["input"]) == HandDealt(Card.parse("JH"))
    assert "card" not in messages.secret_free(encode(DealerDiscarded(Card.parse("9C"))))
    ex = messages.secret_free(encode(CardsExchanged(Card.parse("9C"), Card.parse("TS"))))
    assert "discard" not in ex and "received" not in ex
    spotted = {"event": "renege_spotted", "seat": "N", "held": "9C"}
    assert "held" not in messages.public_outputs([spotted])[0]


def test_the_directors_mark_carries_since_and_behind_only_when_it_has_them() -> None:
    plain = messages.received_message(table="t", games={1: 4}, at=10.0, every=5.0)
    assert "since" not in plain and "behind" not in plain  # as an earlier version wrote it
    assert messages.received_since(plain) is None
    assert messages.received_behind(plain) == 0.0
    mark = messages.received_message(
        table="t", games={1: 4}, at=10.0, every=5.0, since=3.5, behind=2.25
    )
    assert messages.parse_received(mark, table="t") == ({1: 4}, 5.0)
    assert messages.received_since(mark) == 3.5
    assert messages.received_behind(mark) == 2.25


def test_a_marks_since_and_behind_that_are_not_numbers_are_left_out() -> None:
    for bad in (True, "3", None, float("nan"), float("inf"), [1]):
        assert messages.received_since({"since": bad}) is None
        assert messages.received_behind({"behind": bad}) == 0.0
    assert messages.received_behind({"behind": -4}) == 0.0  # never sooner than resend_after


def test_a_tables_heartbeat_carries_its_name(tmp_path: Path) -> None:
    """``name`` is what a person reads (the config's ``[table] name``); ``table`` (its
    id) stays the key. The table's own status gives it."""
    beat = messages.status_message(
        table="club-night-3", name="Club Night 3", at=1.0, every=10.0, game=1, hand=2,
        phase="playing", scores=(0, 2), players={"N": "Ann"}, faults=(), backlog=0,
    )  # fmt: skip
    assert (beat["table"], beat["name"]) == ("club-night-3", "Club Night 3")
    old = messages.status_message(
        table="t-1", at=1.0, every=10.0, game=None, hand=None, phase=None, scores=(0, 0),
        players={}, faults=(), backlog=0,
    )  # fmt: skip
    assert old["name"] is None
    config = demo_config(tmp_path)
    table = simulated_table(config, seed=1, pace=FAST, serve_page=False)
    assert table.core.status()["name"] == config.name
