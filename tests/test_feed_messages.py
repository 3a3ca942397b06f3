"""The feed's topics and payloads: ids, topics, no held card ever sent."""

from __future__ import annotations

from table_controller.cards import Card
from table_controller.feed import messages
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.events import CardsExchanged, DealerDiscarded, HandDealt
from table_controller.seats import Seat


def test_ids_and_topics() -> None:
    assert messages.table_id("Club Night #3") == "club-night-3"
    t = messages.Topics.of("euchre", "may")
    assert t.events("t-1") == "euchre/may/tables/t-1/events"
    assert t.evidence("t-1", 2, 7) == "euchre/may/tables/t-1/evidence/2/7"
    assert messages.Topics.of("euchre", "").prefix == "euchre/event"


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
