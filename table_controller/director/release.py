"""``table-controller director release``: the command's parser, kept free of the
feed's packages (the parser is built for every command; fleet/update.py imports them)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TextIO


def cmd_release(args: argparse.Namespace, out: TextIO) -> int:
    """``table-controller director release [WHEEL] --folder DIR [--status]``."""
    from table_controller.director.fleet import add_release, releases_folder, status_words
    from table_controller.fleet.update import UpdateRefused

    folder = Path(args.folder)
    if args.status or args.wheel is None:
        out.write(status_words(folder) + "\n")
        return 0
    try:
        release = add_release(
            folder, Path(args.wheel), now=time.time(), allow_downgrade=args.allow_downgrade
        )
    except UpdateRefused as e:
        out.write(f"The release was not sent: {e}.\n")
        return 2
    if release.downgrade:
        out.write(
            f"Version {release.version} is sent as a rollback: each table running a newer "
            "version goes back to it (the order says so, signed).\n"
        )
    out.write(
        f"Version {release.version} is in {releases_folder(folder)} and the director "
        "updates the tables one at a time, each when its game is over.\n"
        f"Follow it with: table-controller director release --status --folder {folder}\n"
    )
    return 0


def add_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``director release`` under the ``director`` command group's subparsers."""
    p = sub.add_parser(
        "release",
        help="move every table to a new release (a wheel), one table at a time",
        description="Copy WHEEL (table_controller-VERSION-py3-none-any.whl) into the "
        "director's folder and update every approved table to it, one at a time, each "
        "between games; the director started with `director start --folder DIR` does it. "
        "Without WHEEL, or with --status, say how the last update goes.",
    )
    p.add_argument("wheel", nargs="?", metavar="WHEEL", help="the release's wheel file")
    p.add_argument("--folder", required=True, metavar="DIR", help="the director's folder")
    p.add_argument("--status", action="store_true", help="how the last update goes")
    p.add_argument(
        "--allow-downgrade",
        action="store_true",
        help="send WHEEL even though it is older than the last release or than what a table "
        "runs: a rollback, signed as such; every table running a newer version goes back "
        "to it (without this, the director and the tables refuse an older version)",
    )
    p.set_defaults(func=cmd_release)
