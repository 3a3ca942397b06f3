"""The evidence of a renege on the running table, as the director will judge it: each
card's event logged at once with the picture of its own frame, then that picture
replaced in the table's log by the first frame's in which the card lay still and clear
of the hand: at least 480 px on its long side, no hand over it.

The simulated table (sim/world.py) lays each card under its player's hand, which
withdraws over three frames: the frame a card is reported in still shows the hand.
Waits are for behaviour, with a guard against a hang; nothing here times anything."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from waiting import until_async

from table_controller.cards import Card
from table_controller.event_log import EventLog
from table_controller.rules.events import CardPlayed, InputEvent, OutputEvent, RenegeProven
from table_controller.seats import Seat
from table_controller.table.app import Table
from table_controller.table.config import demo_config
from table_controller.table.simulated import FAST, simulated_table
from table_controller.vision.evidence import EVIDENCE_MIN_PX
from table_controller.vision.markers import family
from table_controller.vision.synthetic import SKIN

GUARD = 240.0  # seconds: only against a hang


def skin_share(picture: np.ndarray, seat: Seat) -> float:
    """The share of a picture's pixels of ``seat``'s hand's skin (sim/world.py gives
    each seat's player one tone), BGR within 30 levels."""
    tone = np.array(SKIN[int(seat) % len(SKIN)], np.int16)
    near = np.abs(picture.astype(np.int16) - tone).max(axis=2) <= 30
    return float(near.mean())


def decoded(jpeg: bytes) -> np.ndarray:
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None
    return np.asarray(picture)


def test_a_renege_s_cards_are_logged_at_once_then_pictured_clear_and_whole(
    tmp_path: Path,
) -> None:
    config = demo_config(tmp_path)
    # Each card played: its (game, seq), and the log's picture and clearer picture of it
    # at the moment the table acknowledged it (its event durably logged).
    at_ack: dict[tuple[Seat, Card], tuple[int, int, bytes | None, bytes | None]] = {}
    proven: list[RenegeProven] = []
    table: Table

    def ack(game: int, seq: int, event: InputEvent) -> None:
        if isinstance(event, CardPlayed):
            log = table.log
            first, clear = log.evidence(game, seq), log.clear_evidence(game, seq)
            at_ack[(event.seat, event.card)] = (game, seq, first, clear)

    def step(event: InputEvent, outputs: list[OutputEvent]) -> None:
        proven.extend(o for o in outputs if isinstance(o, RenegeProven))

    table = simulated_table(
        config, seed=3, renege=True, pace=FAST, serve_page=False, on_ack=ack, on_step=step
    )

    def both() -> list[tuple[Seat, Card]]:
        made = proven[0]
        return [(made.seat, made.played), (made.seat, made.proof)]

    def clear_of(key: tuple[Seat, Card]) -> Any:
        game, seq, _, _ = at_ack[key]
        return table.log.clear_evidence(game, seq)

    async def run() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(table.run(stop=stop))
        try:
            await until_async("a renege proven", lambda: bool(proven), GUARD)
            await until_async(
                "the clearer pictures of both cards",
                lambda: all(clear_of(key) is not None for key in both()),
                GUARD,
            )
        finally:
            stop.set()
            await asyncio.wait_for(task, GUARD)

    asyncio.run(run())
    assert [p.seat for p in proven] == [made.seat for made in table.players.reneges]
    reader = family("aruco")
    log = EventLog.open_existing(config.log)
    for seat, card in both():
        game, seq, first, clear = at_ack[(seat, card)]
        # Logged at once, with the picture there was then: the clearer one came later.
        assert first is not None and clear is None
        assert skin_share(decoded(first), seat) > 0.05  # its frame: the hand over it
        now = log.evidence(game, seq)
        assert now is not None and now != first
        assert log.first_evidence(game, seq) == first  # kept: the log only grows
        # The picture the director judges: the card clear of the hand, large, whole.
        # (A hand over a card is a tenth of the picture or more; the court cards' cream
        # panel holds a few pixels of the lightest skin's tone.)
        picture = decoded(now)
        assert skin_share(picture, seat) < 0.005
        assert max(picture.shape[:2]) >= EVIDENCE_MIN_PX
        grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
        assert [s.card for s in reader.read(grey)] == [card, card]  # both markers: whole
    # Every card played was logged with a picture; the first of each stays in the log.
    assert all(first is not None for _, _, first, _ in at_ack.values())
    assert all(log.first_evidence(g, s) == first for g, s, first, _ in at_ack.values())
    log.close()
