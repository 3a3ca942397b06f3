"""``table-controller director start --folder DIR`` as a director runs it: the first run
makes the folder and prints the login once, a later run reuses it (the tables added
kept), Ctrl-C stops everything, and nothing is left running."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mosquitto import free_port
from test_director_dynsec import log_in as broker_log_in
from test_director_web import log_in
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.broker import DynsecAdmin, FleetBroker
from table_controller.director.start import open_folder, parse_options
from table_controller.table.fleet.membership import Membership

EVENT = "Spring Open"
DIRECTOR_START = [sys.executable, "-m", "table_controller.cli", "director", "start"]


class Director:
    """``director start`` in a process of its own; its output read line by line."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*DIRECTOR_START, "--folder", str(folder), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.said: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first line (from here on) matching ``pattern``; fails if it ends first."""
        while True:
            line = self.lines.get(timeout=120)  # only against a hang
            if line is None:
                raise AssertionError("it stopped:\n" + "".join(self.said))
            self.said.append(line)
            if found := re.search(pattern, line):
                return found

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(60)
        while (line := self.lines.get(timeout=60)) is not None:
            self.said.append(line)
        return code


def started(folder: Path, web: int, broker: int, *more: str) -> Director:
    """``director start`` of a new event on the given ports (plain HTTP's on a free one)."""
    return Director(
        folder, "--event", EVENT, "--web-port", str(web), "--broker-port", str(broker),
        "--http-port", "0", *more,
    )  # fmt: skip


def running_with(folder: Path) -> list[int]:
    """The processes whose command line names ``folder`` (the broker's conf is in it)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(folder) in cmdline:
            pids.append(int(proc.name))
    return pids


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def trusting(folder: Path) -> ssl.SSLContext:
    """TLS that trusts the event's own authority only, as a joined table does."""
    return ssl.create_default_context(cafile=str(folder / "tls" / "ca.crt"))


def admin_of(folder: Path, port: int) -> DynsecAdmin:
    broker = folder / "broker"
    files = FleetBroker(
        conf=broker / "mosquitto.conf",
        port=port,
        director_user="director",
        director_password_file=broker / "secrets" / "director.password",
        admin_user="director-admin",
        admin_password_file=broker / "secrets" / "director-admin.password",
        dynsec=broker / "dynamic-security.json",
        tls_ca=folder / "tls" / "ca.crt",
    )
    prefix = "euchre/" + EVENT
    return DynsecAdmin.of(files, prefix=prefix)


def up(folder: Path, web: int, broker: int) -> tuple[Director, str, str, ssl.SSLContext]:
    """``director start`` in ``folder`` until it is ready: the process, the director's
    password and the dashboard's address it printed, and a context trusting its event."""
    director = started(folder, web, broker)
    password = director.wait_for(r"as director, password (\S+)")[1]
    url = director.wait_for(r"The dashboard: (\S+)")[1]
    director.wait_for("Press Ctrl-C to stop")
    return director, password, url, trusting(folder)


@pytest.mark.slow(budget=60)
def test_a_first_run_makes_the_folder_and_a_second_reuses_it(tmp_path: Path) -> None:
    folder = tmp_path / "spring"
    web, broker = free_port(), free_port()
    first, password, url, tls = up(folder, web, broker)
    assert url.startswith("https://")
    assert log_in(url, "director", password, tls)
    admin = admin_of(folder, broker)
    table_password = admin.add_table("table-1")
    second_try = Director(folder)  # the same event twice: its ports are taken
    assert second_try.proc.wait(60) == 2
    second_try.interrupt()
    assert f"port {broker} is taken" in "".join(second_try.said)
    assert first.interrupt() == 0, "".join(first.said)
    out = "".join(first.said)
    assert str(folder / "director.sqlite") in out and "Stopped" in out
    assert running_with(folder) == [] and port_free(broker) and port_free(web)
    for private in (
        folder / "director.key",
        folder / "broker" / "secrets" / "director.password",
        folder / "broker" / "dynamic-security.json",
    ):
        assert private.stat().st_mode & 0o077 == 0, private
    assert json.loads((folder / "fleet.json").read_text())["broker_port"] == broker

    second = Director(folder)  # the ports and the event as the first run kept them
    url_again = second.wait_for(r"The dashboard: (\S+)")[1]
    second.wait_for("Press Ctrl-C to stop")
    assert url_again == url
    assert "password" not in "".join(second.said)
    assert log_in(url, "director", password, trusting(folder))  # a new certificate, same CA
    assert admin.tables() == ["table-1"]
    table = broker_log_in(broker, "table-1", table_password, folder / "tls" / "ca.crt")
    table.close()
    assert not table.connacks[0].is_failure
    assert second.interrupt() == 0, "".join(second.said)
    assert running_with(folder) == [] and port_free(broker)


