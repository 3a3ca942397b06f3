"""What each choice of a decision was worth: solved with every hand known, or on average
over deals of the hidden cards sampled from what the seat knew.

Values are points for the hand as the preset scores it (rules/scoring.py: made, march,
euchre, loners, Bid Euchre's bids and shoots), counted as north-south's points minus
east-west's, so one number serves both sides (a seat of east-west reads it negated).

- ``Exact``: every hand open. A card's value is the double-dummy solver's (bots/search.py,
  the compiled engine where it was built, else its pure Python); a bid's is the bidding
  solved by minimax over the rules' own legal events from that point, every seat
  choosing the best call for its side, the dealer's discard searched too, and the play
  solved from the first lead. (The 004 shooter's exchange is the rule of thumb's, as the
  strong bot makes it.) One ``Exact`` serves one hand: the bidding's positions are
  solved once and shared by every decision of the hand.
- ``Sampled``: what the seat knew at that moment only (a ``SeatView``, bots/knowledge.py:
  no other hand is in it). The hidden cards are dealt many ways consistent with it and
  each deal is weighed as the strong bot weighs it (bots/sampling.py), a card by the
  solver, a discard by the solver from the first lead, a bid as the strong bot bids by
  search (bots/bidding.py: the calls it weighs and the one made, the rest of the bidding
  by the rule of thumb, the play solved).

No clock is read unless one is given with a budget, and the only randomness is the
``random.Random`` passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from table_controller.bots.bidding import plausible, weigh_calls
from table_controller.bots.knowledge import Knowledge, SeatView, knowledge
from table_controller.bots.rule_of_thumb import RuleOfThumbBot, best_card_to_give, best_discard
from table_controller.bots.sampling import sample_deal, weight
from table_controller.bots.search import Solver, mask_of
from table_controller.bots.strong import CardSolver
from table_controller.cards import Card, Suit
from table_controller.rules import scoring
from table_controller.rules.events import (
    CardPlayed,
    CardsExchanged,
    DealerDiscarded,
    InputEvent,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import HandState, Phase
from table_controller.rules.presets import Rules, Variant
from table_controller.seats import SEATS, Seat, Team


class HandSolver(CardSolver, Protocol):
    """The solver's questions the review asks (bots/search.py's ``Solver``): the strong
    bot's card values, and the tricks from a position for the bids and discards."""

    def ns_tricks(
        self,
        hands: Sequence[int],
        leader: Seat,
        plays: Sequence[tuple[Seat, Card]] = (),
        *,
        deadline: float = ...,
    ) -> int: ...


# (trump, the seat sitting out) -> a solver for that play
SolverFactory = Callable[[Suit | None, Seat | None], HandSolver]


def solver_factory(*, compiled: bool = True) -> SolverFactory:
    """The solver: the compiled engine where it was built (``compiled=False``: the pure
    Python one, which the tests check gives the same verdicts)."""

    def make(trump: Suit | None, sitting_out: Seat | None) -> HandSolver:
        return Solver(trump, sitting_out, compiled=compiled)

    return make


def ns_points(rules: Rules, hand: HandState, ns_future: int) -> int:
    """North-south's points minus east-west's for the hand in play, if north-south take
    ``ns_future`` of the tricks left (the trick in play included)."""
    maker = hand.maker
    assert maker is not None
    left = rules.hand_size - hand.won[0] - hand.won[1]
    ns = hand.won[Team.NS] + ns_future
    ew = hand.won[Team.EW] + left - ns_future
    tricks = ns if maker.team is Team.NS else ew
    if rules.variant is Variant.BID_EUCHRE and hand.bid is not None:
        _, mk, df = scoring.bid_hand(rules, hand.bid, tricks)
    else:
        _, mk, df = scoring.euchre_hand(rules, tricks, hand.alone)
    net = mk - df
    return net if maker.team is Team.NS else -net


def _masks(hand: HandState) -> list[int] | None:
    """Each active seat's cards as masks (0 for a seat sitting out); None when a hand in
    play is not known."""
    masks = [0, 0, 0, 0]
    for s in SEATS:
        if not hand.active(s):
            continue
        held = hand.known[s]
        if held is None:
            return None
        masks[s] = mask_of(held)
    return masks


def side(seat: Seat, ns_value: float) -> float:
    """A north-south value as the seat's side reads it."""
    return ns_value if seat.team is Team.NS else -ns_value


