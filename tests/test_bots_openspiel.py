"""The OpenSpiel adapter (bots/openspiel_bot.py): legal choices, no peeking, a match.

OpenSpiel's C++ ISMCTS is not reproducible from its seed in the play (the same state
and seed can give different cards), so "never reads a hidden card" is checked where the
adapter could read one: the OpenSpiel state it hands to the search is the same (same
history, dealt cards included) whatever the other hands hold, and its information state
for the seat is the one the real game gives that seat; and the whole ``choose`` is
checked with a reproducible stand-in for the search.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_bots_play import decisions, rehide

from table_controller.bots.knowledge import seat_view
from table_controller.bots.match import play_hand, play_match
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.rules.events import (
    CardPlayed,
    DealerDiscarded,
    HandDealt,
    OrderedUp,
    Passed,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import preset
from table_controller.seats import SEATS, Seat, Team
from table_controller.simulate import deal

pytest.importorskip(
    "pyspiel",
    reason="OpenSpiel is not installed: `pip install open_spiel` (wheels for x86_64 and "
    "aarch64 only) to test the adapter to its bots",
)

from table_controller.bots.openspiel_bot import (
    CLUBS,
    GO_ALONE,
    OSP_ID,
    PASS,
    OpenSpielBot,
)

EUCHRE_PRESETS = ["bicycle-head-to-head", "nmu-tournament"]  # no stick / stick the dealer
FAST = {name: OpenSpielBot(preset(name), simulations=40) for name in EUCHRE_PRESETS}


def true_state(bot: OpenSpielBot, game: Game) -> Any:
    """The OpenSpiel state of a game whose hands are all known (the truth)."""
    hand = game.hand
    assert hand is not None and hand.upcard is not None
    log = list(game.log)
    at = max(i for i, e in enumerate(log) if isinstance(e, HandDealt))
    dealt = log[at]
    assert isinstance(dealt, HandDealt)
    state = bot.game.new_initial_state()
    state.apply_action(int(hand.dealer))
    for i in range(20):
        s = (hand.dealer + i) % 4
        state.apply_action(OSP_ID[dealt.hands[s][i // 4]])
    state.apply_action(OSP_ID[hand.upcard])
    alone = False
    for e in log[at + 1 :]:
        if isinstance(e, Passed):
            state.apply_action(PASS)
        elif isinstance(e, OrderedUp):
            state.apply_action(CLUBS + int(hand.upcard.suit))
            alone = e.alone
        elif isinstance(e, TrumpCalled):
            assert e.trump is not None
            state.apply_action(CLUBS + int(e.trump))
            alone = e.alone
        elif isinstance(e, DealerDiscarded):
            assert e.card is not None
            state.apply_action(OSP_ID[e.card])
        elif isinstance(e, CardPlayed):
            state.apply_action(OSP_ID[e.card])
        if state.current_phase() == bot.pyspiel.euchre.Phase.GO_ALONE:
            state.apply_action(GO_ALONE if alone else GO_ALONE + 1)
    return state


class ReproducibleSearch(OpenSpielBot):
    """The adapter with a stand-in search that is a function of the OpenSpiel state it
    is given (all of it, hidden cards included) and the rng."""

    def search(self, state: Any, rng: random.Random) -> int:
        legal = state.legal_actions()
        return int(legal[hash((state.history_str(), rng.random())) % len(legal)])


@pytest.mark.parametrize("name", EUCHRE_PRESETS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_every_choice_is_legal(name: str, seed: int) -> None:
    bot = FAST[name]
    seen = decisions(name, seed, bot)  # asserts every choice is in game.legal_events()
    assert seen
    assert not bot.fallbacks, bot.fallbacks


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), name=st.sampled_from(EUCHRE_PRESETS))
def test_the_state_searched_does_not_depend_on_hidden_hands(seed: int, name: str) -> None:
    rng = random.Random(seed)
    seen = decisions(name, seed, RuleOfThumbBot())
    game, _ = seen[rng.randrange(len(seen))]
    me = game.to_act
    assume(me is not None and game.phase in (Phase.BIDDING, Phase.DISCARDING, Phase.PLAYING))
    assert me is not None
    other = rehide(game, me, rng)
    assume(other is not None)
    assert other is not None
    bot = FAST[name]
    a = bot.state_of(seat_view(game, me), random.Random(seed))
    b = bot.state_of(seat_view(other, me), random.Random(seed))
    assert a.history() == b.history()
    # and what the seat knows is exactly what the real game shows it
    truth = true_state(bot, game)
    assert a.information_state_string(me) == truth.information_state_string(me)
    assert a.current_player() == truth.current_player() == me
    assert a.legal_actions() == truth.legal_actions()
    # the choice, with a reproducible search: the same whatever the hidden hands
    stand_in = ReproducibleSearch(preset(name), simulations=1)
    x = stand_in.choose(seat_view(game, me), random.Random(seed))
    y = stand_in.choose(seat_view(other, me), random.Random(seed))
    assert x == y and x in game.legal_events()


def test_bid_euchre_is_refused() -> None:
    with pytest.raises(ValueError, match="no bid_euchre variant"):
        OpenSpielBot(preset("bid-euchre"))


def test_a_short_match_against_the_rule_of_thumb_bot() -> None:
    rules = preset("bicycle-head-to-head")
    bot = OpenSpielBot(rules, simulations=100)
    result = play_match(rules, bot, RuleOfThumbBot(), 12, seed=4)
    assert result.deals == 12
    # a margin is the mean of two whole-point margins, a hand worth at most 4
    assert all(abs(m) <= 4 and 2 * m == int(2 * m) for m in result.margins)
    # both ways round: the same deal, the bots swapping sides; one side scores
    deck = random.Random(9)
    for i in range(6):
        dealer, dealt = Seat(deck.randrange(4)), deal(deck, rules)
        for a_team in (Team.NS, Team.EW):
            bots = [bot if s.team == a_team else RuleOfThumbBot() for s in SEATS]
            points = play_hand(rules, dealer, dealt, bots, random.Random(i))
            assert min(points) == 0 and max(points) in (0, 1, 2, 4), points
    assert not bot.fallbacks, bot.fallbacks
