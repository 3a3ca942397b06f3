"""The update path attacked, against real processes (issue "Trust over the air", finding
8): a table run as its unit runs it on a Pi (the unit's own ExecStartPre and ExecStart
lines, the guard of the set-up copy, the table's `run` from its release folder named by
``current``, restarted on 75 as systemd does), a real mosquitto, the director's service
storing the tables' words, its update runner signing the orders and its release route
serving the wheels over HTTP. Each attack here succeeded on the code before, and is
refused now: a replayed order, an older version, a release that hangs at start, and a
refused release's folder used again.

No LAN is needed (one table, the director and the broker on the loopback), so no network
namespaces. Waits are for conditions; the guard's limit is a few seconds, never timed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import waiting
from fleet_wheels import BROKEN_INIT, HANG_MAIN, REPO, Served, install_package, make_real_wheel
from fleet_wheels import make_wheel as make_fake_wheel
from test_fleet_run import KEYS, TABLE, TOPICS, Fleet, _state, local_config
from test_fleet_run import director as director  # the fixture: a broker and the director

from table_controller.director.fleet.config import push
from table_controller.director.fleet.update import UpdateRunner, add_release, status_words
from table_controller.director.store import FleetUpdates
from table_controller.feed.signing import new_keys
from table_controller.fleet import update
from table_controller.fleet.orders import sign_order
from table_controller.fleet.update import Releases
from table_controller.table.config import to_toml

GUARD = 120.0  # only against a hang: every wait is for a condition
UNIT = REPO / "hardware" / "table-controller-fleet.service"
# The guard's limit for a new release's first heartbeat: short where a release hangs (the
# test waits it out), long elsewhere, so a loaded machine's slow start fails no test.
WITHIN = 4
SLOW_START = 90
# The set-up copy (the .venv's, run with -I) is this checkout: named on its path.
AS_SET_UP = "import runpy, sys; sys.path.insert(0, {repo!r}); runpy.run_module({mod!r}, run_name='__main__', alter_sys=True)"  # noqa: E501


def wait_for(what: str, check: Any) -> None:
    waiting.wait_until(what, check, GUARD)


def unit_commands(root: Path, config: Path, within: int) -> tuple[list[str], list[str]]:
    """The fleet unit's ExecStartPre and ExecStart, with its folders this test's, its
    Python this one, its set-up copy this checkout and the guard's limit ``within``."""
    text = UNIT.read_text().replace("/opt/table-controller/.venv/bin/python", sys.executable)
    text = text.replace("/opt/table-controller", str(root))
    text = text.replace("/etc/table-controller/table.toml", str(config))
    text = text.replace("--within 300", f"--within {within}")
    lines = dict(line.split("=", 1) for line in text.splitlines() if line.startswith("ExecStart"))

    def argv(line: str) -> list[str]:
        words = line.lstrip("-").split()
        i = words.index("-I")
        assert words[i + 1] == "-m"
        return [*words[: i + 1], "-c", AS_SET_UP.format(repo=str(REPO), mod=words[i + 2]),
                *words[i + 3 :]]  # fmt: skip

    return argv(lines["ExecStartPre"]), argv(lines["ExecStart"])


class Service:
    """systemd running the unit: ExecStartPre, then ExecStart; started again when it
    exits with 75 (RestartForceExitStatus) or fails (Restart=on-failure)."""

    def __init__(self, root: Path, config: Path, out: Path, within: int) -> None:
        self.releases = Releases(root)
        self.pre, self.start = unit_commands(root, config, within)
        self.env = {**os.environ, "PYTHONPATH": str(root / "current"), "PYTHONUNBUFFERED": "1"}
        self.out = out.open("ab")
        self.starts: list[str | None] = []  # the version `current` named at each start
        self.codes: list[int] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self._stopping = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopping:
            subprocess.run(self.pre, env=self.env, stdout=self.out, stderr=self.out, check=False)
            self.starts.append(self.releases.version_of(self.releases.current))
            self.proc = subprocess.Popen(self.start, env=self.env, stdout=self.out, stderr=self.out)
            code = self.proc.wait()
            self.codes.append(code)
            if self._stopping or code == 0:
                return
            time.sleep(0.2)  # RestartSec, short

    def stop(self) -> None:
        self._stopping = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self._thread.join(GUARD)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        self.out.close()


