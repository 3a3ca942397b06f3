"""``table-controller kiosk``: the kiosk (docs/kiosk.md).

``kiosk --config TABLE.toml`` runs a real table as a kiosk (visitors at the seats of
``[kiosk] visitors``, bots at the others); ``kiosk --simulated`` runs it on this machine
over the simulated table, with a simulated visitor (``--no-visitor``: nobody comes, the
attract mode plays); ``kiosk pin`` asks for the operator's PIN and prints the line for
the config.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from table_controller.commands import help_of
from table_controller.table.serving import error

if TYPE_CHECKING:
    from table_controller.table.config import TableConfig

DEMO_PIN = "2468"


def cmd_kiosk(args: argparse.Namespace, out: TextIO) -> int:
    if args.what == "pin":
        return _pin(args, out)
    from table_controller.event_log import LogError
    from table_controller.kiosk.kiosk import KioskError, KioskTable
    from table_controller.table.config import ConfigError, load_config
    from table_controller.table.serving import Narrator, serve
    from table_controller.table.simulated import DEMO, FAST
    from table_controller.web.server import PageError

    options: dict[str, Any] = {}
    if args.narrate:
        options["on_step"] = Narrator(out).step
    try:
        if args.simulated:
            folder = Path(args.log_dir or tempfile.mkdtemp(prefix="kiosk-demo-"))
            folder.mkdir(parents=True, exist_ok=True)
            config = simulated_config(folder, port=args.port, fast=args.fast)
            from table_controller.kiosk.visitor import simulated_kiosk

            table, _, _ = simulated_kiosk(
                config,
                seed=args.seed,
                renege=args.renege,
                pace=FAST if args.fast else DEMO,
                visitors=not args.no_visitor,
                **options,
            )
            out.write(simulated_banner(config, visitor=not args.no_visitor))
        else:
            if not args.config:
                return error("give the table's config (--config FILE), or --simulated")
            config = load_config(args.config)
            if not config.kiosk.pin_hash:
                return error(
                    "the kiosk needs an operator PIN: run `table-controller kiosk pin` and "
                    "put the line it prints under [kiosk] in " + str(args.config)
                )
            if config.camera.source.split(",")[0] == "synthetic":
                return error("a synthetic camera is the simulated kiosk: use --simulated")
            table = KioskTable(config, **options)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except (LogError, KioskError) as exc:
        return error(str(exc))
    try:
        asyncio.run(serve(table, out, hands=args.hands, quiet=False))
    except PageError as exc:
        return error(str(exc))
    if table.kiosk.exited:
        out.write("The operator closed the kiosk.\n")
    out.write(f"The log: {config.log}\n")
    return 0


def simulated_banner(config: TableConfig, *, visitor: bool) -> str:
    """What ``kiosk --simulated`` says it runs: a simulated visitor and the bots, or (with
    ``--no-visitor``) nobody at the visitors' seats and the bots' demo hands."""
    from table_controller.present import SEAT_NAMES
    from table_controller.seats import SEATS

    visitors = config.kiosk.visitors
    at = _and([SEAT_NAMES[s] for s in visitors])
    bots = _and([SEAT_NAMES[s] for s in SEATS if s not in visitors])
    if visitor:
        told = (
            f"The simulated kiosk: a simulated visitor plays real cards at {at}, bots play {bots}."
        )
    else:
        told = (
            f"The simulated kiosk with no visitor: nobody sits at {at}, so the attract mode "
            "plays: bots in all four seats play demo hands on the page (not logged). A touch "
            f"on the page starts a real game that waits for a visitor at {at}; nobody comes, "
            f"so after {config.kiosk.walk_away:g} s it ends and the demo plays again."
        )
    told += f" The operator's PIN is {DEMO_PIN}. Ctrl-C stops it."
    return textwrap.fill(told, width=88) + "\n"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def simulated_config(folder: Path, *, port: int = 0, fast: bool = False) -> TableConfig:
    """The simulated kiosk's config, its log in ``folder`` (the same folder: the same
    log, resumed). ``fast``: the bots do not pause either."""
    from table_controller.table.config import parse_config
    from table_controller.web.pin import hash_pin

    kiosk: dict[str, Any] = {
        "pin_hash": hash_pin(DEMO_PIN),
        "attract_after": 20.0,
        "walk_away": 90.0,
    }
    if fast:
        kiosk.update(bot_pace=0.05, think_time=0.02)
    return parse_config(
        {
            "table": {"name": "Kiosk", "gpio": "mock", "log": "kiosk.sqlite"},
            "camera": {"source": "synthetic"},
            "cube": {"port": "emulator"},
            "web": {"host": "127.0.0.1", "port": port},
            "kiosk": kiosk,
        },
        folder,
        "<kiosk demo>",
    )


def _pin(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.web.pin import hash_pin

    if args.pin_stdin:
        pin = sys.stdin.readline().strip()
        again = pin
    else:
        pin = getpass.getpass("The operator's PIN (4 to 12 digits): ")
        again = getpass.getpass("Again: ")
    if pin != again:
        return error("the two PINs differ: nothing was written")
    try:
        line = hash_pin(pin)
    except ValueError as exc:
        return error(str(exc))
    out.write(f'pin_hash = "{line}"\n')
    return 0


def add_commands(subparsers: Any) -> None:
    kiosk = subparsers.add_parser(
        "kiosk",
        help=help_of("kiosk"),
        description="Run a table as a kiosk (docs/kiosk.md), or make the operator's PIN.",
    )
    kiosk.add_argument(
        "what", nargs="?", choices=("run", "pin"), default="run", help="pin: hash a PIN"
    )
    kiosk.add_argument("--config", metavar="FILE", help="the table's TOML file")
    kiosk.add_argument("--simulated", action="store_true", help="the simulated kiosk")
    kiosk.add_argument(
        "--no-visitor",
        action="store_true",
        help="(simulated) nobody comes: bots in all four seats play the attract mode's demo",
    )
    kiosk.add_argument("--renege", action="store_true", help="(simulated) the visitor reneges")
    kiosk.add_argument("--seed", type=int, default=0, help="(simulated) the seed")
    kiosk.add_argument(
        "--fast",
        action="store_true",
        help="(simulated) frames as fast as they render, bots without pauses",
    )
    kiosk.add_argument("--port", type=int, default=0, help="(simulated) the page's port")
    kiosk.add_argument("--log-dir", metavar="DIR", help="(simulated) keep the log here")
    kiosk.add_argument("--hands", type=int, metavar="N", help="stop after N hands")
    kiosk.add_argument("--narrate", action="store_true", help="print the game as it is played")
    kiosk.add_argument("--pin-stdin", action="store_true", help="(pin) read the PIN from stdin")
    kiosk.set_defaults(func=cmd_kiosk)


__all__ = ["add_commands", "cmd_kiosk", "simulated_banner", "simulated_config"]
