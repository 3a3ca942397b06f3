"""Issue 21's baseline: the solver as it was before (search.py at 9e435ea), for bench/solver.py.

The strong bot solves many sampled deals per decision, so this is the hot path. Hands
are 24-bit masks (bit = card number), the search is alpha-beta over single cards with a
transposition table at trick boundaries, and cards that are equivalent (adjacent in
their effective suit among the cards still out, in one hand) are searched once.

It counts the tricks the north-south team takes from here. Points in every preset are a
non-decreasing function of the makers' tricks for the makers (and the opposite for the
defenders), so the trick count's minimax is the points' minimax: the solver never needs
to know the scoring.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Final

from table_controller.bots.search import OutOfTime  # the one the strong bot catches
from table_controller.cards import DECK, Card, Suit, effective_table, power
from table_controller.seats import Seat

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


def mask_of(cards: Sequence[Card] | frozenset[Card] | set[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class Solver:
    """Solves deals for one trump and one seat sitting out (or none). Reuse it for the
    samples of one decision: the transposition table is per deal, cleared by ``solve``.

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
        self.tt.clear()
        self.deadline = deadline
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
        self.tt.clear()
        self.deadline = deadline
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

    # --- the search ----------------------------------------------------------------

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
            # following: the cheapest card first when the trick cannot be won anyway
            best = max(plays, key=lambda p: self._key(p[1], plays[0][1]))[1]
            bk = self._key(best, plays[0][1])
            lead = plays[0][1]
            winners = [c for c in moves if self._key(c, lead) > bk]
            if not winners:
                moves.reverse()
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
        self.nodes += 1
        if not self.nodes & 255 and self.clock() > self.deadline:
            raise OutOfTime
        if len(plays) == self.active:
            lead = plays[0][1]
            win_seat, win_key = -1, -1
            for s, c in plays:
                k = self._key(c, lead)
                if k > win_key:
                    win_seat, win_key = s, k
            w = 1 if win_seat % 2 == 0 else 0
            if not h[win_seat]:
                return w
            return w + self._ab(h, win_seat, [], alpha - w, beta - w)
        key = None
        if not plays:
            left = bin(h[leader]).count("1")
            if left == 0:
                return 0
            if left == 1:  # the last trick plays itself
                last = [(s, h[s].bit_length() - 1) for s in self._order_from(leader)]
                lead = last[0][1]
                win = max(last, key=lambda p: self._key(p[1], lead))[0]
                return 1 if win % 2 == 0 else 0
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
            seat = leader
        else:
            seat = self.next[plays[-1][0]]
        legal = self._legal(h[seat], plays)
        maximising = seat % 2 == 0
        best = -1 if maximising else 99
        for c in self._moves(h, seat, plays, legal):
            bit = 1 << c
            h[seat] ^= bit
            plays.append((seat, c))
            v = self._ab(h, leader, plays, alpha, beta)
            plays.pop()
            h[seat] ^= bit
            if maximising:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = self.tt.get(key, (0, 99))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.tt[key] = (lo, hi)
        return best

    def _order_from(self, leader: int) -> list[int]:
        seats, s = [leader], leader
        for _ in range(self.active - 1):
            s = self.next[s]
            seats.append(s)
        return seats
