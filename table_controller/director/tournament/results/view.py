"""The results model (``results.collect``) as the dashboard and the hall screen draw it:
words and numbers, never a code, so a page only lays them out.

Why a module of its own: the screens must show exactly what the papers print. They take
the same ``Results`` the export writes, cut to JSON here, and derive nothing: the games
in the same order with the same points, the standings with the same places.
"""

from __future__ import annotations

import threading
from typing import NotRequired, TypedDict

from table_controller.director.store import DirectorStore
from table_controller.director.tournament.admin import AdminError, TournamentAdmin, TournamentState
from table_controller.director.tournament.results.model import (
    GameResult,
    PlayedCache,
    RecordedResult,
    Results,
    collect,
    results_digest,
    when_text,
)
from table_controller.feed.signing import sign_statement
from table_controller.seats import Seat, Team


class GameRow(TypedDict):
    """One game (or one result entered by hand) as the dashboard's Games table shows it."""

    round: int | None
    place: str | None
    table: str  # the store's key: the page links the row to the table's detail
    title: str  # the table's name
    game: int | None  # None: a result entered by hand
    ns: str  # the North-South side in words ("Ann 5 & Cy 5" in a progressive game)
    ew: str
    ns_points: int | None
    ew_points: int | None
    winner: str
    hands: int | None
    status: str
    correction: str
    rulings: list[str]
    problem: str


class HallRow(TypedDict):
    """A standings line on the hall screen: place, name, what it rests on."""

    place: str | int
    name: str
    detail: str
    value: str
    more: str


class HallResult(TypedDict):
    """A game ended, for the hall's "Recent results": the same points as the papers."""

    table: str
    title: str
    game: int
    at: float
    winner: str | None
    score: str
    text: str
    review: NotRequired[str]  # its hand review's address, once the whole game is over


