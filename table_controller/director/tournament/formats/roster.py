"""Who is in the event: players, teams, absentees and substitutes (pure, JSON state).

The formats (progressive, rounds, bracket) schedule *entrants*: players in a progressive
event, teams in the others. The roster keeps the people behind them, so that a director
can mark someone absent and seat a substitute for one round without touching the
format's chart: the format asks the roster who actually sits in an entrant's seat and
to whom the points go.

Substitutes and credit (the texts say nothing, so this is a documented choice, see
docs/formats.md): in a team event the team is the entrant and always keeps its points,
whoever played. In a progressive event each substitution says whom its points go to:
``"absent"`` (the default: the absent player's entry is kept whole, as a club does for a
late arrival) or ``"substitute"`` (the substitute earns them under their own name).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.formats.saved import as_int, as_list, as_object, as_text
from table_controller.errors import TableControllerError

Credit = Literal["absent", "substitute"]
CREDITS: tuple[Credit, ...] = ("absent", "substitute")


class FormatError(TableControllerError, ValueError):
    """A request the event cannot carry out; the message says what to do instead."""


@dataclass(frozen=True)
class Player:
    id: str
    name: str


@dataclass(frozen=True)
class Team:
    id: str
    name: str
    players: tuple[str, str]


@dataclass(frozen=True)
class Substitution:
    round: int
    absent: str
    substitute: str
    credit: Credit = "absent"


class PlayerJSON(TypedDict):
    id: str
    name: str


class TeamJSON(TypedDict):
    id: str
    name: str
    players: list[str]


class SubstitutionJSON(TypedDict):
    round: int
    absent: str
    substitute: str
    credit: Credit


class RosterJSON(TypedDict):
    """The roster as JSON (``Roster.to_json``): players, teams, who is absent, and
    each substitution."""

    players: list[PlayerJSON]
    teams: list[TeamJSON]
    absent: list[str]
    substitutions: list[SubstitutionJSON]


@dataclass
class Roster:
    """The event's people. Ids are short stable strings chosen by the director."""

    players: dict[str, Player] = field(default_factory=dict)
    teams: dict[str, Team] = field(default_factory=dict)
    absent: set[str] = field(default_factory=set)
    substitutions: list[Substitution] = field(default_factory=list)

    # -- players and teams -------------------------------------------------------------

    def add_player(self, player_id: str, name: str) -> Player:
        player_id = player_id.strip()
        if not player_id:
            raise FormatError("A player needs an id: give a short name or number.")
        if player_id in self.players:
            raise FormatError(
                f"There is already a player {player_id!r} ({self.players[player_id].name}): "
                "choose another id."
            )
        player = Player(player_id, name.strip() or player_id)
        self.players[player_id] = player
        return player

    def add_team(self, team_id: str, name: str, players: tuple[str, str]) -> Team:
        if team_id in self.teams:
            raise FormatError(f"There is already a team {team_id!r}: choose another id.")
        if players[0] == players[1]:
            raise FormatError(
                f"Team {team_id!r} names {players[0]!r} twice: a team is two different players."
            )
        for p in players:
            self._need(p)
            other = self.team_of(p)
            if other is not None:
                raise FormatError(
                    f"{self.players[p].name} already plays in team {other.id!r}: remove them "
                    "from it first, or pick another player."
                )
        team = Team(team_id, name.strip() or team_id, players)
        self.teams[team_id] = team
        return team

    def team_of(self, player_id: str) -> Team | None:
        return next((t for t in self.teams.values() if player_id in t.players), None)

    # -- absentees and substitutes ---------------------------------------------------

    def mark_absent(self, player_id: str) -> None:
        self._need(player_id)
        self.absent.add(player_id)

    def mark_present(self, player_id: str) -> None:
        self._need(player_id)
        self.absent.discard(player_id)

    def present(self, ids: Iterable[str] | None = None) -> list[str]:
        """The players (of ``ids``, default all, in that order) not marked absent."""
        chosen = list(self.players) if ids is None else list(ids)
        return [p for p in chosen if p not in self.absent]

    def substitute(
        self, round_no: int, absent: str, substitute: str, credit: str = "absent"
    ) -> Substitution:
        """Seat ``substitute`` in ``absent``'s place for one round; ``credit`` is one of
        :data:`CREDITS` (a form's text, checked here)."""
        self._need(absent)
        self._need(substitute)
        if absent == substitute:
            raise FormatError("A player cannot substitute for themselves.")
        given = next((c for c in CREDITS if c == credit), None)
        if given is None:
            raise FormatError(f"Credit must be 'absent' or 'substitute', not {credit!r}.")
        for s in self.substitutions:
            if s.round != round_no:
                continue
            if s.absent == absent:
                raise FormatError(
                    f"{self.players[absent].name} already has a substitute in round "
                    f"{round_no} ({self.players[s.substitute].name}): remove it first."
                )
            if s.substitute == substitute:
                raise FormatError(
                    f"{self.players[substitute].name} already substitutes for "
                    f"{self.players[s.absent].name} in round {round_no}: one seat a round."
                )
        sub = Substitution(round_no, absent, substitute, given)
        self.substitutions.append(sub)
        return sub

    def remove_substitute(self, round_no: int, absent: str) -> None:
        before = len(self.substitutions)
        self.substitutions = [
            s for s in self.substitutions if not (s.round == round_no and s.absent == absent)
        ]
        if len(self.substitutions) == before:
            raise FormatError(f"No substitute is set for {absent!r} in round {round_no}.")

    def substitution(self, round_no: int, player_id: str) -> Substitution | None:
        return next(
            (s for s in self.substitutions if s.round == round_no and s.absent == player_id),
            None,
        )

    def sitting(self, round_no: int, player_id: str) -> str:
        """Who actually sits in ``player_id``'s seat in that round."""
        sub = self.substitution(round_no, player_id)
        return sub.substitute if sub else player_id

    def credited(self, round_no: int, player_id: str) -> str:
        """Whose individual total the points of ``player_id``'s seat go to that round."""
        sub = self.substitution(round_no, player_id)
        return sub.substitute if sub and sub.credit == "substitute" else player_id

    def check_seating(self, round_no: int, seated: Iterable[str]) -> None:
        """Refuse a round where one person would sit twice or an absentee would play."""
        seen: dict[str, str] = {}
        for entry in seated:
            who = self.sitting(round_no, entry)
            if who in seen:
                raise FormatError(
                    f"{self.name(who)} would sit twice in round {round_no} (for "
                    f"{self.name(seen[who])} and {self.name(entry)}): choose another "
                    "substitute."
                )
            if who in self.absent:
                raise FormatError(
                    f"{self.name(who)} is marked absent but is seated in round {round_no}: "
                    "set a substitute, or mark them present."
                )
            seen[who] = entry

    def name(self, player_id: str) -> str:
        p = self.players.get(player_id)
        return p.name if p else player_id

    def _need(self, player_id: str) -> None:
        if player_id not in self.players:
            raise FormatError(f"There is no player {player_id!r}: add them to the roster first.")

    # -- JSON ------------------------------------------------------------------------

    def to_json(self) -> RosterJSON:
        return {
            "players": [{"id": p.id, "name": p.name} for p in self.players.values()],
            "teams": [
                {"id": t.id, "name": t.name, "players": list(t.players)}
                for t in self.teams.values()
            ],
            "absent": sorted(self.absent),
            "substitutions": [
                {
                    "round": s.round,
                    "absent": s.absent,
                    "substitute": s.substitute,
                    "credit": s.credit,
                }
                for s in self.substitutions
            ],
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> Roster:
        """The roster as :meth:`to_json` saved it; each field is checked as it is read
        (``saved``), a malformed one raising :class:`FormatError`."""
        roster = cls()
        try:
            for p in as_list(obj.get("players", [])):
                player = as_object(p)
                roster.add_player(str(player["id"]), str(player["name"]))
            for t in as_list(obj.get("teams", [])):
                team = as_object(t)
                a, b = as_list(team["players"])
                roster.add_team(str(team["id"]), str(team["name"]), (str(a), str(b)))
            for a in as_list(obj.get("absent", [])):
                roster.mark_absent(str(a))
            for s in as_list(obj.get("substitutions", [])):
                sub = as_object(s)
                roster.substitute(
                    as_int(sub["round"]),
                    str(sub["absent"]),
                    str(sub["substitute"]),
                    as_text(sub.get("credit", "absent")),
                )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(
                f"The saved roster is malformed ({exc!r}): restore it from the director's store."
            ) from exc
        return roster
