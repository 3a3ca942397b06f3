"""What each seat's light says: a pure view of the game.

``seat_lights(game, last)`` reads the rules' state (and the output events of the last
input event, for the alerts) and returns one ``SeatLight`` per seat. It does no IO and
keeps no state, so the same game always shows the same lights: after a restart, the
replayed game gives the lights back exactly (``SeatLeds`` then drives the pins).

Every light has a pattern as well as a colour, and the pattern alone carries the
meaning a player needs at that moment, so players who cannot tell red from green (one
man in twelve) read the table too:

- dark: nothing for you;
- a dim glow: a role (you dealt; you sit out while your partner goes alone);
- steady: act now with your cards (play, discard), or, after a hand, your side won it;
- slow blink: your decision (bid; deal the next hand; at the kiosk, lay your five cards),
  or your side won the game;
- fast flash: something is wrong at this seat; a renege flashes red and white in turn
  (never dark), any other irregularity flashes amber and dark.

Alerts last until the next thing happens at the table, i.e. until the next input event:
a renege proven at the end of a hand flashes through the hand's end until the next
deal; an out-of-turn lead flashes until the next card. A renege seen in the open trick,
which may still be taken back (000), flashes for as long as it can be.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from table_controller.rules.events import (
    GameEnded,
    HandScored,
    IrregularityFound,
    OutputEvent,
    RenegeProven,
    RenegeSpotted,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import SEATS, Team

RGB = tuple[float, float, float]


class Colour(Enum):
    """The lights' colours, as RGB LED levels (0 to 1). Chosen to be told apart by
    brightness and by the blue-yellow axis, which red-green colour blindness keeps."""

    WHITE = (1.0, 1.0, 1.0)
    BLUE = (0.0, 0.3, 1.0)
    AMBER = (1.0, 0.45, 0.0)
    RED = (1.0, 0.0, 0.0)
    PURPLE = (0.6, 0.0, 1.0)
    GREEN = (0.0, 1.0, 0.1)

    @property
    def rgb(self) -> RGB:
        return self.value


class Pattern(Enum):
    OFF = "off"
    GLOW = "dim glow"
    STEADY = "steady"
    SLOW_BLINK = "slow blink"
    FAST_FLASH = "fast flash, on and off"
    FAST_ALTERNATE = "fast flash, with white, never dark"


class SeatLight(Enum):
    """What a seat's light says, with its pattern, colour and the words for players."""

    OFF = ("dark", Pattern.OFF, None, "nothing for you now")
    TABLE_READY = ("ready", Pattern.GLOW, Colour.WHITE, "the table is on: choose the first dealer")
    YOUR_BID = ("bid", Pattern.SLOW_BLINK, Colour.BLUE, "your turn to bid: pass, call or alone")
    DEALER = ("dealer", Pattern.GLOW, Colour.AMBER, "you dealt this hand")
    DEAL = ("deal", Pattern.SLOW_BLINK, Colour.AMBER, "you deal next: shuffle and deal")
    DISCARD = (
        "discard",
        Pattern.STEADY,
        Colour.AMBER,
        "dealer: take the turned-up card and discard one face down",
    )
    EXCHANGE = (
        "exchange",
        Pattern.STEADY,
        Colour.AMBER,
        "shooting for 12: pass a card to your partner, or your best card back",
    )
    YOUR_PLAY = ("play", Pattern.STEADY, Colour.WHITE, "your turn to play (or lead) a card")
    LAY_CARDS = (
        "lay your cards",
        Pattern.SLOW_BLINK,
        Colour.WHITE,
        "(the kiosk) take five cards and lay them face up in your play zone for the camera",
    )
    SITTING_OUT = (
        "sitting out",
        Pattern.GLOW,
        Colour.PURPLE,
        "your partner is going alone: lay your cards face down",
    )
    RENEGE = (
        "renege",
        Pattern.FAST_ALTERNATE,
        Colour.RED,
        "a renege by this seat: the cards prove it; the director has been told",
    )
    IRREGULARITY = (
        "irregularity",
        Pattern.FAST_FLASH,
        Colour.AMBER,
        "an irregularity at this seat (out of turn, a dropped card...): see the director",
    )
    REFUSED = (
        "refused",
        Pattern.FAST_FLASH,
        Colour.BLUE,
        "your press was not taken: the table's screen says why and what to do",
    )
    DEVICE_FAULT = (
        "device fault",
        Pattern.SLOW_BLINK,
        Colour.PURPLE,
        "a device needs attention (camera, cube, disk...): the table's screen says what to do",
    )
    HAND_WON = ("hand won", Pattern.STEADY, Colour.GREEN, "your side won the hand just played")
    GAME_WON = ("game won", Pattern.SLOW_BLINK, Colour.GREEN, "your side won the game")

    def __init__(self, key: str, pattern: Pattern, colour: Colour | None, words: str) -> None:
        self.key = key
        self.pattern = pattern
        self.colour = colour
        self.words = words


