"""A table's history and a renege's evidence, in words, for the director's dashboard.

Why a part of its own: the feed stores each event as the engine encodes it
(``face_up_card_dealt N JS -> first_dealer_set``); the director reads it as a line
("Ann (North) is dealt the J♠ face up; Ann (North) deals first (first jack)"), and a
renege as the two pictures that judge it (the card played and the card that proves
it), captioned, beside the rule it breaks, quoted from the event's rule text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import NotRequired, TypedDict, TypeVar

from table_controller.cards import Card, Suit
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store import AlertRow, StoredEvent
from table_controller.director.words import (
    TEAM_WORDS,
    face,
    irregularity_sentence,
    renege_event,
    seat_label,
    suit_words,
    whole_number,
)
from table_controller.present import (
    FIRST_DEALER_WORDS,
    RESULT_WORDS,
    THROW_IN_WORDS,
    event_words,
    renege_sentence,
)
from table_controller.rules.events import HandResult, HowChosen, RenegeSpotted, ThrowIn
from table_controller.rules.presets import PRESETS
from table_controller.rules.sources import renege_rule, text_title
from table_controller.seats import Seat

Players = Mapping[str, str]
Line = Callable[[JSONObject, Players], str]
E = TypeVar("E", bound=Enum)


class Picture(TypedDict):
    """A picture of an alert's panel: its URL (None: none was sent), its caption and its
    card; ``waiting`` when the table has not sent it yet."""

    url: str | None
    caption: str
    card: str
    waiting: NotRequired[bool]


class TrickPlay(TypedDict):
    """One play of a claimed renege's trick: its picture, caption, and whether it is
    the accused's."""

    url: str | None
    caption: str
    accused: bool
    waiting: NotRequired[bool]


class RuleQuote(TypedDict):
    """The rule an alert's panel quotes, from its preset's text (None: the text has no
    such rule)."""

    text: str | None
    source: str
    preset: str


class Evidence(TypedDict, total=False):
    """An alert's panel: a renege's (``renege_evidence``), a deck alert's
    (``deck_alerts.deck_evidence``), or a claim's rule and trick."""

    title: str
    sentence: str
    hand: int
    offence: Picture | None
    proof: Picture | None
    rule: RuleQuote | None
    trick: list[TrickPlay]


class HistoryLine(TypedDict):
    """One stored event as a table's history shows it (``history_entry``)."""

    seq: int
    game: int
    hand: int | None
    at: float
    text: str
    then: list[str]
    picture: str | None


def _pair(v: object) -> str:
    return f"{v[0]}–{v[1]}" if isinstance(v, list | tuple) and len(v) == 2 else str(v)


def _enum_words(table: Mapping[E, str], enum: type[E], value: object) -> str:
    try:
        return table[enum(value)]
    except ValueError:
        return str(value).replace("_", " ")


def _alone(e: JSONObject) -> str:
    return " alone" if e.get("alone") else ""


