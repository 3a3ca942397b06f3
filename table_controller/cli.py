"""The ``table-controller`` command.

Every failure prints what went wrong and what to do, and exits non-zero: 1 for a game
the rules cannot play (an impossible event), 2 for input that cannot be read.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from table_controller import __version__
from table_controller.clip import clip
from table_controller.commands import GROUPS
from table_controller.errors import TableControllerError
from table_controller.extras import missing_message
from table_controller.logs import configure
from table_controller.rules.errors import RulesError
from table_controller.rules.presets import PRESETS, preset
from table_controller.rules.sources import text_title
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.table import run_cli
from table_controller.transcript import DEFAULT_PRESET, TranscriptError, load, replay


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(
                f"error: --option {clip(pair)}: write it as KEY=VALUE, e.g. points_to_win=11"
            )
        try:
            options[key] = loads_limited(value)
        except JSONLimitError:  # a word such as award_and_end, or a number too long
            options[key] = value
    return options


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.present import narrate  # here: other commands start without it
    from table_controller.rules.codec import encode

    if args.video:
        from table_controller.table.run_cli import cmd_replay_video

        return cmd_replay_video(args, out)
    if args.file is None:
        print("error: give a transcript to replay, or --video DIR", file=sys.stderr)
        return 2
    try:
        transcript = load(args.file)
        opts = {**transcript.options, **_options(args.option)}
        name = args.rules or transcript.rules_name or DEFAULT_PRESET
        rules = preset(name, opts)
    except TranscriptError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RulesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    steps = []
    try:
        for step, outputs in replay(transcript, rules):
            if args.pretty:
                steps.append((step.event, outputs))
            else:
                for o in outputs:
                    out.write(json.dumps(encode(o)) + "\n")
    except TranscriptError as exc:
        if args.pretty:
            for line in narrate(steps):
                out.write(line + "\n")
        out.flush()
        print(f"error: {exc}", file=sys.stderr)
        print("The events before that line were replayed; fix or remove it.", file=sys.stderr)
        return 1
    if args.pretty:
        print(f"Rules: {name} ({PRESETS[name].title})", file=out)
        for line in narrate(steps):
            out.write(line + "\n")
    return 0


def cmd_rules_list(args: argparse.Namespace, out: TextIO) -> int:
    width = max(len(n) for n in PRESETS)
    for name, p in PRESETS.items():
        out.write(f"{name:<{width}}  {p.title}\n")
    return 0


def cmd_rules_show(args: argparse.Namespace, out: TextIO) -> int:
    p = PRESETS.get(args.preset)
    if p is None:
        print(
            f"error: unknown rule preset {args.preset!r}; presets: " + ", ".join(PRESETS),
            file=sys.stderr,
        )
        return 2
    if args.json:
        doc = {
            "name": p.name,
            "title": p.title,
            "source": p.source,
            "source_title": text_title(p.source),
            "options": p.rules.options(),
        }
        out.write(json.dumps(doc, indent=2) + "\n")
        return 0
    out.write(
        f"{p.name}: {p.title}\nrule text: {text_title(p.source)}\n\n{p.summary}\n\n"
        "options (as a table's config takes them, under [rules.options]):\n"
    )
    for key, value in p.rules.options().items():
        # TOML has no null: the config reads "none" as an empty option.
        out.write(f"  {key} = {json.dumps('none' if value is None else value)}\n")
    return 0


def parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command's parser. Given the command line ``argv``, only the group it runs is
    loaded (the others are listed in ``--help`` from ``commands.GROUPS``); with None,
    every group, as tests and documentation tools want."""
    ap = argparse.ArgumentParser(
        prog="table-controller", description="The smart Euchre table's controller."
    )
    ap.add_argument("--version", action="version", version=f"table-controller {__version__}")
    ap.add_argument(
        "-v", "--verbose", action="count", default=0, help="say more (twice: libraries too)"
    )
    ap.add_argument("-q", "--quiet", action="count", default=0, help="say only errors")
    sub = ap.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay", help="replay a transcript (or, with --video, a recorded table session)"
    )
    rp.add_argument("file", nargs="?", help="a transcript (JSON Lines of input events)")
    rp.add_argument("--rules", help="rule preset (default: the transcript's, else td-tournament)")
    rp.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="change a rule option"
    )
    rp.add_argument("--pretty", action="store_true", help="print the game for people")
    run_cli.add_replay_video(rp)
    rp.set_defaults(func=cmd_replay)
    rules = sub.add_parser("rules", help="the rule presets")
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    rsub.add_parser("list", help="list the presets").set_defaults(func=cmd_rules_list)
    show = rsub.add_parser("show", help="show a preset and its options")
    show.add_argument("preset")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=cmd_rules_show)
    run_cli.add_demo(sub)
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for name, (module, help_line) in GROUPS.items():
        if wanted is None or wanted == name:
            importlib.import_module(module).add_commands(sub)
        else:
            sub.add_parser(name, help=help_line)  # listed in --help; loaded when it runs
    return ap


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    line = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser(line).parse_args(line)
        configure(args.verbose - args.quiet)
        stream = out if out is not None else sys.stdout
        code: int = args.func(args, stream)
    except BrokenPipeError:  # e.g. piped into head
        return 0
    except TableControllerError as exc:  # refused in words (extras.MissingExtra too)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # a package of an extra this install left out
        words = missing_message(exc.name, next((a for a in line if a[:1] != "-"), None))
        if words is None:
            raise
        print(f"error: {words}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    raise SystemExit(main())
