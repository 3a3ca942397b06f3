"""One wording for a renege on every screen and sheet (issue 15): the narrated replay, the
table's page, the score sheet and the kiosk's coach all say the same sentence, and it names
the evidence the engine had: a card played later, or a card known to be in the hand."""

from __future__ import annotations

import html
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from table_controller.cards import Suit
from table_controller.event_log import EventLog
from table_controller.kiosk.teach import coach
from table_controller.present import (
    FIRST_DEALER_WORDS,
    IRREGULARITY_WORDS,
    REMEDY_WORDS,
    RESULT_WORDS,
    SUIT_NAMES,
    THROW_IN_WORDS,
    narrate,
    renege_sentence,
    table_view,
    who,
)
from table_controller.rules.events import (
    HandResult,
    HowChosen,
    InputEvent,
    Irregularity,
    OutputEvent,
    Remedy,
    RenegeProven,
    RenegeSpotted,
    ThrowIn,
)
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.log.export import score_sheet_html
from table_controller.transcript import load

TRANSCRIPTS = Path(__file__).parent / "transcripts"
NAMES = {s: s.name for s in Seat}  # the page's name for a seat


Steps = list[tuple[InputEvent, list[OutputEvent]]]


def played(name: str) -> tuple[Game, list[OutputEvent], Steps]:
    script = load(TRANSCRIPTS / name)
    game = Game(script.rules())
    steps = [(e, game.push(e)) for e in script.events]
    return game, [o for _, outs in steps for o in outs], steps


@pytest.mark.parametrize(
    ("name", "evidence"),
    [
        ("000_renege_twice_same_suit_live.jsonl", "the 9♣ was played in trick 4"),
        ("000_renege_twice_same_suit_known.jsonl", "the 9♣ was known to be in the hand"),
        ("003_renege_upcard_held.jsonl", "known to be in the hand"),
    ],
)
def test_the_evidence_is_named_as_the_engine_had_it(name: str, evidence: str) -> None:
    _, outs, _ = played(name)
    proven = [o for o in outs if isinstance(o, RenegeProven)]
    assert proven
    for event in proven:
        assert evidence in renege_sentence(event)
        assert ("played in trick" in evidence) == (event.proof_trick != event.trick)


def test_a_spotted_renege_says_it_may_be_taken_back() -> None:
    _, outs, _ = played("000_renege_twice_same_suit_known.jsonl")
    spotted = next(o for o in outs if isinstance(o, RenegeSpotted))
    assert renege_sentence(spotted) == (
        "East did not follow ♣ clubs in trick 1 while holding the 9♣: the card may be "
        "taken back before the trick is complete"
    )


@pytest.mark.parametrize(
    "name", ["000_renege_twice_same_suit_live.jsonl", "001_renege_ends_hand.jsonl"]
)
def test_every_output_says_the_same_sentence(name: str, tmp_path: Path) -> None:
    game, outs, steps = played(name)
    proven = [o for o in outs if isinstance(o, RenegeProven)]
    assert proven
    told = "\n".join(narrate(steps))
    page = table_view(game, table="T1", players=NAMES, recent=outs)
    coached = coach(game, (), NAMES, outs)["renege"]
    log_path = tmp_path / "log.sqlite"
    with EventLog(log_path, table="T1") as log:
        number = log.start_game(load(TRANSCRIPTS / name).rules_name or "", {}, NAMES)
        for seq, (event, _) in enumerate(steps, start=1):
            log.append(number, seq, event, source="camera")
    with EventLog.open_existing(log_path) as log:
        sheet = html.unescape(score_sheet_html(log, number))
    for event in proven:
        sentence = renege_sentence(event)
        assert sentence in told
        assert sentence in sheet
        on_page = renege_sentence(event, who(NAMES, event.seat))  # "Ann (North)"
        assert on_page in [r["text"] for r in page["reneges"]]
    assert coached.startswith(renege_sentence(proven[-1], NAMES[proven[-1].seat]))


@pytest.mark.parametrize(
    ("enum", "words"),
    [
        (Irregularity, IRREGULARITY_WORDS),
        (Remedy, REMEDY_WORDS),
        (HandResult, RESULT_WORDS),
        (ThrowIn, THROW_IN_WORDS),
        (HowChosen, FIRST_DEALER_WORDS),
        (Suit, SUIT_NAMES),
    ],
)
def test_every_code_the_engine_reports_has_words(enum: type[Enum], words: dict[Any, str]) -> None:
    """A person never reads an enum's code ("loner_partner_played"): each member has words."""
    assert set(words) == set(enum)
    for member, text in words.items():
        assert text and "_" not in text, (member, text)


def test_phases_events_and_cards_read_as_words() -> None:
    """The dashboard, the hall screen and the table's page name what is going on in words
    (issue 19: "choosing_dealer", "hand_dealt" and "JH" were shown to people)."""
    from table_controller.present import card_face, card_words, event_words, phase_words
    from table_controller.rules.codec import event_name
    from table_controller.rules.events import INPUT_EVENTS, OUTPUT_EVENTS
    from table_controller.rules.hand import Phase

    assert {phase_words(p) for p in Phase} == {phase_words(p.value) for p in Phase}
    assert all(phase_words(p) and "_" not in phase_words(p) for p in Phase)
    assert phase_words("choosing_dealer") == "Choosing the first dealer"
    assert phase_words(None) == ""
    for cls in (*INPUT_EVENTS, *OUTPUT_EVENTS):
        assert "_" not in event_words(event_name(cls))
    assert event_words("hand_dealt") == "Cards dealt"
    assert event_words("some_new_event") == "Some new event"
    assert card_words("JH") == "Jack of Hearts"
    assert card_face("TC") == "10♣"
    assert card_face("AD") == "A♦"
