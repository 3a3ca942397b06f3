"""The fleet in the Pi in a box: the box's table, as first-boot.sh left it (a fleet's table,
its service joining), joins a director running on this machine by its code, is approved,
and plays a game that the director's dashboard shows.

The director is ``table-controller director start`` here, on free ports, as the fleet's
tests start it (tests/test_director_start.py): its broker and dashboard with the
event's own TLS. The box reaches this machine at 10.0.2.2 (QEMU's user network), which
carries no multicast: the director's announcement cannot reach the box, so the table is
given the director's address and key as docs/fleet.md tells a person to ("When the
tables cannot find the director"): the service stopped, ``table-controller join
--director 10.0.2.2:PORT --fingerprint ...`` run in the box, the service started again.

What is simulated: the players and the camera (the synthetic table, the box's own
table.toml changed to it, on mock pins), and the director's click (its Fleet page's own
route, ``POST /api/fleet/approve``, with the code read off the table's terminal).
"""

from __future__ import annotations

import json
import queue
import re
import shlex
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from box_machine import FIGURES, Box
from box_table import as_first_boot_left, service_use
from mosquitto import free_port
from security.test_fleet_tls import answer_to_plain, mqtt_connect
from test_director_start import Director, started, trusting
from test_director_web import get_json, log_in, post

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]

HOST = "10.0.2.2"  # this machine, from inside the box (QEMU's user network)
CONFIG = "/etc/table-controller/table.toml"
STATE = "/var/lib/table-controller"
FLEET = f"{STATE}/fleet"
CALIBRATION = f"{STATE}/calibration/table.json"
TABLE = "/opt/table-controller/.venv/bin/table-controller"
EVENT = "Spring Open"  # test_director_start's
PLAYERS = {"1": "Ada Byron", "2": "Bo Diddley", "3": "Cy Young", "4": "Di Fletcher"}


