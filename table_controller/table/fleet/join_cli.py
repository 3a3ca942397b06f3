"""``table-controller join``: a table asks the director of the event on its network to
join, shows its code (its page, seat lights and cube: display.py) until the
director approves it on the dashboard, and keeps what the director gives it in its fleet
folder. The service does the same at its first start; this is the step by hand (where
multicast is blocked: ``--director HOST[:PORT]``; and, to take no other machine for the
director, ``--fingerprint`` with the key fingerprint the director's screen shows).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from table_controller.commands import help_of
from table_controller.errors import TableControllerError

if TYPE_CHECKING:
    from table_controller.table.config import TableConfig

DOCS = "docs/fleet.md"
FLEET_FIX = '[fleet]\nfolder = "fleet"'


class NotInFleet(TableControllerError):
    """The table's file has no [fleet] table: where to write it."""


def fleet_folder(config: TableConfig) -> Path:
    """The folder of the table's ``[fleet] folder`` (the table's config reads it)."""
    if config.fleet is None:
        raise NotInFleet(not_in_fleet(config.source))
    return Path(config.fleet.folder)


def not_in_fleet(source: Path | None) -> str:
    """What to change in a table's own file to join an event, every change at once: the
    ``[fleet]`` to add and each key the director gives that must go (a person fixing one
    line at a time would be refused once for each)."""
    name = str(source or "the table config")
    changes = ["add these two lines:\n" + "\n".join(f"      {x}" for x in FLEET_FIX.splitlines())]
    changes += [f"{fix}: {problem}" for fix, problem in _fleet_refusals(source)]
    lines = [
        f"{name} does not make this table one of an event's fleet ({DOCS}). Change it in "
        f"{_count(len(changes))}, then join again:"
    ]
    lines += [f"  {i}. {change}" for i, change in enumerate(changes, 1)]
    lines.append(
        "Or start from a fleet's table file, which joins as it is: `table-controller config "
        "example --fleet --out fleet-table.toml`, then copy this file's [seats], [camera] "
        "and [cube] into it."
    )
    return "\n".join(lines)


def _count(n: int) -> str:
    return "this one way" if n == 1 else f"these {n} ways"


def _fleet_refusals(source: Path | None) -> list[tuple[str, str]]:
    """(what to do, why) for each key the file would be refused for once in a fleet: the
    file read again with ``[fleet]`` added, every problem taken at once."""
    from table_controller.table.config import FLEET_ALONE, ConfigError, parse_config

    if source is None:
        return []
    try:
        data = tomllib.loads(Path(source).read_text(encoding="utf-8"))
        parse_config({**data, "fleet": {"folder": "fleet"}}, Path(source).parent, str(source))
    except ConfigError as exc:
        return [(p.fix.removesuffix(", " + FLEET_ALONE), p.problem) for p in exc.problems]
    except (OSError, ValueError):
        return []  # it was read a moment ago: the two lines are the change that matters
    return []


@contextlib.contextmanager
def stopped_by_signals(stop: threading.Event) -> Iterator[None]:
    """Ctrl-C and SIGTERM set ``stop`` (the join then ends between two questions)."""
    old = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def cmd_join(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.fleet import discovery
    from table_controller.table.config import load_config
    from table_controller.table.fleet import membership
    from table_controller.table.fleet.display import join_showing
    from table_controller.table.fleet.join import JoinStopped

    config = load_config(args.config)
    folder = fleet_folder(config)
    have = membership.load(folder)
    if have is not None:
        out.write(
            f"This table has joined {have.event} already, as {have.name}. To join another "
            f"event, the director removes it first; then delete {folder} and join again.\n"
        )
        return 0
    pinned = args.fingerprint
    if pinned is not None:
        pinned = discovery.normal_fingerprint(pinned)  # a typo said before anything is asked
    found = discovery.parse_director(args.director) if args.director else None

    def say(words: str) -> None:
        out.write(words + "\n")
        out.flush()

    stop = threading.Event()
    try:
        with stopped_by_signals(stop):
            joined = join_showing(
                config, folder, director=found, fingerprint=pinned, stop=stop, say=say
            )
    except JoinStopped:
        say(
            "Stopped before the director approved this table. Join again at any time: "
            "the table shows the same code."
        )
        return 130
    say(
        f"This table is {joined.name} of {joined.event}. Start it: table-controller run "
        f"--config {args.config} (on a table set up by first-boot.sh: sudo systemctl "
        "restart table-controller)"
    )
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``join`` to a ``table-controller`` parser's subparsers."""
    p = subparsers.add_parser(
        "join",
        help=help_of("join"),
        description=(
            "Ask the director of the event on this network to join it: the table shows "
            "a four-digit code on its page, seat lights and cube until the director "
            f"approves it on the dashboard's Fleet page ({DOCS})."
        ),
    )
    p.add_argument(
        "--config", default="table.toml", metavar="FILE", help="the table's TOML file (table.toml)"
    )
    p.add_argument(
        "--director",
        metavar="HOST[:PORT]",
        help="the director's address, where the network does not carry the director's "
        "announcement (multicast blocked); PORT: the dashboard's, 8090 unless changed",
    )
    p.add_argument(
        "--fingerprint",
        metavar="DIGITS",
        help="the director's key fingerprint as its screen shows it (e.g. \"0412 7731 5820 "
        '0093 6614"): a director with another key is refused',
    )
    p.set_defaults(func=cmd_join)


__all__ = ["NotInFleet", "add_commands", "cmd_join", "fleet_folder", "not_in_fleet"]
