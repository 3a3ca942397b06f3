"""Bidding by search (bots/bidding.py, StrongBot.bid): the right call on hands where it is
obvious, within budget on a driven clock, the rule of thumb when time runs out, and a
legal call in every preset. Every clock here is driven (a reading advances it a fixed
step), so each result depends only on the code, never on the machine's speed."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_bots_play import decisions, rehide

from table_controller.bots.bidding import SEARCHED, Weighed, plausible, weigh_calls
from table_controller.bots.knowledge import SeatView, seat_view
from table_controller.bots.match import play_hand
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.strong import HARD_FACTOR, StrongBot
from table_controller.cards import cards
from table_controller.rules.events import (
    DealerChosen,
    HandDealt,
    InputEvent,
    OrderedUp,
    Passed,
)
from table_controller.rules.game import Game
from table_controller.rules.presets import PRESETS, preset
from table_controller.seats import SEATS, Seat
from table_controller.simulate import deal

STEP = 0.0005  # seconds a reading of the driven clock advances it


def driven_clock(step: float = STEP) -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: next(ticks) * step


def euchre_view(mine: str, upcard: str, rest: str, name: str = "bicycle-head-to-head") -> SeatView:
    """East's view in round 1 of a Euchre hand dealt by North: East holds ``mine``, the
    other 15 dealt cards are ``rest`` (South, West, North, five each)."""
    others = cards(rest)
    hands = {
        Seat.E: cards(mine),
        Seat.S: others[0:5],
        Seat.W: others[5:10],
        Seat.N: others[10:15],
    }
    game = Game(preset(name))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt(cards(upcard)[0], hands))
    assert game.to_act == Seat.E
    return seat_view(game, Seat.E)


TOP_TRUMPS = euchre_view("JH JD AH KH QH", "TH", "9C TC JC QC KC AC 9S TS JS QS KS AS 9D TD QD")
HOPELESS = euchre_view("9C TC 9S TS 9D", "JH", "JD AH KH QH TH AC KC QC JC AS KS QS JS AD KD")


def weigh(view: SeatView, calls: list[InputEvent], deals: int = 8) -> dict[InputEvent, float]:
    weighed = weigh_calls(
        view,
        calls,
        random.Random(7),
        clock=driven_clock(),
        budget=1e9,
        hard=1e9,
        max_deals=deals,
    )
    assert weighed.deals == deals
    return weighed.values


def test_the_five_top_trumps_go_alone() -> None:
    """Right, left, ace, king, queen and the lead: every trick, alone (4 points)."""
    me = TOP_TRUMPS.seat
    values = weigh(TOP_TRUMPS, [Passed(me), OrderedUp(me, False), OrderedUp(me, True)])
    assert values[OrderedUp(me, True)] == 4.0
    assert values[OrderedUp(me, False)] == 2.0
    assert values[Passed(me)] < 4.0
    bot = StrongBot(budget=1e9, max_samples=6, clock=driven_clock())
    assert bot.choose(TOP_TRUMPS, random.Random(1)) == OrderedUp(me, True)
    assert bot.samples_taken == 6 and not bot.fallbacks


def test_a_hopeless_hand_passes() -> None:
    """Nines and tens, no trump: ordering up is a euchre, alone or not."""
    me = HOPELESS.seat
    values = weigh(HOPELESS, [Passed(me), OrderedUp(me, False), OrderedUp(me, True)])
    assert values[OrderedUp(me, True)] == -2.0
    assert values[OrderedUp(me, False)] < values[Passed(me)]
    # the screen leaves nothing to weigh but the pass
    assert plausible(HOPELESS, HOPELESS.game.legal_events(), Passed(me)) == [Passed(me)]
    bot = StrongBot(budget=1e9, max_samples=6, clock=driven_clock())
    assert bot.choose(HOPELESS, random.Random(1)) == Passed(me)


def test_every_candidate_is_weighed_on_the_same_deals() -> None:
    """Two identical calls get the identical value: the same deals, the same play."""
    me = TOP_TRUMPS.seat
    values = weigh(TOP_TRUMPS, [Passed(me), OrderedUp(me, False)], deals=5)
    again = weigh(TOP_TRUMPS, [OrderedUp(me, False), Passed(me)], deals=5)
    assert values == again


def bid_views(name: str, seed: int) -> list[SeatView]:
    """The first bidder's view of a few deals of preset ``name``."""
    rules = preset(name)
    rng = random.Random(seed)
    views = []
    for _ in range(3):
        game = Game(rules)
        game.push(DealerChosen(Seat(rng.randrange(4))))
        game.push(deal(rng, rules))
        me = game.to_act
        assert me is not None
        views.append(seat_view(game, me))
    return views


