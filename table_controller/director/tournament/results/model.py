"""The event's results: the one model every screen and paper renders.

Each game the tables sent, with its round and place, its table's name, its players, its
team and individual points, its status and winner, its reneges, rulings and the
director's corrections; the results entered by hand; and the standings in the event's
format. The dashboard, the hall screen, results.csv, standings.csv, the score sheets and
the booklet all draw this (``collect``), and none derives a result of its own.

Where each fact comes from, so that every output says what the tables recorded:
- a game's rules and players: its table's log (``store.events.games``, sent with the game's
  first event); for a table that sent none, the event's rules and its statuses;
- whether it is over, and its score: the table's own ``game_ended`` (the table's log
  says so); the hands come from the replay of its stored events under its rules (the
  same replay as the table's own score sheet, ``present.replay_game``), and a
  replay that disagrees with the table is said as a problem, never hidden;
- its round and place: the version of the event that took the game's result;
- a correction: a later version in which the director changed that place's result
  (before, after, who, why, when), shown on the game, never as a second result.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from table_controller.director.dashboard import ruling_text
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store import DirectorStore, FormatChange, RulingRow
from table_controller.director.tournament.admin import TournamentState, team_words
from table_controller.director.tournament.catalog import choose, stored_events
from table_controller.director.tournament.formats import (
    Bracket,
    Event,
    FormatError,
    ProgressiveEvent,
    RoundsEvent,
    as_int,
    as_list,
    as_object,
)
from table_controller.director.tournament.results.standings import Standings, standings
from table_controller.director.words import table_title
from table_controller.errors import TableControllerError
from table_controller.event_log import GameRecord, LoggedEvent
from table_controller.present import SEAT_NAMES, Evidence, Sheet, replay_game
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.hand import Phase
from table_controller.rules.option_words import rules_words as option_rules_words
from table_controller.seats import Seat, Team

FORMAT_WORDS = {
    "progressive": "Progressive euchre",
    "rounds": "12-hand team rounds",
    "bracket": "Single-elimination bracket",
}


@dataclass(frozen=True)
class Correction:
    """The director changed a game's result: what the table recorded, what stands now,
    who changed it, why and when."""

    before: str
    after: str
    who: str
    why: str
    at: float
    scores: tuple[int, int] | None = None  # the team points that stand now
    individual: dict[Seat, int] | None = None  # a progressive game's, each seat's

    @property
    def words(self) -> str:
        """The correction in one line: what the table recorded, what stands, who and why."""
        when = when_text(self.at)
        why = f": {self.why}" if self.why else ""
        return (
            f"the table recorded {self.before}; {self.who} corrected it to {self.after} "
            f"at {when}{why}"
        )


@dataclass
class GameResult:
    """One game a table sent: what its results row and score sheet show."""

    table: str  # the table's id (the store's key)
    title: str  # the table's name as people read it ("Maple"), else its id
    game: int
    started: float
    players: dict[Seat, str]
    sheet: Sheet
    round: int | None = None  # the event's round this game's result went to
    place: str | None = None  # the format's table number, or a bracket's match
    ended: JSONObject | None = None  # the table's own game_ended (its log's word)
    ended_at: float | None = None  # when the table recorded it
    correction: Correction | None = None
    rulings: list[str] = field(default_factory=list)  # each ruling applied, in words

    @property
    def scores(self) -> tuple[int, int]:
        if self.ended is not None:
            pair = self.ended.get("scores")
            if isinstance(pair, list | tuple) and len(pair) == 2:
                return as_int(pair[0]), as_int(pair[1])
        state = self.sheet.game
        return (0, 0) if state is None else state.team_scores()

    @property
    def finished(self) -> bool:
        """Over when the table's log says so (its ``game_ended``), not before."""
        return self.ended is not None

    @property
    def winner(self) -> Team | None:
        if self.ended is None:
            return None
        side = self.ended.get("winner")
        return Team[side] if isinstance(side, str) and side in ("NS", "EW") else None

    @property
    def counted_scores(self) -> tuple[int, int]:
        """The team points that count: the director's correction's, else the table's."""
        if self.correction is not None and self.correction.scores is not None:
            return self.correction.scores
        return self.scores

    @property
    def counted_individual(self) -> dict[Seat, int] | None:
        """Each player's points that count: the correction's, else the table's."""
        if self.correction is not None and self.correction.individual is not None:
            return self.correction.individual
        return self.individual

    @property
    def problem(self) -> str | None:
        """The replay under the game's rules disagrees with the table's log: said, so a
        score sheet that does not add up to the result is never handed out unexplained."""
        state = self.sheet.game
        if state is None:
            return "its events could not be replayed"
        over = state.phase is Phase.OVER
        if over != self.finished:
            return (
                "the table's log says the game is over, but its events replay to a game in progress"
                if self.finished
                else "its events replay to a game over, but the table has not said so"
            )
        if self.finished and state.team_scores() != self.scores:
            ns, ew = state.team_scores()
            said = f"{self.scores[0]} to {self.scores[1]}"
            return f"its events replay to {ns} to {ew}, the table said {said}"
        return None

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
        if self.ended is not None:
            given = self.ended.get("individual")
            if isinstance(given, list | tuple) and len(given) == 4:
                return {s: as_int(v) for s, v in zip(Seat, given, strict=True)}
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
        """The game's state in words: finished or in progress, and corrected."""
        if self.sheet.game is None and not self.finished:
            return "could not be replayed"
        words = "finished" if self.finished else "in progress"
        return words + (", corrected by the director" if self.correction else "")

    @property
    def result_words(self) -> str:
        """The game's own result, as the table recorded it ("Ann 5, Bo 3, ..." for a
        progressive game; "North-South 10, East-West 6" otherwise)."""
        points = self.individual
        if points is not None:
            return ", ".join(f"{self.players.get(s) or SEAT_NAMES[s]} {points[s]}" for s in Seat)
        ns, ew = self.scores
        return f"{self.team(Team.NS)} {ns}, {self.team(Team.EW)} {ew}"


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
    rules: str = ""  # the event's rules in words ("" before an event is created)
    over: bool = False  # every round's (or the bracket's) result is in
    final: FinalMark | None = None  # the director's "results final", if these are they
    round_names: dict[int, str] = field(default_factory=dict)  # a bracket's: "Semi-finals"

    @property
    def state_words(self) -> str:
        """ "final" once the director confirmed exactly these results, else "provisional"."""
        return "final" if self.final is not None else "provisional"

    def recorded_in(self, heading: str) -> list[RecordedResult]:
        """The results entered by hand in the round ``by_round`` heads ``heading``."""
        return [r for r in self.recorded if heading == f"Round {r.round}"]

    def by_round(self) -> list[tuple[str, list[GameResult]]]:
        """Each round's games (by table), then the games no round took."""
        numbered: list[tuple[int, str, list[GameResult]]] = []
        rounds = sorted({g.round for g in self.games if g.round is not None})
        for r in rounds:
            games = [g for g in self.games if g.round == r]
            heading = self.round_names.get(r, f"Round {r}")
            numbered.append((r, heading, sorted(games, key=lambda g: (natural(g.title), g.game))))
        for r in sorted({x.round for x in self.recorded} - set(rounds)):
            numbered.append((r, f"Round {r}", []))
        numbered.sort(key=lambda item: item[0])  # in play order, whatever a round is called
        out = [(heading, games) for _, heading, games in numbered]
        rest = [g for g in self.games if g.round is None]
        if rest:
            out.append(("Games not placed in a round" if rounds else "Games", rest))
        return out


