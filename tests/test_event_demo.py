"""``table-controller event demo`` as a director runs it: a real mosquitto, the
director's service and dashboard on SQLite, and simulated tables in processes of their
own. The command is started in a process, its printed login used on the dashboard's
/api/login, every table seen in /api/overview playing, then Ctrl-C: everything stops,
nothing is left running or listening, and the run's folder keeps the event. Its
refusals (a taken port, no tables, no mosquitto) are said in words with what to do.
The renege and the ruling are in test_event_demo_e2e.py."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
from test_director_web import log_in
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.demo.tournament import (
    NAMES,
    TournamentDemo,
    TournamentDemoError,
    find_mosquitto,
    player_names,
    run_folder,
)
from table_controller.director.session import COOKIE

ROOT = Path(__file__).resolve().parents[1]
GUARD = 240.0  # seconds: only a hang takes this long


def overview(url: str, cookie: str) -> dict[str, Any]:
    req = urllib.request.Request(url + "api/overview", headers={"Cookie": f"{COOKIE}={cookie}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        body: dict[str, Any] = json.loads(r.read())
        return body


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def alive(pid: int) -> bool:
    """Running (a zombie, exited and not yet reaped, is not)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text.rsplit(")", 1)[1].split()[0] != "Z"


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` (the broker and the tables), from /proc."""
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d.name)] = int(fields[1])
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found.update(kids)
        todo += kids
    return found


class Command:
    """``table-controller event demo ...`` in a process, its output read as it comes."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table_controller.cli", "event", "demo", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, into), daemon=True).start()

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    @property
    def text(self) -> str:
        return "".join(self.out)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


@pytest.fixture
def commands() -> Iterator[list[Command]]:
    """The commands a test starts, killed at its end if still running."""
    made: list[Command] = []
    yield made
    for c in made:
        c.close()


def ours(folder: Path, but: int = 0) -> list[int]:
    """Running processes whose command line names ``folder`` (the broker, the tables),
    but the command itself (``but``)."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != but:
            try:
                line = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if str(folder) in line and alive(int(d.name)):
                found.append(int(d.name))
    return found


@pytest.mark.slow(budget=45)  # a broker, the director and two tables start, play and stop
def test_the_command_runs_an_event_and_ctrl_c_stops_everything(
    tmp_path: Path, commands: list[Command]
) -> None:
    port = free_port()
    c = Command(
        "--tables", "2", "--port", str(port), "--folder", str(tmp_path), "--seed", "7", "--fast"
    )
    commands.append(c)

    def said_it_runs() -> bool:
        return "Ctrl-C stops it" in c.text or c.proc.poll() is not None

    wait_until("the demo says it runs", said_it_runs, GUARD)
    assert c.proc.poll() is None, "".join(c.err)
    text = c.text
    dashboard = re.search(r"The dashboard: +(http://\S+)", text)
    public = re.search(r"The public view: +(http://\S+)", text)
    login = re.search(r"log in as (\S+), password (\S+)", text)
    assert dashboard and public and login, text
    assert dashboard.group(1) == f"http://127.0.0.1:{port}/"
    assert public.group(1).endswith("/public")
    name, password = login.group(1).rstrip(","), login.group(2)
    cookie = log_in(dashboard.group(1), name, password)

    # Both tables, by name, with the players the chart seats there, and playing.
    names = player_names(7, 2)
    assert set(names) <= set(NAMES) and len(set(names)) == 8
    for k in (1, 2):
        assert f"Table {k} (" in text

    def events() -> dict[str, int]:
        tables = overview(dashboard.group(1), cookie)["tables"]
        return {t["table"]: t["events"] for t in tables if t["online"]}

    first = events()
    assert set(first) == {"table-1", "table-2"}
    wait_until(
        "both tables play on",
        lambda: all(n > first[t] for t, n in events().items()),
        GUARD,
    )
    view = overview(dashboard.group(1), cookie)
    for t in view["tables"]:
        k = int(t["table"].split("-")[1])
        assert t.get("title", f"Table {k}") == f"Table {k}"  # "title": the dashboard's part
        assert set(t["players"].values()) <= set(names)
    assert view["event"]["format"] == "progressive"

    # The run's own folder: secrets readable by their owner only, the login nowhere.
    kept = re.search(r"Everything is kept in (\S+)", text)
    assert kept is not None
    folder = Path(kept.group(1))
    assert folder.parent == tmp_path
    secret_files = [
        folder / "broker" / "passwords",
        folder / "broker" / "passwords.txt",
        folder / "director" / "director.key",
        *(folder / "broker" / "secrets").iterdir(),
    ]
    for f in secret_files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    broker_passwords = (folder / "broker" / "passwords.txt").read_text()
    for f in folder.rglob("*"):
        if f.is_file() and f.suffix in (".toml", ".txt", ".json", ".conf", ".log"):
            assert password not in f.read_text(errors="replace"), f
    for line in broker_passwords.splitlines()[1:]:
        assert line.split()[1] not in text  # no broker password printed

    children = descendants(c.proc.pid)
    listener = re.search(r"listener (\d+)", (folder / "broker" / "mosquitto.conf").read_text())
    assert listener is not None
    broker_port = int(listener.group(1))
    assert len(children) >= 3 and listening(broker_port)
    c.proc.send_signal(signal.SIGINT)
    assert c.proc.wait(GUARD) == 0
    wait_until("the output is read", lambda: "Stopped." in c.text, 10)
    assert "Traceback" not in "".join(c.err) + c.text, "".join(c.err)
    assert f"Everything was kept in {folder}" in c.text
    assert not [p for p in children if alive(p)] and not ours(folder)
    assert not listening(port) and not listening(broker_port)
    assert (folder / "director.sqlite").exists()
    assert not (folder / "director.sqlite-wal").exists()  # the store was closed


@pytest.mark.slow(budget=20)
def test_ctrl_c_while_it_starts_leaves_nothing_running(
    tmp_path: Path, commands: list[Command]
) -> None:
    c = Command("--tables", "1", "--port", "0", "--folder", str(tmp_path), "--fast")
    commands.append(c)
    wait_until(
        "the broker runs",
        lambda: bool(ours(tmp_path, but=c.proc.pid)) or c.proc.poll() is not None,
        GUARD,
    )
    c.proc.send_signal(signal.SIGINT)
    assert c.proc.wait(GUARD) == 130
    wait_until("the output is read", lambda: "Stopped before the event started" in c.text, 10)
    assert "Traceback" not in "".join(c.err)
    # A Ctrl-C that lands while a child is being started (between its exec and the demo
    # holding it) leaves it to end with the demo: the broker by its parent-death signal,
    # a table when its standard input closes. Either way nothing stays.
    wait_until("nothing of the demo runs", lambda: not ours(tmp_path), 30)


@pytest.mark.slow(budget=20)
def test_a_demo_killed_outright_leaves_nothing_running(
    tmp_path: Path, commands: list[Command]
) -> None:
    """SIGKILL (no clean-up runs): the tables see their input close, the broker gets its
    parent-death signal; each ends by itself."""
    c = Command("--tables", "1", "--port", "0", "--folder", str(tmp_path), "--fast")
    commands.append(c)
    wait_until("it runs", lambda: "Ctrl-C stops it" in c.text or c.proc.poll() is not None, GUARD)
    assert len(ours(tmp_path, but=c.proc.pid)) == 2  # the broker and the table
    c.proc.kill()
    c.proc.wait(GUARD)
    wait_until("the broker and the table end", lambda: not ours(tmp_path), GUARD)


def test_each_run_keeps_a_folder_of_its_own(tmp_path: Path) -> None:
    first = run_folder(tmp_path, "2026-05-01_190000")
    (first / "director.sqlite").write_text("the first event")
    second = run_folder(tmp_path, "2026-05-01_190000")  # started in the same second
    assert second != first and second.parent == tmp_path
    assert (first / "director.sqlite").read_text() == "the first event"
    assert stat.S_IMODE(second.stat().st_mode) == 0o700


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_cli(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["event", "demo", *args], out=io.StringIO())
    return code, err.getvalue()


def test_bad_numbers_are_refused_in_words(tmp_path: Path) -> None:
    code, err = run_cli("--tables", "0", "--folder", str(tmp_path))
    assert code == 2 and "--tables 0" in err and "from 1 to" in err
    code, err = run_cli("--tables", "2", "--renege", "3", "--folder", str(tmp_path))
    assert code == 2 and "--renege 3" in err and "1 to 2" in err
    with pytest.raises(TournamentDemoError, match="--port"):
        TournamentDemo(2, port=70000, folder=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing made


def test_without_mosquitto_it_says_how_to_install_it(tmp_path: Path) -> None:
    path = str(Path(sys.executable).parent)  # the venv's bin: python, no mosquitto
    env = dict(os.environ, PATH=path)
    assert find_mosquitto(env) is None
    demo = TournamentDemo(2, port=0, folder=tmp_path, environ=env)
    with pytest.raises(TournamentDemoError, match="make setup-director"):
        demo.start()
    assert list(tmp_path.iterdir()) == []
    assert find_mosquitto({"PATH": "/usr/bin:/bin"}) is not None  # Debian's /usr/sbin


def test_a_taken_port_is_said_with_the_option_to_change_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        demo = TournamentDemo(1, port=port, folder=tmp_path)
        started = time.monotonic()
        with pytest.raises(TournamentDemoError, match=f"port {port} is taken.*--port"):
            demo.start()
        assert time.monotonic() - started < GUARD
    # What had started (the broker) is stopped again; the run's folder is kept.
    assert not ours(tmp_path)
    assert [p.is_dir() for p in tmp_path.iterdir()] == [True]


def test_without_the_director_s_packages_it_says_which_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "paho", None)  # as if the [director] extra was left out
    code, err = run_cli("--tables", "1", "--folder", str(tmp_path))
    assert code == 2 and "the director's feed (MQTT)" in err and "make setup-director" in err
    assert list(tmp_path.iterdir()) == []
