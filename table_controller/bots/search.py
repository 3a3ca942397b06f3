"""A double-dummy solver for the tricks left: every hand open, perfect play both sides.

The strong bot solves many sampled deals per decision, so this is the hot path. Hands
are 24-bit masks (bit = card number), the search is alpha-beta over single cards with a
transposition table at trick boundaries, and cards that are equivalent (adjacent in
their effective suit among the cards still out, in one hand) are searched once.

It counts the tricks the north-south team takes from here. Points in every preset are a
non-decreasing function of the makers' tricks for the makers (and the opposite for the
defenders), so the trick count's minimax is the points' minimax: the solver never needs
to know the scoring.

Two engines answer the same questions: ``_solver.c``, compiled when the package is
installed on a machine with a C compiler (setup.py), and this module's pure Python, the
fallback. ``Solver`` uses the compiled one when it was built (``ENGINE`` says which);
tests/test_bots_search.py checks that the two agree.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Final

from table_controller.cards import DECK, Card, Suit, effective_table, power
from table_controller.errors import TableControllerError
from table_controller.seats import Seat

_compiled: ModuleType | None
try:
    from table_controller.bots import _solver as _compiled
except ImportError:  # no C compiler where it was installed: the pure solver
    _compiled = None

ENGINE: Final = "python" if _compiled is None else "c"

_Table = tuple[tuple[int, ...], ...]


def _tables() -> tuple[_Table, _Table, tuple[tuple[tuple[int, ...], ...], ...]]:
    effs, masks, orders = [], [], []
    for t in range(5):
        trump = None if t == 4 else Suit(t)
        eff = effective_table(trump)
        effs.append(tuple(int(eff[c]) for c in DECK))
        masks.append(tuple(sum(1 << c for c in DECK if eff[c] == s) for s in range(4)))
        orders.append(
            tuple(
                tuple(sorted((c for c in DECK if eff[c] == s), key=lambda c: -power(c, trump)))
                for s in range(4)
            )
        )
    return tuple(effs), tuple(masks), tuple(orders)


_EFF, _SUITMASK, _ORDER = _tables()
# _RANK[t][c]: the card's place in its suit, higher wins; trumps lifted above all.
_RANK: Final = tuple(
    tuple(
        power(c, None if t == 4 else Suit(t)) + (1000 if t < 4 and _EFF[t][c] == t else 0)
        for c in DECK
    )
    for t in range(5)
)
# _KEYS[t][led][c]: the card's claim on a trick led in effective suit ``led`` (0: none).
_KEYS: Final = tuple(
    tuple(
        tuple(
            _RANK[t][c]
            if t < 4 and _EFF[t][c] == t
            else _RANK[t][c] + 1
            if _EFF[t][c] == led
            else 0
            for c in range(24)
        )
        for led in range(4)
    )
    for t in range(5)
)
# _STRENGTH[t][c]: the card's place in its effective suit from the bottom (1 the lowest).
_STRENGTH: Final = tuple(
    tuple(len(_ORDER[t][_EFF[t][c]]) - _ORDER[t][_EFF[t][c]].index(c) for c in range(24))
    for t in range(5)
)


def mask_of(cards: Sequence[Card] | frozenset[Card] | set[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class OutOfTime(TableControllerError):
    """A solve passed its deadline: its answer is unknown (the bot plays without it)."""


class PythonSolver:
    """Solves deals for one trump and one seat sitting out (or none), in pure Python.
    Reuse it for the samples of one decision: the transposition table is per deal,
    cleared by each question.

    A solve given a ``deadline`` (on ``clock``) raises OutOfTime once past it: most
    solves take a few milliseconds, but one from the first lead of a six-card hand
    (Bid Euchre) can take far longer than a decision may."""

    def __init__(
        self,
        trump: Suit | None,
        sitting_out: Seat | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.clock = clock
        self.deadline = math.inf
        t = 4 if trump is None else int(trump)
        self.trump = -1 if trump is None else int(trump)
        self.eff = _EFF[t]
        self.suitmask = _SUITMASK[t]
        self.order = _ORDER[t]
        self.rank = _RANK[t]
        self.out = -1 if sitting_out is None else int(sitting_out)
        self.active = 3 if sitting_out is not None else 4
        self.tt: dict[tuple[int, int, int, int, int], tuple[int, int]] = {}
        self.runs: dict[int, tuple[int, ...]] = {}
        self.keys = _KEYS[t]
        self.nodes = 0
        nxt = []
        for s in range(4):
            n = (s + 1) % 4
            if n == self.out:
                n = (n + 1) % 4
            nxt.append(n)
        self.next = tuple(nxt)

    # --- the public questions ------------------------------------------------------

    def ns_tricks(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> int:
        """North-south's tricks from here (the trick in play included)."""
        self._start(deadline)
        return self._ab(list(hands), int(leader), [(int(s), int(c)) for s, c in plays], -1, 99)

    def move_values(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> dict[Card, int]:
        """For each legal card of the seat to play: north-south's tricks from here after
        it (equivalent cards get the same value)."""
        self._start(deadline)
        h = list(hands)
        tr = [(int(s), int(c)) for s, c in plays]
        seat = int(leader) if not tr else self.next[tr[-1][0]]
        out: dict[Card, int] = {}
        legal = self._legal(h[seat], tr)
        for c in self._moves(h, seat, tr, legal):
            h[seat] ^= 1 << c
            out[DECK[c]] = self._ab(h, int(leader), [*tr, (seat, c)], -1, 99)
            h[seat] ^= 1 << c
        # equivalent cards share the value of the card that stands for them
        for c in range(24):
            if legal >> c & 1 and DECK[c] not in out:
                out[DECK[c]] = out[DECK[self._representative(h, seat, tr, c)]]
        return out

    def ns_reach(
        self,
        hands: Sequence[int],
        leader: Seat,
        target: int,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> bool:
        """Whether north-south take at least ``target`` tricks from here (the trick in
        play included): a null-window search, stopped as soon as that is decided, so
        cheaper than ``ns_tricks`` (bidding asks "does the maker reach 3, 5, the bid?")."""
        self._start(deadline)
        tr = [(int(s), int(c)) for s, c in plays]
        return self._ab(list(hands), int(leader), tr, target - 1, target) >= target

    # --- the search ----------------------------------------------------------------

    def _start(self, deadline: float) -> None:
        """A new question: a new table (the clock is read every 256 nodes)."""
        self.tt.clear()
        self.deadline = deadline

    def _legal(self, hand: int, plays: list[tuple[int, int]]) -> int:
        if not plays:
            return hand
        follow = hand & self.suitmask[self.eff[plays[0][1]]]
        return follow or hand

    def _representative(self, h: list[int], seat: int, plays: list[tuple[int, int]], c: int) -> int:
        live = h[0] | h[1] | h[2] | h[3] | (1 << c)
        for _, pc in plays:
            live |= 1 << pc
        mine = h[seat] | (1 << c)
        rep, prev_mine = c, False
        for card in self.order[self.eff[c]]:
            if not live >> card & 1:
                continue
            is_mine = bool(mine >> card & 1)
            if is_mine and not prev_mine:
                rep = card
            if card == c:
                return rep
            prev_mine = is_mine
        return c

    def _moves(
        self, h: list[int], seat: int, plays: list[tuple[int, int]], legal: int
    ) -> list[int]:
        """One card of each run of equivalent cards, strongest first."""
        live = h[0] | h[1] | h[2] | h[3]
        for _, pc in plays:
            live |= 1 << pc
        mine = h[seat]
        moves: list[int] = []
        order, rank = self.order, self.rank
        for s in range(4):
            if not legal & self.suitmask[s]:
                continue
            prev_mine = False
            for card in order[s]:
                if not live >> card & 1:
                    continue
                is_mine = bool(mine >> card & 1)
                if is_mine and not prev_mine and legal >> card & 1:
                    moves.append(card)
                prev_mine = is_mine
        moves.sort(key=lambda c: -rank[c])
        if plays:
            # following: the cheapest card first when partner holds the trick or it
            # cannot be won; else the cheapest winner first, then the cheapest loser
            lead = plays[0][1]
            holder, bk = max(plays, key=lambda p: self._key(p[1], lead))
            bk = self._key(bk, lead)
            winners = [c for c in moves if self._key(c, lead) > bk]
            if holder % 2 == seat % 2 or not winners:
                moves.reverse()
            elif len(winners) < len(moves):
                moves = winners[::-1] + moves[len(winners) :][::-1]
        return moves

    def _key(self, card: int, lead: int) -> int:
        e = self.eff[card]
        if e == self.trump:
            return self.rank[card]
        if e == self.eff[lead]:
            return self.rank[card] + 1
        return 0

    def _ab(
        self, h: list[int], leader: int, plays: list[tuple[int, int]], alpha: int, beta: int
    ) -> int:
        """North-south's tricks from any point: a trick's lead or part way through one."""
        if not plays:
            return self._lead(h, leader, alpha, beta)
        kt = self.keys[self.eff[plays[0][1]]]
        win_seat, win_key, trick = -1, -1, 0
        for s, c in plays:
            trick |= 1 << c
            if kt[c] > win_key:
                win_seat, win_key = s, kt[c]
        follow = self.suitmask[self.eff[plays[0][1]]]
        seat = self.next[plays[-1][0]]
        return self._follow(h, seat, len(plays), kt, follow, trick, win_seat, win_key, alpha, beta)

    def _runs(self, legal: int, live: int, mine: int) -> tuple[int, ...]:
        """One card of each run of equivalent cards, strongest first (cached: a pure
        function of the cards, asked again and again)."""
        key = legal | live << 24 | mine << 48
        got = self.runs.get(key)
        if got is not None:
            return got
        moves: list[int] = []
        for s in range(4):
            if not legal & self.suitmask[s]:
                continue
            prev_mine = False
            for card in self.order[s]:
                if not live >> card & 1:
                    continue
                is_mine = bool(mine >> card & 1)
                if is_mine and not prev_mine and legal >> card & 1:
                    moves.append(card)
                prev_mine = is_mine
        rank = self.rank
        moves.sort(key=lambda c: -rank[c])
        if len(self.runs) > 200_000:
            self.runs.clear()
        got = self.runs[key] = tuple(moves)
        return got

    def _lead(self, h: list[int], leader: int, alpha: int, beta: int) -> int:
        """At a trick's lead: the transposition table, then each card led."""
        self.nodes += 1
        if not self.nodes & 255 and self.clock() > self.deadline:
            raise OutOfTime
        hand = h[leader]
        left = hand.bit_count()
        if left == 0:
            return 0
        if left == 1:  # the last trick plays itself
            lead = hand.bit_length() - 1
            kt = self.keys[self.eff[lead]]
            win_seat, win_key, s = leader, kt[lead], self.next[leader]
            while s != leader:
                c = h[s].bit_length() - 1
                if kt[c] > win_key:
                    win_seat, win_key = s, kt[c]
                s = self.next[s]
            return 1 - (win_seat & 1)
        key = (h[0], h[1], h[2], h[3], leader)
        hit = self.tt.get(key)
        lo, hi = (0, left) if hit is None else hit
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        a0, b0 = alpha, beta
        alpha, beta = max(alpha, lo), min(beta, hi)
        maximising = not leader & 1
        best = -1 if maximising else 99
        keys, eff, suitmask, nxt = self.keys, self.eff, self.suitmask, self.next[leader]
        for c in self._runs(hand, h[0] | h[1] | h[2] | h[3], hand):
            bit = 1 << c
            h[leader] = hand ^ bit
            kt = keys[eff[c]]
            v = self._follow(h, nxt, 1, kt, suitmask[eff[c]], bit, leader, kt[c], alpha, beta)
            h[leader] = hand
            if maximising:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        lo, hi = self.tt.get(key, (0, 99))
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        self.tt[key] = (lo, hi)
        return best

    def _follow(
        self,
        h: list[int],
        seat: int,
        n: int,
        kt: tuple[int, ...],
        follow: int,
        trick: int,
        win_seat: int,
        win_key: int,
        alpha: int,
        beta: int,
    ) -> int:
        """Part way through a trick: ``n`` cards played (``trick``), ``kt`` each card's
        claim on it, ``win_seat`` holding it with ``win_key``; ``seat`` to play."""
        self.nodes += 1
        if not self.nodes & 255 and self.clock() > self.deadline:
            raise OutOfTime
        if n == self.active:
            w = 1 - (win_seat & 1)
            if not h[win_seat]:
                return w
            return w + self._lead(h, win_seat, alpha - w, beta - w)
        hand = h[seat]
        runs = self._runs(hand & follow or hand, h[0] | h[1] | h[2] | h[3] | trick, hand)
        # the cheapest card first when partner holds the trick or it cannot be won; else
        # the cheapest winner first, then the cheapest loser
        if not (win_seat ^ seat) & 1 or kt[runs[0]] <= win_key:
            moves: Sequence[int] = runs[::-1]
        elif kt[runs[-1]] > win_key:
            moves = runs
        else:
            winners = [c for c in runs if kt[c] > win_key]
            moves = winners[::-1] + [c for c in runs[::-1] if kt[c] <= win_key]
        maximising = not seat & 1
        best = -1 if maximising else 99
        nxt = self.next[seat]
        for c in moves:
            bit = 1 << c
            h[seat] = hand ^ bit
            k = kt[c]
            if k > win_key:
                v = self._follow(h, nxt, n + 1, kt, follow, trick | bit, seat, k, alpha, beta)
            else:
                v = self._follow(
                    h, nxt, n + 1, kt, follow, trick | bit, win_seat, win_key, alpha, beta
                )
            h[seat] = hand
            if maximising:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return best

    def _order_from(self, leader: int) -> list[int]:
        seats, s = [leader], leader
        for _ in range(self.active - 1):
            s = self.next[s]
            seats.append(s)
        return seats


class Solver(PythonSolver):
    """The solver the bots use: the compiled engine when it was built, else the pure one
    (``compiled=False`` asks for the pure one, for the tests that compare them). The same
    questions, the same answers."""

    def __init__(
        self,
        trump: Suit | None,
        sitting_out: Seat | None = None,
        clock: Callable[[], float] = time.perf_counter,
        *,
        compiled: bool = True,
    ) -> None:
        super().__init__(trump, sitting_out, clock)
        self.engine = _compiled if compiled else None
        t = 4 if trump is None else int(trump)
        orders = b"".join(bytes([*o, *[255] * (8 - len(o))]) for o in _ORDER[t])
        trump_byte = 255 if trump is None else int(trump)
        self.config = bytes([*_EFF[t], *_STRENGTH[t], *orders, *self.next, trump_byte, self.active])

    def _solve(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]],
        alpha: int,
        beta: int,
        deadline: float,
    ) -> int:
        assert self.engine is not None
        h0, h1, h2, h3 = hands
        trick = bytes(x for s, c in plays for x in (int(s), int(c)))
        got = self.engine.solve(
            self.config, h0, h1, h2, h3, int(leader), trick, alpha, beta, self.clock, deadline
        )
        if got is None:
            raise OutOfTime
        return int(got)

    def ns_tricks(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> int:
        if self.engine is None:
            return super().ns_tricks(hands, leader, plays, deadline=deadline)
        return self._solve(hands, leader, plays, -1, 99, deadline)

    def ns_reach(
        self,
        hands: Sequence[int],
        leader: Seat,
        target: int,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> bool:
        if self.engine is None:
            return super().ns_reach(hands, leader, target, plays, deadline=deadline)
        return self._solve(hands, leader, plays, target - 1, target, deadline) >= target

    def move_values(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = math.inf,
    ) -> dict[Card, int]:
        if self.engine is None:
            return super().move_values(hands, leader, plays, deadline=deadline)
        h0, h1, h2, h3 = hands
        trick = bytes(x for s, c in plays for x in (int(s), int(c)))
        got = self.engine.values(
            self.config, h0, h1, h2, h3, int(leader), trick, self.clock, deadline
        )
        if got is None:
            raise OutOfTime
        return {DECK[c]: v for c, v in enumerate(got) if v != 255}
