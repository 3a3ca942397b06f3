"""Shared fixtures: one way to start Debian's headless Chromium for the page tests, and
a real PostgreSQL server for the director's store; each test's time budget (budgets.py);
Hypothesis without its wall-clock checks."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import box_machine
import pytest
from budgets import Budgets
from chromium import ARGS, CHROMIUM
from hypothesis import HealthCheck, settings
from playwright.sync_api import Browser, expect, sync_playwright
from postgres import Postgres

# Hypothesis fails an example that takes over 200 ms (its deadline), and a test whose data
# is slow to make (the too_slow health check): both measure the machine, not the code,
# and a loaded CI machine trips them. A test's own @settings still sets anything else.
settings.register_profile(
    "table-controller", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("table-controller")

# Playwright's expect() gives up after 5 s by default: a page on a loaded 2-core CI machine
# may take longer to render, which is not a failure. A condition waited on, with a limit
# that only a real hang reaches.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: Playwright's sync API must not stay open while other modules run
    their own asyncio loops."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"the page tests need Debian's chromium at {CHROMIUM}, which is missing: run "
            "`make test` (it installs it), or `apt-get install chromium`"
        )
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One real PostgreSQL server for the session (each test takes a new database)."""
    server = Postgres().start()
    yield server
    server.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a director's store goes, once for each database it can use: a new SQLite
    file, or a new database on the tests' PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "director.sqlite")
    server: Postgres = request.getfixturevalue("postgres")
    return server.new_database()


# The Pi in a box's tests (tests/box/) share one booted machine: one work unit for the
# worker processes (pytest-xdist), which runs them in one process, one after the other,
# and first of all, beside everything else: the box's run is the suite's longest.
BOX_TESTS = "tests/box/"


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadfile``, with the box's files one unit and first in the queue."""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BoxFirst(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            scope = str(super()._split_scope(nodeid))
            return BOX_TESTS if scope.startswith(BOX_TESTS) else scope

        def _assign_work_unit(self, node: object) -> None:
            if BOX_TESTS in self.workqueue:
                self.workqueue.move_to_end(BOX_TESTS, last=False)
            super()._assign_work_unit(node)

    return BoxFirst(config, log)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(Budgets(), "budgets")
    # A run started in the background (`pytest &` from a script) has Ctrl-C ignored, and
    # every child inherits that: a service a test stops with Ctrl-C (`vision live`, the
    # docs' commands) would then never stop. With a handler here, children start with
    # the default again (exec resets a handler, not an ignored signal).
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """What the Pi in a box could not check here, named, and the figures it measured."""
    box_machine.summary(terminalreporter)
