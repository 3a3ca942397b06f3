"""Every command the README and the docs show, run as a person would run it.

Each page's shell blocks are read in order, and every line that starts one of the
project's commands runs through bash, as typed, in a fresh folder of the page's own
(with the virtual environment on the PATH, as after `source .venv/bin/activate`). A
command that fails, or that the page shows and this file does not know how to run here,
fails the test with the page and line, so a documented command cannot break silently.

Three tables say what differs from a person at a table:
- ``FIXTURES``: the words a page writes for something of the reader's (``GAME.jsonl``,
  ``LOG``, ``PICTURE.png``), each filled with a real file made here;
- ``SERVICES``: commands that keep running (the table, the kiosk, the director): each is
  started, waited for until it says it is up, then stopped with Ctrl-C, which must end
  it cleanly;
- ``NOT_HERE``: commands that need what this machine has not (the Pi's camera and pins,
  a cube on USB, root's systemd, a PostgreSQL server of the venue's), each with why; and
  the benchmarks and test runs, which `make bench` and `make test` run themselves.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGES += sorted((ROOT / "hardware").glob("*.md"))
SHELL_BLOCKS = ("", "sh", "bash", "shell", "console")
# A line that starts one of the project's commands (a person types these).
COMMAND = re.compile(
    r"^(\$ )?((\.venv/bin/)?(table-controller|python|pytest)\b|make\b|sudo\b|openssl\b)"
)
BIN = Path(sys.executable).parent
WAIT = 120.0  # seconds a command may take here, on a loaded 2-core machine

# --- what differs here ------------------------------------------------------------------

# (pattern in the command, why it cannot run here): checked first.
NOT_HERE: list[tuple[str, str]] = [
    (
        r"^make (demo|test|setup(-\w+)?)\b",
        "the two commands themselves and the installs: CI runs `make test`, which "
        "installs what `make demo` and every `make setup-...` do",
    ),
    (r"^sudo ", "root's changes to this machine (users, systemd, PostgreSQL's roles)"),
    (r"bench/", "a benchmark: minutes to hours; `make bench` runs them"),
    (r"(^|/)pytest\b", "a part of the test suite, which `make test` runs"),
    (r"cube (flash|test|show)\b", "needs the trump cube plugged in over USB"),
    (r"--camera usb:", "needs a USB camera"),
    (
        r"kiosk --config",
        "needs a real camera: the kiosk takes the synthetic camera only as "
        "`kiosk --simulated`, which runs here",
    ),
    (r"seats test(?!.*--simulated)", "needs the Pi's GPIO pins and the seats wired to them"),
    (
        r"table-controller join\b",
        "needs a director on the network to approve the table (tests/test_join_cli.py joins "
        "one to a real dashboard)",
    ),
    (
        r"pip wheel\b|director release dist/",
        "builds a release from the project's folder and hands it out "
        "(tests/test_fleet_update_director.py builds two and releases them)",
    ),
    (
        r"postgresql://",
        "needs the venue's PostgreSQL server (tests/test_director_store.py "
        "runs the same commands against one it starts)",
    ),
]

# Words a page uses for the reader's own files, filled from what ``_fixtures`` makes.
FIXTURES: dict[str, str] = {
    "GAME.jsonl": "game.jsonl",
    "PICTURE.png": "picture.png",
    "photo.png": "picture.png",
    "RECORDED_DIR": "session",
    "LOG": "table.sqlite",
    "/etc/euchre": "keys",
    "picamera2": "synthetic",  # this machine's camera is the synthetic table
    # the project as the reader cloned it (docs/fleet.md): its first-boot script, dry run
    "table-controller/hardware/first-boot.sh": str(ROOT / "hardware" / "first-boot.sh"),
}

# (pattern, what it prints once it is up): started, waited for, then stopped by Ctrl-C.
SERVICES: list[tuple[str, str]] = [
    (r"table-controller (run|demo)\b(?!.*--hands)", r"http://"),
    (r"table-controller kiosk\b(?! pin)", r"http://"),
    (r"table-controller director\b(?! (keys|add-login|export|release))", r"https?://"),
    (r"table-controller event demo\b", r"Ctrl-C stops it"),
    (r"table-controller vision live\b", r'"view"|"frame"'),
]


def _pin_into_config(folder: Path, printed: str) -> None:
    """Put the line ``kiosk pin`` printed under ``[kiosk]`` in table.toml, as its page
    says to."""
    config = folder / "table.toml"
    if not config.exists():
        return  # the page has not made one yet: the PIN is for later
    line = next(x for x in printed.splitlines() if x.startswith("pin_hash = "))
    text = config.read_text(encoding="utf-8")
    empty = re.compile(r'^pin_hash = ""', re.M)
    assert empty.search(text), "table.toml has no empty pin_hash line under [kiosk]"
    text = empty.sub(line.replace("\\", "\\\\"), text, count=1)
    config.write_text(text, encoding="utf-8")


# (pattern, what the reader does with its output next, as the page says).
AFTER: list[tuple[str, Callable[[Path, str], None]]] = [
    (r"table-controller kiosk pin\b", _pin_into_config),
]

# (pattern, exit code, why): a command that may end otherwise here than at a table.
EXITS_HERE: list[tuple[str, int, str]] = [
    (
        r"table-controller config check\b",
        1,
        "the example names the Pi's camera, pins and cube, which this machine has not: "
        "`config check` says what it found and exits 1",
    ),
    (
        r"table-controller director export\b",
        2,
        "the page's director has heard from no table here, so its store holds no game: "
        "export says there is nothing to export yet and exits 2 (tests/"
        "test_director_export.py exports a real event)",
    ),
]

# Answers to a command's questions (a PIN, a password typed twice).
ANSWERS: list[tuple[str, str]] = [
    (r"kiosk pin", "2468\n2468\n"),
    (r"add-login", "a good long password\na good long password\n"),
]


@dataclass(frozen=True)
class Documented:
    page: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}: {self.text}"


def documented(page: Path) -> list[Documented]:
    """The project's commands in ``page``'s shell blocks, continuation lines joined."""
    found: list[Documented] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    in_block, shell = False, False
    i = 0
    while i < len(lines):
        fence = re.match(r"^\s*```(\S*)", lines[i])
        if fence:
            in_block, shell = (not in_block), fence.group(1) in SHELL_BLOCKS
            i += 1
            continue
        if in_block and shell and COMMAND.match(lines[i].strip()):
            start, text = i, lines[i].strip()
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1].rstrip() + " " + lines[i].strip()
            found.append(Documented(page, start + 1, text.removeprefix("$ ")))
        i += 1
    return found


def not_here(text: str) -> str | None:
    return next((why for pattern, why in NOT_HERE if re.search(pattern, text)), None)


def _filled(text: str) -> str:
    for word, fixture in FIXTURES.items():
        text = re.sub(rf"(?<![\w./-]){re.escape(word)}(?![\w-])", fixture, text)
    return text


# --- the reader's own files ---------------------------------------------------------------


def _reader_files(folder: Path) -> None:
    """What a reader has before following a page: the bundled game, a picture of the
    table and a recorded session (from the synthetic camera), a table's log, the
    table's calibration, and the table's and the director's configuration files."""
    example = ROOT / "table_controller" / "examples" / "td-tournament-game.jsonl"
    shutil.copy(example, folder / "game.jsonl")
    # the checkout's paths, for a page that names the bundled example by its place
    (folder / "table_controller" / "examples").mkdir(parents=True)
    shutil.copy(example, folder / "table_controller" / "examples" / example.name)
    run = ["demo", "--fast", "--hands", "1", "--seed", "3", "--log-dir", str(folder / "made")]
    _ok(folder, *run, "--record", str(folder / "session"))
    shutil.copy(folder / "made" / "demo.sqlite", folder / "table.sqlite")
    frames = sorted((folder / "session").glob("*.png")) + sorted((folder / "session").glob("*.jpg"))
    assert frames, "the recorded session has no pictures"
    shutil.copy(frames[len(frames) // 2], folder / "picture.png")
    _ok(folder, "calibrate", "--camera", "synthetic,limit=1")
    _ok(folder, "config", "example", "--out", "table.toml")
    _this_machine(folder / "table.toml")
    (folder / "director.toml").write_text(
        '[director]\ndatabase = "director.sqlite"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
    )


@pytest.fixture(scope="module")
def reader_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's files, made once (a demo, a calibration: seconds each) and copied
    into each page's folder."""
    folder = tmp_path_factory.mktemp("reader")
    _reader_files(folder)
    return folder


def _fixtures(folder: Path, page: list[Documented], made: Path) -> None:
    """The reader's files in ``folder``, less what the page makes itself: its own
    calibration, its own table.toml, its own director's keys and configuration."""
    mine: set[str] = set()
    if any("calibrate mat" not in c.text and "calibrate" in c.text.split("#")[0] for c in page):
        mine.add("calibration")
    if any("--out table.toml" in c.text for c in page):
        mine.add("table.toml")
    if any("director.toml" in c.text and "keys" in c.text for c in page):
        mine.add("director.toml")
    top = str(made)
    shutil.copytree(
        made,
        folder,
        dirs_exist_ok=True,
        ignore=lambda d, names: mine & set(names) if d == top else set(),
    )


def _ok(folder: Path, *argv: str) -> None:
    done = subprocess.run(
        [str(BIN / "table-controller"), *argv],
        cwd=folder,
        env=_environment(folder),
        capture_output=True,
        text=True,
        timeout=WAIT * 3,
    )
    assert done.returncode == 0, f"{argv}: {done.stderr}"


def _this_machine(config: Path) -> None:
    """The example configuration as docs/config.md says to change it for a machine with
    no camera, pins or cube of its own: the synthetic table, mock pins, the emulated cube,
    and the page on a free port."""
    text = config.read_text(encoding="utf-8")
    for old, new in (
        ('source = "picamera2"', 'source = "synthetic"'),
        ('gpio = "auto"', 'gpio = "mock"'),
        ('port = "auto"', 'port = "emulator"'),
        ("port = 8080", "port = 0"),
    ):
        assert old in text, f"the example configuration no longer has {old}"
        text = text.replace(old, new, 1)
    config.write_text(text, encoding="utf-8")


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(home),
        XDG_STATE_HOME=str(home / ".state"),
        TABLE_CONTROLLER_CAMERA="synthetic",
        PYTHONUNBUFFERED="1",
        PYTHONFAULTHANDLER="1",  # a hung service's stacks, when it is aborted (_serve)
    )
    return env


# --- running them -------------------------------------------------------------------------


def _answers(text: str) -> str:
    return next((a for pattern, a in ANSWERS if re.search(pattern, text)), "")


def _service(text: str) -> str | None:
    return next((ready for pattern, ready in SERVICES if re.search(pattern, text)), None)


def _run(cmd: Documented, folder: Path, env: dict[str, str]) -> str | None:
    """Run one command; None when it did what the page says, else what went wrong."""
    text = _filled(cmd.text)
    ready = _service(text)
    if ready is None:
        try:
            done = subprocess.run(
                ["bash", "-c", text],
                cwd=folder,
                env=env,
                input=_answers(text),
                capture_output=True,
                text=True,
                timeout=WAIT,
            )
        except subprocess.TimeoutExpired:
            return f"still running after {WAIT:.0f} s"
        allowed = {0} | {code for pattern, code, _ in EXITS_HERE if re.search(pattern, text)}
        if done.returncode not in allowed:
            return f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-600:]}"
        for pattern, then in AFTER:
            if re.search(pattern, text):
                then(folder, done.stdout)
        return None
    return _serve(text, ready, folder, env)