INPUT_LINES: dict[str, Line] = {
    "dealer_chosen": lambda e, p: f"{seat_label(p, e.get('seat'))} chosen to deal first",
    "face_up_card_dealt": lambda e, p: (
        f"{seat_label(p, e.get('seat'))} is dealt the {face(e.get('card'))} face up"
    ),
    "card_cut": lambda e, p: f"{seat_label(p, e.get('seat'))} cuts the {face(e.get('card'))}",
    "hand_dealt": lambda e, p: (
        "Cards dealt" + (f"; the upcard is the {face(e['upcard'])}" if e.get("upcard") else "")
    ),
    "passed": lambda e, p: f"{seat_label(p, e.get('seat'))} passes",
    "ordered_up": lambda e, p: f"{seat_label(p, e.get('seat'))} orders it up{_alone(e)}",
    "trump_called": lambda e, p: (
        f"{seat_label(p, e.get('seat'))} calls {suit_words(e.get('trump'))}{_alone(e)}"
    ),
    "bid_made": lambda e, p: f"{seat_label(p, e.get('seat'))} bids {e.get('amount')}",
    "trump_bid": lambda e, p: (
        f"{seat_label(p, e.get('seat'))} bids {e.get('amount')} in {suit_words(e.get('trump'))}"
    ),
    "dealer_discarded": lambda e, p: "The dealer discards",
    "card_played": lambda e, p: f"{seat_label(p, e.get('seat'))} plays the {face(e.get('card'))}",
    "card_taken_back": lambda e, p: (
        f"{seat_label(p, e.get('seat'))} takes back the {face(e.get('card'))}"
    ),
    "renege_claimed": lambda e, p: (
        f"{seat_label(p, e.get('by'))} claims {seat_label(p, e.get('against'))} reneged"
        + (f" in trick {e['trick']}" if isinstance(e.get("trick"), int) else "")
    ),
    "card_dropped": lambda e, p: f"{seat_label(p, e.get('seat'))} drops the {face(e.get('card'))}",
    "score_adjusted": lambda e, p: (
        f"The director gives {TEAM_WORDS.get(str(e.get('team')), e.get('team'))} "
        f"{e.get('points')} points: {e.get('reason')}"
    ),
    "hand_voided": lambda e, p: f"The director voids the hand: {e.get('reason')}",
}

OUTPUT_LINES: dict[str, Line] = {
    "first_dealer_set": lambda o, p: (
        f"{seat_label(p, o.get('seat'))} deals first "
        f"({_enum_words(FIRST_DEALER_WORDS, HowChosen, o.get('how'))})"
    ),
    "hand_started": lambda o, p: (
        f"Hand {o.get('hand')}: {seat_label(p, o.get('dealer'))} deals"
        + (f", the upcard is the {face(o['upcard'])}" if o.get("upcard") else "")
    ),
    "hand_thrown_in": lambda o, p: (
        f"Hand {o.get('hand')} thrown in "
        f"({_enum_words(THROW_IN_WORDS, ThrowIn, o.get('reason'))}); "
        f"{seat_label(p, o.get('next_dealer'))} deals next"
    ),
    "trump_set": lambda o, p: (
        f"Trump is {suit_words(o.get('trump'))}, made by {seat_label(p, o.get('maker'))}"
        + _alone(o)
    ),
    "trick_won": lambda o, p: f"Trick {o.get('trick')} won by {seat_label(p, o.get('winner'))}",
    "renege_proven": lambda o, p: _renege_line(o, p),
    "renege_spotted": lambda o, p: _spotted_line(o, p),
    "irregularity_found": lambda o, p: irregularity_sentence(o, p),
    "hand_scored": lambda o, p: (
        f"Hand {o.get('hand')} "
        f"{_enum_words(RESULT_WORDS, HandResult, o.get('result'))}: points "
        f"{_pair(o.get('points'))}, the score {_pair(o.get('scores'))}"
    ),
    "penalty_scored": lambda o, p: (
        f"Penalty: {TEAM_WORDS.get(str(o.get('team')), o.get('team'))} "
        f"{o.get('points')} points; the score {_pair(o.get('scores'))}"
    ),
    "score_corrected": lambda o, p: f"Score corrected to {_pair(o.get('scores'))}",
    "game_ended": lambda o, p: (
        "Game over"
        + (f": {TEAM_WORDS.get(str(o.get('winner')), '')} win" if o.get("winner") else "")
        + (f", {_pair(o.get('scores'))}" if o.get("scores") else "")
    ),
}


def _renege_line(o: JSONObject, players: Players) -> str:
    ev = renege_event(o)
    if ev is None:
        return "Renege proven"
    return "Renege proven: " + renege_sentence(ev, seat_label(players, ev.seat))


def _spotted_line(o: JSONObject, players: Players) -> str:
    try:
        ev = RenegeSpotted(
            seat=Seat.parse(str(o["seat"])),
            trick=whole_number(o["trick"]),
            suit=Suit.parse(str(o["suit"])),
            held=Card.parse(str(o["held"])),
        )
    except (KeyError, TypeError, ValueError):
        return "Renege spotted"
    return "Renege spotted: " + renege_sentence(ev, seat_label(players, ev.seat))


