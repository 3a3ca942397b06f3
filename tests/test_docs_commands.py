"""Every command the README and the docs show, run as a person would run it.

Each page's shell blocks are read in order, and every line that starts one of the
project's commands runs through bash, as typed, in a fresh folder of the page's own
(with the virtual environment on the PATH, as after `source .venv/bin/activate`). A
command that fails, or that the page shows and this file does not know how to run here,
fails the test with the page and line, so a documented command cannot break silently.

Tables say what differs from a person at a table:
- ``FIXTURES``: the words a page writes for something of the reader's (``GAME.jsonl``,
  ``LOG``, ``PICTURE.png``), each filled with a real file made here;
- ``SERVICES``: commands that keep running (the table, the kiosk, the director): each is
  started, waited for until it says it is up, then stopped with Ctrl-C, which must end
  it cleanly;
- ``JOINS``: `table-controller join`, which ends once a director approves the table: a
  real director is started for it (``director start``), and approves the code the
  table shows, over the dashboard's API, as a director does on the Fleet page;
- ``DEFAULT_PORTS``: the ports a command listens on when it names none. Every port a
  page names (``--port 8090``, ``0.0.0.0:8090``, ``port = 8080`` in a file a command
  writes) or a command takes by default is run on a free port of this run's, the same
  one for the same number throughout the page: nothing depends on a fixed port being
  free on the machine;
- ``NOT_HERE``: commands that need what this machine has not (the Pi's camera and pins,
  a cube on USB, root's systemd, a PostgreSQL server of the venue's), each with why; and
  the benchmarks and test runs, which `make bench` and `make test` run themselves.

The machine has every extra installed (it cannot uninstall the shared environment's
packages), so a command could pass here that fails a reader who installed only what the
page said. So each command's imports are watched (``WATCH_IMPORTS`` below): every
optional package it imports (table_controller/extras.py ``MODULES``) must be of an extra
that a `make setup-...` (or `make test`) said before it on the same page installs.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from docs_running import WAIT, Running, approve, imported, watch_imports
from mosquitto import free_port

from table_controller.extras import MODULES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGES += sorted((ROOT / "hardware").glob("*.md"))
PAGES += [ROOT / "firmware" / "README.md"]
SHELL_BLOCKS = ("", "sh", "bash", "shell", "console")
# A line that starts one of the project's commands (a person types these).
COMMAND = re.compile(
    r"^(\$ )?((\.venv/bin/)?(table-controller|python|pytest)\b|make\b|sudo\b|openssl\b)"
)
BIN = Path(sys.executable).parent

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
    (r"table-controller director\b(?! (keys|add-login|export|release|config)\b)", r"https?://"),
    (r"table-controller event demo\b", r"Ctrl-C stops it"),
    (r"table-controller vision live\b", r'"view"|"frame"'),
]

# What a joining table is named by the director who approves it (``_join``).
JOINS = r"table-controller join\b"
JOINED_AS = "Table 1"

# The director's dashboard's and broker's ports, where a command names none.
DIRECTOR_PORTS = (("--web-port", 8090), ("--broker-port", 1883))
START_PORTS = (("--web-port", 8090), ("--broker-port", 8883), ("--http-port", 8080))
# (pattern, the flags that choose the ports it uses, each with the port it takes by
# default): where the command names no such flag, it is given one, on this run's port for
# that default. (`demo`, `kiosk --simulated` and `replay` take a free port by default.)
DEFAULT_PORTS: list[tuple[str, tuple[tuple[str, int], ...]]] = [
    (r"table-controller event demo\b", (("--port", 8090),)),
    (r"table-controller director start\b", START_PORTS),
    (
        r"table-controller director\b(?! (start|keys|add-login|export|release|config)\b)",
        DIRECTOR_PORTS,
    ),
]
# A port a command line names: `--port 8090`, `--web-port=8090`, `--view 8090`,
# `0.0.0.0:8090`, `[::1]:8090`.
PORT_IN_COMMAND = re.compile(r"((?:--[\w-]*port|--view)[ =]|[\w\]]:)(\d{2,5})\b")
# A port a configuration file names (a table's, a director's): `port = 8080`.
PORT_IN_FILE = re.compile(r"^((?:port|public_port) = )(\d+)\b", re.M)


@dataclass
class Page:
    """One page's run: its folder, its environment, and the free port that stands for
    each port it names."""

    folder: Path
    env: dict[str, str]
    ports: dict[int, int] = field(default_factory=dict)

    def port(self, documented: int) -> int:
        if documented == 0:
            return 0  # a free one already
        if documented not in self.ports:
            self.ports[documented] = free_port()
        return self.ports[documented]

    def on_free_ports(self, text: str) -> str:
        """``text`` with each port it names, or takes by default, one free here."""
        text = PORT_IN_COMMAND.sub(lambda m: m[1] + str(self.port(int(m[2]))), text)
        for pattern, flags in DEFAULT_PORTS:
            if re.search(pattern, text):
                for flag, default in flags:
                    if not re.search(rf"{flag}\b", text):
                        text += f" {flag} {self.port(default)}"
        return text


def _pin_into_config(page: Page, text: str, printed: str) -> None:
    """Put the line ``kiosk pin`` printed under ``[kiosk]`` in table.toml, as its page
    says to."""
    config = page.folder / "table.toml"
    if not config.exists():
        return  # the page has not made one yet: the PIN is for later
    line = next(x for x in printed.splitlines() if x.startswith("pin_hash = "))
    config_text = config.read_text(encoding="utf-8")
    empty = re.compile(r'^pin_hash = ""', re.M)
    assert empty.search(config_text), "table.toml has no empty pin_hash line under [kiosk]"
    config_text = empty.sub(line.replace("\\", "\\\\"), config_text, count=1)
    config.write_text(config_text, encoding="utf-8")


def _free_ports_in_file(page: Page, text: str, printed: str) -> None:
    """The configuration file the command wrote (``--out FILE``), with each port it names
    one free here, as for the ports of a command line."""
    words = shlex.split(text, comments=True)
    written = page.folder / words[words.index("--out") + 1]
    config = written.read_text(encoding="utf-8")
    config = PORT_IN_FILE.sub(lambda m: m[1] + str(page.port(int(m[2]))), config)
    written.write_text(config, encoding="utf-8")


# (pattern, what the reader does with its output next, as the page says, or what differs
# here from a table's machine).
AFTER: list[tuple[str, Callable[[Page, str, str], None]]] = [
    (r"table-controller kiosk pin\b", _pin_into_config),
    (r"config example\b.*--out\b", _free_ports_in_file),
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


def _without_comment(text: str) -> str:
    """The command line less its ``# comment`` (a ``#`` starting a word, out of quotes)."""
    quote = ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip()
    return text


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
    for made_here in ("table.toml", "director.toml"):
        if any(f"--out {made_here}" in c.text for c in page):
            mine.add(made_here)
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
        PYTHONPATH=str(ROOT),  # this checkout's code, whichever one the venv was made from
    )
    return env