class Exact:
    """The value of every choice with all hands known, for one hand (see the module).
    ``game`` in each question is a game of that hand whose four hands are known."""

    def __init__(self, rules: Rules, solvers: SolverFactory) -> None:
        self.rules = rules
        self.solvers = solvers
        self._solvers: dict[tuple[Suit | None, Seat | None], HandSolver] = {}
        self._positions: dict[tuple[object, ...], float] = {}
        self._plays: dict[tuple[object, ...], int] = {}

    def _solver(self, hand: HandState) -> HandSolver:
        key = (hand.trump, hand.sitting_out)
        solver = self._solvers.get(key)
        if solver is None:
            solver = self._solvers[key] = self.solvers(hand.trump, hand.sitting_out)
        return solver

    def card_values(self, game: Game) -> dict[InputEvent, float]:
        """North-south's points minus east-west's after each legal card of the seat to
        play, both sides playing perfectly after it."""
        hand = game.hand
        assert hand is not None and hand.trick is not None
        masks = _masks(hand)
        if masks is None:
            raise ValueError("a hand in play is not known")
        legal = game.legal_events()
        values = self._solver(hand).move_values(masks, hand.trick.leader, hand.trick.plays)
        return {
            e: float(ns_points(self.rules, hand, values[e.card]))
            for e in legal
            if isinstance(e, CardPlayed)
        }

    def call_values(self, game: Game) -> dict[InputEvent, float]:
        """North-south's points minus east-west's after each legal call (or discard) of
        the seat to act, the rest of the hand solved."""
        out: dict[InputEvent, float] = {}
        for event in game.legal_events():
            after = Game.replay(self.rules, [*game.log, event])
            out[event] = self._value(after)
        return out

    def _value(self, game: Game) -> float:
        """The value of a position of the bidding (or the discard, or the first lead)."""
        phase = game.phase
        hand = game.hand
        if hand is None or phase not in _SOLVED:
            return 0.0  # thrown in: nobody scores this deal
        if phase is Phase.PLAYING:
            return float(self._play_value(hand))
        key = game.state_key()
        got = self._positions.get(key)
        if got is not None:
            return got
        if phase is Phase.EXCHANGING:
            value = self._value(Game.replay(self.rules, [*game.log, _exchange(hand)]))
        else:
            seat = game.to_act
            assert seat is not None
            children = self.call_values(game).values()
            value = max(children) if seat.team is Team.NS else min(children)
        self._positions[key] = value
        return value

    def _play_value(self, hand: HandState) -> int:
        masks = _masks(hand)
        trick = hand.trick
        assert masks is not None and trick is not None
        key = (hand.trump, hand.sitting_out, trick.leader, tuple(trick.plays), tuple(masks))
        ns = self._plays.get(key)
        if ns is None:
            ns = self._plays[key] = self._solver(hand).ns_tricks(masks, trick.leader, trick.plays)
        return ns_points(self.rules, hand, ns)


_SOLVED = frozenset(
    {Phase.BIDDING, Phase.NAMING_TRUMP, Phase.DISCARDING, Phase.EXCHANGING, Phase.PLAYING}
)


def _exchange(hand: HandState) -> CardsExchanged:
    """004's exchange as the rule of thumb makes it: the shooter's worst card for the
    partner's best."""
    maker = hand.maker
    assert maker is not None
    mine, theirs = hand.known[maker], hand.known[maker.partner]
    assert mine is not None and theirs is not None
    return CardsExchanged(best_discard(mine, hand.trump), best_card_to_give(theirs, hand.trump))


@dataclass(frozen=True, slots=True)
class Weighed:
    """A choice's mean value for the seat's side over the deals sampled."""

    values: dict[InputEvent, float]
    deals: int
    why: str = ""  # why no deal was weighed, in words


