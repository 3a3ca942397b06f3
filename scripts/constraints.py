"""Print constraints.txt: the exact version of every package the project installs
(its dependencies, the test extra, and what they depend on), read from a venv where
`make test` passed. Run it with that venv's Python, from the checkout:

    .venv/bin/python scripts/constraints.py [EXTRA_PACKAGE ...] > constraints.txt

Packages in the venv that the project does not need (pip-audit, tools someone added by
hand) are left out; name extra packages to keep them.
"""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

HEADER = """\
# The versions `make test` passed with; scripts/setup.sh installs with `-c constraints.txt`,
# so a fresh machine gets these. After changing a dependency (or to take new releases):
#   .venv/bin/pip install -U -e '.[test]'  (without -c), run `make test` and `make audit`,
#   then .venv/bin/python scripts/constraints.py > constraints.txt
# Made on Python {python} ({platform}); a package that has no wheel for another machine's
# Python is built from source or needs its line raised there.
"""


# setup.sh upgrades setuptools in the venv (the copy a venv starts with has published
# vulnerabilities): pinned too, and refused below this floor. pip is kept current.
FLOORS = {"setuptools": Version("78.1.1")}
SKIP = {"pip", "table-controller"}


def closure(requirements: list[Requirement]) -> dict[str, str]:
    """Name -> installed version for ``requirements`` and all they require, markers
    evaluated here (a package needed only on another platform is not listed)."""
    found: dict[str, str] = {}
    extras_seen: dict[str, set[str]] = {}
    todo = [r for r in requirements if r.marker is None or r.marker.evaluate({"extra": ""})]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in found and set(req.extras) <= extras_seen[name]:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            sys.exit(f"{req.name} is not installed in this venv: run `make setup` first")
        found[name] = dist.version
        extras_seen.setdefault(name, set()).update(req.extras)
        extras = {""} | set(req.extras)
        for line in dist.requires or []:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras):
                todo.append(sub)
    return found


def main(extra: list[str]) -> None:
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    wanted += [Requirement(r) for r in project["optional-dependencies"]["test"]]
    wanted += [Requirement(name) for name in extra]
    pins = closure(wanted + [Requirement(name) for name in FLOORS])
    for name, floor in FLOORS.items():
        if Version(pins[name]) < floor:
            sys.exit(f"{name} {pins[name]} is older than {floor}: run `make setup` first")
    print(HEADER.format(python=sys.version.split()[0], platform=sys.platform), end="")
    for name in sorted(pins.keys() - SKIP):
        print(f"{name}=={pins[name]}")


if __name__ == "__main__":
    main(sys.argv[1:])