@dataclass
class Pi:
    """A table as first-boot.sh leaves it, run by its unit, and its director."""

    root: Path
    event: Path
    service: Service
    fleet: Fleet
    runner: UpdateRunner
    published: list[tuple[str, str]]  # every order the director sent: (topic, payload)
    served: Served

    @property
    def releases(self) -> Releases:
        return self.service.releases

    def word(self) -> dict[str, Any]:
        """The table's latest word on an update, as the director's store holds it."""
        return FleetUpdates(self.fleet.store.core).latest(TABLE) or {}

    def beat_version(self) -> str | None:
        beat = next((t for t in self.fleet.store.tables.tables() if t["table"] == TABLE), None)
        fleet = (beat or {}).get("fleet") or {}
        return fleet.get("version") if beat and beat["online"] else None

    def runs(self, version: str) -> bool:
        """The table's heartbeat says ``version`` (the runner stepped meanwhile)."""
        self.runner.step()
        return self.beat_version() == version

    def release(self, wheel: Path, **kw: Any) -> None:
        add_release(self.event, wheel, now=time.time(), **kw)

    def rollout(self) -> dict[str, Any]:
        self.runner.step()
        assert self.runner.rollout is not None
        return self.runner.rollout.to_json()

    def send(self, order: dict[str, Any], key: bytes | None = None) -> None:
        signed = sign_order(order, key or self.fleet.private_pem)
        self.fleet.publish(TOPICS.commands(TABLE), json.dumps(signed), False)


@pytest.fixture
def pi(
    tmp_path: Path,
    director: tuple[Any, Any, Fleet],
    request: pytest.FixtureRequest,
) -> Iterator[Pi]:
    """The table runs version ``request.param`` (default 0.1.1) of the real package;
    a param (version, seconds) sets the guard's limit too (default ``SLOW_START``)."""
    broker, _service, fleet = director
    param = getattr(request, "param", "0.1.1")
    first, within = param if isinstance(param, tuple) else (param, SLOW_START)
    root = tmp_path / "opt"
    install_package(root / "releases" / first, first)
    update.Releases(root).switch(first)  # first-boot.sh's `current`
    served = Served(tmp_path / "event")
    folder = tmp_path / "fleet"
    folder.mkdir()
    (folder / "membership.json").write_text(
        json.dumps(
            {
                "table": TABLE,
                "name": "Table 7",
                "username": TABLE,
                "broker_port": broker.port,
                "topic": TOPICS.prefix.split("/")[0],
                "event": TOPICS.prefix.split("/")[1],
                "rules": "td-progressive",
                "options": {"hands_per_game": 2},
                "director_host": "127.0.0.1",
                "director_port": served.port,
            }
        )
    )
    (folder / "director.pub").write_bytes(KEYS[1])
    (folder / "broker.password").write_text("not-checked-by-this-broker\n")
    for f in folder.iterdir():
        f.chmod(0o600)
    config = tmp_path / "table.toml"
    local = local_config(tmp_path)
    config.write_text(to_toml(replace(local, feed=replace(local.feed, heartbeat=1.0))))
    fleet.store.fleet.fleet_approve(TABLE, "Table 7", "pi", "127.0.0.1", first, "a2V5", 1.0)
    push(fleet, TABLE, name="Table 7", players={}, round=None)  # no one seated: between games
    published: list[tuple[str, str]] = []

    def publish(topic: str, payload: bytes | str, retain: bool) -> None:
        published.append((topic, str(payload)))
        fleet.publish(topic, payload, retain)

    runner = UpdateRunner(
        served.folder, fleet.store, prefix=TOPICS.prefix, private_pem=fleet.private_pem,
        publish=publish,
    )  # fmt: skip
    service = Service(root, config, tmp_path / "table.out", within)
    it = Pi(root, served.folder, service, fleet, runner, published, served)
    try:
        # Its config applied first: an order that comes while the table is made again
        # for a new config is lost (the director sends it again minutes later).
        wait_for("the table's config applied", lambda: _state(fleet, 1) == "applied")
        wait_for(f"the table's heartbeat with version {first}", lambda: it.runs(first))
        yield it
    finally:
        service.stop()
        served.close()
        if os.environ.get("KEEP_TABLE_OUT"):
            print((tmp_path / "table.out").read_text(errors="replace"))


def rollout_done(pi: Pi, version: str) -> bool:
    state = pi.rollout()
    return state["state"] == "done" and pi.beat_version() == version


@pytest.mark.slow(budget=120)
@pytest.mark.parametrize("pi", ["0.0.8"], indirect=True)
def test_a_replayed_order_is_refused_after_the_restart_and_status_says_so(
    tmp_path: Path, pi: Pi
) -> None:
    """Finding 8's replay: a genuine order for 0.0.9, captured, replayed after the table
    restarted into 0.1.6, installed 0.0.9 (the ids taken were in memory only)."""
    wheels = tmp_path / "wheels"
    pi.release(make_real_wheel(wheels, "0.0.9", work=tmp_path))
    wait_for("the table runs 0.0.9", lambda: rollout_done(pi, "0.0.9"))
    [(topic, captured)] = pi.published
    pi.release(make_real_wheel(wheels, "0.1.6", work=tmp_path))
    wait_for("the table runs 0.1.6", lambda: rollout_done(pi, "0.1.6"))
    assert "Every table runs version 0.1.6." in status_words(pi.event)

    pi.fleet.publish(topic, captured, False)  # the replay, within the order's 10 minutes
    wait_for("the replay refused", lambda: pi.word().get("state") == "refused")
    assert "was taken already" in pi.word()["problem"]
    assert pi.releases.version_of(pi.releases.current) == "0.1.6"
    assert pi.runs("0.1.6")
    words = status_words(pi.event)  # the director's words tell the truth
    assert "refused an order this update did not send" in words, words
    assert "was taken already" in words
    taken = json.loads((pi.root / update.TAKEN).read_text())["taken"]
    assert len(taken) == 2  # both orders, kept across the restarts


