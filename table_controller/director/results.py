"""The event's results as people read them: every game the tables sent, replayed into
hands, with its round, its table's name and its players; and the standings.

Why a module of its own: the export (``results_csv``, ``results_pdf``, written by
``results_files``) needs the games in words, not as the store keeps them. A game is
never taken from a table's say-so: it is the replay of its stored events under its rules
(the same replay as the table's own score sheet, ``table.export.replay_game``), so a
sheet shows what the rules decided. Which round a game was is read from the event's
history: the version of the event that took the game's result says which round and
place it went to.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.director.dashboard_words import table_title
from table_controller.director.events_admin import EventState, team_words
from table_controller.director.formats import FormatError, ProgressiveEvent, RoundsEvent
from table_controller.director.results_standings import Standings, standings
from table_controller.director.store import DirectorStore
from table_controller.errors import TableControllerError
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.hand import Phase
from table_controller.seats import Seat, Team
from table_controller.table.export import Evidence, Sheet, replay_game
from table_controller.words import SEAT_NAMES

FORMAT_WORDS = {
    "progressive": "Progressive euchre",
    "rounds": "12-hand team rounds",
    "bracket": "Single-elimination bracket",
}


@dataclass
class GameResult:
    """One game a table sent, replayed: what its results row and score sheet show."""

    table: str  # the table's id (the store's key)
    title: str  # the table's name as people read it ("Maple"), else its id
    game: int
    started: float
    players: dict[Seat, str]
    sheet: Sheet
    round: int | None = None  # the event's round this game's result went to
    place: str | None = None  # the format's table number, or a bracket's match

    @property
    def scores(self) -> tuple[int, int]:
        state = self.sheet.game
        return (0, 0) if state is None else state.team_scores()

    @property
    def finished(self) -> bool:
        state = self.sheet.game
        return state is not None and state.phase is Phase.OVER

    @property
    def winner(self) -> Team | None:
        state = self.sheet.game
        if state is None or state.phase is not Phase.OVER:
            return None
        return state.match_winner

    @property
    def hands(self) -> int:
        """Hands scored (thrown-in deals not counted)."""
        return sum(1 for h in self.sheet.hands if h.points is not None)

    @property
    def reneges(self) -> int:
        notes = [*self.sheet.notes, *(n for h in self.sheet.hands for n in h.notes)]
        return sum(1 for n in notes if n.kind == "renege" and n.text.startswith("Renege:"))

    @property
    def individual(self) -> dict[Seat, int] | None:
        """Each player's points (a progressive game's own scores), or None."""
        totals = next((h.individual for h in reversed(self.sheet.hands) if h.individual), None)
        return None if totals is None else dict(zip(Seat, totals, strict=True))

    def player(self, seat: Seat) -> str:
        return self.players.get(seat) or ""

    def team(self, team: Team) -> str:
        """A side as people read it: "North-South (Ann & Cy)"."""
        label = "North-South" if team is Team.NS else "East-West"
        names = [self.players[s] for s in team.seats if self.players.get(s)]
        return f"{label} ({' & '.join(names)})" if names else label

    def who(self, seat: Seat) -> str:
        name = self.players.get(seat)
        return f"{name} ({SEAT_NAMES[seat]})" if name else SEAT_NAMES[seat]

    @property
    def status(self) -> str:
        if self.sheet.game is None:
            return "could not be replayed"
        return "finished" if self.finished else "in progress"


@dataclass
class RecordedResult:
    """A result the director entered by hand for a round's table, with no game from the
    feed behind it (a table without a camera, a score card): listed with the games."""

    round: int
    place: str  # the format's table number
    title: str  # the feed table that was assigned there, by name, else "Table N"
    ns: str  # the North-South side (players or team) in words
    ew: str
    scores: tuple[int, int] | None  # a team result's points; None for a progressive one
    winner: str  # the winning side in words, "" for none
    individual: dict[Seat, int] | None = None  # a progressive result's seats' points
    players: dict[Seat, str] = field(default_factory=dict)
    how: str = "recorded by the director"  # or "corrected by the director" (a game's)


@dataclass
class Results:
    """Everything the export writes."""

    event: str  # the event's name
    format: str  # the format in words ("" before an event is created)
    dates: str  # the day (or days) the games were played
    games: list[GameResult]
    standings: Standings
    rounds: int = 0  # the event's number of rounds (0: none, or a bracket)
    recorded: list[RecordedResult] = field(default_factory=list)

    def recorded_in(self, heading: str) -> list[RecordedResult]:
        """The results entered by hand in the round ``by_round`` heads ``heading``."""
        return [r for r in self.recorded if heading == f"Round {r.round}"]

    def by_round(self) -> list[tuple[str, list[GameResult]]]:
        """Each round's games (by table), then the games no round took."""
        out: list[tuple[str, list[GameResult]]] = []
        rounds = sorted({g.round for g in self.games if g.round is not None})
        for r in rounds:
            games = [g for g in self.games if g.round == r]
            out.append((f"Round {r}", sorted(games, key=lambda g: (natural(g.title), g.game))))
        for r in sorted({x.round for x in self.recorded} - set(rounds)):
            out.append((f"Round {r}", []))
        out.sort(key=lambda item: natural(item[0]))
        rest = [g for g in self.games if g.round is None]
        if rest:
            out.append(("Games not placed in a round" if rounds else "Games", rest))
        return out


