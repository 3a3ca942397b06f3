"""The package as a person installs it from a wheel, not from this checkout: built here,
installed in a fresh virtual environment, and run from another folder. The wheel must
carry everything the commands read at run time (the cube's firmware, the example game,
the pages' files), since a wheel has no checkout beside it."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=out,
    )
    (built,) = out.glob("table_controller-*.whl")
    return built


def test_the_wheel_carries_what_the_commands_read(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "table_controller/firmware/cube.py",
        "table_controller/firmware/display.py",
        "table_controller/firmware/main.py",
        "table_controller/firmware/board_rp2040.py",
        "table_controller/examples/td-tournament-game.jsonl",
        "table_controller/web/static/page.html",
        "table_controller/py.typed",
    ):
        assert needed in names, f"the wheel lacks {needed}"
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_the_demo_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    python = fresh / "bin" / "python"
    # Without the caller's PYTHONPATH (a checkout on it looks to pip like the package
    # already installed, and pip would then install nothing).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    # The dependencies from this environment (a path, not its .pth files: the checkout's
    # editable install stays out), after the fresh environment's own site-packages.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import table_controller; print(table_controller.__file__)"],
        cwd=elsewhere,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert where.startswith(str(fresh)), where  # the wheel's copy, not the checkout's
    done = subprocess.run(
        [
            str(fresh / "bin" / "table-controller"),
            "demo",
            "--hands",
            "1",
            "--fast",
            "--seed",
            "2",
            "--log-dir",
            str(elsewhere / "logs"),
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Trick 5:" in done.stdout
    assert (elsewhere / "logs" / "demo.sqlite").exists()
