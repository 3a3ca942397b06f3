"""How tests/test_docs_commands.py runs a documented command: a process started as a
person starts one in a terminal (its lines read as they come, Ctrl-C to stop it), the
optional packages it imports watched, and a director approving a joining table as a
director does on the dashboard's Fleet page."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

WAIT = 120.0  # seconds a command may take here, on a loaded 2-core machine

# Put first on a command's PYTHONPATH, this ``sitecustomize`` notes in the file
# $DOCS_IMPORTS every watched top-level module a Python process of the command looks for
# (an import, or ``extras.require``'s ``find_spec``), in its children too.
SITECUSTOMIZE = """\
import os, sys

class _Watch:
    def __init__(self, log, names):
        self.log, self.names = log, names

    def find_spec(self, name, path=None, target=None):
        if name in self.names:
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(name + "\\n")
        return None  # the import goes on as it would have

if os.environ.get("DOCS_IMPORTS"):
    sys.meta_path.insert(
        0, _Watch(os.environ["DOCS_IMPORTS"], set(os.environ["DOCS_WATCH"].split(",")))
    )
"""


def watch_imports(env: dict[str, str], folder: Path, names: set[str]) -> None:
    """Make ``env``'s Python processes note the ``names`` they import (``imported``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(folder), path) if x)
    env["DOCS_WATCH"] = ",".join(sorted(names))


def imported(log: Path) -> set[str]:
    """The watched modules the processes noted in ``log``."""
    try:
        return set(log.read_text(encoding="utf-8").split())
    except FileNotFoundError:
        return set()


class Running:
    """A command line run by bash in a session of its own (as in a terminal of its own),
    its output read line by line as it comes."""

    def __init__(self, text: str, folder: Path, env: dict[str, str]) -> None:
        self.child = subprocess.Popen(
            ["bash", "-c", f"exec {text}"],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.seen: list[str] = []
        self.ended = False
        self._news = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.child.stdout is not None
        for line in self.child.stdout:
            with self._news:
                self.seen.append(line)
                self._news.notify_all()
        with self._news:
            self.ended = True
            self._news.notify_all()

    def _found(self, pattern: str) -> re.Match[str] | None:
        return next((m for line in self.seen if (m := re.search(pattern, line))), None)

    def wait_for(self, pattern: str) -> re.Match[str] | None:
        """The first line matching ``pattern``, waited for; None when the output ended
        (or WAIT passed) without one."""
        with self._news:
            self._news.wait_for(lambda: self._found(pattern) is not None or self.ended, WAIT)
            return self._found(pattern)

    def output(self, last: int = 600) -> str:
        return "".join(self.seen)[-last:]

    def end(self) -> int | None:
        """Its exit status, waited for; None when it still runs after WAIT."""
        try:
            return self.child.wait(WAIT)
        except subprocess.TimeoutExpired:
            return None

    def interrupt(self) -> str | None:
        """Ctrl-C: None when it stopped cleanly (exit 0, or the shell's 130 for an
        interrupt), else what went wrong."""
        os.killpg(self.child.pid, signal.SIGINT)
        code = self.end()
        if code is None:
            # Still running: SIGABRT makes Python's faulthandler (PYTHONFAULTHANDLER, in
            # the environment) print every thread's stack, so the failure says where.
            os.kill(self.child.pid, signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.child.wait(WAIT)
            self._reader.join(10)
            return f"still running {WAIT:.0f} s after Ctrl-C; its stacks: {self.output(4000)}"
        if code not in (0, 130, -signal.SIGINT):
            return f"Ctrl-C ended it with exit {code}: {self.output()}"
        return None

    def close(self) -> None:
        if self.child.poll() is None:
            os.killpg(self.child.pid, signal.SIGKILL)
            self.child.wait()
        self._reader.join(10)


def _call(
    url: str, body: dict[str, Any] | None, cookie: str | None, ca: Path | None = None
) -> tuple[int, Any, str]:
    """GET (``body`` None) or POST JSON as a script would: (status, answer, Set-Cookie);
    an https ``url`` checked against the CA file ``ca``."""
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = cookie
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data, headers=headers, method="GET" if data is None else "POST"
    )
    try:
        context = None if ca is None else ssl.create_default_context(cafile=str(ca))
        with urllib.request.urlopen(req, timeout=30, context=context) as r:
            return r.status, json.loads(r.read()), r.headers.get("Set-Cookie", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace"), ""


def approve(
    dashboard: str, login: str, password: str, code: str, name: str, ca: Path | None = None
) -> str | None:
    """Log in to the dashboard at ``dashboard`` and approve the table that asks with
    ``code``, naming it ``name``, as a director does on the Fleet page; None when done,
    else what went wrong."""
    status, said, cookie = _call(
        dashboard + "api/login", {"name": login, "password": password}, None, ca
    )
    if status != 200:
        return f"the director's login was refused ({status}): {said}"
    cookie = cookie.split(";")[0]
    end = time.monotonic() + WAIT
    while True:  # the table's request, on its way to the director
        status, said, _ = _call(dashboard + "api/fleet/requests", None, cookie, ca)
        if status != 200:
            return f"the Fleet page's requests could not be read ({status}): {said}"
        asked = [r for r in said["requests"] if r.get("code") == code]
        if asked:
            break
        if time.monotonic() > end:
            return f"no request with the code {code} reached the director: {said}"
        time.sleep(0.05)
    status, said, _ = _call(
        dashboard + "api/fleet/approve",
        {"request": asked[0]["request"], "code": code, "name": name},
        cookie,
        ca,
    )
    return None if status == 200 else f"the approval was refused ({status}): {said}"
