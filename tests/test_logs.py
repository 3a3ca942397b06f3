"""The log is set up once by the command: levels from -v/-q, timestamps on a terminal,
syslog priorities under systemd (journald reads them as levels), and ``--version``."""

from __future__ import annotations

import io
import logging
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from table_controller import __version__
from table_controller.logs import configure, under_systemd


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root, own = logging.getLogger(), logging.getLogger("table_controller")
    handlers, levels = list(root.handlers), (root.level, own.level)
    yield
    root.handlers[:] = handlers
    root.setLevel(levels[0])
    own.setLevel(levels[1])


def _lines(verbosity: int, journal: bool = False) -> list[str]:
    out = io.StringIO()
    configure(verbosity, stream=out, journal=journal)
    ours, theirs = logging.getLogger("table_controller.table.app"), logging.getLogger("paho")
    for logger in (ours, theirs):
        logger.debug("debug")
        logger.info("info")
        logger.warning("warning")
        logger.error("error")
    return out.getvalue().splitlines()


def test_default_shows_our_info_and_libraries_warnings_with_timestamps() -> None:
    lines = _lines(0)
    assert [line.split()[-1] for line in lines] == ["info", "warning", "error", "warning", "error"]
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} INFO +table_controller", lines[0])


def test_verbose_and_quiet() -> None:
    assert [line.split()[-1] for line in _lines(1)][:2] == ["debug", "info"]
    assert any(line.endswith("paho: debug") for line in _lines(2))
    quiet = [line.split()[-1] for line in _lines(-1)]
    assert quiet == ["error", "warning", "error"]  # ours: errors only


def test_under_systemd_each_line_carries_its_priority() -> None:
    assert under_systemd({"JOURNAL_STREAM": "8:1234"})
    assert not under_systemd({})
    lines = _lines(0, journal=True)
    assert lines[0] == "<6>table_controller.table.app: info"
    assert lines[1] == "<4>table_controller.table.app: warning"
    assert lines[2] == "<3>table_controller.table.app: error"


def test_a_second_configure_replaces_the_first() -> None:
    configure(0, stream=io.StringIO())
    configure(0, stream=io.StringIO())
    ours = [h for h in logging.getLogger().handlers if h.get_name() == "table-controller"]
    assert len(ours) == 1


def test_version_is_the_package_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "table_controller.cli", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == f"table-controller {__version__}\n"
