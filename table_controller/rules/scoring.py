"""How many points a hand is worth, under each rule text (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.rules.events import HandResult
from table_controller.rules.presets import RenegePenalty, Rules, Win
from table_controller.seats import SEATS, Seat, Team


def euchre_hand(rules: Rules, maker_tricks: int, alone: bool) -> tuple[HandResult, int, int]:
    """(result, makers' points, defenders' points) for a hand of Euchre.

    000 s3.2, 001 s16 and 003 Scoring agree: 3 or 4 tricks 1, all five 2 (4 alone),
    a euchre 2 to the defenders, alone or not."""
    if maker_tricks >= 3:
        if maker_tricks == rules.hand_size:
            return HandResult.MARCH, rules.points_loner_march if alone else rules.points_march, 0
        return HandResult.MADE, rules.points_loner_made if alone else rules.points_made, 0
    return HandResult.EUCHRED, 0, rules.points_euchre_loner if alone else rules.points_euchre


@dataclass(frozen=True, slots=True)
class RenegeCost:
    """What one proven renege costs in a hand. The engine scores it and every sentence
    about it (the kiosk's coach) says it from this one answer, so the two cannot differ."""

    penalty: RenegePenalty
    points: int  # to the other side (award), off the offenders (deduct); 0 if reported
    loner: bool  # the loner rate applied


def renege_cost(rules: Rules, loner: bool) -> RenegeCost:
    """The penalty for a renege in a hand, ``loner`` when the hand is played alone.

    000 s3.3: "two points removed from their score (4 if occuring during a loner hand)";
    001 s22: "2 points to the team it occurred against ... (4 pts ... if on a loner)";
    003 RENEGE: "the non-offending team scores two points ... during a Loner attempt, ...
    4 points"; 002 and 004 set no penalty (reported). Whoever reneges, the maker's side or
    the defenders, the rate is the hand's. Only a maker goes alone in this engine: 003
    forbids defending loners and no other text has them."""
    if rules.renege_penalty is RenegePenalty.REPORTED:
        return RenegeCost(rules.renege_penalty, 0, loner)
    points = rules.renege_points_loner if loner else rules.renege_points
    return RenegeCost(rules.renege_penalty, points, loner)


def is_shoot(amount: int) -> bool:
    """12, 24, 48, ...: the shooting bids of 004."""
    return amount >= 12


def bid_hand(rules: Rules, bid: int, bidder_tricks: int) -> tuple[HandResult, int, int]:
    """(result, bidders' points, defenders' points) for a hand of Bid Euchre.

    002 Scoring and 004 Scoring: made, each side scores its tricks (a shoot scores its
    value); set, the bidders lose the bid and the defenders still score their tricks."""
    defender_tricks = rules.hand_size - bidder_tricks
    if is_shoot(bid):
        if bidder_tricks == rules.hand_size:
            return HandResult.MARCH, bid, 0
        return HandResult.EUCHRED, -bid, defender_tricks
    if bidder_tricks >= bid:
        result = HandResult.MARCH if bidder_tricks == rules.hand_size else HandResult.MADE
        return result, bidder_tricks, defender_tricks
    return HandResult.EUCHRED, -bid, defender_tricks


def individual(
    rules: Rules, points: tuple[int, int], maker: Seat | None, alone: bool, result: HandResult
) -> tuple[int, int, int, int]:
    """Progressive scoring (003): each player scores the team's points, except that a loner
    who takes all five scores ``progressive_loner`` and the partner ``progressive_partner``."""
    each = [points[seat & 1] for seat in SEATS]
    if maker is not None and alone and result is HandResult.MARCH:
        each[maker] = rules.progressive_loner
        each[maker.partner] = rules.progressive_partner
    return (each[0], each[1], each[2], each[3])


def target_winner(
    rules: Rules, scores: tuple[int, int], bidders: Team | None, made: bool
) -> Team | None:
    """The team that has won on points after a hand, if any."""
    target = rules.points_to_win
    if target is None or (scores[0] < target and scores[1] < target):
        return None
    over = [t for t in (Team.NS, Team.EW) if scores[t] >= target]
    if not over:
        return None
    if rules.win is Win.BID_EUCHRE:
        # 002 Winning the Game: only by reaching the goal on a hand it bid and made, or
        # on a hand in which it set the bidders.
        if bidders is None:
            return None
        team = bidders if made else bidders.other
        return team if team in over else None
    if len(over) == 1:
        return over[0]
    if rules.win is Win.BIDDER_FIRST and bidders is not None:
        return bidders  # 004: both reach 32 in one round, the bidders score first
    if scores[0] == scores[1]:
        return None
    return Team.NS if scores[0] > scores[1] else Team.EW