class NoGames(TableControllerError, ValueError):
    """The store holds no game yet: nothing to export."""


class ExportError(TableControllerError, RuntimeError):
    """The results cannot be printed or written: why, and what to do."""


def collect(store: DirectorStore, event_name: str) -> Results:
    """The event's results from ``store``: every game of every table, replayed."""
    names = table_names(store)
    state = _event_state(store)
    rounds_of = game_rounds(store)
    games: list[GameResult] = []
    for table in sorted(names, key=lambda t: natural(names[t])):
        players_of = _players_by_game(store, table)
        rules_name, options = store.rules_of(table)
        for game in store.games(table):
            stored = store.events(table, game)
            events: list[LoggedEvent] = []
            problems: list[str] = []
            for e in stored:
                try:
                    inp = decode_input(e["input"])
                except (CodecError, ValueError, TypeError) as exc:
                    problems.append(f"event {e['seq']} cannot be read ({exc})")
                    continue
                events.append(LoggedEvent(game, e["seq"], inp, e["source"], e["at"], e["evidence"]))
            started = float(stored[0]["at"]) if stored else 0.0
            players = players_of.get(game) or players_of.get(0) or {}
            record = GameRecord(game, rules_name, options, players, started)
            sheet = replay_game(
                record,
                events,
                problems,
                _evidence(store, table, game),
                named=True,
            )
            round_no, place = rounds_of.get((table, game), (None, None))
            games.append(
                GameResult(table, names[table], game, started, players, sheet, round_no, place)
            )
    recorded = [] if state is None else recorded_by_hand(state, games, names)
    if not games and not recorded:
        raise NoGames(
            f"{store.name} holds no game yet ({len(names)} tables heard from) and no "
            "result entered by hand: nothing to export; export once the first game has "
            "been played"
        )
    ev = state.event if state is not None else None
    fmt = "" if ev is None else FORMAT_WORDS[ev.to_json()["format"]]
    rounds = ev.rounds if isinstance(ev, ProgressiveEvent | RoundsEvent) else 0
    return Results(
        event=event_name,
        format=fmt,
        dates=dates_text([g.started for g in games]),
        games=games,
        standings=standings(state, games),
        rounds=rounds,
        recorded=recorded,
    )


def _evidence(store: DirectorStore, table: str, game: int) -> Evidence:
    def image(seq: int) -> bytes | None:
        return store.evidence(table, game, seq)

    return image


# --- tables and players ------------------------------------------------------------------


def table_names(store: DirectorStore) -> dict[str, str]:
    """Each table's id -> its name as people read it: its latest status's ``name``,
    else its id (SPEC: a table's name)."""
    out: dict[str, str] = {}
    for table, status in store.core.rows("SELECT name, status FROM tables ORDER BY name"):
        try:
            name = json.loads(status).get("name") if status else None
        except ValueError:
            name = None
        out[str(table)] = table_title(str(table), name)
    return out


def _players_by_game(store: DirectorStore, table: str) -> dict[int, dict[Seat, str]]:
    """The players each game was played by, from the table's statuses (the last one
    naming that game); key 0: the table's latest players, for a game no status named."""
    out: dict[int, dict[Seat, str]] = {}
    for entry in reversed(store.status_history(table)):
        st = entry["status"]
        names = _seats(st.get("players"))
        if not names:
            continue
        out.setdefault(0, names)
        game = st.get("game")
        if isinstance(game, int) and not isinstance(game, bool):
            out.setdefault(game, names)
    return out


def _seats(raw: Any) -> dict[Seat, str]:
    out: dict[Seat, str] = {}
    if not isinstance(raw, Mapping):
        return out
    for s, n in raw.items():
        try:
            seat = Seat.parse(str(s))
        except ValueError:
            continue
        if isinstance(n, str) and n.strip():
            out[seat] = n.strip()
    return out


# --- the event: rounds and standings ---------------------------------------------------------


def _event_state(store: DirectorStore) -> EventState | None:
    saved = store.format_state()
    if saved is None:
        return None
    try:
        return EventState.from_json(saved)
    except (FormatError, KeyError, TypeError, ValueError):
        return None


