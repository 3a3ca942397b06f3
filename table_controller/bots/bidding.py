"""Bidding by search: every call the seat may make, weighed on the same sampled deals.

A bid decides more points than any card, and the rule of thumb reads only a point
count. So for a bidding decision (order up, pass or go alone; name a suit; a Bid
Euchre number with its trump; the trump the Bid Euchre winner names) the strong bot
deals the unseen cards many ways consistent with what the seat knows (sampling.py:
the upcard, who passed), and for each deal pushes every candidate call into a game
with every hand open, lets the other seats (and this one, later) bid by the rule of
thumb, has the dealer discard and the 004 shooter exchange by the rule of thumb, and
solves the card play double-dummy (search.py). The tricks become this hand's points
under the preset's scoring, from the seat's side; a hand thrown in (everyone passed)
scores 0 and is the next deal's. ``StrongBot.bid`` takes the call with the best weighted
mean when its gain over the rule of thumb's call, deal by deal, is clear (``Weighed.gain``).

Every candidate is weighed on the same deals (one round of all candidates per deal,
and a round cut short by the deadline is dropped), so the comparison is not a luck of
the cards. Solves are shared: the play depends on the trump, the seat sitting out and
the leader, not on who of a team made it or for how many, so one solve answers every
call that leads to the same play.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table_controller.bots.knowledge import SeatView, knowledge
from table_controller.bots.rule_of_thumb import (
    ALONE,
    CALL,
    RuleOfThumbBot,
    best_card_to_give,
    best_discard,
    estimated_tricks,
    hand_value,
)
from table_controller.bots.sampling import sample_deal, weight
from table_controller.bots.search import OutOfTime, Solver, mask_of
from table_controller.cards import Card, Suit
from table_controller.rules import scoring
from table_controller.rules.events import (
    BidMade,
    CardsExchanged,
    DealerChosen,
    HandDealt,
    InputEvent,
    OrderedUp,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Rules, Variant
from table_controller.seats import SEATS, Seat, Team

SEARCHED = frozenset({Phase.BIDDING, Phase.NAMING_TRUMP})
_SIMULATED = frozenset({Phase.BIDDING, Phase.NAMING_TRUMP, Phase.DISCARDING, Phase.EXCHANGING})

# (trump, seat sitting out, leader, the four hands as masks) -> north-south's tricks
_PlayKey = tuple[Suit | None, Seat | None, Seat, tuple[int, int, int, int]]


@dataclass
class Weighed:
    """The outcome of one bidding search: the expected points of each candidate call
    (from the seat's side, over ``deals`` deals), or why there were too few deals."""

    values: dict[InputEvent, float]
    deals: int
    why: str = ""
    rounds: list[tuple[float, list[float]]] = field(default_factory=list)  # (weight, values)
    calls: list[InputEvent] = field(default_factory=list)  # the order of a round's values

    def gain(self, call: InputEvent, base: InputEvent) -> tuple[float, float]:
        """The weighted mean gain of ``call`` over ``base`` deal by deal, and its
        standard error (the same deals for both: the luck of the cards cancels)."""
        i, j = self.calls.index(call), self.calls.index(base)
        total = sum(w for w, _ in self.rounds)
        n = len(self.rounds)
        if n == 0 or total == 0.0:
            return 0.0, math.inf
        diffs = [(w, v[i] - v[j]) for w, v in self.rounds]
        mean = sum(w * d for w, d in diffs) / total
        if n < 2:
            return mean, math.inf
        var = sum(w * (d - mean) ** 2 for w, d in diffs) / total * n / (n - 1)
        return mean, math.sqrt(var / n)


REACH = 3.0  # a call is weighed if the hand's point count is this close to making it
TRUMPS_WEIGHED = 2  # Bid Euchre: the trumps of the hand's best estimates weighed
TRICKS_REACH = 2  # Bid Euchre: bids up to this many tricks over the hand's estimate


def plausible(view: SeatView, legal: Sequence[InputEvent], default: InputEvent) -> list[InputEvent]:
    """The calls worth weighing: every pass, the rule of thumb's call, and the calls
    whose point count comes within ``REACH`` of the rule of thumb's threshold (a lone
    call of ``ALONE``, a call of ``CALL``); in Bid Euchre the best trumps and the bids up
    to a little over the hand's estimate. A solve per distinct play per deal is the
    cost, so a call no hand of these points would make is not weighed."""
    game = view.game
    hand = game.hand
    assert hand is not None
    cards = sorted(view.cards)
    n = game.rules.hand_size

    def value(trump: Suit | None) -> float:
        if hand.upcard is not None and hand.round == 1 and view.seat == hand.dealer:
            held = [*cards, hand.upcard]
            held.remove(best_discard(held, trump))
            return hand_value(held, trump)
        return hand_value(cards, trump)

    trumps = {e.trump for e in legal if isinstance(e, TrumpBid | TrumpCalled)}
    best = sorted(trumps, key=lambda t: -estimated_tricks(cards, t))[:TRUMPS_WEIGHED]
    est = max((estimated_tricks(cards, t) for t in trumps), default=0.0)
    out: list[InputEvent] = []
    for e in legal:
        keep = e == default
        if isinstance(e, OrderedUp):
            assert hand.upcard is not None
            keep = keep or value(hand.upcard.suit) >= (ALONE if e.alone else CALL) - REACH
        elif isinstance(e, TrumpCalled) and game.phase is Phase.NAMING_TRUMP:
            keep = keep or e.trump in best
        elif isinstance(e, TrumpCalled):
            keep = keep or value(e.trump) >= (ALONE if e.alone else CALL) - REACH
        elif isinstance(e, TrumpBid | BidMade):
            trump_ok = not isinstance(e, TrumpBid) or e.trump in best
            reach = n - 1.5 if scoring.is_shoot(e.amount) else e.amount - TRICKS_REACH - 1.0
            keep = keep or (trump_ok and est >= reach)
        else:
            keep = True  # a pass
        if keep:
            out.append(e)
    return out


def hand_events(game: Game) -> list[InputEvent]:
    """The events of the hand in play since its deal (the bidding so far)."""
    log = game.log
    for i in range(len(log) - 1, -1, -1):
        if type(log[i]) is HandDealt:
            return log[i + 1 :]
    return []


def weigh_calls(
    view: SeatView,
    candidates: Sequence[InputEvent],
    rng: random.Random,
    *,
    clock: Callable[[], float],
    budget: float,
    hard: float,
    max_deals: int,
) -> Weighed:
    """The mean points of each candidate over as many sampled deals as fit in
    ``budget`` seconds of ``clock`` from now; no round runs past ``hard`` (absolute).
    A round starts while the mean round so far fits before the budget ends: rounds
    vary tenfold with the deal, and one that overruns is only dropped at ``hard``."""
    start = clock()
    game, me = view.game, view.seat
    hand = game.hand
    assert hand is not None
    rules = game.rules
    k = knowledge(view)
    mine = sorted(view.cards)
    prefix: list[InputEvent] = [DealerChosen(hand.dealer)]
    past = hand_events(game)
    sim = _Simulator(rules, me, clock, hard)
    totals = dict.fromkeys(candidates, 0.0)
    rounds: list[tuple[float, list[float]]] = []
    weights = 0.0
    deals = 0
    spent = 0.0  # on the rounds so far
    why = ""
    while deals < max_deals:
        now = clock()
        if deals and now + spent / deals > start + budget:
            break
        deal = sample_deal(k, rng)
        if deal is None:
            why = "no deal fits what the seat knows"
            break
        deal[me] = mine
        dealt = HandDealt(hand.upcard, {s: tuple(sorted(deal[s])) for s in SEATS})
        base = [*prefix, dealt, *past]
        try:
            values = [sim.value(base, call) for call in candidates]
        except OutOfTime:
            why = "no deal solved in time"
            break
        w = weight(k, deal)
        for call, v in zip(candidates, values, strict=True):
            totals[call] += w * v
        weights += w
        rounds.append((w, values))
        deals += 1
        spent += clock() - now
    if weights == 0.0:
        return Weighed({}, deals, why or "no deal solved in time")
    means = {c: t / weights for c, t in totals.items()}
    return Weighed(means, deals, why, rounds, list(candidates))


class _Simulator:
    """Plays one call out on an open deal: the rest of the bidding by the rule of
    thumb, the card play solved (each distinct play solved once per deal)."""

    def __init__(self, rules: Rules, me: Seat, clock: Callable[[], float], hard: float) -> None:
        self.rules = rules
        self.me = me
        self.clock = clock
        self.hard = hard
        self.rot = RuleOfThumbBot()
        self.solvers: dict[tuple[Suit | None, Seat | None], Solver] = {}
        self.solved: dict[_PlayKey, int] = {}
        self.rng = random.Random(0)  # the rule of thumb draws nothing; the bot protocol asks

    def value(self, base: list[InputEvent], call: InputEvent) -> float:
        if self.clock() > self.hard:
            raise OutOfTime
        game = Game(self.rules)
        game.push_all(base)
        game.push(call)
        for _ in range(64):
            phase = game.phase
            if phase is Phase.PLAYING:
                return self._score(game)
            if phase not in _SIMULATED:
                return 0.0  # thrown in: the next deal's
            game.push(self._next(game))
        raise AssertionError("the bidding did not end")  # pragma: no cover

    def _next(self, game: Game) -> InputEvent:
        hand = game.hand
        assert hand is not None
        if game.phase is Phase.EXCHANGING:
            maker = hand.maker
            assert maker is not None
            mine, theirs = hand.known[maker], hand.known[maker.partner]
            assert mine is not None and theirs is not None
            return CardsExchanged(
                best_discard(mine, hand.trump), best_card_to_give(theirs, hand.trump)
            )
        seat = game.to_act
        assert seat is not None
        return self.rot.choose(SeatView(seat, game), self.rng)

    def _score(self, game: Game) -> float:
        hand = game.hand
        assert hand is not None and hand.maker is not None and hand.trick is not None
        out = hand.sitting_out
        masks = tuple(0 if s == out else mask_of(hand.known[s] or frozenset[Card]()) for s in SEATS)
        leader = hand.trick.leader
        key: _PlayKey = (hand.trump, out, leader, (masks[0], masks[1], masks[2], masks[3]))
        ns = self.solved.get(key)
        if ns is None:
            solver = self.solvers.get((hand.trump, out))
            if solver is None:
                solver = Solver(hand.trump, out, clock=self.clock)
                self.solvers[(hand.trump, out)] = solver
            ns = solver.ns_tricks(list(masks), leader, deadline=self.hard)
            self.solved[key] = ns
        rules = self.rules
        maker_team = hand.maker.team
        tricks = ns if maker_team is Team.NS else rules.hand_size - ns
        if rules.variant is Variant.BID_EUCHRE and hand.bid is not None:
            _, mk, df = scoring.bid_hand(rules, hand.bid, tricks)
        else:
            _, mk, df = scoring.euchre_hand(rules, tricks, hand.alone)
        sign = 1.0 if self.me.team == maker_team else -1.0
        return sign * (mk - df)
