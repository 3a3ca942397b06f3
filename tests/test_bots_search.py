"""The double-dummy solver against plain minimax, and the sampler's constraints."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.bots.search import OutOfTime, Solver, mask_of
from table_controller.cards import DECK, Card, Suit, effective_suit, legal_plays, trick_winner
from table_controller.seats import SEATS, Seat


def minimax(
    hands: dict[Seat, set[Card]], trump: Suit | None, leader: Seat, active: list[Seat]
) -> int:
    """North-south's tricks with every hand open, by brute force."""

    def rec(hands: dict[Seat, set[Card]], leader: Seat, plays: list[tuple[Seat, Card]]) -> int:
        if len(plays) == len(active):
            w = trick_winner(plays, trump)
            v = 1 if w % 2 == 0 else 0
            return v if not hands[w] else v + rec(hands, w, [])
        seat = leader if not plays else plays[-1][0].left
        while seat not in active:
            seat = seat.left
        led = None if not plays else effective_suit(plays[0][1], trump)
        values = []
        for c in legal_plays(hands[seat], led, trump):
            rest = dict(hands)
            rest[seat] = hands[seat] - {c}
            values.append(rec(rest, leader, [*plays, (seat, c)]))
        return max(values) if seat % 2 == 0 else min(values)

    return rec(hands, leader, [])


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(1, 3),
    st.sampled_from([None, *Suit]),
    st.sampled_from([None, None, *SEATS]),
)
def test_solver_agrees_with_minimax(
    seed: int, n: int, trump: Suit | None, out: Seat | None
) -> None:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    active = [s for s in SEATS if s != out]
    hands = {
        s: set(deck[i * n : (i + 1) * n]) if s in active else set() for i, s in enumerate(SEATS)
    }
    leader = rng.choice(active)
    solver = Solver(trump, out)
    masks = [mask_of(hands[s]) for s in SEATS]
    assert solver.ns_tricks(masks, leader) == minimax(hands, trump, leader, active)
    # each card's value is the minimax after it
    values = solver.move_values(masks, leader)
    assert set(values) == hands[leader]
    best = max(values.values()) if leader % 2 == 0 else min(values.values())
    assert best == minimax(hands, trump, leader, active)


def test_a_solve_past_its_deadline_is_given_up_and_the_solver_still_works() -> None:
    """A six-card deal (Bid Euchre's) from the first lead: with its deadline passed the
    solve raises OutOfTime rather than answer late; the same solver then solves it."""
    rng = random.Random(7)
    deck = list(DECK)
    rng.shuffle(deck)
    masks = [mask_of(deck[i * 6 : (i + 1) * 6]) for i in range(4)]
    now = [0.0]
    solver = Solver(Suit.H, None, clock=lambda: now[0])
    now[0] = 10.0
    with pytest.raises(OutOfTime):
        solver.move_values(masks, Seat.N, deadline=5.0)
    assert solver.ns_tricks(masks, Seat.N) == solver.ns_tricks(masks, Seat.N, deadline=11.0)
