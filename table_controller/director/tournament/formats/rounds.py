"""001's team event: 12-hand rounds, losers rotate, the top two play off (pure, JSON state).

001 s1 "Teams shall consist of 2 players. First round assignments will be determined by
random draw" (the draw is the order of ``teams`` given: the caller shuffles); s5 "Each
match consists of 12 hands"; s15 "The losing team from each table will rotate after
each round"; s18 "The top two scoring teams will face off for the championship. Same
format will occur."; s19 "If a tie occurs, a four (4) hand playoff will take place
between the two teams. If the game is still tied, a sudden death hand will occur."; s20
"If more than two (2) teams are tied at the end of 36 hands, a four (4) hand round robin
playoff will occur."

Choices where 001 is silent (docs/formats.md): winners stay at their table and the
loser of table ``i`` moves to table ``i + 1`` (the last table's loser to table 1). With an
odd number of teams one team sits out each round: the last table's loser sits out and
the team that sat out goes to table 1; a team is never given points for a round it did
not play, so standings rank by points *per round played* only when byes made the counts
differ (shown as ``average``). A match tied after 12 hands is settled at the table (the
``nmu-tournament`` preset plays 001 s19's 4 hands then sudden death), so a tied result
must say who won. The final (s18) is recorded on its own (:meth:`RoundsEvent.record_final`)
and names the champion; see its docstring for how 001 is read there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations
from typing import Literal, TypedDict

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.formats.roster import FormatError
from table_controller.director.tournament.formats.saved import (
    as_int,
    as_list,
    as_object,
    as_pair,
    as_text,
    as_texts,
)


@dataclass(frozen=True)
class MatchResult:
    points: tuple[int, int]  # the two teams' points over the 12 hands, as seated
    winner: int  # 0 or 1: the seated team that won (after any playoff hands)


class TeamStandingJSON(TypedDict):
    """A team's line of the standings as JSON (``TeamStanding.to_json``)."""

    place: int
    team: str
    points: int
    rounds_played: int
    wins: int
    average: float
    final: str | None


class FinalResultJSON(TypedDict):
    """The final's result as JSON (``FinalResult.to_json``)."""

    teams: list[str]
    points: list[int]
    tiebreak: list[int] | None
    winner: str


class PlayoffJSON(TypedDict):
    """What the standings need next as JSON (``Playoff.to_json``)."""

    kind: str
    teams: list[str]
    hands: int
    sudden_death: bool
    matches: list[list[str]]


class MatchResultJSON(TypedDict):
    """A table's match in a saved round: both teams' points as seated, and the winner."""

    points: list[int]
    winner: int


class RoundsJSON(TypedDict):
    """The team event as saved (``RoundsEvent.to_json``): results by round then table
    (both as text), each playoff as ``[team, team, [points, points]]``."""

    format: Literal["rounds"]
    teams: list[str]
    rounds: int
    hands: int
    results: dict[str, dict[str, MatchResultJSON]]
    playoffs: list[list[str | list[int]]]
    final: FinalResultJSON | None


@dataclass(frozen=True)
class TeamStanding:
    place: int
    team: str
    points: int
    rounds_played: int
    wins: int
    average: Fraction
    final: str | None = None  # "champion" | "runner-up" once the final is recorded

    def to_json(self) -> TeamStandingJSON:
        return {
            "place": self.place,
            "team": self.team,
            "points": self.points,
            "rounds_played": self.rounds_played,
            "wins": self.wins,
            "average": float(self.average),
            "final": self.final,
        }


@dataclass(frozen=True)
class FinalResult:
    """The final's result (001 s18), the finalists in the order the standings name them."""

    teams: tuple[str, str]
    points: tuple[int, int]  # over the match's hands (s18 "Same format": s5's 12)
    tiebreak: tuple[int, int] | None = None  # s19's 4 hands (+ sudden death), when tied

    @property
    def winner(self) -> str:
        a, b = self.points if self.tiebreak is None else self.tiebreak  # only when tied
        return self.teams[0] if a > b else self.teams[1]

    @property
    def runner_up(self) -> str:
        return self.teams[1] if self.winner == self.teams[0] else self.teams[0]

    def to_json(self) -> FinalResultJSON:
        return {
            "teams": list(self.teams),
            "points": list(self.points),
            "tiebreak": None if self.tiebreak is None else list(self.tiebreak),
            "winner": self.winner,
        }


