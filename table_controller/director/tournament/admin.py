"""The event's format run from the dashboard: the glue between the store, the formats
(``tournament.formats``, pure) and the results the tables send.

The whole event is one JSON document (:class:`TournamentState`): the format's own JSON, the
roster, which feed table plays which format table in each round (``assign``), the games
already taken from the feed, and the public view's delay. Every change, by a director
or by a table's game ending, saves a new version in the store's append-only
``format_state`` history with who, when and why, so a restarted director loses nothing
and every correction can be traced.

Results from the feed: a table's ``game_ended`` output is the result of the round and
format table that table was assigned and has not yet reported (the lowest round first).
A progressive table gives each seat's individual score; a team table gives NS (the
format table's first team) and EW (the second); in a bracket each game is one game of
the match, NS the match's top entrant. A game no assignment covers is kept as
``unplaced`` for the director to record by hand.
"""

from __future__ import annotations

import copy
import logging
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict, TypeVar, cast

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.pace import PaceError, RoundClock, check_round_time
from table_controller.director.store import DirectorStore, EndedGame, FormatVersion
from table_controller.director.tournament.catalog import (
    TournamentChoiceError,
    check_name,
    date_name,
    day_words,
    name_key,
    stored_events,
)
from table_controller.director.tournament.formats import (
    Bracket,
    BracketRound,
    Event,
    EventJSON,
    FinalResultJSON,
    FormatError,
    Playoff,
    PlayoffJSON,
    ProgressiveEvent,
    Roster,
    RosterJSON,
    RoundsEvent,
    StandingJSON,
    TeamStandingJSON,
    as_float,
    as_int,
    as_list,
    as_object,
    load,
    scores_from_game_ended,
)
from table_controller.errors import TableControllerError

KINDS = ("progressive", "rounds", "bracket")
log = logging.getLogger(__name__)


class AdminError(TableControllerError, ValueError):
    """A change to the event that cannot be made: what is wrong and what to do."""


class TeamStandingRow(TeamStandingJSON):
    """A team's line of a team event's standings, with the team in words."""

    name: str


class ChampionRow(TypedDict):
    """A bracket's standings once it has a champion: the champion alone."""

    place: int
    team: str
    name: str


# A line of the event's standings, as the dashboard's event section shows it.
StandingRow = StandingJSON | TeamStandingRow | ChampionRow

T = TypeVar("T")  # what an edit of the event returns (``TournamentAdmin.change``)


class ResultsFinal(TypedDict):
    """The director's "results final": who confirmed which results (their digest),
    when, and the director's signature of it."""

    digest: str
    who: str
    at: float
    signature: str


class UnplacedResult(TypedDict):
    """A game's end no round could take (``take_result``): the director records it by
    hand; ``problem`` when the format refused it."""

    table: str
    game: int
    seq: int
    result: JSONObject
    problem: NotRequired[str]


class SeatingTable(TypedDict):
    """One of a round's tables: its number, the feed table that plays it (None: not
    assigned yet) and who sits where (seats, or NS and EW's teams)."""

    table: int
    feed: str | None
    seats: dict[str, str]


class Seating(TypedDict):
    """A round's seating (``seating``), or why not yet (``problem``)."""

    round: int
    tables: list[SeatingTable]
    byes: list[str]
    problem: NotRequired[str]


class TeamChoice(TypedDict):
    """A team the playoff's and a correction's forms offer: its id and its words."""

    id: str
    name: str


class PlayedPlayoff(TypedDict):
    """Playoff hands recorded between two teams, their points as the teams are named."""

    teams: list[str]
    points: list[int]


class PlayoffNext(PlayoffJSON):
    """What the standings call for next, and the playoff hands already played."""

    played: list[PlayedPlayoff]


class PlayoffProblem(TypedDict):
    """Why the next step cannot be named yet, and the playoff hands already played."""

    problem: str
    played: list[PlayedPlayoff]


class TournamentSummary(TypedDict):
    """What the dashboard's event section and the public page draw (``summary``):
    only ``format`` and ``public_delay`` before an event is created; ``history`` from
    the store (``TournamentAdmin.summary``)."""

    name: NotRequired[str]
    format: str | None
    rounds: NotRequired[int]
    round: NotRequired[int | None]
    standings: NotRequired[Sequence[StandingRow]]
    seating: NotRequired[Seating | None]
    next: NotRequired[Seating | None]
    assign: NotRequired[dict[str, dict[str, str]]]
    roster: NotRequired[RosterJSON]
    unplaced: NotRequired[list[UnplacedResult]]
    public_delay: float
    round_clock: NotRequired[RoundClockJSON | None]
    teams: NotRequired[list[TeamChoice]]
    bracket: NotRequired[list[BracketRound]]
    champion: NotRequired[str | None]
    playoff: NotRequired[PlayoffNext | PlayoffProblem]
    final: NotRequired[FinalResultJSON | None]
    history: NotRequired[list[FormatVersion]]


