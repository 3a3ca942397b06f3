"""The feed's outbox: the event log itself, a cursor of what the broker has taken, and
the director's mark of what is safe.

Nothing is copied into a queue of its own: the log already holds every event in order,
durably, before the table counts it. The outbox keeps, in a small table of its own in
the same SQLite file (``feed_cursor``; the log's own tables are only read), the
(game, seq) of the last event whose messages the broker acknowledged (PUBACK). The
backlog is every logged event after it, in order. A table that lost the broker, or was
killed, sends from the cursor on when it connects again; an event sent twice at worst
(its PUBACK lost) carries the same (table, game, seq), which the director drops.

The broker's PUBACK is not the end of the road: a broker killed (kill -9, a power cut)
forgets what it took since its last save. So the outbox also keeps the director's own
mark (``feed_received``): the last event of the log the director has stored with
nothing missing before it (computed here from the director's per-game marks, checked
against this log). Everything after it is not yet safe, and every connection sends
from it (docs/feed.md, "Delivery").

The rulings the table has answered are kept here too (``feed_rulings``), so a ruling
delivered twice is answered the same way and applied once; one applied but not yet
answered when the table stopped is found in the log's own ``rulings`` (written with
the event that applied it).

The number of the feed's last start is kept too (``feed_boot``): each start takes a
higher one (feed/table_order.py), so the director can tell a message of this start
from an old one sent again, whatever the table's clock says.

The camera's clearer pictures (the log's ``evidence_clear``, one at most an event,
written after it) are read in the order written, with a cursor of their own
(``feed_pictures``): the rowid of the last one the broker acknowledged. An event read
after its clearer picture was written carries that picture itself.

A message's outputs are not stored: they are what the rules make of the logged events,
so the outbox replays each game as it reads it (as resume.py does at start).

The outbox holds no SQL: every table of the file, the log's and these of its own, is
read and written through ``event_log.FeedLog``, so only event_log/ knows them. What
is here is what to send next, from which mark, and what a game's events make.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from table_controller.event_log import ClearPicture, EventRow, FeedLog, FeedLogError, GameRow
from table_controller.feed.table_order import next_boot
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.game import Game
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay

Position = tuple[int, int]  # (game, seq); (0, 0) is before the first event

# The outbox cannot read the log or keep its cursor; the message says what to do. The
# log file's own error (event_log/ reads and writes the file for the outbox).
OutboxError = FeedLogError


class GameSent(TypedDict):
    """What the table's log says a game is played under and by: its preset, options and
    players (seat letter -> name). Sent with the game's first event, so the director
    replays the game under the rules the table played, never a guess of its own."""

    rules: str
    options: dict[str, Any]
    players: dict[str, str]


@dataclass(frozen=True)
class Pending:
    """One logged event ready to send: its position, its payload parts, its evidence."""

    game: int
    seq: int
    recorded: float
    source: str
    input: dict[str, Any]  # codec-encoded (secrets are removed by messages.py)
    outputs: list[dict[str, Any]]
    hand: int | None
    evidence: bytes | None
    record: GameSent | None = None  # the game's rules and players: with its first event

    @property
    def position(self) -> Position:
        return (self.game, self.seq)


class _Replay:
    """One game's rules state, advanced as the outbox reads the game's events."""

    def __init__(self, game_no: int, game: Game | None) -> None:
        self.game_no = game_no
        self.game = game  # None: the game's rules cannot be built (outputs left empty)
        self.seq = 0


class Outbox:
    """The backlog of one table's log. Use it from one thread (the publisher's)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._log = FeedLog(self.path)  # its own connection: event_log/'s FeedLog
        self._replay: _Replay | None = None

    # --- the cursor --------------------------------------------------------------------

    def cursor(self) -> Position:
        """The last event the broker acknowledged, in order; (0, 0) before any."""
        mark = self._log.sent_mark()
        return (mark.game, mark.seq) if mark else (0, 0)

    def acknowledge(self, position: Position, at: float) -> None:
        """The broker has every message up to ``position``: move the cursor there
        (forward only: a resend from the director's mark does not move it back)."""
        game, seq = position
        self._log.keep_sent_mark(game, seq, at)

    # --- the director's mark -----------------------------------------------------------

    def safe(self) -> Position:
        """The last event the director confirmed it holds, with all before it; (0, 0)."""
        mark = self._log.received_mark()
        return (mark.game, mark.seq) if mark else (0, 0)

    def confirm(self, position: Position, at: float) -> None:
        """The director's mark, as ``safe_from`` read it (it may go back: the director
        is the judge of what it holds)."""
        game, seq = position
        self._log.keep_received_mark(game, seq, at)

    def safe_from(self, games: dict[int, int]) -> Position:
        """The director's per-game marks (game -> highest seq held with all before it)
        read against this log: the last logged event the director holds with every
        logged event before it."""
        position: Position = (0, 0)
        for logged in self._log.last_events():
            held = min(int(games.get(logged.game, 0)), logged.last)
            if held < 1:
                break
            position = (logged.game, held)
            if held < logged.last:
                break
        return position

    def backlog(self, after: Position | None = None) -> int:
        """How many logged events come after ``after`` (the cursor by default)."""
        game, seq = self.cursor() if after is None else after
        return self._log.count_after(game, seq)

    # --- reading the backlog -----------------------------------------------------------

    def after(self, position: Position, limit: int) -> list[Pending]:
        """Up to ``limit`` logged events after ``position``, in order, with outputs
        (the clearer picture where the camera took one)."""
        game, seq = position
        return [self._pending(row) for row in self._log.events_after(game, seq, limit)]

    # --- the clearer pictures ------------------------------------------------------------

    def pictures_cursor(self) -> int:
        """The last clearer picture the broker acknowledged (its ``n``); 0 before any."""
        n = self._log.pictures_mark()
        return n if n is not None else 0

    def acknowledge_picture(self, n: int, at: float) -> None:
        """The broker has the clearer picture ``n`` (forward only)."""
        self._log.keep_pictures_mark(n, at)

    def pictures_after(self, n: int, limit: int) -> list[ClearPicture]:
        """Up to ``limit`` clearer pictures written after the ``n``-th, in order (none
        from a log from before them)."""
        return self._log.clear_pictures_after(n, limit)

    def _pending(self, row: EventRow) -> Pending:
        game, seq, text = row.game, row.seq, row.event
        state = self._replay_at(game, seq)
        outputs: list[dict[str, Any]] = []
        hand: int | None = None
        try:
            encoded = json.loads(text)
            event = decode_input(encoded)
        except (ValueError, TypeError):  # a row edited by hand: sent as written
            encoded = {"event": "unreadable", "text": text}
            event = None
        if state.game is not None and event is not None:
            # One the rules refuse is skipped at the table too (resume.py): no outputs.
            outputs = [encode(o) for o in replay(state.game, [event], OnError.SKIP).outputs]
            current = state.game.hand or state.game.last_hand
            hand = current.number if current is not None else None
        state.seq = seq
        return Pending(
            game=game,
            seq=seq,
            recorded=row.recorded,
            source=row.source,
            input=encoded if isinstance(encoded, dict) else {"event": "unreadable"},
            outputs=outputs,
            hand=hand,
            evidence=row.picture,
            record=self._record(game) if seq == 1 else None,
        )

    def _record(self, game_no: int) -> GameSent | None:
        row = self._log.game_row(game_no)
        if row is None:
            return None
        options, players = _loaded_json(row.options), _loaded_json(row.players)
        return GameSent(
            rules=row.rules,
            options=dict(options) if isinstance(options, dict) else {},
            players=(
                {str(k): str(v) for k, v in players.items()} if isinstance(players, dict) else {}
            ),
        )

    def _replay_at(self, game_no: int, seq: int) -> _Replay:
        """The game's replay with every event before ``seq`` pushed."""
        state = self._replay
        if state is None or state.game_no != game_no or state.seq >= seq:
            state = self._replay = _Replay(game_no, self._new_game(self._log.game_row(game_no)))
        if state.seq < seq - 1:
            rows = self._log.event_texts(game_no, state.seq, seq)
            if state.game is not None:
                # An event the rules refuse (or a row that does not read) was skipped at
                # the table too.
                replay(state.game, [_loaded(row.event) for row in rows], OnError.SKIP)
            if rows:
                state.seq = rows[-1].seq
        return state

    @staticmethod
    def _new_game(row: GameRow | None) -> Game | None:
        """The rules state a game starts from, as its ``games`` row says; None when the
        row is missing or does not build a game."""
        if row is None:
            return None
        try:
            options = json.loads(row.options)
            return Game(preset(row.rules, options if isinstance(options, dict) else {}))
        except (ValueError, TypeError, RulesError):
            return None

    # --- the feed's starts ---------------------------------------------------------------

    def start_boot(self, now: float) -> int:
        """A new start of the feed: its number (``table_order.next_boot`` of the last
        one and the clock ``now``), kept on disk before it is used."""
        boot = next_boot(self._log.last_boot(), now)
        self._log.keep_boot(boot)
        return boot

    # --- rulings answered ----------------------------------------------------------------

    def answered(self, ruling_id: str) -> tuple[bool, str | None] | None:
        """How the table answered this ruling before (ok, problem), or None."""
        kept = self._log.answer_kept(ruling_id)
        if kept:
            return (kept.ok, kept.problem)
        # Applied, and the table stopped before its answer was kept: the log says so.
        if self._log.ruling_logged(ruling_id):
            return (True, None)
        return None

    def answer(self, ruling_id: str, ok: bool, problem: str | None, at: float) -> None:
        self._log.keep_answer(ruling_id, ok, problem, at)

    def close(self) -> None:
        self._log.close()


def _loaded_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _loaded(text: str) -> Any:
    """A logged row's JSON; one that does not parse is left for the replay to skip."""
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return None


__all__ = ["ClearPicture", "Outbox", "OutboxError", "Pending", "Position"]
