"""``table-controller config``: check a table's configuration file, or print the
documented example to start one from.

``config check`` reads the file as ``run`` does, then also looks at the files it names
(the calibration, a recorded camera source, the log's folder), so a director learns of
every mistake before the players sit down. Exit codes follow the CLI: 0 good, 2 a file
that cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from table_controller.commands import help_of
from table_controller.rules.presets import PRESETS
from table_controller.table.config.model import (
    DOCS,
    ConfigError,
    TableConfig,
    check_files,
    load_config,
)
from table_controller.table.config.toml import example_config, fleet_example_config
from table_controller.table.machine import Machine, look_at


def cmd_check(args: argparse.Namespace, out: TextIO, machine: Machine | None = None) -> int:
    """0: the file is good and this machine has every device it names; 1: the file is
    good, but devices it names are not here (``run`` would show each as a fault); 2: a
    file that cannot be used. ``machine``: how to look at the devices (tests)."""
    try:
        config = load_config(args.file)
    except ConfigError as exc:
        return _report(exc)
    problems = check_files(config)
    if problems:
        return _report(ConfigError(problems, args.file))
    findings = look_at(config, machine)
    missing = [f for f in findings if not f.here]
    if not missing:
        out.write(f"{args.file} is good.\n")
    else:
        noun = "device it names is" if len(missing) == 1 else "devices it names are"
        out.write(f"{args.file} is a good file, but {len(missing)} {noun} not on this machine.\n")
    for label, text in summary(config):
        out.write(f"  {label + ':':<9}{text}\n")
    out.write("On this machine:\n")
    for finding in findings:
        first, *more = finding.lines()
        out.write(f"  {finding.device + ':':<9}{first}\n")
        for line in more:
            out.write(f"  {'':<9}{line}\n")
    if missing:
        out.write(
            "`table-controller run` would start with each missing device as a fault on "
            "the table's page.\n"
        )
        return 1
    return 0


def _report(exc: ConfigError) -> int:
    print(str(exc), file=sys.stderr)
    count = len(exc.problems)
    noun = "problem" if count == 1 else "problems"
    print(f"{count} {noun}; every key is explained in {DOCS}.", file=sys.stderr)
    return 2


def summary(config: TableConfig) -> list[tuple[str, str]]:
    """The configuration in a few lines, for the director to read over."""
    options = ", ".join(f"{k} = {v}" for k, v in config.options.items())
    rules = f"{config.rules_name} ({PRESETS[config.rules_name].title})"
    cam = config.camera
    camera = cam.source + (f", calibration {cam.calibration}" if cam.calibration else "")
    if config.cube is None:
        cube = "none"
    elif config.cube.port == "auto":
        cube = "auto (the Pico found on USB)"
    elif config.cube.port == "emulator":
        cube = "emulator (the cube's firmware run on this machine)"
    else:
        cube = config.cube.port
    from table_controller.devices.pins import DEFAULT_PIN_MAP

    pins = "the default map" if config.pins == DEFAULT_PIN_MAP else "from [seats]"
    from table_controller.table.page.tls import on_loopback

    web = config.web
    mine = on_loopback(web.host)
    reach = "this machine only" if mine else "the network"
    port = "a free port" if web.port == 0 else str(web.port)
    operator = "an operator PIN" if web.operator_pin_hash else "no operator PIN"
    if web.tls_cert is not None:
        operator += f", HTTPS with {web.tls_cert}"
    elif mine:
        operator += ", plain HTTP"
    elif web.insecure:
        operator += ", plain HTTP (insecure = true: the PIN and every card in clear)"
    else:
        operator += ", HTTPS with the table's own certificate"
    feed = "off"
    if config.feed.enabled:
        f = config.feed
        feed = f"mqtt://{f.broker}:{f.port}, topic {f.topic}" + (
            f", event {f.event}" if f.event else ""
        )
    players = ", ".join(f"{seat.name} {name}" for seat, name in config.players.items())
    first = f", first dealer {config.first_dealer.name}" if config.first_dealer else ""
    if config.fleet is not None:  # the director gives them
        folder = config.fleet.folder
        given = f"given by the event's director (kept in {folder} once the table joins)"
        own = config.fleet.own_log
        log = str(config.log) if own else f"in {folder}, named after the table's id"
        return [
            ("table", given),
            ("log", log),
            ("rules", given + first),
            ("players", given),
            ("camera", camera),
            ("cube", cube),
            ("pins", f"{pins}, {config.pins.led_wiring.value} lights; gpio {config.gpio}"),
            ("page", f"{web.host}:{port} ({reach}), {operator}"),
            ("feed", "the event's broker, as the director gives it when the table joins"),
        ]
    return [
        ("table", config.name),
        ("log", str(config.log)),
        ("rules", rules + (f"; {options}" if options else "") + first),
        ("players", players),
        ("camera", camera),
        ("cube", cube),
        ("pins", f"{pins}, {config.pins.led_wiring.value} lights; gpio {config.gpio}"),
        ("page", f"{web.host}:{port} ({reach}), {operator}"),
        ("feed", feed),
    ]


def cmd_example(args: argparse.Namespace, out: TextIO) -> int:
    if getattr(args, "fleet", False):
        then = (
            "edit its pins, camera and cube, then join the event: "
            f"`table-controller join --config {args.out}` (docs/fleet.md)"
        )
        return write_example(fleet_example_config(), args.out, out, then)
    then = f"edit it, then `table-controller config check {args.out}`"
    return write_example(example_config(), args.out, out, then)


def write_example(text: str, out_file: str | None, out: TextIO, then: str) -> int:
    """Print ``text``, or write it to ``out_file`` when it does not exist yet (a file of
    the reader's is never overwritten), saying ``then``: what to do next. Shared by every
    ``... config example`` (the table's, the director's)."""
    if out_file is None:
        out.write(text)
        return 0
    path = Path(out_file)
    if path.exists():
        print(
            f"error: {path} exists and is kept as it is: give another --out name, "
            "or delete it first",
            file=sys.stderr,
        )
        return 2
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {path} ({exc.strerror}): choose another place", file=sys.stderr)
        return 2
    out.write(f"wrote {path}: {then}\n")
    return 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``config`` command group to a ``table-controller`` parser's subparsers."""
    config = subparsers.add_parser(
        "config",
        help=help_of("config"),
        description=f"The table's configuration (TOML); every key is in {DOCS}.",
    )
    sub = config.add_subparsers(dest="config_command", required=True, metavar="COMMAND")
    check = sub.add_parser("check", help="check a configuration file and the files it names")
    check.add_argument("file", metavar="FILE", help="the table's TOML file")
    check.set_defaults(func=cmd_check)
    example = sub.add_parser("example", help="print the documented example configuration")
    example.add_argument("--out", metavar="FILE", help="write it to FILE (never overwritten)")
    example.add_argument(
        "--fleet",
        action="store_true",
        help="a table of an event's fleet, which joins the director (docs/fleet.md): "
        "without the name, rules, players and broker the director gives",
    )
    example.set_defaults(func=cmd_example)


__all__ = ["add_commands", "summary", "write_example"]
