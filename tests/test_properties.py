"""Property tests of the rules engine over random games, for every preset where they apply.

Each example is a seed: ``random.Random(seed)`` drives ``simulate.play`` (or the same loop
written out here, where the test needs to step in between events). Hypothesis runs
derandomized with no example database, so CI sees the same games on every run.

1. Random legal games never prove (or spot) a renege, with hands known and when the same
   log is replayed at a live table (hands stripped from every deal).
2. A renege injected into a random game is proven for that seat with the right evidence:
   at once with hands known; at the offender's first later card of the suit with hands
   unknown (never before, and not at all if the hand ends first); and the preset's
   penalty follows.
3. A seat that really was void is never flagged (example-based, known and live).
4. Replaying a log rebuilds exactly the same state; ``pop`` restores the previous one.
5. Bad events never wedge the table: refused with a ``RulesError`` leaving the state as
   it was, or accepted as an irregularity after which the game plays on to its end.
6. Scoring invariants: who scores and how much, running totals, and when a game ends.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from table_controller import simulate
from table_controller.cards import DECK, Card, Suit, cards, effective_suit
from table_controller.cards import legal_plays as follow_suit_plays
from table_controller.rules import PRESETS, Game, Phase, Rules, RulesError, preset
from table_controller.rules.events import (
    AllNinesShown,
    BidMade,
    CardCut,
    CardDropped,
    CardPlayed,
    CardsExchanged,
    CardTakenBack,
    DealerChosen,
    DealerDiscarded,
    FaceUpCardDealt,
    GameEnded,
    HandDealt,
    HandLaidDown,
    HandResult,
    HandScored,
    HandThrownIn,
    InputEvent,
    Irregularity,
    IrregularityFound,
    MatchWon,
    MisdealDeclared,
    OrderedUp,
    OutputEvent,
    Passed,
    PenaltyAccepted,
    PenaltyScored,
    PlayoffStarted,
    RenegeClaimed,
    RenegeProven,
    RenegeSpotted,
    TrickWon,
    TrumpCalled,
    TrumpSet,
    WrongCardCount,
)
from table_controller.rules.presets import RenegePenalty, Variant
from table_controller.seats import Seat, Team

ALL_PRESETS = sorted(PRESETS)
EUCHRE_PRESETS = [n for n in ALL_PRESETS if PRESETS[n].rules.variant is Variant.EUCHRE]

# Derandomized: the same examples on every run, and nothing written to .hypothesis/. No
# shrinking: a smaller seed is not a simpler game, so shrinking only burns time; a failure
# reports its preset and seed, which replays it exactly.
PROPERTY = settings(
    derandomize=True,
    database=None,
    phases=[Stage.explicit, Stage.reuse, Stage.generate],
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)

Step = tuple[InputEvent, list[OutputEvent]]
Chooser = Callable[[Game, list[InputEvent]], InputEvent]
RENEGE_OUTPUTS = (RenegeProven, RenegeSpotted)
N, E, S, W = Seat


def renege_outputs(outs: Sequence[OutputEvent]) -> list[OutputEvent]:
    return [o for o in outs if isinstance(o, RENEGE_OUTPUTS)]


def drive(
    game: Game,
    rng: random.Random,
    chooser: Chooser | None = None,
    before: Callable[[Game], None] | None = None,
    max_events: int = 20_000,
) -> Iterator[Step]:
    """``simulate.play`` on a game we hold, with a hook before each step (where a test
    may push events of its own). Yields each event of the simulation with its outputs."""
    choose = chooser or simulate.random_choice(rng)
    for _ in range(max_events):
        if before is not None and game.phase is not Phase.OVER:
            before(game)
        if game.phase is Phase.OVER:
            return
        if game.phase is Phase.CHOOSING_DEALER:
            batch = simulate.choose_dealer(rng, game)
        elif game.phase is Phase.DEALING:
            batch = [simulate.deal(rng, game.rules)]
        else:
            options = game.legal_events()
            assert options, f"wedged: no legal event, expecting {game.expecting()}"
            batch = [choose(game, options)]
        for event in batch:
            yield event, game.push(event)
    raise AssertionError("the game did not end")


def strip_hands(events: Sequence[InputEvent], rng: random.Random) -> list[InputEvent]:
    """The same log as a live table sees it: no hand is known. A deal keeps only its
    upcard; the dealer's discard and the cards exchanged with a shooter's partner are
    seen or not (None), at random, as the engine accepts either when hands are unknown."""
    stripped: list[InputEvent] = []
    for event in events:
        if isinstance(event, HandDealt):
            event = HandDealt(event.upcard, {})
        elif isinstance(event, DealerDiscarded):
            event = DealerDiscarded(event.card if rng.random() < 0.5 else None)
        elif isinstance(event, CardsExchanged):
            event = CardsExchanged(
                event.discard if rng.random() < 0.5 else None,
                event.received if rng.random() < 0.5 else None,
            )
        stripped.append(event)
    return stripped


# ---------------------------------------------------------------------------------
# Scoring: the running totals must always add up (used by several properties)
# ---------------------------------------------------------------------------------


class Totals:
    """Team (and progressive individual) totals rebuilt from the outputs alone."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.scores = [0, 0]
        self.individual = [0, 0, 0, 0]
        self.maker: Seat | None = None
        self.alone = False

    def feed(self, outs: Sequence[OutputEvent]) -> None:
        for o in outs:
            if isinstance(o, TrumpSet):
                self.maker, self.alone = o.maker, o.alone
            elif isinstance(o, IrregularityFound) and o.kind is Irregularity.LONER_PARTNER_PLAYED:
                self.alone = False
            elif isinstance(o, HandScored):
                for team in Team:
                    self.scores[team] += o.points[team]
                each = [o.points[seat.team] for seat in Seat]
                if self.alone and o.result is HandResult.MARCH and self.maker is not None:
                    # 003 Scoring: "In a standard progressive event ..., on a lone call, the
                    # person making the lone scores 5 points and his partner scores 4 points."
                    each[self.maker] = 5
                    each[self.maker.partner] = 4
                for seat in Seat:
                    self.individual[seat] += each[seat]
                assert o.scores == tuple(self.scores), o
                self._check_individual(o.individual, o)
                self.maker, self.alone = None, False
            elif isinstance(o, PenaltyScored):
                self.scores[o.team] += o.points
                for seat in o.team.seats:
                    self.individual[seat] += o.points
                assert o.scores == tuple(self.scores), o
            elif isinstance(o, HandThrownIn):
                self.maker, self.alone = None, False
            elif isinstance(o, GameEnded):
                assert o.scores == tuple(self.scores), o
                self._check_individual(o.individual, o)
                self.scores = [0, 0]  # a next game of the match starts from nothing
                self.individual = [0, 0, 0, 0]

    def _check_individual(self, individual: object, o: OutputEvent) -> None:
        if self.rules.progressive:
            assert individual == tuple(self.individual), o
        else:
            assert individual is None, o


