"""Differential test: the rules core against OpenSpiel's euchre, hand by hand.

OpenSpiel (``pyspiel``) chooses a random dealer and deal and makes random legal bidding,
discard and go-alone decisions; the same deal and decisions are fed into a fresh ``Game``;
then the hand is played with random legal cards, and at every step the two engines must
agree on the legal cards, on every trick's winner and on the points scored.

Known differences, bridged here rather than papered over:

* OpenSpiel asks the maker about going alone after the bid (and after the dealer's
  discard); our engine takes ``alone`` with the call. The test lets OpenSpiel decide
  everything first, then pushes the call with its alone flag.
* OpenSpiel never lets the dealer discard the upcard; our engine does. The discard is
  drawn from OpenSpiel's legal set, and the test checks that ours is that set plus the
  upcard.
* OpenSpiel's returns are per seat (makers ``+m``, defenders ``-m``); ours are points per
  team (the scoring side gets ``m``, the other 0). OpenSpiel run with
  ``allow_lone_defender=False`` scores exactly like plain Euchre to 10: 1 for 3-4 tricks,
  2 for a march, 4 for a loner's march, 2 for a euchre (also of a loner).

OpenSpiel notes: card ids are ``rank * 4 + suit`` (ours ``suit * 6 + rank``); the k-th
dealt card goes to seat ``(dealer + k) % 4``, the 21st draw is the upcard;
``current_trick()`` segfaults on a terminal state, so only ``tricks()`` is used.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from table_controller.cards import DECK, Suit
from table_controller.rules import Game, Rules
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    HandResult,
    HandScored,
    HandThrownIn,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    ThrowIn,
    TrickWon,
    TrumpCalled,
)
from table_controller.seats import Seat, Team

pyspiel = pytest.importorskip(
    "pyspiel",
    reason="OpenSpiel is not installed: `pip install open_spiel` (wheels for x86_64 and "
    "aarch64 only) to run the differential test against its euchre",
)

HANDS = 10_000  # per setting of stick_the_dealer

E = pyspiel.euchre
PASS: int = E.PASS_ACTION  # 24; 25..28 name clubs, diamonds, hearts, spades
CLUBS: int = E.CLUBS_TRUMP_ACTION
ALONE: int = E.GO_ALONE_ACTION
PH_BIDDING, PH_DISCARD, PH_GO_ALONE = E.Phase.BIDDING, E.Phase.DISCARD, E.Phase.GO_ALONE

# OpenSpiel card id (rank * 4 + suit) <-> our Card (suit * 6 + rank)
CARD = tuple(DECK[(a % 4) * 6 + a // 4] for a in range(24))
OSP_ID = {card: a for a, card in enumerate(CARD)}
SEATS = tuple(Seat)
SUITS = tuple(Suit)


def bid_action(event: InputEvent, upcard_suit: int) -> int:
    """The OpenSpiel bidding action for one of our bidding events (alone ignored)."""
    if isinstance(event, Passed):
        return PASS
    if isinstance(event, OrderedUp):
        return CLUBS + upcard_suit
    assert isinstance(event, TrumpCalled) and event.trump is not None
    return CLUBS + event.trump


def play_hand(osp_game: Any, rng: random.Random, stick: bool, seen: Counter[str]) -> None:
    """One random hand through both engines, asserting they agree at every step."""
    state = osp_game.new_initial_state()

    # --- chance (OpenSpiel's): the dealer, 20 cards round-robin from the dealer, upcard -
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    history = state.history()
    dealer = history[0]
    hands: list[list[int]] = [[], [], [], []]
    for k in range(20):
        hands[(dealer + k) % 4].append(history[1 + k])
    upcard = history[21]
    assert state.dealer() == dealer and state.upcard() == upcard
    up_suit = upcard % 4

    # --- OpenSpiel decides the bidding, the discard and going alone -------------------
    # Half the hands bid uniformly at random; the other half pass 70% of the time, or
    # round 2, a stuck dealer and all-pass hands would be rare (1/16, 1/1024, 1/4096).
    pass_often = rng.random() < 0.5
    bids: list[tuple[int, int, int, list[int]]] = []  # (seat, action, passes, legal)
    while state.current_phase() == PH_BIDDING:
        legal = state.legal_actions()
        if pass_often and legal[0] == PASS and rng.random() < 0.7:
            action = PASS
        else:
            action = rng.choice(legal)
        bids.append((state.current_player(), action, state.num_passes(), legal))
        state.apply_action(action)
    discard: int | None = None
    discard_legal: list[int] = []
    if state.current_phase() == PH_DISCARD:
        discard_legal = state.legal_actions()
        discard = rng.choice(discard_legal)
        state.apply_action(discard)
    alone = False
    if state.current_phase() == PH_GO_ALONE:
        choice = rng.choice(state.legal_actions())
        alone = choice == ALONE
        state.apply_action(choice)

    # --- the same deal and decisions through a fresh Game ----------------------------
    game = Game(Rules(stick_the_dealer=stick))
    game.push(DealerChosen(SEATS[dealer]))
    game.push(
        HandDealt(CARD[upcard], {SEATS[s]: tuple(CARD[a] for a in hands[s]) for s in range(4)})
    )
    out: list[OutputEvent] = []
    for seat, action, passes, legal in bids:
        assert game.to_act == seat
        ours = {bid_action(e, up_suit) for e in game.legal_events()}
        assert ours == set(legal), (seat, passes, ours, legal)
        if action == PASS:
            event: InputEvent = Passed(SEATS[seat])
        elif passes < 4:
            event = OrderedUp(SEATS[seat], alone)
        else:
            event = TrumpCalled(SEATS[seat], SUITS[action - CLUBS], alone)
        out = game.push(event)
    if state.is_terminal():  # all passed, the dealer not stuck
        assert not stick and len(bids) == 8
        assert state.returns() == [0.0, 0.0, 0.0, 0.0]
        assert len(out) == 1 and isinstance(out[0], HandThrownIn), out
        assert out[0].reason is ThrowIn.ALL_PASSED
        assert out[0].next_dealer == SEATS[(dealer + 1) % 4]
        seen["all-pass"] += 1
        return
    declarer = state.declarer()
    assert bids[-1][0] == declarer and state.declarer_go_alone() is alone
    if discard is not None:
        # ours also allows the upcard; OpenSpiel does not (a documented difference)
        ours_d = {
            OSP_ID[e.card]
            for e in game.legal_events()
            if isinstance(e, DealerDiscarded) and e.card is not None
        }
        assert ours_d == {*discard_legal, upcard}, (ours_d, discard_legal)
        game.push(DealerDiscarded(CARD[discard]))
        seen["ordered up"] += 1
        if alone and declarer != dealer and declarer % 2 == dealer % 2:
            seen["dealer's partner alone"] += 1
    else:
        seen["called in round 2"] += 1
        if len(bids) == 8:
            seen["dealer stuck" if stick else "dealer named trump in round 2"] += 1
    hand = game.hand
    assert hand is not None and hand.trump == state.trump_suit()
    holder = state.card_holder()
    for s in range(4):
        assert hand.known[s] == {CARD[a] for a in range(24) if holder[a] == s}, s
    active = state.active_players()
    assert [hand.active(seat) for seat in SEATS] == active

    # --- play: random legal cards, both engines in step ------------------------------
    n_active = sum(active)
    winners: list[int] = []
    for played in range(1, 5 * n_active + 1):
        seat = state.current_player()
        assert game.to_act == seat
        legal = state.legal_actions()
        plays = sorted(OSP_ID[c] for c in game.legal_plays())
        assert plays == legal, (seat, plays, legal)
        action = rng.choice(legal)
        state.apply_action(action)
        out = game.push(CardPlayed(SEATS[seat], CARD[action]))
        if played % n_active == 0:
            trick = state.tricks()[played // n_active - 1]
            won = out[0]
            assert isinstance(won, TrickWon)
            assert won.winner == trick.winner(), (won, trick.winner())
            assert [OSP_ID[c] for _, c in won.plays] == trick.cards()
            winners.append(trick.winner())
    assert state.is_terminal()

    # --- the score -------------------------------------------------------------------
    scored = [o for o in out if isinstance(o, HandScored)]
    assert len(scored) == 1, out
    result = scored[0]
    returns = state.returns()
    makers = Team(declarer % 2)
    value = int(returns[declarer])
    assert returns == [value if s % 2 == declarer % 2 else -value for s in range(4)]
    taken = sum(1 for w in winners if w % 2 == declarer % 2)
    assert result.maker == declarer
    assert result.tricks[makers] == taken and result.tricks[makers.other] == 5 - taken
    expected = [0, 0]
    if value > 0:
        expected[makers] = value
    else:
        expected[makers.other] = -value
    assert list(result.points) == expected, (result, returns)
    if alone:
        seen["loner"] += 1
    if result.result is HandResult.EUCHRED:
        assert value < 0
        seen["euchre"] += 1
        if alone:
            seen["loner euchred"] += 1
    elif result.result is HandResult.MARCH:
        assert taken == 5
        seen["march"] += 1
        if alone:
            seen["loner march"] += 1
    else:
        assert result.result is HandResult.MADE and value == 1
        seen["made"] += 1


def play_hands(stick: bool, hands: int, seed: int) -> Counter[str]:
    """``hands`` random hands through both engines; what they covered."""
    osp_game = pyspiel.load_game(
        "euchre", {"stick_the_dealer": stick, "allow_lone_defender": False}
    )
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    for _ in range(hands):
        play_hand(osp_game, rng, stick, seen)
    if stick:
        assert seen["all-pass"] == 0
    print(f"stick_the_dealer={stick}: {hands} hands, {dict(sorted(seen.items()))}")
    return seen


@pytest.mark.parametrize("stick", [True, False], ids=["stick", "no-stick"])
def test_a_few_hands_agree_with_openspiel(stick: bool) -> None:
    """A quick run that stays in ``-m "not slow"``."""
    seen = play_hands(stick, 300, seed=7 + stick)
    assert sum(seen[k] for k in ("made", "march", "euchre", "all-pass")) == 300


@pytest.mark.slow(budget=30)  # a differential run against OpenSpiel
@pytest.mark.parametrize("stick", [True, False], ids=["stick", "no-stick"])
def test_random_hands_agree_with_openspiel(stick: bool) -> None:
    seen = play_hands(stick, HANDS, seed=20_240_501 + stick)
    covered = [
        "ordered up",
        "called in round 2",
        "dealer stuck" if stick else "all-pass",
        "loner",
        "dealer's partner alone",
        "made",
        "euchre",
        "march",
        "loner march",
        "loner euchred",
    ]
    missing = [k for k in covered if seen[k] == 0]
    assert not missing, f"not covered: {missing} ({dict(seen)})"
