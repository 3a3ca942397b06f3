"""The kiosk's coach names the renege penalty the score then adds (a visitor reneging
against a loner was told 2 points while the score added 4).

Each case plays a real game to a renege: a random deal whose cards are all known (as the
kiosk's are), trump made alone or not, and the first seat of the offending side that can
follow the suit led and holds another suit plays the other suit. The coach is then asked
what the kiosk's page shows, and its number is compared with the change of the score.

What the rule texts (shared/seeds, README.md there) say a renege costs:
- 000 s3.3: "the offending player's team will have two points removed from their score
  (4 if occuring during a loner hand)"; before the trick is finished the card may be
  picked up, so the penalty falls when the next trick begins.
- 001 s22: "The penalty for a revoke is 2 points to the team it occurred against and the
  hand is immediately ended (4 pts will be awarded if on a loner)."
- 003 RENEGE: "The hand is over, the offending team loses their bid and the non-offending
  team scores two points. In the case of a renege during a Loner attempt, the
  non-offending team scores 4 points." 003 GOING ALONE: "'Defending loners' ... are NOT
  allowed"; no other text has them, so only the maker's side goes alone here.
- 002 and 004 set no renege penalty: it is reported to the players.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pytest

from table_controller.cards import DECK, Card, effective_suit
from table_controller.kiosk.teach import coach
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    DealerChosen,
    HandDealt,
    HandResult,
    HandScored,
    InputEvent,
    OrderedUp,
    OutputEvent,
    RenegeProven,
    RenegeSpotted,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import PRESETS, RenegePenalty, Rules, Variant, preset
from table_controller.rules.scoring import is_shoot
from table_controller.seats import SEATS, Seat

NAMES = {s: f"Player {s.name}" for s in Seat}
HAND_PHASES = (Phase.BIDDING, Phase.NAMING_TRUMP, Phase.DISCARDING, Phase.EXCHANGING)

# What each text says a renege costs: (not alone, alone); None: reported, no points.
SEED_POINTS: dict[str, tuple[int, int] | None] = {
    "bicycle-head-to-head": (2, 4),  # 000 s3.3
    "nmu-tournament": (2, 4),  # 001 s22
    "td-tournament": (2, 4),  # 003 RENEGE
    "td-progressive": (2, 4),  # 003 RENEGE
    "bid-euchre": None,  # 002: no penalty in the text
    "family-bid-euchre": None,  # 004: no penalty in the text
}


def _can_go_alone(rules: Rules) -> bool:
    """Euchre's loners (000, 001, 003); in Bid Euchre only 004's shoot is played alone."""
    return rules.variant is Variant.EUCHRE or rules.shoot_bids


CASES = [
    (name, side, alone)
    for name, p in PRESETS.items()
    for side in ("makers", "defenders")
    for alone in (False, True)
    if not alone or _can_go_alone(p.rules)
]


@dataclass
class Reneged:
    game: Game
    offender: Seat
    recent: list[OutputEvent]  # the hand's outputs, as the kiosk's page keeps them
    before: tuple[int, int]  # the scores just before the event that proved the renege
    after: tuple[int, int]


def _call(game: Game, alone: bool) -> InputEvent:
    """The first seat able to make trump (alone or not); the others pass."""
    events = game.legal_events()
    for ev in events:
        calls = isinstance(ev, OrderedUp | TrumpCalled) and game.phase is Phase.BIDDING
        if calls and ev.alone == alone:
            return ev
        if isinstance(ev, BidMade | TrumpBid) and is_shoot(ev.amount) == alone:
            return ev
    return events[0]  # a pass, where allowed; else the first naming, discard, exchange


def _renege_chance(game: Game, seat: Seat, offenders: int) -> Card | None:
    """A card of another suit, if ``seat`` is of the offending side and could follow."""
    hand, trick = game.hand, game.current_trick
    if hand is None or trick is None or trick.led is None or seat.team != offenders:
        return None
    if trick.number >= game.rules.hand_size:  # one card left: no choice
        return None
    held = hand.known[seat]
    assert held is not None
    follows = [c for c in held if effective_suit(c, hand.trump) == trick.led]
    others = [c for c in held if effective_suit(c, hand.trump) != trick.led]
    return min(others) if follows and others else None


def _play_to_renege(rules: Rules, side: str, alone: bool, seed: int) -> Reneged | None:
    rng = random.Random(seed)
    game = Game(rules)
    game.push(DealerChosen(SEATS[seed % 4]))
    deck = list(DECK)
    rng.shuffle(deck)
    size = rules.hand_size
    hands = {s: tuple(deck[i * size : (i + 1) * size]) for i, s in enumerate(SEATS)}
    upcard = deck[4 * size] if rules.variant is Variant.EUCHRE else None
    recent = game.push(HandDealt(upcard, hands))
    while game.phase in HAND_PHASES:
        recent += game.push(_call(game, alone))
    hand = game.hand
    if game.phase is not Phase.PLAYING or hand is None or hand.alone != alone:
        return None  # all passed, or the call was not the one wanted
    assert hand.maker is not None
    offenders = hand.maker.team if side == "makers" else hand.maker.team.other
    offender: Seat | None = None
    while game.phase is Phase.PLAYING:
        seat = game.to_act
        assert seat is not None
        card = _renege_chance(game, seat, offenders) if offender is None else None
        if card is not None:
            offender = seat
            event: InputEvent = CardPlayed(seat, card)
        else:  # 000: a spotted renege is penalised when the next trick begins
            event = game.legal_events()[0]
        before = game.team_scores()
        outs = game.push(event)
        recent += outs
        if offender is not None and any(isinstance(o, RenegeProven) for o in outs):
            return Reneged(game, offender, recent, before, game.team_scores())
        if card is not None:
            assert any(isinstance(o, RenegeSpotted) for o in outs), outs
    return None


def _reneged(rules: Rules, side: str, alone: bool) -> Reneged:
    for seed in range(500):
        found = _play_to_renege(rules, side, alone, seed)
        if found is not None:
            return found
    raise AssertionError("no deal gave the side a chance to renege")


def _said_points(sentence: str) -> int:
    numbers = re.findall(r"(\d+) points", sentence)
    assert len(numbers) == 1, sentence
    return int(numbers[0])


def _check(rules: Rules, done: Reneged, expected: int | None) -> None:
    said = coach(done.game, {done.offender}, NAMES, done.recent)["renege"]
    assert said.startswith("You "), said  # the visitor's own renege, told to them
    them, us = done.offender.team.other, done.offender.team
    gained = done.after[them] - done.before[them]
    lost = done.before[us] - done.after[us]
    if expected is None:
        assert (gained, lost) == (0, 0)
        assert "reported to the players" in said and "points" not in said, said
        return
    if rules.renege_penalty is RenegePenalty.AWARD_AND_END:
        assert (gained, lost) == (expected, 0)
        assert f"the other side scores {expected} points and the hand ends" in said, said
    else:
        assert (gained, lost) == (0, expected)
        assert f"{expected} points off the reneging side's score" in said, said
    assert _said_points(said) == expected


@pytest.mark.parametrize(("name", "side", "alone"), CASES)
def test_the_coach_names_the_points_the_score_adds(name: str, side: str, alone: bool) -> None:
    rules = preset(name)
    done = _reneged(rules, side, alone)
    points = SEED_POINTS[name]
    _check(rules, done, None if points is None else points[alone])
    said = coach(done.game, {done.offender}, NAMES, done.recent)["renege"]
    assert ("in a hand played alone" in said) == (alone and points is not None), said


@pytest.mark.parametrize("alone", [False, True])
def test_a_director_s_points_are_said_as_scored(alone: bool) -> None:
    """Points a director changed (Rules.with_options) are the points the coach says."""
    rules = preset("nmu-tournament", {"renege_points": 3, "renege_points_loner": 6})
    _check(rules, _reneged(rules, "defenders", alone), 6 if alone else 3)


@pytest.mark.parametrize("alone", [False, True])
def test_the_renege_that_wins_a_game_of_a_match_is_told_as_scored(alone: bool) -> None:
    """The renege's points win the game and the next game of the match begins at once
    (the hand is gone from the game): the coach still names the points scored."""
    rules = preset("td-tournament", {"best_of": 3, "points_to_win": 1})
    done = _reneged(rules, "makers", alone)
    assert done.game.last_hand is None and done.game.game == 2
    scored = [o for o in done.recent if isinstance(o, HandScored)]
    assert [o.result for o in scored] == [HandResult.RENEGE]
    gained = scored[0].points[done.offender.team.other]
    assert gained == (4 if alone else 2)  # 003 RENEGE
    said = coach(done.game, {done.offender}, NAMES, done.recent)["renege"]
    assert f"the other side scores {gained} points and the hand ends" in said, said