@pytest.mark.slow(budget=90)
def test_an_older_an_expired_and_another_directors_order_are_refused(
    tmp_path: Path, pi: Pi
) -> None:
    """Finding 8's downgrade (0.0.9 over 0.1.1 installed) and the record's other checks:
    each refused by the table in words, and nothing fetched."""
    wheel = make_fake_wheel(pi.event / "releases", "0.0.9")
    base = {
        "kind": "update", "table": TABLE, "version": "0.0.9",
        "url": f"/fleet/release/{wheel.name}", "sha256": update.sha256_of(wheel),
        "downgrade": False,
    }  # fmt: skip
    now = time.time()
    pi.send({**base, "id": "old-1", "at": now, "expires": now + 600})
    wait_for("the older version refused", lambda: pi.word().get("id") == "old-1")
    assert pi.word()["state"] == "refused", pi.word()
    assert "older than version 0.1.1" in pi.word()["problem"]
    assert "--allow-downgrade" in pi.word()["problem"]

    newer = {**base, "version": "0.2.0", "downgrade": False}
    pi.send({**newer, "id": "exp-1", "at": now - 30, "expires": now - 5})
    wait_for("the expired record refused", lambda: pi.word().get("id") == "exp-1")
    assert pi.word()["state"] == "refused" and "expired" in pi.word()["problem"]

    other, _ = new_keys()  # a director this table never joined
    pi.send({**newer, "id": "other-1", "at": now, "expires": now + 600}, key=other)
    wait_for("the other director's order refused", lambda: pi.word().get("id") == "other-1")
    assert "does not match the director's key" in pi.word()["problem"]
    assert pi.releases.installed() == ["0.1.1"]
    assert not (pi.root / "downloads").exists()  # none was fetched
    assert pi.runs("0.1.1")

    # The director refuses to push it too, in words, without --allow-downgrade.
    pi.release(make_fake_wheel(tmp_path / "w", "0.1.1"))
    said = subprocess.run(
        [sys.executable, "-m", "table_controller", "director", "release",
         str(make_fake_wheel(tmp_path / "w", "0.0.9")), "--folder", str(pi.event)],
        capture_output=True, text=True, timeout=GUARD,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert said.returncode == 2, said.stdout + said.stderr
    assert "older than version 0.1.1" in said.stdout and "--allow-downgrade" in said.stdout


@pytest.mark.slow(budget=90)
@pytest.mark.parametrize("pi", [("0.1.1", WITHIN)], indirect=True)
def test_a_release_that_hangs_at_start_goes_back_by_itself(tmp_path: Path, pi: Pi) -> None:
    """Finding 8's hang: a wheel that imports (its start test passes) but hangs in
    `run` stayed hung and offline until a power cycle."""
    pi.release(make_fake_wheel(tmp_path / "w", "0.1.2", more={"__main__.py": HANG_MAIN}))
    wait_for("the rollout stopped", lambda: pi.rollout()["state"] == "stopped")
    state = pi.rollout()
    assert "tried and went back from version 0.1.2" in state["words"], state
    assert "did not send its first heartbeat within" in state["words"]
    assert pi.word()["state"] == "rolled-back"
    assert pi.releases.version_of(pi.releases.current) == "0.1.1"
    assert pi.runs("0.1.1")  # back, with nobody at the table
    assert pi.service.starts == ["0.1.1", "0.1.2", "0.1.1"]
    assert pi.service.codes[:2] == [update.RESTART_STATUS, update.RESTART_STATUS]


@pytest.mark.slow(budget=90)
def test_a_refused_release_leaves_nothing_and_a_new_build_of_it_installs(
    tmp_path: Path, pi: Pi
) -> None:
    """Finding 8's reused folder: after a 0.1.2 that failed its start test, a fixed
    0.1.2 was refused with the old build's error (its folder was used again)."""
    pi.release(make_fake_wheel(tmp_path / "broken", "0.1.2", init=BROKEN_INIT))
    wait_for("the broken build refused", lambda: pi.rollout()["state"] == "stopped")
    assert "broken on purpose" in pi.word()["problem"]
    assert pi.releases.installed() == ["0.1.1"]  # nothing left of it
    assert not (pi.releases.folder / "0.1.2").exists()
    assert list((pi.root / "downloads").iterdir()) == []

    fixed = make_real_wheel(tmp_path / "fixed", "0.1.2", work=tmp_path)
    pi.release(fixed)
    wait_for("the fixed build runs", lambda: rollout_done(pi, "0.1.2"))
    assert pi.releases.sha256_of_folder("0.1.2") == update.sha256_of(fixed)
