"""Who sits where in the event demo, round after round, as the results come in.

A progressive event's chart seats every round before the first card (003): the demo
hands each table all its rounds at the start. A 12-hand team event (001) seats each
round from the last one's results (the winners stay, the losers move on), and a bracket
(000) seats a match once both its teams are known and plays it game after game until
one team has won enough. For those the ``Seater`` watches the event as the director's
store keeps it and, as a director would, assigns each new round or match to a table and
sends the table its players (``push``) the moment they are known.

The 12-hand event's final (001 s18) and any tie-break before it are the director's to
enter on the dashboard's forms, as at a real event; the demo does not seat them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from table_controller.director.tournament import (
    Bracket,
    FormatError,
    ProgressiveEvent,
    RoundsEvent,
    TournamentAdmin,
    TournamentState,
    slug,
)

log = logging.getLogger(__name__)

Kind = Literal["progressive", "rounds", "bracket"]
KINDS: tuple[Kind, ...] = ("progressive", "rounds", "bracket")
# The team events' teams, in the order they are drawn (table k's two come 2k-1, 2k).
TEAM_NAMES = (
    "Aces", "Bowers", "Clubs", "Diamonds", "Euchres", "Farmers", "Green Jacks", "Hearts",
    "Islanders", "Jokers", "Kings", "Loners", "Marchers", "Nines", "Off Jacks", "Partners",
    "Queens", "Right Bowers", "Spades", "Tens", "Underdogs", "Voids", "Widows", "Yukons",
)  # fmt: skip

Seats = dict[str, str]  # seat letter -> the name of who sits there
Push = Callable[[str, Seats], None]  # (table id, its players): play this game next


@dataclass(frozen=True)
class FormatRules:
    """The rules a format's games are played under at the demo's tables."""

    preset: str
    options: dict[str, int]
    words: str  # "a progressive event of 3 rounds of 8 hands", for the start-up words


def format_rules(kind: Kind, *, rounds: int, hands: int | None, points: int | None) -> FormatRules:
    """Each format's rule text and preset: 003's progressive (8 hands scored for each
    player), 001's 12-hand team rounds, 000's games (to 10) in best-of-three matches.
    ``hands``/``points`` shorten them for a quick look."""
    if kind == "progressive":
        n = hands or 8
        options = {} if hands is None else {"hands_per_game": hands}
        return FormatRules(
            "td-progressive", options, f"a progressive event of {rounds} rounds of {n} hands"
        )
    if kind == "rounds":
        n = hands or 12
        options = {} if hands is None else {"hands_per_game": hands}
        return FormatRules(
            "nmu-tournament", options, f"a team event of {rounds} rounds of {n} hands"
        )
    to = points or 10
    options = {} if points is None else {"points_to_win": points}
    return FormatRules("td-tournament", options, f"a knock-out bracket of games to {to}")


def event_lines(kind: Kind, names: Sequence[str]) -> list[str]:
    """The event's list as the director types it on the dashboard: one player a line
    (progressive), or one team a line, ``Team: Player one, Player two``."""
    if kind == "progressive":
        return list(names)
    return [f"{TEAM_NAMES[i]}: {names[2 * i]}, {names[2 * i + 1]}" for i in range(len(names) // 2)]


def team_seats(state: TournamentState, round_no: int, ns: str, ew: str) -> Seats:
    """A team table: the first team North and South, the second East and West; a player
    with a substitute that round is replaced by them."""
    people = state.people

    def two(team: str) -> tuple[str, str]:
        a, b = state.roster.teams[team].players
        return people.name(people.sitting(round_no, a)), people.name(people.sitting(round_no, b))

    (n, s), (e, w) = two(ns), two(ew)
    return {"N": n, "E": e, "S": s, "W": w}


def progressive_seats(state: TournamentState, round_no: int) -> list[Seats]:
    """Each table's players in a progressive round, as the chart seats them."""
    event = state.event
    assert isinstance(event, ProgressiveEvent)
    people = state.people
    return [{s: people.name(p) for s, p in t.items()} for t in event.seating(round_no)]


@dataclass
class _Table:
    id: str
    number: int
    match: str | None = None  # the bracket match it plays now
    games: int = 0  # games sent for that match