# ---------------------------------------------------------------------------------
# 1. Legal games never prove a renege, hands known or not
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=60)
@given(seed=SEEDS)
def test_legal_games_never_prove_a_renege(name: str, seed: int) -> None:
    rules = preset(name)
    rng = random.Random(seed)
    steps = list(simulate.play(rules, rng))
    for event, outs in steps:
        assert not renege_outputs(outs), (event, outs)

    # The same game at a live table: every event is accepted and has the same outputs
    # (renege.py: "A seat that was void can never be flagged: every card it plays later
    # was already in its hand").
    live = Game(rules)
    stripped = strip_hands([e for e, _ in steps], random.Random(seed ^ 0x5EED))
    for (_, known_outs), event in zip(steps, stripped, strict=True):
        assert live.push(event) == known_outs, event
    assert live.phase is Phase.OVER
    assert Game.replay(rules, live.log).state_key() == live.state_key()


# ---------------------------------------------------------------------------------
# 2. An injected renege
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Renege:
    """A card played off suit by a seat that could follow, injected into a random game."""

    index: int  # the renege's position in the event log
    hand: int
    seat: Seat
    trick: int
    led: Suit
    card: Card
    following: frozenset[Card]  # the cards of the suit led the seat held
    holdings: dict[Seat, frozenset[Card]]  # every hand, just before the renege
    trump: Suit | None
    alone: bool
    scores: tuple[int, int]
    individual: tuple[int, ...]


def renege_chooser(
    rng: random.Random, found: list[Renege], limit: int = 1, chance: float = 0.2
) -> Chooser:
    """Legal random choices, except (up to ``limit`` times): at a random play where the
    seat to play can follow suit but also holds another suit, it plays the other suit."""
    legal = simulate.random_choice(rng)

    def choose(game: Game, options: list[InputEvent]) -> InputEvent:
        hand = game.hand
        if len(found) < limit and game.phase is Phase.PLAYING and hand is not None:
            trick, seat = hand.trick, game.to_act
            held = hand.known[seat] if seat is not None else None
            if trick is not None and trick.led is not None and held and seat is not None:
                led = trick.led
                following = frozenset(c for c in held if effective_suit(c, hand.trump) == led)
                others = sorted(set(held) - following)
                if following and others and rng.random() < chance:
                    card = rng.choice(others)
                    found.append(
                        Renege(
                            index=len(game.log),
                            hand=hand.number,
                            seat=seat,
                            trick=trick.number,
                            led=led,
                            card=card,
                            following=following,
                            holdings={s: frozenset(hand.known[s] or ()) for s in Seat},
                            trump=hand.trump,
                            alone=hand.alone,
                            scores=game.team_scores(),
                            individual=tuple(game.individual),
                        )
                    )
                    return CardPlayed(seat, card)
        return legal(game, options)

    return choose


def renege_points(r: Renege) -> int:
    # 000 s3.3 "two points removed from their score (4 if occuring during a loner hand)";
    # 001 s22 "2 points to the team it occurred against ... (4 pts ... if on a loner)";
    # 003 RENEGE "the non-offending team scores two points ... during a Loner attempt, the
    # non-offending team scores 4 points."
    return 4 if r.alone else 2


def check_penalty(
    rules: Rules,
    r: Renege,
    proven: RenegeProven,
    outs: list[OutputEvent],
    scores: tuple[int, int],
    individual: tuple[int, ...],
) -> None:
    """The penalty that follows ``proven`` in ``outs``; ``scores`` and ``individual`` are the
    totals just before the event that proved it."""
    after = outs[outs.index(proven) + 1 :]
    points = renege_points(r)
    offenders = r.seat.team
    penalty = rules.renege_penalty
    if penalty is RenegePenalty.AWARD_AND_END:
        # 001 s22 "The penalty for a revoke is 2 points to the team it occurred against and
        # the hand is immediately ended"; 003 RENEGE "The hand is over, the offending team
        # loses their bid and the non-offending team scores two points."
        assert after, outs
        scored = after[0]
        assert isinstance(scored, HandScored), outs
        assert scored.hand == r.hand and scored.result is HandResult.RENEGE
        expected = [0, 0]
        expected[offenders.other] = points
        assert scored.points == tuple(expected)
        assert scored.scores == (scores[0] + expected[0], scores[1] + expected[1])
        if rules.progressive:
            each = list(individual)
            for seat in offenders.other.seats:
                each[seat] += points
            assert scored.individual == tuple(each)
        assert not any(isinstance(o, TrickWon) for o in after)
    elif penalty is RenegePenalty.DEDUCT:
        # 000 s3.3 "the offending player's team will have two points removed from their
        # score (4 if occuring during a loner hand)" -- and the hand is played on.
        assert after, outs
        expected = list(scores)
        expected[offenders] -= points
        totals = (expected[0], expected[1])
        assert after[0] == PenaltyScored(offenders, -points, HandResult.RENEGE, totals)
    else:
        # 002 / 004: no renege penalty in the texts ("irregularities should be handled at
        # the players' discretion"): the renege is reported and play goes on.
        assert not any(isinstance(o, PenaltyScored) for o in after)
        assert not any(isinstance(o, HandScored) and o.result is HandResult.RENEGE for o in after)


def hand_goes_on(rules: Rules, r: Renege, later: Sequence[Step]) -> None:
    """Under the deduct and report presets the hand is played to its end."""
    if rules.renege_penalty is RenegePenalty.AWARD_AND_END:
        return
    for _, outs in later:
        for o in outs:
            if isinstance(o, HandScored):
                assert o.hand == r.hand and o.result is not HandResult.RENEGE, o
                assert sum(o.tricks) == rules.hand_size, o
                return
            assert not isinstance(o, HandThrownIn), o
    raise AssertionError("the hand with the renege was never scored")


