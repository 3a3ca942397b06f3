"""The director's words: a table by its name, its score by its players, the phase,
whose turn and trump as a person says them, and each alert as a sentence with card faces
("Table 2: Ann (South) did not follow ♣ clubs in trick 3, ..."), for the dashboard, the
hall, the fleet view, the results and the alerts the store raises.

Why at the director's top and not in ``dashboard/``: the store words each alert as it
raises it, and the store is below every feature. Why here and not in the page's script:
the words are made once, from the engine's own enums (``table_controller.present.words``), for
every screen; the page only places them. A director reads these across a room, so
nothing here is ever a code (``choosing_dealer``, ``JH``, ``table-1`` where a name
exists).
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from table_controller.cards import Card, Suit
from table_controller.present import (
    IRREGULARITY_WORDS,
    REMEDY_WORDS,
    SEAT_NAMES,
    SUIT_NAMES,
    card_face,
    phase_words,
    renege_sentence,
    suit_text,
)
from table_controller.rules.events import Irregularity, Remedy, RenegeProven
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.across_line import director_words

if TYPE_CHECKING:
    from table_controller.director.json_value import JSONValue
    from table_controller.director.store import AlertRow, StoredEvent, TableRow

# The alert kinds as the dashboard's DOM names them (SPEC: ``data-kind``).
ALERT_CATEGORY = {
    "renege_proven": "renege_proven",
    "renege_claimed": "renege_claimed",
    "irregularity_found": "irregularity",
    "table_offline": "offline",
    "camera_fault": "fault",
    "cube_fault": "fault",
    "clock": "clock",
    "game_reused": "game_reused",
    "signature": "signature",
    "replay": "replay",
    "flood": "flood",
    "copied_card": "copied_card",
}
ALERT_HEADINGS = {
    "renege_proven": "Renege proven",
    "renege_claimed": "Renege claimed",
    "irregularity": "Irregularity",
    "offline": "Table offline",
    "fault": "Camera or cube fault",
    "clock": "Table clock off",
    "game_reused": "A game number used again",
    "signature": "A message not signed by its table",
    "replay": "A table's message sent again",
    "flood": "A table sending too much",
    "copied_card": "Two machines as one table",
}
# How far a table's clock may be from the director's (seconds) before it is alerted and
# shown on the table's card: evidence times and latency figures are read against the
# director's clock, and a second or two is within what a person notices; NTP keeps a Pi
# within milliseconds, so beyond this its network time is off.
CLOCK_LIMIT = 2.0
TEAM_SEATS = {"NS": ("N", "S"), "EW": ("E", "W")}
TEAM_WORDS = {"NS": "North–South", "EW": "East–West"}
# What the player whose turn it is does, by phase.
TURN_VERBS = {
    Phase.BIDDING: "to bid",
    Phase.NAMING_TRUMP: "to name trump",
    Phase.DISCARDING: "to discard",
    Phase.EXCHANGING: "to exchange",
    Phase.PLAYING: "to play",
    Phase.CHOOSING_REMEDY: "to choose the remedy",
    Phase.DEALING: "to deal",
}


class TeamLine(TypedDict):
    """A team on a table's card: its names (or seats) and its score."""

    team: str
    names: str
    score: int


class ClockTexts(TypedDict):
    """A table's clock against the director's, for its card and its detail."""

    clock_text: str
    clock_detail: str


class TableWords(ClockTexts):
    """A table's overview in words (``table_words``), beside its row on the dashboard."""

    title: str
    teams: list[TeamLine]
    phase_text: str
    turn_text: str
    trump_text: str
    trump_red: bool
    hand_text: str
    online_text: str
    across_texts: list[str]


def table_title(table: str, name: object) -> str:
    """A table as a person reads it: its name from its status, else its id."""
    return name.strip() if isinstance(name, str) and name.strip() else table


@functools.lru_cache(maxsize=4096)
def title_order(title: str) -> tuple[tuple[int, int, str], ...]:
    """A title's sort key: "Table 2" before "Table 10". Kept: the dashboard sorts every
    table by it at every snapshot (up to 20 a second), and titles seldom change."""
    return tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", title)
    )