def _place_value(event: Mapping[str, Any], round_no: int, place: str) -> Any:
    if event.get("format") == "bracket":
        return (event.get("games") or {}).get(place)
    return ((event.get("results") or {}).get(str(round_no)) or {}).get(str(place))


def game_rounds(store: DirectorStore) -> dict[tuple[str, int], tuple[int, str]]:
    """(table, game) -> (round, place): from each version of the event that took a
    game's result (``taken`` grew), the round whose place for that table changed."""
    out: dict[tuple[str, int], tuple[int, str]] = {}
    before: dict[str, Any] = {}
    for _action, state in store.format_versions():
        taken_before = set(before.get("taken") or [])
        new = [k for k in state.get("taken") or [] if k not in taken_before]
        event = state.get("event") or {}
        old_event = before.get("event") or {}
        for key in new:
            table, _, rest = key.partition(":")
            game_text = rest.partition(":")[0]
            if not game_text.isdigit():
                continue
            for round_text, places in sorted(
                (state.get("assign") or {}).items(), key=lambda kv: int(kv[0])
            ):
                place = places.get(table)
                if place is None:
                    continue
                r = int(round_text)
                if _place_value(event, r, place) != _place_value(old_event, r, place):
                    out[(table, int(game_text))] = (r, str(place))
                    break
        before = state
    return out


def recorded_by_hand(
    state: EventState, games: list[GameResult], names: Mapping[str, str]
) -> list[RecordedResult]:
    """The event's results that no game from the feed shows: entered by hand (no game
    behind them), or a game's result the director corrected (it differs from the game)."""
    ev = state.event
    fed = {(g.round, g.place): g for g in games if g.round is not None}
    out: list[RecordedResult] = []
    if not isinstance(ev, ProgressiveEvent | RoundsEvent):
        return out
    people = state.people
    for round_no in sorted(int(r) for r in ev.results):
        feed = {p: t for t, p in state.assign.get(round_no, {}).items()}
        for place in sorted(int(p) for p in ev.results[round_no]):
            table = feed.get(str(place))
            title = str(names.get(table, table) if table else f"Table {place}")
            if isinstance(ev, ProgressiveEvent):
                seats = ev.tables(round_no)[place - 1]
                players = {Seat.parse(s): people.name(pid) for s, pid in seats.items()}
                points = {Seat.parse(s): int(v) for s, v in ev.results[round_no][place].items()}
                found = RecordedResult(
                    round_no,
                    str(place),
                    title,
                    f"{players[Seat.N]} & {players[Seat.S]}",
                    f"{players[Seat.E]} & {players[Seat.W]}",
                    None,
                    "",
                    points,
                    players,
                )
            else:
                a, b = ev.tables(round_no)[place - 1]
                res = ev.results[round_no][place]
                sides = (team_words(state, a), team_words(state, b))
                scores = (int(res.points[0]), int(res.points[1]))
                found = RecordedResult(
                    round_no, str(place), title, sides[0], sides[1], scores, sides[res.winner]
                )
            game = fed.get((round_no, str(place)))
            if game is not None:
                if _same(found, game):
                    continue  # the game shows it
                found.how = "corrected by the director"
            out.append(found)
    return out


def _same(result: RecordedResult, game: GameResult) -> bool:
    """Does the event hold the game's own result (not a director's correction)?"""
    if result.individual is not None:
        return result.individual == game.individual
    return result.scores == game.scores


def natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """A key that puts "Table 2" before "Table 10"."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold())
        for part in re.split(r"(\d+)", text)
        if part
    )


def when_text(at: float, *, words: bool = False) -> str:
    """A time as a spreadsheet sorts it (2026-09-21 14:13), or as a sheet says it."""
    if at <= 0:
        return ""
    t = time.localtime(at)
    if words:
        return f"{t.tm_mday} {time.strftime('%B %Y, %H:%M', t)}"
    return time.strftime("%Y-%m-%d %H:%M", t)


def dates_text(times: list[float]) -> str:
    """The day or days the games were played: "26 November 2026", or a range."""
    days = sorted({time.strftime("%Y-%m-%d", time.localtime(t)) for t in times if t > 0})
    if not days:
        return ""

    def words(day: str) -> str:
        t = time.strptime(day, "%Y-%m-%d")
        return f"{t.tm_mday} {time.strftime('%B %Y', t)}"

    return words(days[0]) if len(days) == 1 else f"{words(days[0])} to {words(days[-1])}"


__all__ = [
    "FORMAT_WORDS",
    "ExportError",
    "GameResult",
    "NoGames",
    "RecordedResult",
    "Results",
    "collect",
    "dates_text",
    "game_rounds",
    "natural",
    "recorded_by_hand",
    "table_names",
    "when_text",
]
