"""The kiosk's attract mode: while nobody plays, four bots play a demo hand on the page
under a "Touch to play" invitation. Virtual cards only; nothing is logged. The demo's
moves are worked out in the kiosk's bot thread, so the page and the camera never wait.
"""

from __future__ import annotations

import asyncio
import logging
import random
from concurrent.futures import ThreadPoolExecutor

from table_controller.bots.knowledge import seat_view
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.cards import DECK
from table_controller.kiosk.bots import cancel
from table_controller.kiosk.port import KioskPart
from table_controller.rules.errors import RulesError
from table_controller.rules.events import DealerChosen, HandDealt, HandStarted, InputEvent
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import SEATS
from table_controller.table.sinks import Shown

log = logging.getLogger(__name__)

BOT_NAMES = ("Ada", "Bix", "Cog", "Dot")


class Attract:
    """The demo hand of ``kiosk``: a move every ``step`` seconds while the kiosk is in
    attract mode, a fresh demo after each hand."""

    def __init__(self, kiosk: KioskPart, step: float, pool: ThreadPoolExecutor) -> None:
        self.kiosk = kiosk
        self.step = step
        self._pool = pool
        self.bot = RuleOfThumbBot()
        self.game: Game | None = None  # the demo's game and what the page shows of it
        self.shown: Shown | None = None
        self._task: asyncio.Future[None] | None = None

    def fresh(self) -> None:
        """A new demo game, its dealer chosen."""
        table = self.kiosk.table
        demo = Game(table.game.rules)
        demo.push(DealerChosen(self.kiosk.rng.choice(SEATS)))
        self.game = demo
        self.shown = Shown(
            table=table.config.name,
            players={s: BOT_NAMES[int(s)] for s in SEATS},  # each marked by its BOT badge
        )

    def start(self) -> None:
        """Play the demo (in the table's event loop), unless it is played already."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    def stop(self) -> None:
        """The demo is over: a visitor came."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self.game = None

    async def close(self) -> None:
        await cancel(self._task)

    def _event(self, demo: Game, rng: random.Random) -> InputEvent:
        """The demo's next event (in the worker thread)."""
        if demo.phase is Phase.DEALING:
            deck = list(DECK)
            rng.shuffle(deck)
            hands = {s: tuple(deck[i * 5 : i * 5 + 5]) for i, s in enumerate(SEATS)}
            return HandDealt(upcard=deck[20], hands=hands)
        seat = demo.to_act
        assert seat is not None
        return self.bot.choose(seat_view(demo, seat), rng)

    async def _run(self) -> None:
        kiosk = self.kiosk
        table = kiosk.table
        loop = asyncio.get_running_loop()
        try:
            while kiosk.mode == "attract":
                await asyncio.sleep(self.step)
                demo, shown = self.game, self.shown
                if demo is None or shown is None or kiosk.mode != "attract":
                    return
                if demo.phase is Phase.OVER or (
                    demo.hands_counted >= 1 and demo.phase is Phase.DEALING
                ):
                    self.fresh()
                    table.drive()
                    continue
                rng = random.Random(kiosk.rng.random())
                event = await loop.run_in_executor(self._pool, self._event, demo, rng)
                if self.game is not demo:
                    continue
                try:
                    outputs = demo.push(event)
                except RulesError:
                    self.fresh()
                    continue
                if any(isinstance(o, HandStarted) for o in outputs):
                    shown.recent = []
                shown.recent.extend(outputs)
                shown.last = list(outputs)
                table.changed()
        except asyncio.CancelledError:
            pass
        except Exception:  # the demo must never take the kiosk down
            log.exception("the kiosk's demo hand failed")


__all__ = ["BOT_NAMES", "Attract"]
