"""A game told as a score sheet: each hand's bidding, tricks and score, the notes a
director reads (reneges with the camera's picture, rulings, penalties, claims) and how
the game ended, by replaying its events under the rules it was played under.

The replay (``replay_game``) takes a game's events and pictures from wherever they are
kept: the table's own log (table/log/export.py prints the sheet from it) and the
director's store (the results' papers print the same sheet), so both tell a game the
same way. Pure: the pictures come through the ``Evidence`` callable given.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from table_controller.cards import Card, Suit
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.present.words import (
    FIRST_DEALER_WORDS,
    IRREGULARITY_WORDS,
    REMEDY_WORDS,
    RESULT_WORDS,
    SEAT_NAMES,
    THROW_IN_WORDS,
    reason_words,
    renege_sentence,
    suit_text,
)
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    CardPlayed,
    ClaimJudged,
    FirstDealerSet,
    GameEnded,
    HandScored,
    HandStarted,
    HandThrownIn,
    IrregularityFound,
    MatchWon,
    OutputEvent,
    PenaltyScored,
    PlayoffStarted,
    RenegeProven,
    RenegeSpotted,
    ScoreCorrected,
    TrumpSet,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import PRESETS, preset
from table_controller.rules.replay import OnError, replay
from table_controller.seats import Seat, Team


def started_text(started: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(started))


# --- the game, replayed into hands ----------------------------------------------------


@dataclass
class Note:
    """A renege, an irregularity, a penalty or a claim, with its evidence images."""

    kind: str
    text: str
    images: list[tuple[str, bytes | None]] = field(default_factory=list)  # caption, PNG


@dataclass
class HandLine:
    game: int
    number: int
    dealer: Seat
    upcard: Card | None
    trump: Suit | None = None
    trump_set: bool = False
    maker: Seat | None = None
    alone: bool = False
    bid: int | None = None
    tricks: tuple[int, int] | None = None
    result: str = "in play"
    points: tuple[int, int] | None = None
    scores: tuple[int, int] | None = None
    individual: tuple[int, int, int, int] | None = None
    notes: list[Note] = field(default_factory=list)


@dataclass
class Sheet:
    """A game replayed for the score sheet."""

    record: GameRecord
    first_dealer: str = ""
    hands: list[HandLine] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # before the first hand
    endings: list[str] = field(default_factory=list)  # games ended, match won
    problems: list[str] = field(default_factory=list)
    events: int = 0
    game: Game | None = None
    named: bool = False  # a renege's sentence names the player ("Hal (South)")


Evidence = Callable[[int], bytes | None]  # an event's seq -> its camera image (PNG)


def replay_game(
    record: GameRecord,
    events: Sequence[LoggedEvent],
    problems: Sequence[str],
    image: Evidence,
    *,
    named: bool = False,
) -> Sheet:
    """A game replayed with its rules, hand by hand, from its events wherever they are
    kept: a table's log (``replay_sheet``) or the director's store (the results'
    export). ``problems``: the events that could not be read; ``image``: an event's
    evidence picture by its seq; ``named``: a renege's sentence names the player, not
    only the seat."""
    sheet = Sheet(record, named=named)
    sheet.problems += problems
    try:
        rules = preset(record.rules_name, record.options)
    except RulesError as exc:
        sheet.problems.append(f"the game's rules cannot be used: {exc}")
        return sheet
    # Skipped as the table skipped them at every start (resume.py).
    replayed = replay(rules, [e.event for e in events], on_error=OnError.SKIP)
    sheet.game = replayed.game
    sheet.events = len(replayed.steps)
    sheet.problems += [
        f"event {events[p.index].seq} was not replayed: {p.text}" for p in replayed.problems
    ]
    number = 1  # the game of the match being played
    laid: dict[Card, int] = {}  # card -> seq of the event that played it, this hand
    for step in replayed.steps:
        logged = events[step.index]
        if isinstance(step.event, CardPlayed):
            laid[step.event.card] = logged.seq
        for out in step.outputs:
            if isinstance(out, HandStarted):
                laid = {}
                sheet.hands.append(HandLine(number, out.hand, out.dealer, out.upcard))
            elif isinstance(out, GameEnded):
                number = out.game + 1  # a match goes on with the next game
            _apply(sheet, image, logged.seq, logged.has_evidence, out, laid)
    return sheet


def _apply(
    sheet: Sheet,
    image: Evidence,
    seq: int,
    has_evidence: bool,
    out: OutputEvent,
    laid: dict[Card, int],
) -> None:
    hand = sheet.hands[-1] if sheet.hands else None
    if isinstance(out, FirstDealerSet):
        sheet.first_dealer = f"{SEAT_NAMES[out.seat]} ({FIRST_DEALER_WORDS[out.how]})"
    elif isinstance(out, TrumpSet) and hand is not None:
        hand.trump, hand.trump_set, hand.maker = out.trump, True, out.maker
        hand.alone, hand.bid = out.alone, out.bid
    elif isinstance(out, HandScored) and hand is not None:
        hand.tricks, hand.result = out.tricks, RESULT_WORDS[out.result]
        hand.points, hand.scores, hand.individual = out.points, out.scores, out.individual
    elif isinstance(out, HandThrownIn) and hand is not None:
        hand.result = "thrown in: " + THROW_IN_WORDS[out.reason]
    elif isinstance(out, PlayoffStarted):
        kind = "a sudden-death hand" if out.sudden_death else f"a {out.hands}-hand playoff"
        sheet.endings.append(f"Tied: {kind}")
    elif isinstance(out, GameEnded):
        who = "a tie" if out.winner is None else f"{_team(sheet.record, out.winner)} won"
        sheet.endings.append(
            f"Game {out.game} over: {who}, North-South {out.scores[0]}, East-West {out.scores[1]}"
        )
    elif isinstance(out, MatchWon):
        sheet.endings.append(
            f"Match won by {_team(sheet.record, out.winner)}, {out.games[0]} games to "
            f"{out.games[1]}"
        )
    else:
        note = event_note(sheet.record, out, image, seq, has_evidence, laid=laid, named=sheet.named)
        if note is not None:
            (hand.notes if hand is not None else sheet.notes).append(note)


def event_note(
    record: GameRecord,
    out: OutputEvent,
    image: Evidence,
    seq: int,
    has_evidence: bool,
    *,
    laid: Mapping[Card, int],
    named: bool = False,
) -> Note | None:
    """The note a director reads for ``out`` (a renege, an irregularity, a penalty, a
    ruling, a claim) with its evidence pictures, or None for any other event. ``seq``:
    the event whose outputs hold ``out`` (``has_evidence``: logged with a picture);
    ``laid``: the seq of the event that played each card of the hand so far. The score
    sheet and the hand review both note a hand's events with it, so both say them alike."""
    if isinstance(out, RenegeProven):
        images = [
            (
                f"{_who(record, out.seat)} played the {out.played.pretty} in trick "
                f"{out.trick}, {suit_text(out.suit)} led",
                _image(image, laid.get(out.played)),
            ),
        ]
        if out.proof_trick != out.trick:  # the proof was played, not known from the hand
            images.append(
                (
                    f"{_who(record, out.seat)} later played the {out.proof.pretty} "
                    f"in trick {out.proof_trick}",
                    _image(image, laid.get(out.proof)),
                )
            )
        who = _who(record, out.seat) if named else None
        return Note("renege", f"Renege: {renege_sentence(out, who)}", images)
    if isinstance(out, RenegeSpotted):
        return Note(
            "renege",
            renege_sentence(out, _who(record, out.seat) if named else None),
            [("the card played", _image(image, seq))] if has_evidence else [],
        )
    if isinstance(out, IrregularityFound):
        who = f" ({SEAT_NAMES[out.seat]})" if out.seat is not None else ""
        return Note(
            "irregularity",
            f"{IRREGULARITY_WORDS[out.kind]}{who}: {out.detail}; "
            f"remedy: {REMEDY_WORDS[out.remedy]}",
            [("what the camera saw", _image(image, seq))] if has_evidence else [],
        )
    if isinstance(out, PenaltyScored):
        return Note(
            "penalty",
            f"Penalty: {_team(record, out.team)} {out.points:+d} "
            f"({reason_words(out.reason)}); score {out.scores[0]}-{out.scores[1]}"
            + (
                "; players " + " ".join(str(x) for x in out.individual)
                if out.individual is not None
                else ""
            ),
        )
    if isinstance(out, ScoreCorrected):
        return Note(
            "ruling",
            f"Director's ruling: {_team(record, out.team)} {out.points:+d} "
            f"({out.reason}); score {out.scores[0]}-{out.scores[1]}",
        )
    if isinstance(out, ClaimJudged):
        return Note(
            "claim",
            f"{SEAT_NAMES[out.seat]} laid the hand down: {out.certain} of {out.remaining} "
            "tricks certain",
        )
    return None


