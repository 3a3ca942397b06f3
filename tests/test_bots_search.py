"""The double-dummy solver against plain minimax, its compiled engine against the pure
one, and a solve past its deadline."""

from __future__ import annotations

import random
import shutil
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.bots import search
from table_controller.bots.search import OutOfTime, Solver, mask_of
from table_controller.cards import DECK, Card, Suit, effective_suit, legal_plays, trick_winner
from table_controller.seats import SEATS, Seat


def minimax(
    hands: dict[Seat, set[Card]],
    trump: Suit | None,
    leader: Seat,
    active: list[Seat],
    plays: list[tuple[Seat, Card]] | None = None,
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

    return rec(hands, leader, list(plays or []))


def position(
    seed: int, n: int, trump: Suit | None, out: Seat | None, played: int
) -> tuple[dict[Seat, set[Card]], Seat, list[tuple[Seat, Card]], list[Seat]]:
    """A random deal of ``n`` cards a seat, then ``played`` random legal cards (whole
    tricks and a part of one): the hands left, the trick's leader, the trick in play."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    active = [s for s in SEATS if s != out]
    hands = {
        s: set(deck[i * n : (i + 1) * n]) if s in active else set() for i, s in enumerate(SEATS)
    }
    leader = rng.choice(active)
    plays: list[tuple[Seat, Card]] = []
    for _ in range(min(played, n * len(active) - 1)):
        seat = leader if not plays else active[(active.index(plays[-1][0]) + 1) % len(active)]
        led = None if not plays else effective_suit(plays[0][1], trump)
        card = rng.choice(legal_plays(hands[seat], led, trump))
        hands[seat].discard(card)
        plays.append((seat, card))
        if len(plays) == len(active):
            leader, plays = trick_winner(plays, trump), []
    return hands, leader, plays, active


ENGINES = [pytest.param(False, id="pure"), pytest.param(True, id=search.ENGINE)]


@pytest.mark.parametrize("compiled", ENGINES)
@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32),
    st.integers(1, 3),
    st.sampled_from([None, *Suit]),
    st.sampled_from([None, None, *SEATS]),
    st.integers(0, 3),
)
def test_solver_agrees_with_minimax(
    compiled: bool, seed: int, n: int, trump: Suit | None, out: Seat | None, played: int
) -> None:
    """Small endings, from a trick's lead or in the middle of one: the tricks, each
    card's value and every "at least t tricks" are plain minimax's."""
    hands, leader, plays, active = position(seed, n, trump, out, played)
    solver = Solver(trump, out, compiled=compiled)
    masks = [mask_of(hands[s]) for s in SEATS]
    expected = minimax(hands, trump, leader, active, plays)
    assert solver.ns_tricks(masks, leader, plays) == expected
    for target in range(n + 2):
        assert solver.ns_reach(masks, leader, target, plays) == (expected >= target)
    # each card's value is the minimax after it
    seat = leader if not plays else active[(active.index(plays[-1][0]) + 1) % len(active)]
    led = None if not plays else effective_suit(plays[0][1], trump)
    values = solver.move_values(masks, leader, plays)
    assert set(values) == set(legal_plays(hands[seat], led, trump))
    for card, value in values.items():
        rest = dict(hands)
        rest[seat] = hands[seat] - {card}
        assert value == minimax(rest, trump, leader, active, [*plays, (seat, card)])


@pytest.mark.slow(budget=30)
@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32),
    st.sampled_from([5, 6]),
    st.sampled_from([None, *Suit]),
    st.sampled_from([None, None, *SEATS]),
    st.integers(0, 10),
)
def test_the_compiled_engine_agrees_with_the_pure_one(
    seed: int, n: int, trump: Suit | None, out: Seat | None, played: int
) -> None:
    """Whole deals (Euchre's five cards, Bid Euchre's six, a lone hand) from the first
    lead or after some cards: the same tricks, values and bounds from both engines."""
    if search.ENGINE != "c":
        pytest.skip("the compiled solver was not built here (no C compiler at install)")
    hands, leader, plays, _ = position(seed, n, trump, out, played)
    masks = [mask_of(hands[s]) for s in SEATS]
    pure, fast = Solver(trump, out, compiled=False), Solver(trump, out)
    tricks = pure.ns_tricks(masks, leader, plays)
    assert fast.ns_tricks(masks, leader, plays) == tricks
    assert fast.move_values(masks, leader, plays) == pure.move_values(masks, leader, plays)
    for target in (tricks - 1, tricks, tricks + 1):
        assert fast.ns_reach(masks, leader, target, plays) == (tricks >= target)
        assert pure.ns_reach(masks, leader, target, plays) == (tricks >= target)


def test_the_compiled_engine_is_built_where_a_compiler_is() -> None:
    """An install on a machine with a C compiler and Python's headers builds it (setup.py);
    a failed build would otherwise leave the slow fallback unnoticed."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    if not (shutil.which("cc") or shutil.which("gcc")) or not headers.exists():
        pytest.skip("no C compiler or no Python headers: the pure solver is the one")
    assert search.ENGINE == "c", (
        "build it: `make setup` (pip install -e .), or in a worktree sharing another's "
        "virtual environment `python setup.py build_ext --inplace`"
    )


def test_a_solve_past_its_deadline_is_given_up_and_the_solver_still_works() -> None:
    """A six-card deal (Bid Euchre's) from the first lead: with its deadline passed the
    solve raises OutOfTime rather than answer late; the same solver then solves it."""
    rng = random.Random(7)
    deck = list(DECK)
    rng.shuffle(deck)
    masks = [mask_of(deck[i * 6 : (i + 1) * 6]) for i in range(4)]
    now = [0.0]
    for compiled in (False, True):
        solver = Solver(Suit.H, None, clock=lambda: now[0], compiled=compiled)
        now[0] = 10.0
        with pytest.raises(OutOfTime):
            solver.move_values(masks, Seat.N, deadline=5.0)
        assert solver.ns_tricks(masks, Seat.N) == solver.ns_tricks(masks, Seat.N, deadline=11.0)
