"""Small table-controller wheels for the update tests: a real wheel (zip, METADATA,
RECORD with hashes) that pip installs, holding a tiny ``table_controller`` package that
says its version. Only ever imported by a child process with PYTHONPATH on its release
folder, so the real package of the test process is untouched."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.client
import shutil
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

from table_controller.director.fleet import update as fleet_update

GOOD_INIT = '__version__ = "{version}"\n'
BROKEN_INIT = 'raise ImportError("this release is broken on purpose")\n'
CLI = "def main(argv=None):\n    return 0\n"


def _digest(data: bytes) -> str:
    raw = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def make_wheel(
    folder: Path,
    version: str,
    *,
    requires: Sequence[str] = (),
    init: str = GOOD_INIT,
    requires_python: str | None = ">=3.11",
    more: dict[str, str] | None = None,
) -> Path:
    """``table_controller-<version>-py3-none-any.whl`` in ``folder``; ``more``: other
    files of the package (name -> text), such as a ``__main__.py`` that hangs."""
    info = f"table_controller-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", "Name: table-controller", f"Version: {version}"]
    if requires_python:
        meta.append(f"Requires-Python: {requires_python}")
    meta += [f"Requires-Dist: {r}" for r in requires]
    files = {
        "table_controller/__init__.py": init.format(version=version).encode(),
        "table_controller/cli.py": CLI.encode(),
        f"{info}/METADATA": ("\n".join(meta) + "\n\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
        f"{info}/top_level.txt": b"table_controller\n",
        **{f"table_controller/{n}": text.encode() for n, text in (more or {}).items()},
    }
    record = "".join(f"{n},{_digest(d)},{len(d)}\n" for n, d in files.items())
    record += f"{info}/RECORD,,\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"table_controller-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{info}/RECORD", record)
    return path


class Served:
    """The director's release route (GET /fleet/release/{file}) over real HTTP."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        app = Starlette(routes=fleet_update.routes(folder))
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error")
        )
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()), daemon=True)
        self.thread.start()
        while not self.server.started:
            self.thread.join(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]

    def get(self, path: str) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", path)
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


REPO = Path(__file__).resolve().parents[1]
HANG_MAIN = "import time\nwhile True:\n    time.sleep(60)  # a release that hangs in run\n"


def copy_package(folder: Path, version: str) -> Path:
    """This checkout's ``table_controller`` copied into ``folder`` as version ``version``
    (a release folder as first-boot.sh makes one, or a wheel's contents)."""
    target = folder / "table_controller"
    shutil.copytree(REPO / "table_controller", target, ignore=shutil.ignore_patterns("__pycache__"))
    init = target / "__init__.py"
    init.write_text(
        init.read_text().replace('__version__ = "', f'__version__ = "{version}"  # ', 1)
    )
    return target


def install_package(folder: Path, version: str) -> Path:
    """A release folder as first-boot.sh's pip install leaves it: the package and its
    dist-info (which the heartbeat's version is read from)."""
    copy_package(folder, version)
    info = folder / f"table_controller-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: table-controller\nVersion: {version}\n\n"
    )
    return folder


def make_real_wheel(folder: Path, version: str, *, work: Path) -> Path:
    """The real package (this checkout, its version patched) as a wheel pip installs:
    what a director sends a table, made without a build backend (seconds, not a minute)."""
    src = work / f"real-{version}"
    shutil.rmtree(src, ignore_errors=True)
    copy_package(src, version)
    info = f"table_controller-{version}.dist-info"
    files = {str(p.relative_to(src)): p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()}
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: table-controller\nVersion: {version}\n"
        "Requires-Python: >=3.11\n\n"
    ).encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = "".join(f"{n},{_digest(d)},{len(d)}\n" for n, d in files.items())
    record += f"{info}/RECORD,,\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"table_controller-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in files.items():
            z.writestr(name, data)
        z.writestr(f"{info}/RECORD", record)
    return path