def game_with_a_renege(name: str, seed: int) -> tuple[Rules, random.Random, list[Step], Renege]:
    """A random game with hands known in which one seat reneges once (or none: assumed away)."""
    rules = preset(name)
    rng = random.Random(seed)
    found: list[Renege] = []
    steps = list(simulate.play(rules, rng, renege_chooser(rng, found)))
    assume(found)
    return rules, rng, steps, found[0]


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=60)
@given(seed=SEEDS)
def test_injected_renege_is_proven_at_once_with_hands_known(name: str, seed: int) -> None:
    rules, _, steps, r = game_with_a_renege(name, seed)
    assert steps[r.index][0] == CardPlayed(r.seat, r.card)
    seen = [(i, o) for i, (_, outs) in enumerate(steps) for o in renege_outputs(outs)]

    if rules.renege_take_back:
        # 000 s3.3 "If caught before the trick has finished, the player may pick up his
        # card without penalty. If renegging is caught after the next trick/hand has begun,
        # the offending player's team will have two points removed": spotted at once,
        # proven by the first card of the next trick, or after the hand's last trick.
        assert len(seen) == 2, seen
        (i_spotted, spotted), (i_proven, proven) = seen
        assert i_spotted == r.index
        assert isinstance(proven, RenegeProven)
        assert spotted == RenegeSpotted(r.seat, r.trick, r.led, proven.proof)
        outs = steps[i_proven][1]
        if r.trick == rules.hand_size:
            won = [o for o in outs if isinstance(o, TrickWon)]
            assert [(o.hand, o.trick) for o in won] == [(r.hand, r.trick)], outs
            assert outs.index(proven) == outs.index(won[0]) + 1
        else:
            done = [
                i
                for i, (_, o) in enumerate(steps)
                if any(
                    isinstance(x, TrickWon) and (x.hand, x.trick) == (r.hand, r.trick) for x in o
                )
            ]
            assert i_proven == done[0] + 1 and isinstance(steps[i_proven][0], CardPlayed)
            assert outs.index(proven) == 0
    else:
        assert len(seen) == 1, seen
        ((i_proven, proven),) = seen
        assert i_proven == r.index
    assert isinstance(proven, RenegeProven)
    assert (proven.hand, proven.seat, proven.trick, proven.suit, proven.played) == (
        r.hand,
        r.seat,
        r.trick,
        r.led,
        r.card,
    )
    assert proven.proof in r.following and proven.proof_trick == r.trick
    check_penalty(rules, r, proven, steps[i_proven][1], r.scores, r.individual)
    if rules.renege_penalty is RenegePenalty.AWARD_AND_END and i_proven + 1 < len(steps):
        assert isinstance(steps[i_proven + 1][0], HandDealt), "the hand did not end"
    hand_goes_on(rules, r, steps[i_proven:])
    totals = Totals(rules)
    for _, outs in steps:
        totals.feed(outs)


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=25)
@given(seed=SEEDS)
def test_every_injected_renege_is_proven_exactly_once(name: str, seed: int) -> None:
    """Many reneges in a game (several in a hand, or in a trick, where the hand goes on):
    with hands known each is proven once, at once (or once the next trick has begun, for
    the take-back preset), and nothing else is."""
    rules = preset(name)
    rng = random.Random(seed)
    found: list[Renege] = []
    steps = list(simulate.play(rules, rng, renege_chooser(rng, found, limit=8, chance=0.3)))
    assume(found)
    expected = []
    for r in found:
        at = r.index
        if rules.renege_take_back:  # 000 s3.3: once the next trick has begun
            at = next(
                i
                for i in range(r.index, len(steps))
                if any(isinstance(o, TrickWon) and o.trick == r.trick for o in steps[i][1])
            )
            if r.trick < rules.hand_size:
                at += 1
        expected.append((at, r.seat, r.trick, r.led, r.card))
    proven = [
        (i, o.seat, o.trick, o.suit, o.played)
        for i, (_, outs) in enumerate(steps)
        for o in outs
        if isinstance(o, RenegeProven)
    ]
    assert sorted(proven) == sorted(expected)
    totals = Totals(rules)
    for _, outs in steps:
        totals.feed(outs)


def test_two_reneges_in_one_open_trick_are_both_penalised_with_hands_known() -> None:
    # 000 s3.3 "If renegging is caught after the next trick/hand has begun, the offending
    # player's team will have two points removed from their score".
    game = Game(preset("bicycle-head-to-head", {"first_dealer": "chosen"}))
    game.push_all([DealerChosen(N), HandDealt(Card.parse("9H"), VOID_HANDS)])
    game.push_all([Passed(E), Passed(S), Passed(W), Passed(N), TrumpCalled(E, Suit.S)])
    out = game.push_all(
        [
            CardPlayed(E, Card.parse("AC")),
            CardPlayed(S, Card.parse("TD")),  # S holds the 9C
            CardPlayed(W, Card.parse("AD")),  # W holds the TC
            CardPlayed(N, Card.parse("TH")),  # N is void in clubs (the JC is a spade)
            CardPlayed(E, Card.parse("KC")),  # the next trick has begun: both penalised
        ]
    )
    proven = [(o.seat, o.proof) for o in out if isinstance(o, RenegeProven)]
    assert sorted(proven) == [(S, Card.parse("9C")), (W, Card.parse("TC"))]
    assert game.team_scores() == (-2, -2)


@dataclass
class LivePlay:
    event: InputEvent
    trick: int | None
    outs: list[OutputEvent]
    scores: tuple[int, int]  # before the event
    individual: tuple[int, ...]


