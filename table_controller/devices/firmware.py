"""Where the cube's firmware files are, and loading its logic into this Python.

The firmware is MicroPython for the board, kept as files in the checkout's top-level
``firmware/`` (firmware/README.md). It is not part of the package: the emulator loads it
under a name of its own, and ``cube flash`` copies the files onto the board. A wheel
carries a copy as ``table_controller/firmware/`` (setup.py maps the folder there), so
``cube flash`` and the emulator work from any install; a checkout, and the editable
install ``make setup`` makes of it, read the top-level folder itself.

``frame.py`` is the package's own ``table_controller/devices/frame.py``: ``cube flash``
copies it onto the board beside the firmware, and the emulator imports the firmware
with that same module, so the cube and the host run one codec.

The type checker reads the firmware's ``cube.py`` as ``firmware.cube``, the module of the
checkout's folder; it is never imported by that name at run time.
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller.devices import frame
from table_controller.devices.cube_types import CubeError

if TYPE_CHECKING:
    from firmware import cube as cube_module

# The files on the board, in the order they are copied (main.py last: it starts them).
BOARD_FILES = ("board_rp2040.py", "display.py", "cube.py", "main.py")
HOST_LOGIC = ("display.py", "cube.py")  # what the emulator runs
PACKAGE = "table_controller_firmware"  # the name the emulator imports them under


class FirmwareNotFound(CubeError):
    pass


def firmware_dir() -> Path:
    """The folder of the firmware's files: the installed wheel's copy inside the package,
    else the checkout's top-level ``firmware/`` (beside the package's folder)."""
    package = Path(__file__).resolve().parents[1]
    places = (package / "firmware", package.parent / "firmware")  # a wheel, a checkout
    for place in places:
        if all((place / name).is_file() for name in BOARD_FILES):
            return place
    raise FirmwareNotFound(
        f"the cube's firmware ({', '.join(BOARD_FILES)}) is neither in {places[0]} (an "
        f"installed wheel's copy) nor in {places[1]} (a checkout's): this copy of "
        "table-controller was installed without it. Install it again (`make setup` in a "
        "checkout, or `pip install --force-reinstall table-controller`)."
    )


def files_to_flash() -> list[Path]:
    """Every file the board needs: the shared frame module first, then the firmware."""
    folder = firmware_dir()
    return [Path(frame.__file__)] + [folder / name for name in BOARD_FILES]


def load_cube() -> types.ModuleType:
    """The firmware's ``cube`` module, imported into this Python (its ``display`` too).

    The firmware's files are a flat folder on the board; here they become a package
    with their folder as its path, so their names (``cube``, ``display``) cannot clash
    with anything else this process imports.
    """
    if PACKAGE not in sys.modules:
        package = types.ModuleType(PACKAGE)
        package.__path__ = [str(firmware_dir())]
        sys.modules[PACKAGE] = package
    return importlib.import_module(PACKAGE + ".cube")


def new_cube(board: object, now_ms: int, face_suits: tuple[int, ...]) -> cube_module.Cube:
    """A freshly booted cube running the real firmware logic on ``board``."""
    module = load_cube()
    cube: cube_module.Cube = module.Cube(board, now_ms, face_suits)
    return cube
