"""Random games for tests, benchmarks and the demo: the shuffle happens here, outside
the pure core, and arrives at the engine as a ``HandDealt`` event."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from table_controller.cards import DECK, Card
from table_controller.rules.events import (
    BidMade,
    CardCut,
    DealerChosen,
    FaceUpCardDealt,
    HandDealt,
    InputEvent,
    OutputEvent,
    TrumpBid,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import FirstDealer, Rules, Variant
from table_controller.seats import SEATS, Seat

Chooser = Callable[[Game, list[InputEvent]], InputEvent]


def deal(rng: random.Random, rules: Rules) -> HandDealt:
    """A shuffled deal with every hand known."""
    deck = list(DECK)
    rng.shuffle(deck)
    n = rules.hand_size
    hands = {seat: tuple(deck[i * n : (i + 1) * n]) for i, seat in enumerate(SEATS)}
    upcard: Card | None = deck[4 * n] if rules.variant is Variant.EUCHRE else None
    return HandDealt(upcard, hands)


def choose_dealer(rng: random.Random, game: Game) -> list[InputEvent]:
    """The events that choose the first dealer under the game's rules."""
    how = game.rules.first_dealer
    if how is FirstDealer.CHOSEN:
        return [DealerChosen(rng.choice(list(Seat)))]
    deck = list(DECK)
    rng.shuffle(deck)
    if how is FirstDealer.HIGH_CUT:
        events: list[InputEvent] = []
        cutting = list(Seat)
        while True:
            cuts = {s: deck.pop() for s in cutting}
            events += [CardCut(s, c) for s, c in cuts.items()]
            best = max(c.rank for c in cuts.values())
            cutting = [s for s, c in cuts.items() if c.rank == best]
            if len(cutting) == 1:
                return events
            deck = [c for c in DECK if c not in cuts.values()]
            rng.shuffle(deck)
    seat = rng.choice(list(Seat))
    wanted = 5 if how is FirstDealer.FIRST_ACE else 2
    events = []
    for card in deck:
        events.append(FaceUpCardDealt(seat, card))
        if card.rank == wanted:
            return events
        seat = seat.left
    raise AssertionError("a deck always has an ace and a jack")  # pragma: no cover


def random_choice(rng: random.Random) -> Chooser:
    """Any legal event, uniformly; but in Bid Euchre bid low and rarely, or random
    bidding sets every bid and a game to 32 never ends."""

    def choose(game: Game, options: list[InputEvent]) -> InputEvent:
        bids = [e for e in options if isinstance(e, BidMade | TrumpBid)]
        if not bids:
            return rng.choice(options)
        passes = [e for e in options if not isinstance(e, BidMade | TrumpBid)]
        if passes and rng.random() < 0.5:
            return passes[0]
        low = min(b.amount for b in bids)
        plain = [b for b in bids if b.amount == low and b.amount < 12]
        if plain and rng.random() < 0.97:
            return rng.choice(plain)
        return rng.choice(bids)

    return choose


def play(
    rules: Rules, rng: random.Random, chooser: Chooser | None = None, max_events: int = 20_000
) -> Iterator[tuple[InputEvent, list[OutputEvent]]]:
    """Play a whole game (or match) with every hand known; yield each event with its outputs."""
    game = Game(rules)
    choose = chooser or random_choice(rng)
    for _ in range(max_events):
        if game.phase is Phase.OVER:
            return
        if game.phase is Phase.CHOOSING_DEALER:
            batch = choose_dealer(rng, game)
        elif game.phase is Phase.DEALING:
            batch = [deal(rng, rules)]
        else:
            options = game.legal_events()
            if not options:
                raise AssertionError(f"no legal event: {game.expecting()}")
            batch = [choose(game, options)]
        for event in batch:
            yield event, game.push(event)
    raise AssertionError("the game did not end")  # pragma: no cover