def seen_in_hand(
    stripped_hand: Sequence[InputEvent], r: Renege, dealer: Seat, maker: Seat | None
) -> set[Card]:
    """Cards a live table has seen go into the offender's hand and still there: the upcard
    the dealer picked up, once a different discard was seen; the card a shooter got."""
    known: set[Card] = set()
    upcard = None
    for event in stripped_hand:
        if isinstance(event, HandDealt):
            upcard = event.upcard
        elif isinstance(event, DealerDiscarded) and event.card is not None:
            if r.seat == dealer and upcard is not None and event.card != upcard:
                known.add(upcard)
        elif isinstance(event, CardsExchanged) and event.received is not None and r.seat == maker:
            known.add(event.received)
    return {c for c in known if c in r.holdings[r.seat]}


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=80)
@given(seed=SEEDS)
def test_injected_renege_at_a_live_table_is_proven_by_a_later_card(name: str, seed: int) -> None:
    rules, rng, steps, r = game_with_a_renege(name, seed)
    events = strip_hands([e for e, _ in steps[: r.index + 1]], rng)
    live = Game(rules)
    for earlier in events[:-1]:
        assert not renege_outputs(live.push(earlier)), earlier
    hand = live.hand
    assert hand is not None and hand.number == r.hand
    deal_at = max(i for i, e in enumerate(events) if isinstance(e, HandDealt))
    shown = seen_in_hand(events[deal_at:], r, hand.dealer, hand.maker)
    held_shown = {c for c in shown if effective_suit(c, r.trump) == r.led}

    # The renege, then the rest of the hand played legally from the true hands; now and
    # then the hand is voided first (003: "If an incorrect number of cards are found at
    # any time during play, the hand is void and the deal is passed to the next player").
    holdings = {s: set(h) for s, h in r.holdings.items()}
    holdings[r.seat].remove(r.card)
    before = (live.team_scores(), tuple(live.individual))
    plays = [LivePlay(events[-1], r.trick, live.push(events[-1]), *before)]
    void_hand = rng.random() < 0.25
    while live.phase is Phase.PLAYING:
        hand = live.hand
        assert hand is not None and hand.trick is not None and hand.number == r.hand
        before = (live.team_scores(), tuple(live.individual))
        if (
            void_hand
            and rng.random() < 0.2
            and not any(isinstance(o, RenegeProven) for p in plays for o in p.outs)
        ):
            event: InputEvent = WrongCardCount(rng.choice(list(Seat)))
            plays.append(LivePlay(event, None, live.push(event), *before))
            break
        seat = hand.next_to_play()
        assert seat is not None
        card = rng.choice(follow_suit_plays(holdings[seat], hand.trick.led, hand.trump))
        holdings[seat].remove(card)
        trick = hand.trick.number
        event = CardPlayed(seat, card)
        plays.append(LivePlay(event, trick, live.push(event), *before))

    seen = [(i, o) for i, p in enumerate(plays) for o in renege_outputs(p.outs)]
    if held_shown:
        # renege.py: proven "at once when a card of the suit led is known to be in its hand".
        i_proven = 0
        if rules.renege_take_back:
            completed = [
                i
                for i, p in enumerate(plays)
                if any(isinstance(o, TrickWon) and o.trick == r.trick for o in p.outs)
            ]
            spotted = RenegeSpotted(r.seat, r.trick, r.led, max(held_shown))
            # Penalised once the next trick has begun (000 s3.3), or after the last trick.
            if completed and r.trick == rules.hand_size:
                i_proven = completed[0]
            elif (
                completed
                and completed[0] + 1 < len(plays)
                and isinstance(plays[completed[0] + 1].event, CardPlayed)
            ):
                i_proven = completed[0] + 1
            else:  # voided before the next trick began: no penalty
                assert seen == [(0, spotted)], seen
                return
            assert len(seen) == 2 and seen[0][0] == 0, seen
            assert isinstance(seen[1][1], RenegeProven)
            assert seen[0][1] == RenegeSpotted(r.seat, r.trick, r.led, seen[1][1].proof)
        else:
            assert len(seen) == 1, seen
        assert seen[-1][0] == i_proven
        proven = seen[-1][1]
        assert isinstance(proven, RenegeProven)
        assert proven.proof in held_shown and proven.proof_trick == r.trick
    else:
        # 001 s22 "All revokes must be supported by evidence of cards played": proven
        # exactly when the offender first plays (or leads) a card of the suit it did not
        # follow, with that card and trick as the proof -- and not before.
        shown_up = [
            i
            for i, p in enumerate(plays)
            if i > 0
            and isinstance(p.event, CardPlayed)
            and p.event.seat == r.seat
            and effective_suit(p.event.card, r.trump) == r.led
        ]
        if not shown_up:
            # The hand ended (voided) before the offender showed the suit: nothing proven.
            assert isinstance(plays[-1].event, WrongCardCount), plays[-1]
            assert seen == [], seen
            return
        i_proven = shown_up[0]
        assert len(seen) == 1, seen
        assert seen[0][0] == i_proven
        proven = seen[0][1]
        assert isinstance(proven, RenegeProven)
        p = plays[i_proven]
        assert isinstance(p.event, CardPlayed)
        assert proven.proof == p.event.card and proven.proof_trick == p.trick
    assert (proven.hand, proven.seat, proven.trick, proven.suit, proven.played) == (
        r.hand,
        r.seat,
        r.trick,
        r.led,
        r.card,
    )
    p = plays[i_proven]
    check_penalty(rules, r, proven, p.outs, p.scores, p.individual)
    if rules.renege_penalty is RenegePenalty.AWARD_AND_END:
        assert i_proven == len(plays) - 1, "the hand went on after the renege was proven"
    else:
        hand_goes_on(rules, r, [(q.event, q.outs) for q in plays[i_proven:]])


# ---------------------------------------------------------------------------------
# 2b. Known and live tables agree on every renege once its proof has been played
# ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    """A seat did not follow ``suit`` in ``trick`` although it held ``held``."""

    seat: Seat
    trick: int
    suit: Suit
    played: Card
    held: frozenset[Card]


