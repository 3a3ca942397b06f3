"""Progressive events (003): individual scores and rotation charts (pure, JSON state).

003 Scoring: "In a standard progressive event ... on a lone call, the person making the
lone scores 5 points and his partner scores 4 points" and "A total of 8 hands are
played, with everyone dealing twice". The table's rules core (preset ``td-progressive``)
already scores each player (``game_ended.individual``: N E S W); this module schedules
the rounds and adds the players' totals up.

Rotation charts. Each round every present player is at one table with a partner and two
opponents. A chart should give each player as many different partners as possible and
spread the opponents evenly. The construction:

* partners: the round-robin "circle" 1-factorisation of the players (one dummy added when
  the count is odd) gives every pair of players exactly one round together as partners
  in every ``n - 1`` rounds, the best any chart can do;
* byes (player count not a multiple of 4): the dummy's partner sits out, and when the
  partnerships left are odd one more partnership sits out: the one with the fewest byes
  so far, so byes are as even as the partnerships allow;
* opponents: each round the partnerships are paired into tables by a deterministic
  local search that minimises the times the new opponents have already met (the
  marginal cost of the sum of squares of the opposition counts), so opposition spreads.

No randomness: the chart depends only on the number of players and rounds; the draw of
who is player 1, 2, ... is the order of the ``players`` given (the caller's shuffle).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, TypedDict

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.formats.roster import FormatError, Roster, RosterJSON
from table_controller.director.tournament.formats.saved import as_int, as_object, as_texts

SEAT_NAMES = ("N", "E", "S", "W")

Table = tuple[int, int, int, int]  # player numbers (0-based) seated N E S W


class BalanceJSON(TypedDict):
    """A chart's fairness as JSON (``Balance.to_json``)."""

    max_partner: int
    distinct_partners: list[int]
    opponent_range: list[int]
    byes: list[int]


class RoundPlanJSON(TypedDict):
    """A round of a chart as JSON: each table's players (N E S W) and the byes."""

    tables: list[list[int]]
    byes: list[int]


@dataclass(frozen=True)
class RoundPlan:
    tables: tuple[Table, ...]
    byes: tuple[int, ...]


@dataclass(frozen=True)
class Balance:
    """How fair a chart is: counts for every pair of players ``(a, b)``, ``a < b``."""

    partners: dict[tuple[int, int], int]
    opponents: dict[tuple[int, int], int]
    byes: tuple[int, ...]

    @property
    def max_partner(self) -> int:
        return max(self.partners.values(), default=0)

    @property
    def distinct_partners(self) -> tuple[int, ...]:
        """For each player, how many different partners they had."""
        n = len(self.byes)
        return tuple(
            sum(1 for (a, b), c in self.partners.items() if c and p in (a, b)) for p in range(n)
        )

    @property
    def opponent_range(self) -> tuple[int, int]:
        values = list(self.opponents.values())
        return (min(values), max(values)) if values else (0, 0)

    def to_json(self) -> BalanceJSON:
        return {
            "max_partner": self.max_partner,
            "distinct_partners": list(self.distinct_partners),
            "opponent_range": list(self.opponent_range),
            "byes": list(self.byes),
        }


@dataclass(frozen=True)
class Chart:
    players: int
    rounds: tuple[RoundPlan, ...]

    def balance(self) -> Balance:
        n = self.players
        partners = {pair: 0 for pair in combinations(range(n), 2)}
        opponents = dict(partners)
        byes = [0] * n
        for plan in self.rounds:
            for b in plan.byes:
                byes[b] += 1
            for north, east, south, west in plan.tables:
                partners[_key(north, south)] += 1
                partners[_key(east, west)] += 1
                for a in (north, south):
                    for b in (east, west):
                        opponents[_key(a, b)] += 1
        return Balance(partners, opponents, tuple(byes))

    def to_json(self) -> list[RoundPlanJSON]:
        return [
            {"tables": [list(t) for t in plan.tables], "byes": list(plan.byes)}
            for plan in self.rounds
        ]


