"""Deals of the unseen cards consistent with what a seat knows.

Hard constraints (``Knowledge``): each other seat holds exactly its count of cards,
every card it is known to hold, and no card of a suit it showed out of; the rest lie
out of play (the kitty: undealt cards and a face-down discard). Soft evidence (the
bidding) only weighs a deal: a player who passed the upcard is less likely to hold a
hand that would have ordered it up, a maker more likely to hold trumps. Weighing
rather than excluding keeps a deal possible when a player bid off the book.
"""

from __future__ import annotations

import random

from table_controller.bots.knowledge import Knowledge
from table_controller.bots.rule_of_thumb import CALL, hand_value
from table_controller.cards import Card, effective_table
from table_controller.seats import SEATS

KITTY = 4  # the slot index of the cards out of play
UNLIKELY = 0.35  # the weight of a deal that contradicts one bid


def sample_deal(k: Knowledge, rng: random.Random, tries: int = 50) -> list[list[Card]] | None:
    """The unseen cards dealt to the other seats (index 0-3) and the kitty (index 4),
    meeting every hard constraint; None if no deal was found in ``tries`` attempts
    (the constraints contradict each other, e.g. after a renege)."""
    eff = effective_table(k.trump)
    pinned = set().union(*k.must_hold)
    free = [c for c in sorted(k.unseen) if c not in pinned]
    base_room = [k.counts[s] - len(k.must_hold[s]) for s in SEATS] + [k.kitty]
    allowed: dict[Card, list[int]] = {}
    for c in free:
        slots: list[int] = [s for s in SEATS if base_room[s] > 0 and eff[c] not in k.voids[s]]
        if base_room[KITTY] > 0:
            slots.append(KITTY)
        allowed[c] = slots
    for _ in range(tries):
        room = list(base_room)
        if min(room) < 0:
            return None
        hands: list[list[Card]] = [list(m) for m in k.must_hold] + [[]]
        order = list(free)
        s = 0
        rng.shuffle(order)
        order.sort(key=lambda c: len(allowed[c]))
        ok = True
        for c in order:
            slots = [t for t in allowed[c] if room[t] > 0]
            if not slots:
                ok = False
                break
            total = sum(room[s] for s in slots)
            pick = rng.randrange(total)
            for s in slots:
                pick -= room[s]
                if pick < 0:
                    break
            hands[s].append(c)
            room[s] -= 1
        if ok and all(r == 0 for r in room[:4]):
            return hands
    return None


def weight(k: Knowledge, hands: list[list[Card]]) -> float:
    """How well a deal agrees with the bidding (1.0: no contradiction)."""
    w = 1.0
    up = k.upcard
    if up is not None:
        for s in k.passed_upcard:
            if s != k.seat and hands[s] and hand_value(hands[s], up.suit) >= CALL + 1.0:
                w *= UNLIKELY
    maker = k.maker
    if (
        maker is not None
        and maker != k.seat
        and hands[maker]
        and k.trump is not None
        and hand_value(hands[maker], k.trump) < CALL - 3.0
    ):
        w *= UNLIKELY
    return w