def hand_with_reneges(
    rules: Rules, rng: random.Random
) -> tuple[Game, Game, list[Failure], dict[Seat, set[Card]]]:
    """One hand played with reneges injected, pushed to two tables at once: one that
    knows every hand and a live one that sees only the cards laid. Under award-and-end
    (001/003) the known table's hand ends at the first renege, the live table plays on to
    its proof; after the first renege only the same seat reneges again, in the same suit,
    as in the issue's example (E shows out of clubs twice while holding the 9C).

    Returns both games, the failures injected in order, and each seat's true hand at the
    end."""
    known, live = Game(rules), Game(rules)
    choose = simulate.random_choice(rng)
    failures: list[Failure] = []
    holdings: dict[Seat, set[Card]] = {}
    award = rules.renege_penalty is RenegePenalty.AWARD_AND_END
    played = False

    def push(event: InputEvent, to_known: bool = True) -> None:
        live_event = strip_hands([event], rng)[0]
        if to_known:
            known.push(event)
        live.push(live_event)

    for _ in range(200):
        if live.phase is Phase.CHOOSING_DEALER:
            for event in simulate.choose_dealer(rng, known):
                push(event)
            continue
        if live.phase is Phase.DEALING:
            if played:
                break  # the hand with the reneges is over
            deal = simulate.deal(rng, rules)
            holdings = {s: set(h) for s, h in deal.hands.items()}
            push(deal)
            continue
        if live.phase is Phase.OVER or (played and live.phase is not Phase.PLAYING):
            break
        hand = live.hand
        assert hand is not None
        if live.phase is not Phase.PLAYING:
            push(choose(known, known.legal_events()))
            if known.hand is not None:  # the dealer's pick-up and discard, an exchange
                holdings = {s: set(known.hand.known[s] or ()) for s in Seat}
            continue
        trick = hand.trick
        seat = hand.next_to_play()
        assert trick is not None and seat is not None
        led = trick.led
        following = {c for c in holdings[seat] if effective_suit(c, hand.trump) == led}
        others = sorted(holdings[seat] - following)
        may = led is not None and following and others
        if may and failures and award:
            may = seat == failures[0].seat and led == failures[0].suit
        if may and rng.random() < 0.35:
            card = rng.choice(others)
            assert led is not None
            failures.append(Failure(seat, trick.number, led, card, frozenset(following)))
        else:
            card = rng.choice(follow_suit_plays(holdings[seat], led, hand.trump))
        holdings[seat].remove(card)
        khand = known.hand
        same = known.phase is Phase.PLAYING and khand is not None and khand.number == hand.number
        push(CardPlayed(seat, card), to_known=same)
        played = True
    return known, live, failures, holdings


def proven_in(game: Game) -> list[RenegeProven]:
    return [o for o in replay_outputs(game) if isinstance(o, RenegeProven)]


def replay_outputs(game: Game) -> list[OutputEvent]:
    fresh = Game(game.rules)
    return [o for event in game.log for o in fresh.push(event)]


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=60)
@given(seed=SEEDS)
def test_known_and_live_tables_agree_on_every_renege(name: str, seed: int) -> None:
    """Issue 15: the same plays, replayed with hands known and with hands unknown, flag the
    same reneges with the same evidence once the proof has been played, and score the
    same. renege.py's rule: a card proves every failure of its seat to follow its suit
    while already holding it, so the live table proves at the proof what the known table
    proved at once.

    Where play goes on after a renege (000 deducts, 002/004 report), every renege is
    proven at both tables by the end of the hand: a seat that held a card of the suit
    must play it before the hand ends. Where the first renege ends the hand (001 s22 "the
    hand is immediately ended"; 003 RENEGE "The hand is over"), both tables end it on
    that first renege, and the later ones of the same seat are not charged."""
    rules = preset(name)
    rng = random.Random(seed)
    known, live, failures, _ = hand_with_reneges(rules, rng)
    assume(failures)
    award = rules.renege_penalty is RenegePenalty.AWARD_AND_END
    by_known, by_live = proven_in(known), proven_in(live)
    expected = failures[:1] if award else failures
    for proofs in (by_known, by_live):
        assert sorted((p.seat, p.trick, p.suit, p.played) for p in proofs) == sorted(
            (f.seat, f.trick, f.suit, f.played) for f in expected
        ), (failures, proofs)
        for p in proofs:  # the evidence: a card of that suit the seat held then
            failure = next(f for f in expected if (f.seat, f.trick) == (p.seat, p.trick))
            assert p.proof in failure.held and p.proof_trick >= p.trick, (p, failure)
    assert known.team_scores() == live.team_scores()
    assert known.individual == live.individual


# ---------------------------------------------------------------------------------
# 3. A seat that really was void is never flagged
# ---------------------------------------------------------------------------------

# Trump spades (named by E in the second round, the 9H turned down): the JC is the left
# bower, a spade. N holds no club but the JC, so N shows out of clubs in trick 1 and then
# plays the JC on a club lead (trumping), then hearts and spades: never a renege.
# 001 s12 "If a player cannot follow suit, s/he may play any card they wish. ... Jack of
# Trump -> Jack of Sister Suit (same color as trump)" -- the left bower is a trump.
VOID_HANDS = {
    E: cards("AC KC QC AS KS"),
    S: cards("9C TD JD QD KD"),
    W: cards("TC AD 9D AH KH"),
    N: cards("JC TH QH 9S TS"),
}
VOID_PLAY = [
    # trick 1: clubs led; N shows out with a heart
    (E, "AC"), (S, "9C"), (W, "TC"), (N, "TH"),
    # trick 2: clubs again; S and W show out, N plays the JC (a trump, not a club)
    (E, "KC"), (S, "TD"), (W, "AD"), (N, "JC"),
    # trick 3: N leads a heart after showing out of clubs; E and S show out of hearts
    (N, "QH"), (E, "AS"), (S, "JD"), (W, "AH"),
    # trick 4: clubs once more; every other seat is void
    (E, "QC"), (S, "QD"), (W, "KH"), (N, "9S"),
    # trick 5: spades led; S and W show out
    (N, "TS"), (E, "KS"), (S, "KD"), (W, "9D"),
]  # fmt: skip


@pytest.mark.parametrize("known", [True, False], ids=["hands-known", "live-table"])
@pytest.mark.parametrize("name", EUCHRE_PRESETS)
def test_a_seat_that_was_void_is_never_flagged(name: str, known: bool) -> None:
    game = Game(preset(name, {"first_dealer": "chosen"}))
    out = game.push(DealerChosen(N))
    out += game.push(HandDealt(Card.parse("9H"), VOID_HANDS if known else {}))
    out += game.push_all([Passed(E), Passed(S), Passed(W), Passed(N), TrumpCalled(E, Suit.S)])
    for seat, code in VOID_PLAY:
        out += game.push(CardPlayed(seat, Card.parse(code)))
    assert not renege_outputs(out), renege_outputs(out)
    won = [o.winner for o in out if isinstance(o, TrickWon)]
    assert won == [E, N, E, N, E]
    scored = [o for o in out if isinstance(o, HandScored)]
    assert len(scored) == 1 and scored[0].result is HandResult.MADE
    assert scored[0].tricks == (2, 3) and scored[0].points == (0, 1)


