"""The package as a person installs it from a wheel, not from this checkout: built here,
installed in a fresh virtual environment, and run from another folder. The wheel must
carry everything the commands read at run time (the cube's firmware, the example game,
the pages' files), since a wheel has no checkout beside it. The fresh environment sees
only the core's packages (the wheel's dependencies without extras): the demo runs on
the lean install `make demo` makes."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# Modules of the extras' packages and of the test tools: none is in the core's install.
EXTRA_MODULES = ("reportlab", "paho", "cryptography", "psycopg", "argon2", "mpremote", "pyzbar")
EXTRA_MODULES += ("weasyprint",)
EXTRA_MODULES += ("playwright", "pyspiel", "scipy", "mypy", "pytest")


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
        "table_controller/templates/score_sheet.html",  # `log export --sheet`
        "table_controller/templates/booklet.html",  # `director export`
        "table_controller/templates/results.css",
    ):
        assert needed in names, f"the wheel lacks {needed}"
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def core_distributions(wheel: Path) -> set[str]:
    """The distributions the wheel needs without extras, and theirs, as installed here."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = (n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = Parser().parsestr(z.read(name).decode()).get_all("Requires-Dist") or []
    found: set[str] = set()
    todo = list(requires)
    while todo:
        req = Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # an extra's, or another platform's
        key = canonicalize_name(req.name)
        if key not in found:
            found.add(key)
            todo += metadata.requires(req.name) or []
    return found


def link_core(wheel: Path, into: Path) -> None:
    """``into``: links to the files of the core's distributions only, from this
    environment (so the test needs no network), for a ``.pth`` to put on a path."""
    into.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    for name in core_distributions(wheel):
        files = metadata.distribution(name).files or []
        for top in {f.parts[0] for f in files if f.parts[0] != ".."}:
            if not (into / top).exists():
                (into / top).symlink_to(site / top)


def test_the_core_leaves_the_extras_out(wheel: Path) -> None:
    core = core_distributions(wheel)
    assert {"numpy", "opencv-python-headless", "starlette", "gpiozero", "pyserial"} <= core
    assert "jinja2" in core  # the table's score sheet is a template
    for extra in ("reportlab", "paho-mqtt", "psycopg", "argon2-cffi", "mpremote", "playwright"):
        assert extra not in core, extra
    for extra in ("weasyprint", "fonttools"):  # the director's PDFs
        assert extra not in core, extra
    assert "open-spiel" not in core and "scipy" not in core and "mypy" not in core


def test_the_demo_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True)
    python = fresh / "bin" / "python"
    # Without this checkout on a path: its table_controller.egg-info (from a build) would
    # count as installed, and pip would skip the wheel.
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
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    # The core's dependencies from this environment, linked (not this site-packages, whose
    # extras would hide a missing one; nor its .pth files: the checkout's editable install
    # stays out), after the fresh environment's own site-packages.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    link_core(wheel, tmp_path / "core")
    Path(site, "dependencies.pth").write_text(f"{tmp_path / 'core'}\n")
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
    extras = "import importlib.util as u; print([m for m in EXTRAS if u.find_spec(m)])"
    seen = subprocess.run(
        [str(python), "-c", f"EXTRAS = {EXTRA_MODULES!r}; {extras}"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert seen.strip() == "[]", seen  # the lean install, truly
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
    # The score sheet is a template the wheel carries, rendered by the core's Jinja2.
    sheet = elsewhere / "sheet.html"
    log = str(elsewhere / "logs" / "demo.sqlite")
    done = subprocess.run(
        [str(fresh / "bin" / "table-controller"), "log", "export", log, "--sheet", str(sheet)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Final score" in sheet.read_text() or "Game in progress" in sheet.read_text()