# --- running them -------------------------------------------------------------------------


def _answers(text: str) -> str:
    return next((a for pattern, a in ANSWERS if re.search(pattern, text)), "")


def _service(text: str) -> str | None:
    return next((ready for pattern, ready in SERVICES if re.search(pattern, text)), None)


def _run(cmd: Documented, page: Page) -> str | None:
    """Run one command; None when it did what the page says, else what went wrong."""
    text = page.on_free_ports(_without_comment(_filled(cmd.text)))
    if re.search(JOINS, text):
        return _join(text, page)
    ready = _service(text)
    if ready is not None:
        return _serve(text, ready, page.folder, page.env)
    try:
        done = subprocess.run(
            ["bash", "-c", text],
            cwd=page.folder,
            env=page.env,
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
            then(page, text, done.stdout)
    return None


def _serve(text: str, ready: str, folder: Path, env: dict[str, str]) -> str | None:
    """Start a service, wait until it prints ``ready``, then Ctrl-C it: it must stop
    cleanly (exit 0, or the shell's 130 for an interrupt)."""
    service = Running(text, folder, env)
    try:
        if service.wait_for(ready) is None:
            code = service.end()  # its output ended: it is ending
            if code is None:
                return f"not up after {WAIT:.0f} s: {service.output()}"
            return f"ended before it was up (exit {code}): {service.output()}"
        return service.interrupt()
    finally:
        service.close()


def _join(text: str, page: Page) -> str | None:
    """`join` against a director started for it: the table shows its code, the director
    approves it (naming it JOINED_AS), and `join` must then end, saying what it became.
    The page's ``--director HOST:PORT`` is this director's address."""
    web, broker, http = (page.port(default) for _, default in START_PORTS)
    folder = page.folder / "director-for-join"
    director = Running(
        f"table-controller director start --folder {shlex.quote(str(folder))} "
        f"--event 'Spring Open' --web-port {web} --broker-port {broker} --http-port {http}",
        page.folder,
        {k: v for k, v in page.env.items() if k != "DOCS_IMPORTS"},  # the laptop's, not `join`'s
    )
    try:
        password = director.wait_for(r"as director, password (\S+)")
        dashboard = director.wait_for(r"The dashboard: (\S+)")
        if password is None or dashboard is None or director.wait_for("Ctrl-C") is None:
            return f"the director for `join` did not start: {director.output()}"
        text = re.sub(r"--director \S+", f"--director 127.0.0.1:{web}", text)
        table = Running(text, page.folder, page.env)
        try:
            code = table.wait_for(r"^Join code (\d{4})")
            if code is None:
                return f"`join` showed no join code (exit {table.end()}): {table.output()}"
            refused = approve(
                dashboard[1], "director", password[1], code[1], JOINED_AS, folder / "tls" / "ca.crt"
            )
            if refused is not None:
                return refused
            status = table.end()
            if status != 0:
                return f"`join` did not end with exit 0 once approved ({status}): {table.output()}"
            if f"This table is {JOINED_AS} of Spring Open" not in table.output(4000):
                return f"`join` did not say what the table became: {table.output()}"
        finally:
            table.close()
        return director.interrupt()
    finally:
        director.close()


# --- the extras a command needs, said before it ---------------------------------------------

# `make X` on a page: the extras it installs (`make demo`: only the core).
MAKE = re.compile(r"\bmake\s+(?:-C\s+\S+\s+)?((?:(?:setup-[\w-]+|test|demo)\b\s*)+)")


def _extras_holding() -> dict[str, set[str]]:
    """Each extra of pyproject.toml, and every extra it installs with itself."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        extras: dict[str, list[str]] = tomllib.load(f)["project"]["optional-dependencies"]
    direct = {
        name: {x for dep in deps for m in re.finditer(r"table-controller\[([\w,]+)\]", dep)
               for x in m[1].split(",")}
        for name, deps in extras.items()
    }  # fmt: skip

    def every(name: str) -> set[str]:
        return {name}.union(*(every(x) for x in direct[name]))

    return {name: every(name) for name in extras}


HOLDING = _extras_holding()


def installed_before(page: Path, line: int) -> set[str]:
    """The extras the ``make`` commands a page says before ``line`` install (its prose
    too: "`make setup-director` in the project's folder")."""
    before = "\n".join(page.read_text(encoding="utf-8").splitlines()[: line - 1])
    made: set[str] = set()
    for found in MAKE.finditer(before):
        for target in found[1].split():
            extra = "test" if target == "test" else target.removeprefix("setup-")
            made |= HOLDING.get(extra, set())
    return made


def unsaid_extras(cmd: Documented, modules: set[str]) -> str | None:
    """What the page must say before ``cmd``, which imported ``modules``, or None."""
    installed = installed_before(cmd.page, cmd.line)
    missing = sorted({MODULES[m] for m in modules if MODULES[m][0] not in installed})
    if not missing:
        return None
    return "it needs " + "; ".join(
        f"`make setup-{extra}` for {purpose}, which the page does not say before it"
        for extra, purpose in missing
    )


# --- the tests ----------------------------------------------------------------------------


def test_the_pages_show_commands() -> None:
    assert len(documented(ROOT / "README.md")) >= 10
    assert sum(len(documented(p)) for p in PAGES) >= 60


@pytest.mark.slow(budget=40)  # each command as a person runs it, in a process of its own
# README shows some 25 commands, each guarded by WAIT: pyproject's 300 s for a whole page
# failed it on a loaded machine with no command hung. Still only against a hang.
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_command_works(page: Path, tmp_path: Path, reader_files: Path) -> None:
    commands = [c for c in documented(page) if not_here(c.text) is None]
    if not commands:
        pytest.skip("no command of the project's on this page runs here")
    _fixtures(tmp_path, commands, reader_files)
    env = _environment(tmp_path)
    watch_imports(env, tmp_path / ".watch", set(MODULES))
    run = Page(tmp_path, env)
    failures = []
    for number, cmd in enumerate(commands):
        log = tmp_path / ".watch" / f"imports-{number}.txt"
        run.env = {**env, "DOCS_IMPORTS": str(log)}
        problem = _run(cmd, run)
        if problem is None:
            problem = unsaid_extras(cmd, imported(log))
        if problem is not None:
            failures.append(f"{cmd}\n    -> {problem}")
    assert not failures, "documented commands that fail:\n" + "\n".join(failures)


def test_the_extras_a_page_installs_are_read_as_a_person_reads_them(tmp_path: Path) -> None:
    """The check of the extras, on a page of its own: a `make setup-X` counts from where
    it is said on, with the extras X holds (pyproject.toml)."""
    page = tmp_path / "page.md"
    page.write_text(
        "Print one:\n\n```\ntable-controller deck print --out d.pdf\n```\n\n"
        "```\nmake setup-director setup-print   # once\ntable-controller deck print\n```\n"
        "and on a table, `make -C table setup-pi`.\n",
        encoding="utf-8",
    )
    first, second = (c for c in documented(page) if c.text.startswith("table-controller"))
    assert installed_before(page, first.line) == set()
    assert installed_before(page, second.line) == {"director", "feed", "print"}
    assert installed_before(page, 99) == {"director", "feed", "print", "pi"}
    assert unsaid_extras(second, {"reportlab", "paho"}) is None
    problem = unsaid_extras(first, {"reportlab"})
    assert problem is not None and "`make setup-print` for printing PDFs" in problem
    assert HOLDING["test"] >= {"feed", "pi", "print", "director"}


def test_a_command_s_optional_imports_are_seen(tmp_path: Path) -> None:
    """What ``unsaid_extras`` is given: the watched packages a command's Python
    processes import, its children's too, and none it does not."""
    env = _environment(tmp_path)
    watch_imports(env, tmp_path / ".watch", set(MODULES))
    log = tmp_path / "imports.txt"
    env["DOCS_IMPORTS"] = str(log)
    child = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import reportlab'])"
    script = f"import json, paho.mqtt.client; {child}"
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=WAIT)
    assert imported(log) == {"paho", "reportlab"}


