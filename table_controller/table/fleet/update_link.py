"""A fleet table's updates, joined to its feed: the director's ``update`` commands
handed to the update agent (table/fleet/update_agent.py), which runs in a thread of its own,
and the feed's connection confirming a release just switched to.

Why joined to the publisher's listeners and not to the table's loop: an update never
touches the game (it waits for the game's end and reads the table's status only), and
the agent's checks and its pip install must not hold the loop.

Updates work only for a table that runs from a release folder
(``<root>/releases/<version>/``, hardware/first-boot.sh's layout): a table run from a
checkout or a plain install says so to the director in words when asked to update.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

import table_controller
from table_controller.fleet.update import Releases
from table_controller.fleet.update_order import UpdateProgress
from table_controller.table.fleet.membership import Membership
from table_controller.table.fleet.update_agent import AgentOptions, UpdateAgent, download

if TYPE_CHECKING:
    from table_controller.feed.publisher import OrderListener, Publisher
    from table_controller.table.app import Table


Member = Membership  # what the updates need of it: the table, the director's key and address


def release_root(package_file: str | None = None) -> Path | None:
    """The root of the release layout this code runs from (``<root>/releases/<v>/
    table_controller/__init__.py``), or None when it runs from anywhere else."""
    here = Path(package_file or table_controller.__file__).resolve()
    release = here.parent.parent
    if release.parent.name != "releases":
        return None
    return release.parent.parent


def attach(
    publisher: Publisher,
    *,
    table: str,
    director_key: bytes,
    base_url: str,
    status: Callable[[], Mapping[str, object]],
    root: Path | None = None,
    running: str = table_controller.__version__,
    stop: threading.Event | None = None,
    **agent: Unpack[AgentOptions],
) -> UpdateAgent | None:
    """Start the table's update agent on ``publisher`` (before ``publisher.start()``):
    ``base_url`` is the director's dashboard (``http://HOST:PORT``, the membership's),
    ``status`` the table's ``TableCore.status``. None when the table runs from no
    release folder: an update order is then answered as refused, in words."""
    root = root if root is not None else release_root()
    if root is None:
        publisher.on_order = _chain(publisher.on_order, _no_releases(publisher, table))
        return None
    releases = Releases(root)
    worker = UpdateAgent(
        releases, table=table, running=running, base_url=base_url,
        send=lambda body: publisher.send("update", body), status=status,
        director_key=director_key, **agent,
    )  # fmt: skip
    publisher.on_order = _chain(publisher.on_order, worker.on_order)
    inner_state = publisher.on_state

    def state(problem: str | None, fix: str) -> None:  # the publisher's thread
        if inner_state is not None:
            inner_state(problem, fix)
        if problem is None:  # connected: its heartbeat goes out right after
            worker.connected()

    publisher.on_state = state
    threading.Thread(
        target=worker.run, args=(stop or threading.Event(),), name="fleet-update", daemon=True
    ).start()
    return worker


def _chain(first: OrderListener | None, then: OrderListener) -> OrderListener:
    def both(kind: str, payload: dict[str, object]) -> None:
        if first is not None:
            first(kind, payload)
        then(kind, payload)

    return both


def _no_releases(publisher: Publisher, table: str) -> OrderListener:
    def refuse(kind: str, payload: Mapping[str, object]) -> None:
        if kind != "commands" or payload.get("kind") != "update":
            return
        publisher.send(
            "update",
            {
                "table": table, "id": payload.get("id"), "version": payload.get("version"),
                "running": table_controller.__version__, "state": "refused",
                "problem": "this table does not run from a release folder "
                "(/opt/table-controller/releases/VERSION): it was not set up with "
                "hardware/first-boot.sh, so it cannot be updated from the director; "
                "update it by hand, or set it up again with first-boot.sh",
                "at": payload.get("at"),
            },
        )  # fmt: skip

    return refuse


class FleetRunUpdates:
    """The updates of a fleet's table run by table/fleet/run.py's ``FleetRun``, whose
    ``Table`` (and so its feed) is made again at each new config: ``current()`` gives
    the one running (``lambda: run.table``). Give ``on_command`` to the FleetRun (with
    the camera's), then ``start(stop)``. ``agent`` is None when the table runs from no
    release folder (an update order is then refused in words)."""

    def __init__(
        self,
        member: Member,
        *,
        current: Callable[[], Table | None],
        root: Path | None = None,
        running: str = table_controller.__version__,
        **agent: Unpack[AgentOptions],
    ) -> None:
        self.member = member
        self.current = current
        root = root if root is not None else release_root()
        self.agent: UpdateAgent | None = None
        if root is not None:
            if member.ca:  # the wheel comes over HTTPS, checked against the event's CA
                from table_controller.feed.tls import client_context

                # At the address the table reached the director, which the director's
                # certificate need not name (settings.py, the broker's likewise).
                context = client_context(ca_pem=member.ca, check_name=False)
                agent.setdefault("fetch", functools.partial(download, context=context))
            scheme = "https" if member.ca else "http"
            self.agent = UpdateAgent(
                Releases(root), table=member.table, running=running,
                base_url=f"{scheme}://{_host(member.director_host)}:{member.director_port}",
                send=self._send, status=self._status, is_connected=self._connected,
                director_key=member.director_key.encode(), **agent,
            )  # fmt: skip

    def on_command(self, table: Table, payload: dict[str, object]) -> None:
        """FleetRun's ``on_command`` (in the loop): an update command taken, checked."""
        if self.agent is not None:
            self.agent.on_order("commands", payload)
        elif payload.get("kind") == "update" and table.feed.publisher is not None:
            _no_releases(table.feed.publisher, self.member.table)("commands", payload)

    def start(self, stop: threading.Event) -> None:
        if self.agent is not None:
            threading.Thread(
                target=self.agent.run, args=(stop,), name="fleet-update", daemon=True
            ).start()

    def _publisher(self) -> Publisher | None:
        table = self.current()
        return table.feed.publisher if table is not None else None

    def _send(self, body: UpdateProgress) -> None:
        publisher = self._publisher()
        if publisher is not None:
            publisher.send("update", body)

    def _status(self) -> Mapping[str, object]:
        table = self.current()
        # No table running yet: not known to be between games, so no switch.
        return table.core.status() if table is not None else {"phase": "starting"}

    def _connected(self) -> bool:
        publisher = self._publisher()
        return publisher is not None and publisher.connected_event.is_set()


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


__all__ = ["FleetRunUpdates", "attach", "release_root"]
