"""The kiosk's bots: each plays its seat from what that seat may see (bots/knowledge.py),
in a worker thread so the page and the camera never wait, and hands its choice to the
table like any input (source "bot"). A choice the table refuses is never a wedge: the
bot then plays any legal event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from table_controller.bots.knowledge import seat_view_from
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.strong import StrongBot
from table_controller.kiosk.port import KioskPart
from table_controller.rules.events import InputEvent
from table_controller.rules.hand import HAND_PHASES, Phase
from table_controller.seats import Seat
from table_controller.table.noticed import BotMoved

log = logging.getLogger(__name__)


class KioskBots:
    """The bots of ``kiosk``'s bot seats, playing as ``bot`` (the rule-of-thumb bot takes
    the remedy for a bid out of turn)."""

    def __init__(
        self, kiosk: KioskPart, bot: StrongBot | RuleOfThumbBot, pool: ThreadPoolExecutor
    ) -> None:
        self.kiosk = kiosk
        self.bot = bot
        self.remedy_bot = RuleOfThumbBot()
        self._pool = pool
        self._task: asyncio.Future[None] | None = None
        self._asked: tuple[int, int] | None = None  # (game, log length) a bot answered
        self._refused: tuple[int, int] | None = None

    def to_act(self) -> Seat | None:
        """The bot's seat that decides now, if any."""
        kiosk = self.kiosk
        game = kiosk.table.game
        if game.phase not in HAND_PHASES:  # no decision for a bot to make
            return None
        seat = game.to_act
        hand = game.hand
        if game.phase is Phase.CHOOSING_REMEDY and hand is not None and hand.offender is not None:
            # A bid out of turn: the other side chooses the remedy; bots only if no
            # visitor sits on that side (a visitor touches the choice on the page).
            side = hand.offender.team.other.seats
            if any(s in kiosk.visitors for s in side):
                return None
            seat = side[0]
        if seat is None or seat in kiosk.visitors:
            return None
        if hand is None or hand.known[seat] is None:
            return None
        return seat

    def refused(self) -> None:
        """The table refused the bot's last choice: at this point it plays any legal one."""
        table = self.kiosk.table
        self._refused = (table.game_no, len(table.game.log))
        self._asked = None

    def schedule(self) -> None:
        """Ask the bot to act, if one is to act and is not asked already."""
        kiosk = self.kiosk
        table = kiosk.table
        if not table.started or kiosk.mode != "play" or self._task is not None:
            return
        if table.stopping:
            return
        seat = self.to_act()
        if seat is None or kiosk.blind():
            return
        at = (table.game_no, len(table.game.log))
        if at == self._asked:
            return
        self._task = asyncio.ensure_future(self._move(seat, at))

    def choose(self, log: list[InputEvent], seat: Seat, rng: random.Random) -> InputEvent:
        """A bot's decision, in the worker thread, from a copy of the log."""
        view = seat_view_from(self.kiosk.table.config.rules, seat, log)
        if view.game.phase is Phase.CHOOSING_REMEDY:
            return self.remedy_bot.choose(view, rng)  # the rule-of-thumb bot takes it
        return self.bot.choose(view, rng)

    async def close(self) -> None:
        await cancel(self._task)

    async def _move(self, seat: Seat, at: tuple[int, int]) -> None:
        loop = asyncio.get_running_loop()
        kiosk = self.kiosk
        table = kiosk.table
        try:
            await asyncio.sleep(kiosk.settings.bot_pace)
            if (table.game_no, len(table.game.log)) != at or kiosk.mode != "play" or kiosk.blind():
                return
            rng = random.Random(kiosk.rng.random())
            legal = table.game.legal_events()
            if at == self._refused and legal:  # its own choice was refused: any legal one
                event: InputEvent = legal[0]
            else:
                event = await loop.run_in_executor(
                    self._pool, self.choose, list(table.game.log), seat, rng
                )
            if (table.game_no, len(table.game.log)) != at or kiosk.mode != "play":
                return
            self._asked = at
            table.submit(BotMoved(event))
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("the bot at %s failed", seat)
        finally:
            self._task = None
            loop.call_soon(self.schedule)


async def cancel(task: asyncio.Future[Any] | None) -> None:
    """Cancel ``task`` (if any) and wait until it has stopped, whatever it raised."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


__all__ = ["KioskBots"]
