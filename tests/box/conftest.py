"""The Pi in a box's tests share one booted machine (box_table.booted_box): booting it and
running first-boot.sh again with this checkout's code take minutes under emulation, so
it is done once a session. The worker processes run these files as one unit, first of
all (tests/conftest.py's scheduler), and the files run in the order below: each test
sets up the table it needs, and the power cut, which leaves the simulated table playing,
comes last."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from box_machine import Box, FirstBoot, report_figures
from box_table import FIRST_BOOT, booted_box, fast_pace

ORDER = (
    "test_box_boot.py",
    "test_box_pins.py",
    "test_box_cube.py",
    "test_box_camera.py",
    "test_box_release.py",
    "test_box_fleet.py",
    "test_box_faults.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The box's files in ORDER (any other after them), each file's tests as written."""

    def rank(item: pytest.Item) -> int:
        name = Path(str(item.fspath)).name
        if Path(str(item.fspath)).parent != Path(__file__).parent:
            return -1  # not the box's: left where it was
        return ORDER.index(name) if name in ORDER else len(ORDER)

    box = [item for item in items if rank(item) >= 0]
    if box:
        start = items.index(box[0])
        rest = [item for item in items if rank(item) < 0]
        ordered = sorted(box, key=rank)  # sorted() keeps each file's own order
        items[:] = rest[:start] + ordered + rest[start:]


@pytest.fixture(scope="session")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    yield from booted_box(tmp_path_factory)


@pytest.fixture
def first_boot(box: Box) -> FirstBoot:
    """What first-boot.sh did on the fresh card the box's disk was made from."""
    return FIRST_BOOT[0]


@pytest.fixture(autouse=True)
def figures_reported(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's figures go into its report, for the session's summary."""
    yield
    report_figures(request.node)


@pytest.fixture
def fast_table(box: Box) -> Iterator[Box]:
    """The simulated table at its fast pace from its next start (box_table.fast_pace),
    back to the demo's pace after the test."""
    fast_pace(box, True)
    yield box
    fast_pace(box, False)