@dataclass(frozen=True)
class FinalMark:
    """The director's confirmation that the results are final: who, when, and the
    digest of the results confirmed (signed with the director's key, when it has one)."""

    who: str
    at: float
    digest: str
    signature: str = ""


class NoGames(TableControllerError, ValueError):
    """The store holds no game yet: nothing to export."""


class ExportError(TableControllerError, RuntimeError):
    """The results cannot be printed or written: why, and what to do."""


Played = tuple[float, "JSONObject | None", float | None, Sheet]  # started, ended, when, sheet


@dataclass(frozen=True)
class _Read:
    """A game's stored events as read and decoded, kept so that when only later events
    came (a game in play), those alone are read: at 256 tables, reading and decoding
    every grown game's events again was most of what the results cost each second."""

    size: tuple[int, int]  # (events, highest seq), as ``game_sizes`` gives them
    events: tuple[LoggedEvent, ...]
    problems: tuple[str, ...]
    started: float
    ended: JSONObject | None
    ended_at: float | None


PlayedCache = dict[tuple[str, int], tuple[object, Played, "_Read | None"]]


def collect(
    store: DirectorStore,
    event: str | None = None,
    *,
    latest: bool = False,
    untitled: str = "Euchre tournament",
    empty_ok: bool = False,
    cache: PlayedCache | None = None,
) -> Results:
    """One event's results from ``store``: every game of that event (tournament/catalog.py),
    as its table recorded it, with the director's corrections, its rules and its
    standings. ``event``: the event's name (needed when the store holds several; an
    unknown name, or none among several, is ``TournamentChoiceError`` naming them);
    ``latest``: the latest event, whatever it is named (the screens). A store with no
    event created holds only games: they are its results, titled ``event`` or
    ``untitled``. With
    no game and no result yet: ``NoGames`` (an export of nothing), or with ``empty_ok``
    (the screens) the event's standings before its first result. ``cache``: each
    game's replay kept between calls (the screens'), read again only when its events
    grew."""
    sizes = store.events.game_sizes() if cache is not None else {}
    arrivals = store.events.game_arrivals()
    events = stored_events(store, arrivals)
    chosen = events[-1] if latest and events else choose(events, event, store.name)
    names = table_names(store)
    if chosen is None:  # no event was created: the games, as they are, titled
        state, first, last, title = _event_state(store), 0, None, event or untitled
    else:
        state = _event_state(store, chosen.last)
        first, last, title = chosen.first, chosen.last, chosen.name
    rounds_of = game_rounds(store, first, last)
    rulings = _rulings(store)
    games: list[GameResult] = []
    for table in sorted(names, key=lambda t: natural(names[t])):
        players_of = _PlayersByGame(store, table)
        for game in store.events.games(table):
            if chosen is not None and not chosen.holds(arrivals.get((table, game), 0.0)):
                continue  # another event's game
            rules_name, options, players = _setup_of(store, state, table, game, players_of)
            setup = (rules_name, options, players)
            played = _played(store, table, game, setup, sizes.get((table, game)), cache)
            started, ended, ended_at, sheet = played
            round_no, place = rounds_of.get((table, game), (None, None))
            games.append(
                GameResult(
                    table,
                    names[table],
                    game,
                    started,
                    players,
                    sheet,
                    round_no,
                    place,
                    ended=ended,
                    ended_at=ended_at,
                    rulings=_ruling_lines(rulings.get((table, game), []), players),
                )
            )
    recorded = [] if state is None else recorded_by_hand(state, games, names)
    if state is not None:
        mark_corrections(store, state, games, first, last)
    if not games and not recorded and not empty_ok:
        where = store.name if chosen is None else f"the event {chosen.name!r} in {store.name}"
        raise NoGames(
            f"{where} holds no game yet ({len(names)} tables heard from) and no "
            "result entered by hand: nothing to export; export once the first game has "
            "been played"
        )
    ev = state.event if state is not None else None
    fmt = "" if ev is None else FORMAT_WORDS[ev.to_json()["format"]]
    rounds = ev.rounds if isinstance(ev, ProgressiveEvent | RoundsEvent) else 0
    results = Results(
        event=title,
        format=fmt,
        dates=dates_text([g.started for g in games]),
        games=games,
        standings=standings(state, games),
        rounds=rounds,
        recorded=recorded,
        rules=_rules_words(state),
        over=state is not None and event_over(state),
        round_names=round_names(ev),
    )
    results.final = final_mark(state, results)
    return results


