"""Small table-controller wheels for the update tests: a real wheel (zip, METADATA,
RECORD with hashes) that pip installs, holding a tiny ``table_controller`` package that
says its version. Only ever imported by a child process with PYTHONPATH on its release
folder, so the real package of the test process is untouched."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import http.client
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

from table_controller.director import fleet_update

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
) -> Path:
    """``table_controller-<version>-py3-none-any.whl`` in ``folder``."""
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
