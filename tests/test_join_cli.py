"""``table-controller join`` as a person runs it, against a real dashboard in fleet
mode (test_fleet_join's Director: real HTTP, a real SQLite store): the table prints and
shows its code, the director approves it over the API, the table says what it became
and keeps it; a second run says it has joined already; Ctrl-C ends a join in words."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from mosquitto import free_port
from test_director_web import post
from test_fleet_join import Director, director  # noqa: F401  (the fixture)
from waiting import wait_until

from table_controller.fleet.discovery import key_fingerprint
from table_controller.table.config import (
    TableConfig,
    example_config,
    fleet_example_config,
    parse_config,
)
from table_controller.table.fleet import membership
from table_controller.table.fleet.display import join_showing
from table_controller.table.fleet.join_cli import fleet_folder

# The table's config reads [fleet] (issue 20's config part, branch fleet-config): until
# that is merged, a table cannot be in a fleet and these wait for it.
needs_fleet_config = pytest.mark.skipif(
    "fleet" not in {f.name for f in dataclasses.fields(TableConfig)},
    reason="the table's config does not read [fleet] yet (merge fleet-config)",
)

ROOT = Path(__file__).resolve().parents[1]
WAIT = 120.0  # only against a hang


def table_file(folder: Path) -> Path:
    path = folder / "table.toml"
    path.write_text(
        '[table]\ngpio = "mock"\n[camera]\nsource = "synthetic"\n'
        f'[cube]\nport = "none"\n[web]\nhost = "127.0.0.1"\nport = {free_port()}\n'
        '[fleet]\nfolder = "fleet"\n'
    )
    return path


class Joining:
    """``table-controller join`` running, its lines read as they come."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table_controller.cli", "join", *args],
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def line(self, pattern: str) -> re.Match[str]:
        """The first line matching ``pattern``, waited for."""
        wait_until(
            f"a line like {pattern!r}; so far: {self.lines}",
            lambda: any(re.search(pattern, x) for x in self.lines) or self.proc.poll() is not None,
            WAIT,
        )
        found = next((m for x in self.lines if (m := re.search(pattern, x))), None)
        assert found is not None, f"{pattern!r} not said; it said: {self.lines}"
        return found

    def end(self) -> int:
        return self.proc.wait(WAIT)


@needs_fleet_config
def test_a_table_joins_from_the_command_line(director: Director, tmp_path: Path) -> None:  # noqa: F811
    config = table_file(tmp_path)
    joining = Joining(
        "--config", str(config), "--director", f"http://127.0.0.1:{director.port}", cwd=tmp_path
    )
    try:
        url = joining.line(r"shown on this table's page: (http://\S+)").group(1)
        code = joining.line(r"^Join code (\d{4}): ").group(1)
        wait_until("the director sees the request", lambda: len(director.waiting()) == 1)
        [asked] = director.waiting()
        assert asked["code"] == code
        with urllib.request.urlopen(url, timeout=10) as page:
            html = page.read().decode()
        assert "Joining Spring Open" in html and "".join(f"<span>{d}</span>" for d in code) in html
        status, _ = post(
            director.url + "api/fleet/approve",
            {"request": asked["request"], "code": code, "name": "Table 7"},
            director.cookie,
        )
        assert status == 200
        assert joining.end() == 0, joining.lines
    finally:
        if joining.proc.poll() is None:
            joining.proc.kill()
    assert "This table is Table 7 of Spring Open." in "\n".join(joining.lines)
    kept = membership.load(tmp_path / "fleet")
    assert kept is not None and kept.name == "Table 7"
    # Once joined, joining again says so and changes nothing.
    again = Joining("--config", str(config), cwd=tmp_path)
    assert again.end() == 0
    assert again.line("has joined Spring Open already, as Table 7")


@needs_fleet_config
def test_ctrl_c_ends_a_join_in_words(director: Director, tmp_path: Path) -> None:  # noqa: F811
    config = table_file(tmp_path)
    joining = Joining(
        "--config", str(config), "--director", f"http://127.0.0.1:{director.port}", cwd=tmp_path
    )
    try:
        joining.line(r"^Join code \d{4}")
        joining.proc.send_signal(signal.SIGINT)
        assert joining.end() == 130
    finally:
        if joining.proc.poll() is None:
            joining.proc.kill()
    assert joining.line("Stopped before the director approved this table")
    assert membership.load(tmp_path / "fleet") is None