def round_names(ev: object) -> dict[int, str]:
    """A bracket's rounds as players call them ("Final", "Semi-finals", "Round 1")."""
    if not isinstance(ev, Bracket):
        return {}
    return {int(r["round"]): str(r["name"]) for r in ev.printable()}


def _played(
    store: DirectorStore,
    table: str,
    game: int,
    setup: tuple[str, JSONObject, dict[Seat, str]],
    size: object,
    cache: PlayedCache | None,
) -> Played:
    """A game as its stored events replay under its rules, and the table's own end."""
    rules_name, options, players = setup
    key = (size, rules_name, json.dumps(options, sort_keys=True), sorted(players.items()))
    kept = None if cache is None else cache.get((table, game))
    if kept is not None and size is not None and kept[0] == key:
        return kept[1]
    read = _read(store, table, game, size, None if kept is None else kept[2])
    record = GameRecord(game, rules_name, options, players, read.started)
    sheet = replay_game(
        record, read.events, list(read.problems), _evidence(store, table, game), named=True
    )
    played: Played = (read.started, read.ended, read.ended_at, sheet)
    if cache is not None:
        cache[(table, game)] = (key, played, read if isinstance(size, tuple) else None)
    return played


def _read(store: DirectorStore, table: str, game: int, size: object, before: _Read | None) -> _Read:
    """The game's events read and decoded: only those after ``before``'s when nothing
    else came (the count grew by exactly the events with a higher seq), else all."""
    events: list[LoggedEvent] = []
    problems: list[str] = []
    started, ended, ended_at = 0.0, None, None
    stored = None
    if before is not None and isinstance(size, tuple) and before.events:
        later = store.events.events(table, game, after=before.size[1])
        if before.size[0] + len(later) == size[0]:
            stored = later
            events, problems = list(before.events), list(before.problems)
            started, ended, ended_at = before.started, before.ended, before.ended_at
    if stored is None:
        stored = store.events.events(table, game)
        started = float(stored[0]["at"]) if stored else 0.0
    for e in stored:
        for out in e["outputs"] or []:
            if isinstance(out, dict) and out.get("event") == "game_ended":
                ended, ended_at = dict(out), float(e["at"])
        try:
            inp = decode_input(e["input"])
        except (CodecError, ValueError, TypeError) as exc:
            problems.append(f"event {e['seq']} cannot be read ({exc})")
            continue
        events.append(LoggedEvent(game, e["seq"], inp, e["source"], e["at"], e["evidence"]))
    counted = size if isinstance(size, tuple) else (0, 0)
    return _Read(counted, tuple(events), tuple(problems), started, ended, ended_at)


