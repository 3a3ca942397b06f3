"""hardware/first-boot.sh, the one command that makes a fresh Raspberry Pi a table of an
event's fleet: what it says it would do (--dry-run, changing nothing), what it installs
into a folder standing for the Pi's root (ROOT=), that a second run changes nothing and
keeps the table's own file, and shellcheck's reading of it."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from table_controller.table.config import TableConfig, load_config

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "hardware" / "first-boot.sh"
UNIT = ROOT / "hardware" / "table-controller-fleet.service"
STATE = "/var/lib/table-controller"
# The table's config reads [fleet] once issue 20's config part (fleet-config) is merged.
needs_fleet_config = pytest.mark.skipif(
    "fleet" not in {f.name for f in dataclasses.fields(TableConfig)},
    reason="the table's config does not read [fleet] yet (merge fleet-config)",
)


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


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """first-boot.sh run once into a folder standing for a Pi's root: (root, what it said)."""
    root = tmp_path_factory.mktemp("pi")
    done = first_boot(root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done.stdout


@pytest.mark.slow(budget=60)  # the release built and installed by pip, then all again
def test_it_installs_a_table_into_a_root_and_a_second_run_changes_nothing(
    installed: tuple[Path, str],
) -> None:
    root, said = installed
    opt = root / "opt" / "table-controller"
    # The release that runs, where an update finds it, and importable from there.
    assert os.readlink(opt / "current") == "releases/0.1.0"
    found = subprocess.run(
        [sys.executable, "-P", "-c", "import table_controller; print(table_controller.__file__)"],
        env={**os.environ, "PYTHONPATH": str(opt / "current")},
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert found.stdout.strip() == str(opt / "current" / "table_controller" / "__init__.py")
    assert (opt / "current" / "table_controller" / "web" / "static" / "join.html").is_file()
    assert (opt / "scripts" / "setup.sh").is_file()  # the project, for make setup-pi
    # The unit, as hardware/ has it; the machine itself left alone under ROOT.
    unit = root / "etc" / "systemd" / "system" / "table-controller.service"
    assert unit.read_text() == UNIT.read_text()
    assert "left out (ROOT=" in said
    assert "systemctl enable --now table-controller" in said
    # The table's file: only what is the table's own, and [fleet].
    data = tomllib.loads((root / "etc" / "table-controller" / "table.toml").read_text())
    assert data["fleet"] == {"folder": f"{STATE}/fleet"}
    assert "rules" not in data and "players" not in data
    assert not {"name", "log"} & set(data["table"])
    assert set(data["feed"]) <= {"tls_ca", "heartbeat", "public_delay"}
    assert data["camera"]["calibration"] == f"{STATE}/calibration/table.json"
    assert data["web"]["host"] == "0.0.0.0"  # the join code's page, from a phone too
    assert data["seats"]["N"]["led"] == [17, 27, 22]  # the example's pins
    # Again: nothing changes, and it says what is there already.
    before = snapshot(root)
    again = first_boot(root=root)
    assert again.returncode == 0, again.stderr
    assert snapshot(root) == before
    assert "release 0.1.0 is installed already" in again.stdout
    assert "in fleet mode: kept as it is" in again.stdout
    assert "the service is installed already" in again.stdout


def test_a_project_copied_from_a_private_folder_is_readable_by_everyone(
    tmp_path: Path,
) -> None:
    """A project cloned into a private folder (mode 0700, its files 0600, as under umask
    077 or in a mktemp folder) is installed readable by everyone: copied as it was, the
    Pi's /opt/table-controller was 0700 and the person's own commands were refused
    ("cd: /opt/table-controller: Permission denied", seen in the box)."""
    project = tmp_path / "private" / "table-controller"
    skip = shutil.ignore_patterns(
        ".venv", ".git", "test-artifacts", "build", "dist", "*.egg-info", "__pycache__",
        ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "*.so", "*.sqlite",
    )  # fmt: skip
    shutil.copytree(ROOT, project, ignore=skip, symlinks=True)
    (project / "README.md").chmod(0o600)
    (project / "table_controller").chmod(0o700)
    project.chmod(0o700)
    root = tmp_path / "root"
    done = subprocess.run(
        ["bash", str(project / "hardware" / "first-boot.sh")],
        env={**os.environ, "ROOT": str(root), "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    opt = root / "opt" / "table-controller"
    assert opt.stat().st_mode & 0o777 == 0o755
    assert (opt / "table_controller").stat().st_mode & 0o777 == 0o755
    assert (opt / "README.md").stat().st_mode & 0o777 == 0o644
    assert (opt / "hardware" / "first-boot.sh").stat().st_mode & 0o111 == 0o111  # still runs


@needs_fleet_config
def test_the_table_reads_its_file_as_a_fleets_table(installed: tuple[Path, str]) -> None:
    root, _ = installed
    config = load_config(root / "etc" / "table-controller" / "table.toml")
    fleet: Any = getattr(config, "fleet", None)
    assert fleet is not None and Path(fleet.folder) == Path(f"{STATE}/fleet")
    assert config.web.host == "0.0.0.0" and config.web.port == 8080


@pytest.mark.slow(budget=40)
def test_a_table_file_of_its_own_is_kept_as_it_is(tmp_path: Path) -> None:
    config = tmp_path / "etc" / "table-controller" / "table.toml"
    config.parent.mkdir(parents=True)
    own = (ROOT / "examples" / "table.toml").read_text().replace("[17, 27, 22]", "[5, 6, 7]")
    config.write_text(own)
    done = first_boot(root=tmp_path)
    assert done.returncode == 0, done.stderr
    assert config.read_text() == own
    assert "not in fleet mode: kept as it is" in done.stdout


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
