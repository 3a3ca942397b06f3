"""What the sensors mean to the rules, phase by phase: every row of the table of physical
actions (docs/table.md), and the refusals, which always name the seat and what to do."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.cards import DECK, Card, Suit
from table_controller.devices.cube_types import Alert
from table_controller.devices.seat_events import ButtonPressed, DirectorCalled, SeatButton
from table_controller.present import waiting_for
from table_controller.rules import Game, preset
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    CardCut,
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    FaceUpCardDealt,
    HandDealt,
    KittyCardSeen,
    OrderedUp,
    Passed,
    RenegeProven,
    SecondCopySeen,
    TrumpCalled,
)
from table_controller.rules.hand import Phase
from table_controller.seats import SEATS, Seat
from table_controller.simulate import choose_dealer, deal, play
from table_controller.table.cube_state import cube_state
from table_controller.table.inputs import (
    InputRefused,
    from_page,
    from_press,
    from_vision,
    zone_seat,
)
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved, CardSeenTwice

N, E, S, W = Seat
PASS, CALL, ALONE, DIRECTOR = SeatButton
JH, NINE_H, AS, TC = Card.parse("JH"), Card.parse("9H"), Card.parse("AS"), Card.parse("TC")


def laid(card: Card, zone: str) -> CardLaid:
    return CardLaid(card, zone, 10, 0.3, 0.0, 0.0)


def moved(card: Card, source: str, zone: str) -> CardMoved:
    return CardMoved(card, source, zone, 11, 0.4)


def dealt(rules: str = "td-tournament") -> Game:
    """W deals, 9H turned up, the hands unknown (a live table): N to bid."""
    game = Game(preset(rules))
    game.push(DealerChosen(W))
    game.push(HandDealt(NINE_H))
    return game


def discarding() -> Game:
    game = dealt()
    game.push(OrderedUp(N))
    assert game.phase is Phase.DISCARDING
    return game


def playing() -> Game:
    game = discarding()
    game.push(DealerDiscarded(None))
    assert game.phase is Phase.PLAYING
    return game


def second_round(rules: str = "td-tournament") -> Game:
    game = dealt(rules)
    for seat in (N, E, S, W):
        game.push(Passed(seat))
    assert game.hand is not None and game.hand.round == 2
    return game


# --- the camera ------------------------------------------------------------------------


def test_zone_seat() -> None:
    assert zone_seat("play:N") is N and zone_seat("tricks:W", "tricks") is W
    assert zone_seat("kitty") is None and zone_seat("play:X") is None
    assert zone_seat("tricks:E") is None


def test_first_jack_cards_dealt_face_up_in_play_zones() -> None:
    game = Game(preset("td-tournament"))
    assert from_vision(game, laid(AS, "play:E")) == FaceUpCardDealt(E, AS)
    assert from_vision(game, moved(JH, "play:N", "play:S")) == FaceUpCardDealt(S, JH)


def test_first_ace_too() -> None:
    game = Game(preset("nmu-tournament"))
    assert from_vision(game, laid(AS, "play:W")) == FaceUpCardDealt(W, AS)


def test_high_cut_cards_are_cuts() -> None:
    game = Game(preset("bicycle-head-to-head"))
    assert from_vision(game, laid(TC, "play:S")) == CardCut(S, TC)


def test_a_chosen_first_dealer_is_not_dealt_for() -> None:
    game = Game()  # plain rules: the first dealer is chosen
    with pytest.raises(InputRefused) as info:
        from_vision(game, laid(AS, "play:E"))
    assert info.value.seat is E
    assert "choose the first dealer on the table's screen" in info.value.what_to_do


def test_the_upcard_in_the_kitty_is_the_deal() -> None:
    game = Game(preset("td-tournament"))
    game.push(DealerChosen(W))
    assert from_vision(game, laid(NINE_H, "kitty")) == HandDealt(upcard=NINE_H)
    assert from_vision(game, moved(NINE_H, "play:N", "kitty")) == HandDealt(upcard=NINE_H)


def test_a_card_in_the_kitty_outside_the_deal_means_nothing_or_is_checked() -> None:
    """During the bidding a card in the kitty means nothing; once the hand is played it
    is checked against the cards seen (tests/test_deck_integrity.py), and the dealer's
    discard laid face up is that discard. A card pushed there from a play zone is none."""
    assert from_vision(dealt(), laid(AS, "kitty")) is None
    assert from_vision(playing(), laid(AS, "kitty")) == KittyCardSeen(AS)
    assert from_vision(playing(), moved(AS, "play:N", "kitty")) is None
    assert from_vision(discarding(), laid(AS, "kitty")) == DealerDiscarded(AS)


def test_bid_euchre_turns_up_no_card() -> None:
    game = Game(preset("bid-euchre"))
    game.push(DealerChosen(W))
    with pytest.raises(InputRefused, match="Bid Euchre deals every card"):
        from_vision(game, laid(AS, "kitty"))


def test_a_card_played_is_laid_or_moved_into_a_play_zone() -> None:
    game = playing()
    assert from_vision(game, laid(AS, "play:E")) == CardPlayed(E, AS)
    assert from_vision(game, moved(AS, "tricks:E", "play:S")) == CardPlayed(S, AS)


def test_a_lead_before_the_discard_goes_to_the_rules() -> None:
    # The rules (003) rule on it: a dead card, or a refusal, not the camera's mapping.
    assert from_vision(discarding(), laid(AS, "play:E")) == CardPlayed(E, AS)


def test_gathering_and_picking_up_mean_nothing() -> None:
    game = playing()
    assert from_vision(game, moved(AS, "play:E", "tricks:N")) is None
    assert from_vision(game, laid(AS, "tricks:N")) is None
    assert from_vision(game, CardRemoved(AS, "play:E", 12, 0.5)) is None
    first = Game(preset("td-tournament"))
    assert from_vision(first, CardRemoved(AS, "play:E", 12, 0.5)) is None


@pytest.mark.parametrize("make", [dealt, second_round])
def test_a_card_in_a_play_zone_during_the_bidding_is_refused(make: object) -> None:
    game = make()  # type: ignore[operator]
    with pytest.raises(InputRefused) as info:
        from_vision(game, laid(AS, "play:S"))
    refusal = info.value
    assert refusal.seat is S
    assert "the A♠ laid in South's play zone, but no card is played now" in refusal.problem
    assert refusal.what_to_do == f"pick it up; now: {waiting_for(game, {})}"
    assert "_" not in refusal.what_to_do


def test_a_card_in_a_play_zone_while_dealing_is_refused() -> None:
    game = Game(preset("td-tournament"))
    game.push(DealerChosen(W))
    with pytest.raises(InputRefused, match="no card is played now") as info:
        from_vision(game, laid(AS, "play:N"))
    assert info.value.what_to_do == "pick it up; now: West deals"


def test_a_card_after_the_game_is_refused() -> None:
    rules = preset("td-tournament")
    game = Game.replay(rules, [event for event, _ in play(rules, random.Random(3))])
    assert game.phase is Phase.OVER
    with pytest.raises(InputRefused, match="the game is over"):
        from_vision(game, laid(AS, "play:N"))


def test_a_card_seen_twice_is_shown_never_guessed() -> None:
    """Two cards with one code at once: neither is played, the director is told (an
    irregularity with the copies' picture, tests/test_deck_integrity.py)."""
    twice = CardSeenTwice(AS, (("play:N", 0.0, 0.0), ("kitty", 200.0, 0.0)), 5, 0.2)
    assert from_vision(playing(), twice) == SecondCopySeen(AS, N, at_once=True)


# --- the seat buttons -----------------------------------------------------------------


def press(seat: Seat | None, button: SeatButton) -> ButtonPressed:
    return ButtonPressed(seat, button)


def test_first_round_presses() -> None:
    game = dealt()
    assert from_press(game, press(N, PASS), None) == Passed(N)
    assert from_press(game, press(N, CALL), None) == OrderedUp(N)
    assert from_press(game, press(N, ALONE), Suit.S) == OrderedUp(N, True)


def test_second_round_calls_name_the_cube_s_suit() -> None:
    game = second_round()
    assert from_press(game, press(N, CALL), Suit.S) == TrumpCalled(N, Suit.S)
    assert from_press(game, press(N, ALONE), Suit.C) == TrumpCalled(N, Suit.C, True)
    with pytest.raises(InputRefused, match="no suit is chosen") as info:
        from_press(game, press(N, CALL), None)
    assert info.value.seat is N and "turn the trump cube" in info.value.what_to_do
    with pytest.raises(InputRefused, match="hearts was turned down"):
        from_press(game, press(N, CALL), Suit.H)


def test_a_press_out_of_turn_is_refused_with_the_seat() -> None:
    with pytest.raises(InputRefused, match="it is North's turn, not South's") as info:
        from_press(dealt(), press(S, CALL), None)
    assert info.value.seat is S


def test_the_dealer_s_pass_while_discarding_is_the_discard() -> None:
    game = discarding()
    assert from_press(game, press(W, PASS), None) == DealerDiscarded(None)
    with pytest.raises(InputRefused, match="West is the dealer and discards now") as info:
        from_press(game, press(W, CALL), None)
    assert "then press pass" in info.value.what_to_do
    with pytest.raises(InputRefused, match=r"West \(the dealer\) is discarding, not East") as info:
        from_press(game, press(E, PASS), None)
    assert info.value.seat is E


def test_the_director_button() -> None:
    assert from_press(playing(), press(None, DIRECTOR), None) == DirectorCalled(None)
    assert from_press(dealt(), press(E, DIRECTOR), None) == DirectorCalled(E)


def test_a_press_during_play_is_refused() -> None:
    with pytest.raises(InputRefused, match="there is no bidding now") as info:
        from_press(playing(), press(E, PASS), None)
    assert "E to lead" in info.value.what_to_do or "to lead" in info.value.what_to_do


# --- the page -------------------------------------------------------------------------


def test_a_tapped_action_is_its_event() -> None:
    game = dealt()
    assert from_page(game, encode(Passed(N))) == Passed(N)
    assert from_page(game, {**encode(OrderedUp(N, True)), "seat": "N"}) == OrderedUp(N, True)
    # The discard has no seat field; the page adds the tapping seat.
    assert from_page(discarding(), {"event": "dealer_discarded", "seat": "W"}) == (
        DealerDiscarded(None)
    )


def test_a_tapped_action_the_rules_refuse() -> None:
    with pytest.raises(InputRefused, match="no discard is due") as info:
        from_page(dealt(), {"event": "dealer_discarded", "seat": "W"})
    assert info.value.seat is W and "now: North to pass or order up" in info.value.what_to_do
    # Under plain rules the turned-down suit cannot be named (td-tournament: a forfeit).
    with pytest.raises(InputRefused, match="turned down") as info:
        from_page(second_round("nmu-tournament"), encode(TrumpCalled(N, Suit.H)))
    assert info.value.seat is N


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"event": "nonsense"},
        {"event": "passed", "seat": "X"},
        {"event": "passed"},
        {"event": "dealer_discarded", "card": "ZZ", "seat": "W"},
    ],
)
def test_a_payload_the_table_cannot_read(payload: dict[str, object]) -> None:
    with pytest.raises(InputRefused, match="the table cannot read what the page sent") as info:
        from_page(dealt(), payload)
    assert info.value.what_to_do == "reload the page and tap again"


