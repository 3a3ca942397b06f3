"""Games written into a table's event log for the hand review's tests: a simulated game
(every hand dealt and known, as at a kiosk), a transcript as a live table logged it
(only the cards played seen), and a game cut while a hand is in play."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from pathlib import Path

from table_controller.event_log import EventLog
from table_controller.rules.events import CardPlayed, HandStarted, InputEvent, OutputEvent
from table_controller.rules.presets import preset
from table_controller.seats import Seat
from table_controller.simulate import play
from table_controller.transcript import load

PLAYERS = {Seat.N: "Ann", Seat.E: "Bob", Seat.S: "Cy", Seat.W: "Di"}
TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


Played = list[tuple[InputEvent, list[OutputEvent]]]


def simulated(seed: int, rules: str = "td-tournament") -> Played:
    """A whole game of random legal play, every hand dealt and known."""
    return list(play(preset(rules), random.Random(seed)))


def write(
    log: EventLog,
    events: Iterable[InputEvent],
    rules: str = "td-tournament",
    *,
    options: dict[str, object] | None = None,
    pictures: bool = False,
) -> int:
    """The events appended as a table logs them; the game's number in the log. With
    ``pictures`` every card played is logged with a (small, real) PNG as its evidence."""
    game = log.start_game(rules, dict(options or {}), PLAYERS)
    for seq, event in enumerate(events, 1):
        png = _png(seq) if pictures and isinstance(event, CardPlayed) else None
        log.append(game, seq, event, source="sim", evidence=png)
    return game


def in_play(steps: list[tuple[InputEvent, list[OutputEvent]]], hand: int, cards: int) -> int:
    """How many events run to ``cards`` cards into hand ``hand`` (so the hand is in
    play, some of its cards laid and the rest still held)."""
    started = False
    laid = 0
    for n, (event, outputs) in enumerate(steps, 1):
        if any(isinstance(o, HandStarted) and o.hand == hand for o in outputs):
            started = True
        if started and isinstance(event, CardPlayed):
            laid += 1
            if laid == cards:
                return n
    raise AssertionError(f"hand {hand} never reached {cards} cards")


def ended_before(steps: list[tuple[InputEvent, list[OutputEvent]]], hand: int) -> int:
    """How many events run until just before hand ``hand`` is dealt."""
    for n, (_, outputs) in enumerate(steps):
        if any(isinstance(o, HandStarted) and o.hand == hand for o in outputs):
            return n
    raise AssertionError(f"hand {hand} was never dealt")


def transcript_events(name: str) -> tuple[str, list[InputEvent]]:
    t = load(TRANSCRIPTS / name)
    return t.rules_name or "td-tournament", t.events


def _png(seq: int) -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (8, 8), (seq % 256, 80, 40)).save(out, "PNG")
    return out.getvalue()


def review_data(html: str) -> dict[str, object]:
    """The review's data, as the document's script reads it."""
    m = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', html, re.S)
    assert m is not None, "the document holds no review data"
    data = json.loads(m.group(1))
    assert isinstance(data, dict)
    return data