def input_line(inp: JSONObject, players: Players) -> str:
    name = str(inp.get("event"))
    line = INPUT_LINES.get(name)
    return line(inp, players) if line is not None else event_words(name)


def output_line(out: JSONObject, players: Players) -> str:
    name = str(out.get("event"))
    line = OUTPUT_LINES.get(name)
    return line(out, players) if line is not None else event_words(name)


def history_entry(ev: StoredEvent, players: Players, table: str) -> HistoryLine:
    """One stored event as the dashboard's history shows it: ``text`` (the input),
    ``then`` (what the rules made of it), and its picture's URL if there is one."""
    inp = ev.get("input") or {}
    outs = [o for o in ev.get("outputs") or [] if isinstance(o, dict)]
    return {
        "seq": ev.get("seq"),
        "game": ev.get("game"),
        "hand": ev.get("hand"),
        "at": ev.get("at"),
        "text": input_line(inp, players),
        "then": [output_line(o, players) for o in outs],
        "picture": f"/evidence/{table}/{ev.get('game')}/{ev.get('seq')}.png"
        if ev.get("evidence")
        else None,
    }


def hands_of(events: Sequence[StoredEvent]) -> dict[int, int | None]:
    """Each event's hand, by seq: the hand it was part of (the stored ``hand`` is the
    hand in play after the event, None once a renege or the last trick ended it)."""
    out: dict[int, int | None] = {}
    current: int | None = None
    for ev in events:
        for o in ev.get("outputs") or []:
            if isinstance(o, dict) and o.get("event") == "hand_started":
                hand = o.get("hand")
                current = hand if isinstance(hand, int) else None
        out[ev.get("seq")] = current
    return out


def played_pictures(
    events: Sequence[StoredEvent], table: str, game: int
) -> dict[tuple[int | None, str, str], tuple[str | None, StoredEvent]]:
    """Each card played, by (hand, seat, card): its picture's URL (None without one)
    and its stored event."""
    hands = hands_of(events)
    out: dict[tuple[int | None, str, str], tuple[str | None, StoredEvent]] = {}
    for ev in events:
        inp = ev.get("input") or {}
        if inp.get("event") == "card_played":
            url = f"/evidence/{table}/{game}/{ev.get('seq')}.png" if ev.get("evidence") else None
            key = (hands.get(ev.get("seq")), str(inp.get("seat")), str(inp.get("card")))
            out[key] = (url, ev)
    return out


def _seq_of(events: Sequence[StoredEvent], hand: int, seat: str, card: str) -> StoredEvent | None:
    """The stored event of ``seat`` playing ``card`` in ``hand``."""
    hands = hands_of(events)
    for ev in events:
        inp = ev.get("input") or {}
        if (
            hands.get(ev.get("seq")) == hand
            and inp.get("event") == "card_played"
            and inp.get("seat") == seat
            and inp.get("card") == card
        ):
            return ev
    return None


def _upcard_event(events: Sequence[StoredEvent], hand: int, card: str) -> StoredEvent | None:
    """The deal of ``hand`` if ``card`` was its upcard (turned face up for everyone)."""
    for ev in events:
        for o in ev.get("outputs") or []:
            if (
                isinstance(o, dict)
                and o.get("event") == "hand_started"
                and o.get("hand") == hand
                and o.get("upcard") == card
            ):
                return ev
    return None