def seat_label(players: Mapping[str, str], seat: object) -> str:
    """A seat with its player: "Ann (North)"; the seat alone ("North") with no name."""
    if seat is None:
        return ""
    try:
        s = seat if isinstance(seat, Seat) else Seat.parse(str(seat))
    except ValueError:
        return str(seat)
    name = players.get(s.name)
    return f"{name} ({SEAT_NAMES[s]})" if name else SEAT_NAMES[s]


def team_names(players: Mapping[str, str], team: str) -> str:
    """A team by its players ("Ann & Cy"), else by its seats ("North–South")."""
    names = [players[s] for s in TEAM_SEATS[team] if players.get(s)]
    return " & ".join(names) if names else TEAM_WORDS[team]


def face(code: object) -> str:
    """A card's face ("J♥") from its code; anything not a card as it is."""
    try:
        return card_face(str(code))
    except (ValueError, KeyError):
        return str(code)


def _suit(code: object) -> Suit | None:
    try:
        return Suit.parse(str(code))
    except ValueError:
        return None


def table_words(t: TableRow, game: Game | None) -> TableWords:
    """A table's overview in words: ``title``, ``teams`` (names and score), ``phase_text``,
    ``turn_text``, ``trump_text`` (and ``trump_red``), ``hand_text``, ``online_text``,
    ``across_texts`` (each card its camera sees across a zone's line, while online).
    ``game`` is the replayed game (live); without it, the table's last status."""
    players: Mapping[str, str] = t.get("players") or {}
    scores = list(game.team_scores()) if game is not None else t.get("scores") or [0, 0]
    phase: Phase | str | None = game.phase if game is not None else t.get("phase")
    turn = trump = ""
    trump_red = False
    hand_no = t.get("hand")
    if game is not None:
        hand = game.hand
        shown = hand or game.last_hand
        hand_no = shown.number if shown is not None else hand_no
        seat = game.dealer if game.phase is Phase.DEALING else game.to_act
        verb = TURN_VERBS.get(game.phase)
        if seat is not None and verb:
            turn = f"{seat_label(players, seat)} {verb}"
        if hand is not None and hand.trump_set:
            suit = hand.trump
            trump = "No trump" if suit is None else f"{suit.symbol} {SUIT_NAMES[suit]}"
            trump_red = suit in (Suit.D, Suit.H)
    where = []
    if isinstance(t.get("game"), int) or game is not None:
        where.append(f"Game {t.get('game') or ''}".strip())
    if isinstance(hand_no, int):
        where.append(f"hand {hand_no}")
    return {
        "title": table_title(str(t.get("table", "")), t.get("name")),
        "teams": [
            {"team": team, "names": team_names(players, team), "score": _int(scores, i)}
            for i, team in enumerate(("NS", "EW"))
        ],
        "phase_text": phase_words(phase),
        "turn_text": turn,
        "trump_text": trump,
        "trump_red": trump_red,
        "hand_text": ", ".join(where),
        "online_text": "Online" if t.get("online") else "OFFLINE",
        "across_texts": _across_texts(t) if t.get("online") else [],
        **clock_texts(t.get("clock_offset")),
    }


def _across_texts(t: TableRow) -> list[str]:
    players: Mapping[str, str] = t.get("players") or {}
    said = (director_words(a, players) for a in t.get("across") or [] if isinstance(a, Mapping))
    return [text for text in said if text is not None]


def clock_words(offset: float) -> str:
    """A clock offset as a person says it: "47 s ahead", "0.2 s behind" (tenths under
    ten seconds, where they matter; whole seconds above, where they do not)."""
    size = abs(offset)
    amount = f"{size:.1f}" if size < 10 else f"{size:.0f}"
    if amount in ("0.0", "-0.0"):
        return "the same"
    return f"{amount} s {'ahead' if offset > 0 else 'behind'}"


def clock_compared(offset: float) -> str:
    """The offset against the director's clock: "47 s ahead of the director's", "0.2 s
    behind the director's", "the same as the director's"."""
    said = clock_words(offset)
    if said == "the same":
        return "the same as the director's"
    return f"{said} of the director's" if offset > 0 else f"{said} the director's"


