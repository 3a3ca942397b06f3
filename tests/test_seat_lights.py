"""What each seat's light says, driven through the rules core with real events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.cards import Card, Suit, cards
from table_controller.devices.seat_lights import (
    ALL_OFF,
    Pattern,
    SeatLight,
    TableLights,
    describe,
)
from table_controller.rules import Game, RulesError, preset
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    HandScored,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    RenegeProven,
    TrumpCalled,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.seat_state import seat_lights
from table_controller.transcript import load

N, E, S, W = Seat
L = SeatLight
TRANSCRIPTS = Path(__file__).parent / "transcripts"
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}


def lights(
    n: SeatLight = L.OFF, e: SeatLight = L.OFF, s: SeatLight = L.OFF, w: SeatLight = L.OFF
) -> TableLights:
    return (n, e, s, w)


class Table:
    """A game and the lights after each event, as the table app will keep them."""

    def __init__(self, rules: str = "td-tournament") -> None:
        self.game = Game(preset(rules))
        self.last: list[OutputEvent] = []

    def push(self, event: InputEvent) -> TableLights:
        self.last = self.game.push(event)
        return seat_lights(self.game, self.last)


def replay(name: str) -> Iterator[tuple[InputEvent, list[OutputEvent], Game, TableLights]]:
    """Each accepted step of a transcript, with the lights after it (the game is the
    same object throughout: read it before the next step)."""
    transcript = load(TRANSCRIPTS / f"{name}.jsonl")
    game = Game(transcript.rules())
    for step in transcript.steps:
        try:
            out = game.push(step.event)
        except RulesError:
            assert step.expect_error is not None
            continue
        yield step.event, out, game, seat_lights(game, out)


def test_a_whole_hand_lights_each_seat_in_turn() -> None:
    table = Table()
    assert seat_lights(table.game) == (L.TABLE_READY,) * 4
    assert table.push(DealerChosen(W)) == lights(w=L.DEAL)
    # Bidding: the seat to bid blinks blue, the dealer glows amber.
    assert table.push(HandDealt(Card.parse("9H"), HANDS)) == lights(n=L.YOUR_BID, w=L.DEALER)
    assert table.push(Passed(N)) == lights(e=L.YOUR_BID, w=L.DEALER)
    assert table.push(Passed(E)) == lights(s=L.YOUR_BID, w=L.DEALER)
    assert table.push(Passed(S)) == lights(w=L.YOUR_BID)  # the dealer's own bid
    assert table.push(Passed(W)) == lights(n=L.YOUR_BID, w=L.DEALER)  # round two
    assert table.push(TrumpCalled(N, Suit.S)) == lights(n=L.YOUR_PLAY)
    # Play: exactly the seat to play is lit, steady white, trick after trick.
    seen = 0
    while table.game.phase is Phase.PLAYING:
        to_play = table.game.to_act
        assert to_play is not None
        expected = [L.OFF] * 4
        expected[to_play] = L.YOUR_PLAY
        assert seat_lights(table.game, table.last) == tuple(expected)
        table.push(CardPlayed(to_play, table.game.legal_plays()[0]))
        seen += 1
    assert seen == 20
    # Hand over: the side that scored shows steady green; the next dealer blinks amber.
    scored = table.last[-1]
    assert isinstance(scored, HandScored)
    winners = (N, S) if scored.points[0] else (E, W)
    after = seat_lights(table.game, table.last)
    assert after[N] is L.DEAL  # N deals next
    for seat in (E, S, W):
        assert after[seat] is (L.HAND_WON if seat in winners else L.OFF)
    # The next deal clears the result.
    assert table.push(HandDealt(Card.parse("9D"))) == lights(n=L.DEALER, e=L.YOUR_BID)


def test_ordered_up_alone_the_dealer_discards_and_the_partner_sits_out() -> None:
    table = Table()
    table.push(DealerChosen(W))
    table.push(HandDealt(Card.parse("9H"), HANDS))
    table.push(Passed(N))
    assert table.push(OrderedUp(E, alone=True)) == lights(w=L.DISCARD)  # W sits out, discards
    table.push(DealerDiscarded(Card.parse("9D")))
    assert table.game.hand is not None and table.game.hand.sitting_out is W
    assert seat_lights(table.game, table.last) == lights(n=L.YOUR_PLAY, w=L.SITTING_OUT)


def test_the_dealer_partner_sits_out_while_the_dealer_discards() -> None:
    table = Table()
    table.push(DealerChosen(W))
    table.push(HandDealt(Card.parse("9H"), HANDS))
    assert table.push(OrderedUp(N, alone=True)) == lights(s=L.SITTING_OUT, w=L.DISCARD)


def test_a_renege_flashes_through_the_hands_end_until_the_next_deal() -> None:
    found = None
    for _, out, game, shown in replay("001_renege_ends_hand"):
        if any(isinstance(o, RenegeProven) for o in out):
            found = (out, game, shown)
            break
    assert found is not None, "no renege proven"
    out, game, shown = found
    # W reneged; N-S got the points and the hand ended: E deals next.
    assert shown == lights(n=L.HAND_WON, e=L.DEAL, s=L.HAND_WON, w=L.RENEGE)
    assert shown[W].pattern is Pattern.FAST_ALTERNATE
    assert seat_lights(game, out) == shown  # still, until the next event
    game.push(HandDealt(Card.parse("9C")))
    assert seat_lights(game, []) == lights(e=L.DEALER, s=L.YOUR_BID)


def test_a_renege_that_may_be_taken_back_flashes_until_it_is() -> None:
    steps = list(replay("000_renege_taken_back"))
    lead = next(i for i, (ev, _, _, _) in enumerate(steps) if isinstance(ev, CardPlayed))
    kinds = [(type(ev).__name__, shown[S]) for ev, _, _, shown in steps[lead : lead + 4]]
    assert kinds == [
        ("CardPlayed", L.YOUR_PLAY),  # E leads
        ("CardPlayed", L.RENEGE),  # S does not follow clubs, holding one
        ("CardTakenBack", L.IRREGULARITY),  # taken back: no penalty, noted
        ("CardPlayed", L.OFF),  # S follows suit; W to play
    ]
    assert steps[lead + 3][3] == lights(w=L.YOUR_PLAY)


def test_an_irregularity_flashes_until_the_next_event() -> None:
    steps = list(replay("001_lead_out_of_turn"))
    lead = next(i for i, (ev, _, _, _) in enumerate(steps) if isinstance(ev, CardPlayed))
    assert steps[lead][3] == lights(e=L.YOUR_PLAY, w=L.IRREGULARITY)
    assert steps[lead][3][W].pattern is Pattern.FAST_FLASH
    assert steps[lead + 1][3] == lights(s=L.YOUR_PLAY)


def test_after_a_bid_out_of_turn_the_other_side_chooses() -> None:
    for _, _, game, shown in replay("003_bid_out_of_turn_go_alone"):
        if game.phase is Phase.CHOOSING_REMEDY:
            # S bid out of turn (flashing); E-W choose: the penalty, or go alone.
            assert shown == lights(n=L.DEALER, e=L.YOUR_BID, s=L.IRREGULARITY, w=L.YOUR_BID)
            return
    pytest.fail("no bid out of turn")


def test_shooting_for_12_the_bidder_and_partner_exchange() -> None:
    for event, _, game, shown in replay("004_shoot_12_exchange"):
        if game.phase is Phase.EXCHANGING:
            assert shown == lights(e=L.EXCHANGE, w=L.EXCHANGE)
            return
        assert game.phase is not Phase.PLAYING, event
    pytest.fail("the transcript never reached the exchange")


def test_game_over_the_winners_blink_green() -> None:
    *_, (_, _, game, shown) = replay("003_game_to_10")
    assert game.phase is Phase.OVER and game.match_winner is not None
    winners = game.match_winner.seats
    assert shown == tuple(L.GAME_WON if s in winners else L.OFF for s in Seat)
    assert seat_lights(game) == shown  # it lasts: the game is over
    *_, (_, _, game, shown) = replay("003_progressive_tie")
    assert game.phase is Phase.OVER and shown == ALL_OFF  # a tie: nobody won


def test_between_the_games_of_a_match() -> None:
    for _, out, game, shown in replay("000_best_of_three"):
        if game.phase is Phase.CHOOSING_DEALER and out:
            assert set(shown) == {L.GAME_WON, L.OFF}
            return
    pytest.fail("no game of the match ended")


def test_every_light_shows_somewhere_in_the_rule_transcripts() -> None:
    seen: set[SeatLight] = {L.TABLE_READY}
    for path in sorted(TRANSCRIPTS.glob("*.jsonl")):
        for _, _, game, shown in replay(path.stem):
            seen.update(shown)
            # One seat at most is to play, and it is the seat the rules wait for.
            playing = [s for s in Seat if shown[s] is L.YOUR_PLAY]
            assert len(playing) <= 1
            if playing and game.phase is Phase.PLAYING:
                assert playing[0] == game.to_act
    # The table's own alerts (a refused press, a device fault, a card across a line) are
    # not the rules': the table shows them (tests/test_table_app.py,
    # tests/test_across_table.py); nor is the kiosk's call for a visitor's five cards
    # (tests/test_kiosk.py).
    assert seen == set(SeatLight) - {L.REFUSED, L.DEVICE_FAULT, L.LAY_CARDS, L.PUSH_CARD}


def test_the_table_alerts_are_told_apart_from_every_rules_light() -> None:
    """A refused press, a device fault, the kiosk's call for cards and a card across a
    line are each unlike any other light, by colour and pattern together, so a player
    knows to look at the screen rather than the cards (or, at the kiosk, to lay theirs;
    across a line, to push the card in)."""
    for alert in (L.REFUSED, L.DEVICE_FAULT, L.LAY_CARDS, L.PUSH_CARD):
        others = [light for light in SeatLight if light is not alert]
        assert all((o.pattern, o.colour) != (alert.pattern, alert.colour) for o in others)


def test_the_view_is_pure_a_replay_gives_the_same_lights() -> None:
    table = Table()
    table.push(DealerChosen(W))
    table.push(HandDealt(Card.parse("9H"), HANDS))
    shown = table.push(OrderedUp(E, alone=True))
    again = Game.replay(table.game.rules, table.game.log)
    assert seat_lights(again, table.last) == shown == seat_lights(table.game, table.last)


def test_every_light_has_a_pattern_and_words() -> None:
    for light in SeatLight:
        assert light.words and light.key
        assert (light.colour is None) == (light.pattern is Pattern.OFF)
    assert "N: play (your turn to play (or lead) a card)" in describe(lights(n=L.YOUR_PLAY))
    assert lights() == ALL_OFF


def test_docs_say_what_every_light_means() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "seats.md").read_text(encoding="utf-8")
    for light in SeatLight:
        colour = "" if light.colour is None else light.colour.name.lower()
        row = f"| {light.key} | {light.pattern.value} | {colour} |"
        assert row in doc, f"docs/seats.md has no row starting {row!r}"
