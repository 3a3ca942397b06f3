"""What a seat's light can say: each ``SeatLight`` with its pattern, colour and words.

The lights' vocabulary, nothing of the game: ``table/seat_state.py`` reads the rules'
state and chooses one ``SeatLight`` per seat, and ``SeatLeds`` drives the pins.

Every light has a pattern as well as a colour, and the pattern alone carries the
meaning a player needs at that moment, so players who cannot tell red from green (one
man in twelve) read the table too:

- dark: nothing for you;
- a dim glow: a role (you dealt; you sit out while your partner goes alone);
- steady: act now with your cards (play, discard), or, after a hand, your side won it;
- slow blink: your decision (bid; deal the next hand; at the kiosk, lay your five cards),
  or your side won the game;
- pulse (fading up and down, never a hard on or off): your card lies across a line,
  push it into your zone;
- fast flash: something is wrong at this seat; a renege flashes red and white in turn
  (never dark), any other irregularity flashes amber and dark.
"""

from __future__ import annotations

from enum import Enum

from table_controller.seats import SEATS

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
    PULSE = "pulse, fading up and down"
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
    PUSH_CARD = (
        "push your card",
        Pattern.PULSE,
        Colour.WHITE,
        "your card lies across a line: push it into your zone (the screen says which card)",
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
]