class RoundClockJSON(TypedDict):
    """The round's time as the event keeps it (``RoundClock``): minutes a round, the
    hands a round when the director fixed them, and the round's clock once started."""

    minutes: int
    hands: int | None
    round: int | None
    started: float | None


def _clock_json(clock: RoundClock | None) -> RoundClockJSON | None:
    if clock is None:
        return None
    return RoundClockJSON(
        minutes=clock.minutes, hands=clock.hands, round=clock.round, started=clock.started
    )


def _clock_from(raw: JSONValue) -> RoundClock | None:
    """The round's time as saved; one that no longer reads is dropped (the director
    sets it again), never the event with it."""
    if not isinstance(raw, Mapping):
        return None
    rnd, started = raw.get("round"), raw.get("started")
    try:
        return RoundClock(
            minutes=cast(int, raw.get("minutes")),
            hands=cast(int | None, raw.get("hands")),
            round=rnd if type(rnd) is int else None,
            started=float(started) if isinstance(started, int | float) else None,
        )
    except PaceError:
        log.warning("the saved round's time cannot be read (%r): set it again", dict(raw))
        return None


class TournamentStateJSON(TypedDict):
    """The whole event as the store keeps it (``TournamentState.to_json``): round and table
    numbers as text, since JSON's keys are."""

    name: str
    created: float
    event: EventJSON | None
    roster: RosterJSON
    assign: dict[str, dict[str, str]]
    taken: list[str]
    unplaced: list[UnplacedResult]
    public_delay: float
    rules: TournamentRules | None
    final: ResultsFinal | None
    round_clock: RoundClockJSON | None