def _setup_of(
    store: DirectorStore,
    state: TournamentState | None,
    table: str,
    game: int,
    players_of: _PlayersByGame,
) -> tuple[str, JSONObject, dict[Seat, str]]:
    """A game's rules and players: its table's log's (sent with its first event), else
    the event's rules (else the table's status's, else the store's) and its statuses
    (read only when the log named no players)."""
    setup = store.setups.setup(table, game)
    if setup is not None and setup.players:
        return setup.rules, dict(setup.options), dict(setup.players)
    players = players_of.of(game)
    if setup is not None:
        return setup.rules, dict(setup.options), players
    if state is not None and state.rules is not None:
        return state.rules["name"], dict(state.rules["options"]), players
    rules_name, options = store.projections.rules_of(table)
    return rules_name, options, players


def rules_text(name: str, options: Mapping[str, JSONValue]) -> str:
    """The rules as a person reads them: the preset's title and its options in words
    (``rules.option_words``), on the cover and on every score sheet."""
    return option_rules_words(name, dict(options))


def _rules_words(state: TournamentState | None) -> str:
    if state is None or state.rules is None:
        return ""
    return rules_text(state.rules["name"], state.rules["options"])


def _rulings(store: DirectorStore) -> dict[tuple[str, int], list[RulingRow]]:
    """Each game's rulings the table applied, oldest first."""
    out: dict[tuple[str, int], list[RulingRow]] = {}
    for r in store.rulings.rulings():
        game = r.get("game")
        if isinstance(game, int) and r.get("state") == "applied":
            out.setdefault((str(r["table"]), game), []).append(r)
    return out


