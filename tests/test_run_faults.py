"""What the running table tells people to do names only real things: every command in
a fault's words parses with the real ``table-controller`` parser, no option stands alone
without its command (``--simulated`` belongs to ``seats test``, not to ``run``), and
every config key it says to write is one the config takes.

Checked twice: on a table started on a machine with none of its devices (the three
faults a newcomer sees on a laptop), and over every message of the modules whose words
reach the table's faults."""

from __future__ import annotations

import ast
import asyncio
import re
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import serial.tools.list_ports

from table_controller.cli import parser
from table_controller.table.app import Table
from table_controller.table.config import parse_config
from table_controller.table.health import Device
from table_controller.table.options import TableOptions
from table_controller.vision.layout import Calibration

ROOT = Path(__file__).resolve().parents[1]
TICK = re.compile(r"`([^`\n]+)`")
KEY = re.compile(r'\[(\w+)\] (\w+) = ("[^"]*"|[\w.]+)')
BARE_OPTION = re.compile(r"(?<![\w-])--[a-z]")
GUARD = 120.0  # seconds: only against a hang

# The modules whose words reach the table's faults (problem and what to do).
FAULT_WORDS = [
    "table/app.py",
    "table/camera_watch.py",
    "table/devices.py",
    "table/machine.py",
    "devices/gpio.py",
    "devices/cube_backend.py",
    "devices/cube_link.py",
    "vision/camera.py",
    "vision/calibration.py",
    "vision/layout.py",
    "feed/publisher.py",
    "feed/tls.py",
]


def wrong_suggestions(text: str, *, alone: bool = True) -> list[str]:
    """What in ``text`` names a command, option or key that is not real. ``alone``: the
    text is read where no command is at hand (a fault), so an option outside a command
    line is wrong too (a command's own error may name its own options)."""
    wrong = []
    cli = parser()
    for span in TICK.findall(text):
        words = shlex.split(span, posix=True) if span.count('"') % 2 == 0 else span.split()
        if span.startswith("-"):
            wrong.append(f"`{span}`: an option without its command")
        elif words and words[0] == "table-controller":
            try:
                cli.parse_args(words[1:])
            except SystemExit:
                wrong.append(f"`{span}`: not a table-controller command line")
    if alone:
        for option in BARE_OPTION.findall(TICK.sub("", text)):
            wrong.append(f"{option}... outside a command: whose option is it?")
    data: dict[str, dict[str, object]] = {"table": {"name": "T"}}
    for section, key, value in KEY.findall(text):
        data.setdefault(section, {})[key] = value.strip('"') if value[0] == '"' else value
    try:
        parse_config(data, ROOT)
    except ValueError as exc:
        wrong.append(f"a config key the config does not take: {exc}")
    return wrong


def test_the_checker_catches_what_the_newcomer_hit() -> None:
    assert wrong_suggestions("use simulated pins (`--simulated` for the seats commands)")
    assert wrong_suggestions("pass --simulated to try it")
    assert wrong_suggestions("export it with `table-controller log export`")  # no LOG
    assert wrong_suggestions('set [table] gpio = "pi"')
    assert not wrong_suggestions(
        'try `table-controller seats test --simulated`, or [table] gpio = "mock"'
    )


def test_a_table_on_a_machine_without_its_devices_says_only_real_things(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This machine, as a laptop is: no picamera2, no pin library, no cube on USB.
    for name in ("picamera2", "lgpio", "RPi", "RPi.GPIO", "gpiozero.pins.lgpio"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.rpigpio", None)
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda *a, **k: [])
    Calibration((1280, 720), np.diag([0.5, 0.5, 1.0])).save(tmp_path / "calibration.json")
    config = parse_config(
        {
            "table": {"name": "Club Night 3", "log": "table.sqlite"},  # gpio "auto"
            "camera": {"source": "picamera2", "calibration": "calibration.json"},
            "cube": {"port": "auto"},
        },
        tmp_path,
    )
    later = [0.0]  # the table's clock jumps past the cube's grace once it runs
    table = Table(
        config,
        TableOptions(clock=lambda: time.monotonic() + later[0], serve_page=False, check_every=0.05),
    )
    wanted = {Device.CAMERA, Device.SEATS, Device.CUBE}

    async def body() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(table.run(stop=stop))
        try:
            deadline = time.monotonic() + GUARD
            while not table.started:
                assert time.monotonic() < deadline, "the table never started"
                await asyncio.sleep(0.02)
            later[0] = 60.0
            while {f.device for f in table.health.faults} < wanted:
                assert time.monotonic() < deadline, f"only {table.health.faults}"
                await asyncio.sleep(0.02)
        finally:
            stop.set()
            await asyncio.wait_for(task, GUARD)

    asyncio.run(body())
    faults = {f.device: f for f in table.health.faults}
    assert "picamera2 is not installed" in faults[Device.CAMERA].problem
    assert "[camera] source" in faults[Device.CAMERA].fix
    assert '[table] gpio = "mock"' in faults[Device.SEATS].fix
    assert '[cube] port = "none"' in faults[Device.CUBE].fix
    for fault in faults.values():
        said = f"{fault.problem} -- {fault.fix}"
        assert wrong_suggestions(said) == [], said


def _messages(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are not docstrings (an f-string's fields as 1)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    parts_of = {
        id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in docs or id(node) in parts_of:
            continue
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) else "1" for v in node.values]
            found.append((node.lineno, "".join(str(p) for p in parts)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


@pytest.mark.parametrize("module", FAULT_WORDS)
def test_every_command_a_fault_may_name_is_real(module: str) -> None:
    path = ROOT / "table_controller" / module
    wrong = [
        f"{module}:{line}: {w}"
        for line, text in _messages(path)
        for w in wrong_suggestions(text, alone=False)
        if "`" in text or "--" in text or "[" in text
    ]
    assert wrong == []