def _image(image: Evidence, seq: int | None) -> bytes | None:
    return None if seq is None else image(seq)


def _who(record: GameRecord, seat: Seat) -> str:
    """A seat as a person reads it: "Di (West)", or "West" when no name was recorded."""
    name = record.players.get(seat)
    return f"{name} ({SEAT_NAMES[seat]})" if name else SEAT_NAMES[seat]


def _team(record: GameRecord, team: Team) -> str:
    label = "North-South" if team is Team.NS else "East-West"
    names = [record.players[s] for s in team.seats if record.players.get(s)]
    return f"{label} ({' & '.join(names)})" if names else label


def rules_text(record: GameRecord) -> str:
    """The rules a game was played under, as the sheet names them."""
    rules = PRESETS.get(record.rules_name)
    text = record.rules_name + (f" ({rules.title})" if rules else "")
    if record.options:
        text += "; options: " + ", ".join(
            f"{k} = {json.dumps(v)}" for k, v in sorted(record.options.items())
        )
    return text


@dataclass
class HandsTable:
    """The hands as the sheet's table draws them: its headings, and each hand's cells
    with the notes (reneges, penalties) that go under it."""

    heads: list[str]
    rows: list[tuple[list[str], list[Note]]]


def hands_table(sheet: Sheet) -> HandsTable:
    several = any(h.game != 1 for h in sheet.hands)
    bidding = any(h.bid is not None for h in sheet.hands)
    progressive = any(h.individual is not None for h in sheet.hands)
    heads = ["Game"] if several else []
    heads += ["Hand", "Dealer", "Upcard", "Trump", "Maker"]
    heads += ["Bid"] if bidding else []
    heads += ["Tricks NS-EW", "Result", "Points NS-EW", "Score NS-EW"]
    heads += ["Players N E S W"] if progressive else []
    rows: list[tuple[list[str], list[Note]]] = []
    for h in sheet.hands:
        cells = [str(h.game)] if several else []
        cells += [
            str(h.number),
            _seat_name(sheet.record, h.dealer),
            h.upcard.pretty if h.upcard is not None else "",
            suit_text(h.trump) if h.trump_set else "",
            (_seat_name(sheet.record, h.maker) + (" alone" if h.alone else ""))
            if h.maker is not None
            else "",
        ]
        cells += [str(h.bid) if h.bid is not None else ""] if bidding else []
        cells += [
            _pair(h.tricks),
            h.result,
            _pair(h.points, signed=True),
            _pair(h.scores),
        ]
        if progressive:
            cells.append(" ".join(str(x) for x in h.individual) if h.individual else "")
        rows.append((cells, h.notes))
    return HandsTable(heads, rows)


def _seat_name(record: GameRecord, seat: Seat) -> str:
    name = record.players.get(seat)
    return f"{seat} {name}" if name else SEAT_NAMES[seat]


def _pair(pair: tuple[int, int] | None, *, signed: bool = False) -> str:
    if pair is None:
        return ""
    return f"{pair[0]:+d} / {pair[1]:+d}" if signed else f"{pair[0]} - {pair[1]}"


def final_text(sheet: Sheet) -> str:
    state = sheet.game
    if state is None:
        return "The game could not be replayed."
    ns, ew = state.team_scores()
    score = f"North-South {ns}, East-West {ew}"
    if state.phase is not Phase.OVER:
        return f"Game in progress: {score}."
    if state.match_winner is not None:
        return f"Final score: {score}. Winner: {_team(sheet.record, state.match_winner)}."
    return f"Final score: {score}."