def _ruling_lines(rulings: list[RulingRow], players: Mapping[Seat, str]) -> list[str]:
    """A game's rulings in words, as the dashboard lists them, with who and why."""
    names = {s.name: n for s, n in players.items()}
    lines = []
    for r in rulings:
        reason = str(r.get("reason") or "").strip()
        said = ruling_text(r, names)
        lines.append(f"{said} ({r['director']}: {reason})" if reason else said)
    return lines


def _evidence(store: DirectorStore, table: str, game: int) -> Evidence:
    def image(seq: int) -> bytes | None:
        return store.events.evidence(table, game, seq)

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


class _PlayersByGame:
    """A table's players by game from its statuses, read when first needed: a table's
    whole status history (up to 2,000 statuses, store/tables.py's HISTORY_ROWS) is not read
    and parsed when its games' own setups name their players. The results are computed
    again for the dashboard's snapshot after every event: at 256 tables, reading every
    table's history each time was the largest part of a snapshot, growing as the event
    went on (docs/benchmarks.md, "256 tables over TLS, signed")."""

    def __init__(self, store: DirectorStore, table: str) -> None:
        self._store, self._table = store, table
        self._by_game: dict[int, dict[Seat, str]] | None = None

    def of(self, game: int) -> dict[Seat, str]:
        """The players of ``game`` as its statuses named them, else the latest named."""
        if self._by_game is None:
            self._by_game = _players_by_game(self._store, self._table)
        return self._by_game.get(game) or self._by_game.get(0) or {}


def _players_by_game(store: DirectorStore, table: str) -> dict[int, dict[Seat, str]]:
    """The players each game was played by, from the table's statuses (the last one
    naming that game); key 0: the table's latest players, for a game no status named."""
    out: dict[int, dict[Seat, str]] = {}
    for entry in reversed(store.tables.status_history(table)):
        st = entry["status"]
        names = _seats(st.get("players"))
        if not names:
            continue
        out.setdefault(0, names)
        game = st.get("game")
        if isinstance(game, int) and not isinstance(game, bool):
            out.setdefault(game, names)
    return out


def _seats(raw: object) -> dict[Seat, str]:
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


def _event_state(store: DirectorStore, version: int | None = None) -> TournamentState | None:
    """The event as last saved (``version``: as saved in that version, an earlier
    event's last)."""
    saved = (
        store.formats.format_state()
        if version is None
        else store.formats.format_state_before(version + 1)
    )
    if saved is None:
        return None
    try:
        return TournamentState.from_json(saved)
    except (FormatError, KeyError, TypeError, ValueError):
        return None


def _place_value(event: Mapping[str, JSONValue], round_no: int, place: str) -> JSONValue:
    """A place's result in the event as saved (``to_json`` of its format)."""
    if event.get("format") == "bracket":
        return as_object(event.get("games") or {}).get(place)
    return as_object(as_object(event.get("results") or {}).get(str(round_no)) or {}).get(str(place))


