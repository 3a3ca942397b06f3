"""The page's door (web/guard.py, web/roles.py): the operator's PIN, wrong guesses
rate-limited, and the requests the page refused, told to the players and the log.
"""

from __future__ import annotations

import asyncio

from table_controller.table.core import TableCore
from table_controller.table.policy import Refusal
from table_controller.web.guard import Sender
from table_controller.web.pin import Guesses, verify_pin

REFUSALS_QUIET = 10.0  # seconds: one log line per address for refused requests


class PageDoor:
    """Who may be the page's operator, and what was refused at the door. ``extra_pin`` is
    a PIN hash that makes the operator when the config's [web] has none (the kiosk's)."""

    def __init__(self, core: TableCore, *, extra_pin: str = "") -> None:
        self.core = core
        self.extra_pin = extra_pin
        self.guesses = Guesses()  # wrong operator PINs, rate-limited (web/pin.py)
        self._refused_from: dict[str, tuple[float, int]] = {}  # address: (noted at, since)

    def operator_pin_hash(self) -> str:
        """The hash of the PIN that makes the page's operator ("": none)."""
        return self.core.config.web.operator_pin_hash or self.extra_pin

    async def login(self, pin: str, sender: Sender) -> Refusal | None:
        refusal = await self.pin_refusal(pin, self.operator_pin_hash(), f"from {sender.address}")
        if refusal is None:
            self.core.record(
                "notice", f"the operator logged in on the page from {sender.address}", ""
            )
        return refusal

    async def pin_refusal(self, pin: object, stored: str, where: str) -> Refusal | None:
        """Whether ``pin`` is the operator's: None, or why not; wrong PINs are counted
        (``guesses``: a lock after a few) and recorded in the log. The hash is worked in
        a thread, so the table never waits for it."""
        clock = self.core.clock
        wait = self.guesses.wait(clock())
        if wait > 0:
            return ("too many wrong PINs", f"wait {wait:.0f} s before trying again")
        if not stored:
            return ("no operator PIN is set", "set [web] operator_pin_hash in the table's config")
        loop = asyncio.get_running_loop()
        ok = isinstance(pin, str) and await loop.run_in_executor(None, verify_pin, pin, stored)
        if ok:
            self.guesses.succeeded()
            return None
        self.guesses.failed(clock())
        self.core.record("notice", f"a wrong operator PIN {where}", "")
        wait = self.guesses.wait(clock())
        return ("wrong PIN", f"try again in {wait:.0f} s" if wait > 0 else "try again")

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


__all__ = ["REFUSALS_QUIET", "PageDoor"]