class Sampled:
    """The value of every choice from the seat's own view (see the module). ``deals``:
    the deals sampled for a decision; with a ``clock`` and a ``budget`` (seconds a
    decision), sampling also stops once the budget is spent (one deal at least)."""

    def __init__(
        self,
        rules: Rules,
        solvers: SolverFactory,
        deals: int,
        clock: Callable[[], float] | None = None,
        budget: float | None = None,
    ) -> None:
        if deals < 1:
            raise ValueError("at least one deal must be sampled")
        self.rules = rules
        self.solvers = solvers
        self.deals = deals
        self.clock = clock
        self.budget = budget

    def _time_left(self, start: float) -> bool:
        if self.clock is None or self.budget is None:
            return True
        return self.clock() - start < self.budget

    def _start(self) -> float:
        return 0.0 if self.clock is None else self.clock()

    def _deals(
        self, k: Knowledge, hand: HandState, rng: random.Random
    ) -> Iterator[tuple[list[int], float]]:
        """Deals of the hidden cards consistent with what the seat knew, as the solver's
        masks (a seat sitting out holds none) with each deal's weight: at most
        ``deals``, and within the budget after the first; none once no deal fits."""
        start = self._start()
        taken = 0
        while taken < self.deals and (taken == 0 or self._time_left(start)):
            deal = sample_deal(k, rng)
            if deal is None:
                return
            yield [0 if not hand.active(s) else mask_of(deal[s]) for s in SEATS], weight(k, deal)
            taken += 1

    def card_values(self, view: SeatView, rng: random.Random) -> Weighed:
        """Each legal card's mean value for the seat's side."""
        game, me = view.game, view.seat
        hand = game.hand
        assert hand is not None and hand.trick is not None
        legal = [e for e in game.legal_events() if isinstance(e, CardPlayed)]
        k = knowledge(view)
        mine = mask_of(view.cards)
        solver = self.solvers(hand.trump, hand.sitting_out)
        trick = hand.trick
        totals = dict.fromkeys(legal, 0.0)
        weights, taken = 0.0, 0
        for masks, w in self._deals(k, hand, rng):
            masks[me] = mine
            values = solver.move_values(masks, trick.leader, trick.plays)
            for e in legal:
                totals[e] += w * side(me, ns_points(self.rules, hand, values[e.card]))
            weights += w
            taken += 1
        return _means(totals, weights, taken)

    def discard_values(self, view: SeatView, rng: random.Random) -> Weighed:
        """The dealer's discards: each one's mean value for the dealer's side, the play
        solved from the first lead."""
        game, me = view.game, view.seat
        hand = game.hand
        assert hand is not None
        legal = [e for e in game.legal_events() if isinstance(e, DealerDiscarded)]
        k = knowledge(view)
        held = mask_of(view.cards)
        solver = self.solvers(hand.trump, hand.sitting_out)
        leader = hand.first_active_from(hand.eldest)
        totals = dict.fromkeys(legal, 0.0)
        weights, taken = 0.0, 0
        for masks, w in self._deals(k, hand, rng):
            for e in legal:
                assert e.card is not None
                masks[me] = held & ~(1 << e.card)
                ns = solver.ns_tricks(masks, leader)
                totals[e] += w * side(me, ns_points(self.rules, hand, ns))
            weights += w
            taken += 1
        return _means(totals, weights, taken)

    def call_values(self, view: SeatView, chosen: InputEvent, rng: random.Random) -> Weighed:
        """The mean value for the seat's side of the calls the strong bot weighs (every
        pass, the rule of thumb's call, the calls within reach of the hand's points:
        bots/bidding.py ``plausible``) and of the call ``chosen``, weighed as the strong
        bot bids (``weigh_calls``). A call no hand of these points would make is not
        weighed: in Bid Euchre there are 31 calls, and weighing them all costs five
        times the time for calls that were never close."""
        legal = view.game.legal_events()
        default = _RULE_OF_THUMB.choose(view, random.Random(0))
        legal = plausible(view, legal, default)
        if chosen not in legal:
            legal.append(chosen)
        clock = self.clock if self.clock is not None else _no_clock
        budget = math.inf if self.budget is None or self.clock is None else self.budget
        start = clock()
        weighed = weigh_calls(
            view,
            legal,
            rng,
            clock=clock,
            budget=budget,
            hard=start + 2 * budget,
            max_deals=self.deals,
        )
        if not weighed.values:
            return Weighed({}, 0, weighed.why or _NO_DEAL)
        return Weighed(dict(weighed.values), weighed.deals)


_RULE_OF_THUMB = RuleOfThumbBot()
_NO_DEAL = (
    "no deal of the hidden cards fits what the player knew (after a renege the cards seen "
    "can contradict each other)"
)


def _no_clock() -> float:
    return 0.0


def _means(
    totals: dict[CardPlayed, float] | dict[DealerDiscarded, float], weights: float, taken: int
) -> Weighed:
    if taken == 0 or weights == 0.0:
        return Weighed({}, 0, _NO_DEAL)
    return Weighed({e: t / weights for e, t in totals.items()}, taken)


__all__ = [
    "Exact",
    "HandSolver",
    "Sampled",
    "SolverFactory",
    "Weighed",
    "ns_points",
    "side",
    "solver_factory",
]