@dataclass(frozen=True)
class Playoff:
    """What the standings need before the final (001 s19/s20)."""

    kind: str  # "final" | "tie_playoff" (two teams) | "round_robin" (three or more)
    teams: tuple[str, ...]
    hands: int
    sudden_death: bool
    matches: tuple[tuple[str, str], ...]  # who plays whom

    def to_json(self) -> PlayoffJSON:
        return {
            "kind": self.kind,
            "teams": list(self.teams),
            "hands": self.hands,
            "sudden_death": self.sudden_death,
            "matches": [list(m) for m in self.matches],
        }


class RoundsEvent:
    """Teams, a number of rounds (001: 3 rounds of 12 = 36 hands), results as they come."""

    def __init__(self, teams: Sequence[str], rounds: int = 3, *, hands: int = 12) -> None:
        if len(teams) < 2:
            raise FormatError("A team event needs at least two teams.")
        if len(set(teams)) != len(teams):
            raise FormatError("A team is listed twice: list each team once.")
        if rounds < 1:
            raise FormatError("An event needs at least one round.")
        self.teams = list(teams)
        self.rounds = rounds
        self.hands = hands
        self.results: dict[int, dict[int, MatchResult]] = {}
        self.playoff_results: dict[tuple[str, str], tuple[int, int]] = {}
        self.final: FinalResult | None = None

    # -- seating ---------------------------------------------------------------------

    def tables(self, round_no: int) -> list[tuple[str, str]]:
        """The two teams at table ``i + 1`` in that round (round 1: the draw, in pairs)."""
        self._check_round(round_no)
        tables, bench = self._first_round()
        for r in range(1, round_no):
            results = self.results.get(r, {})
            if len(results) < len(tables):
                raise FormatError(
                    f"Round {round_no} is seated from round {r}'s results: tables "
                    f"{[i + 1 for i in range(len(tables)) if i + 1 not in results]} "
                    "are still to report."
                )
            winners = [t[results[i + 1].winner] for i, t in enumerate(tables)]
            losers = [t[1 - results[i + 1].winner] for i, t in enumerate(tables)]
            arriving = losers[-1:] + losers[:-1]  # loser of table i goes to i + 1
            if bench:
                arriving[0], bench = bench[0], [losers[-1]]
            tables = list(zip(winners, arriving, strict=True))
        return tables

    def bye(self, round_no: int) -> str | None:
        """The team sitting out that round (an odd number of teams), if any."""
        self._check_round(round_no)
        if len(self.teams) % 2 == 0:
            return None
        seated = {t for pair in self.tables(round_no) for t in pair}
        return next(t for t in self.teams if t not in seated)

    def _first_round(self) -> tuple[list[tuple[str, str]], list[str]]:
        n = len(self.teams) - len(self.teams) % 2
        tables = [(self.teams[i], self.teams[i + 1]) for i in range(0, n, 2)]
        return tables, self.teams[n:]

    # -- results ---------------------------------------------------------------------

    def record(
        self, round_no: int, table: int, points: tuple[int, int], winner: int | None = None
    ) -> None:
        """A table's match: both teams' points as seated; ``winner`` (0/1) if tied."""
        self._check_no_final("a round's result")
        tables = self.tables(round_no)
        if not 1 <= table <= len(tables):
            raise FormatError(f"Round {round_no} has tables 1 to {len(tables)}, not {table}.")
        if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in points):
            raise FormatError(f"Points must be whole numbers 0 or more, not {points!r}.")
        if winner is None:
            if points[0] == points[1]:
                a, b = tables[table - 1]
                raise FormatError(
                    f"{a} and {b} are tied at {points[0]}: 001 s19 plays 4 more hands, then "
                    "sudden death. Record the match with its winner (0 or 1)."
                )
            winner = 0 if points[0] > points[1] else 1
        elif winner not in (0, 1):
            raise FormatError(f"The winner is 0 (first team) or 1 (second), not {winner!r}.")
        elif points[winner] < points[1 - winner]:
            raise FormatError(
                "The winner cannot have fewer points than the loser: check the score card."
            )
        later = [r for r in self.results if r > round_no]
        if later and table in self.results.get(round_no, {}):
            raise FormatError(
                f"Round {later[0]} was seated from this result: correct it before round "
                f"{later[0]} is recorded, or void round {later[0]}'s results first."
            )
        self.results.setdefault(round_no, {})[table] = MatchResult((points[0], points[1]), winner)

    def standings(self) -> list[TeamStanding]:
        points = dict.fromkeys(self.teams, 0)
        played = dict.fromkeys(self.teams, 0)
        wins = dict.fromkeys(self.teams, 0)
        for round_no, by_table in sorted(self.results.items()):
            tables = self.tables(round_no)
            for table, res in by_table.items():
                for side, team in enumerate(tables[table - 1]):
                    points[team] += res.points[side]
                    played[team] += 1
                    wins[team] += res.winner == side
        uneven = len(set(played.values())) > 1

        def avg(t: str) -> Fraction:
            return Fraction(points[t], played[t]) if played[t] else Fraction(0)

        def key(t: str) -> tuple[Fraction | int, ...]:
            return (avg(t),) if uneven else (points[t],)

        order = sorted(self.teams, key=lambda t: (-key(t)[0], t))
        out: list[TeamStanding] = []
        for i, t in enumerate(order):
            place = out[-1].place if out and key(t) == key(out[-1].team) else i + 1
            out.append(TeamStanding(place, t, points[t], played[t], wins[t], avg(t)))
        return out

    def complete(self) -> bool:
        return all(
            len(self.results.get(r, {})) == len(self._first_round()[0])
            for r in range(1, self.rounds + 1)
        )

    # -- the final -------------------------------------------------------------------

    def record_playoff(self, a: str, b: str, points: tuple[int, int]) -> None:
        """Tie-break hands (001 s19/s20) between teams ``a`` and ``b``; added to any
        earlier ones, so sudden-death hands are recorded the same way."""
        self._check_no_final("a playoff's hands")
        for t in (a, b):
            if t not in self.teams:
                raise FormatError(f"There is no team {t!r} in this event.")
        if a == b:
            raise FormatError("A playoff is between two different teams.")
        if (b, a) in self.playoff_results:
            a, b, points = b, a, (points[1], points[0])
        old = self.playoff_results.get((a, b), (0, 0))
        self.playoff_results[(a, b)] = (old[0] + points[0], old[1] + points[1])

    def next_step(self) -> Playoff:
        """The final (001 s18), or the tie-break that must be played first (s19/s20).

        Teams tied for a place in the final play it off: two teams 4 hands then sudden
        death (s19), three or more a 4-hand round robin (s20) ranked by the points it
        brings each; still tied, those teams play sudden-death hands (recorded with
        :meth:`record_playoff`) until the cut is clear."""
        if not self.complete():
            raise FormatError(
                "The rounds are not all recorded yet: the final is chosen "
                "from the standings after the last round."
            )
        table = self.standings()
        firsts = [s.team for s in table if s.place == 1]
        if len(firsts) >= 2:
            finalists: list[str] = []
            tied = firsts
        else:
            finalists = firsts
            tied = [s.team for s in table if s.place == 2]
        need = 2 - len(finalists)
        if len(tied) == need:
            return self._final([*finalists, *tied])
        pairs = tuple(combinations(tied, 2))
        played = {pair: self._playoff(pair) for pair in pairs}
        if any(v is None for v in played.values()):
            kind = "tie_playoff" if len(tied) == 2 else "round_robin"
            return Playoff(kind, tuple(tied), 4, len(tied) == 2, pairs)
        got = dict.fromkeys(tied, 0)
        for (a, b), res in played.items():
            assert res is not None
            got[a] += res[0]
            got[b] += res[1]
        ranked = sorted(tied, key=lambda t: (-got[t], t))
        cut = got[ranked[need - 1]]
        above = [t for t in ranked if got[t] > cut]
        at_cut = [t for t in ranked if got[t] == cut]
        if len(above) + len(at_cut) == need:
            return self._final([*finalists, *ranked[:need]])
        # Still tied at the cut: sudden-death hands among those teams.
        return Playoff("sudden_death", tuple(at_cut), 1, True, tuple(combinations(at_cut, 2)))

    def _final(self, teams: list[str]) -> Playoff:
        pair = (teams[0], teams[1])
        return Playoff("final", pair, self.hands, True, (pair,))

    def _playoff(self, pair: tuple[str, str]) -> tuple[int, int] | None:
        a, b = pair
        if (a, b) in self.playoff_results:
            return self.playoff_results[(a, b)]
        res = self.playoff_results.get((b, a))
        return None if res is None else (res[1], res[0])

    def record_final(
        self,
        a: str,
        b: str,
        points: tuple[int, int],
        tiebreak: tuple[int, int] | None = None,
        *,
        correct: bool = False,
    ) -> None:
        """The final between the two finalists :meth:`next_step` names: ``points`` for
        ``a`` and ``b`` over the match's hands; ``correct`` replaces a final recorded.

        001 s18: "The top two scoring teams will face off for the championship. Same
        format will occur." The same format is s5's match of 12 hands (``self.hands``),
        scored as in s16, where every hand scores for one team: 12 hands score 12 to 48
        points between the two. A tie in the final follows s19, "If a tie occurs, a four
        (4) hand playoff will take place between the two teams. If the game is still
        tied, a sudden death hand will occur.": s19 comes straight after s18 and speaks of
        "the two teams" and "the game", so it covers the final (as it covers a tied round
        match, settled at the table by the ``nmu-tournament`` preset). A tied final then
        needs ``tiebreak``: the 4 playoff hands' points plus the sudden-death hand's, if
        one was played. One hand always scores for one team, so they cannot be tied;
        given for a final that was not tied, they are refused, not ignored."""
        step = self.next_step()
        if step.kind != "final":
            raise FormatError(
                f"The finalists are not known yet: {', '.join(step.teams)} are tied for a "
                "place in the final; their playoff (001 s19/s20) comes first."
            )
        pair = (step.teams[0], step.teams[1])
        for t in (a, b):
            if t not in pair:
                raise FormatError(
                    f"{t!r} is not in the final: it is {pair[0]} v {pair[1]} "
                    "(001 s18, the top two)."
                )
        if a == b:
            raise FormatError(
                f"The final is between two teams: give {pair[0]}'s and {pair[1]}'s points."
            )
        if self.final is not None and not correct:
            raise FormatError(
                "The final is already recorded: record it as a correction "
                "(correct=True) to replace it."
            )
        if self.final is None and correct:
            raise FormatError("No final is recorded yet, so there is nothing to correct.")
        _check_points(points, self.hands, self.hands, f"the final's {self.hands} hands")
        if tiebreak is not None:
            _check_points(tiebreak, 4, 5, "the tie-break's 4 hands (and sudden death)")
            if points[0] != points[1]:
                raise FormatError(
                    f"The final is not tied ({points[0]} to {points[1]}), so there is no "
                    "tie-break (001 s19): leave its points out."
                )
            if tiebreak[0] == tiebreak[1]:
                raise FormatError(
                    f"The tie-break is still tied at {tiebreak[0]}: 001 s19 then plays a "
                    "sudden-death hand; add its points to the tie-break's."
                )
        elif points[0] == points[1]:
            raise FormatError(
                f"The final is tied at {points[0]}: 001 s19 plays a four-hand playoff, then "
                "a sudden-death hand if still tied; give the tie-break's points too."
            )
        if (a, b) != pair:  # kept in the standings' order
            points = (points[1], points[0])
            tiebreak = None if tiebreak is None else (tiebreak[1], tiebreak[0])
        new = FinalResult(
            pair, (points[0], points[1]), None if tiebreak is None else (tiebreak[0], tiebreak[1])
        )
        if new == self.final:
            raise FormatError("That is the final as recorded already: nothing to correct.")
        self.final = new

    def clear_final(self) -> None:
        """Take the final back (a director's correction: it was recorded from standings
        that were wrong), so the rounds and playoff can be corrected again."""
        if self.final is None:
            raise FormatError("No final is recorded yet, so there is nothing to clear.")
        self.final = None

    def champion(self) -> str | None:
        """The winner of the final (001 s18 "face off for the championship"), once played."""
        return None if self.final is None else self.final.winner

    def placings(self) -> list[TeamStanding]:
        """The standings, then, once the final is played, its winner first and the loser
        second; the other teams keep their order from third place down."""
        table = self.standings()
        final = self.final
        if final is None:
            return table
        by_team = {s.team: s for s in table}
        rest = [replace(s, place=max(s.place, 3)) for s in table if s.team not in final.teams]
        return [
            replace(by_team[final.winner], place=1, final="champion"),
            replace(by_team[final.runner_up], place=2, final="runner-up"),
            *rest,
        ]

    def _check_no_final(self, what: str) -> None:
        if self.final is not None:
            a, b = self.final.teams
            raise FormatError(
                f"The final ({a} v {b}) is recorded from these standings: {what} cannot "
                "change under it. Clear the final first (the final form's correction with "
                "no points), then make this change and record the final again."
            )

    def _check_round(self, round_no: int) -> None:
        if not 1 <= round_no <= self.rounds:
            raise FormatError(f"This event has rounds 1 to {self.rounds}, not {round_no}.")

    # -- JSON ------------------------------------------------------------------------

    def to_json(self) -> RoundsJSON:
        return {
            "format": "rounds",
            "teams": list(self.teams),
            "rounds": self.rounds,
            "hands": self.hands,
            "results": {
                str(r): {
                    str(t): {"points": list(m.points), "winner": m.winner} for t, m in by.items()
                }
                for r, by in self.results.items()
            },
            "playoffs": [[a, b, list(p)] for (a, b), p in self.playoff_results.items()],
            "final": None if self.final is None else self.final.to_json(),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> RoundsEvent:
        """The event as :meth:`to_json` saved it; each field is checked as it is read
        (``saved``), a malformed one raising :class:`FormatError`."""
        try:
            event = cls(as_texts(obj["teams"]), as_int(obj["rounds"]), hands=as_int(obj["hands"]))
            results = as_object(obj.get("results", {}))
            for r in sorted(results, key=int):
                for t, m in as_object(results[r]).items():
                    match = as_object(m)
                    event.record(int(r), int(t), as_pair(match["points"]), as_int(match["winner"]))
            for row in as_list(obj.get("playoffs", [])):
                a, b, hands = as_list(row)
                event.record_playoff(as_text(a), as_text(b), as_pair(hands))
            final = obj.get("final")
            if final:
                final = as_object(final)
                (fa, fb), points = as_list(final["teams"]), as_pair(final["points"])
                tie = final.get("tiebreak")
                event.record_final(
                    as_text(fa), as_text(fb), points, None if tie is None else _first_two(tie)
                )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(f"The saved team event is malformed ({exc!r}).") from exc
        return event


def _first_two(value: JSONValue) -> tuple[int, int]:
    """A saved tie-break's two numbers (read, as it always was, from its first two)."""
    points = as_list(value)
    return as_int(points[0]), as_int(points[1])


def _check_points(points: tuple[int, int], least: int, most: int, what: str) -> None:
    """Two teams' points over ``least`` to ``most`` hands: whole numbers, and since every
    hand scores 1 to 4 points for one team (001 s16), their sum is ``least`` to
    ``4 * most``: a misread score card is caught before it names a champion."""
    if len(points) != 2 or any(
        isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in points
    ):
        raise FormatError(f"Points are whole numbers 0 or more, not {points!r}.")
    if not least <= sum(points) <= 4 * most:
        raise FormatError(
            f"{points[0]} and {points[1]} cannot be {what}: every hand scores 1 to 4 points "
            f"for one team (001 s16), so they add up to {least} to {4 * most}. Check the "
            "score card."
        )
