"""What the trump cube shows for a game (pure): trump, maker, alone, the score, an alert.

Like the seat lights, a view of the rules' state and of the output events of the last
input event, so a replayed game gives the cube back exactly what it showed. The cube
link sends whole states, so showing the same state again changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.devices.cube_types import Alert, CubeState
from table_controller.rules.events import (
    HandThrownIn,
    IrregularityFound,
    OutputEvent,
    RenegeProven,
    RenegeSpotted,
    ThrowIn,
)
from table_controller.rules.game import Game

_MISDEALS = frozenset({ThrowIn.MISDEAL, ThrowIn.ALL_NINES, ThrowIn.WRONG_CARD_COUNT})


def _clamp(score: int) -> int:
    """The cube takes -128..127; a score beyond is shown at the limit (never refused)."""
    return max(-128, min(127, score))


def cube_state(
    game: Game,
    last: Sequence[OutputEvent] = (),
    *,
    director_called: bool = False,
    brightness: int = 32,
) -> CubeState:
    """The cube's display for ``game``; ``last`` is what the latest input event gave
    (its renege, irregularity or misdeal blinks until the next event)."""
    hand = game.hand
    trump = maker = None
    alone = no_trump = False
    if hand is not None and hand.trump_set:
        trump, maker, alone = hand.trump, hand.maker, hand.alone
        no_trump = trump is None
    if maker is None:
        alone = False
        no_trump = False
    ns, ew = game.team_scores()
    return CubeState(
        trump=trump,
        maker=maker,
        alone=alone,
        score_ns=_clamp(ns),
        score_ew=_clamp(ew),
        alert=_alert(game, last, director_called),
        no_trump=no_trump,
        brightness=brightness,
    )


def _alert(game: Game, last: Sequence[OutputEvent], director_called: bool) -> Alert:
    if (game.hand is not None and game.hand.spotted) or any(
        isinstance(e, RenegeProven | RenegeSpotted) for e in last
    ):
        return Alert.RENEGE
    if director_called:
        return Alert.DIRECTOR
    if any(isinstance(e, HandThrownIn) and e.reason in _MISDEALS for e in last):
        return Alert.MISDEAL
    if any(isinstance(e, IrregularityFound) for e in last):
        return Alert.IRREGULARITY
    return Alert.NONE


__all__ = ["cube_state"]
