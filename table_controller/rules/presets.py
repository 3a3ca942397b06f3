"""Rule presets: one engine, options where the rule texts differ.

Each preset follows one of the rule texts in shared/seeds and names it. A director can
change any option (``Rules.with_options``); docs/rules.md maps every rule sentence of
the texts to the option and the test that covers it.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any

from table_controller.clip import clip
from table_controller.rules.errors import RulesError


class Variant(Enum):
    EUCHRE = "euchre"  # 5 cards each, an upcard, two rounds of making trump
    BID_EUCHRE = "bid_euchre"  # all 24 cards dealt, 6 each, one round of bids


class FirstDealer(Enum):
    CHOSEN = "chosen"  # the players decide (002, 004)
    HIGH_CUT = "high_cut"  # 000 s2.1
    FIRST_ACE = "first_ace"  # 001 s6
    FIRST_JACK = "first_jack"  # 003 The Deal


class AllPass(Enum):
    """Who deals when every seat passed (and the dealer is not stuck)."""

    NEXT_DEALER = "next_dealer"  # 000 s2.2: the player left of the dealer deals anew
    SAME_DEALER = "same_dealer"  # 004: the same dealer re-deals


class RenegePenalty(Enum):
    AWARD_AND_END = "award_and_end"  # 001 s22, 003: points to the other side, hand over
    DEDUCT = "deduct"  # 000 s3.3: points taken from the offenders, play goes on
    REPORTED = "reported"  # 002, 004: proven and reported; the players decide


class OutOfTurn(Enum):
    CANCELLED = "cancelled"  # 001 s23/24: the act is void, it reverts to the proper seat
    PENALTY = "penalty"  # 003: play stops, the other side scores


class Win(Enum):
    FIRST_TO_TARGET = "first_to_target"
    BID_EUCHRE = "bid_euchre"  # 002: only by making a bid or setting one
    BIDDER_FIRST = "bidder_first"  # 004: first to the target; both there: bidders win


@dataclass(frozen=True)
class Rules:
    """Every option of the engine. The defaults are plain Euchre to 10."""

    variant: Variant = Variant.EUCHRE
    first_dealer: FirstDealer = FirstDealer.CHOSEN
    # making trump (Euchre)
    stick_the_dealer: bool = False
    all_pass: AllPass = AllPass.NEXT_DEALER
    turned_down_suit_forfeits: bool = False  # 003: naming it costs the team its bid
    # bidding (Bid Euchre)
    min_bid: int = 1
    no_trump: bool = False  # 002: a bid may be no-trump
    bid_names_trump: bool = False  # 002: a bid names its suit (trump_bid), not the winner after
    shoot_bids: bool = False  # 004: 12 (with partner's best), 24 alone, 48, ...
    dealer_min_bid: int | None = None  # 004 variation: all passed to the dealer
    nines_misdeal: bool = False  # 004: a hand of all four 9s is a misdeal
    lay_down_claims: bool = False  # 004 house rule
    # scoring
    points_made: int = 1
    points_march: int = 2
    points_loner_made: int = 1
    points_loner_march: int = 4
    points_euchre: int = 2
    points_euchre_loner: int = 2
    progressive: bool = False  # 003: individual totals, loner 5, partner 4
    progressive_loner: int = 5
    progressive_partner: int = 4
    # the end of a game
    points_to_win: int | None = 10
    hands_per_game: int | None = None  # 001: 12; 003 progressive: 8
    playoff_hands: int = 0  # 001 s19: tied after the hands, play this many more
    sudden_death: bool = False  # 001 s19: still tied, one hand at a time
    win: Win = Win.FIRST_TO_TARGET
    best_of: int = 1  # 000 s4: best two of three games
    # irregularities
    renege_penalty: RenegePenalty = RenegePenalty.AWARD_AND_END
    renege_points: int = 2
    renege_points_loner: int = 4
    renege_take_back: bool = False  # 000: before the trick is complete
    false_claim_points: int | None = None  # 003: 2 to the side falsely accused
    bid_out_of_turn: OutOfTurn = OutOfTurn.CANCELLED
    lead_out_of_turn: OutOfTurn = OutOfTurn.CANCELLED
    out_of_turn_points: int = 2
    out_of_turn_points_loner: int = 4
    lead_before_discard_dead: bool = False  # 003: the card is dead, the second seat leads
    dealer_discard_penalty: bool = False  # 003: opposition scores 2 (4)
    loner_partner_play_cancels: bool = False  # 003: the lone call is cancelled
    dropped_cards: bool = False  # 003: a card that falls out is played without value

    @cached_property
    def hand_size(self) -> int:
        return 5 if self.variant is Variant.EUCHRE else 6

    def with_options(self, options: Mapping[str, Any]) -> Rules:
        """A copy with ``options`` changed; values may be given as JSON would give them."""
        known = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for name, value in options.items():
            key = name.replace("-", "_")
            if key not in known:
                near = difflib.get_close_matches(key, known, n=1)
                raise RulesError(
                    f"unknown rule option {clip(name)}"
                    + (f" (did you mean {near[0]!r}?)" if near else ""),
                    "one of: " + ", ".join(sorted(known)),
                )
            changes[key] = _coerce(key, getattr(self, key), value)
        rules = dataclasses.replace(self, **changes)
        rules.check()
        return rules

    def options(self) -> dict[str, Any]:
        """The options as JSON values."""
        return {f.name: _to_json(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def check(self) -> None:
        """Refuse combinations the engine cannot play."""
        if self.points_to_win is None and self.hands_per_game is None:
            raise RulesError(
                "the game would never end",
                "points_to_win or hands_per_game to be set",
            )
        if self.best_of % 2 == 0:
            raise RulesError(f"best_of {self.best_of} cannot decide a match", "an odd number")
        if not 1 <= self.min_bid <= self.hand_size:
            raise RulesError(
                f"min_bid {self.min_bid} is not a trick count",
                f"a number from 1 to {self.hand_size}",
            )
        if self.dealer_min_bid is not None and not 1 <= self.dealer_min_bid <= self.hand_size:
            raise RulesError(
                f"dealer_min_bid {self.dealer_min_bid} is not a trick count",
                f"a number from 1 to {self.hand_size}, or none",
            )
        if self.variant is Variant.EUCHRE and (
            self.shoot_bids or self.nines_misdeal or self.no_trump or self.bid_names_trump
        ):
            raise RulesError(
                "shoot bids, no-trump and the all-nines misdeal belong to Bid Euchre",
                "variant 'bid_euchre'",
            )


def _coerce(name: str, current: Any, value: Any) -> Any:
    if isinstance(current, Enum):
        try:
            return type(current)(value)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in type(current))
            raise RulesError(f"option {name} cannot be {clip(value)}", allowed) from None
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        raise RulesError(f"option {name} cannot be {clip(value)}", "true or false")
    low, high = RANGES[name]
    allowed = f"a whole number from {low} to {high}" + (", or none" if name in _OPTIONAL else "")
    if isinstance(value, bool) or not (isinstance(value, int) or value is None):
        raise RulesError(f"option {name} cannot be {clip(value)}", allowed)
    if value is None and name not in _OPTIONAL:
        raise RulesError(f"option {name} cannot be empty", allowed)
    if value is not None and not low <= value <= high:
        raise RulesError(f"option {name} cannot be {clip(value)}", allowed)
    return value


_OPTIONAL = {"points_to_win", "hands_per_game", "dealer_min_bid", "false_claim_points"}

# The whole-number options and the values that make sense, from the rule texts: every
# text scores between 1 and 24 points for a hand or a penalty, and plays to 10, 32 or
# "whatever total score the players decide" (002); 001 plays 12 hands and 4 more on a tie.
# The bids (min_bid, dealer_min_bid) are trick counts, checked against the hand size.
_POINTS = (1, 100)
RANGES: dict[str, tuple[int, int]] = {
    "points_made": _POINTS,
    "points_march": _POINTS,
    "points_loner_made": _POINTS,
    "points_loner_march": _POINTS,
    "points_euchre": _POINTS,
    "points_euchre_loner": _POINTS,
    "progressive_loner": _POINTS,
    "progressive_partner": _POINTS,
    "renege_points": _POINTS,
    "renege_points_loner": _POINTS,
    "false_claim_points": _POINTS,
    "out_of_turn_points": _POINTS,
    "out_of_turn_points_loner": _POINTS,
    "points_to_win": (1, 1000),
    "hands_per_game": (1, 100),
    "playoff_hands": (0, 100),
    "best_of": (1, 99),
    "min_bid": (1, 6),
    "dealer_min_bid": (1, 6),
}


def _to_json(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    source: str  # the file in shared/seeds
    summary: str
    rules: Rules


_TOURNAMENT_003 = Rules(
    first_dealer=FirstDealer.FIRST_JACK,
    stick_the_dealer=True,
    turned_down_suit_forfeits=True,
    renege_penalty=RenegePenalty.AWARD_AND_END,
    false_claim_points=2,
    bid_out_of_turn=OutOfTurn.PENALTY,
    lead_out_of_turn=OutOfTurn.PENALTY,
    lead_before_discard_dead=True,
    dealer_discard_penalty=True,
    loner_partner_play_cancels=True,
    dropped_cards=True,
)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="bicycle-head-to-head",
            title="Bicycle official rules, head-to-head championship",
            source="000_58270bed3c0b6e2c.txt",
            summary="High cut deals; no stick the dealer (all pass: the next player deals); "
            "game to 10, best two of three; a renege costs the offenders 2 (4 on a loner) "
            "and may be taken back until the next trick begins.",
            rules=Rules(
                first_dealer=FirstDealer.HIGH_CUT,
                stick_the_dealer=False,
                all_pass=AllPass.NEXT_DEALER,
                best_of=3,
                renege_penalty=RenegePenalty.DEDUCT,
                renege_take_back=True,
            ),
        ),
        Preset(
            name="nmu-tournament",
            title="Northern Michigan University tournament",
            source="001_1d5d506622556f2d.txt",
            summary="First ace deals; stick the dealer; a match is 12 hands, points summed, "
            "tie: 4 more hands then sudden death; a renege gives 2 (4 on a loner) to the "
            "other team and ends the hand; calls and leads out of turn revert.",
            rules=Rules(
                first_dealer=FirstDealer.FIRST_ACE,
                stick_the_dealer=True,
                points_to_win=None,
                hands_per_game=12,
                playoff_hands=4,
                sudden_death=True,
            ),
        ),
        Preset(
            name="td-tournament",
            title="Tournament director rules, games to 10",
            source="003_d15e51d2b79022f6.txt",
            summary="First jack deals; stick the dealer; no defending loners; a renege ends "
            "the hand, 2 (4 on a loner) to the other side; a false renege claim gives 2 to "
            "the accused; bids and leads out of turn, a dealer who fails to discard and the "
            "partner of a loner playing are all ruled on.",
            rules=_TOURNAMENT_003,
        ),
        Preset(
            name="td-progressive",
            title="Tournament director rules, progressive event",
            source="003_d15e51d2b79022f6.txt",
            summary="As td-tournament, scored for each player over 8 hands: a loner who takes "
            "all five scores 5 and the partner 4.",
            rules=dataclasses.replace(
                _TOURNAMENT_003, progressive=True, points_to_win=None, hands_per_game=8
            ),
        ),
        Preset(
            name="bid-euchre",
            title="Bid Euchre (common rules)",
            source="002_41c1b486dab537a5.txt",
            summary="All 24 cards dealt, one bid each of tricks with a suit or no-trump; the "
            "bidders score their tricks or lose the bid; game to 32, won only by making or "
            "setting a bid.",
            rules=Rules(
                variant=Variant.BID_EUCHRE,
                no_trump=True,
                bid_names_trump=True,
                renege_penalty=RenegePenalty.REPORTED,
                points_to_win=32,
                win=Win.BID_EUCHRE,
            ),
        ),
        Preset(
            name="family-bid-euchre",
            title="Family Bid Euchre (southeast Michigan)",
            source="004_7ee761ad56a0ce8a.txt",
            summary="Bids 1 to 6, shoot for 12 with partner's best or 24 alone (48 and up "
            "over 24); all pass: the same dealer re-deals; all four 9s is a misdeal; a hand "
            "may be laid down; game to 32, both past 32: the bidders win.",
            rules=Rules(
                variant=Variant.BID_EUCHRE,
                shoot_bids=True,
                renege_penalty=RenegePenalty.REPORTED,
                nines_misdeal=True,
                lay_down_claims=True,
                all_pass=AllPass.SAME_DEALER,
                points_to_win=32,
                win=Win.BIDDER_FIRST,
            ),
        ),
    )
}


def preset(name: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules of a named preset, with ``options`` changed."""
    try:
        rules = PRESETS[name].rules
    except KeyError:
        known = "one of: " + ", ".join(PRESETS)
        raise RulesError(f"unknown rule preset {clip(name)}", known) from None
    return rules.with_options(options) if options else rules