@dataclass
class Seater:
    """Seats the event at the demo's tables (see the module's docstring). ``start()``
    seats what is known at once and, for the team formats, watches for the rest on a
    thread of its own until ``stop()``."""

    admin: TournamentAdmin
    tables: Sequence[tuple[str, int]]  # (id, number) of each demo table
    push: Push
    who: str
    _tables: list[_Table] = field(init=False)
    _changed: threading.Event = field(default_factory=threading.Event, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _seated_round: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self._tables = [_Table(i, n) for i, n in self.tables]

    def first(self) -> dict[str, list[Seats]]:
        """What each table plays from the start: every progressive round, or the first
        round (or match) of a team event. Assigns them in the event as it goes."""
        event = self.admin.state.event
        if isinstance(event, ProgressiveEvent):
            out: dict[str, list[Seats]] = {t.id: [] for t in self._tables}
            for r in range(1, event.rounds + 1):
                self._assign(r, {t.id: str(t.number) for t in self._tables})
                seats = progressive_seats(self.admin.state, r)
                for t in self._tables:
                    out[t.id].append(seats[t.number - 1])
            return out
        return {t: [s] for t, s in self._seat().items()}

    def start(self) -> None:
        if isinstance(self.admin.state.event, ProgressiveEvent):
            return  # all seated by first()
        self.admin.listeners.append(lambda _action, _state: self._changed.set())
        self._thread = threading.Thread(target=self._watch, daemon=True, name="seater")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._changed.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _watch(self) -> None:
        while not self._stop.is_set():
            self._changed.wait(1.0)
            self._changed.clear()
            if self._stop.is_set():
                return
            try:
                for table_id, seats in self._seat().items():
                    self.push(table_id, seats)
            except Exception:  # the demo runs on; what went wrong is logged
                log.exception("the demo could not seat the next game")

    def _assign(self, round_no: int, places: dict[str, str]) -> None:
        self.admin.assign_round(self.who, round_no, places, reason=f"round {round_no}'s tables")

    def _seat(self) -> dict[str, Seats]:
        """The games newly known: table id -> its players."""
        with self.admin.lock:
            event = self.admin.state.event
            if isinstance(event, RoundsEvent):
                return self._seat_round(event)
            if isinstance(event, Bracket):
                return self._seat_matches(event)
        return {}

    def _seat_round(self, event: RoundsEvent) -> dict[str, Seats]:
        """The next 12-hand round, once every table's result of the last one is in."""
        r = self._seated_round + 1
        if r > event.rounds:
            return {}
        try:
            pairs = event.tables(r)
        except FormatError:
            return {}  # the last round's results are still coming
        by_number = {t.number: t for t in self._tables}
        places = {by_number[i + 1].id: str(i + 1) for i in range(len(pairs)) if i + 1 in by_number}
        self._assign(r, places)
        self._seated_round = r
        state = self.admin.state
        return {
            by_number[i + 1].id: team_seats(state, r, ns, ew)
            for i, (ns, ew) in enumerate(pairs)
            if i + 1 in by_number
        }

    def _seat_matches(self, event: Bracket) -> dict[str, Seats]:
        """A match's next game where its table's last one is in; a new match for each
        table whose match is over."""
        out: dict[str, Seats] = {}
        state = self.admin.state
        for t in self._tables:
            if t.match is None:
                continue
            m = event.match(t.match)
            if m.winner is None and len(m.games) >= t.games:
                assert m.top is not None and m.bottom is not None
                out[t.id] = team_seats(state, m.round, m.top, m.bottom)
                t.games += 1
        taken = {t.match for t in self._tables}
        free = [t for t in self._tables if t.match is None or event.match(t.match).winner]
        for m in event.playable():
            if m.id in taken or not free:
                continue
            t = free.pop(0)
            places = dict(self.admin.state.assign.get(m.round, {}))
            places[t.id] = m.id
            self._assign(m.round, places)
            t.match, t.games = m.id, 1
            assert m.top is not None and m.bottom is not None
            out[t.id] = team_seats(self.admin.state, m.round, m.top, m.bottom)
        return out


__all__ = [
    "KINDS",
    "TEAM_NAMES",
    "FormatRules",
    "Kind",
    "Seater",
    "Seats",
    "event_lines",
    "format_rules",
    "progressive_seats",
    "slug",
    "team_seats",
]
