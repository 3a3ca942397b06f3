"""Writes table_controller/examples/td-tournament-game.jsonl: the game `make demo` shows.

A live table: the engine is told only the upcard and each card played, as the camera
sees them, while this script keeps the real hands. In the second hand one player fails to
follow suit while holding it, and is caught when that suit turns up from their hand later.

    .venv/bin/python scripts/make_example.py
"""

from __future__ import annotations

import random
from pathlib import Path

from table_controller.cards import Card, Suit, effective_suit, legal_plays, power
from table_controller.rules import Game, preset
from table_controller.rules.events import (
    CardPlayed,
    DealerDiscarded,
    HandDealt,
    InputEvent,
    OrderedUp,
    Passed,
    RenegeProven,
    TrumpCalled,
)
from table_controller.rules.game import Phase
from table_controller.simulate import choose_dealer, deal
from table_controller.transcript import dump

PRESET = "td-tournament"
OUT = Path(__file__).resolve().parent.parent / "table_controller/examples/td-tournament-game.jsonl"
CALL = 320  # trump strength worth calling: about two good trumps


def strength(hand: set[Card], trump: Suit) -> int:
    return sum(power(c, trump) for c in hand if effective_suit(c, trump) == trump)


def generate(seed: int, renege_hand: int) -> list[InputEvent]:
    rng = random.Random(seed)
    rules = preset(PRESET)
    game = Game(rules)
    log: list[InputEvent] = []

    def push(ev: InputEvent) -> None:
        log.append(ev)
        game.push(ev)

    for event in choose_dealer(rng, game):
        push(event)
    reneged = False
    while game.phase is not Phase.OVER:
        dealt = deal(rng, rules)
        hands = {s: set(c) for s, c in dealt.hands.items()}
        upcard = dealt.upcard
        assert upcard is not None
        push(HandDealt(upcard, {}))
        assert game.hand is not None
        number, dealer = game.hand.number, game.hand.dealer
        while game.phase is Phase.BIDDING:
            seat, h = game.to_act, game.hand
            assert seat is not None and h is not None
            if h.round == 1:
                mine = hands[seat] | ({upcard} if seat == dealer else set())
                push(OrderedUp(seat) if strength(mine, upcard.suit) > CALL else Passed(seat))
            else:
                best = max(
                    (s for s in Suit if s != upcard.suit), key=lambda s: strength(hands[seat], s)
                )
                call = strength(hands[seat], best) > CALL or seat == dealer
                push(TrumpCalled(seat, best) if call else Passed(seat))
        if game.phase is Phase.DISCARDING:
            trump = game.trump
            hands[dealer].add(upcard)
            low = min(
                hands[dealer], key=lambda c: (effective_suit(c, trump) == trump, power(c, trump))
            )
            hands[dealer].discard(low)
            push(DealerDiscarded())
        while game.phase is Phase.PLAYING and game.hand is not None and game.hand.number == number:
            seat, trick = game.to_act, game.current_trick
            assert seat is not None and trick is not None
            legal = legal_plays(hands[seat], trick.led, game.trump)
            card = rng.choice(legal)
            off = sorted(c for c in hands[seat] if c not in legal)
            if number == renege_hand and not reneged and off and trick.number == 1:
                card, reneged = off[0], True
            hands[seat].discard(card)
            push(CardPlayed(seat, card))
    return log


def main() -> None:
    rules = preset(PRESET)
    for seed in range(500):
        log = generate(seed, renege_hand=2)
        outs = Game(rules).push_all(log)
        later = [o for o in outs if isinstance(o, RenegeProven) and o.proof_trick > o.trick]
        if later and len(log) < 400:
            header = f"# The example game of `make demo` (seed {seed}): scripts/make_example.py\n"
            OUT.write_text(header + dump(log, PRESET))
            print(f"wrote {OUT} from seed {seed}: {len(log)} events")
            return
    raise SystemExit("no seed gave a renege proven later")


if __name__ == "__main__":
    main()
