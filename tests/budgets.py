"""Each test's time budget, reported and never failed.

A test that is long by nature (many processes killed, a differential run, a long
property) carries ``@pytest.mark.slow``, optionally ``slow(budget=SECONDS)``; every
other test has ``QUICK`` seconds. Both still run in ``make test``. At the end of the
run this prints the ten slowest tests and files, and any that went over their budget, so a test
that grew slow is seen; it fails nothing, because on a shared or loaded machine every
test takes longer and a red run would say nothing about the code. A hang is caught by
pytest-timeout instead (``timeout`` in pyproject.toml), far above any budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

QUICK = 15.0  # seconds, setup and teardown included, on a quiet 2-core machine
SLOW = 90.0
BUDGET = "time budget"  # its name among a report's user properties: (seconds, slow)


@dataclass
class Spent:
    seconds: float = 0.0
    budget: float = QUICK
    slow: bool = False


class Budgets:
    """The pytest plugin: sums each test's phases, compares them with its budget."""

    def __init__(self) -> None:
        self.spent: dict[str, Spent] = {}

    @pytest.hookimpl
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        # Carried by the test's reports, so the session sees it when the tests ran in
        # worker processes (`pytest -n 2`), where this hook runs in the worker.
        mark = item.get_closest_marker("slow")
        budget = QUICK if mark is None else float(mark.kwargs.get("budget", SLOW))
        item.user_properties.append((BUDGET, (budget, mark is not None)))

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        spent = self.spent.setdefault(report.nodeid, Spent())
        spent.seconds += report.duration
        for name, value in report.user_properties:
            if name == BUDGET:
                spent.budget, spent.slow = value

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.spent:
            return
        write = terminalreporter.write_line
        terminalreporter.section("time budgets")
        ranked = sorted(self.spent.items(), key=lambda kv: kv[1].seconds, reverse=True)
        total = sum(s.seconds for s in self.spent.values())
        write(f"{len(self.spent)} tests, {total:.0f} s in tests; the ten slowest:")
        for nodeid, s in ranked[:10]:
            tag = f"slow, budget {s.budget:g} s" if s.slow else f"budget {s.budget:g} s"
            write(f"  {s.seconds:7.1f} s  {nodeid}  ({tag})")
        # Where the suite's time goes, file by file: what to make faster first.
        files: dict[str, float] = {}
        for nodeid, s in self.spent.items():
            name = nodeid.split("::", 1)[0]
            files[name] = files.get(name, 0.0) + s.seconds
        write("the ten files that take the longest, with their share of the time in tests:")
        for name, seconds in sorted(files.items(), key=lambda kv: kv[1], reverse=True)[:10]:
            write(f"  {seconds:7.1f} s  {100 * seconds / max(total, 1e-9):4.1f} %  {name}")
        over = [(n, s) for n, s in ranked if s.seconds > s.budget]
        if over:
            write(
                f"over budget ({len(over)}; a loaded machine slows every test, so this "
                "fails nothing: make them faster, or mark a test long by nature slow):"
            )
            for nodeid, s in over:
                write(f"  {s.seconds:7.1f} s > {s.budget:g} s  {nodeid}")
