"""The page's door (web/guard.py, web/roles.py): the operator's PIN, wrong guesses
rate-limited, and the requests the page refused, told to the players and the log.

Wrong PINs are braked per address (a few free, then a lock doubling up to 10 minutes),
and all of them together only by a short slow-down, so a visitor guessing from their
phone cannot keep the operator out (it once could: one count for the whole table). An
address the operator got in from before passes the slow-down; the kiosk's own keypad
counts as an address of its own.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from table_controller.table.core import TableCore
from table_controller.table.noticed import Refusal
from table_controller.throttle import Key, Rule, Throttle, address_key
from table_controller.web.guard import Sender
from table_controller.web.pin import verify_pin

REFUSALS_QUIET = 10.0  # seconds: one log line per address for refused requests
KIOSK = "the kiosk"  # the kiosk's own keypad, counted as an address of its own


def pin_throttle(
    clock: Callable[[], float], *, free: int = 3, lock: float = 30.0, longest: float = 600.0
) -> Throttle:
    """The brakes on wrong PINs: per address ``free`` wrong, then ``lock`` s doubling up
    to ``longest``; every address together after 30 within two minutes, at most 30 s."""
    return Throttle(
        {
            "address": Rule(free, lock, longest, 2 * longest + 3600.0),
            "everywhere": Rule(30, 1.0, 30.0, 120.0),
        },
        most=2000,
        clock=clock,
    )


class PageDoor:
    """Who may be the page's operator, and what was refused at the door. ``extra_pin`` is
    a PIN hash that makes the operator when the config's [web] has none (the kiosk's)."""

    def __init__(self, core: TableCore, *, extra_pin: str = "") -> None:
        self.core = core
        self.extra_pin = extra_pin
        self.guesses = pin_throttle(core.clock)  # wrong operator PINs, rate-limited
        self._refused_from: dict[str, tuple[float, int]] = {}  # address: (noted at, since)

    def operator_pin_hash(self) -> str:
        """The hash of the PIN that makes the page's operator ("": none)."""
        return self.core.config.web.operator_pin_hash or self.extra_pin

    async def login(self, pin: str, sender: Sender) -> Refusal | None:
        refusal = await self.pin_refusal(
            pin, self.operator_pin_hash(), f"from {sender.address}", sender.address
        )
        if refusal is None:
            self.core.record(
                "notice", f"the operator logged in on the page from {sender.address}", ""
            )
        return refusal

    @staticmethod
    def _keys(address: str) -> list[Key]:
        return [("address", address_key(address)), ("everywhere", "")]

    def pin_wait(self, address: str = KIOSK) -> float:
        """Seconds before a PIN from ``address`` is heard (0: now)."""
        keys = self._keys(address)
        if self.guesses.trusted(keys[0]):
            keys = keys[:1]
        return self.guesses.wait(keys)[0]

    async def pin_refusal(
        self, pin: object, stored: str, where: str, address: str = KIOSK
    ) -> Refusal | None:
        """Whether ``pin`` is the operator's: None, or why not; wrong PINs are counted per
        ``address`` (a lock after a few, see the module) and recorded in the log. A try
        counts as wrong from its start, so parallel guesses cannot all slip in. The hash
        is worked in a thread, so the table never waits for it."""
        wait = self.pin_wait(address)
        if wait > 0:
            return ("too many wrong PINs", f"wait {math.ceil(wait)} s before trying again")
        if not stored:
            return ("no operator PIN is set", "set [web] operator_pin_hash in the table's config")
        keys = self._keys(address)
        self.guesses.failed(keys)
        loop = asyncio.get_running_loop()
        ok = isinstance(pin, str) and await loop.run_in_executor(None, verify_pin, pin, stored)
        if ok:
            self.guesses.forgive(keys[:1])
            self.guesses.undo(keys[1:])
            self.guesses.trust(keys[0])
            return None
        self.core.record("notice", f"a wrong operator PIN {where}", "")
        wait = self.pin_wait(address)
        return ("wrong PIN", f"try again in {math.ceil(wait)} s" if wait > 0 else "try again")

    def refused(self, sender: Sender, problem: str) -> None:
        """A request the page refused at its door: a notice on the page and a line in the
        log, so the players and the director see someone tried. One line per address per
        ``REFUSALS_QUIET`` s (the others counted in the next), so a flood fills no disk."""
        now = self.core.clock()
        address = sender.address
        noted = self._refused_from.get(address)
        if noted is not None and now - noted[0] < REFUSALS_QUIET:
            self._refused_from[address] = (noted[0], noted[1] + 1)
            return
        if len(self._refused_from) >= 1000:
            self._refused_from.clear()
        self._refused_from[address] = (now, 0)
        more = f" (and {noted[1]} more before)" if noted is not None and noted[1] else ""
        text = f"the page refused a request from {address}: {problem}{more}"
        self.core.notice("refused", None, text, "the director can see it in the log")
        self.core.record("notice", text, "")
        self.core.changed()


__all__ = ["KIOSK", "REFUSALS_QUIET", "PageDoor", "pin_throttle"]
