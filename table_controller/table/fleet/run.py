"""A fleet's table running: the table as its own file, its membership of the event and
the director's last config make it (table/fleet/settings.py), and a new config from the
director changes it between games only.

The director's config orders come retained on the table's ``config`` topic, through the
table's one connection to the broker (its Publisher: the broker lets a table's user in
once). Each is checked (fleet/orders.py: the director's key, this table, not older than
the one held) and answered on ``fleet/config``: ``refused`` with the reason in words,
``waiting`` while a game is in play (the players and rules change when the next game
starts), ``applied`` once the table runs with it. Applying it is what the event demo's
tables do between rounds (director/demo/table.py): the table is stopped between two
games and started again from the new config over the same log, so the next game starts
with the new players. A table seated by the event's rounds (``round`` set) starts no
game by itself: the next round's config starts it.

The answer ``applied`` is given when the table, started again, hears its retained
config again (every connection does), so a table that restarts, or whose answer was
lost with the network, says it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from table_controller.fleet.orders import OrderRejected, verify_order
from table_controller.table.config import TableConfig
from table_controller.table.fleet.settings import (
    AppliedConfig,
    FleetError,
    MembershipLike,
    applied_config,
    build,
    load_applied,
    load_membership,
    save_applied,
)

if TYPE_CHECKING:
    from table_controller.table.app import Table

log = logging.getLogger(__name__)

NEVER = 1e9  # seconds: a seated table starts no game by itself; the next round's config does
TableMaker = Callable[[TableConfig, "float | None"], "Table"]  # (config, new_game_after)
CommandTaker = Callable[["Table", dict[str, object]], None]


class StoppedJoining(FleetError):
    """The table was stopped (``systemctl stop``, Ctrl-C) while it waited for the
    director's approval: not a failure. docs/fleet.md has a person stop the service to
    join by hand; the unit must then read "inactive", not "failed"."""


def ensure_membership(
    config: TableConfig, folder: Path, *, say: Callable[[str], None]
) -> MembershipLike:
    """The table's membership of an event, joining first when it has none: the first
    boot of a table's service asks the director itself, showing its code on the page,
    the seat lights and the cube until the director approves it (Ctrl-C or SIGTERM
    stop the wait, in words)."""
    member = load_membership(folder)
    if member is not None:
        return member
    from table_controller.table.fleet.display import join_showing
    from table_controller.table.fleet.join import JoinError, JoinStopped
    from table_controller.table.fleet.join_cli import stopped_by_signals

    stop = threading.Event()
    try:
        with stopped_by_signals(stop):
            pinned = config.fleet.fingerprint if config.fleet is not None else None
            return join_showing(config, folder, fingerprint=pinned, stop=stop, say=say)
    except JoinStopped:
        raise StoppedJoining(
            "Stopped before the director approved this table: start it again to go on "
            "joining (it shows the same code)"
        ) from None
    except JoinError as exc:
        raise FleetError(str(exc)) from None


def between_games(table: Table) -> bool:
    """No game in play: the last one is over, or the one started has no hand dealt."""
    game = table.game
    return table.core.over_since is not None or (game.hand is None and game.last_hand is None)


class FleetRun:
    """Runs the fleet's table: one ``Table`` at a time, made by ``make_table(config,
    new_game_after)`` (None: the maker's own pause between games), started again when
    a new config is applied. ``on_command(table, payload)`` takes the director's
    commands (unverified; None: they are logged and left)."""

    def __init__(
        self,
        local: TableConfig,
        member: MembershipLike,
        *,
        make_table: TableMaker,
        on_command: CommandTaker | None = None,
        clock: Callable[[], float] = time.time,
        poll: float = 0.1,
    ) -> None:
        if local.fleet is None:
            raise FleetError("this table's file has no [fleet]: run it on its own")
        self.local = local
        self.member = member
        self.folder = local.fleet.folder
        self.make_table = make_table
        self.on_command = on_command
        self.clock = clock
        self.poll = poll
        self.applied = load_applied(self.folder)
        self.pending: AppliedConfig | None = None
        self.table: Table | None = None
        self.tables = 0  # how many tables were started (the first, then one per config)
        self._key = member.director_key.encode()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def seq(self) -> int | None:
        """The number of the config applied (None: none yet, the membership's)."""
        return None if self.applied is None else int(self.applied["seq"])

    def config(self) -> TableConfig:
        """The configuration of the config applied; the membership's when that one
        cannot be played here (a damaged copy: the director's comes again)."""
        try:
            return build(self.local, self.member, self.applied)
        except FleetError as exc:
            if self.applied is None:
                raise
            log.warning("fleet: the config kept cannot be used (%s); the membership's is", exc)
            self.applied = None
            return build(self.local, self.member, None)

    async def run(self, stop: asyncio.Event, *, hands: int | None = None) -> None:
        """Run until ``stop`` is set (or a table has played ``hands`` hands)."""
        self._loop = asyncio.get_running_loop()
        fresh = False
        while not stop.is_set():
            config = self.config()
            seated = self.applied is not None and self.applied.get("round") is not None
            table = self.make_table(config, NEVER if seated else None)
            table.feed.on_order = self._from_publisher
            table.feed.config_seq = self.seq  # the fleet view's "Config 3 applied"
            if fresh:
                _fresh_game(table)
            self.table = table
            self.tables += 1
            table_stop = asyncio.Event()
            running = asyncio.create_task(table.run(stop=table_stop, hands=hands))
            waiting = asyncio.create_task(self._until_apply(table, stop))
            done: set[asyncio.Task[None]] = set()
            try:
                done, _ = await asyncio.wait(
                    {running, waiting}, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                waiting.cancel()
                if waiting in done and not stop.is_set():
                    table.feed.offline_at_stop = False  # back at once: no gap at the director
                table_stop.set()
                await running  # a table that failed says why, here
            if stop.is_set() or self.pending is None or waiting not in done:
                return  # stopped, or the table ended by itself (its hands played)
            order, self.pending = self.pending, None
            save_applied(self.folder, order)
            self.applied, fresh = order, True
            log.info("fleet: config %s applied", order["seq"])

    async def _until_apply(self, table: Table, stop: asyncio.Event) -> None:
        """Returns when a new config waits and no game is in play (or at the stop)."""
        while not stop.is_set():
            if self.pending is not None and table.started and between_games(table):
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll)

    # --- the director's orders ---------------------------------------------------------

    def _from_publisher(self, kind: str, payload: Mapping[str, object]) -> None:
        """The publisher's thread: handed over to the table's loop."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: stopping
                loop.call_soon_threadsafe(self.take, kind, payload)

    def take(self, kind: str, payload: Mapping[str, object]) -> None:
        """One order from the director (in the loop): a command handed on, a config
        checked, kept and answered."""
        if kind != "config":  # the camera's are the feed's own (table/fleet/commands.py)
            if self.on_command is not None and self.table is not None:
                self.on_command(self.table, dict(payload))
            return
        held = [o["seq"] for o in (self.applied, self.pending) if o is not None]
        try:
            order = applied_config(
                verify_order(
                    payload,
                    self._key,
                    table=self.member.table,
                    kind="config",
                    now=self.clock(),
                    last_seq=max(held) if held else None,
                )
            )
        except (OrderRejected, FleetError) as exc:  # a verified config always reads as one
            log.warning("fleet: the director's config refused: %s", exc)
            self._answer(payload.get("seq"), "refused", str(exc))
            return
        seq = order["seq"]
        if self.applied is not None and seq == self.applied["seq"]:
            self._answer(seq, "applied", None)
            return
        if self.pending is not None and seq == self.pending["seq"]:
            self._answer(seq, "waiting", None)
            return
        try:
            build(self.local, self.member, order)
        except FleetError as exc:
            self._answer(seq, "refused", str(exc))
            return
        self.pending = order
        table = self.table
        if table is not None:
            table.new_game_after = NEVER  # no game with the old config: the new one starts it
            if not (table.started and between_games(table)):
                self._answer(seq, "waiting", None)

    def _answer(self, seq: object, state: str, problem: str | None) -> None:
        table = self.table
        publisher = table.feed.publisher if table is not None else None
        if publisher is None:
            return  # said again when the retained config comes again
        number = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        publisher.send(
            "config",
            {
                "table": self.member.table,
                "seq": number,
                "state": state,
                "problem": problem,
                "at": self.clock(),
            },
        )


def _fresh_game(table: Table) -> None:
    """After a new config: a game started under the old one and not yet dealt is left
    for a new game with the new players and rules."""
    game, core, config = table.game, table.core, table.config
    if game.hand is not None or game.last_hand is not None or core.over_since is not None:
        return
    record = table.log.last_game()
    same = record is not None and (
        record.players == dict(config.players)
        and record.rules_name == config.rules_name
        and record.options == dict(config.options)
    )
    if not same:
        core.start_game()


async def serve_fleet(runner: FleetRun, out: TextIO, *, hands: int | None) -> None:
    """Run the fleet's table until SIGINT or SIGTERM, saying its page's address when it
    first is up."""
    import signal

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    async def tell_url() -> None:
        while not stop.is_set():
            table = runner.table
            if table is not None and table.url is not None:
                from table_controller.table.page.tls import start_words

                out.write(f"The table page: {table.url} (config from the event's director)\n")
                for line in start_words(table.config, table.url, table.page_tls):
                    out.write(line + "\n")
                out.flush()
                return
            await asyncio.sleep(0.05)

    announcer = asyncio.create_task(tell_url())
    try:
        await runner.run(stop, hands=hands)
    finally:
        announcer.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


__all__ = [
    "NEVER",
    "FleetRun",
    "StoppedJoining",
    "between_games",
    "ensure_membership",
    "serve_fleet",
]
