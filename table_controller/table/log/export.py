"""A logged game, exported: as a transcript (docs/transcript.md) that replays anywhere,
and as a printable score sheet for the director's records.

Both are built from the log alone by replaying the game with the rules it was played
under, so they show what the table decided, never a second opinion. A row the log can
no longer read, or an event the rules refuse, is noted in the export and skipped: the
rest of the game is still exported.

The replay into hands (``replay_game``) takes a game's events from wherever they are
kept, so the director's results (``director.results``) print the same sheet from the
director's store; the page itself is a Jinja2 template (``templates/score_sheet.html``),
autoescaped, since every name on it is text someone typed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from table_controller.event_log import EventLog, GameRecord
from table_controller.present import (
    SEAT_NAMES,
    Sheet,
    final_text,
    hands_table,
    replay_game,
    rules_text,
    started_text,
)
from table_controller.review import Review, review_file_name, review_game, review_page
from table_controller.rules.codec import encode
from table_controller.rules.events import InputEvent
from table_controller.rules.presets import Rules, preset
from table_controller.seats import Seat
from table_controller.templating import render
from table_controller.transcript import header

if TYPE_CHECKING:
    from table_controller.table.log.verdicts import TableVerdicts
    from table_controller.web.server import ReviewShown

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


def replay_sheet(log: EventLog, game: int) -> Sheet:
    """The logged game replayed with its rules, hand by hand."""
    events, problems = log.readable_events(game)
    return replay_game(
        log.game(game),
        events,
        [str(p) for p in problems],
        lambda seq: log.evidence(game, seq),
    )


def game_review(log: EventLog, game: int, table: str | None = None) -> Review:
    """The logged game as the hand review's steps: its ended hands only (a hand in play
    is never in it). ``table``: the table's name as people read it (the log's, else)."""
    events, problems = log.readable_events(game)
    return review_game(
        log.game(game),
        events,
        [str(p) for p in problems],
        lambda seq: log.evidence(game, seq),
        table=table or log.table,
    )


def page_review(
    log: EventLog, game: int, *, table: str, verdicts: TableVerdicts | None = None
) -> ReviewShown | None:
    """A game's hand review as the table's page serves it (None: the log has no such
    game), called in a worker thread: the log reads under its own lock. With
    ``verdicts``, the game's verdicts beside its decisions (or that they are being
    worked out), never waited for."""
    from table_controller.web.server import ReviewShown  # the page's, loaded with it

    if game not in {g.game for g in log.games()}:
        return None
    links = {"Back to the table": "/", "Save it to keep": f"/review/{game}/file"}
    review = game_review(log, game, table)
    judged = None
    if verdicts is not None:
        judged = verdicts.for_page(game, len(review.hands), lambda: _rules_and_events(log, game))
    document = review_page(review, judged, links=links)
    return ReviewShown(document.html, document.csp, review_file_name(table, game))


def _rules_and_events(log: EventLog, game: int) -> tuple[Rules, tuple[InputEvent, ...]]:
    record = log.game(game)
    events, _ = log.readable_events(game)
    return preset(record.rules_name, record.options), tuple(e.event for e in events)


# --- the score sheet ------------------------------------------------------------------


def score_sheet_html(log: EventLog, game: int) -> str:
    """A self-contained printable HTML page: the table, the players, the rules, every
    hand, reneges and irregularities with the camera's images, and the final score
    (templates/score_sheet.html, autoescaped: every name is the table's text)."""
    sheet = replay_sheet(log, game)
    record = sheet.record
    return render(
        "score_sheet.html",
        title=f"{log.table}: game {game}",
        table=log.table,
        game=game,
        started=started_text(record.started),
        rules=rules_text(record),
        players=[(SEAT_NAMES[s], n) for s, n in _players(record)],
        sheet=sheet,
        hands=hands_table(sheet),
        final=final_text(sheet),
        source=str(log.path),
    )