def test_ports_named_or_taken_by_default_are_free_ones(tmp_path: Path) -> None:
    run = Page(tmp_path, {})
    live = run.on_free_ports("table-controller vision live --view 0.0.0.0:8090")
    assert ":8090" not in live and live.endswith(f"0.0.0.0:{run.ports[8090]}")
    started = run.on_free_ports("table-controller director start --folder x --web-port 8090")
    assert started.split()[-6:] == [
        "--web-port", str(run.ports[8090]), "--broker-port", str(run.ports[8883]),
        "--http-port", str(run.ports[8080]),
    ]  # fmt: skip
    assert run.on_free_ports("table-controller event demo") == (
        f"table-controller event demo --port {run.ports[8090]}"
    )
    assert run.on_free_ports("table-controller demo --port 0") == "table-controller demo --port 0"
    assert "--web-port" not in run.on_free_ports("table-controller director keys")
    assert _without_comment("table-controller x --event 'A # B'  # a note") == (
        "table-controller x --event 'A # B'"
    )


def test_every_exception_is_still_needed() -> None:
    """A line of NOT_HERE, SERVICES or FIXTURES that no page needs any more is removed, so
    the exceptions stay the few the pages need."""
    texts = [c.text for page in PAGES for c in documented(page)]
    for pattern, _why in NOT_HERE:
        assert any(re.search(pattern, t) for t in texts), f"NOT_HERE {pattern!r} is unused"
    for pattern, _ready in SERVICES:
        assert any(re.search(pattern, _filled(t)) for t in texts), f"{pattern!r} is unused"
    for pattern, _flags in DEFAULT_PORTS:
        assert any(re.search(pattern, t) for t in texts), f"DEFAULT_PORTS {pattern!r} is unused"
    assert any(re.search(JOINS, t) and not_here(t) is None for t in texts), "JOINS is unused"
    for word in FIXTURES:
        assert any(word in t for t in texts), f"FIXTURES {word!r} is unused"
