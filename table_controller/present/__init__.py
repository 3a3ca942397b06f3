"""What people read of a game: its words, the table page's sentences and snapshot, and a
replay told hand by hand.

It sits above the rules and below everything that shows a game (the table, its page,
the kiosk, the director's dashboard, hall and papers), so each of them says a seat, a
card, a renege or whom the table waits for the same way, and the table's core takes
its words from here rather than from the web server above it. Every module is pure:
it reads the rules' state and events, and does no IO.

- ``words.py``: seats, suits, cards and every code the engine reports, in words;
- ``announce.py``: whom the table waits for, and who won, with the players' names;
- ``view.py``: the table page's snapshot (``table_view``), which the dashboard and the
  hall draw too;
- ``sheet.py``: a game told as a score sheet, hand by hand, with its notes and pictures
  (``replay_game``), which the table's log export and the director's papers both print;
- ``snapshot.py``: that snapshot's shape (``TableSnapshot``, a seat's ``SeatShown``,
  and the kiosk's part ``KioskShown``), the contract the page's script reads;
- ``narration.py``: a replay told for people (``narrate``) (``table-controller replay --pretty``).

Outsiders import from here, never from the modules themselves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from table_controller.present.snapshot import (
    AcrossOnPage,
    Action,
    BidShown,
    BotShown,
    Coach,
    CoachReview,
    CostlyShown,
    FaultShown,
    GameOverShown,
    IrregularityShown,
    KioskAlert,
    KioskShown,
    LastTrickShown,
    PageCard,
    Picture,
    PlayShown,
    RenegeShown,
    ResultShown,
    ReviewLink,
    RulesShown,
    ScoreShown,
    SeatLookBack,
    SeatShown,
    TableSnapshot,
    TeamCounts,
    TrickShown,
    TrumpShown,
    UpcardShown,
    WinnerShown,
)
from table_controller.present.words import (
    EVENT_WORDS,
    FIRST_DEALER_WORDS,
    IRREGULARITY_WORDS,
    PHASE_WORDS,
    RANK_NAMES,
    REMEDY_WORDS,
    RESULT_WORDS,
    RULING_DONE,
    SEAT_NAMES,
    SUIT_NAMES,
    TEAM_SHORT,
    TEAM_WORDS,
    THROW_IN_WORDS,
    card_face,
    card_words,
    event_words,
    phase_words,
    reason_words,
    renege_sentence,
    ruling_announcement,
    ruling_change,
    signed_points,
    suit_name,
    suit_text,
)

if TYPE_CHECKING:
    from table_controller.present.announce import (
        game_over,
        in_words,
        pair,
        review_link,
        seat_names,
        tricks_text,
        waiting_for,
        who,
    )
    from table_controller.present.narration import narrate
    from table_controller.present.sheet import (
        Evidence,
        HandLine,
        HandsTable,
        Note,
        Sheet,
        event_note,
        final_text,
        hands_table,
        replay_game,
        rules_text,
        started_text,
    )
    from table_controller.present.view import (
        NOTICE_KINDS,
        AcrossNote,
        Notice,
        actions,
        choices,
        page_card,
        table_view,
    )

# What computes is loaded on its first use, so a command that needs only the shapes and
# the words (`config --help`, the feed's messages) starts without the replay and the log.
_LAZY = {
    "game_over": "announce",
    "review_link": "announce",
    "in_words": "announce",
    "pair": "announce",
    "seat_names": "announce",
    "tricks_text": "announce",
    "waiting_for": "announce",
    "who": "announce",
    "narrate": "narration",
    "Evidence": "sheet",
    "HandLine": "sheet",
    "HandsTable": "sheet",
    "Note": "sheet",
    "Sheet": "sheet",
    "event_note": "sheet",
    "final_text": "sheet",
    "hands_table": "sheet",
    "replay_game": "sheet",
    "rules_text": "sheet",
    "started_text": "sheet",
    "NOTICE_KINDS": "view",
    "AcrossNote": "view",
    "Notice": "view",
    "actions": "view",
    "choices": "view",
    "page_card": "view",
    "table_view": "view",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "EVENT_WORDS",
    "FIRST_DEALER_WORDS",
    "IRREGULARITY_WORDS",
    "NOTICE_KINDS",
    "PHASE_WORDS",
    "RANK_NAMES",
    "REMEDY_WORDS",
    "RESULT_WORDS",
    "RULING_DONE",
    "SEAT_NAMES",
    "SUIT_NAMES",
    "TEAM_SHORT",
    "TEAM_WORDS",
    "THROW_IN_WORDS",
    "AcrossNote",
    "AcrossOnPage",
    "Action",
    "BidShown",
    "BotShown",
    "Coach",
    "CoachReview",
    "CostlyShown",
    "Evidence",
    "FaultShown",
    "GameOverShown",
    "HandLine",
    "HandsTable",
    "IrregularityShown",
    "KioskAlert",
    "KioskShown",
    "LastTrickShown",
    "Note",
    "Notice",
    "PageCard",
    "Picture",
    "PlayShown",
    "RenegeShown",
    "ResultShown",
    "ReviewLink",
    "RulesShown",
    "ScoreShown",
    "SeatLookBack",
    "SeatShown",
    "Sheet",
    "TableSnapshot",
    "TeamCounts",
    "TrickShown",
    "TrumpShown",
    "UpcardShown",
    "WinnerShown",
    "actions",
    "card_face",
    "card_words",
    "choices",
    "event_note",
    "event_words",
    "final_text",
    "game_over",
    "hands_table",
    "in_words",
    "narrate",
    "page_card",
    "pair",
    "phase_words",
    "reason_words",
    "renege_sentence",
    "replay_game",
    "review_link",
    "rules_text",
    "ruling_announcement",
    "ruling_change",
    "seat_names",
    "signed_points",
    "started_text",
    "suit_name",
    "suit_text",
    "table_view",
    "tricks_text",
    "waiting_for",
    "who",
]