def _count(n: object, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def hall_standings(results: Results) -> list[HallRow]:
    """The standings the papers print, as the hall screen's lines."""
    heads = results.standings.heads
    out: list[HallRow] = []
    for row in results.standings.rows:
        cell = dict(zip(heads, row, strict=False))
        name = str(cell.get("Player") or cell.get("Team") or "")
        if "Rounds won" in cell:  # progressive
            won, played = cell["Rounds won"], cell.get("Rounds played", 0)
            detail = f"{won} of {_count(played, 'round')} won" if played else ""
            value = _count(cell.get("Points", 0), "point")
        elif "How" in cell:  # a bracket
            detail, value = "", str(cell["How"]).capitalize()
        elif "Wins" in cell:  # 12-hand rounds
            final = {"champion": "Champion", "runner-up": "Runner-up"}.get(str(cell.get("Final")))
            detail = final or _count(cell["Wins"], "win")
            value = _count(cell.get("Points", 0), "point")
        else:  # no event yet: teams by games won
            detail = _count(cell.get("Games won", 0), "game") + " won"
            value = _count(cell.get("Points", 0), "point")
        out.append(HallRow(place=row[0], name=name, detail=detail, value=value, more=""))
    return out


def hall_results(results: Results, until: float, limit: int) -> list[HallResult]:
    """The games ended by ``until`` (the hall's delay), newest first."""
    done = [g for g in results.games if g.ended_at is not None and g.ended_at <= until]
    done.sort(key=lambda g: g.ended_at or 0.0, reverse=True)
    out: list[HallResult] = []
    for g in done[:limit]:
        ns, ew = g.counted_scores
        winner = g.winner
        high, low = (ew, ns) if winner is Team.EW else (ns, ew)
        if winner is None:
            text = f"{_names(g, Team.NS)} {ns}, {_names(g, Team.EW)} {ew}: no winner"
        else:
            loser = Team.EW if winner is Team.NS else Team.NS
            text = f"{_names(g, winner)} won against {_names(g, loser)}, {high}–{low}"
        out.append(
            HallResult(
                table=g.table,
                title=g.title,
                game=g.game,
                at=g.ended_at or 0.0,
                winner=None if winner is None else _names(g, winner),
                score=f"{high}–{low}",
                text=text,
            )
        )
    return out


def _names(g: GameResult, team: Team) -> str:
    names = [g.players[s] for s in team.seats if g.players.get(s)]
    return " & ".join(names) or g.team(team)


class StandingsView(TypedDict):
    heading: str  # "Final standings", "Standings (provisional)"
    heads: list[str]
    rows: list[list[str | int]]
    note: str


class ResultsView(TypedDict):
    state: str  # "final" or "provisional"
    over: bool  # every result is in
    final: str  # who confirmed them final, and when, in words ("" while provisional)
    rules: str
    standings: StandingsView
    games: list[GameRow]


def _side(g: GameResult, team: Team) -> str:
    points = g.counted_individual or {}
    names = [
        (g.players.get(s) or "") + (f" {points[s]}" if s in points else "")
        for s in team.seats
        if g.players.get(s)
    ]
    return " & ".join(names) or g.team(team)


def game_row(g: GameResult) -> GameRow:
    ns, ew = g.counted_scores
    return GameRow(
        round=g.round,
        place=g.place,
        table=g.table,
        title=g.title,
        game=g.game,
        ns=_side(g, Team.NS),
        ew=_side(g, Team.EW),
        ns_points=ns,
        ew_points=ew,
        winner="" if g.winner is None else g.team(g.winner),
        hands=g.hands,
        status=g.status,
        correction="" if g.correction is None else g.correction.words,
        rulings=list(g.rulings),
        problem=g.problem or "",
    )


def recorded_row(r: RecordedResult) -> GameRow:
    points = r.individual or {}

    def side(a: Seat, b: Seat, words: str) -> str:
        if not points:
            return words
        return (
            f"{r.players.get(a, '')} {points.get(a, 0)} & {r.players.get(b, '')} {points.get(b, 0)}"
        )

    return GameRow(
        round=r.round,
        place=r.place,
        table="",
        title=r.title,
        game=None,
        ns=side(Seat.N, Seat.S, r.ns),
        ew=side(Seat.E, Seat.W, r.ew),
        ns_points=None if r.scores is None else r.scores[0],
        ew_points=None if r.scores is None else r.scores[1],
        winner=r.winner,
        hands=None,
        status=r.how,
        correction="",
        rulings=[],
        problem="",
    )


def results_view(results: Results) -> ResultsView:
    """The results as the screens draw them, in the papers' order."""
    games: list[GameRow] = []
    for heading, round_games in results.by_round():
        games += [game_row(g) for g in round_games]
        games += [recorded_row(r) for r in results.recorded_in(heading)]
    final = results.final
    if final is not None:
        heading = "Final standings"
        confirmed = f"Final: confirmed by {final.who} on {when_text(final.at, words=True)}"
    else:
        heading = "Standings (provisional)"
        confirmed = ""
    return ResultsView(
        state=results.state_words,
        over=results.over,
        final=confirmed,
        rules=results.rules,
        standings=StandingsView(
            heading=heading,
            heads=list(results.standings.heads),
            rows=[list(r) for r in results.standings.rows],
            note=results.standings.note,
        ),
        games=games,
    )


EMPTY = ResultsView(
    state="provisional",
    over=False,
    final="",
    rules="",
    standings=StandingsView(heading="Standings", heads=[], rows=[], note=""),
    games=[],
)


class ResultsSource:
    """The current event's results for the screens (the store's latest event: an earlier
    one's games are its own papers', never shown here), computed once per change of the
    store: the dashboard and the hall ask on every snapshot, and a snapshot follows
    every event."""

    def __init__(self, store: DirectorStore, title: str) -> None:
        self._store = store
        self._title = title
        self._lock = threading.Lock()
        self._key: object = None
        self._results: Results | None = None
        self._played: PlayedCache = {}  # each game's replay, kept until its events grow

    def results(self) -> Results | None:
        """The results now (None: no game and no result yet)."""
        key = (
            tuple(sorted(self._store.events.event_counts().items())),
            len(self._store.formats.format_history()),
            tuple((r["ruling_id"], r["state"]) for r in self._store.rulings.rulings()),
        )
        with self._lock:
            if key != self._key:
                self._results = collect(
                    self._store,
                    latest=True,
                    untitled=self._title,
                    empty_ok=True,
                    cache=self._played,
                )
                self._key = key
            return self._results

    def confirm_final(self, admin: TournamentAdmin, who: str, private_pem: bytes | None) -> str:
        """The director confirms the results final: their digest, who and when, signed
        with the director's key when it has one, kept in the event (its history and the
        audit). Refused until every result is in; a later change makes them provisional."""
        results = self.results()
        if results is None or admin.state.event is None:
            raise AdminError("there is no event with results to confirm yet")
        if not results.over:
            raise AdminError(
                "not every round's result is in yet: confirm the results final once the "
                "last game has ended (or its result is entered by hand)"
            )
        if results.final is not None:
            raise AdminError("these results are already confirmed final: nothing changed since")
        digest = results_digest(results)
        at = self._store.core.clock()
        statement = {"results_final": digest, "event": results.event, "who": who, "at": at}
        signature = "" if private_pem is None else sign_statement(statement, private_pem)

        def edit(s: TournamentState) -> str:
            s.final = {"digest": digest, "who": who, "at": at, "signature": signature}
            return "the results are confirmed final"

        done = str(admin.change(who, "results_final", "the director confirmed them", edit))
        self._key = None  # read again: the papers now say final
        return done

    def view(self) -> ResultsView:
        found = self.results()
        return EMPTY if found is None else results_view(found)


__all__ = [
    "EMPTY",
    "GameRow",
    "ResultsSource",
    "ResultsView",
    "StandingsView",
    "game_row",
    "results_view",
]
