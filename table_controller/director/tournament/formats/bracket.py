"""Single-elimination brackets, best two of three games (000), pure, JSON state.

000 s4: "The Campus Championships will be set up in traditional head-to-head bracket
style. It will be a single elimination tournament, with opponents playing best
two-out-of-three games." (The ``bicycle-head-to-head`` preset plays a match at a table:
``best_of=3``.)

Seeding: entrants are given best seed first (the caller's draw or ranking). The bracket
has the next power of two slots; the missing entrants are byes, given to the top seeds,
and the standard order (1 v 16, 8 v 9, ...) keeps the top seeds apart until the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.formats.roster import FormatError
from table_controller.director.tournament.formats.saved import as_int, as_list, as_object, as_texts


def seed_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket slot order for a power-of-two ``size``."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


class MatchJSON(TypedDict):
    """A match as JSON (``Match.to_json``): the dashboard's and the papers' bracket."""

    id: str
    round: int
    top: str | None
    bottom: str | None
    games: list[str]
    winner: str | None
    bye: bool


class BracketRound(TypedDict):
    """A round of the bracket as a chart draws it (``Bracket.printable``)."""

    round: int
    name: str
    matches: list[MatchJSON]


class BracketJSON(TypedDict):
    """The bracket as saved (``Bracket.to_json``): the entrants, best seed first, and
    the games of each match played (its id -> each game's winner)."""

    format: Literal["bracket"]
    entrants: list[str]
    best_of: int
    games: dict[str, list[str]]


@dataclass
class Match:
    id: str  # "R{round}-M{match}", both from 1
    round: int
    top: str | None = None  # None: not decided yet, or a bye in round 1
    bottom: str | None = None
    games: list[str] = field(default_factory=list)  # the winner of each game, in order
    winner: str | None = None
    bye: bool = False

    def to_json(self) -> MatchJSON:
        return {
            "id": self.id,
            "round": self.round,
            "top": self.top,
            "bottom": self.bottom,
            "games": list(self.games),
            "winner": self.winner,
            "bye": self.bye,
        }


class Bracket:
    """A single-elimination bracket; matches are best of ``best_of`` games (000: 3)."""

    def __init__(self, entrants: Sequence[str], *, best_of: int = 3) -> None:
        if len(entrants) < 2:
            raise FormatError("A bracket needs at least two entrants.")
        if len(set(entrants)) != len(entrants):
            raise FormatError("An entrant is listed twice: list each team once.")
        if best_of < 1 or best_of % 2 == 0:
            raise FormatError(f"Best of {best_of}? A match is best of an odd number of games.")
        self.entrants = list(entrants)
        self.best_of = best_of
        size = 1
        while size < len(entrants):
            size *= 2
        self.size = size
        self.rounds: list[list[Match]] = []
        count, r = size // 2, 1
        while count >= 1:
            self.rounds.append([Match(f"R{r}-M{i + 1}", r) for i in range(count)])
            count, r = count // 2, r + 1
        slots = [
            self.entrants[s - 1] if s <= len(self.entrants) else None for s in seed_order(size)
        ]
        for i, m in enumerate(self.rounds[0]):
            m.top, m.bottom = slots[2 * i], slots[2 * i + 1]
            if m.bottom is None:  # top seeds get the byes
                m.bye = True
                self._decide(m, m.top)

    @property
    def wins_needed(self) -> int:
        return self.best_of // 2 + 1

    def match(self, match_id: str) -> Match:
        for rnd in self.rounds:
            for m in rnd:
                if m.id == match_id:
                    return m
        raise FormatError(f"There is no match {match_id!r}; matches are named like 'R1-M1'.")

    def playable(self) -> list[Match]:
        """Matches with both entrants known and no winner yet."""
        return [m for rnd in self.rounds for m in rnd if m.top and m.bottom and m.winner is None]

    def record_game(self, match_id: str, winner: str) -> None:
        """One game of a match won by ``winner``; the match ends at two wins of three."""
        m = self.match(match_id)
        if m.winner is not None:
            raise FormatError(
                f"Match {m.id} is already won by {m.winner}. If a game was "
                'recorded wrongly, fix it on the dashboard with the "Correct a '
                "match\" form: give each game's winner, in order."
            )
        if m.top is None or m.bottom is None:
            raise FormatError(f"Match {m.id} is waiting for the winners of earlier matches.")
        if winner not in (m.top, m.bottom):
            raise FormatError(
                f"{winner!r} does not play in match {m.id} ({m.top} v "
                f"{m.bottom}): check the match number."
            )
        m.games.append(winner)
        if m.games.count(winner) >= self.wins_needed:
            self._decide(m, winner)

    def set_result(self, match_id: str, games: Sequence[str]) -> None:
        """Replace a match's games (a director's correction); later matches that depended
        on it must not have started."""
        m = self.match(match_id)
        nxt = self._next(m)
        if nxt is not None and nxt.games:
            raise FormatError(
                f"Match {nxt.id} has started from this result: clear its games first."
            )
        m.games, m.winner = [], None
        if nxt is not None:
            self._place(nxt, m, None)
        for g in games:
            self.record_game(match_id, g)

    def champion(self) -> str | None:
        return self.rounds[-1][0].winner

    def printable(self) -> list[BracketRound]:
        """The bracket as data for a printed or on-screen chart: rounds of matches."""
        names = {1: "Final", 2: "Semi-finals", 3: "Quarter-finals"}
        total = len(self.rounds)
        return [
            {
                "round": i + 1,
                "name": names.get(total - i, f"Round {i + 1}"),
                "matches": [m.to_json() for m in rnd],
            }
            for i, rnd in enumerate(self.rounds)
        ]

    def _next(self, m: Match) -> Match | None:
        if m.round == len(self.rounds):
            return None
        index = int(m.id.split("-M")[1]) - 1
        return self.rounds[m.round][index // 2]

    def _place(self, nxt: Match, m: Match, who: str | None) -> None:
        index = int(m.id.split("-M")[1]) - 1
        if index % 2 == 0:
            nxt.top = who
        else:
            nxt.bottom = who

    def _decide(self, m: Match, who: str | None) -> None:
        m.winner = who
        nxt = self._next(m)
        if nxt is not None:
            self._place(nxt, m, who)

    def to_json(self) -> BracketJSON:
        return {
            "format": "bracket",
            "entrants": list(self.entrants),
            "best_of": self.best_of,
            "games": {m.id: list(m.games) for rnd in self.rounds for m in rnd if m.games},
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> Bracket:
        """The bracket as :meth:`to_json` saved it; each field is checked as it is read
        (``saved``), a malformed one raising :class:`FormatError`."""
        try:
            b = cls(as_texts(obj["entrants"]), best_of=as_int(obj["best_of"]))
            games = as_object(obj.get("games", {}))
            for rnd in b.rounds:  # in round order, so each match's entrants are known
                for m in rnd:
                    for g in as_list(games.get(m.id, [])):
                        b.record_game(m.id, str(g))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(f"The saved bracket is malformed ({exc!r}).") from exc
        return b
