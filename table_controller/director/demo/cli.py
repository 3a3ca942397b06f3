"""``table-controller event demo``: a whole event on this machine (``demo.tournament``).

Starts the broker, the director and the simulated tables; prints the dashboard's and
the public view's addresses and the director's login (its password only here, once);
runs until Ctrl-C or SIGTERM, then stops everything and says where it was kept.
"""

from __future__ import annotations

import argparse
import random
import shlex
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from table_controller.commands import help_of

if TYPE_CHECKING:
    from table_controller.director.demo.tournament import TournamentDemo


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def started_words(demo: TournamentDemo) -> str:
    """What the director reads once everything runs."""
    assert demo.login is not None and demo.folder is not None
    name, password = demo.login
    lines = [
        f"The event demo runs: {len(demo.tables)} simulated "
        f"{'table plays' if len(demo.tables) == 1 else 'tables play'} {demo.rules.words}.",
        "",
        f"  The dashboard:    {demo.dashboard_url}",
        f"    log in as {name}, password {password}",
        "    (the password is shown only here: it is not saved anywhere)",
        f"  The public view:  {demo.public_url}   (for a screen in the hall)",
        "",
    ]
    seats = demo.seating(1)
    for t in demo.tables:
        if t.number <= len(seats):
            lines.append(f"  {t.name} ({', '.join(seats[t.number - 1].values())}): {t.page_url}")
        else:
            lines.append(f"  {t.name} (no match yet; its page opens with its first): {t.page_url}")
    if demo.kind == "rounds":
        lines += [
            "",
            "Each round is seated from the last one's results (001: the winners stay, the "
            "losers move on). The final and any tie-break before it are yours to enter on "
            "the dashboard, under Event.",
        ]
    elif demo.kind == "bracket":
        lines += [
            "",
            f"Each match is best of {demo.best_of} games; a table takes the next match as "
            "soon as both its teams are known.",
        ]
    reneging = [t.name for t in demo.tables if t.renege]
    if reneging:
        lines += [
            "",
            f"At {', '.join(reneging)} a player will renege once a game: its alert shows on "
            "the dashboard, with the pictures that prove it, for you to rule on.",
        ]
    lines += [
        "",
        f"Everything is kept in {demo.folder}",
        "(each run in a folder of its own; an earlier run's event is left as it was).",
        f"Seed {demo.seed} (`--seed {demo.seed}` seats and deals the same event again). "
        "Ctrl-C stops it.",
    ]
    return "\n".join(lines) + "\n"


def stopped_words(demo: TournamentDemo) -> str:
    from table_controller.director.demo.tournament import TITLE

    folder = demo.folder
    database = shlex.quote(demo.database)
    return (
        f"Stopped. Everything was kept in {folder}:\n"
        f"  the director's database: {demo.database}\n"
        f"    (results: table-controller director export --database {database} "
        f"--event {shlex.quote(TITLE)} --out results\n"
        "     they print as provisional until you confirm them final on the dashboard,\n"
        "     under Standings, once every round is in)\n"
        f"  each table's configuration and log: {folder}/tables/\n"
        f"  the broker's files: {folder}/broker/\n"
    )


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.director.demo.tournament import (
        DEMO,
        FAST,
        TournamentDemo,
        TournamentDemoError,
    )

    seed = args.seed if args.seed is not None else random.randrange(100_000)
    try:
        demo = TournamentDemo(
            args.tables,
            port=args.port,
            folder=Path(args.folder) if args.folder else None,
            seed=seed,
            renege=set(args.renege or ()),
            pace=FAST if args.fast else DEMO,
            rounds=args.rounds,
            hands=args.hands,
            kind=args.format,
            points=args.points,
            best_of=args.best_of,
        )
    except TournamentDemoError as exc:
        return _error(str(exc))
    out.write(
        f"Starting the broker, the director and {len(demo.tables)} simulated tables "
        "(a few seconds)...\n"
    )
    out.flush()
    stop = threading.Event()

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    for sig in (signal.SIGINT, signal.SIGTERM):  # even where a shell left SIGINT ignored
        signal.signal(sig, interrupted)
    try:
        demo.start()  # Ctrl-C here stops what had started (start cleans up) and ends
    except TournamentDemoError as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        demo.stop()  # start() stopped what it had started; nothing is left (twice is safe)
        out.write(f"\nStopped before the event started; what it had made is in {demo.folder}\n")
        return 130

    def asked(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, asked)
    out.write("\n" + started_words(demo))
    out.flush()
    try:
        while not stop.wait(0.5):
            dead = [t.name for t in demo.tables if t.process and t.process.poll() not in (None, 0)]
            if dead:
                out.write(
                    f"\n{', '.join(dead)} stopped on its own; what it said is in "
                    f"{demo.folder}/tables/. The rest runs on.\n"
                )
                out.flush()
                for t in demo.tables:
                    if t.name in dead:
                        t.process = None
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C does not cut the stop short
        out.write("\nStopping the tables, the director and the broker...\n")
        out.flush()
        demo.stop()
        out.write(stopped_words(demo))
        out.flush()
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``event`` command group to a ``table-controller`` parser's subparsers."""
    event = subparsers.add_parser(
        "event",
        help=help_of("event"),
        description='A whole event on this machine, to see it working (README, "See an event").',
    )
    sub = event.add_subparsers(dest="event_command", required=True, metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="the broker, the director's dashboard and simulated tables playing an event",
        description="Start a broker with its own passwords, the director's service and "
        "dashboard, and simulated tables (camera, lights and trump cube simulated) playing "
        "an event (progressive, 12-hand team rounds or a knock-out bracket); print the "
        "dashboard's address and a director's login. "
        "Ctrl-C stops everything.",
    )
    demo.add_argument(
        "--tables", type=int, default=4, metavar="N", help="how many tables (default 4, at most 12)"
    )
    demo.add_argument("--port", type=int, default=8090, help="the dashboard's port (default 8090)")
    demo.add_argument(
        "--folder",
        metavar="DIR",
        help="keep each run in a dated folder in DIR (default: "
        "~/.local/state/table-controller/event-demo)",
    )
    demo.add_argument(
        "--seed", type=int, help="the seating's and the deals' seed (default: a new one each time)"
    )
    demo.add_argument(
        "--renege",
        type=int,
        nargs="+",
        action="extend",
        metavar="TABLE_NUMBER",
        help="a player at these tables reneges once a game (e.g. --renege 2)",
    )
    demo.add_argument(
        "--format",
        choices=("progressive", "rounds", "bracket"),
        default="progressive",
        help="progressive (each player scored, 003), rounds (12-hand team rounds, 001) or "
        "bracket (knock-out, best of three, 000); default progressive",
    )
    demo.add_argument("--rounds", type=int, default=3, help="the event's rounds (default 3)")
    demo.add_argument(
        "--hands",
        type=int,
        help="hands a round (default: the format's own, 8 progressive, 12 team rounds)",
    )
    demo.add_argument(
        "--points", type=int, help="a bracket's games are to this many points (default 10)"
    )
    demo.add_argument(
        "--best-of", type=int, default=3, help="a bracket's matches: best of N games (default 3)"
    )
    demo.add_argument("--fast", action="store_true", help="as fast as frames render")
    demo.set_defaults(func=cmd_demo)


__all__ = ["add_commands", "started_words", "stopped_words"]
