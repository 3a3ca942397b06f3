"""What each seat's light says for a game: a pure view of the rules' state.

``seat_lights(game, last)`` reads the rules' state (and the output events of the last
input event, for the alerts) and returns one ``SeatLight`` per seat. It does no IO and
keeps no state, so the same game always shows the same lights: after a restart, the
replayed game gives the lights back exactly (``SeatLeds`` then drives the pins). Like
``cube_state`` for the trump cube, it lives with the table, not the devices: the
devices know pins and patterns (devices/seat_lights.py), the table knows the game.

Alerts last until the next thing happens at the table, i.e. until the next input event:
a renege proven at the end of a hand flashes through the hand's end until the next
deal; an out-of-turn lead flashes until the next card. A renege seen in the open trick,
which may still be taken back (000), flashes for as long as it can be.
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.devices.seat_lights import ALL_OFF, SeatLight, TableLights
from table_controller.rules.events import (
    GameEnded,
    HandScored,
    IrregularityFound,
    OutputEvent,
    RenegeProven,
    RenegeSpotted,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Team


def seat_lights(game: Game, last: Sequence[OutputEvent] = ()) -> TableLights:
    """The four seats' lights for ``game``. ``last`` is what ``Game.push`` returned for
    the latest input event: its reneges and irregularities flash until the next one."""
    lights = _situation(game, last)
    _alerts(game, last, lights)
    return (lights[0], lights[1], lights[2], lights[3])


def _situation(game: Game, last: Sequence[OutputEvent]) -> list[SeatLight]:
    """Whose turn, the dealer, who sits out, who won: everything but the alerts."""
    lights = list(ALL_OFF)
    phase, hand = game.phase, game.hand
    if phase is Phase.OVER:
        if game.match_winner is not None:
            _light_team(lights, game.match_winner, SeatLight.GAME_WON)
        return lights
    ended = next((e for e in last if isinstance(e, GameEnded)), None)
    if ended is not None:  # a game of a match just ended: the next one is to start
        if ended.winner is not None:
            _light_team(lights, ended.winner, SeatLight.GAME_WON)
        return lights
    if phase is Phase.CHOOSING_DEALER:
        return [SeatLight.TABLE_READY] * 4
    if phase is Phase.DEALING:
        scored = next((e for e in reversed(last) if isinstance(e, HandScored)), None)
        if scored is not None:
            ns, ew = scored.points
            if ns != ew:
                _light_team(lights, Team.NS if ns > ew else Team.EW, SeatLight.HAND_WON)
        if game.dealer is not None:
            lights[game.dealer] = SeatLight.DEAL
        return lights
    if hand is None:  # pragma: no cover - every other phase has a hand
        return lights
    if phase in (Phase.BIDDING, Phase.NAMING_TRUMP, Phase.CHOOSING_REMEDY):
        lights[hand.dealer] = SeatLight.DEALER
        if phase is Phase.CHOOSING_REMEDY and hand.offender is not None:
            # 003: after a bid out of turn, the other side chooses (penalty or alone).
            _light_team(lights, hand.offender.team.other, SeatLight.YOUR_BID)
        elif hand.turn is not None:
            lights[hand.turn] = SeatLight.YOUR_BID
        return lights
    if hand.sitting_out is not None:
        lights[hand.sitting_out] = SeatLight.SITTING_OUT
    if phase is Phase.EXCHANGING and hand.maker is not None:
        lights[hand.maker] = lights[hand.maker.partner] = SeatLight.EXCHANGE
    elif phase is Phase.DISCARDING:
        lights[hand.dealer] = SeatLight.DISCARD
    elif phase is Phase.PLAYING:
        to_play = hand.next_to_play()
        if hand.discard_pending and hand.dealer != to_play:
            lights[hand.dealer] = SeatLight.DISCARD  # 003: a lead came before the discard
        if to_play is not None:
            lights[to_play] = SeatLight.YOUR_PLAY
    return lights


def _alerts(game: Game, last: Sequence[OutputEvent], lights: list[SeatLight]) -> None:
    hand = game.hand
    if hand is not None:
        for spotted in hand.spotted:  # 000: may still be taken back
            lights[spotted[0]] = SeatLight.RENEGE
    for event in last:
        if isinstance(event, RenegeProven | RenegeSpotted):
            lights[event.seat] = SeatLight.RENEGE
        elif (
            isinstance(event, IrregularityFound)
            and event.seat is not None
            and lights[event.seat] is not SeatLight.RENEGE
        ):
            lights[event.seat] = SeatLight.IRREGULARITY


def _light_team(lights: list[SeatLight], team: Team, light: SeatLight) -> None:
    for seat in team.seats:
        lights[seat] = light


__all__ = ["seat_lights"]