def clock_texts(offset: float | None) -> ClockTexts:
    """``clock_text`` for the table's card, only when over ``CLOCK_LIMIT`` (a card
    shows what needs doing), and ``clock_detail`` for the table's detail, always once
    known ("" before the table's first heartbeat)."""
    if offset is None or type(offset) not in (int, float):
        return {"clock_text": "", "clock_detail": ""}
    card = f"Clock {clock_words(float(offset))}" if abs(offset) > CLOCK_LIMIT else ""
    return {"clock_text": card, "clock_detail": f"Clock: {clock_compared(float(offset))}"}


def _int(values: Sequence[int], i: int) -> int:
    try:
        return int(values[i])
    except (TypeError, ValueError, IndexError):
        return 0


def whole_number(value: JSONValue) -> int:
    """``int(value)`` of a value read from JSON: TypeError for a list, an object or null."""
    if value is None or isinstance(value, list | dict):
        raise TypeError(f"{value!r} is not a number")
    return int(value)


def renege_event(o: Mapping[str, JSONValue]) -> RenegeProven | None:
    """A stored ``renege_proven`` output back as the engine's event (None if unreadable)."""
    try:
        return RenegeProven(
            hand=whole_number(o["hand"]),
            seat=Seat.parse(str(o["seat"])),
            trick=whole_number(o["trick"]),
            suit=Suit.parse(str(o["suit"])),
            played=Card.parse(str(o["played"])),
            proof=Card.parse(str(o["proof"])),
            proof_trick=whole_number(o["proof_trick"]),
        )
    except (KeyError, TypeError, ValueError):
        return None


def alert_sentence(
    alert: AlertRow,
    title: str,
    players: Mapping[str, str],
    event: StoredEvent | None,
) -> str:
    """The alert as one sentence for the director, beginning with the table's name.
    ``event``: the stored event that raised it (None for a status's alert)."""
    kind = str(alert.get("kind"))
    table = str(alert.get("table", ""))
    text = str(alert.get("text") or "")
    if event is not None and kind == "renege_proven":
        for o in event.get("outputs") or []:
            ev = renege_event(o) if o.get("event") == "renege_proven" else None
            if ev is not None:
                return f"{title}: {renege_sentence(ev, seat_label(players, ev.seat))}"
    if event is not None and kind == "renege_claimed":
        inp = event.get("input") or {}
        trick = inp.get("trick")
        where = f" in trick {trick}" if isinstance(trick, int) else " in this hand"
        return (
            f"{title}: {seat_label(players, inp.get('by'))} claims "
            f"{seat_label(players, inp.get('against'))} reneged{where}"
        )
    if event is not None and kind == "irregularity_found":
        for o in event.get("outputs") or []:
            if o.get("event") == "irregularity_found":
                return f"{title}: {irregularity_sentence(o, players)}"
    if kind in ("table_offline", "clock") and table and text.startswith(table):
        return title + text[len(table) :]
    if kind == "copied_card" and text.startswith(title):
        return text  # it names the table itself: "Table 1 is reported by two machines"
    return f"{title}: {text}" if text else title


def irregularity_sentence(o: Mapping[str, JSONValue], players: Mapping[str, str]) -> str:
    """An irregularity found, in words: what, by whom, with which card, and the remedy."""
    try:
        what = IRREGULARITY_WORDS[Irregularity(o.get("kind"))]
    except ValueError:
        what = str(o.get("kind") or "an irregularity").replace("_", " ").capitalize()
    who = seat_label(players, o.get("seat")) if o.get("seat") else ""
    out = what + (f" by {who}" if who else "")
    if o.get("card"):
        out += f", the {face(o['card'])}"
    if isinstance(o.get("trick"), int):
        out += f" in trick {o['trick']}"
    with contextlib.suppress(ValueError):
        out += f": {REMEDY_WORDS[Remedy(o.get('remedy'))]}"
    return out


def suit_words(code: object) -> str:
    """A suit from its code in a sentence ("♣ clubs"), "no trump" for none."""
    suit = _suit(code)
    return suit_text(suit) if suit is not None else "no trump"


__all__ = [
    "ALERT_CATEGORY",
    "ALERT_HEADINGS",
    "CLOCK_LIMIT",
    "ClockTexts",
    "TableWords",
    "TeamLine",
    "alert_sentence",
    "clock_compared",
    "clock_texts",
    "clock_words",
    "face",
    "irregularity_sentence",
    "renege_event",
    "seat_label",
    "suit_words",
    "table_title",
    "table_words",
    "team_names",
    "title_order",
    "whole_number",
]