def test_a_left_bower_played_later_does_not_prove_a_renege_of_its_printed_suit() -> None:
    """Live table, trump spades: W shows out of clubs, and later plays the JC (a spade)."""
    game = Game(preset("nmu-tournament", {"first_dealer": "chosen"}))
    game.push_all([DealerChosen(N), HandDealt(Card.parse("9H"), {})])
    game.push_all([Passed(E), Passed(S), Passed(W), Passed(N), TrumpCalled(E, Suit.S)])
    plays = "E AC, S 9C, W TD, N TC, E KS, S 9S, W JC, N QS"  # W's JC takes trick 2
    out: list[OutputEvent] = []
    for play in plays.split(", "):
        seat, code = play.split()
        out += game.push(CardPlayed(Seat.parse(seat), Card.parse(code)))
    assert not renege_outputs(out)
    # ... while a real club from W (here led) is a renege, proven by that card.
    out = game.push(CardPlayed(W, Card.parse("QC")))
    assert renege_outputs(out) == [
        RenegeProven(1, W, 1, Suit.C, Card.parse("TD"), Card.parse("QC"), 3)
    ]


# ---------------------------------------------------------------------------------
# 4. Replay rebuilds the state; pop restores it
# ---------------------------------------------------------------------------------


def live_digests(rules: Rules, seed: int, steps: list[int], keys: list[Any]) -> dict[int, str]:
    """The live game's digest at each of ``steps``: the same game driven again from the
    same seed (a digest at every step of the first run was most of the test's time)."""
    game = Game(rules)
    found = {0: game.state_digest()} if 0 in steps else {}
    for i, _ in enumerate(drive(game, random.Random(seed)), start=1):
        if i in steps:
            assert game.state_key() == keys[i], "the same seed drove another game"
            found[i] = game.state_digest()
        if i >= max(steps):
            break
    return found


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=25)
@given(seed=SEEDS)
def test_replay_rebuilds_the_same_state_and_pop_restores_it(name: str, seed: int) -> None:
    rules = preset(name)
    rng = random.Random(seed)
    game = Game(rules)
    keys = [game.state_key()]
    for _ in drive(game, rng):
        keys.append(game.state_key())
    assert len(game.log) == len(keys) - 1
    assert Game.replay(rules, game.log).state_key() == keys[-1]
    sampled = sorted(rng.sample(range(len(keys)), 4))
    digests = live_digests(rules, seed, sampled, keys)
    for k in sampled:
        prefix = Game.replay(rules, game.log[:k])
        assert prefix.state_key() == keys[k], k
        assert prefix.copy().state_key() == keys[k], k
        assert prefix.state_digest() == digests[k], k
        if k:
            assert prefix.pop() is game.log[k - 1]
            assert prefix.state_key() == keys[k - 1], k
            assert len(prefix.log) == k - 1
    for back in range(1, 4):
        game.pop()
        assert game.state_key() == keys[-1 - back]


# ---------------------------------------------------------------------------------
# 5. Bad events never wedge the table
# ---------------------------------------------------------------------------------


def played_cards(game: Game) -> list[Card]:
    hand = game.hand
    if hand is None:
        return []
    tricks = [*hand.tricks, *([hand.trick] if hand.trick is not None else [])]
    return [card for trick in tricks for _, card in trick.plays]


