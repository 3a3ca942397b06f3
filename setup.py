"""The compiled solver (table_controller/bots/_solver.c), built into the checkout by an
editable install (`pip install -e .`, which `make` runs: scripts/setup.sh).

Everything else is in pyproject.toml. ``optional=True``: a machine without a C compiler
(or Python's headers) still installs, and bots/search.py falls back to its pure-Python
solver. A wheel (`pip wheel .`, `pip install --target` as hardware/first-boot.sh runs it)
builds nothing and stays py3-none-any: the director hands one wheel to every table of a
fleet, x86_64 or aarch64 alike (director/fleet/update.py). It carries the checkout's
compiled file if there is one (pyproject's package-data); Python loads it only on the
machine and Python it was built for (its name says which) and otherwise the pure solver.
"""

import sys

from setuptools import Extension, setup

IN_PLACE = ("editable_wheel", "build_ext", "develop")

setup(
    ext_modules=[
        Extension(
            "table_controller.bots._solver",
            sources=["table_controller/bots/_solver.c"],
            optional=True,
        )
    ]
    if any(command in sys.argv for command in IN_PLACE)
    else []
)
