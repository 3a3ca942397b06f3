"""hardware/first-boot.sh, the one command that makes a fresh Raspberry Pi a table of an
event's fleet: what it says it would do (--dry-run, changing nothing), what it installs
into a folder standing for the Pi's root (ROOT=), that a second run changes nothing and
keeps the table's own file, and shellcheck's reading of it."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from table_controller.table.config import parse_config

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "hardware" / "first-boot.sh"
UNIT = ROOT / "hardware" / "table-controller-fleet.service"
STATE = "/var/lib/table-controller"


def first_boot(*args: str, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ROOT", "PYTHON")}
    if root is not None:
        env.update(ROOT=str(root), PYTHON=sys.executable)
    return subprocess.run(
        ["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=300
    )


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and link under ``folder``, with its content's hash (a link: its target)."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            seen[key] = "-> " + os.readlink(path)
        elif path.is_file():
            seen[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def test_a_dry_run_says_each_step_and_changes_nothing(tmp_path: Path) -> None:
    done = first_boot("--dry-run")
    assert done.returncode == 0, done.stderr
    said = done.stdout
    for step in (
        "would run: bash /opt/table-controller/scripts/setup.sh /opt/table-controller/.venv pi",
        "would run: ln -s releases/0.1.0 /opt/table-controller/current",
        "would write /etc/table-controller/table.toml",
        'folder = "/var/lib/table-controller/fleet"',
        "would run: install -D -m 644",
        "would run: systemctl enable --now table-controller",
        "dry run: nothing was changed",
    ):
        assert step in said
    # With a ROOT too: not a file made there.
    done = first_boot("--dry-run", root=tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow(budget=60)  # the release built and installed by pip, twice
def test_it_installs_a_table_into_a_root_and_a_second_run_changes_nothing(
    tmp_path: Path,
) -> None:
    done = first_boot(root=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    opt = tmp_path / "opt" / "table-controller"
    # The release that runs, where an update finds it, and importable from there.
    assert os.readlink(opt / "current") == "releases/0.1.0"
    found = subprocess.run(
        [sys.executable, "-c", "import table_controller; print(table_controller.__file__)"],
        env={**os.environ, "PYTHONPATH": str(opt / "current")},
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert found.stdout.strip() == str(opt / "current" / "table_controller" / "__init__.py")
    assert (opt / "current" / "table_controller" / "web" / "static" / "join.html").is_file()
    # The unit, as hardware/ has it; the machine itself left alone under ROOT.
    unit = tmp_path / "etc" / "systemd" / "system" / "table-controller.service"
    assert unit.read_text() == UNIT.read_text()
    assert (
        "left out (ROOT=" in done.stdout
        and "systemctl enable --now table-controller" in done.stdout
    )
    # The table's file: the example, in fleet mode, its writable files in the state folder.
    config = tmp_path / "etc" / "table-controller" / "table.toml"
    data = tomllib.loads(config.read_text())
    assert data["fleet"] == {"folder": f"{STATE}/fleet"}
    assert data["table"]["log"] == f"{STATE}/table.sqlite"
    assert data["camera"]["calibration"] == f"{STATE}/calibration/table.json"
    assert data["web"]["host"] == "0.0.0.0"  # the join code's page, from a phone too
    local = parse_config({k: v for k, v in data.items() if k != "fleet"}, config.parent)
    assert local.log == Path(f"{STATE}/table.sqlite")
    # Again: nothing changes, and it says what is there already.
    before = snapshot(tmp_path)
    again = first_boot(root=tmp_path)
    assert again.returncode == 0, again.stderr
    assert snapshot(tmp_path) == before
    assert "release 0.1.0 is installed already" in again.stdout
    assert "in fleet mode: kept as it is" in again.stdout
    assert "the service is installed already" in again.stdout


@pytest.mark.slow(budget=40)
def test_a_table_file_of_its_own_is_kept_and_given_fleet_mode(tmp_path: Path) -> None:
    config = tmp_path / "etc" / "table-controller" / "table.toml"
    config.parent.mkdir(parents=True)
    own = (
        (ROOT / "examples" / "table.toml")
        .read_text()
        .replace("led = [17, 27, 22]", "led = [5, 6, 7]")
    )
    config.write_text(own)
    done = first_boot(root=tmp_path)
    assert done.returncode == 0, done.stderr
    text = config.read_text()
    assert text.startswith(own)  # its pins kept
    assert tomllib.loads(text)["fleet"] == {"folder": f"{STATE}/fleet"}
    assert "adding [fleet] to it" in done.stdout


def test_it_refuses_an_unknown_option_in_words() -> None:
    done = first_boot("--yes")
    assert done.returncode == 1
    assert "no option '--yes': use --dry-run" in done.stderr


@pytest.mark.skipif(
    shutil.which("shellcheck") is None,
    reason="shellcheck is not installed (`make test` installs it)",
)
def test_shellcheck_finds_nothing() -> None:
    done = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