def game_rounds(
    store: DirectorStore, first: int = 0, last: int | None = None
) -> dict[tuple[str, int], tuple[int, str]]:
    """(table, game) -> (round, place): from each version of the event (those numbered
    ``first`` to ``last``: one event's) that took a game's result (``taken`` grew), the
    round whose place for that table changed."""
    out: dict[tuple[str, int], tuple[int, str]] = {}
    before: Mapping[str, JSONValue] = {}
    for _action, saved in store.formats.format_versions(first, last):
        state: Mapping[str, JSONValue] = saved  # the event as saved (``TournamentState.to_json``)
        taken_before = set(as_list(before.get("taken") or []))
        new = [k for k in as_list(state.get("taken") or []) if k not in taken_before]
        event = as_object(state.get("event") or {})
        old_event = as_object(before.get("event") or {})
        for key in new:
            table, _, rest = str(key).partition(":")
            game_text = rest.partition(":")[0]
            if not game_text.isdigit():
                continue
            for round_text, places in sorted(
                as_object(state.get("assign") or {}).items(), key=lambda kv: int(kv[0])
            ):
                found = as_object(places).get(table)
                if found is None:
                    continue
                place, r = str(found), int(round_text)
                if _place_value(event, r, place) != _place_value(old_event, r, place):
                    out[(table, int(game_text))] = (r, str(place))
                    break
        before = state
    return out