def bad_event(game: Game, rng: random.Random) -> tuple[InputEvent, bool]:
    """A random ill-formed, impossible or irregular event for the game's state, and
    whether the rules must refuse it (others may be accepted as irregularities)."""
    rules, hand, phase = game.rules, game.hand, game.phase
    seat = rng.choice(list(Seat))
    card = rng.choice(DECK)
    euchre = rules.variant is Variant.EUCHRE
    must: list[InputEvent] = []  # the rules must refuse these
    may: list[InputEvent] = []  # irregularities the rules may accept

    if phase is not Phase.CHOOSING_DEALER:
        must += [DealerChosen(seat), CardCut(seat, card), FaceUpCardDealt(seat, card)]
    if phase is not Phase.DEALING:
        must.append(simulate.deal(rng, rules))  # a deal in the middle of a hand
    else:
        deal = simulate.deal(rng, rules)
        twice = dict(deal.hands)
        twice[seat] = twice[seat.left]
        short = dict(deal.hands)
        short[seat] = short[seat][1:]
        must += [HandDealt(deal.upcard, twice), HandDealt(deal.upcard, short)]
        must.append(HandDealt(None if euchre else card, {}))  # upcard missing / extra
    if euchre:
        must.append(BidMade(seat, rng.choice([1, 3, 6])))
    else:
        must += [OrderedUp(seat), TrumpCalled(seat, Suit.H)] if phase is Phase.BIDDING else []
    if phase is not Phase.CHOOSING_REMEDY:
        must.append(PenaltyAccepted(seat))
    if phase is not Phase.EXCHANGING:
        must.append(CardsExchanged(card, rng.choice(DECK)))
    if not rules.lay_down_claims:
        must.append(HandLaidDown(seat, (card,)))
    if not rules.nines_misdeal:
        must.append(AllNinesShown(seat))
    if not rules.dropped_cards:
        must.append(CardDropped(seat, card))
    if not rules.renege_take_back:
        must.append(CardTakenBack(seat, card))

    if hand is None:
        must += [CardPlayed(seat, card), Passed(seat), MisdealDeclared(), WrongCardCount(seat)]
        if phase is not Phase.DEALING or game.last_hand is None:
            must.append(RenegeClaimed(seat, seat.left))
        else:
            may.append(RenegeClaimed(seat, seat.left))
        if may and rng.random() < 0.5:
            return rng.choice(may), False
        return rng.choice(must), True

    held = {s: sorted(hand.known[s] or ()) for s in Seat}
    played = played_cards(game)
    # a card already played in this hand, by anyone
    if played:
        must.append(CardPlayed(seat, rng.choice(played)))
    # a card not in the seat's known hand (it is in another's)
    elsewhere = [c for s in Seat if s != seat for c in held[s]]
    if held[seat] and elsewhere:
        must.append(CardPlayed(seat, rng.choice(elsewhere)))
    must.append(RenegeClaimed(seat, seat.partner))  # a claim against one's own side
    must.append(RenegeClaimed(seat, seat.left, 7))  # a trick no hand has
    if phase is Phase.PLAYING:
        trick = hand.trick
        assert trick is not None
        must += [Passed(seat), BidMade(seat, 3), OrderedUp(seat), TrumpCalled(seat, Suit.C)]
        (must if played else may).append(MisdealDeclared())
        if not hand.discard_pending:
            must.append(DealerDiscarded(card))
        for s, _ in trick.plays:
            if held[s]:
                must.append(CardPlayed(s, rng.choice(held[s])))  # a second card to a trick
        out = hand.sitting_out
        if out is not None and held[out]:
            loner_partner = CardPlayed(out, rng.choice(held[out]))
            # 003 "Should A player attempt a lone try and their partner plays a card, the
            # lone call is canceled"; elsewhere the partner simply does not play.
            (may if rules.loner_partner_play_cancels else must).append(loner_partner)
        for s in Seat:
            if s != out and held[s] and not trick.has_played(s):
                # 001 s24 "If a player leads out of turn, the lead reverts to the proper
                # seat."; 003 "LEAD OUT OF TURN: - All play stops for that hand and the
                # non-offending team scores two points" -- or a renege, or in turn.
                may.append(CardPlayed(s, rng.choice(held[s])))
                if trick.plays:
                    may.append(CardTakenBack(*rng.choice(trick.plays)))
                may.append(CardDropped(s, rng.choice(held[s])))
                if s == trick.leader and not trick.plays:
                    may.append(HandLaidDown(s, tuple(held[s])))
    else:
        if phase is not Phase.DISCARDING:
            must.append(DealerDiscarded(card))
        # 001 s23 "If a player calls out of turn, the premature call is cancelled"; 003
        # "BID OUT OF TURN: - All play stops for that hand and the non-offending team
        # scores two points"; 001 s21 a misdeal is dealt again; 004 all four 9s.
        may += [Passed(seat), MisdealDeclared(), AllNinesShown(seat)]
        if held[seat]:
            may.append(AllNinesShown(seat, tuple(held[seat])))  # the hand shown
        if euchre:
            may += [OrderedUp(seat, rng.random() < 0.5)]
            may.append(TrumpCalled(seat, rng.choice(list(Suit)), rng.random() < 0.5))
        else:
            may.append(BidMade(seat, rng.choice([0, 1, 3, 6, 7, 12, 13, 24, 48])))
        if held[seat]:
            may.append(CardPlayed(seat, rng.choice(held[seat])))  # a lead before the discard
    may += [WrongCardCount(seat), RenegeClaimed(seat, seat.left)]
    may.append(RenegeClaimed(seat, seat.left, rng.randint(1, 6)))  # naming a trick
    if rng.random() < 0.5:
        return rng.choice(must), True
    return rng.choice(may), False


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=40)
@given(seed=SEEDS)
def test_bad_events_never_wedge_the_table(name: str, seed: int) -> None:
    rules = preset(name)
    rng = random.Random(seed)
    game = Game(rules)
    totals = Totals(rules)
    refused = accepted = 0

    def push_bad(game: Game) -> None:
        nonlocal refused, accepted
        if rng.random() > 0.15:
            return
        event, must_refuse = bad_event(game, rng)
        key, length = game.state_key(), len(game.log)
        try:
            outs = game.push(event)
        except RulesError as exc:
            assert "internal error" not in str(exc), exc
            assert game.state_key() == key, event
            assert len(game.log) == length
            refused += 1
            return
        assert not must_refuse, f"{event} was accepted"
        totals.feed(outs)
        accepted += 1

    for _, outs in drive(game, rng, before=push_bad):
        totals.feed(outs)
    assert game.phase is Phase.OVER
    assert refused
    # The log, irregularities included, still rebuilds the same game.
    assert Game.replay(rules, game.log).state_key() == game.state_key()


# Events with fields of the wrong type (a plain int for a seat, a string for a suit) are
# what a buggy producer sends; the codec refuses them in JSON, but Python producers build
# events directly.
def _euchre_round_two() -> Game:
    game = Game(preset("nmu-tournament"))
    game.push_all([FaceUpCardDealt(N, Card.parse("AS")), HandDealt(Card.parse("9H"), VOID_HANDS)])
    game.push_all([Passed(E), Passed(S), Passed(W), Passed(N)])
    return game


def _bid_euchre_naming() -> Game:
    game = Game(preset("family-bid-euchre"))  # 004: the winner names trump after bidding
    game.push(DealerChosen(N))
    game.push(simulate.deal(random.Random(0), game.rules))
    game.push_all([BidMade(E, 3), Passed(S), Passed(W), Passed(N)])
    return game


@pytest.mark.parametrize(
    ("start", "event"),
    [
        (lambda: Game(preset("bid-euchre")), DealerChosen(2)),  # type: ignore[arg-type]
        (_euchre_round_two, TrumpCalled(E, "S")),  # type: ignore[arg-type]
        (_bid_euchre_naming, TrumpCalled(E, 7)),  # type: ignore[arg-type]
    ],
    ids=["dealer-chosen-int", "trump-called-str", "bid-trump-called-int"],
)
def test_an_ill_typed_event_is_refused_or_the_game_plays_on(
    start: Callable[[], Game], event: InputEvent
) -> None:
    game = start()
    key = game.state_key()
    try:
        game.push(event)
    except RulesError:
        assert game.state_key() == key
        return
    rng = random.Random(1)
    for _ in drive(game, rng):
        pass
    assert game.phase is Phase.OVER


# ---------------------------------------------------------------------------------
# 6. Scoring invariants
# ---------------------------------------------------------------------------------