class Dashboard:
    """The director started here, logged in as its dashboard's page logs in."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.web, self.broker = free_port(), free_port()
        self.process: Director = started(folder, self.web, self.broker)
        password = self.process.wait_for(r"as director, password (\S+)")[1]
        self.url = self.process.wait_for(r"The dashboard: (\S+)")[1]
        self.process.wait_for("Press Ctrl-C to stop")
        self.tls = trusting(folder)  # the event's authority, as a joined table trusts it
        self.cookie = log_in(self.url, "director", password, self.tls)

    def get(self, path: str) -> dict[str, object]:
        found: dict[str, object] = get_json(self.url + path, self.cookie, self.tls)
        return found

    def post(self, path: str, body: dict[str, object]) -> dict[str, object]:
        status, answer = post(self.url + path, body, self.cookie, self.tls)
        assert status == 200, f"{path}: {status} {answer}"
        return answer


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[Dashboard]:
    director = Dashboard(tmp_path / "spring")
    try:
        yield director
    finally:
        assert director.process.interrupt() == 0, "".join(director.process.said)


def simulated_fleet_table(box: Box) -> str:
    """The box's own table.toml (first-boot.sh's: the example in fleet mode) made the
    simulated table, as a person would edit it: mock pins, the synthetic camera (whose
    simulated players play by themselves) with the patience its frames need under
    emulation, no cube; North deals first (the example's own line, uncommented: the
    draw for the first deal would cost minutes of frames under emulation)."""
    text = box.ssh(f"cat {CONFIG}").stdout
    changes = {
        "# first_dealer = ": "first_dealer = ",
        'gpio = "auto"': 'gpio = "mock"',
        'source = "picamera2"': 'source = "synthetic"',
        "lost_after = 3.0": "lost_after = 30.0",
        "drift_check = 10.0": "drift_check = 0",
        'port = "auto"  ': 'port = "none"  ',
    }
    assert f'folder = "{FLEET}"' in text, f"not a fleet's table.toml:\n{text}"
    for old, new in changes.items():
        assert old in text, f"the box's table.toml has changed ({old!r} is gone): update this test"
        text = text.replace(old, new, 1)
    return text


def box_answers_tls(box: Box, port: int, ca: str) -> str:
    """What the box's Python says of a TLS connection to this machine's ``port``, checked
    against ``ca`` (the event's authority the table keeps): the version, or the error."""
    script = (
        "import socket, ssl, sys\n"
        f"context = ssl.create_default_context(cafile={ca!r})\n"
        "context.check_hostname = False\n"
        "try:\n"
        f"    with socket.create_connection(({HOST!r}, {port}), timeout=30) as raw:\n"
        f"        with context.wrap_socket(raw, server_hostname={HOST!r}) as s:\n"
        "            print(s.version())\n"
        "except (OSError, ssl.SSLError) as exc:\n"
        "    print('refused:', exc)\n"
    )
    return box.ssh(f"sudo python3 -c {shlex.quote(script)}").stdout.strip()


def test_the_boxs_table_joins_the_director_here_and_its_game_is_on_the_dashboard(
    fast_table: Box, dashboard: Dashboard
) -> None:
    """The table given the director's address (10.0.2.2: this machine, from the box) and
    key as docs/fleet.md says, its code read off its terminal, approved through the
    Fleet page's route and named; the director seats it, it plays, and its first hand's
    score is in the dashboard's overview (what the dashboard draws). Everything the
    table sent reached the director over TLS checked against the event's authority, which
    the table was given in the signed bundle; in clear the broker takes nothing.

    The table joins at 10.0.2.2, an address the director's certificate cannot name (this
    machine has no such address): before the fix in feed/tls.py's ``client_context``
    (tests/test_fleet_reached_address.py) its feed was refused by that name check.
    Given a wrong address (10.0.2.2 with a port nothing listens on), `join` ends at once
    with "error: the director at 10.0.2.2:PORT cannot be reached ([Errno 111] Connection
    refused): check that the director's service runs and the address, ..." and the test
    fails waiting for a code, naming those words: checked by hand (6 min 41 s).
    """
    box = fast_table  # the simulated table at its fast pace (conftest.py)
    as_first_boot_left(box)  # the box's other tests run a club's table on it
    box.sudo_write(CONFIG, simulated_fleet_table(box))
    if box.ssh(f"sudo test -f {CALIBRATION}").returncode != 0:
        done = box.ssh(
            f"cd /tmp && sudo -u euchre {TABLE} calibrate --camera synthetic --frames 3"
            f" --out {CALIBRATION}",
            timeout=600,
        )
        assert done.returncode == 0, f"calibrating failed: {done.stdout}{done.stderr}"
    check = box.ssh(f"cd /opt/table-controller && sudo -u euchre {TABLE} config check {CONFIG}")
    good = "table.toml is good." in check.stdout or "table.toml is a good file" in check.stdout
    assert good, check.stdout + check.stderr

    # The director seats the table's place before it joins (its first config carries
    # the players, so it deals at once): a progressive event of one round, place 1.
    dashboard.post(
        "api/event/create",
        {"format": "progressive", "rounds": 1, "entrants": "\n".join(PLAYERS.values())},
    )
    dashboard.post("api/event/assign", {"round": 1, "places": {"table-1": "1"}})
    key = str(dashboard.get("api/fleet/requests")["key_fingerprint"])  # the Fleet page's

    # The person at the table: the service stopped, `join` given the address and key.
    # The fleet folder goes first, as docs/fleet.md makes a table ask anew: every box laid
    # over the cached first-booted disk has the join key its service made there, as
    # every card cloned from one would, so another box on this machine, finding this
    # director by itself, would take this table's approval too (two machines logged in as
    # table-1, each closing the other's connection: seen, hardware/box/README.md).
    assert box.ssh("sudo systemctl stop table-controller", timeout=300).returncode == 0
    assert box.ssh(f"sudo test ! -e {FLEET}/membership.json").returncode == 0, "joined already"
    assert box.ssh(f"sudo rm -r {FLEET}").returncode == 0
    join = Terminal(
        box,
        f"sudo -u euchre {TABLE} join --config {CONFIG} --director {HOST}:{dashboard.web}"
        f" --fingerprint {shlex.quote(key)}",
    )
    started_at = time.monotonic()
    try:
        code = join.wait_for(r"Join code (\d{4})\b", within=600)[1]
        shown = time.monotonic() - started_at

        # The director, on the Fleet page: the request showing that code, approved, named.
        requests = dashboard.get("api/fleet/requests")["requests"]
        assert isinstance(requests, list)
        [asked] = [r for r in requests if r["code"] == code]
        assert asked["host"] == "raspberrypi", asked  # the box's hostname, as the page shows it
        named = dashboard.post(
            "api/fleet/approve", {"request": asked["request"], "code": code, "name": "Table 1"}
        )
        assert named == {"table": "table-1", "name": "Table 1"}
        approved = time.monotonic() - started_at
        join.wait_for(f"This table is Table 1 of {EVENT}", within=600)
    finally:
        join.close()

    # The table's membership: the event's authority and the address it reached.
    kept = json.loads(box.ssh(f"sudo cat {FLEET}/membership.json").stdout)
    assert (kept["director_host"], kept["broker_port"]) == (HOST, dashboard.broker), kept
    ca = (dashboard.folder / "tls" / "ca.crt").read_text()
    assert box.ssh(f"sudo cat {FLEET}/director-ca.crt").stdout == ca

    assert box.ssh("sudo systemctl start table-controller", timeout=300).returncode == 0

    def scored() -> dict[str, object] | None:
        for t in dashboard.get("api/overview")["tables"]:  # type: ignore[union-attr]
            if t["table"] == "table-1" and sum(t.get("scores") or [0]) > 0:
                return dict(t)
        return None

    box.wait_for("the first hand's score on the director's dashboard", lambda: bool(scored()), 2400)
    first_score = time.monotonic() - started_at
    table = scored()
    assert table is not None
    assert set(table["players"].values()) == set(PLAYERS.values()), table  # type: ignore[attr-defined]
    assert table["name"] == "Table 1", table
    # The machine it reports from, on the Fleet page: the box's own network card (an
    # address of its own, as a Pi's), read by the table's service under its unit's
    # sandbox and told by its fingerprint; one machine, so no copied card.
    from table_controller.table.fleet.identity import fingerprint

    short = fingerprint("network", box.mac())[:8]
    row = next(t for t in dashboard.get("api/fleet")["tables"] if t["table"] == "table-1")  # type: ignore[union-attr]
    assert row["machine_text"] == f"Machine {short[:4]}-{short[4:]} (by its network card)", row
    assert row["copied_text"] is None, row

    # Encrypted: the box's end of the feed is connected to the broker, which takes TLS
    # only (with the event's certificate: the box checks it with what the table keeps),
    # and a plain MQTT login is not answered.
    def linked() -> bool:
        links = box.ssh(f"ss -tnH state established dst {HOST}").stdout
        return f"{HOST}:{dashboard.broker}" in links

    box.wait_for("the table's feed connected to the broker", linked, within=300)
    broker_log = (dashboard.folder / "broker" / "mosquitto.log").read_text()
    assert "Client table-1 already connected" not in broker_log, "two machines are table-1"
    for port in (dashboard.broker, dashboard.web):
        assert box_answers_tls(box, port, f"{FLEET}/director-ca.crt").startswith("TLS"), port
    reply = answer_to_plain(dashboard.broker, mqtt_connect("table-1", "sniffed"))
    assert not reply.startswith(b"\x20"), reply  # no CONNACK: not MQTT in clear
    journal = box.ssh("journalctl -b -u table-controller -o cat --no-pager").stdout
    assert "certificate was refused" not in journal, journal[-3000:]

    FIGURES.append(
        f"the fleet from the box (seconds from `join --director {HOST}`): its code shown "
        f"{shown:.0f} s, approved {approved:.0f} s, the first hand's score on the director's "
        f"dashboard {first_score:.0f} s"
    )
    FIGURES.append(f"the fleet's simulated table's service (playing): {service_use(box)}")


class Terminal:
    """A command run in the box, its output read as a person reads their terminal."""

    def __init__(self, box: Box, command: str) -> None:
        self.process = box.follow(command + " 2>&1")
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.said: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str, within: float) -> re.Match[str]:
        """The first line from here on matching ``pattern``; fails naming what was said."""
        limit = time.monotonic() + within
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, limit - time.monotonic()))
            except queue.Empty:
                raise AssertionError(
                    f"not said in {within:.0f} s: {pattern}\n" + "".join(self.said)
                ) from None
            if line is None:
                raise AssertionError(f"it ended without saying {pattern}:\n" + "".join(self.said))
            self.said.append(line)
            if found := re.search(pattern, line):
                return found

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(60)