def recorded_by_hand(
    state: TournamentState, games: list[GameResult], names: Mapping[str, str]
) -> list[RecordedResult]:
    """The event's results that no game from the feed stands behind: entered by hand
    (a table without a camera, a score card). A result the director changed for a game
    is that game's correction (``mark_corrections``), never a second result."""
    ev = state.event
    fed = {(g.round, g.place) for g in games if g.round is not None}
    out: list[RecordedResult] = []
    if not isinstance(ev, ProgressiveEvent | RoundsEvent):
        return out
    people = state.people
    for round_no in sorted(int(r) for r in ev.results):
        feed = {p: t for t, p in state.assign.get(round_no, {}).items()}
        for place in sorted(int(p) for p in ev.results[round_no]):
            if (round_no, str(place)) in fed:
                continue
            table = feed.get(str(place))
            title = str(names.get(table, table) if table else f"Table {place}")
            if isinstance(ev, ProgressiveEvent):
                seats = ev.tables(round_no)[place - 1]
                players = {Seat.parse(s): people.name(pid) for s, pid in seats.items()}
                points = {Seat.parse(s): int(v) for s, v in ev.results[round_no][place].items()}
                out.append(
                    RecordedResult(
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
                )
            else:
                a, b = ev.tables(round_no)[place - 1]
                res = ev.results[round_no][place]
                sides = (team_words(state, a), team_words(state, b))
                scores = (int(res.points[0]), int(res.points[1]))
                out.append(
                    RecordedResult(
                        round_no, str(place), title, sides[0], sides[1], scores, sides[res.winner]
                    )
                )
    return out


def _event_words(state: TournamentState, game: GameResult, value: object) -> str:
    """A place's result as the event's JSON holds it, in the game's own words."""
    if isinstance(value, Mapping) and "points" in value:  # a team round's result
        points = value["points"]
        return f"{game.team(Team.NS)} {points[0]}, {game.team(Team.EW)} {points[1]}"
    if isinstance(value, Mapping):  # progressive: seat -> points
        return ", ".join(
            f"{game.players.get(s) or SEAT_NAMES[s]} {value.get(s.name, 0)}" for s in Seat
        )
    if isinstance(value, list):  # a bracket match's games: each game's winner
        return "games won by " + (
            ", ".join(team_words(state, str(w)) for w in value) if value else "nobody yet"
        )
    return "no result"


def _as_table_gave(ev: Event, game: GameResult, round_no: int, place: str) -> bool:
    """Does the event now hold the game's own result (a change put back)?"""
    if isinstance(ev, ProgressiveEvent):
        current = ev.results.get(round_no, {}).get(int(place))
        return (
            current is not None
            and game.individual is not None
            and {Seat.parse(s): int(v) for s, v in current.items()} == game.individual
        )
    if isinstance(ev, RoundsEvent):
        result = ev.results.get(round_no, {}).get(int(place))
        return result is not None and tuple(result.points) == game.scores
    return False


def mark_corrections(
    store: DirectorStore,
    state: TournamentState,
    games: list[GameResult],
    first: int = 0,
    final: int | None = None,
) -> None:
    """Each game whose place's result the director changed after its table sent it
    carries the correction: the table's result, the one that stands, who, why, when
    (read from the event's versions, ``first`` to ``final``)."""
    ev = state.event
    if ev is None:
        return
    placed: dict[tuple[int, str], list[GameResult]] = {}  # a bracket's match: its games
    for g in games:
        if g.round is not None and g.place:
            placed.setdefault((g.round, g.place), []).append(g)
    if not placed:
        return
    last: dict[tuple[int, str], FormatChange] = {}
    before: Mapping[str, JSONValue] = {}
    for change in store.formats.format_changes(first, final):
        event = change["state"].get("event")
        # the event as saved (``TournamentState.to_json``): an object, or None before one
        now: Mapping[str, JSONValue] = event if isinstance(event, dict) else {}
        if change["action"] in ("result", "match_corrected"):
            for round_no, place in placed:
                assert round_no is not None and place is not None
                old = _place_value(before, round_no, place)
                if _place_value(now, round_no, place) != old and old is not None:
                    last[(round_no, place)] = change
        before = now
    for (round_no, place), change in last.items():
        value = _place_value(before, round_no, place)
        scores, individual = _values(value)
        for game in placed[(round_no, place)]:
            if _as_table_gave(ev, game, round_no, place):
                continue  # changed, then put back as the table had it
            game.correction = Correction(
                before=game.result_words,
                after=_event_words(state, game, value),
                who=str(change["who"]),
                why=str(change.get("reason") or ""),
                at=float(change["at"]),
                scores=scores,
                individual=individual,
            )


def _values(value: object) -> tuple[tuple[int, int] | None, dict[Seat, int] | None]:
    """A place's result from the event's JSON: team points, or each seat's points."""
    if isinstance(value, Mapping) and "points" in value:
        points = value["points"]
        return (int(points[0]), int(points[1])), None
    if isinstance(value, Mapping):
        return None, {s: int(value.get(s.name, 0)) for s in Seat}
    return None, None


def event_over(state: TournamentState) -> bool:
    """Every round's result is in (a bracket: its champion is known)."""
    ev = state.event
    if isinstance(ev, ProgressiveEvent):
        return all(not ev.missing(r) for r in range(1, ev.rounds + 1))
    if isinstance(ev, RoundsEvent):
        return ev.complete() and ev.champion() is not None
    if isinstance(ev, Bracket):
        return ev.champion() is not None
    return False


def results_digest(results: Results) -> str:
    """A digest of what the papers say: every game's result and the standings. The
    director confirms these as final; any later change makes them provisional again."""
    facts = {
        "games": [
            [
                g.table,
                g.game,
                g.round,
                g.place,
                sorted((s.name, n) for s, n in g.players.items()),
                list(g.scores),
                None if g.individual is None else [g.individual[s] for s in Seat],
                None if g.winner is None else g.winner.name,
                g.finished,
                None if g.correction is None else g.correction.after,
            ]
            for g in results.games
        ],
        "recorded": [
            [
                r.round,
                r.place,
                r.ns,
                r.ew,
                r.scores,
                r.winner,
                sorted((s.name, v) for s, v in (r.individual or {}).items()),
            ]
            for r in results.recorded
        ],
        "standings": [results.standings.heads, results.standings.rows, results.standings.note],
    }
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def final_mark(state: TournamentState | None, results: Results) -> FinalMark | None:
    """The director's "results final", if it confirmed exactly these results."""
    if state is None or state.final is None:
        return None
    f = state.final
    if f.get("digest") != results_digest(results):
        return None
    return FinalMark(
        str(f.get("who", "")), float(f.get("at", 0)), str(f["digest"]), str(f.get("signature", ""))
    )


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