def test_rule_options_are_kept_and_given_again_replace_the_kept(tmp_path: Path) -> None:
    """`--option` (the event's rules, as every table is sent them): numbers, yes/no and
    words; kept in fleet.json, replaced when given again, checked against the preset."""
    folder = tmp_path / "cup"
    ev, made = open_folder(
        folder, event="Cup", rules="td-progressive", web_port=None, broker_port=None,
        options=parse_options(["points-to-win=none", "hands_per_game=8"]),
    )  # fmt: skip
    assert made and ev.options == {"points_to_win": None, "hands_per_game": 8}
    folder.mkdir()  # as the first run does
    ev.save()
    again, made = open_folder(folder, event=None, rules=None, web_port=None, broker_port=None)
    assert not made and again.options == ev.options
    changed, _ = open_folder(
        folder, event=None, rules=None, web_port=None, broker_port=None,
        options=parse_options(["hands_per_game=4", "points_to_win=none"]),
    )  # fmt: skip
    assert json.loads((folder / "fleet.json").read_text())["options"]["hands_per_game"] == 4
    assert changed.options["hands_per_game"] == 4


def test_what_cannot_start_is_said_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["director", "start", "--folder", str(tmp_path / "a"), "--event", "May/June"]) == 2
    assert "the event's name may hold" in capsys.readouterr().err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    assert main(["director", "start", "--folder", str(busy)]) == 2
    assert "holds other files and no event" in capsys.readouterr().err
    assert main(["director", "start", "--folder", str(tmp_path / "b"), "--rules", "nope"]) == 2
    assert "--rules nope" in capsys.readouterr().err
    start_b = ["director", "start", "--folder", str(tmp_path / "b")]
    assert main([*start_b, "--option", "points_to_wn=11"]) == 2
    said = capsys.readouterr().err
    assert "--option points_to_wn=11" in said and "did you mean 'points_to_win'" in said
    assert main([*start_b, "--option", "points_to_win"]) == 2
    assert "give NAME=VALUE" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no mosquitto on it
    assert main(["director", "start", "--folder", str(tmp_path / "c")]) == 2
    assert "install Debian's package `mosquitto`" in capsys.readouterr().err
    assert not any((tmp_path / d).exists() for d in ("a", "b", "c"))


def joined_and_approved(
    folder: Path, found: object, url: str, cookie: str, tls: ssl.SSLContext, name: str
) -> Membership:
    """A table in ``folder`` joins the director ``found`` (discovery's), its code approved
    and named ``name`` as the Fleet page does: its membership."""
    from test_director_web import get_json, post

    from table_controller.table.fleet.join import join

    codes: list[str] = []
    joined: list[Membership] = []
    stop = threading.Event()

    def run() -> None:
        joined.append(
            join(
                folder,
                director=found,  # type: ignore[arg-type]
                on_code=lambda shown, _f: codes.append(shown.code),
                on_words=lambda _w: None,
                stop=stop,
                sleep=lambda _s: stop.wait(0.02),
            )
        )

    asking = threading.Thread(target=run, daemon=True)
    asking.start()
    wait_until("the table shows its code", lambda: codes != [])
    [asked] = get_json(url + "api/fleet/requests", cookie, tls)["requests"]
    form = {"request": asked["request"], "code": codes[0], "name": name}
    status, _answer = post(url + "api/fleet/approve", form, cookie, tls)
    assert status == 200, _answer
    asking.join(60)
    stop.set()
    [member] = joined
    return member


@pytest.mark.slow(budget=60)
def test_a_table_joins_the_started_event_and_once_removed_is_refused(tmp_path: Path) -> None:
    """The whole director side as ``director start`` wires it: a table asks, the
    director approves its code, the table logs in to the broker with what it was given;
    removed, it is dropped and refused."""
    from test_director_web import post

    from table_controller.fleet import discovery

    folder = tmp_path / "spring"
    web, broker = free_port(), free_port()
    director, password, url, tls = up(folder, web, broker)
    try:
        cookie = log_in(url, "director", password, tls)
        found = discovery.parse_director(f"127.0.0.1:{web}")
        assert (found.event, found.broker_port) == (EVENT, broker)
        m = joined_and_approved(tmp_path / "table", found, url, cookie, tls, "Table 7")
        assert (m.table, m.name) == ("table-7", "Table 7")
        # The table was given the event's authority, in the signed bundle, and kept it.
        assert m.ca == (folder / "tls" / "ca.crt").read_text()  # type: ignore[attr-defined]
        ca = tmp_path / "table" / "director-ca.crt"
        assert ca.read_text() == m.ca  # type: ignore[attr-defined]
        table = broker_log_in(broker, m.username, m.password, ca)  # type: ignore[attr-defined]
        assert not table.connacks[0].is_failure
        assert table.subscribe(f"euchre/{EVENT}/tables/table-7/config")
        status, _ = post(url + "api/fleet/remove", {"table": "table-7"}, cookie, tls)
        assert status == 200
        wait_until("the removed table is dropped", lambda: bool(table.disconnects))
        table.close()
        again = broker_log_in(broker, m.username, m.password, ca)  # type: ignore[attr-defined]
        again.close()
        assert again.connacks[0].getName() == "Not authorized"
    finally:
        assert director.interrupt() == 0, "".join(director.said)
    assert running_with(folder) == []