TableLights = tuple[SeatLight, SeatLight, SeatLight, SeatLight]  # indexed by Seat
ALL_OFF: TableLights = (SeatLight.OFF, SeatLight.OFF, SeatLight.OFF, SeatLight.OFF)


def seat_lights(game: Game, last: Sequence[OutputEvent] = ()) -> TableLights:
    """The four seats' lights for ``game``. ``last`` is what ``Game.push`` returned for
    the latest input event: its reneges and irregularities flash until the next one."""
    lights = _situation(game, last)
    _alerts(game, last, lights)
    return (lights[0], lights[1], lights[2], lights[3])


def _situation(game: Game, last: Sequence[OutputEvent]) -> list[SeatLight]:
    """Whose turn, the dealer, who sits out, who won: everything but the alerts."""
    lights = list(ALL_OFF)
    phase, hand = game.phase, game.hand
    if phase is Phase.OVER:
        if game.match_winner is not None:
            _light_team(lights, game.match_winner, SeatLight.GAME_WON)
        return lights
    ended = next((e for e in last if isinstance(e, GameEnded)), None)
    if ended is not None:  # a game of a match just ended: the next one is to start
        if ended.winner is not None:
            _light_team(lights, ended.winner, SeatLight.GAME_WON)
        return lights
    if phase is Phase.CHOOSING_DEALER:
        return [SeatLight.TABLE_READY] * 4
    if phase is Phase.DEALING:
        scored = next((e for e in reversed(last) if isinstance(e, HandScored)), None)
        if scored is not None:
            ns, ew = scored.points
            if ns != ew:
                _light_team(lights, Team.NS if ns > ew else Team.EW, SeatLight.HAND_WON)
        if game.dealer is not None:
            lights[game.dealer] = SeatLight.DEAL
        return lights
    if hand is None:  # pragma: no cover - every other phase has a hand
        return lights
    if phase in (Phase.BIDDING, Phase.NAMING_TRUMP, Phase.CHOOSING_REMEDY):
        lights[hand.dealer] = SeatLight.DEALER
        if phase is Phase.CHOOSING_REMEDY and hand.offender is not None:
            # 003: after a bid out of turn, the other side chooses (penalty or alone).
            _light_team(lights, hand.offender.team.other, SeatLight.YOUR_BID)
        elif hand.turn is not None:
            lights[hand.turn] = SeatLight.YOUR_BID
        return lights
    if hand.sitting_out is not None:
        lights[hand.sitting_out] = SeatLight.SITTING_OUT
    if phase is Phase.EXCHANGING and hand.maker is not None:
        lights[hand.maker] = lights[hand.maker.partner] = SeatLight.EXCHANGE
    elif phase is Phase.DISCARDING:
        lights[hand.dealer] = SeatLight.DISCARD
    elif phase is Phase.PLAYING:
        to_play = hand.next_to_play()
        if hand.discard_pending and hand.dealer != to_play:
            lights[hand.dealer] = SeatLight.DISCARD  # 003: a lead came before the discard
        if to_play is not None:
            lights[to_play] = SeatLight.YOUR_PLAY
    return lights


def _alerts(game: Game, last: Sequence[OutputEvent], lights: list[SeatLight]) -> None:
    hand = game.hand
    if hand is not None:
        for spotted in hand.spotted:  # 000: may still be taken back
            lights[spotted[0]] = SeatLight.RENEGE
    for event in last:
        if isinstance(event, RenegeProven | RenegeSpotted):
            lights[event.seat] = SeatLight.RENEGE
        elif (
            isinstance(event, IrregularityFound)
            and event.seat is not None
            and lights[event.seat] is not SeatLight.RENEGE
        ):
            lights[event.seat] = SeatLight.IRREGULARITY


def _light_team(lights: list[SeatLight], team: Team, light: SeatLight) -> None:
    for seat in team.seats:
        lights[seat] = light


def describe(lights: TableLights) -> str:
    """The lights in words, one seat a line (for logs and the builder's test)."""
    return "\n".join(f"{seat}: {lights[seat].key} ({lights[seat].words})" for seat in SEATS)


__all__ = [
    "ALL_OFF",
    "RGB",
    "Colour",
    "Pattern",
    "SeatLight",
    "TableLights",
    "describe",
    "seat_lights",
]
