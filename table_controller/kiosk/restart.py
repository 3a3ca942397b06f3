"""A kiosk started again on its log (a crash, a power cut, the operator's restart).

The table replays its log on start (table/log/resume.py), so the game in play comes back to
the event. The kiosk's own state comes back with it: the bots' hands are virtual, but
the kiosk's deal is one logged ``hand_dealt`` holding every hand, so the replayed hand
knows the bots' cards and they play on from them. What is not logged is the deal being
collected (the visitors' cards read before the deal): after a restart the visitors lay
their five again, as the page asks.

A hand in play whose bots' cards are not in the log (a log from a club table, an edited
one) cannot go on safely: the bots would have nothing to play. Then the page says so and
a new game starts; the old game's events stay in the log (``log export``).
"""

from __future__ import annotations

from table_controller.kiosk.port import KioskPart
from table_controller.rules.hand import HAND_PHASES

RESUMED = (
    "The kiosk was restarted: the hand goes on where it was.",
    "The screen shows every card played; play on with the cards you hold.",
)


def carry_on(kiosk: KioskPart) -> bool:
    """After the table's resume: say the hand in play goes on (True), or start a new
    game when it cannot (False; a line in the log's records says why). True as well when
    no hand was in play."""
    table = kiosk.table
    game, hand = table.game, table.game.hand
    if game.phase not in HAND_PHASES or hand is None:
        return True
    if all(hand.known[s] is not None for s in kiosk.bot_seats):
        kiosk.say(*RESUMED)
        return True
    old = table.game_no
    kiosk.record(
        f"kiosk: game {old}'s hand cannot go on (the bots' cards are not in the log); "
        "a new game was started"
    )
    kiosk.new_game()
    kiosk.say(
        f"The kiosk was restarted, and game {old}'s hand could not go on: a new game "
        "starts (the old one is kept in the log).",
        "Put the cards back in the deck, then take five and lay them face up.",
    )
    return False


__all__ = ["RESUMED", "carry_on"]
