"""The event's standings as a table of words and numbers, in its format's own terms:
progressive (each player), 12-hand rounds (each team, the final), a bracket (each team's
place and the match it lost); before an event is created on the dashboard, the teams
that sat together, by games won, then points.

Why a module of its own: the formats (``tournament.formats``) rank; this turns their
ranking into the rows a person reads in ``standings.csv`` and the booklet, names and
not ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from table_controller.director.tournament.admin import (
    TournamentState,
    player_standings,
    team_standings,
    team_words,
)
from table_controller.director.tournament.final import final_words
from table_controller.director.tournament.formats import Bracket, ProgressiveEvent, RoundsEvent
from table_controller.seats import Team

if TYPE_CHECKING:
    from table_controller.director.tournament.results.model import GameResult


@dataclass
class Standings:
    """The standings as a table: its headings and rows (words and numbers)."""

    heads: list[str]
    rows: list[list[str | int]] = field(default_factory=list)
    note: str = ""  # what they are, when not the event's format


def standings(state: TournamentState | None, games: list[GameResult]) -> Standings:
    """The event's standings in its format's words; before an event is created, each
    team (two players who sat together) by games won, then points. A place shared by
    several is written as a tie ("=3") wherever the standings are shown."""
    table = _standings(state, games)
    places = [r[0] for r in table.rows]
    for row in table.rows:
        if places.count(row[0]) > 1:
            row[0] = f"={row[0]}"
    return table


def _standings(state: TournamentState | None, games: list[GameResult]) -> Standings:
    ev = None if state is None else state.event
    if state is not None and isinstance(ev, ProgressiveEvent):
        rows = player_standings(ev)
        return Standings(
            ["Place", "Player", "Points", "Rounds won", "Rounds played"],
            [
                [r["place"], r["name"], r["total"], r["rounds_won"], r["rounds_played"]]
                for r in rows
            ],
        )
    if state is not None and isinstance(ev, RoundsEvent):
        teams = team_standings(state, ev)
        return Standings(
            note=_final_note(state, ev),
            heads=["Place", "Team", "Points", "Wins", "Rounds played", "Average", "Final"],
            rows=[
                [
                    r["place"],
                    r["name"],
                    r["points"],
                    r["wins"],
                    r["rounds_played"],
                    f"{r['average']:.2f}",
                    r["final"] or "",
                ]
                for r in teams
            ],
        )
    if state is not None and isinstance(ev, Bracket):
        return _bracket_standings(state, ev)
    return _team_standings(games)


def _final_note(state: TournamentState, ev: RoundsEvent) -> str:
    """The team rounds' playoffs and final (001 s18-s20) as the director entered them:
    what the champion's place stands on, printed with the standings."""
    lines = [
        f"Playoff: {team_words(state, a)} {pa}, {team_words(state, b)} {pb}."
        for (a, b), (pa, pb) in ev.playoff_results.items()
    ]
    if ev.final is not None:
        words = final_words(state, ev.final)
        lines.append(words[0].upper() + words[1:] + ".")
    return " ".join(lines)


def _bracket_standings(state: TournamentState, ev: Bracket) -> Standings:
    """The champion first, the final's loser second, then each round's losers sharing
    a place (3, 5, 9, ...); a team still playing has no place yet."""
    last = len(ev.rounds)
    names = {int(x["round"]): str(x["name"]) for x in ev.printable()}
    rows: list[list[str | int]] = []
    champion = ev.champion()
    if champion is not None:
        rows.append([1, team_words(state, champion), "champion"])
    for r in range(last, 0, -1):
        for m in ev.rounds[r - 1]:
            if m.winner is None or m.bye:
                continue
            loser = m.bottom if m.winner == m.top else m.top
            if loser is not None:
                how = f"lost in the {names[r].lower()}" if r > last - 3 else f"lost in round {r}"
                rows.append([2 ** (last - r) + 1, team_words(state, loser), how])
    return Standings(["Place", "Team", "How"], rows)


def _team_standings(games: list[GameResult]) -> Standings:
    teams: dict[str, list[int]] = {}  # team -> [games, won, points]
    for g in games:
        if not g.finished:
            continue
        for side, team in enumerate((Team.NS, Team.EW)):
            names = [g.players[s] for s in team.seats if g.players.get(s)]
            who = " & ".join(sorted(names)) or f"{g.title}, {g.team(team)}"
            row = teams.setdefault(who, [0, 0, 0])
            row[0] += 1
            row[1] += g.winner is team
            row[2] += g.counted_scores[side]
    order = sorted(teams.items(), key=lambda kv: (-kv[1][1], -kv[1][2], kv[0]))
    rows: list[list[str | int]] = []
    place, last = 0, None
    for i, (who, (played, won, points)) in enumerate(order, start=1):
        if (won, points) != last:
            place, last = i, (won, points)
        rows.append([place, who, won, points, played])
    return Standings(
        ["Place", "Team", "Games won", "Points", "Games played"],
        rows,
        note="No event has been created on the dashboard: teams by games won, then points.",
    )


__all__ = ["Standings", "standings"]
