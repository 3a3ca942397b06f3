"""The fleet: from `table-controller run` on a table that has joined nothing to its
first hand's events at the director, for N tables at once (20 by default).

Run it as root (network namespaces): ``nice .venv/bin/python bench/fleet_join.py
[--tables 20] [--pace fast|demo]``. What is real: every table is `table-controller run`
of a table.toml with `[fleet]` and nothing else (no address, no password), each in a
network namespace of its own on one bridge (tests/netns.py), finding the director by
mDNS; the director is `table-controller director start` (mosquitto with its dynamic
security plugin, the store on SQLite, the dashboard) in a namespace of its own. What is
simulated: the players and the camera (the synthetic table, its frames rendered and
read by each table's own process), and the director's clicks: this script approves each
request over the dashboard's API as soon as it sees it, naming the table after its
address, so the figures hold no human. The event (a progressive event, round 1 seating
table k at place k) is made before the tables start, so each table's first config
carries its players and it deals at once.

Every process shares this machine's 2 cores (a real table has a Pi of its own): the
figures are an upper bound for an event's tables, and the stages say where time goes.
Times are on this machine's one clock: the table started, its request seen on the
dashboard (polled every 0.2 s), approved, its first hand's first event stored at the
director (the store's ``received``), and that hand's score stored.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import ssl
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import netns  # noqa: E402  (the tests' namespaces: one bridge, a host per machine)

COOKIE = "tc_director"  # director/web.py's
WEB_PORT, BROKER_PORT, PAGE_PORT = 8090, 8883, 8080


CONTEXT: list[ssl.SSLContext] = []  # the event's authority, once the director made it


def call(url: str, body: dict[str, Any] | None = None, cookie: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers["Cookie"] = f"{COOKIE}={cookie}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data, method="GET" if body is None else "POST", headers=headers
    )
    with urllib.request.urlopen(req, timeout=30, context=CONTEXT[0] if CONTEXT else None) as r:
        if body is not None and url.endswith("api/login"):
            return r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        return json.loads(r.read())


def table_toml(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "table.toml"
    path.write_text(
        '[table]\ngpio = "mock"\n\n[camera]\nsource = "synthetic"\nlost_after = 30.0\n'
        'drift_check = 0\n\n[cube]\nport = "none"\n\n'
        f'[web]\nhost = "0.0.0.0"\nport = {PAGE_PORT}\n\n[fleet]\nfolder = "fleet"\n',
        encoding="utf-8",
    )
    return path


def wait(what: str, cond: Any, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise SystemExit(f"gave up waiting: {what}")
        time.sleep(0.2)


def first_hand(db: Path, table: str) -> tuple[float | None, float | None]:
    """When the table's first hand's first event, and its score, were stored."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as c:
        first = c.execute(
            "SELECT MIN(received) FROM events WHERE tbl = ? AND hand IS NOT NULL", (table,)
        ).fetchone()[0]
        scored = c.execute(
            "SELECT MIN(received) FROM events WHERE tbl = ? AND outputs LIKE '%hand_scored%'",
            (table,),
        ).fetchone()[0]
    return first, scored


def run(tables: int, pace: str, guard: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    work = Path(tempfile.mkdtemp(prefix="fleet-bench-"))
    with netns.hosts(1 + tables) as net:
        out = (work / "director.out").open("w")
        net.popen(
            1,
            [sys.executable, "-m", "table_controller", "director", "start", "--folder",
             str(work / "event"), "--event", "Bench Open", "--web-port", str(WEB_PORT),
             "--broker-port", str(BROKER_PORT)],
            stdout=out, stderr=out, env=env, cwd=work,
        )  # fmt: skip
        said = lambda: (work / "director.out").read_text()  # noqa: E731
        wait("the director", lambda: "The dashboard:" in said(), guard)
        found = re.search(r"as director, password (\S+)", said())
        assert found, said()
        url = f"https://{net.address(1)}:{WEB_PORT}/"  # with the event's own authority
        CONTEXT[:] = [ssl.create_default_context(cafile=str(work / "event" / "tls" / "ca.crt"))]
        cookie = call(url + "api/login", {"name": "director", "password": found.group(1)})
        players = [f"Player {n}" for n in range(1, 4 * tables + 1)]
        call(
            url + "api/event/create",
            {"format": "progressive", "rounds": 1, "entrants": "\n".join(players)},
            cookie,
        )
        places = {f"table-{k}": str(k) for k in range(1, tables + 1)}
        call(url + "api/event/assign", {"round": 1, "places": places}, cookie)

        started: dict[int, float] = {}
        for k in range(1, tables + 1):
            config = table_toml(work / f"table-{k}")
            log = (work / f"table-{k}.out").open("w")
            argv = [sys.executable, "-m", "table_controller", "run", "--config", str(config),
                    "--seed", str(k)] + (["--fast"] if pace == "fast" else [])  # fmt: skip
            started[k] = time.time()
            net.popen(1 + k, argv, stdout=log, stderr=log, env=env, cwd=config.parent)
        by_address = {net.address(1 + k): k for k in range(1, tables + 1)}
        seen: dict[int, float] = {}
        approved: dict[int, float] = {}
        done: dict[int, tuple[float, float]] = {}
        db = work / "event" / "director.sqlite"
        end = time.monotonic() + guard
        while len(done) < tables:
            if time.monotonic() > end:
                raise SystemExit(f"gave up: {tables - len(done)} tables without a hand scored")
            for q in call(url + "api/fleet/requests", cookie=cookie)["requests"]:
                k = by_address.get(q["address"])
                if k is None or k in approved:
                    continue
                seen.setdefault(k, time.time())
                body = {"request": q["request"], "code": q["code"], "name": f"Table {k}"}
                try:
                    call(url + "api/fleet/approve", body, cookie)
                except urllib.error.HTTPError as exc:
                    print(f"table {k}: approval refused: {exc.read()[:300]!r}", file=sys.stderr)
                    continue
                approved[k] = time.time()
            for k in approved:
                if k not in done:
                    first, scored = first_hand(db, f"table-{k}")
                    if first is not None and scored is not None:
                        done[k] = (first, scored)
            time.sleep(0.2)
        rows = {
            k: {
                "asked": seen[k] - started[k],
                "approved": approved[k] - started[k],
                "first_event": done[k][0] - started[k],
                "hand_scored": done[k][1] - started[k],
            }
            for k in sorted(done)
        }
    return {"tables": tables, "pace": pace, "rows": rows, "folder": str(work)}


def summary(result: dict[str, Any]) -> str:
    rows = result["rows"].values()
    lines = [
        f"{result['tables']} tables ({result['pace']} pace), seconds from `table-controller "
        "run` on a table that had joined nothing:",
        f"{'stage':<44}{'median':>8}{'p90':>8}{'max':>8}",
    ]
    stages = (
        ("asked (its request on the Fleet page)", "asked"),
        ("approved (by this script, at once)", "approved"),
        ("first hand's first event at the director", "first_event"),
        ("first hand's score at the director", "hand_scored"),
    )
    for label, key in stages:
        xs = sorted(r[key] for r in rows)
        p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
        lines.append(f"{label:<44}{statistics.median(xs):>8.1f}{p90:>8.1f}{xs[-1]:>8.1f}")
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument(
        "--pace",
        choices=("demo", "fast"),
        default="demo",
        help="demo: 30 frames a second, as a camera; fast: as fast as they render",
    )
    p.add_argument("--guard", type=float, default=900.0, help="give up after this many seconds")
    args = p.parse_args()
    reason = netns.skip_reason()
    if reason is not None:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    print(summary(run(args.tables, args.pace, args.guard)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
