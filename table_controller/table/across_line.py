"""A card lying across a zone's line, as the table shows it to the players (pure).

The camera reports a card lying across a line (vision/across.py): no zone clearly holds
it, so the rules do not see it. The player meant it to count, so the table says whose
card it most likely is and where it goes: the page in words ("Bo (East): push the 9♠
into your play zone"), the seat's light pulsing white (docs/seats.md), and the
director's view of the table a mark (its status carries ``status_of``).

Whose it is comes from the zones it touches and the game: a card already played this
trick is its player's; else a play zone it touches, the seat to act first (it is their
turn: the card is theirs), then the play zone holding most of it; else a trick pile
(its owner's, gathering a trick); else the kitty (the dealer's). The choice is made
afresh every time the table is shown, so it follows the game (the turn moves on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from table_controller.cards import Card
from table_controller.feed.messages import AcrossStatus
from table_controller.present import SEAT_NAMES, AcrossOnPage, card_face, page_card, who
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.inputs import zone_seat
from table_controller.vision.across import CardAcross

# Across a line is "push it into your zone": the table takes it once it lies clearly in.
TAKEN_ONCE_IN = "the table takes it once it lies clearly inside"


@dataclass(frozen=True)
class AcrossLine:
    """A card across a line: the zones it touches (most of it first), the seat to push
    it (None: no seat's, e.g. the kitty before a dealer is known) and where to."""

    card: Card
    zones: tuple[str, ...]
    seat: Seat | None
    into: str

    def page(self, names: Mapping[Seat, str]) -> AcrossOnPage:
        return {
            "card": page_card(self.card),
            "seat": None if self.seat is None else self.seat.name,
            "into": self.into,
            "text": push_sentence(self.card, self.seat, self.into, names),
            "detail": lies_across(self.zones, self.seat),
        }

    def status(self) -> AcrossStatus:
        return {
            "card": self.card.code,
            "seat": None if self.seat is None else self.seat.name,
            "into": self.into,
            "zones": list(self.zones),
        }


def across_lines(game: Game, cards: Sequence[CardAcross]) -> tuple[AcrossLine, ...]:
    """The cards across a line with whose each is, for ``game`` as it is now."""
    return tuple(_line(game, c) for c in cards if c.zones)


def _line(game: Game, across: CardAcross) -> AcrossLine:
    zones = across.zones
    hand = game.hand
    trick = hand.trick if hand is not None else None
    for seat, card in trick.plays if trick is not None else ():
        if card == across.card:  # played already: back into its player's zone
            return AcrossLine(across.card, zones, seat, f"play:{seat.name}")
    plays = [s for s in (zone_seat(z) for z in zones) if s is not None]
    if plays:
        turn = game.to_act
        seat = turn if turn in plays else plays[0]
        return AcrossLine(across.card, zones, seat, f"play:{seat.name}")
    piles = [s for s in (zone_seat(z, "tricks") for z in zones) if s is not None]
    if piles:
        return AcrossLine(across.card, zones, piles[0], f"tricks:{piles[0].name}")
    if "kitty" in zones:
        return AcrossLine(across.card, zones, game.dealer, "kitty")
    return AcrossLine(across.card, zones, None, zones[0])


# --- in words ----------------------------------------------------------------------------


def zone_words(zone: str, yours: Seat | None = None) -> str:
    """A zone as a player says it: "your play zone" (``yours``' own), "East's play
    zone", "the kitty", "your trick pile", "West's trick pile"."""
    for kind, words in (("play", "play zone"), ("tricks", "trick pile")):
        seat = zone_seat(zone, kind)
        if seat is not None:
            return f"your {words}" if seat == yours else f"{SEAT_NAMES[seat]}'s {words}"
    return "the kitty" if zone == "kitty" else f"the {zone.replace(':', ' ')[:40]}"


def push_sentence(card: Card, seat: Seat | None, into: str, names: Mapping[Seat, str]) -> str:
    """What the player is to do: "Bo (East): push the 9♠ into your play zone"; with no
    seat, "Push the 9♠ into the kitty"."""
    where = zone_words(into, seat)
    if seat is None:
        return f"Push the {card_face(card)} into {where}"
    return f"{who(names, seat)}: push the {card_face(card)} into {where}"


def lies_across(zones: Sequence[str], seat: Seat | None) -> str:
    """Why: "It lies across the line between your play zone and the kitty: the table
    takes it once it lies clearly inside"; one zone: "It hangs over the edge of ..."."""
    said = [zone_words(z, seat) for z in zones]
    if len(said) == 1:
        return f"It hangs over the edge of {said[0]}: {TAKEN_ONCE_IN}"
    between = ", ".join(said[:-1]) + " and " + said[-1]
    return f"It lies across the line between {between}: {TAKEN_ONCE_IN}"


def director_words(entry: Mapping[str, object], players: Mapping[str, str]) -> str | None:
    """An ``AcrossStatus`` from a table's status as the director reads it, after the
    dashboard's "Card across a line:": "9♠ between East's play zone and the kitty; Bo
    (East) to push it in"; None when the entry is not one (the status is signed by the
    table, but read defensively)."""
    try:
        card = Card.parse(str(entry.get("card")))
    except ValueError:
        return None
    zones = entry.get("zones")
    if not isinstance(zones, list) or not zones or not all(isinstance(z, str) for z in zones):
        return None
    seat: Seat | None = None
    raw = entry.get("seat")
    if isinstance(raw, str) and raw in ("N", "E", "S", "W"):
        seat = Seat.parse(raw)
    said = [zone_words(z) for z in zones[:4]]
    where = (
        f"over the edge of {said[0]}"
        if len(said) == 1
        else "between " + ", ".join(said[:-1]) + " and " + said[-1]
    )
    text = f"{card_face(card)} {where}"
    if seat is None:
        return text
    name = players.get(seat.name)
    person = f"{name} ({SEAT_NAMES[seat]})" if name else SEAT_NAMES[seat]
    return f"{text}; {person} to push it in"


__all__ = [
    "AcrossLine",
    "across_lines",
    "director_words",
    "lies_across",
    "push_sentence",
    "zone_words",
]
