"""A fleet's table's file and settings: ``[fleet]`` makes the name, rules, players and
broker the director's (a file that says them too is refused, in words), the membership
and the last config applied make the configuration run, and a table that has not joined
is told to join."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.seats import Seat
from table_controller.table.config import ConfigError, load_config, parse_config, to_toml
from table_controller.table.fleet.run import FleetRun, ensure_membership
from table_controller.table.fleet.settings import (
    FleetError,
    build,
    load_applied,
    load_membership,
    save_applied,
)

LOCAL: dict[str, Any] = {
    "table": {"gpio": "mock"},
    "camera": {"source": "synthetic"},
    "cube": {"port": "none"},
    "fleet": {"folder": "fleet"},
}
MEMBER = {
    "table": "table-7",
    "name": "Table 7",
    "username": "table-7",
    "broker_port": 1884,
    "topic": "euchre",
    "event": "spring-open",
    "rules": "td-progressive",
    "options": {"hands_per_game": 4},
    "director_host": "10.0.0.2",
    "director_port": 8090,
}


def joined(folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "membership.json").write_text(json.dumps(MEMBER))
    (folder / "director.pub").write_text("PEM")
    (folder / "broker.password").write_text("secret\n")


def test_fleet_mode_needs_no_name_rules_players_or_broker(tmp_path: Path) -> None:
    config = parse_config(LOCAL, tmp_path)
    assert config.fleet is not None and config.fleet.folder == tmp_path / "fleet"
    assert not config.fleet.own_log
    # The file as written back reads back the same (no name, no broker in it).
    path = tmp_path / "table.toml"
    path.write_text(to_toml(config))
    assert "name =" not in path.read_text() and "[fleet]" in path.read_text()
    again = load_config(path)
    assert again.fleet == config.fleet and again.camera == config.camera
    # `config check` of a table not joined yet: a good file, its folder made by joining.
    out = io.StringIO()
    assert main(["config", "check", str(path)], out=out) in (0, 1)
    assert "given by the event's director" in out.getvalue()


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ({"table": {"gpio": "mock", "name": "Table 1"}}, "table.name", "remove name from [table]"),
        ({"players": {"N": "Ann"}}, "players", "remove [players]"),
        ({"rules": {"preset": "td-tournament"}}, "rules", "remove [rules]"),
        ({"feed": {"broker": "10.0.0.2", "username": "t"}}, "feed.broker", "broker, username"),
        ({"fleet": {"folder": ""}}, "fleet.folder", "empty"),
        ({"fleet": {"foldr": "x"}}, "fleet.foldr", "unknown key"),
    ],
)
def test_what_the_director_gives_is_refused_in_the_file(
    tmp_path: Path, extra: dict[str, Any], key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({**LOCAL, **extra}, tmp_path)
    problems = {p.key: f"{p.problem} -- {p.fix}" for p in caught.value.problems}
    assert key in problems and words in problems[key], problems


def test_the_configuration_run_is_the_file_the_membership_and_the_config(tmp_path: Path) -> None:
    local = parse_config({**LOCAL, "feed": {"heartbeat": 2.0}}, tmp_path)
    folder = tmp_path / "fleet"
    assert load_membership(folder) is None
    joined(folder)
    member = ensure_membership(local, folder, say=print)  # joined: no join asked
    before = build(local, member, None)
    assert (before.name, before.rules_name, before.players[Seat.N]) == (
        "Table 7",
        "td-progressive",
        "North",
    )
    assert before.rules.hands_per_game == 4 and before.log == folder / "table-7.sqlite"
    feed = before.feed
    assert (feed.enabled, feed.broker, feed.port, feed.username) == (
        True,
        "10.0.0.2",
        1884,
        "table-7",
    )
    assert feed.password_file == folder / "broker.password" and feed.heartbeat == 2.0
    assert before.camera == local.camera and before.pins == local.pins
    order = {
        "seq": 3,
        "name": "Maple",
        "rules": "td-tournament",
        "options": {},
        "players": {"N": "Ada", "S": "Cy"},
        "round": 1,
    }
    after = build(local, member, order)
    assert after.name == "Maple" and after.rules_name == "td-tournament"
    assert dict(after.players) == {Seat.N: "Ada", Seat.E: "East", Seat.S: "Cy", Seat.W: "West"}
    with pytest.raises(FleetError, match="cannot be played at this table"):
        build(local, member, {**order, "rules": "no-such-rules"})
    # The config applied is kept whole, 0600, and read back by a table started again.
    save_applied(folder, order)
    assert stat.S_IMODE((folder / "config.json").stat().st_mode) == 0o600
    assert load_applied(folder) == order
    runner = FleetRun(local, member, make_table=lambda c, n: None)  # type: ignore[arg-type,return-value]
    assert runner.seq == 3 and runner.config().players[Seat.N] == "Ada"
    (folder / "config.json").write_text("{half")
    assert load_applied(folder) is None  # damaged: the director's retained one comes again


def test_run_of_a_table_with_a_damaged_membership_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    path.write_text(to_toml(parse_config(LOCAL, tmp_path)))
    (tmp_path / "fleet").mkdir()
    (tmp_path / "fleet" / "membership.json").write_text(json.dumps({"table": "table-7"}))
    (tmp_path / "fleet" / "director.pub").write_text("PEM")
    (tmp_path / "fleet" / "broker.password").write_text("x")
    assert main(["run", "--config", str(path)], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "membership.json is damaged" in err and "delete" in err


def test_a_table_stopped_while_it_waits_to_join_stops_cleanly(tmp_path: Path) -> None:
    """docs/fleet.md has a person stop the service to join by hand: `run` stopped by
    SIGTERM while it looks for the director says so in words and exits 0, so the unit
    reads "inactive", not "failed" with "error:" in its journal (the Pi in a box showed
    status 2)."""
    import os
    import signal
    import subprocess
    import sys

    path = tmp_path / "table.toml"
    local = {**LOCAL, "web": {"host": "127.0.0.1", "port": 0}}
    path.write_text(to_toml(parse_config(local, tmp_path)))
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller.cli", "run", "--config", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    said: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the page opened: the join's wait has begun
            said.append(line)
            if "The join code is shown on this table's page" in line:
                break
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    said.append(out)
    assert proc.returncode == 0, "".join(said) + err
    assert "Stopped before the director approved this table" in "".join(said)
    assert "error" not in err, err
    assert not (tmp_path / "fleet" / "membership.json").exists()


def test_a_pinned_director_fingerprint_is_read_written_and_checked(tmp_path: Path) -> None:
    """[fleet] fingerprint: the service joins only the director with that key."""
    config = parse_config(
        {**LOCAL, "fleet": {"folder": "fleet", "fingerprint": "0412-7731-5820-0093-6614"}},
        tmp_path,
    )
    assert config.fleet is not None
    assert config.fleet.fingerprint == "0412 7731 5820 0093 6614"  # as the screen shows it
    path = tmp_path / "table.toml"
    path.write_text(to_toml(config))
    assert load_config(path).fleet == config.fleet
    with pytest.raises(ConfigError) as caught:
        parse_config({**LOCAL, "fleet": {"folder": "fleet", "fingerprint": "1234"}}, tmp_path)
    assert "is not a director's key fingerprint" in str(caught.value)
    assert "copy it from the director's screen" in str(caught.value)