def renege_evidence(
    alert: AlertRow,
    events: Sequence[StoredEvent],
    players: Players,
    title: str,
    rules_name: str,
) -> Evidence | None:
    """A renege alert's evidence: the offending play's picture and the proof's, each
    captioned in words, and the rule quoted from the preset's text. None when the
    alert's event does not prove a renege."""
    table, game, seq = alert.get("table"), alert.get("game"), alert.get("seq")
    raised = next((e for e in events if e.get("seq") == seq), None)
    if raised is None:
        return None
    ev = next(
        (
            r
            for o in raised.get("outputs") or []
            if o.get("event") == "renege_proven" and (r := renege_event(o)) is not None
        ),
        None,
    )
    if ev is None:
        return None
    who = players.get(ev.seat.name) or seat_label(players, ev.seat)

    def picture(e: StoredEvent | None) -> str | None:
        if e is None or not e.get("evidence"):
            return None
        return f"/evidence/{table}/{game}/{e.get('seq')}.png"

    offence = _seq_of(events, ev.hand, ev.seat.name, ev.played.code)
    proof = _seq_of(events, ev.hand, ev.seat.name, ev.proof.code)
    if proof is not None and ev.proof_trick != ev.trick:
        proof_caption = f"Proof: trick {ev.proof_trick}, {who} played the {ev.proof.pretty}"
    elif (upcard := _upcard_event(events, ev.hand, ev.proof.code)) is not None:
        proof = upcard  # the dealer picked it up: the deal's picture shows it face up
        proof_caption = f"Proof: the {ev.proof.pretty} was the upcard, picked up by {who}"
    else:
        proof = None
        proof_caption = f"Proof: the {ev.proof.pretty} was known to be in {who}'s hand"
    preset = PRESETS.get(rules_name)
    evidence: Evidence = {
        "title": title,
        "sentence": renege_sentence(ev, seat_label(players, ev.seat)),
        "hand": ev.hand,
        "offence": {
            "url": picture(offence),
            "caption": f"Trick {ev.trick}: {who} played the {ev.played.pretty}",
            "card": ev.played.pretty,
        },
        "proof": {"url": picture(proof), "caption": proof_caption, "card": ev.proof.pretty},
        "rule": None
        if preset is None
        else {
            "text": renege_rule(preset.source),
            "source": text_title(preset.source),
            "preset": preset.title,
        },
    }
    return evidence


def claimed_trick(
    alert: AlertRow, events: Sequence[StoredEvent], players: Players
) -> list[TrickPlay]:
    """A renege claim's trick, card by card: each play's picture and caption, the
    accused's marked, for the director to judge the claim (empty without a trick)."""
    table, game, seq = alert.get("table"), alert.get("game"), alert.get("seq")
    claim = next((e for e in events if e.get("seq") == seq), None)
    inp = (claim["input"] if claim is not None else None) or {}
    trick = inp.get("trick")
    if claim is None or not isinstance(trick, int):
        return []
    hand = hands_of(events).get(seq) if seq is not None else None
    plays: list[JSONValue] = []  # the outputs as the table sent them (not checked on the way in)
    for ev in events:
        for o in ev.get("outputs") or []:
            if (
                isinstance(o, dict)
                and o.get("event") == "trick_won"
                and o.get("hand") == hand
                and o.get("trick") == trick
            ):
                found = o.get("plays") or []
                plays = list(found) if isinstance(found, list) else []
    pictures = played_pictures(events, str(table), int(game or 0))
    out: list[TrickPlay] = []
    for n, play in enumerate(plays):
        if not isinstance(play, list) or len(play) < 2:
            continue  # not a [seat, card] pair: nothing to show of it
        seat, card = str(play[0]), str(play[1])
        url = pictures.get((hand, seat, card), (None, None))[0]
        verb = "led" if n == 0 else "played"
        out.append(
            {
                "url": url,
                "caption": f"Trick {trick}: {seat_label(players, seat)} {verb} the {face(card)}",
                "accused": seat == inp.get("against"),
            }
        )
    return out


__all__ = [
    "Evidence",
    "HistoryLine",
    "Picture",
    "RuleQuote",
    "TrickPlay",
    "claimed_trick",
    "hands_of",
    "history_entry",
    "input_line",
    "output_line",
    "played_pictures",
    "renege_evidence",
]
