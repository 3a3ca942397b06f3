"""A logged game, exported: as a transcript (docs/transcript.md) that replays anywhere,
and as a printable score sheet for the director's records.

Both are built from the log alone by replaying the game with the rules it was played
under, so they show what the table decided, never a second opinion. A row the log can
no longer read, or an event the rules refuse, is noted in the export and skipped: the
rest of the game is still exported.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from html import escape

from table_controller.cards import Card, Suit
from table_controller.event_log import EventLog, GameRecord
from table_controller.rules.codec import encode
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
from table_controller.transcript import header
from table_controller.words import (
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

# --- the transcript -----------------------------------------------------------------


def transcript_text(log: EventLog, game: int) -> str:
    """The game as a transcript: comments saying where it came from, the rules line, and
    every input event as logged (a live table's ``hand_dealt`` has no hands). The rules
    line carries the transcript version the events need, when newer than 1."""
    record = log.game(game)
    events, problems = log.readable_events(game)
    bad = {p.seq or 0: p for p in problems}
    lines = [
        f"# table {json.dumps(log.table)}, game {game}, started {started_text(record.started)}",
        "# players: "
        + (", ".join(f"{s} {json.dumps(n)}" for s, n in _players(record)) or "not recorded"),
        "# exported from the event log " + json.dumps(str(log.path)),
    ]
    rules_line: dict[str, object] = {"rules": record.rules_name}
    if record.options:
        rules_line["options"] = record.options
    readable = {e.seq: encode(e.event) for e in events}
    lines.append(header(readable.values(), rules_line) or "")
    for seq in sorted({*readable, *bad}):
        if seq in readable:
            lines.append(json.dumps(readable[seq]))
        else:
            lines.append(f"# event {seq} is missing: {bad[seq]}".replace("\n", " "))
    return "\n".join(lines) + "\n"


def _players(record: GameRecord) -> list[tuple[Seat, str]]:
    return [(s, record.players[s]) for s in Seat if s in record.players]


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


def replay_sheet(log: EventLog, game: int) -> Sheet:
    """The logged game replayed with its rules, hand by hand."""
    record = log.game(game)
    sheet = Sheet(record)
    try:
        rules = preset(record.rules_name, record.options)
    except RulesError as exc:
        sheet.problems.append(f"the game's rules cannot be used: {exc}")
        return sheet
    events, problems = log.readable_events(game)
    sheet.problems += [str(p) for p in problems]
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
            _apply(sheet, log, game, logged.seq, logged.has_evidence, out, laid)
    return sheet


def _apply(
    sheet: Sheet,
    log: EventLog,
    game: int,
    seq: int,
    has_evidence: bool,
    out: OutputEvent,
    laid: dict[Card, int],
) -> None:
    hand = sheet.hands[-1] if sheet.hands else None
    notes = hand.notes if hand is not None else sheet.notes
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
    elif isinstance(out, RenegeProven):
        images = [
            (
                f"{out.seat} played {out.played.pretty} on {out.suit.word} in trick {out.trick}",
                _image(log, game, laid.get(out.played)),
            ),
        ]
        if out.proof_trick != out.trick:  # the proof was played, not known from the hand
            images.append(
                (
                    f"{out.seat} later played {out.proof.pretty} (trick {out.proof_trick})",
                    _image(log, game, laid.get(out.proof)),
                )
            )
        notes.append(Note("renege", f"Renege: {renege_sentence(out)}", images))
    elif isinstance(out, RenegeSpotted):
        notes.append(
            Note(
                "renege",
                renege_sentence(out),
                [(f"the card played (event {seq})", _image(log, game, seq))]
                if has_evidence
                else [],
            )
        )
    elif isinstance(out, IrregularityFound):
        who = f" ({SEAT_NAMES[out.seat]})" if out.seat is not None else ""
        notes.append(
            Note(
                "irregularity",
                f"{IRREGULARITY_WORDS[out.kind]}{who}: {out.detail}; "
                f"remedy: {REMEDY_WORDS[out.remedy]}",
                [(f"what the camera saw (event {seq})", _image(log, game, seq))]
                if has_evidence
                else [],
            )
        )
    elif isinstance(out, PenaltyScored):
        notes.append(
            Note(
                "penalty",
                f"Penalty: {_team(sheet.record, out.team)} {out.points:+d} "
                f"({reason_words(out.reason)}); score {out.scores[0]}-{out.scores[1]}"
                + (
                    "; players " + " ".join(str(x) for x in out.individual)
                    if out.individual is not None
                    else ""
                ),
            )
        )
    elif isinstance(out, ScoreCorrected):
        notes.append(
            Note(
                "ruling",
                f"Director's ruling: {_team(sheet.record, out.team)} {out.points:+d} "
                f"({out.reason}); score {out.scores[0]}-{out.scores[1]}",
            )
        )
    elif isinstance(out, ClaimJudged):
        notes.append(
            Note(
                "claim",
                f"{SEAT_NAMES[out.seat]} laid the hand down: {out.certain} of {out.remaining} "
                "tricks certain",
            )
        )
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


def _image(log: EventLog, game: int, seq: int | None) -> bytes | None:
    return None if seq is None else log.evidence(game, seq)


def _team(record: GameRecord, team: Team) -> str:
    label = "North-South" if team is Team.NS else "East-West"
    names = [record.players[s] for s in team.seats if record.players.get(s)]
    return f"{label} ({' & '.join(names)})" if names else label


# --- the score sheet ------------------------------------------------------------------

_CSS = """
body { font-family: sans-serif; margin: 2em; color: #111; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
table.hands { border-collapse: collapse; width: 100%; margin: 1em 0; }
table.hands th, table.hands td { border: 1px solid #888; padding: 0.25em 0.5em;
  text-align: left; vertical-align: top; }
table.hands th { background: #eee; }
tr.notes td { background: #fff8e6; }
.note p { margin: 0.3em 0; }
.note.renege p { font-weight: bold; color: #a00; }
figure { display: inline-block; margin: 0.3em 1em 0.3em 0; vertical-align: top; }
figure img { min-width: 8em; max-width: 18em; max-height: 12em; border: 1px solid #444;
  image-rendering: pixelated; }
figcaption { font-size: 0.85em; }
.problems { color: #a00; }
.final { font-size: 1.2em; font-weight: bold; }
@media print {
  body { margin: 0.5cm; font-size: 10pt; }
  tr, figure { page-break-inside: avoid; }
  table.hands th { background: none; }
}
"""


def score_sheet_html(log: EventLog, game: int) -> str:
    """A self-contained printable HTML page: the table, the players, the rules, every
    hand, reneges and irregularities with the camera's images, and the final score."""
    sheet = replay_sheet(log, game)
    record = sheet.record
    title = f"{log.table}: game {game}"
    rules = PRESETS.get(record.rules_name)
    rules_text = record.rules_name + (f" ({rules.title})" if rules else "")
    if record.options:
        rules_text += "; options: " + ", ".join(
            f"{k} = {json.dumps(v)}" for k, v in sorted(record.options.items())
        )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape(log.table)}</h1>",
        f"<p>Game {game}, started {escape(started_text(record.started))}. "
        f"Rules: {escape(rules_text)}.</p>",
        "<p>Players: "
        + (", ".join(f"{SEAT_NAMES[s]} {escape(n)}" for s, n in _players(record)) or "not recorded")
        + (f". First dealer: {escape(sheet.first_dealer)}" if sheet.first_dealer else "")
        + ".</p>",
    ]
    parts += [_note_html(n) for n in sheet.notes]
    parts.append(_hands_html(sheet))
    parts += [f"<p>{escape(e)}</p>" for e in sheet.endings]
    parts.append(f'<p class="final">{escape(_final(sheet))}</p>')
    if sheet.problems:
        parts.append('<div class="problems"><h2>Not replayed</h2><ul>')
        parts += [f"<li>{escape(p)}</li>" for p in sheet.problems]
        parts.append("</ul></div>")
    parts.append(
        f"<p><small>{sheet.events} events from {escape(str(log.path))}; "
        "exported by table-controller.</small></p></body></html>"
    )
    return "\n".join(parts) + "\n"


def _hands_html(sheet: Sheet) -> str:
    several = any(h.game != 1 for h in sheet.hands)
    bidding = any(h.bid is not None for h in sheet.hands)
    progressive = any(h.individual is not None for h in sheet.hands)
    heads = ["Game"] if several else []
    heads += ["Hand", "Dealer", "Upcard", "Trump", "Maker"]
    heads += ["Bid"] if bidding else []
    heads += ["Tricks NS-EW", "Result", "Points NS-EW", "Score NS-EW"]
    heads += ["Players N E S W"] if progressive else []
    rows = ['<table class="hands"><thead><tr>']
    rows += [f"<th>{h}</th>" for h in heads]
    rows.append("</tr></thead><tbody>")
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
        rows.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
        if h.notes:
            rows.append(
                f'<tr class="notes"><td colspan="{len(heads)}">'
                + "".join(_note_html(n) for n in h.notes)
                + "</td></tr>"
            )
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _note_html(note: Note) -> str:
    html = f'<div class="note {escape(note.kind)}"><p>{escape(note.text)}</p>'
    if note.images:
        html += '<div class="evidence">'
        for caption, png in note.images:
            if png is None:
                html += f"<figure><figcaption>{escape(caption)}: no image recorded</figcaption>"
            else:
                data = base64.b64encode(png).decode("ascii")
                html += (
                    f'<figure><img src="data:image/png;base64,{data}" alt="{escape(caption)}">'
                    f"<figcaption>{escape(caption)}</figcaption>"
                )
            html += "</figure>"
        html += "</div>"
    return html + "</div>"


def _seat_name(record: GameRecord, seat: Seat) -> str:
    name = record.players.get(seat)
    return f"{seat} {name}" if name else SEAT_NAMES[seat]


def _pair(pair: tuple[int, int] | None, *, signed: bool = False) -> str:
    if pair is None:
        return ""
    return f"{pair[0]:+d} / {pair[1]:+d}" if signed else f"{pair[0]} - {pair[1]}"


def _final(sheet: Sheet) -> str:
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
