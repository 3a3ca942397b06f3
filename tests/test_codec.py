"""Events to JSON and back: every field checked, every error names the field."""

from __future__ import annotations

import dataclasses
import random

import pytest

from table_controller.cards import Card, Suit
from table_controller.rules import preset
from table_controller.rules.codec import CodecError, decode_input, encode, event_name
from table_controller.rules.events import (
    INPUT_EVENTS,
    CardPlayed,
    HandDealt,
    TrumpCalled,
)
from table_controller.seats import Seat
from table_controller.simulate import play


def test_every_input_event_of_a_game_round_trips() -> None:
    seen: set[type] = set()
    for name in ("td-tournament", "family-bid-euchre", "bicycle-head-to-head"):
        for event, _ in play(preset(name), random.Random(1)):
            assert decode_input(encode(event)) == event
            seen.add(type(event))
    assert len(seen) >= 8


@pytest.mark.parametrize("cls", INPUT_EVENTS, ids=lambda c: c.__name__)
def test_every_input_event_decodes_or_names_its_missing_field(cls: type) -> None:
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    obj = {"event": event_name(cls)}
    if required:
        with pytest.raises(CodecError, match=f"needs the field '{required[0]}'"):
            decode_input(obj)
    else:
        assert isinstance(decode_input(obj), cls)


def test_no_trump_is_nt() -> None:
    event = TrumpCalled(Seat.N, None)
    assert encode(event) == {"event": "trump_called", "seat": "N", "trump": "NT", "alone": False}
    assert decode_input({"event": "trump_called", "seat": "N", "trump": "NT"}) == event
    assert decode_input({"event": "trump_called", "seat": "N", "trump": "h"}).trump is Suit.H


def test_a_live_deal_leaves_the_hands_out() -> None:
    assert encode(HandDealt(Card.parse("9H"))) == {"event": "hand_dealt", "upcard": "9H"}


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([], "JSON object"),
        ({"seat": "N"}, "unknown event None"),
        ({"event": "card_flipped"}, "unknown event 'card_flipped'"),
        ({"event": "card_played", "seat": "N"}, "needs the field 'card'"),
        ({"event": "card_played", "seat": "Q", "card": "JH"}, "card_played.seat"),
        ({"event": "card_played", "seat": "N", "card": "ZZ"}, "card_played.card"),
        ({"event": "card_played", "seat": "N", "card": "JH", "x": 1}, "no field 'x'"),
        ({"event": "ordered_up", "seat": "N", "alone": "yes"}, "ordered_up.alone"),
        ({"event": "bid_made", "seat": "N", "amount": 2.5}, "bid_made.amount"),
        ({"event": "hand_dealt", "upcard": "9H", "hands": {"N": "JH"}}, "hand_dealt.hands"),
        ({"event": "trump_called", "seat": "N", "trump": 3}, "trump_called.trump"),
    ],
)
def test_malformed_events_name_the_problem(obj: object, message: str) -> None:
    with pytest.raises(CodecError, match=message):
        decode_input(obj)


def test_output_events_encode() -> None:
    out = encode(CardPlayed(Seat.E, Card.parse("TD")))
    assert out == {"event": "card_played", "seat": "E", "card": "TD"}