class GameEnd:
    """When a game ends, per the rule text each preset follows, from the scores alone."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.scores = [0, 0]
        self.hands = 0
        self.target = 12 if name == "nmu-tournament" else 8
        self.playoff = False

    def after_hand(self, scored: HandScored, maker: Seat) -> list[OutputEvent]:
        """The GameEnded / PlayoffStarted that must follow this HandScored (without
        ``game``, ``scores`` and ``individual``, checked elsewhere)."""
        self.scores = list(scored.scores)
        self.hands += 1
        a, b = self.scores
        lead = Team.NS if a > b else Team.EW
        name = self.name
        if name in ("bicycle-head-to-head", "td-tournament"):
            # 000 "First team to score 10 or more points wins game."; 003 "The first team
            # reaching a score of 10 points wins the round (game)."
            over = [t for t in Team if self.scores[t] >= 10]
            assert len(over) <= 1
            return [GameEnded(0, over[0], (0, 0))] if over else []
        if name == "bid-euchre":
            # 002 "A team can win by either: 1) reaching the goal when it wins a hand on
            # which it was the bidding team; or 2) reaching the goal when it sets a bid. A
            # team cannot win, even if it reaches the goal, after a hand in which the
            # opponent is the bidding team and reaches its bid."
            made = scored.result in (HandResult.MADE, HandResult.MARCH)
            team = maker.team if made else maker.team.other
            return [GameEnded(0, team, (0, 0))] if self.scores[team] >= 32 else []
        if name == "family-bid-euchre":
            # 004 "The first team to reach 32 points wins the game. If both teams reach 32
            # in the same round, the winning bidder's team scores first and thus wins".
            over = [t for t in Team if self.scores[t] >= 32]
            if len(over) == 2:
                return [GameEnded(0, maker.team, (0, 0))]
            return [GameEnded(0, over[0], (0, 0))] if over else []
        if self.hands < self.target:
            return []
        if name == "td-progressive":
            # 003 "In a standard progressive event A total of 8 hands are played".
            return [GameEnded(0, None if a == b else lead, (0, 0))]
        # 001 s5 "Each match consists of 12 hands." s19 "If a tie occurs, a four (4) hand
        # playoff will take place between the two teams. If the game is still tied, a
        # sudden death hand will occur."
        if a != b:
            return [GameEnded(0, lead, (0, 0))]
        if not self.playoff:
            self.playoff = True
            self.target += 4
            return [PlayoffStarted(4, False)]
        self.target += 1
        return [PlayoffStarted(1, True)]


def euchre_points(tricks: int, alone: bool) -> tuple[int, int]:
    """(makers, defenders) -- 000 s3.2 "1 point: Trump partners winning 3 or 4 tricks.
    2 points: Trump partners winning 5 tricks. 1 point: Lone hand winning 3 or 4 tricks.
    4 points: Lone hand winning 5 tricks. 2 points: Euchre - either lone hand or
    partnership" (001 s16 and 003 Scoring agree)."""
    if tricks == 5:
        return (4 if alone else 2), 0
    return (1, 0) if tricks >= 3 else (0, 2)


def bid_points(bid: int, tricks: int) -> tuple[int, int]:
    """(bidders, defenders) -- 002 "If the bidding team takes at least the number of tricks
    as the bid calls for, each team receives one point for each trick taken. If ... not ...
    One point for each trick the team bid is deducted from its score. The 'setting' team
    still receives one point for each trick it took." 004: "If the winning bidder
    succeeded in taking all six tricks while playing alone, they score the point value of
    their bid (12, 24, etc.)"."""
    if bid >= 12:
        return (bid, 0) if tricks == 6 else (-bid, 6 - tricks)
    return (tricks, 6 - tricks) if tricks >= bid else (-bid, 6 - tricks)


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(PROPERTY, max_examples=60)
@given(seed=SEEDS)
def test_scoring_invariants(name: str, seed: int) -> None:
    rules = preset(name)
    steps = list(simulate.play(rules, random.Random(seed)))
    totals = Totals(rules)
    end = GameEnd(name)
    trump: TrumpSet | None = None
    games_won = [0, 0]
    game_no = 1
    for _, outs in steps:
        totals.feed(outs)
        for i, o in enumerate(outs):
            if isinstance(o, TrumpSet):
                trump = o
            elif isinstance(o, PenaltyScored):
                raise AssertionError(f"a penalty in a legal game: {o}")
            elif isinstance(o, HandScored):
                assert trump is not None and o.maker == trump.maker
                makers = trump.maker.team
                tricks = o.tricks[makers]
                assert sum(o.tricks) == rules.hand_size
                if rules.variant is Variant.EUCHRE:
                    # In plain Euchre a hand scores for exactly one team.
                    assert sum(1 for p in o.points if p) == 1 and min(o.points) == 0, o
                    mine, theirs = euchre_points(tricks, trump.alone)
                else:
                    assert trump.bid is not None
                    mine, theirs = bid_points(trump.bid, tricks)
                assert (o.points[makers], o.points[makers.other]) == (mine, theirs), o
                # Whatever ends the game follows the hand's score in the same outputs.
                follows = [x for x in outs[i + 1 :] if isinstance(x, GameEnded | PlayoffStarted)]
                expected = end.after_hand(o, trump.maker)
                assert len(follows) == len(expected), (o, follows, expected)
                for got, want in zip(follows, expected, strict=True):
                    if isinstance(want, GameEnded):
                        assert isinstance(got, GameEnded) and got.winner == want.winner
                        assert got.game == game_no and got.scores == o.scores
                    else:
                        assert got == want
                trump = None
            elif isinstance(o, GameEnded):
                end = GameEnd(name)
                if rules.best_of > 1:
                    # 000 "opponents playing best two-out-of-three games".
                    assert o.winner is not None
                    games_won[o.winner] += 1
                    won = [x for x in outs if isinstance(x, MatchWon)]
                    if games_won[o.winner] == 2:
                        assert won == [MatchWon(o.winner, (games_won[0], games_won[1]))]
                    else:
                        assert not won
                    game_no += 1
    last = steps[-1][1]
    assert any(isinstance(o, GameEnded) for o in last)
    if rules.best_of > 1:
        assert max(games_won) == 2 and sum(games_won) <= 3
        assert isinstance(last[-1], MatchWon)
    else:
        assert sum(isinstance(o, GameEnded) for _, outs in steps for o in outs) == 1
