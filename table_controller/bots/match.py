"""Bot against bot over the same deals both ways round, scored in points per hand.

Each deal is played twice from the same dealer: once with bot A north-south and bot B
east-west, once swapped. A's margin on the deal is the mean over the two plays of A's
team's points minus B's, which cancels most of the luck of the cards; the mean margin
over the deals, with a 95% confidence interval from their spread, is the strength
figure of docs/benchmarks.md. Every decision goes through ``Game.push``, so an illegal
choice raises instead of being scored.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from table_controller.bots import Bot
from table_controller.bots.knowledge import ViewKeeper
from table_controller.rules.events import (
    CardsExchanged,
    DealerChosen,
    HandDealt,
    HandScored,
    HandThrownIn,
    InputEvent,
    OutputEvent,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Rules
from table_controller.seats import SEATS, Seat, Team
from table_controller.simulate import deal

Timing = Callable[[str, float], None]  # (decision kind, seconds)


def decision_kind(game: Game) -> str:
    """The name of the decision the seat to act faces, for timing figures."""
    phase, hand = game.phase, game.hand
    if phase is Phase.PLAYING:
        return "play"
    if phase is Phase.BIDDING and hand is not None and hand.upcard is not None:
        return "order up" if hand.round == 1 else "call"
    return str(phase.value)


def next_event(
    game: Game, keeper: ViewKeeper, bots: Sequence[Bot], rng: random.Random, timing: Timing | None
) -> InputEvent:
    """Ask the bot of the seat to act (both seats for the 004 exchange; a seat of the
    other side for the 003 remedy) for its choice."""
    hand = game.hand
    assert hand is not None
    phase = game.phase

    def ask(seat: Seat) -> InputEvent:
        start = time.perf_counter()
        event = bots[seat].choose(keeper.view(seat), rng)
        if timing is not None:
            timing(f"{bots[seat].name}:{decision_kind(game)}", time.perf_counter() - start)
        return event

    if phase is Phase.EXCHANGING:
        assert hand.maker is not None
        mine, theirs = ask(hand.maker), ask(hand.maker.partner)
        assert isinstance(mine, CardsExchanged) and isinstance(theirs, CardsExchanged)
        return CardsExchanged(mine.discard, theirs.received)
    if phase is Phase.CHOOSING_REMEDY:
        assert hand.offender is not None
        return ask(hand.offender.team.other.seats[0])
    seat = game.to_act
    assert seat is not None, game.expecting()
    return ask(seat)


def play_hand(
    rules: Rules,
    dealer: Seat,
    dealt: HandDealt,
    bots: Sequence[Bot],
    rng: random.Random,
    timing: Timing | None = None,
) -> tuple[int, int]:
    """One hand from a given deal; the points (NS, EW) it scored (0, 0 if thrown in)."""
    game = Game(rules)
    keeper = ViewKeeper(rules)
    start: tuple[InputEvent, ...] = (DealerChosen(dealer), dealt)
    for first in start:
        keeper.push(first, game.push(first))
    for _ in range(200):
        event = next_event(game, keeper, bots, rng, timing)
        out: list[OutputEvent] = game.push(event)
        keeper.push(event, out)  # the game's own outputs: the keeper need not play it
        for o in out:
            if isinstance(o, HandScored):
                return o.points
            if isinstance(o, HandThrownIn):
                return (0, 0)
    raise AssertionError("the hand did not end")  # pragma: no cover


@dataclass
class MatchResult:
    a: str
    b: str
    margins: list[float] = field(default_factory=list)  # A's points minus B's, per deal

    @property
    def deals(self) -> int:
        return len(self.margins)

    @property
    def mean(self) -> float:
        return sum(self.margins) / len(self.margins) if self.margins else 0.0

    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean (normal approximation)."""
        n = len(self.margins)
        if n < 2:
            return math.inf
        m = self.mean
        var = sum((x - m) ** 2 for x in self.margins) / (n - 1)
        return 1.96 * math.sqrt(var / n)

    def summary(self) -> str:
        return (
            f"{self.a} vs {self.b}: {self.mean:+.3f} ± {self.ci95():.3f} points per hand "
            f"(95% CI, {self.deals} deals, each played both ways)"
        )


def play_match(
    rules: Rules,
    a: Bot,
    b: Bot,
    deals: int,
    seed: int = 0,
    timing: Timing | None = None,
    progress: Callable[[MatchResult], None] | None = None,
) -> MatchResult:
    """``deals`` deals, each played with A north-south then with A east-west."""
    result = MatchResult(a.name, b.name)
    deck_rng = random.Random(seed)
    for i in range(deals):
        dealer = Seat(deck_rng.randrange(4))
        dealt = deal(deck_rng, rules)
        margin = 0.0
        for a_team in (Team.NS, Team.EW):
            bots = [a if s.team == a_team else b for s in SEATS]
            rng = random.Random(seed * 1_000_003 + i)
            points = play_hand(rules, dealer, dealt, bots, rng, timing)
            margin += points[a_team] - points[a_team.other]
        result.margins.append(margin / 2)
        if progress is not None:
            progress(result)
    return result