@dataclass
class TournamentState:
    """The whole event as one JSON-able document (see the module's docstring)."""

    event: Event | None = None
    # The event's name as a director recognises it (the dashboard's, every paper's, and
    # what ``director export --event`` picks it by) and when it was created: one store
    # may hold a club's events month after month (tournament/catalog.py). "" and 0: an event
    # created before events had names, named by its creation's date.
    name: str = ""
    created: float = 0.0
    roster: Roster = field(default_factory=Roster)  # team formats (progressive: event's)
    assign: dict[int, dict[str, str]] = field(default_factory=dict)  # round -> table -> place
    taken: list[str] = field(default_factory=list)  # "table:game:seq" results already used
    unplaced: list[UnplacedResult] = field(default_factory=list)
    public_delay: float = 0.0
    # The event's rules, kept when it is created (the preset's name and its options):
    # the papers and any game whose table sent none are scored under them.
    rules: TournamentRules | None = None
    # The director's "results final" (``results_final``): who, when, and the signed
    # digest of the results confirmed; None while they are provisional.
    final: ResultsFinal | None = None
    # The round's time (minutes, hands) and its clock once started: the pace of play.
    round_clock: RoundClock | None = None

    @property
    def people(self) -> Roster:
        if isinstance(self.event, ProgressiveEvent):
            return self.event.roster
        return self.roster

    def to_json(self) -> TournamentStateJSON:
        return {
            "name": self.name,
            "created": self.created,
            "event": None if self.event is None else self.event.to_json(),
            "roster": self.roster.to_json(),
            "assign": {str(r): dict(m) for r, m in self.assign.items()},
            "taken": list(self.taken),
            "unplaced": list(self.unplaced),
            "public_delay": self.public_delay,
            "rules": None if self.rules is None else TournamentRules(**self.rules),
            "final": None if self.final is None else ResultsFinal(**self.final),
            "round_clock": _clock_json(self.round_clock),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> TournamentState:
        """The event as the store gave it back (``to_json``'s, decoded): each field
        checked as it is read; the format's own fields by the format (FormatError)."""
        raw = obj.get("event")
        name, created = obj.get("name"), obj.get("created")
        roster, final, unplaced = obj.get("roster"), obj.get("final"), obj.get("unplaced")
        return cls(
            name=name if isinstance(name, str) else "",
            created=float(created) if isinstance(created, int | float) else 0.0,
            event=None if raw is None else load(as_object(raw)),
            roster=Roster.from_json(as_object(roster)) if roster else Roster(),
            assign={
                int(r): {str(t): str(p) for t, p in as_object(m).items()}
                for r, m in as_object(obj.get("assign") or {}).items()
            },
            taken=[str(k) for k in as_list(obj.get("taken") or [])],
            # as ``to_json`` saved them: shown to the director, never read by the format
            unplaced=cast(list[UnplacedResult], list(unplaced))
            if isinstance(unplaced, list)
            else [],
            public_delay=as_float(obj.get("public_delay") or 0.0),
            rules=_event_rules(obj.get("rules")),
            # as ``to_json`` saved it
            final=cast(ResultsFinal, dict(final)) if isinstance(final, Mapping) else None,
            round_clock=_clock_from(obj.get("round_clock")),
        )


def _as_stored(saved: TournamentStateJSON) -> JSONObject:
    """The event as the store takes it. Every field of an ``TournamentStateJSON`` is JSON,
    but a TypedDict is not a ``dict[str, JSONValue]`` to the type checker: the one cast,
    where the event is saved, and its fields typed everywhere up to here."""
    return cast(JSONObject, saved)


class TournamentRules(TypedDict):
    """The event's rules: a preset's name and the director's options."""

    name: str
    options: JSONObject


def _event_rules(raw: JSONValue) -> TournamentRules | None:
    if not isinstance(raw, Mapping):
        return None
    name, options = raw.get("name"), raw.get("options")
    if not isinstance(name, str):
        return None
    return TournamentRules(name=name, options=dict(options) if isinstance(options, Mapping) else {})


# --- creating an event (pure) -------------------------------------------------------------


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "x"


def create(kind: str, lines: Sequence[str], *, rounds: int, best_of: int = 3) -> TournamentState:
    """A new event from the dashboard's list: one player a line (progressive), or one
    team a line (``Team name: Player one, Player two``; the players are optional)."""
    names = [ln.strip() for ln in lines if ln.strip()]
    state = TournamentState()
    try:
        if kind == "progressive":
            roster = Roster()
            for n in names:
                roster.add_player(slug(n), n)
            state.event = ProgressiveEvent(list(roster.players), rounds, roster=roster)
            return state
        teams: list[str] = []
        for line in names:
            team, _, members = line.partition(":")
            tid = slug(team)
            players = [m.strip() for m in members.split(",") if m.strip()]
            if players and len(players) != 2:
                raise AdminError(
                    f"{line!r}: a team is two players, written 'Team name: Player one, Player two'"
                )
            for p in players:
                if slug(p) not in state.roster.players:
                    state.roster.add_player(slug(p), p)
            if players:
                state.roster.add_team(tid, team.strip(), (slug(players[0]), slug(players[1])))
            teams.append(tid)
        if kind == "rounds":
            state.event = RoundsEvent(teams, rounds)
        elif kind == "bracket":
            state.event = Bracket(teams, best_of=best_of)
        else:
            raise AdminError(f"the format is one of {', '.join(KINDS)}, not {kind!r}")
    except FormatError as exc:
        raise AdminError(str(exc)) from None
    return state


# --- results from the feed (pure) -----------------------------------------------------------


def _place_done(state: TournamentState, round_no: int, place: str) -> bool:
    ev = state.event
    if isinstance(ev, Bracket):
        return ev.match(place).winner is not None
    assert ev is not None
    return int(place) in ev.results.get(round_no, {})


def take_result(
    state: TournamentState,
    table: str,
    game: int,
    seq: int,
    outputs: Sequence[Mapping[str, JSONValue]],
) -> str | None:
    """Apply one stored event's ``game_ended`` to the event; the words of what changed
    (None: not a game's end, or already taken)."""
    key = f"{table}:{game}:{seq}"
    ended = next((o for o in outputs if o.get("event") == "game_ended"), None)
    if ended is None or key in state.taken or state.event is None:
        return None
    state.taken.append(key)
    spot = next(
        (
            (r, m[table])
            for r, m in sorted(state.assign.items())
            if table in m and not _place_done(state, r, m[table])
        ),
        None,
    )
    if spot is None:
        state.unplaced.append({"table": table, "game": game, "seq": seq, "result": dict(ended)})
        return f"{table}'s game {game} ended, but no round assigns {table}: record it by hand"
    round_no, place = spot
    try:
        return record(state, round_no, place, ended)
    except FormatError as exc:
        state.unplaced.append(
            {"table": table, "game": game, "seq": seq, "result": dict(ended), "problem": str(exc)}
        )
        return f"{table}'s game {game} could not be recorded ({exc}): record it by hand"


def record(
    state: TournamentState, round_no: int, place: str, ended: Mapping[str, JSONValue]
) -> str:
    """Record (or correct) one result. ``ended`` is a ``game_ended`` payload: ``scores``
    [NS, EW], ``winner`` "NS"/"EW"/None, and ``individual`` for a progressive table."""
    ev = state.event
    given = ended.get("scores") or (0, 0)
    if not isinstance(given, list | tuple):
        raise TypeError(f"scores are [NS, EW], not {given!r}")
    scores = [as_int(s) for s in given]
    winner = ended.get("winner")
    if isinstance(ev, ProgressiveEvent):
        seats = scores_from_game_ended(ended)
        ev.record(round_no, int(place), seats)
        return f"round {round_no}, table {place}: " + ", ".join(
            f"{k} {v}" for k, v in seats.items()
        )
    if isinstance(ev, RoundsEvent):
        side = None if winner is None else (0 if winner == "NS" else 1)
        ev.record(round_no, int(place), (scores[0], scores[1]), side)
        return f"round {round_no}, table {place}: {scores[0]} to {scores[1]}"
    if isinstance(ev, Bracket):
        m = ev.match(place)
        if winner not in ("NS", "EW"):
            raise FormatError("a bracket game needs a winner (NS or EW)")
        who = m.top if winner == "NS" else m.bottom
        assert who is not None
        ev.record_game(place, who)
        return f"match {place}: a game to {who}"
    raise FormatError("no event has been created yet: create it first")


# --- what the dashboard shows (pure) ---------------------------------------------------------


def current_round(state: TournamentState) -> int | None:
    """The first round with a result missing (None: all in, or a bracket)."""
    ev = state.event
    if isinstance(ev, ProgressiveEvent):
        return next((r for r in range(1, ev.rounds + 1) if ev.missing(r)), None)
    if isinstance(ev, RoundsEvent):
        n = len(ev.tables(1))
        return next((r for r in range(1, ev.rounds + 1) if len(ev.results.get(r, {})) < n), None)
    return None


def seating(state: TournamentState, round_no: int) -> Seating:
    """A round's tables with names (and which feed table plays each), or why not yet."""
    ev = state.event
    people = state.people
    where = {p: t for t, p in state.assign.get(round_no, {}).items()}
    try:
        tables: list[SeatingTable]
        if isinstance(ev, ProgressiveEvent):
            tables = [
                {
                    "table": i + 1,
                    "feed": where.get(str(i + 1)),
                    "seats": {s: people.name(p) for s, p in t.items()},
                }
                for i, t in enumerate(ev.seating(round_no))
            ]
            return {
                "round": round_no,
                "tables": tables,
                "byes": [people.name(p) for p in ev.byes(round_no)],
            }
        if isinstance(ev, RoundsEvent):
            tables = [
                {
                    "table": i + 1,
                    "feed": where.get(str(i + 1)),
                    "seats": {"NS": team_words(state, a), "EW": team_words(state, b)},
                }
                for i, (a, b) in enumerate(ev.tables(round_no))
            ]
            bye = ev.bye(round_no)
            return {
                "round": round_no,
                "tables": tables,
                "byes": [] if bye is None else [team_words(state, bye)],
            }
    except FormatError as exc:
        return {"round": round_no, "tables": [], "byes": [], "problem": str(exc)}
    return {"round": round_no, "tables": [], "byes": []}


def team_words(state: TournamentState, tid: str) -> str:
    t = state.roster.teams.get(tid)
    if t is None:
        return tid
    return f"{t.name} ({state.roster.name(t.players[0])} & {state.roster.name(t.players[1])})"


def player_standings(ev: ProgressiveEvent) -> list[StandingJSON]:
    """A progressive event's standings: each player's line."""
    return [s.to_json() for s in ev.standings()]


def team_standings(state: TournamentState, ev: RoundsEvent) -> list[TeamStandingRow]:
    """A team event's standings: each team's line, the team in words."""
    return [{**s.to_json(), "name": team_words(state, s.team)} for s in ev.placings()]


def standings(state: TournamentState) -> Sequence[StandingRow]:
    ev = state.event
    if isinstance(ev, ProgressiveEvent):
        return player_standings(ev)
    if isinstance(ev, RoundsEvent):
        return team_standings(state, ev)
    if isinstance(ev, Bracket):
        champion = ev.champion()
        won: list[ChampionRow] = (
            []
            if champion is None
            else [{"place": 1, "team": champion, "name": team_words(state, champion)}]
        )
        return won
    return []


def summary(state: TournamentState) -> TournamentSummary:
    """Everything the dashboard's event section and the public page draw."""
    ev = state.event
    if ev is None:
        return {"format": None, "public_delay": state.public_delay}
    rnd = current_round(state)
    named = state.name or (date_name(state.created) if state.created else "")
    rounds = ev.rounds if isinstance(ev, ProgressiveEvent | RoundsEvent) else 0
    out: TournamentSummary = {
        "name": named,
        "format": ev.to_json()["format"],
        "rounds": rounds,
        "round": rnd,
        "standings": standings(state),
        "seating": None if rnd is None else seating(state, rnd),
        "next": None if rnd is None or rnd >= rounds else seating(state, rnd + 1),
        "assign": {str(r): m for r, m in state.assign.items()},
        "roster": state.people.to_json(),
        "unplaced": state.unplaced,
        "public_delay": state.public_delay,
        "round_clock": _clock_json(state.round_clock),
    }
    if isinstance(ev, Bracket | RoundsEvent):  # the playoff's and correction's choices
        ids = ev.entrants if isinstance(ev, Bracket) else ev.teams
        out["teams"] = [{"id": t, "name": team_words(state, t)} for t in ids]
    if isinstance(ev, Bracket):
        out["bracket"] = ev.printable()
        out["champion"] = ev.champion()
    if isinstance(ev, RoundsEvent) and ev.complete():
        played: list[PlayedPlayoff] = [
            {"teams": [a, b], "points": list(p)} for (a, b), p in ev.playoff_results.items()
        ]
        try:
            out["playoff"] = {**ev.next_step().to_json(), "played": played}
        except FormatError as exc:
            out["playoff"] = {"problem": str(exc), "played": played}
    if isinstance(ev, RoundsEvent):  # the final (001 s18), once recorded, and its winner
        out["final"] = None if ev.final is None else ev.final.to_json()
        out["champion"] = ev.champion()
    return out


# --- the playoff and a bracket's corrections (pure) -------------------------------------------


def team_of(state: TournamentState, given: str, among: Sequence[str], where: str) -> str:
    """The team id ``given`` names (its id, or its name as typed) among ``among``."""
    text = given.strip()
    if not text:
        raise AdminError(f"a team is missing {where}: choose one")
    for t in among:
        if text == t or slug(text) == t:
            return t
    names = ", ".join(team_words(state, t) for t in among)
    raise AdminError(f"there is no team {text!r} {where}: it is one of {names}")


def playoff_words(state: TournamentState, step: Playoff) -> str:
    """What the standings call for next, in words (001 s18 to s20)."""
    pairs = "; ".join(" v ".join(team_words(state, t) for t in m) for m in step.matches)
    if step.kind == "final":
        return f"the final (001 s18): {pairs}, {step.hands} hands"
    if step.kind == "sudden_death":
        return f"sudden-death hands (001 s19): {pairs}"
    rule = "001 s19" if step.kind == "tie_playoff" else "001 s20, a round robin"
    return f"a {step.hands}-hand playoff ({rule}): {pairs}"


def record_playoff(state: TournamentState, a: str, b: str, points: tuple[int, int]) -> str:
    """Tie-break hands between ``a`` and ``b`` (001 s19/s20), only those the standings
    call for now, so a slip of the pen cannot put a wrong team in the final."""
    ev = state.event
    if not isinstance(ev, RoundsEvent):
        raise AdminError(
            "playoffs are played only in a 12-hand rounds event: "
            + (
                "create it first"
                if ev is None
                else f"this event is a {ev.to_json()['format']} event"
            )
        )
    rnd = current_round(state)
    if rnd is not None:
        raise AdminError(
            f"the rounds are not over: round {rnd} still has results to come. "
            "The playoff is chosen from the standings after the last round "
            "(001 s18): record the rounds' results first"
        )
    ta = team_of(state, a, ev.teams, "in this event")
    tb = team_of(state, b, ev.teams, "in this event")
    if ta == tb:
        raise AdminError("a playoff is between two different teams: choose the other team")
    if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in points):
        raise AdminError(f"points are whole numbers 0 or more, not {points!r}")
    if points == (0, 0):
        raise AdminError(
            "0 to 0 records no hand (every hand scores for one team): "
            "write the points each team scored"
        )
    step = ev.next_step()
    if step.kind == "final":
        raise AdminError(
            f"no tie-break is needed: the standings call for {playoff_words(state, step)}"
        )
    if {ta, tb} not in [set(m) for m in step.matches]:
        raise AdminError(
            f"{team_words(state, ta)} v {team_words(state, tb)} is not a playoff the "
            f"standings call for: play {playoff_words(state, step)}"
        )
    if step.kind != "sudden_death" and (
        (ta, tb) in ev.playoff_results or (tb, ta) in ev.playoff_results
    ):
        pair = f"{team_words(state, ta)} v {team_words(state, tb)}"
        raise AdminError(
            f"{pair}'s {step.hands} playoff hands are already recorded: "
            "record the other matches of the playoff"
        )
    ev.record_playoff(ta, tb, points)
    return (
        f"playoff: {team_words(state, ta)} {points[0]}, {team_words(state, tb)} {points[1]}; "
        f"next, {playoff_words(state, ev.next_step())}"
    )


