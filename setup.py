"""The package's folders, and the compiled solver (table_controller/bots/_solver.c),
built into the checkout by an editable install (`pip install -e .`, which `make` runs:
scripts/setup.sh).

Everything else is in pyproject.toml. The packages are listed here because one of them
lives outside the package's folder: the cube's firmware is the checkout's top-level
``firmware/`` (MicroPython for the board, not a module of the package), and the wheel
carries it as ``table_controller/firmware/`` so that ``cube flash`` and the emulator work
from any install (devices/firmware.py finds it in either place). pyproject.toml's
``packages.find`` cannot add a package from another folder, so the search is made here,
with the same rule (every folder under ``table_controller/``) plus that one.

``optional=True``: a machine without a C compiler (or Python's headers) still installs,
and bots/search.py falls back to its pure-Python solver. A wheel (`pip wheel .`, `pip
install --target` as hardware/first-boot.sh runs it) builds nothing and stays
py3-none-any: the director hands one wheel to every table of a fleet, x86_64 or aarch64
alike (director/fleet/update.py). It carries the checkout's compiled file if there is one
(pyproject's package-data); Python loads it only on the machine and Python it was built
for (its name says which) and otherwise the pure solver.
"""

import sys

from setuptools import Extension, find_namespace_packages, setup

IN_PLACE = ("editable_wheel", "build_ext", "develop")
FIRMWARE = "table_controller.firmware"  # the checkout's firmware/, inside the wheel

setup(
    packages=[
        *find_namespace_packages(include=["table_controller*"], exclude=[FIRMWARE]),
        FIRMWARE,
    ],
    package_dir={FIRMWARE: "firmware"},
    ext_modules=[
        Extension(
            "table_controller.bots._solver",
            sources=["table_controller/bots/_solver.c"],
            optional=True,
        )
    ]
    if any(command in sys.argv for command in IN_PLACE)
    else [],
)