def join_alone(config: Path) -> subprocess.CompletedProcess[str]:
    """``join --config FILE`` with no director: what it says of the file."""
    return subprocess.run(
        [sys.executable, "-m", "table_controller.cli", "join", "--config", str(config)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def test_a_table_not_in_a_fleet_is_told_what_to_add(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    alone = table_file(tmp_path).read_text().replace('[fleet]\nfolder = "fleet"\n', "")
    config.write_text(alone.replace("[table]\n", '[table]\nname = "Table 1"\n'))
    done = join_alone(config)
    assert done.returncode == 2
    assert "Change it in these 2 ways, then join again:" in done.stderr
    assert '1. add these two lines:\n      [fleet]\n      folder = "fleet"\n' in done.stderr
    assert "2. remove name from [table]: a fleet's table is given its name" in done.stderr
    assert "`table-controller config example --fleet --out fleet-table.toml`" in done.stderr


def test_a_table_of_its_own_is_told_every_change_at_once(tmp_path: Path) -> None:
    """`config example`'s file, given to `join`: every change it needs in one message
    (it was five refusals, one change at a time)."""
    config = tmp_path / "table.toml"
    config.write_text(example_config(), encoding="utf-8")
    done = join_alone(config)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = done.stderr
    assert "Change it in these 5 ways" in said
    for change in (
        "[fleet]",
        "remove name from [table]",
        "remove [rules]",
        "remove [players]",
        "keep only heartbeat, public_delay or tls_ca under [feed]",
    ):
        assert change in said, change
    assert "or remove [fleet]" not in said  # the other way out is not this command's


def test_the_fleet_example_joins_as_it_is(tmp_path: Path) -> None:
    """`config example --fleet`: a file `join` and `run` take as it is (a fleet's table,
    nothing the director gives), every other key as the table's own example."""
    config = parse_config(tomllib.loads(fleet_example_config()), tmp_path)
    assert config.fleet is not None and config.fleet.folder == tmp_path / "fleet"
    assert fleet_folder(config) == tmp_path / "fleet"
    alone = parse_config(tomllib.loads(example_config()), tmp_path)
    assert (config.camera, config.cube, config.pins, config.web, config.kiosk) == (
        alone.camera, alone.cube, alone.pins, alone.web, alone.kiosk
    )  # fmt: skip
    data = tomllib.loads(fleet_example_config())
    assert "rules" not in data and "players" not in data and "name" not in data["table"]


def test_join_showing_shows_the_code_until_the_director_approves(
    director: Director,  # noqa: F811
    tmp_path: Path,
) -> None:
    """What `join` and the service run, in this process: the page shows the code while
    the table waits, and the port is free again once it has joined."""
    config = parse_config(
        {
            "table": {"name": "Table", "gpio": "mock"},
            "camera": {"source": "synthetic"},
            "cube": {"port": "none"},
            "web": {"host": "127.0.0.1", "port": free_port()},
        },
        tmp_path,
    )
    said: list[str] = []
    result: list[Any] = []
    joining = threading.Thread(
        target=lambda: result.append(
            join_showing(config, tmp_path / "fleet", director=director.found(), say=said.append)
        ),
        daemon=True,
    )
    joining.start()
    wait_until("the director sees the request", lambda: len(director.waiting()) == 1)
    [asked] = director.waiting()
    wait_until("the code said", lambda: any(w.startswith("Join code") for w in said))
    assert f"Join code {asked['code']}: on the dashboard's Fleet page" in "\n".join(said)
    url = next(w for w in said if "shown on this table's page" in w).rsplit(" ", 1)[1]
    with urllib.request.urlopen(url, timeout=10) as page:
        html = page.read().decode()
    assert "Joining Spring Open" in html and key_fingerprint(director.public) in html
    assert asked["check"] in html  # the Fleet page's check, on the table's page
    assert "Waiting for the director to approve code" in html
    status, _ = post(
        director.url + "api/fleet/approve",
        {"request": asked["request"], "code": asked["code"], "name": "Table 4"},
        director.cookie,
    )
    assert status == 200
    joining.join(WAIT)
    assert not joining.is_alive() and result[0].name == "Table 4"
    assert said[-1] == "Joined Spring Open as Table 4"
    with socket.create_server(("127.0.0.1", config.web.port)):
        pass  # the page's port is free for the table's own page
