"""Every systemd unit in hardware/ as systemd itself reads it: `systemd-analyze verify`
(unknown keys, bad values, a command that is not there). The units name where the
project is installed (/opt/table-controller, /home/euchre/table-controller); a copy of
each is verified with that folder's virtual environment replaced by this one, so that
the command they run (`table-controller`) is checked to exist, and run."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = sorted((ROOT / "hardware").glob("*.service"))
ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"
VENV_BIN = Path(sys.executable).parent  # where this environment's `table-controller` is
INSTALLED = re.compile(r"/(?:opt|home/euchre)/table-controller/\.venv/bin/")

needs_systemd = pytest.mark.skipif(
    not Path(ANALYZE).exists(),
    reason="systemd-analyze is not installed (Debian's package systemd: `make test` "
    "installs it), so the units in hardware/ cannot be verified",
)


def as_here(unit: Path, folder: Path) -> Path:
    """A copy of ``unit`` whose commands are this environment's."""
    text = INSTALLED.sub(f"{VENV_BIN}/", unit.read_text())
    copy = folder / unit.name
    copy.write_text(text)
    return copy


def exec_lines(unit: Path) -> list[list[str]]:
    return [
        line.split("=", 1)[1].lstrip("-@:+!").split()
        for line in unit.read_text().splitlines()
        if re.match(r"Exec(Start|StartPre|StartPost|Reload|Stop)=\S", line)
    ]


def test_the_units_are_there() -> None:
    names = {u.name for u in UNITS}
    assert {
        "table-controller.service",
        "table-controller-director.service",
        "table-controller-broker.service",
    } <= names


@needs_systemd
@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_reads_the_unit_without_a_word_of_complaint(unit: Path, tmp_path: Path) -> None:
    copy = as_here(unit, tmp_path)
    for command in exec_lines(copy):
        program = Path(command[0])
        if program.name == "mosquitto" and not program.exists():
            pytest.skip("mosquitto is not installed (`make test` installs it)")
        assert program.exists(), f"{unit.name} runs {program}, which is not there"
    done = subprocess.run(
        [ANALYZE, "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # Unknown keys and bad values are only warned about: they must not be there either.
    assert done.stderr.strip() == "", done.stderr


def ours(unit: Path) -> list[list[str]]:
    """The unit's commands that run this project's program."""
    return [c for c in exec_lines(unit) if c[0].endswith("/table-controller")]


@pytest.mark.parametrize("unit", [u for u in UNITS if ours(u)], ids=lambda u: u.name)
def test_the_units_command_is_one_the_program_knows(unit: Path, tmp_path: Path) -> None:
    """`table-controller run|director --config FILE` as the unit writes it: the
    program's own parser takes it (a renamed command or flag would stop the service)."""
    [command] = ours(as_here(unit, tmp_path))
    done = subprocess.run(
        [command[0], *command[1:-2], "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "--config" in done.stdout
