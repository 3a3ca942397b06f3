"""How much disk each install takes: the core (`make demo`), a Pi table, the director's
laptop, and everything (`make test`).

For each set, a fresh virtual environment (``python -m venv``) gets what
scripts/setup.sh installs: pip upgraded, setuptools at constraints.txt's version, then the
project (its wheel, built here once) with that set's extras, ``-c constraints.txt``. The
figure is ``du`` of the whole environment (Python's own files included); then the number
of distributions and the largest packages. Needs PyPI (or pip's cache) to be reachable.

    .venv/bin/python bench/install_size.py [--sets core,pi,director,print,test]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The sets measured, as README's "Installing" names them: (label, extras).
SETS = {
    "core": ("the core: `make demo`", ""),
    "pi": ("a Pi table: `make setup-pi`", "pi"),
    "director": ("the director's laptop: `make setup-director setup-print`", "director,print"),
    "print": ("the core and printing: `make setup-print`", "print"),
    "test": ("everything: `make test`", "test"),
}


def du_mib(path: Path) -> float:
    """Disk usage as ``du -sk`` reports it, in MiB."""
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def pip(python: Path, *args: str) -> None:
    # Without this checkout on a path: its egg-info would count as installed.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"pip install {' '.join(args)} failed:\n{done.stderr[-3000:]}")


def build_wheel(into: Path) -> Path:
    build = ["wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q", "-w", str(into)]
    subprocess.run(
        [sys.executable, "-m", "pip", *build],
        check=True,
        capture_output=True,
        cwd=into,
    )
    (wheel,) = into.glob("table_controller-*.whl")
    return wheel


def largest(venv: Path, count: int) -> list[tuple[str, float]]:
    (site,) = venv.glob("lib/python*/site-packages")
    sizes = [(p.name, du_mib(p)) for p in site.iterdir() if not p.name.endswith(".dist-info")]
    return sorted(sizes, key=lambda s: -s[1])[:count]


def measure(name: str, wheel: Path, work: Path) -> None:
    title, extras = SETS[name]
    venv = work / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    constraints = str(ROOT / "constraints.txt")
    pip(python, "--upgrade", "pip")
    pip(python, "--upgrade", "-c", constraints, "setuptools")
    pip(python, "-c", constraints, f"{wheel}[{extras}]" if extras else str(wheel))
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    top = ", ".join(f"{n} {s:.0f}" for n, s in largest(venv, 6))
    print(f"  {name:<9} {du_mib(venv):7.0f} MiB  {len(listed):3} distributions  {title}")
    print(f"  {'':<9} largest (MiB): {top}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    args = ap.parse_args()
    wanted = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in SETS]
    if unknown:
        sys.exit(f"no set called {unknown[0]!r}: use {', '.join(SETS)}")
    print(
        f"Python {platform.python_version()} ({sys.executable}), {platform.machine()}, "
        f"{os.cpu_count()} CPUs; du -sk of a fresh venv per set"
    )
    with tempfile.TemporaryDirectory(prefix="install-size-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(work)
        for name in wanted:
            measure(name, wheel, work)


if __name__ == "__main__":
    main()
