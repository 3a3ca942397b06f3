"""Running `table-controller calibrate ...` in the test's process, as the CLI parses it."""

from __future__ import annotations

import argparse
import io

from table_controller.vision.cli.calibrate_cli import add_commands


def run(argv: list[str]) -> tuple[int, str]:
    """The exit code and what the command printed on stdout."""
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="command", required=True)
    add_commands(sub)
    args = ap.parse_args(argv)
    out = io.StringIO()
    code = args.func(args, out)
    return code, out.getvalue()
