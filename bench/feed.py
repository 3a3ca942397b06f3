"""The director's feed: N tables through one broker to one director, latency and
messages per second; the broker killed (-9) mid-event and a table cut off; nothing lost.

Run it as ``nice .venv/bin/python bench/feed.py`` (``--tables 100 --speed 20`` by default;
``--quick`` for a short run with 10 tables). What is real and what is simulated:

* real: mosquitto (the event's configuration from ``feed broker-config``: persistence,
  passwords, ACLs) on a loopback port; each table's ``EventLog`` (a SQLite file,
  committed and fsync'd per event) and its ``Publisher`` (its own paho client, outbox,
  director's mark); the director's ``DirectorService``, ``DirectorStore`` (SQLite,
  synchronous=FULL) and ``DirectorPage`` (the dashboard's snapshots, coalesced 50 ms);
* simulated: the players and the camera. Each table's events are the rules core's legal
  choices (``feed.loadgen.RulesTable``: random legal play, shuffled deals) logged at a
  real table's pace divided by ``--speed`` (a real table logs an event about every
  ``--pace`` seconds, 3 s by default: 20x speed is one event every 0.15 s a table). A
  "card laid" is the moment its event is in the table's log; the camera's own latency
  is bench/table.py's.

Latency: from the event logged at the table to (a) the director's store holding it and
(b) the next dashboard snapshot published after that: median and p99, over the events
logged while the broker was up (an event logged while the broker was down waits for it,
by design, and so does one taken by a broker that then died, until the tables' resend
from the director's mark: those are counted apart). Messages per second: what the director took from
the broker (events, evidence, heartbeats, acks) over the run.

Faults, on the event's clock: one table cut off from the broker (its TCP relay closed
and refusing) for ``--cut-minutes`` of game time (10 by default: 30 s of wall time at
20x); the broker killed with SIGKILL mid-event and started again from its save. At the
end every table's log is compared with the director's store: events missing, events
that differ, and (by the store's key) none can be there twice.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import heapq
import json
import logging
import os
import platform
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.feed import messages
from table_controller.feed.broker import mosquitto_conf, write_broker_config
from table_controller.feed.loadgen import RulesTable
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.rules.codec import encode
from table_controller.table.log import EventLog

TOPICS = messages.Topics.of("euchre", "bench")
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    def __init__(self, folder: Path, port: int) -> None:
        conf = mosquitto_conf(folder, port=port, bind="127.0.0.1")
        if os.geteuid() == 0:
            conf = "user root\n" + conf  # as root it would drop to a user that cannot read
        self.conf = folder / "bench-mosquitto.conf"
        self.conf.write_text(conf)
        self.port = port
        self.log = folder / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.conf)], stdout=out, stderr=subprocess.STDOUT
            )
        for _ in range(500):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


class Relay:
    """The cut-off table's network: a TCP relay that can be closed and reopened."""

    def __init__(self, target: int) -> None:
        self.target, self.port = target, free_port()
        self._server: socket.socket | None = None
        self._socks: list[socket.socket] = []

    def up(self) -> None:
        server = self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                a, _ = server.accept()
                b = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                if server.fileno() < 0:
                    return
                continue
            self._socks += [a, b]
            for x, y in ((a, b), (b, a)):
                threading.Thread(target=self._pump, args=(x, y), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        if self._server is not None:
            with contextlib.suppress(OSError):
                self._server.shutdown(socket.SHUT_RDWR)
            self._server.close()
            self._server = None
        socks, self._socks = self._socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def line(name: str, ms: list[float]) -> str:
    if not ms:
        return f"  {name}: no events"
    return (
        f"  {name}: median {statistics.median(ms):.1f} ms, p99 {pct(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms (n={len(ms)})"
    )


def run(args: argparse.Namespace) -> int:
    logging.getLogger("table_controller").setLevel(logging.ERROR)  # 100 tables' warnings
    folder = Path(tempfile.mkdtemp(prefix="bench-feed-"))
    ids = [f"table-{n}" for n in range(1, args.tables + 1)]
    files = write_broker_config(folder / "broker", TOPICS, ids)
    broker = Broker(files.folder, free_port())
    broker.start()
    interval = args.pace / args.speed
    cut_wall = args.cut_minutes * 60 / args.speed
    cut_id = ids[-1]
    relay = Relay(broker.port)
    relay.up()

    store = DirectorStore(folder / "director.sqlite")
    svc = DirectorService(
        store,
        BrokerConfig(
            host="127.0.0.1",
            port=broker.port,
            username="director",
            password=files.passwords["director"],
            client_id="director-bench",
        ),
        prefix=TOPICS.prefix,
    )
    page = DirectorPage(store, svc)
    flushes: list[float] = []
    real_flush = page._flush

    def timed_flush() -> None:
        real_flush()
        flushes.append(time.time())

    page._flush = timed_flush  # type: ignore[method-assign]
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    asyncio.run_coroutine_threadsafe(page.start("127.0.0.1", 0), loop).result(30)
    svc.start()
    while not svc.connected.wait(0.1):
        pass

    tables: dict[str, tuple[RulesTable, Publisher]] = {}
    for i, t in enumerate(ids):
        path = folder / f"{t}.sqlite"
        rt = RulesTable(path, name=t, seed=i)
        settings = FeedSettings(
            table=t,
            topics=TOPICS,
            broker="127.0.0.1",
            port=relay.port if t == cut_id else broker.port,
            username=t,
            password=files.passwords[t],
            heartbeat=10.0,
        )
        pub = Publisher(settings, path)
        pub.start()
        tables[t] = (rt, pub)

    start = time.time()
    plan = {
        "cut": start + args.seconds * 0.15,
        "kill": start + args.seconds * 0.45,
        "restart": start + args.seconds * 0.45 + args.down,
        "uncut": start + args.seconds * 0.15 + cut_wall,
        "end": start + args.seconds,
    }
    rng = random.Random(1)
    queue = [(start + rng.uniform(0, interval), t) for t in ids]
    heapq.heapify(queue)
    # Events logged from the kill until the tables' resend (resend_after, 10 s) after the
    # restart are the crash's: some were taken by a broker that then died, or by the new
    # one before the director subscribed again; they come later, by the resend.
    down: list[tuple[float, float]] = [(plan["kill"], plan["restart"] + 12.0)]
    done: set[str] = set()
    print(
        f"{args.tables} tables, an event every {interval * 1000:.0f} ms a table "
        f"({args.pace:g} s at a real table, {args.speed:g}x), {args.seconds:g} s; "
        f"{cut_id} cut off {cut_wall:g} s ({args.cut_minutes:g} min of game time), "
        f"the broker killed -9 at {plan['kill'] - start:.0f} s and restarted "
        f"{args.down:g} s later",
        flush=True,
    )
    while queue:
        when, t = heapq.heappop(queue)
        now = time.time()
        for step in ("cut", "kill", "restart", "uncut"):
            if step not in done and now >= plan[step]:
                done.add(step)
                print(f"  {now - start:5.1f} s: {step}", flush=True)
                if step == "cut":
                    relay.cut()
                elif step == "kill":
                    broker.kill()
                elif step == "restart":
                    broker.start()
                else:
                    relay.up()
        if when >= plan["end"]:
            continue
        if when > now:
            time.sleep(when - now)
        rt, pub = tables[t]
        rt.step()
        pub.notify()
        pub.set_status(rt.status())
        heapq.heappush(queue, (when + interval * rng.uniform(0.5, 1.5), t))
    played = time.time() - start
    if "uncut" not in done:
        relay.up()

    want: dict[str, dict[tuple[int, int], str]] = {}
    for t in ids:
        with EventLog.open_existing(folder / f"{t}.sqlite") as log:
            want[t] = {
                (e.game, e.seq): str(sorted(messages.secret_free(encode(e.event)).items()))
                for g in log.games()
                for e in log.events(g.game)
            }
    total = sum(len(v) for v in want.values())
    deadline = time.time() + args.drain
    while store.count_events() < total and time.time() < deadline:
        time.sleep(0.5)
    drained = time.time() - start
    received = svc.received
    resends = sum(pub.resends for _, pub in tables.values())
    time.sleep(0.3)  # the last snapshot
    for _, pub in tables.values():
        pub.stop(timeout=1.0)
    svc.stop()
    asyncio.run_coroutine_threadsafe(page.stop(), loop).result(30)
    broker.kill()

    missing = differ = 0
    conn = sqlite3.connect(folder / "director.sqlite")
    stored: dict[str, dict[tuple[int, int], str]] = {t: {} for t in ids}
    times: list[tuple[float, float]] = []
    late: list[float] = []
    for tbl, game, seq, inp, at, rec in conn.execute(
        "SELECT tbl, game, seq, input, at, received FROM events"
    ):
        stored.setdefault(tbl, {})[(game, seq)] = str(sorted(json.loads(inp).items()))
        broker_down = any(a - 1.0 <= at <= b + 1.0 for a, b in down)
        cut = tbl == cut_id and plan["cut"] - 1.0 <= at <= plan["uncut"] + 1.0
        if broker_down or cut:
            late.append(rec - at)
        else:
            times.append((at, rec))
    keys = conn.execute("SELECT count(*), count(DISTINCT tbl || '/' || game || '/' || seq) "
                        "FROM events").fetchone()
    conn.close()
    for t in ids:
        for k, v in want[t].items():
            got = stored[t].get(k)
            if got is None:
                missing += 1
            elif got != v:
                differ += 1
    extra = sum(len(set(stored[t]) - set(want[t])) for t in ids)
    store_ms = [(rec - at) * 1000 for at, rec in times]
    dash_ms = []
    for at, rec in times:
        i = bisect.bisect_left(flushes, rec)
        if i < len(flushes):
            dash_ms.append((flushes[i] - at) * 1000)

    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs)")
    mosq = subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True).stdout
    print(f"{mosq.splitlines()[0] if mosq else 'mosquitto'}; paho-mqtt {version('paho-mqtt')}")
    print(f"events logged: {total} at {args.tables} tables in {played:.1f} s "
          f"({total / played:.0f} events/s); all in the director's store after {drained:.1f} s")
    print(f"messages the director took: {received} ({received / drained:.0f} per second)")
    print("latency, event logged at the table ->")
    print(line("the director's store holds it     ", store_ms))
    print(line("the dashboard's snapshot published", dash_ms))
    if late:
        print(f"  events logged from the broker's kill to 12 s after its restart, or while "
              f"their table was cut off: {len(late)}, stored a median "
              f"{statistics.median(late):.1f} s later (max {max(late):.1f} s)")
    print(f"resends from the director's mark after a stall: {resends}")
    print(f"the broker killed -9 and restarted, {cut_id} cut off {cut_wall:g} s: "
          f"{missing} events missing from the store, {differ} different from the log, "
          f"{keys[0] - keys[1]} stored twice, {extra} not in any log")
    shutil.rmtree(folder, ignore_errors=True)
    return 0 if missing == differ == extra == 0 else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--pace", type=float, default=3.0, help="seconds between a real table's events")
    ap.add_argument("--seconds", type=float, default=90.0, help="wall seconds of play")
    ap.add_argument("--cut-minutes", type=float, default=10.0, help="game minutes cut off")
    ap.add_argument("--down", type=float, default=3.0, help="wall seconds the broker is down")
    ap.add_argument("--drain", type=float, default=180.0, help="wall seconds to wait at the end")
    ap.add_argument("--quick", action="store_true", help="10 tables, 45 s, cut 5 min")
    args = ap.parse_args()
    if args.quick:
        args.tables, args.seconds, args.cut_minutes = 10, 45.0, 5.0
    sys.exit(run(args))


if __name__ == "__main__":
    main()