def correct_match(state: TournamentState, match_id: str, games: Sequence[str]) -> str:
    """Replace a bracket match's games (each game's winner, in order): a result entered
    wrongly. Empty ``games`` clears the match, as a later match must be before its
    feeder is corrected."""
    ev = state.event
    if not isinstance(ev, Bracket):
        raise AdminError(
            "only a bracket's matches are corrected here: "
            + ("create it first" if ev is None else "correct a round's result with the result form")
        )
    m = ev.match(match_id.strip().upper())
    if m.bye:
        raise AdminError(
            f"match {m.id} is a bye ({team_words(state, str(m.top))} goes through): "
            "nothing to correct"
        )
    if m.top is None or m.bottom is None:
        raise AdminError(
            f"match {m.id} has not been played: it waits for the winners of earlier matches"
        )
    if not m.games:
        raise AdminError(
            f"match {m.id} has no game recorded yet, so nothing to correct: its "
            "games come from its table, or record one with the result form"
        )
    if len(games) > ev.best_of:
        raise AdminError(f"a match is best of {ev.best_of}: give at most {ev.best_of} games")
    where = f"in match {m.id}"
    winners = [team_of(state, g, [m.top, m.bottom], where) for g in games]
    for i in range(1, len(winners)):  # the form's words, not the format's
        if winners[:i].count(winners[i - 1]) == ev.wins_needed:
            raise AdminError(
                f"match {m.id} is already won by {winners[i - 1]} after game {i} "
                "(the match ends there): give only the games played"
            )
    if winners == m.games:
        raise AdminError(f"those are match {m.id}'s games already: nothing to correct")
    if m.round < len(ev.rounds):  # the match its winner went on to
        nxt = ev.rounds[m.round][(int(m.id.split("-M")[1]) - 1) // 2]
        if nxt.games:
            raise AdminError(
                f"match {nxt.id} has started from this result: correct {nxt.id} "
                "first with no games (that clears it), then this match"
            )
    old = ", ".join(m.games)
    ev.set_result(m.id, winners)
    return f"match {m.id} corrected: games {old} now {', '.join(winners) or 'none'}" + (
        f", won by {team_words(state, m.winner)}" if m.winner else ""
    )


# --- the event kept in the store ---------------------------------------------------------------


class TournamentAdmin:
    """The event as the store keeps it. Thread-safe: the feed's thread brings results,
    the dashboard brings the director's changes; each is saved before it is shown."""

    def __init__(self, store: DirectorStore, *, default_name: str = "") -> None:
        self.store = store
        # A new event's name when the director gives none: the director's settings'
        # event name (``[event] name``, ``--event``: the tables' topics, the dashboard's
        # title); with none there either, the date it is created.
        self.default_name = default_name.strip()
        self._lock = self.lock = threading.RLock()  # ``lock``: for a listener's first look
        # Told (action, the event as saved) after each saved change, in the lock: the
        # fleet's tables get the current round's seating this way (fleet/config.py).
        self.listeners: list[Callable[[str, TournamentState], None]] = []
        self._since: float | None = None  # the current event's games' start (since())
        saved = store.formats.format_state()
        try:
            self.state = TournamentState() if saved is None else TournamentState.from_json(saved)
        except FormatError as exc:
            raise AdminError(
                f"the saved event cannot be read ({exc}); the history is kept in the store's "
                "format_state table: ask for help before creating a new event"
            ) from None

    def change(
        self, who: str, action: str, reason: str | None, edit: Callable[[TournamentState], T]
    ) -> T:
        """Apply ``edit`` to a copy of the event; saved (and current) only if it works."""
        with self._lock:
            trial = copy.deepcopy(self.state)
            try:
                result = edit(trial)
            except FormatError as exc:
                raise AdminError(str(exc)) from None
            self.store.formats.add_format_state(who, action, reason, _as_stored(trial.to_json()))
            self.state = trial
            for listener in list(self.listeners):
                try:
                    listener(action, trial)
                except Exception:  # the change is saved: a listener's trouble is its own
                    log.exception("a listener of the event's changes failed on %s", action)
            return result

    def _need_event(self, s: TournamentState) -> Event:
        if s.event is None:
            raise AdminError("no event has been created yet: create it first")
        return s.event

    # -- the director's changes --------------------------------------------------------

    def create(
        self,
        who: str,
        kind: str,
        lines: Sequence[str],
        *,
        rounds: int,
        best_of: int = 3,
        reason: str | None = None,
        name: str | None = None,
    ) -> None:
        """A new event, named ``name`` (else the default name). Its name must be none of
        the store's other events': the director picks an event by it (``director export
        --event``), and the papers print it. Refused rather than made unique: a name
        the director chose is one they recognise when they print; one changed behind
        their back is not. An event created again before any game or result (its roster
        fixed) replaces the current one and may keep its name."""
        new = create(kind, lines, rounds=rounds, best_of=best_of)
        now = self.store.core.clock()
        # The event's rules are what the director's store was started with (--rules,
        # --option, [event] rules): kept with the event, so its papers need no flag.
        new.rules = TournamentRules(name=self.store.rules_name, options=dict(self.store.options))

        def edit(s: TournamentState) -> None:
            new.public_delay, new.taken = s.public_delay, s.taken  # old games stay old
            s.__dict__.update(new.__dict__)

        with self._lock:  # the name checked and the event saved, with no other between
            new.name, new.created = self._new_name(name, now), now
            self.change(who, "created", reason or f"{new.name}: a new {kind} event", edit)
            self._since = None

    def _new_name(self, given: str | None, now: float) -> str:
        """The new event's name: given, else the default, else its date; refused when
        another event in the store has it (tournament/catalog.py)."""
        events = stored_events(self.store)
        current = events[-1] if events else None
        others = [e for e in events if e is not current or current.played]
        text = (given or "").strip() or self.default_name
        if not text:  # no name anywhere: its date, told apart from another of that day
            base = date_name(now)
            text, k = base, 1
            while any(name_key(e.name) == name_key(text) for e in others):
                k += 1
                text = f"{base} ({k})"
            return text
        try:
            text = check_name(text)
        except TournamentChoiceError as exc:
            raise AdminError(str(exc)) from None
        clash = next((e for e in others if name_key(e.name) == name_key(text)), None)
        if clash is not None:
            raise AdminError(
                f"this store already holds an event named {clash.words}: the papers "
                f"and `director export --event` tell events apart by their names, so give "
                f"this one another name, e.g. '{text}, {day_words(now)}'"
            )
        return text

    def set_absent(self, who: str, player: str, absent: bool, reason: str | None) -> None:
        def edit(s: TournamentState) -> None:
            self._need_event(s)
            (s.people.mark_absent if absent else s.people.mark_present)(player)

        self.change(who, "absent" if absent else "present", reason, edit)

    def substitute(
        self, who: str, round_no: int, absent: str, substitute: str, credit: str, reason: str | None
    ) -> None:
        def edit(s: TournamentState) -> None:
            self._need_event(s)
            people = s.people
            if substitute not in people.players:
                people.add_player(slug(substitute), substitute)
            sub = substitute if substitute in people.players else slug(substitute)
            people.substitute(round_no, absent, sub, credit)
            if isinstance(s.event, ProgressiveEvent):
                s.event.seating(round_no)  # refuses a seat left to an absentee twice

        self.change(who, "substitute", reason, edit)

    def assign_round(
        self, who: str, round_no: int, places: Mapping[str, str], reason: str | None = None
    ) -> None:
        """Which feed table (its id) plays which format table (or bracket match)."""

        def edit(s: TournamentState) -> None:
            ev = self._need_event(s)
            if len(set(places.values())) != len(places):
                raise AdminError("two tables are given the same place: one table each")
            for place in places.values():
                if isinstance(ev, Bracket):
                    ev.match(place)
                elif not place.isdigit():
                    raise AdminError(f"{place!r} is not a table number")
            s.assign[round_no] = {
                str(t).strip(): str(p) for t, p in places.items() if str(t).strip()
            }

        self.change(who, "assigned", reason or f"round {round_no}'s tables", edit)

    def record(
        self, who: str, round_no: int, place: str, ended: Mapping[str, JSONValue], reason: str
    ) -> str:
        """A result entered or corrected by the director (a reason is required)."""
        if not reason.strip():
            raise AdminError("a result entered by hand needs a reason: say why")

        def edit(s: TournamentState) -> str:
            self._need_event(s)
            return record(s, round_no, place, ended)

        return str(self.change(who, "result", reason, edit))

    def record_playoff(self, who: str, a: str, b: str, points: tuple[int, int], reason: str) -> str:
        """Tie-break hands entered from the score card (a reason is required)."""
        if not reason.strip():
            raise AdminError("a playoff result needs a reason (e.g. 'score card'): say why")
        return str(self.change(who, "playoff", reason, lambda s: record_playoff(s, a, b, points)))

    def correct_match(self, who: str, match_id: str, games: Sequence[str], reason: str) -> str:
        """A bracket match's games replaced by the director (a reason is required)."""
        if not reason.strip():
            raise AdminError("a correction needs a reason: say what was wrong")
        return str(
            self.change(who, "match_corrected", reason, lambda s: correct_match(s, match_id, games))
        )

    def set_public_delay(self, who: str, seconds: float, reason: str | None = None) -> None:
        if not 0 <= seconds <= 86400:
            raise AdminError("the delay is 0 to 86400 seconds")

        def edit(s: TournamentState) -> None:
            s.public_delay = float(seconds)

        self.change(who, "public_delay", reason or f"{seconds:g} s", edit)

    def set_round_time(
        self, who: str, minutes: int, hands: int | None, reason: str | None = None
    ) -> str:
        """The round's time: ``minutes`` a round, and ``hands`` a round where the director
        fixes them (None: each table's rules say, its hands or its target score). A
        round's clock already running keeps running, to the new time."""
        try:
            check_round_time(minutes, hands)
        except PaceError as exc:
            raise AdminError(str(exc)) from None

        each = "each table's rules" if hands is None else f"{hands} hands"
        words = f"a round is {minutes} minutes, {each}"

        def edit(s: TournamentState) -> str:
            self._need_event(s)
            old = s.round_clock
            s.round_clock = RoundClock(
                minutes,
                hands,
                None if old is None else old.round,
                None if old is None else old.started,
            )
            return words

        return str(self.change(who, "round_time", reason or words, edit))

    def start_round_clock(self, who: str, minutes_ago: int = 0, reason: str | None = None) -> str:
        """The current round's clock starts now, or ``minutes_ago`` (the round began
        before the director said so): the pace judges each table against its end."""

        def edit(s: TournamentState) -> str:
            self._need_event(s)
            clock = s.round_clock
            if clock is None:
                raise AdminError("the round's time is not set: give the minutes a round first")
            if type(minutes_ago) is not int or not 0 <= minutes_ago <= clock.minutes:
                raise AdminError(
                    f"the round began 0 to {clock.minutes} minutes ago (its whole time), "
                    f"not {minutes_ago!r}"
                )
            rnd = current_round(s)
            started = self.store.core.clock() - minutes_ago * 60.0
            s.round_clock = RoundClock(clock.minutes, clock.hands, rnd, started)
            name = f"round {rnd}" if rnd else "the round"
            return f"{name}'s clock started" + (
                f" {minutes_ago} minutes ago" if minutes_ago else ""
            )

        told = reason or (f"began {minutes_ago} minutes ago" if minutes_ago else None)
        return str(self.change(who, "round_started", told, edit))

    def round_clock(self) -> RoundClock | None:
        """The round's time, for the pace of play."""
        with self._lock:
            return self.state.round_clock

    def round_tables(self) -> list[str] | None:
        """The feed tables assigned in the round on the clock (None: none assigned, so
        every table is in view)."""
        with self._lock:
            clock = self.state.round_clock
            rnd = None if clock is None else clock.round
            if rnd is None:
                rnd = current_round(self.state)
            assigned = self.state.assign.get(rnd, {}) if rnd is not None else {}
            return sorted(assigned) or None

    # -- the feed ------------------------------------------------------------------------

    def since(self) -> float:
        """When the current event's games begin to arrive (tournament/catalog.py): a game whose
        first event arrived earlier is an earlier event's, and never taken into this
        one (-inf: the store's first event, which holds the games before it too)."""
        if self._since is None:
            events = stored_events(self.store)
            self._since = events[-1].since if events else -math.inf
        return self._since

    def take_results(self, table: str) -> list[str]:
        """Take every ended game of ``table`` not yet taken (after each stored event)
        that belongs to the current event (an earlier event's game is left to it)."""
        with self._lock:
            if self.state.event is None:
                return []
            fresh = [
                e
                for e in self.store.events.ended_games(table)
                if f"{table}:{e['game']}:{e['seq']}" not in self.state.taken
            ]
            if fresh and self.since() > -math.inf:
                arrived = self.store.events.game_arrivals()
                since = self.since()
                fresh = [e for e in fresh if arrived.get((table, e["game"]), 0.0) >= since]
            done: list[str] = []
            for e in fresh:

                def edit(s: TournamentState, e: EndedGame = e) -> str | None:
                    return take_result(s, table, e["game"], e["seq"], e["outputs"])

                words = self.change(
                    f"table {table}", "feed_result", f"game {e['game']} ended", edit
                )
                if words:
                    done.append(str(words))
            return done

    def on_stored(self, what: str, table: str) -> None:
        """The service's listener: an event was stored for ``table``."""
        if what == "event" and table:
            self.take_results(table)

    def catch_up(self) -> None:
        """Results stored while no event existed or the director was down."""
        for t in self.store.tables.tables():
            self.take_results(t["table"])

    def summary(self) -> TournamentSummary:
        with self._lock:
            out = summary(self.state)
        if out.get("format") is not None and not out.get("name"):
            events = stored_events(self.store)  # an event from before names: its date's
            out["name"] = events[-1].name if events else ""
        out["history"] = self.store.formats.format_history(last=50)
        return out


__all__ = [
    "AdminError",
    "ChampionRow",
    "PlayedPlayoff",
    "PlayoffNext",
    "PlayoffProblem",
    "ResultsFinal",
    "RoundClockJSON",
    "Seating",
    "SeatingTable",
    "StandingRow",
    "TeamChoice",
    "TeamStandingRow",
    "TournamentAdmin",
    "TournamentRules",
    "TournamentState",
    "TournamentStateJSON",
    "TournamentSummary",
    "UnplacedResult",
    "correct_match",
    "create",
    "current_round",
    "player_standings",
    "record",
    "record_playoff",
    "seating",
    "standings",
    "summary",
    "take_result",
    "team_of",
    "team_standings",
]
