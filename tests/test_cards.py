"""Cards, suits and tricks: the left bower is a trump for every purpose.

001 s12: "Jack of Trump -> Jack of Sister Suit (same color as trump) -> Ace, King, Queen,
10, 9 of trump in order -> Ace, King, Queen, Jack, 10, 9 in all other suits".
004 Cards: "As long as spades are trump, J♣ is considered, for all purposes, a spade".
002: "In a no-trump bid, all suits rank ace high to 9 low, and there are no bowers."
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.cards import (
    DECK,
    Card,
    Suit,
    beats,
    cards,
    effective_suit,
    is_trump,
    legal_plays,
    sort_hand,
    trick_winner,
)
from table_controller.seats import Seat, Team


def test_codes_round_trip() -> None:
    assert len(DECK) == 24
    assert [c.code for c in DECK][:6] == ["9C", "TC", "JC", "QC", "KC", "AC"]
    for card in DECK:
        assert Card.parse(card.code) is card
    assert Card.parse("10h") is Card.parse("TH")
    assert Card.parse("JH").pretty == "J♥"


@pytest.mark.parametrize("bad", ["", "JX", "1H", "8S", "JHH", "AS ", "joker"])
def test_unknown_codes_say_what_a_card_is(bad: str) -> None:
    if bad == "AS ":
        assert Card.parse(bad) == Card.parse("AS")
        return
    with pytest.raises(ValueError, match="rank .* and a suit"):
        Card.parse(bad)


def test_card_numbers_outside_the_deck_are_refused() -> None:
    with pytest.raises(ValueError):
        Card(24)


def test_grand_order_of_trump() -> None:
    # 001 s12, hearts trump: JH, JD, AH, KH, QH, TH, 9H, then the rest.
    order = cards("JH JD AH KH QH TH 9H")
    for higher, lower in itertools.pairwise(order):
        plays = [(Seat.N, lower), (Seat.E, higher)]
        assert trick_winner(plays, Suit.H) == Seat.E, (higher, lower)


def test_left_bower_follows_trump_not_its_printed_suit() -> None:
    jd = Card.parse("JD")
    assert effective_suit(jd, Suit.H) == Suit.H
    assert is_trump(jd, Suit.H)
    # Diamonds led, hearts trump: JD is not a diamond, so a hand of JD and a club
    # may play either card.
    hand = cards("JD 9C")
    assert legal_plays(hand, Suit.D, Suit.H) == sorted(hand)
    # Hearts led: JD must be played, it is a heart.
    assert legal_plays(cards("JD 9C"), Suit.H, Suit.H) == [jd]


def test_no_trump_has_no_bowers() -> None:
    assert effective_suit(Card.parse("JD"), None) == Suit.D
    plays = [(Seat.N, Card.parse("QS")), (Seat.E, Card.parse("JS")), (Seat.S, Card.parse("AH"))]
    assert trick_winner(plays, None) == Seat.N


def test_off_suit_card_never_wins() -> None:
    plays = [(Seat.N, Card.parse("9C")), (Seat.E, Card.parse("AD")), (Seat.S, Card.parse("TC"))]
    assert trick_winner(plays, Suit.H) == Seat.S


def test_seats_and_teams() -> None:
    assert Seat.N.left is Seat.E and Seat.W.left is Seat.N
    assert Seat.E.partner is Seat.W and Seat.N.team is Team.NS
    assert Team.EW.seats == (Seat.E, Seat.W)
    assert Seat.S.clockwise_from() == (Seat.S, Seat.W, Seat.N, Seat.E)
    with pytest.raises(ValueError, match="seats are N, E, S and W"):
        Seat.parse("X")


def test_sort_hand_groups_trumps_first_by_power() -> None:
    hand = sort_hand(cards("9H JD AS JH KH"), Suit.H)
    assert hand[:4] == list(cards("JH JD KH 9H"))


suits = st.sampled_from([*Suit, None])
hands = st.sets(st.sampled_from(DECK), min_size=1, max_size=6)


@given(hands, suits, st.sampled_from(list(Suit)))
def test_legal_plays_follow_suit_when_possible(
    hand: set[Card], trump: Suit | None, led: Suit
) -> None:
    legal = legal_plays(hand, led, trump)
    assert legal and set(legal) <= hand
    following = {c for c in hand if effective_suit(c, trump) == led}
    assert set(legal) == (following or hand)


@given(st.lists(st.sampled_from(DECK), min_size=2, max_size=4, unique=True), suits)
def test_no_card_beats_the_winner(played: list[Card], trump: Suit | None) -> None:
    plays = list(zip(Seat, played, strict=False))
    won = dict(plays)[trick_winner(plays, trump)]
    led = effective_suit(played[0], trump)
    assert effective_suit(won, trump) in (trump, led)
    assert not any(beats(card, won, trump, led) for card in played if card != won)