def rotation_chart(players: int, rounds: int) -> Chart:
    """A chart for ``players`` players (at least 4) and ``rounds`` rounds."""
    if players < 4:
        raise FormatError(f"A progressive event needs at least 4 players, not {players}.")
    if rounds < 1:
        raise FormatError(f"A progressive event needs at least one round, not {rounds}.")
    m = players + (players % 2)  # with a dummy (index ``players``) when odd
    cycle = m - 1
    all_pairs = [_circle_round(m, r % cycle) for r in range(rounds)]
    # The dummy's partners sit out whatever we choose: count them in up front, so the
    # extra byes go to those who will have the fewest in the end.
    byes = [0] * players
    for pairs in all_pairs:
        for a, b in pairs:
            if players in (a, b):
                byes[b if a == players else a] += 1
    rounds_pairs: list[list[tuple[int, int]]] = []
    rounds_out: list[list[int]] = []
    for pairs in all_pairs:
        out = [b if a == players else a for a, b in pairs if players in (a, b)]
        real = [p for p in pairs if players not in p]
        if len(real) % 2:
            sit = min(real, key=lambda p: (max(byes[p[0]], byes[p[1]]), byes[p[0]] + byes[p[1]]))
            real.remove(sit)
            out.extend(sit)
            byes[sit[0]] += 1
            byes[sit[1]] += 1
        rounds_pairs.append(real)
        rounds_out.append(out)
    opp = [[0] * players for _ in range(players)]
    matchings: list[list[list[tuple[int, int]]]] = []
    for real in rounds_pairs:
        matched = _pair_tables(real, opp, None)
        _count(opp, matched, 1)
        matchings.append(matched)
    # Coordinate descent: re-pair each round given all the others, while it helps.
    for _ in range(_SWEEPS):
        changed = False
        for r, matched in enumerate(matchings):
            _count(opp, matched, -1)
            better = _pair_tables(rounds_pairs[r], opp, matched)
            changed |= better != matched
            _count(opp, better, 1)
            matchings[r] = better
        if not changed:
            break
    plans = [
        RoundPlan(tuple((p[0], q[0], p[1], q[1]) for p, q in matched), tuple(sorted(out)))
        for matched, out in zip(matchings, rounds_out, strict=True)
    ]
    return Chart(players, tuple(plans))


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _circle_round(m: int, r: int) -> list[tuple[int, int]]:
    """Round ``r`` of the circle method on ``m`` (even) players: m/2 partnerships."""
    cycle = m - 1
    pairs = [(r, m - 1)]
    for i in range(1, m // 2):
        pairs.append(((r + i) % cycle, (r - i) % cycle))
    return pairs


_SWEEPS = 20


def _count(opp: list[list[int]], matched: list[list[tuple[int, int]]], step: int) -> None:
    for p, q in matched:
        for a in p:
            for b in q:
                opp[a][b] += step
                opp[b][a] += step


def _pair_tables(
    pairs: list[tuple[int, int]],
    opp: list[list[int]],
    start: list[list[tuple[int, int]]] | None,
) -> list[list[tuple[int, int]]]:
    """Pair partnerships into tables, fewest repeated opponents (greedy, then 2-opt).

    A table's cost is the marginal increase of the sum of squared opposition counts."""

    def cost(p: tuple[int, int], q: tuple[int, int]) -> int:
        return sum(2 * opp[a][b] + 1 for a in p for b in q)

    if start is None:
        left = list(pairs)
        matched: list[list[tuple[int, int]]] = []
        while left:
            p = left.pop(0)
            q = min(left, key=lambda x: cost(p, x))
            left.remove(q)
            matched.append([p, q])
    else:
        matched = [list(t) for t in start]
    improved = True
    passes = 0
    while improved and passes < 50:
        improved = False
        passes += 1
        for i in range(len(matched)):
            for j in range(i + 1, len(matched)):
                a, b = matched[i]
                c, d = matched[j]
                now = cost(a, b) + cost(c, d)
                if cost(a, c) + cost(b, d) < now:
                    matched[i], matched[j] = [a, c], [b, d]
                    improved = True
                elif cost(a, d) + cost(b, c) < now:
                    matched[i], matched[j] = [a, d], [b, c]
                    improved = True
    return matched


# -- the event ------------------------------------------------------------------------


class StandingJSON(TypedDict):
    """A player's line of the standings as JSON (``Standing.to_json``)."""

    place: int
    player: str
    name: str
    total: int
    rounds_won: int
    rounds_played: int


@dataclass(frozen=True)
class Standing:
    place: int
    player: str
    name: str
    total: int
    rounds_won: int
    rounds_played: int

    def to_json(self) -> StandingJSON:
        return {
            "place": self.place,
            "player": self.player,
            "name": self.name,
            "total": self.total,
            "rounds_won": self.rounds_won,
            "rounds_played": self.rounds_played,
        }


class ProgressiveJSON(TypedDict):
    """The progressive event as saved (``ProgressiveEvent.to_json``): results by round
    then table (both as text), each a seat's score; the chart only for display."""

    format: Literal["progressive"]
    players: list[str]
    rounds: int
    hands: int
    roster: RosterJSON
    results: dict[str, dict[str, dict[str, int]]]
    chart: list[RoundPlanJSON]


class ProgressiveEvent:
    """A progressive event: players in draw order, a chart, results as they come in.

    ``record(round, table, scores)`` takes each seat's individual score for that round's
    game (``{"N": 7, "E": 3, "S": 7, "W": 3}``; :func:`scores_from_game_ended` reads them
    from a table's ``game_ended`` output). Rounds and tables are numbered from 1, as on
    the cards handed to the players.
    """

    def __init__(
        self, players: Sequence[str], rounds: int, *, hands: int = 8, roster: Roster | None = None
    ) -> None:
        if len(set(players)) != len(players):
            twice = sorted({p for p in players if list(players).count(p) > 1})
            raise FormatError(f"{twice} are listed twice: list each player once.")
        self.players = list(players)
        self.hands = hands
        self.roster = roster if roster is not None else Roster()
        self.chart = rotation_chart(len(self.players), rounds)
        self.results: dict[int, dict[int, dict[str, int]]] = {}

    @property
    def rounds(self) -> int:
        return len(self.chart.rounds)

    def tables(self, round_no: int) -> list[dict[str, str]]:
        """Table ``i + 1``'s seats for the round: seat letter -> the entrant's id."""
        plan = self._plan(round_no)
        return [
            {seat: self.players[p] for seat, p in zip(SEAT_NAMES, t, strict=True)}
            for t in plan.tables
        ]

    def byes(self, round_no: int) -> list[str]:
        return [self.players[p] for p in self._plan(round_no).byes]

    def seating(self, round_no: int) -> list[dict[str, str]]:
        """As :meth:`tables`, with substitutes seated; refuses an absentee left in a seat."""
        tables = self.tables(round_no)
        if self.roster.players:
            self.roster.check_seating(round_no, [p for t in tables for p in t.values()])
        return [{s: self.roster.sitting(round_no, p) for s, p in t.items()} for t in tables]

    def record(self, round_no: int, table: int, scores: Mapping[str, JSONValue]) -> None:
        """Each seat's score (whole numbers, checked here: a saved event's too)."""
        tables = self.tables(round_no)
        if not 1 <= table <= len(tables):
            raise FormatError(
                f"Round {round_no} has tables 1 to {len(tables)}, not {table}: check the "
                "table number on the score card."
            )
        if set(scores) != set(SEAT_NAMES):
            raise FormatError(
                f"A result gives a score for each seat N, E, S, W; got {sorted(scores)}."
            )
        clean: dict[str, int] = {}
        for seat in SEAT_NAMES:
            value = scores[seat]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FormatError(
                    f"Seat {seat}'s score must be a whole number of points "
                    f"0 or more, not {value!r}."
                )
            clean[seat] = value
        self.results.setdefault(round_no, {})[table] = clean

    def missing(self, round_no: int) -> list[int]:
        """Tables of the round with no result yet."""
        done = self.results.get(round_no, {})
        return [i for i in range(1, len(self.tables(round_no)) + 1) if i not in done]

    def standings(self) -> list[Standing]:
        """Individual totals, best first.

        003 gives no tie-break for a progressive event; this module's documented choice:
        more rounds won (the player's side outscored the other side at the table), then
        the place is shared."""
        total = dict.fromkeys(self.players, 0)
        won = dict.fromkeys(self.players, 0)
        played = dict.fromkeys(self.players, 0)
        for round_no, by_table in self.results.items():
            tables = self.tables(round_no)
            for table, scores in by_table.items():
                seats = tables[table - 1]
                ns = scores["N"] + scores["S"]
                ew = scores["E"] + scores["W"]
                for seat, entrant in seats.items():
                    who = self.roster.credited(round_no, entrant)
                    for d in (total, won, played):
                        d.setdefault(who, 0)
                    total[who] += scores[seat]
                    played[who] += 1
                    side, other = (ns, ew) if seat in "NS" else (ew, ns)
                    won[who] += side > other
        order = sorted(total, key=lambda p: (-total[p], -won[p], p))
        out: list[Standing] = []
        for i, p in enumerate(order):
            if out and (total[p], won[p]) == (out[-1].total, out[-1].rounds_won):
                place = out[-1].place
            else:
                place = i + 1
            out.append(Standing(place, p, self.roster.name(p), total[p], won[p], played[p]))
        return out

    def _plan(self, round_no: int) -> RoundPlan:
        if not 1 <= round_no <= self.rounds:
            raise FormatError(f"This event has rounds 1 to {self.rounds}, not {round_no}.")
        return self.chart.rounds[round_no - 1]

    def to_json(self) -> ProgressiveJSON:
        return {
            "format": "progressive",
            "players": list(self.players),
            "rounds": self.rounds,
            "hands": self.hands,
            "roster": self.roster.to_json(),
            "results": {
                str(r): {str(t): dict(s) for t, s in by.items()} for r, by in self.results.items()
            },
            "chart": self.chart.to_json(),  # for display; rebuilt on load
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> ProgressiveEvent:
        """The event as :meth:`to_json` saved it; each field is checked as it is read
        (``saved``), a malformed one raising :class:`FormatError`."""
        try:
            event = cls(
                as_texts(obj["players"]),
                as_int(obj["rounds"]),
                hands=as_int(obj["hands"]),
                roster=Roster.from_json(as_object(obj.get("roster", {}))),
            )
            for r, by in as_object(obj.get("results", {})).items():
                for t, scores in as_object(by).items():
                    event.record(int(r), int(t), as_object(scores))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(f"The saved progressive event is malformed ({exc!r}).") from exc
        return event


def scores_from_game_ended(payload: Mapping[str, JSONValue]) -> dict[str, int]:
    """Seat scores from a table's codec-encoded ``game_ended`` (or ``hand_scored``) output."""
    individual = payload.get("individual")
    if not isinstance(individual, list | tuple) or len(individual) != 4:
        raise FormatError(
            "This game has no individual scores: the table must play the progressive "
            "preset (td-progressive) for a progressive event."
        )
    return {seat: as_int(v) for seat, v in zip(SEAT_NAMES, individual, strict=True)}
