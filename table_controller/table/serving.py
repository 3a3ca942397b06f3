"""What the commands that run a table share (``run``, ``demo``, ``replay --video``,
``kiosk``): the hand-by-hand narrator, the one way an error is said, and serving a table
until Ctrl-C or SIGTERM. Here, not in run_cli, so the kiosk's command imports it without
importing another command (and neither imports the command line's top)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from table_controller.rules.events import InputEvent, OutputEvent
    from table_controller.table.app import Table

# asyncio, the rules and the narrator load where they are used: every command's parser
# is built with run_cli, which imports this module.


class Narrator:
    """Prints each hand as ``narrate`` tells it, a line as soon as it can be said."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._steps: list[tuple[InputEvent, list[OutputEvent]]] = []
        self._said = 0

    def step(self, event: InputEvent, outputs: list[OutputEvent]) -> None:
        from table_controller.present import narrate
        from table_controller.rules.events import HandStarted

        if any(isinstance(o, HandStarted) for o in outputs):
            self._steps, self._said = [], 0
        self._steps.append((event, list(outputs)))
        lines = list(narrate(self._steps))
        for line in lines[self._said :]:
            self.out.write(line + "\n")
        self._said = len(lines)
        self.out.flush()


def error(message: str) -> int:
    """Say ``message`` on stderr as the commands do; the exit status of a refusal (2)."""
    print(f"error: {message}", file=sys.stderr)
    return 2


async def serve(table: Table, out: TextIO, *, hands: int | None, quiet: bool) -> None:
    """Run ``table`` until SIGINT or SIGTERM (or ``hands`` hands), saying its page's
    address once the page is up (unless ``quiet``)."""
    import asyncio  # loaded by the caller's asyncio.run already
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    async def tell_url() -> None:
        while table.url is None and not stop.is_set():
            await asyncio.sleep(0.05)
        if table.url is not None and not quiet:
            from table_controller.table.page.tls import on_loopback, start_words

            host = table.config.web.host
            reach = "" if on_loopback(host) else f" (open to the network: [web] host = {host})"
            out.write(f"The table page: {table.url}{reach}\n")
            for line in start_words(table.config, table.url, table.page_tls):
                out.write(line + "\n")
            out.flush()

    announcer = asyncio.create_task(tell_url())
    try:
        await table.run(stop=stop, hands=hands)
    finally:
        announcer.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


__all__ = ["Narrator", "error", "serve"]
