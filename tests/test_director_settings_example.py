"""``table-controller director config example``: a director's settings file that names
every key the director reads (cli.py's DEFAULTS), each explained, and runs as
it is; docs/director.md shows the same file."""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest
from mosquitto import free_port
from waiting import wait_until

from table_controller.cli import main
from table_controller.director.cli import DEFAULTS, load_settings
from table_controller.director.settings_example import example_settings

ROOT = Path(__file__).resolve().parents[1]
WAIT = 120.0  # only against a hang
# A key written commented out: "# key = value", at the start of its line.
COMMENTED_KEY = re.compile(r"^# (\w+ = )", re.M)


def settings(path: Path) -> argparse.Namespace:
    return argparse.Namespace(config=str(path))


def test_the_example_names_every_key_the_director_reads() -> None:
    every = tomllib.loads(COMMENTED_KEY.sub(r"\1", example_settings()))
    assert {s: set(keys) for s, keys in every.items()} == {
        s: set(keys) for s, keys in DEFAULTS.items()
    }
    for line in example_settings().splitlines():
        if re.match(r"^(# )?\w+ = ", line):
            assert " # " in line.split(" = ", 1)[1], f"a key without its comment: {line}"


def test_the_example_loads_as_it_is_and_with_every_key_written(tmp_path: Path) -> None:
    path = tmp_path / "director.toml"
    path.write_text(example_settings(), encoding="utf-8")
    s = load_settings(settings(path))
    assert s.get("event", "name") == "club-night"
    assert s.database() == str(tmp_path / "director.sqlite")  # relative to the file
    assert s.get("director", "key") is None and s.get("broker", "password_file") is None
    full = tmp_path / "full.toml"
    full.write_text(COMMENTED_KEY.sub(r"\1", example_settings()), encoding="utf-8")
    s = load_settings(settings(full))
    assert s.path("director", "key") == tmp_path / "director.key"
    assert s.get("director", "public_port") == 8091


def test_the_command_prints_it_or_writes_a_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    assert main(["director", "config", "example"], out=printed) == 0
    assert printed.getvalue() == example_settings()
    said = io.StringIO()
    assert main(["director", "config", "example", "--out", "director.toml"], out=said) == 0
    assert (tmp_path / "director.toml").read_text(encoding="utf-8") == example_settings()
    assert "`table-controller director --config director.toml`" in said.getvalue()
    (tmp_path / "director.toml").write_text("# mine\n", encoding="utf-8")
    assert main(["director", "config", "example", "--out", "director.toml"]) == 2
    assert "exists and is kept as it is" in capsys.readouterr().err
    assert (tmp_path / "director.toml").read_text(encoding="utf-8") == "# mine\n"


def test_docs_director_shows_the_example() -> None:
    """The page's "Settings" block is the file the command writes, word for word."""
    page = (ROOT / "docs" / "director.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```toml\n(.*?)^```", page, re.M | re.S)
    assert example_settings() in blocks


@pytest.mark.slow(budget=40)  # a director started and stopped
def test_the_director_runs_with_the_example_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "director.toml").write_text(example_settings(), encoding="utf-8")
    web = free_port()  # flags win over the file: the ports free here, all else the file's
    ports = ["--web-port", str(web), "--broker-port", str(free_port()), "--web-host", "127.0.0.1"]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "table_controller.cli",
            "director",
            "--config",
            "director.toml",
            *ports,
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    said: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        said.extend(proc.stdout)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_until(
            "the dashboard's address",
            lambda: any("The dashboard: http://" in x for x in said) or proc.poll() is not None,
            WAIT,
        )
        assert any(f":{web}/" in x for x in said), "".join(said)
        assert (tmp_path / "director.sqlite").is_file()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 0, "".join(said)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(10)
    assert "euchre/club-night/tables/" in "".join(said)