# --- the cube -------------------------------------------------------------------------


def test_the_cube_shows_trump_maker_and_score() -> None:
    game = dealt()
    assert cube_state(game).trump is None and cube_state(game).maker is None
    game.push(OrderedUp(N, True))
    state = cube_state(game)
    assert (state.trump, state.maker, state.alone) == (Suit.H, N, True)
    assert state.alert is Alert.NONE
    assert cube_state(game, director_called=True).alert is Alert.DIRECTOR


def test_the_cube_blinks_a_renege() -> None:
    proven = RenegeProven(1, N, 1, Suit.C, AS, TC, 2)
    assert cube_state(playing(), [proven]).alert is Alert.RENEGE


# --- whatever the camera reports, the table gets an event, nothing, or a refusal --------


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 40),
    card=st.sampled_from(DECK),
    zone=st.sampled_from(["kitty", "play:N", "play:E", "play:S", "play:W", "tricks:N", "x"]),
    kind=st.sampled_from(["laid", "moved", "removed", "twice"]),
)
def test_every_camera_event_maps_or_is_refused(
    seed: int, steps: int, card: Card, zone: str, kind: str
) -> None:
    game = Game(preset("td-tournament"))
    rng = random.Random(seed)
    game.push_all(choose_dealer(rng, game))
    game.push(deal(rng, game.rules))
    for _ in range(steps):
        choices = game.legal_events()
        if not choices:
            break
        game.push(rng.choice(choices))
    event = {
        "laid": laid(card, zone),
        "moved": moved(card, "play:N", zone),
        "removed": CardRemoved(card, zone, 1, 0.0),
        "twice": CardSeenTwice(card, ((zone, 0.0, 0.0),), 1, 0.0),
    }[kind]
    try:
        mapped = from_vision(game, event)  # type: ignore[arg-type]
    except InputRefused as refusal:
        assert refusal.problem and refusal.what_to_do
        return
    if kind == "twice":  # from any zone: the director is told, nothing is played
        assert isinstance(mapped, SecondCopySeen) and mapped.at_once
        return
    if mapped is not None:
        seat = zone_seat(zone)
        assert seat is not None or zone == "kitty"
        assert getattr(mapped, "seat", seat) in (seat, *SEATS)