def _serve(text: str, ready: str, folder: Path, env: dict[str, str]) -> str | None:
    """Start a service, wait until it prints ``ready``, then Ctrl-C it: it must stop
    cleanly (exit 0, or the shell's 130 for an interrupt)."""
    child = subprocess.Popen(
        ["bash", "-c", f"exec {text}"],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    seen: list[str] = []
    up = threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            seen.append(line)
            if re.search(ready, line):
                up.set()
        up.set()  # it ended: the wait is over either way

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        up.wait(WAIT)
        if not any(re.search(ready, line) for line in seen):
            try:
                code = child.wait(WAIT)  # its output ended: it is ending
            except subprocess.TimeoutExpired:
                return f"not up after {WAIT:.0f} s: {''.join(seen)[-600:]}"
            return f"ended before it was up (exit {code}): {''.join(seen)[-600:]}"
        os.killpg(child.pid, signal.SIGINT)
        try:
            code = child.wait(WAIT)
        except subprocess.TimeoutExpired:
            # Still running: SIGABRT makes Python's faulthandler (PYTHONFAULTHANDLER, set
            # below) print every thread's stack, so the failure says where it hung.
            os.kill(child.pid, signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(WAIT)
            reader.join(10)
            return f"still running {WAIT:.0f} s after Ctrl-C; its stacks: {''.join(seen)[-4000:]}"
        if code not in (0, 130, -signal.SIGINT):
            return f"Ctrl-C ended it with exit {code}: {''.join(seen)[-600:]}"
        return None
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        reader.join(10)


# --- the tests ----------------------------------------------------------------------------


def test_the_pages_show_commands() -> None:
    assert len(documented(ROOT / "README.md")) >= 10
    assert sum(len(documented(p)) for p in PAGES) >= 60


@pytest.mark.slow(budget=40)  # each command as a person runs it, in a process of its own
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_command_works(page: Path, tmp_path: Path, reader_files: Path) -> None:
    commands = [c for c in documented(page) if not_here(c.text) is None]
    if not commands:
        pytest.skip("no command of the project's on this page runs here")
    _fixtures(tmp_path, commands, reader_files)
    env = _environment(tmp_path)
    failures = []
    for cmd in commands:
        problem = _run(cmd, tmp_path, env)
        if problem is not None:
            failures.append(f"{cmd}\n    -> {problem}")
    assert not failures, "documented commands that fail:\n" + "\n".join(failures)


def test_every_exception_is_still_needed() -> None:
    """A line of NOT_HERE, SERVICES or FIXTURES that no page needs any more is removed, so
    the exceptions stay the few the pages need."""
    texts = [c.text for page in PAGES for c in documented(page)]
    for pattern, _why in NOT_HERE:
        assert any(re.search(pattern, t) for t in texts), f"NOT_HERE {pattern!r} is unused"
    for pattern, _ready in SERVICES:
        assert any(re.search(pattern, _filled(t)) for t in texts), f"{pattern!r} is unused"
    for word in FIXTURES:
        assert any(word in t for t in texts), f"FIXTURES {word!r} is unused"
