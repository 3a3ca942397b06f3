"""The engine's side of transcript version 2: a renege claim naming its trick, a hand of
nines shown card by card, and the card, trick and place named in irregularities."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.cards import Card, cards
from table_controller.rules import Game, preset
from table_controller.rules.errors import IllegalAction, ImpossibleCard
from table_controller.rules.events import (
    AllNinesShown,
    CardPlayed,
    CardTakenBack,
    DealerChosen,
    HandDealt,
    InputEvent,
    Irregularity,
    IrregularityFound,
    OutputEvent,
    Remedy,
    RenegeClaimed,
)
from table_controller.seats import Seat
from table_controller.transcript import load

N, E, S, W = Seat
HERE = Path(__file__).parent / "transcripts"


def accepted(name: str) -> list[InputEvent]:
    """A test transcript's events, without those it expects to be refused."""
    return [s.event for s in load(HERE / name).steps if s.expect_error is None]


def run(name: str, insert_after: int, event: InputEvent) -> tuple[Game, list[OutputEvent]]:
    events = accepted(name)
    game = Game(load(HERE / name).rules())
    out: list[OutputEvent] = []
    for e in [*events[: insert_after + 1], event, *events[insert_after + 1 :]]:
        out += game.push(e)
    return game, out


def false_claims(out: list[OutputEvent]) -> list[IrregularityFound]:
    return [
        o
        for o in out
        if isinstance(o, IrregularityFound) and o.kind is Irregularity.FALSE_RENEGE_CLAIM
    ]


def test_a_renege_taken_back_upholds_no_claim_naming_its_trick() -> None:
    # 000: S's renege in trick 1 is taken back: a claim naming trick 1 is false.
    name = "000_renege_taken_back.jsonl"
    assert accepted(name)[9] == CardTakenBack(S, Card.parse("9S"))
    _, out = run(name, 9, RenegeClaimed(E, S, 1))
    (claim,) = false_claims(out)
    assert claim.seat is E and claim.trick == 1 and claim.remedy is Remedy.NOTED
    assert "in trick 1" in claim.detail


def test_a_renege_deducted_upholds_a_claim_naming_its_trick_only() -> None:
    # 000, live table: S reneges in trick 1, proven when S plays 9C in trick 2.
    name = "000_renege_deducted.jsonl"
    assert accepted(name)[12] == CardPlayed(S, Card.parse("9C"))
    _, out = run(name, 12, RenegeClaimed(E, S, 1))
    assert false_claims(out) == []
    _, out = run(name, 12, RenegeClaimed(E, S, 2))
    assert [c.trick for c in false_claims(out)] == [2]
    _, out = run(name, 12, RenegeClaimed(E, S))  # no trick: any renege of S
    assert false_claims(out) == []


def test_a_claim_naming_no_card_played_yet_is_refused() -> None:
    events = accepted("003_false_renege_claim.jsonl")
    game = Game(preset("td-tournament"))
    game.push_all(events[:4])  # dealt, ordered up, discarded: play, no card yet
    before = game.state_key()
    with pytest.raises(IllegalAction, match="no card has been played in hand 1"):
        game.push(RenegeClaimed(N, E, 1))
    game.push(events[4])  # a card: trick 1 has begun
    with pytest.raises(IllegalAction, match="a renege claimed in trick 0, but hand 1 has only"):
        game.push(RenegeClaimed(N, E, 0))
    with pytest.raises(IllegalAction, match="RenegeClaimed.trick is True"):
        game.push(RenegeClaimed(N, E, True))
    game.pop()
    assert game.state_key() == before


def test_a_lead_out_of_turn_names_its_card_under_003_too() -> None:
    game = Game(preset("td-tournament"))
    out: list[OutputEvent] = []
    for e in accepted("003_lead_out_of_turn.jsonl"):
        out += game.push(e)
    leads = [
        o
        for o in out
        if isinstance(o, IrregularityFound) and o.kind is Irregularity.LEAD_OUT_OF_TURN
    ]
    assert leads and all(o.card is not None and o.trick is not None for o in leads)
    assert all(
        o.card is not None and o.card.pretty in o.detail for o in leads
    )  # as people write it


def test_nines_shown_must_be_the_seats_own_cards() -> None:
    game = Game(preset("family-bid-euchre"))
    game.push(DealerChosen(N))
    game.push(HandDealt(None, {E: cards("9C AC KC QC JC TC")}))
    with pytest.raises(ImpossibleCard, match="9C is in E's hand"):
        game.push(AllNinesShown(W, cards("9C 9D 9H 9S AS KS")))
    with pytest.raises(IllegalAction, match="AllNinesShown.cards"):
        game.push(AllNinesShown(W, ("9C",)))  # type: ignore[arg-type]