@pytest.mark.parametrize("budget", [0.045, 0.2])
def test_a_bid_stays_within_budget(budget: float) -> None:
    """On the bot's own (driven) clock a decision never runs past the hard limit."""
    for view in bid_views("bicycle-head-to-head", 3):
        clock = driven_clock()
        bot = StrongBot(budget=budget, clock=clock)
        start = clock()
        event = bot.choose(view, random.Random(2))
        assert event in view.game.legal_events()
        assert clock() - start <= budget * HARD_FACTOR + 20 * STEP


def test_too_small_a_budget_falls_back_and_counts() -> None:
    """No time: the rule-of-thumb call, counted as a bid fallback."""
    rot = RuleOfThumbBot()
    bot = StrongBot(budget=0.0, clock=driven_clock(1.0))
    fell = 0
    for view in [*bid_views("bicycle-head-to-head", 4), *bid_views("bid-euchre", 4)]:
        event = bot.choose(view, random.Random(1))
        assert event == rot.choose(view, random.Random(1))
        if len(plausible(view, view.game.legal_events(), event)) > 1:
            fell += 1
            assert bot.samples_taken < bot.min_deals
    assert bot.decisions["bid"] == fell
    assert bot.decisions["bid"] + bot.decisions["bid, one sensible call"] == 6
    assert fell >= 1
    assert sum(n for why, n in bot.fallbacks.items() if why.startswith("bid: ")) == fell


def test_the_switch_bids_by_the_rule_of_thumb() -> None:
    bot = StrongBot(bid_by_search=False, clock=driven_clock())
    rot = RuleOfThumbBot()
    for view in bid_views("nmu-tournament", 5):
        assert bot.choose(view, random.Random(1)) == rot.choose(view, random.Random(1))
    assert bot.decisions["bid"] == 0 and bot.name != StrongBot().name


class _Checked:
    """A strong bot that bids by search (cards by the rule of thumb, to keep the test
    fast) and checks each of its calls is among the legal events."""

    def __init__(self) -> None:
        self.strong = StrongBot(max_samples=4, min_deals=1, clock=driven_clock())
        self.rot = RuleOfThumbBot()
        self.name = "checked"
        self.bids = 0

    def choose(self, view: SeatView, rng: random.Random) -> InputEvent:
        if view.game.phase not in SEARCHED:
            return self.rot.choose(view, rng)
        event = self.strong.choose(view, rng)
        assert event in view.game.legal_events(), (view.game.expecting(), event)
        self.bids += 1
        return event


@pytest.mark.slow(budget=60)
@pytest.mark.parametrize("name", list(PRESETS))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_every_bid_is_legal(name: str, seed: int) -> None:
    rules = preset(name)
    rng = random.Random(seed)
    bot = _Checked()
    dealer = Seat(rng.randrange(4))
    play_hand(rules, dealer, deal(rng, rules), [bot] * len(SEATS), rng)
    assert bot.bids >= 1


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), name=st.sampled_from(list(PRESETS)))
def test_a_bid_does_not_depend_on_hidden_hands(seed: int, name: str) -> None:
    """The same view with the other hands dealt again: the same call."""
    rng = random.Random(seed)
    seen = [(g, e) for g, e in decisions(name, seed, RuleOfThumbBot()) if g.phase in SEARCHED]
    game, _ = seen[rng.randrange(len(seen))]
    me = game.to_act
    assert me is not None
    other = rehide(game, me, rng)
    assume(other is not None)
    assert other is not None
    calls = [
        StrongBot(max_samples=4, min_deals=1, clock=driven_clock()).choose(
            seat_view(g, me), random.Random(seed)
        )
        for g in (game, other)
    ]
    assert calls[0] == calls[1]


def test_the_gain_is_paired_deal_by_deal() -> None:
    """The same deals for both calls: a call always one point better gains 1 with no
    error; one better on average but not on every deal has an error to beat."""
    a, b, c = Passed(Seat.E), OrderedUp(Seat.E), OrderedUp(Seat.E, True)
    rounds = [(1.0, [0.0, 1.0, 4.0]), (1.0, [2.0, 3.0, -2.0]), (0.5, [-2.0, -1.0, 4.0])]
    weighed = Weighed({}, 3, "", rounds, [a, b, c])
    assert weighed.gain(b, a) == (1.0, 0.0)
    mean, se = weighed.gain(c, a)
    assert mean == pytest.approx((4.0 - 4.0 + 3.0) / 2.5) and 0.0 < se < math.inf
