"""A card across a zone's line as the table shows it (table/across_line.py, pure): whose
card it most likely is, the words on the page and the director's, and the seat's light
over the game's (table/sinks.py ``table_lights``)."""

from __future__ import annotations

from typing import Any

import pytest

from table_controller.cards import Card, cards
from table_controller.devices.seat_lights import SeatLight
from table_controller.present import table_view
from table_controller.rules import Game, preset
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    OrderedUp,
)
from table_controller.seats import Seat
from table_controller.table.across_line import (
    AcrossLine,
    across_lines,
    director_words,
    lies_across,
    push_sentence,
    zone_words,
)
from table_controller.table.sinks import table_lights
from table_controller.vision.across import CardAcross

N, E, S, W = Seat
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}
NAMES = {N: "Ann", E: "Bo", S: "Cy", W: "Di"}
C9S = Card.parse("9S")


def across(card: Card, *zones: str) -> CardAcross:
    share = 0.9 / len(zones)
    return CardAcross(card, tuple((z, share) for z in zones), 0.0, 0.0)


def playing() -> Game:
    """Hearts trump, North to lead the first trick (West dealt)."""
    game = Game(preset("td-tournament"))
    game.push(DealerChosen(W))
    game.push(HandDealt(Card.parse("9H"), HANDS))
    game.push(OrderedUp(N, alone=False))
    game.push(DealerDiscarded(Card.parse("9D")))
    return game


def test_the_seat_to_play_pushes_a_card_across_its_play_zone_s_line() -> None:
    game = playing()
    game.push(CardPlayed(N, Card.parse("JH")))  # East to play
    (line,) = across_lines(game, [across(C9S, "kitty", "play:E")])
    assert line == AcrossLine(C9S, ("kitty", "play:E"), E, "play:E")
    # Across two play zones: the one whose turn it is, even holding less of it.
    (line,) = across_lines(game, [across(C9S, "play:S", "play:E")])
    assert (line.seat, line.into) == (E, "play:E")
    # Neither's turn: the play zone holding most of it.
    (line,) = across_lines(game, [across(C9S, "play:S", "play:W")])
    assert (line.seat, line.into) == (S, "play:S")


def test_a_card_already_played_goes_back_to_its_player_s_zone() -> None:
    game = playing()
    game.push(CardPlayed(N, Card.parse("JH")))
    (line,) = across_lines(game, [across(Card.parse("JH"), "kitty", "play:E")])
    assert (line.seat, line.into) == (N, "play:N")


def test_a_trick_pile_s_owner_and_the_kitty_s_dealer() -> None:
    game = playing()
    (line,) = across_lines(game, [across(C9S, "tricks:S", "tricks:W")])
    assert (line.seat, line.into) == (S, "tricks:S")
    (line,) = across_lines(game, [across(C9S, "kitty")])
    assert (line.seat, line.into) == (W, "kitty")  # West dealt
    (line,) = across_lines(Game(preset("td-tournament")), [across(C9S, "kitty")])
    assert (line.seat, line.into) == (None, "kitty")  # no dealer yet: nobody's light
    assert across_lines(game, [CardAcross(C9S, (), 0.0, 0.0)]) == ()


def test_the_words_name_the_card_the_player_and_the_zones() -> None:
    assert push_sentence(C9S, E, "play:E", NAMES) == "Bo (East): push the 9♠ into your play zone"
    assert push_sentence(C9S, E, "play:E", {}) == "East: push the 9♠ into your play zone"
    assert push_sentence(Card.parse("TH"), None, "kitty", NAMES) == "Push the 10♥ into the kitty"
    assert lies_across(("kitty", "play:E"), E) == (
        "It lies across the line between the kitty and your play zone: "
        "the table takes it once it lies clearly inside"
    )
    assert lies_across(("tricks:W",), W).startswith("It hangs over the edge of your trick pile")
    assert zone_words("play:N") == "North's play zone"
    assert zone_words("tricks:S", S) == "your trick pile"
    assert zone_words("tricks:S") == "South's trick pile"
    page = AcrossLine(C9S, ("kitty", "play:E"), E, "play:E").page(NAMES)
    assert page["text"] == "Bo (East): push the 9♠ into your play zone"
    assert page["card"]["text"] == "9♠" and page["seat"] == "E"
    # Nothing a person reads is a code.
    for said in (page["text"], page["detail"]):
        assert "play:" not in said and "9S" not in said


def test_the_director_reads_the_table_s_status_in_words() -> None:
    status = AcrossLine(C9S, ("kitty", "play:E"), E, "play:E").status()
    assert status == {"card": "9S", "seat": "E", "into": "play:E", "zones": ["kitty", "play:E"]}
    assert director_words(status, {"E": "Bo"}) == (
        "9♠ between the kitty and East's play zone; Bo (East) to push it in"
    )
    alone = {"card": "9S", "seat": None, "into": "kitty", "zones": ["kitty"]}
    assert director_words(alone, {}) == "9♠ over the edge of the kitty"


@pytest.mark.parametrize(
    "bad",
    [
        {"card": "1X", "seat": "E", "zones": ["kitty"]},
        {"card": "9S", "seat": "E", "zones": []},
        {"card": "9S", "seat": "E", "zones": "kitty"},
        {"card": "9S", "seat": "E", "zones": [3]},
        {"seat": "E", "zones": ["kitty"]},
    ],
)
def test_an_entry_the_director_cannot_read_is_passed_over(bad: dict[str, Any]) -> None:
    assert director_words(bad, {}) is None


def test_a_seat_the_director_cannot_read_is_left_out() -> None:
    odd = {"card": "9S", "seat": "Q", "zones": ["kitty", "x" * 200]}
    said = director_words(odd, {})
    assert said is not None and said.startswith("9♠ between the kitty and the ")
    assert "to push" not in said and len(said) < 120


def test_the_seat_pulses_over_its_turn_but_never_over_a_renege_or_an_irregularity() -> None:
    game = playing()
    lights = table_lights(game, across=[N])
    assert lights[N] is SeatLight.PUSH_CARD  # North was to lead
    assert table_lights(game, refused=[N], across=[N])[N] is SeatLight.PUSH_CARD
    assert table_lights(game, faulty=True, across=[E])[E] is SeatLight.PUSH_CARD
    assert table_lights(game)[N] is SeatLight.YOUR_PLAY  # pushed in: its turn again
    out_of_turn = game.push(CardPlayed(E, Card.parse("JD")))  # a lead out of turn
    assert table_lights(game, out_of_turn, across=[E])[E] is SeatLight.IRREGULARITY


def test_the_page_s_snapshot_carries_the_words() -> None:
    game = playing()
    lines = across_lines(game, [across(C9S, "kitty", "play:N")])
    snap = table_view(game, table="T", players=NAMES, across=lines)
    (shown,) = snap["across"]
    assert shown["text"] == "Ann (North): push the 9♠ into your play zone"
    assert table_view(game, table="T", players=NAMES)["across"] == []
