"""A game told for people, hand by hand: the bidding, each trick, reneges and the score.

Used by ``table-controller replay --pretty`` and ``make demo``. It reads the same input
and output events as every other consumer, and keeps no rules of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from table_controller.cards import Card
from table_controller.present.words import (
    FIRST_DEALER_WORDS,
    IRREGULARITY_WORDS,
    RESULT_WORDS,
    SEAT_NAMES,
    THROW_IN_WORDS,
    renege_sentence,
    suit_text,
)
from table_controller.rules.events import (
    BidMade,
    BidWon,
    CardPlayed,
    ClaimJudged,
    CutTied,
    DealerDiscarded,
    FirstDealerSet,
    GameEnded,
    HandScored,
    HandStarted,
    HandThrownIn,
    InputEvent,
    IrregularityFound,
    MatchWon,
    OrderedUp,
    OutputEvent,
    Passed,
    PenaltyScored,
    PlayoffStarted,
    RenegeProven,
    RenegeSpotted,
    ScoreCorrected,
    TrickWon,
    TrumpBid,
    TrumpCalled,
    TrumpSet,
)
from table_controller.seats import Seat


def _score(scores: tuple[int, int]) -> str:
    return f"North-South {scores[0]}, East-West {scores[1]}"


def narrate(steps: Iterable[tuple[InputEvent, list[OutputEvent]]]) -> Iterator[str]:
    """Lines of text for a stream of (input event, its outputs)."""
    bids: list[str] = []
    table: list[tuple[Seat, Card]] = []  # the cards of the trick in play
    for event, outputs in steps:
        if isinstance(event, CardPlayed):
            table.append((event.seat, event.card))
        if isinstance(event, Passed):
            bids.append(f"{event.seat} passes")
        elif isinstance(event, OrderedUp):
            bids.append(f"{event.seat} orders it up" + (" alone" if event.alone else ""))
        elif isinstance(event, TrumpCalled) and not any(isinstance(o, BidWon) for o in outputs):
            bids.append(
                f"{event.seat} calls {suit_text(event.trump)}" + (" alone" if event.alone else "")
            )
        elif isinstance(event, BidMade):
            bids.append(f"{event.seat} bids {event.amount}")
        elif isinstance(event, TrumpBid):
            bids.append(f"{event.seat} bids {event.amount} {suit_text(event.trump)}")
        elif isinstance(event, DealerDiscarded):
            yield "  The dealer discards" + (f" {event.card.pretty}" if event.card else "")
        for out in outputs:
            if isinstance(out, TrumpSet | HandThrownIn | BidWon) and bids:
                yield "  Bidding: " + ", ".join(bids)
                bids = []
            if isinstance(out, TrickWon | HandStarted):
                table = []
            elif isinstance(out, RenegeProven | HandScored) and table:
                plays = "  ".join(f"{s} {c.pretty:>3}" for s, c in table)
                yield f"  Trick so far: {plays}"
                table = []
            yield from _output(out)


def _output(out: OutputEvent) -> Iterator[str]:
    if isinstance(out, FirstDealerSet):
        yield f"First dealer: {SEAT_NAMES[out.seat]} ({FIRST_DEALER_WORDS[out.how]})"
    elif isinstance(out, CutTied):
        yield "Cut tied between " + ", ".join(str(s) for s in out.seats) + ": they cut again"
    elif isinstance(out, HandStarted):
        up = f", upcard {out.upcard.pretty}" if out.upcard is not None else ""
        yield ""
        yield f"Hand {out.hand}: {SEAT_NAMES[out.dealer]} deals{up}"
    elif isinstance(out, HandThrownIn):
        yield f"  Thrown in ({THROW_IN_WORDS[out.reason]}); {out.next_dealer} deals next"
    elif isinstance(out, BidWon):
        yield f"  {out.seat} wins the bid with {out.amount}"
    elif isinstance(out, TrumpSet):
        alone = f", alone ({out.maker.partner} sits out)" if out.alone else ""
        yield f"  Trump {suit_text(out.trump)}, made by {out.maker}{alone}"
    elif isinstance(out, TrickWon):
        plays = "  ".join(f"{s} {c.pretty:>3}" for s, c in out.plays)
        yield f"  Trick {out.trick}: {plays}   -> {out.winner}"
    elif isinstance(out, RenegeSpotted):
        yield f"  ! {renege_sentence(out)}"
    elif isinstance(out, RenegeProven):
        yield f"  ! RENEGE: {renege_sentence(out)}"
    elif isinstance(out, IrregularityFound):
        yield f"  ! {IRREGULARITY_WORDS[out.kind]}: {out.detail}"
    elif isinstance(out, ClaimJudged):
        yield (f"  {out.seat} lays the hand down: {out.certain} of {out.remaining} tricks certain")
    elif isinstance(out, PenaltyScored):
        yield f"  Penalty: {out.team} {out.points:+d} -> {_score(out.scores)}"
        if out.individual is not None:
            yield "  Players: " + ", ".join(f"{s} {out.individual[s]}" for s in Seat)
    elif isinstance(out, ScoreCorrected):
        yield f"  Director: {out.team} {out.points:+d} ({out.reason}) -> {_score(out.scores)}"
    elif isinstance(out, HandScored):
        tricks = f"tricks NS {out.tricks[0]} EW {out.tricks[1]}"
        yield (
            f"  {RESULT_WORDS[out.result].capitalize()} ({tricks}): NS {out.points[0]:+d}, "
            f"EW {out.points[1]:+d} -> {_score(out.scores)}"
        )
        if out.individual is not None:
            each = ", ".join(f"{s} {out.individual[s]}" for s in Seat)
            yield f"  Players: {each}"
    elif isinstance(out, PlayoffStarted):
        kind = "sudden death hand" if out.sudden_death else f"{out.hands}-hand playoff"
        yield f"Tied: a {kind}"
    elif isinstance(out, GameEnded):
        who = "a tie" if out.winner is None else f"{out.winner} win"
        yield ""
        yield f"Game {out.game} over: {who}, {_score(out.scores)}"
    elif isinstance(out, MatchWon):
        yield f"Match won by {out.winner}, {out.games[0]} games to {out.games[1]}"


__all__ = ["narrate"]
