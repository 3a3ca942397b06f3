"""The director's feed: N tables through one broker to one director, latency and
messages per second; the broker killed (-9) mid-event and a table cut off; nothing lost.

Run it as ``nice .venv/bin/python bench/feed.py`` (``--tables 100 --speed 20`` by default;
``--quick`` for a short run with 10 tables). The tables play in ``--procs`` worker
processes (4 by default: 25 tables each at 100 tables), the broker and the director in
the main process, so the figures measure the feed and not one process's GIL (real tables
each have a machine of their own); ``--procs 0`` plays them all in the director's own
process, as the first version of this bench did. At 256 tables (a Bridgemate II
server's capacity), signed, over TLS, at a real table's pace::

    nice .venv/bin/python bench/feed.py --tables 256 --speed 1 --seconds 240 \\
        --cut-minutes 1 --tls --dashboard-tls --sign

(4 workers of 64 tables: some 130 threads and 520 open files each; the bench raises its
soft limit on open files for itself, the workers and mosquitto when it is lower than
that needs; ``--keep`` keeps the run's folder: the director's store, the tables' logs).
The workers' threads take turns every 1 ms, as the director's do
(``--tables-switch-interval``): 64 tables share one interpreter here where a real table
has a machine of its own, and at Python's 5 ms a table's send waited behind the others'.
What is real and what is simulated:

* real: mosquitto (the event's configuration from ``feed broker-config``: persistence,
  passwords, ACLs, client ids bound to users; with ``--tls`` a TLS listener only, its CA
  and certificate made for the run by ``feed.tls``) on a loopback port; each table's
  ``EventLog`` (a SQLite file, committed and fsync'd per event) and its ``Publisher``
  (its own paho client, outbox, director's mark); the director's ``DirectorService``,
  ``DirectorStore`` (SQLite, synchronous=FULL; or with ``--postgres`` a PostgreSQL
  server started for the run, fsync on) and ``DirectorPage`` (the dashboard's snapshots,
  coalesced 25 ms; with ``--dashboard-tls`` served over HTTPS and read by a logged-in
  director, bench/dashboard_reader.py);
* real with ``--sign``: each table's Ed25519 signing key as ``feed broker-config`` writes
  it (``secrets/TABLE.signing.key``), given to its ``Publisher`` (``signing_key``), which
  signs every event and status it sends (a status with its place in the table's order);
  every public half registered at the director from ``table-keys.json`` as ``director
  start`` does (``register_table_keys``: enforced, so an unsigned message would be
  refused), and the director's service checking each one against its table's key (and a
  status's place) before storing it (director/table_trust.py). The bench wraps that
  check (``TableTrust.message``) and each publisher's signing only to count and time
  them (``time.thread_time``: the CPU of the thread doing it) and prints how many the
  director verified, took unchecked, refused, and dropped as the broker's copies of
  what it had taken (its retained statuses sent again when the director subscribes);
  the run fails if any was taken unchecked or refused, or a table's key is not
  enforced. Without ``--sign`` the tables send unsigned and no key is registered, as
  before: the CPU seconds of the two runs compared give signing's cost in the feed;
* simulated: the players and the camera. Each table's events are the rules core's legal
  choices (``sim.loadgen.RulesTable``: random legal play, shuffled deals) logged at a
  real table's pace divided by ``--speed`` (a real table logs an event about every
  ``--pace`` seconds, 3 s by default: 20x speed is one event every 0.15 s a table). A
  "card laid" is the moment its event is in the table's log; the camera's own latency
  is bench/table.py's.

Latency, all on this machine's one clock (``time.time()`` in every process): from the
event's ``at`` (the time the table process logs it) to its first copy handed to the
director by paho and to the director's writer storing it (the row's ``received``,
inside the transaction): a breakdown; to (a) the director's
store holding it, committed: the end of the writer's transaction that stored it (the
first "event" notice for its table at or after ``received``; notices go out after the
commit), and (b) the next dashboard snapshot published after that commit (coalesced,
at most every 25 ms; how long each took to build and publish on the director's event
loop, and that thread's CPU time for it, are printed too): median and p99, over the
events logged while the broker was up
(an event logged while the broker was down waits for it, by design, and so does one
taken by a broker that then died, until the tables' resend from the director's mark:
those are counted apart). Messages per second: what the director took from the broker
(events, evidence, heartbeats, acks) over the run.

Faults, on the event's clock: one table cut off from the broker (its TCP relay closed
and refusing) for ``--cut-minutes`` of game time (10 by default: 30 s of wall time at
20x; it must end before play does, so pass fewer at 1x: ``--cut-minutes 1`` is 60 s);
the broker killed with SIGKILL mid-event and started again from its save. At the
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
import math
import multiprocessing as mp
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sysinfo import cpu_model, version

from table_controller.director.cli import register_table_keys
from table_controller.director.service import BrokerConfig, DirectorService, take_turns
from table_controller.director.store import DirectorStore
from table_controller.director.store.db import open_database
from table_controller.director.web import COALESCE, DirectorPage
from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.broker import TABLE_KEYS, Tls, mosquitto_conf, write_broker_config
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.feed.table_signing import SIG
from table_controller.feed.tls import make_certs
from table_controller.rules.codec import encode
from table_controller.sim.loadgen import RulesTable

TOPICS = messages.Topics.of("euchre", "bench")
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    def __init__(self, folder: Path, port: int, tls: Tls | None = None) -> None:
        conf = mosquitto_conf(folder, port=port, bind="127.0.0.1", tls=tls)
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


@dataclass(frozen=True)
class Share:
    """What one worker plays: its tables, where their logs go, how they reach the broker."""

    ids: list[str]
    folder: str
    port: int
    cut_id: str
    cut_port: int
    passwords: dict[str, str]
    interval: float
    seconds: float
    seed: int
    tls_ca: str | None = None  # TLS (--tls): the event's CA
    keys: str | None = None  # signed (--sign): the folder of each table's signing key
    switch: float | None = None  # the worker's interpreter switch interval (None: Python's)


def play(share: Share, go: Any, start_at: Any, finish: Any, report: Any) -> None:
    """A worker (a process of its own, or a thread of the director's with ``--procs 0``):
    its tables' logs and publishers; logs an event at each table on its schedule from
    ``start_at`` for ``seconds``, then keeps its publishers sending (the drain, the
    resends) until ``finish``. Reports ("ready"), ("played", n, seconds) and ("done",
    resends, resumes, cpu seconds, signed messages, their signing's cpu seconds) on
    ``report``."""
    logging.getLogger("table_controller").setLevel(logging.ERROR)  # 100 tables' warnings
    if share.switch is not None and threading.current_thread() is threading.main_thread():
        sys.setswitchinterval(share.switch)
    folder = Path(share.folder)
    tables: dict[str, tuple[RulesTable, Publisher]] = {}
    # messages signed, the CPU seconds of signing them, and when each event was first
    # signed to be sent: (table, game, seq, time)
    signing: list[Any] = [0, 0.0, []]
    for t in share.ids:
        path = folder / f"{t}.sqlite"
        rt = RulesTable(path, name=t, seed=int(t.rsplit("-", 1)[1]))
        settings = FeedSettings(
            table=t,
            topics=TOPICS,
            broker="127.0.0.1",
            port=share.cut_port if t == share.cut_id else share.port,
            username=t,
            password=share.passwords[t],
            tls_ca=None if share.tls_ca is None else Path(share.tls_ca),
            # its key as `feed broker-config` wrote it (secrets/TABLE.signing.key)
            signing_key=None
            if share.keys is None
            else (Path(share.keys) / f"{t}.signing.key").read_bytes(),
            heartbeat=10.0,
        )
        pub = Publisher(settings, path)
        if share.keys is not None:
            pub._signed = timed_signing(pub._signed, signing)  # type: ignore[method-assign]
        pub.start()
        tables[t] = (rt, pub)
    report.put(("ready",))
    go.wait()
    start = float(start_at.value)
    rng = random.Random(share.seed)
    queue = [(start + rng.uniform(0, share.interval), t) for t in share.ids]
    heapq.heapify(queue)
    end = start + share.seconds
    logged = 0
    while queue:
        when, t = heapq.heappop(queue)
        if when >= end:
            continue
        now = time.time()
        if when > now:
            time.sleep(when - now)
        rt, pub = tables[t]
        logged += len(rt.step())
        pub.notify()
        pub.set_status(rt.status())
        heapq.heappush(queue, (when + share.interval * rng.uniform(0.5, 1.5), t))
    report.put(("played", logged, time.time() - start))
    finish.wait()
    resends = sum(pub.resends for _, pub in tables.values())
    resumes = sum(pub.resumes for _, pub in tables.values())
    for rt, pub in tables.values():
        pub.stop(timeout=1.0)
        rt.close()
    report.put(("done", resends, resumes, time.process_time(), signing[0], signing[1], signing[2]))


def timed_signing(sign: Any, tally: list[Any]) -> Any:
    """A publisher's ``_signed`` that also adds its message and the CPU time its thread
    spent signing it (``time.thread_time``) to ``tally``, and, for an event, when it was
    signed to be sent: the table's own share of the latency (its publisher's thread, in a
    worker process of 64 tables), apart from the broker's and the director's."""

    def signed(kind: str, payload: dict[str, Any], **how: Any) -> dict[str, Any]:
        t0 = time.thread_time()
        out = sign(kind, payload, **how)
        tally[1] += time.thread_time() - t0
        tally[0] += 1
        if kind == "events":
            with contextlib.suppress(KeyError, TypeError):
                tally[2].append((payload["table"], payload["game"], payload["seq"], time.time()))
        return out

    return signed


@dataclass
class Checks:
    """The director's side of the signatures: what its check of each signed kind of
    message (``TableTrust.message``: the signature, then a status's place in its table's
    order) decided, and the CPU time its thread spent in it."""

    verified: Counter[str] = field(default_factory=Counter)  # taken, signed with its key
    unchecked: Counter[str] = field(default_factory=Counter)  # taken without a key enforced
    copies: int = 0  # the broker's copies (dup, retained) of what was taken: dropped unsaid
    refused: int = 0  # refused with an alert: unsigned, another key, sent again fresh
    cpu: float = 0.0

    @classmethod
    def wrap(cls, svc: DirectorService) -> Checks:
        checks = cls()
        trust = svc._trust
        real = trust.message

        def message(table: str, kind: str, body: Any, now: float, **how: Any) -> Any:
            t0 = time.thread_time()
            decision = real(table, kind, body, now, **how)
            checks.cpu += time.thread_time() - t0
            key = svc.store.keys.table_key(table)
            if not decision.take:
                if decision.alerted:
                    checks.refused += 1
                else:
                    checks.copies += 1
            elif key is not None and key.enforced and SIG in body:
                checks.verified[kind] += 1  # check_message verified its signature
            else:
                checks.unchecked[kind] += 1
            return decision

        trust.message = message  # type: ignore[method-assign]
        return checks


def others(counts: Counter[str]) -> str:
    """The kinds counted besides events and statuses ("", or ", 3 acks")."""
    rest = [f"{n} {kind}" for kind, n in sorted(counts.items()) if kind not in ("events", "status")]
    return "".join(f", {r}" for r in rest)


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_files(tables: int, procs: int) -> int:
    """The soft limit on open files raised (to the hard one) if a worker's share of the
    tables or the broker's connections might need more (some 8 a table in a worker: its
    socket, its log's and outbox's SQLite files, paho's wake-up pair; one a client at the
    broker), for this process and what it starts: the workers and mosquitto. Returns the
    limit in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    per_worker = -(-tables // procs) if procs else tables  # (procs 0: all in this one)
    need = 64 + 10 * per_worker + tables
    if soft != resource.RLIM_INFINITY and soft < need:
        soft = need if hard == resource.RLIM_INFINITY else min(hard, need)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft != resource.RLIM_INFINITY and soft < need:
        print(f"warning: {soft} open files a process, {need} wanted: more --procs", flush=True)
    return soft


def run(args: argparse.Namespace) -> int:
    logging.getLogger("table_controller").setLevel(logging.ERROR)  # 100 tables' warnings
    files_limit = open_files(args.tables, args.procs)
    folder = Path(tempfile.mkdtemp(prefix="bench-feed-"))
    ids = [f"table-{n}" for n in range(1, args.tables + 1)]
    port = free_port()
    tls = None
    if args.tls:  # the broker's certificate for the name the tables use
        certs = make_certs(folder / "certs", ["127.0.0.1"])
        tls = Tls(certs.ca_cert, certs.cert, certs.key, port=port)
    files = write_broker_config(folder / "broker", TOPICS, ids, tls=tls, signing=args.sign)
    broker = Broker(files.folder, port, tls)
    print(
        f"the feed over {'TLS' if tls else 'plain MQTT'}, with passwords"
        f"{', every event and status signed by its table' if args.sign else ''}",
        flush=True,
    )
    broker.start()
    interval = args.pace / args.speed
    cut_wall = args.cut_minutes * 60 / args.speed
    cut_id = ids[-1]
    relay = Relay(broker.port)
    relay.up()

    server = None
    store_at: str = args.database or str(folder / "director.sqlite")
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from postgres import Postgres  # the tests' throwaway server, fsync on here

        server = Postgres(fsync=True).start()
        store_at = server.new_database()
    store = DirectorStore(store_at)
    print(f"the director's store: {store.name}", flush=True)
    if args.switch_interval is None:
        take_turns()  # as `director start` and `director serve` do
    else:
        sys.setswitchinterval(args.switch_interval)
    svc = DirectorService(
        store,
        BrokerConfig(
            host="127.0.0.1",
            port=broker.port,
            username="director",
            password=files.passwords["director"],
            tls_ca=None if tls is None else str(tls.cafile),
            client_id="director-bench",
        ),
        prefix=TOPICS.prefix,
    )
    registered = 0
    if args.sign:  # as `director start` registers `feed broker-config`'s table-keys.json
        registered = register_table_keys(store, files.folder / TABLE_KEYS)
    checks = Checks.wrap(svc)
    page = DirectorPage(store, svc, coalesce=args.coalesce)
    flushes: list[float] = []
    committed: dict[str, list[float]] = {t: [] for t in ids}
    real_flush = page._flush

    building: list[float] = []  # how long each snapshot took to build and publish
    building_cpu: list[float] = []  # and the event loop thread's CPU time for it

    def timed_flush() -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        real_flush()
        building.append((time.perf_counter() - t0) * 1000)
        building_cpu.append((time.thread_time() - c0) * 1000)
        flushes.append(time.time())

    def on_commit(what: str, table: str) -> None:
        # Told after the writer's commit, once a batch for each table with new events.
        if what == "event" and table in committed:
            committed[table].append(time.time())

    arrivals: list[tuple[float, str, bytes]] = []
    real_on_message = svc._on_message

    def on_message(client: Any, userdata: Any, msg: Any) -> None:
        # When paho hands the message to the director (parsed after the run, not here).
        arrivals.append((time.time(), msg.topic, bytes(msg.payload)))
        real_on_message(client, userdata, msg)

    subscribed: list[float] = []  # each time the director subscribed (after its connects)
    real_on_subscribe = svc._client.on_subscribe

    def on_subscribe(*args: Any) -> None:
        subscribed.append(time.time())
        real_on_subscribe(*args)

    page._flush = timed_flush  # type: ignore[method-assign]
    svc._client.on_message = on_message
    svc._client.on_subscribe = on_subscribe
    svc.listen(on_commit)
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    reader = None
    if args.dashboard_tls:  # a logged-in director's stream over HTTPS (dashboard_reader.py)
        from dashboard_reader import DashboardReader

        web_certs = make_certs(folder / "dashboard-tls", ["127.0.0.1"])
        web_tls = {"tls_cert": str(web_certs.cert), "tls_key": str(web_certs.key)}
        started = page.start("127.0.0.1", 0, **web_tls)
        url = asyncio.run_coroutine_threadsafe(started, loop).result(30)
        reader = DashboardReader(store, url, web_certs.ca_cert)
    else:
        asyncio.run_coroutine_threadsafe(page.start("127.0.0.1", 0), loop).result(30)
    svc.start()
    while not svc.connected.wait(0.1):
        pass

    procs = args.procs
    ctx = mp.get_context("spawn")  # the director's threads are running: no fork
    go, finish, report = ctx.Event(), ctx.Event(), ctx.Queue()
    start_at = ctx.Value("d", 0.0)
    groups = [ids[i :: max(1, procs)] for i in range(max(1, procs))]
    workers: list[Any] = []
    for n, group in enumerate(groups):
        mine = {t: files.passwords[t] for t in group}
        share = Share(group, str(folder), broker.port, cut_id, relay.port, mine, interval,
                      args.seconds, n + 1, None if tls is None else str(tls.cafile),
                      str(files.folder / "secrets") if args.sign else None,
                      args.tables_switch_interval)  # fmt: skip
        target = (share, go, start_at, finish, report)
        w: Any = (
            ctx.Process(target=play, args=target, name=f"tables-{n + 1}")
            if procs
            else threading.Thread(target=play, args=target, daemon=True)
        )
        w.start()
        workers.append(w)
    for _ in workers:
        report.get(timeout=300)  # every table's publisher started
    cpu0 = time.process_time()
    start = time.time() + 0.5
    start_at.value = start
    go.set()
    plan = {
        "cut": start + args.seconds * 0.15,
        "kill": start + args.seconds * 0.45,
        "restart": start + args.seconds * 0.45 + args.down,
        "uncut": start + args.seconds * 0.15 + cut_wall,
    }
    # Events logged from the kill until the tables' resend (resend_after, 10 s) after the
    # restart are the crash's: some were taken by a broker that then died, or by the new
    # one before the director subscribed again; they come later, by the resend.
    down: list[tuple[float, float]] = [(plan["kill"], plan["restart"] + 12.0)]
    print(
        f"{args.tables} tables in {procs or 'no'} worker process{'es' if procs != 1 else ''}"
        f"{'' if procs else ' (all in the director process)'}, an event every "
        f"{interval * 1000:.0f} ms a table ({args.pace:g} s at a real table, {args.speed:g}x), "
        f"{args.seconds:g} s; {cut_id} cut off {cut_wall:g} s ({args.cut_minutes:g} min of "
        f"game time), the broker killed -9 at {plan['kill'] - start:.0f} s and restarted "
        f"{args.down:g} s later",
        flush=True,
    )
    mosq_cpu = 0.0
    restarted = 0.0  # when the broker was started again
    for step, when in sorted(plan.items(), key=lambda kv: kv[1]):
        time.sleep(max(0.0, when - time.time()))
        print(f"  {time.time() - start:5.1f} s: {step}", flush=True)
        if step == "cut":
            relay.cut()
        elif step == "kill":
            assert broker.proc is not None
            mosq_cpu += proc_cpu(broker.proc.pid)
            broker.kill()
        elif step == "restart":
            restarted = time.time()
            broker.start()
        else:
            relay.up()
    logged = 0
    played = 0.0
    for _ in workers:
        _, n, took = report.get(timeout=args.seconds * 10 + 300)
        logged += n
        played = max(played, took)

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
    while store.events.count_events() < total and time.time() < deadline:
        time.sleep(0.5)
    drained = time.time() - start
    received = svc.received
    batches = svc.batches
    director_cpu = time.process_time() - cpu0
    assert broker.proc is not None
    mosq_cpu += proc_cpu(broker.proc.pid)
    time.sleep(0.3)  # the last snapshot
    finish.set()
    resends = resumes = 0
    tables_cpu = signing_cpu = 0.0
    signed = 0
    sent_first: dict[tuple[str, int, int], float] = {}  # each event first signed to send
    for _ in workers:
        _, r, again, cpu, n_signed, sign_cpu, sent = report.get(timeout=120)
        for t, g, q, when in sent:
            sent_first.setdefault((t, g, q), when)
        resends += r
        resumes += again
        tables_cpu += cpu
        signed += n_signed
        signing_cpu += sign_cpu
    enforced = sum(1 for k in store.keys.table_keys() if k["enforced"])
    for w in workers:
        w.join(30)
    svc.stop()
    asyncio.run_coroutine_threadsafe(page.stop(), loop).result(30)
    if reader is not None:
        reader.join()
    broker.kill()

    missing = differ = 0
    conn = open_database(store_at)
    stored: dict[str, dict[tuple[int, int], str]] = {t: {} for t in ids}
    times: list[tuple[float, float]] = []
    taken_ms: list[float] = []
    arrived_ms: list[float] = []
    sent_ms: list[float] = []
    first: dict[tuple[str, int, int], float] = {}
    for when, topic, payload in arrivals:
        if topic.endswith("/events"):
            with contextlib.suppress(ValueError, KeyError, TypeError):
                body = json.loads(payload)
                first.setdefault((body["table"], body["game"], body["seq"]), when)
    late: list[float] = []
    shown_at: list[tuple[float, float]] = []  # (logged, on the reader's dashboard)
    shown, refused = reader.shown_counts() if reader is not None else ({}, 0)
    nth: dict[str, int] = {}  # each table's events counted in the order they were stored
    for tbl, game, seq, inp, at, rec in conn.execute(
        "SELECT tbl, game, seq, input, at, received FROM events ORDER BY received, game, seq"
    ).rows:
        nth[tbl] = nth.get(tbl, 0) + 1
        grew = shown.get(tbl, [])
        k = bisect.bisect_left([n for _, n in grew], nth[tbl])  # the first count holding it
        on_page = grew[k][0] if k < len(grew) else None
        stored.setdefault(tbl, {})[(game, seq)] = str(sorted(json.loads(inp).items()))
        notices = committed.get(tbl, [])
        i = bisect.bisect_left(notices, rec)
        done_at = notices[i] if i < len(notices) else rec  # (stored after the last notice)
        broker_down = any(a - 1.0 <= at <= b + 1.0 for a, b in down)
        cut = tbl == cut_id and plan["cut"] - 1.0 <= at <= plan["uncut"] + 1.0
        if broker_down or cut:
            late.append(done_at - at)
        else:
            times.append((at, done_at))
            taken_ms.append((rec - at) * 1000)
            if (tbl, game, seq) in first:
                arrived_ms.append((first[(tbl, game, seq)] - at) * 1000)
            if (tbl, game, seq) in sent_first:
                sent_ms.append((sent_first[(tbl, game, seq)] - at) * 1000)
            if reader is not None:
                shown_at.append((at, math.inf if on_page is None else on_page))
    keys = conn.execute(
        "SELECT count(*), count(DISTINCT tbl || '/' || game || '/' || seq) FROM events"
    ).rows[0]
    conn.close()
    store.close()
    if server is not None:
        server.close()
    for t in ids:
        for k, v in want[t].items():
            got = stored[t].get(k)
            if got is None:
                missing += 1
            elif got != v:
                differ += 1
    extra = sum(len(set(stored[t]) - set(want[t])) for t in ids)
    store_ms = [(done - at) * 1000 for at, done in times]
    read_ms = [(on_page - at) * 1000 for at, on_page in shown_at]  # inf: never shown
    dash_ms = []
    for at, done in times:
        i = bisect.bisect_left(flushes, done)
        if i < len(flushes):
            dash_ms.append((flushes[i] - at) * 1000)

    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"the director's interpreter switch interval: {sys.getswitchinterval() * 1000:g} ms")
    print(f"the dashboard's snapshots: at most one every {args.coalesce * 1000:g} ms")
    if args.tables_switch_interval is not None:
        print(f"the tables' processes' switch interval: {args.tables_switch_interval * 1000:g} ms")
    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs)")
    mosq = subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True).stdout
    print(
        f"{mosq.splitlines()[0] if mosq else 'mosquitto'}; paho-mqtt {version('paho-mqtt')}; "
        f"cryptography {version('cryptography')}; open files a process: {files_limit}"
    )
    print(
        f"events logged: {total} at {args.tables} tables in {played:.1f} s "
        f"({total / played:.0f} events/s, {args.tables / interval:.0f} asked); "
        f"all in the director's store after {drained:.1f} s"
    )
    print(
        f"messages the director took: {received} ({received / drained:.0f} per second), "
        f"in {batches} transactions ({received / max(1, batches):.1f} messages each)"
    )
    print(
        f"CPU seconds: the director's process {director_cpu:.0f}"
        f"{' (tables included)' if not procs else ''}, "
        f"{'the tables ' + format(tables_cpu, '.0f') + ', ' if procs else ''}"
        f"mosquitto {mosq_cpu:.0f}, over {drained:.0f} s of wall time "
        f"on {os.cpu_count()} CPUs"
    )
    print("latency, event logged at the table ->")
    if sent_ms:
        print(line("the table signs it to send        ", sent_ms))
    print(line("paho hands it to the director     ", arrived_ms))
    print(line("the director's writer stores it   ", taken_ms))
    print(line("the director's store holds it     ", store_ms))
    print(line("the dashboard's snapshot published", dash_ms))
    never = sum(1 for ms in read_ms if ms == math.inf)
    if reader is not None:
        print(line("a logged-in dashboard (HTTPS) has it", read_ms))
        whole = sum(1 for m in reader.messages if b'"full":true' in m[:40])
        print(
            f"  (the reader's page: {len(reader.messages)} messages, {whole} of them whole, "
            f"{sum(map(len, reader.messages)) / 1e6:.1f} MB in all; {refused} it could not "
            f"apply; events it never showed: {never}. An event is on the page when its "
            "table's count of events shown reaches it, the stream's changes applied as "
            "the page applies them)"
        )
    print(
        f"  (the dashboard's snapshots, built on the director's event loop: {len(building)}, "
        f"each median {statistics.median(building or [0]):.1f} ms, p99 "
        f"{pct(building or [0], 0.99):.1f} ms to build and publish; its CPU time median "
        f"{statistics.median(building_cpu or [0]):.1f} ms, p99 {pct(building_cpu or [0], 0.99):.1f}"
        f" ms, {sum(building_cpu) / 1000:.0f} s in all)"
    )
    if late:
        print(
            f"  events logged from the broker's kill to 12 s after its restart, or while "
            f"their table was cut off: {len(late)}, stored a median "
            f"{statistics.median(late):.1f} s later (max {max(late):.1f} s)"
        )
    checked = sum(checks.verified.values())
    unchecked = sum(checks.unchecked.values())
    if args.sign:
        print(
            f"signatures: {registered} tables' keys registered, {enforced} enforced; the tables "
            f"signed {signed} messages, {signing_cpu:.1f} CPU s "
            f"({signing_cpu / max(1, signed) * 1e6:.0f} us each); the director verified "
            f"{checks.verified['events']} events, {checks.verified['status']} statuses"
            f"{others(checks.verified)} against their table's key, {checks.cpu:.1f} CPU s "
            f"({checks.cpu / max(1, checked) * 1e6:.0f} us each); taken unchecked: "
            f"{unchecked}, refused: {checks.refused}; the broker's copies of what it had "
            f"taken, dropped: {checks.copies}"
        )
    else:
        print(
            f"signatures: none (no --sign); the director took {unchecked} events and "
            f"statuses unchecked, in {checks.cpu:.1f} CPU s of its check"
        )
    after = [t - restarted for t in subscribed if t >= restarted]
    back = f"{after[0]:.2f} s after the broker was started" if after else "never"
    print(f"resends from the director's mark after a stall: {resends}")
    print(
        "sent again from the director's mark at once, the broker having lost the "
        f"director's session: {resumes} (the director back {back})"
    )
    print(
        f"the broker killed -9 and restarted, {cut_id} cut off {cut_wall:g} s: "
        f"{missing} events missing from the store, {differ} different from the log, "
        f"{keys[0] - keys[1]} stored twice, {extra} not in any log"
    )
    if args.keep:
        print(f"the run's files (the director's store, the tables' logs) kept in {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    unsigned = args.sign and (unchecked or checks.refused or enforced < args.tables)
    unshown = refused or never
    return 0 if missing == differ == extra == 0 and not unsigned and not unshown else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--pace", type=float, default=3.0, help="seconds between a real table's events")
    ap.add_argument("--seconds", type=float, default=90.0, help="wall seconds of play")
    ap.add_argument("--cut-minutes", type=float, default=10.0, help="game minutes cut off")
    ap.add_argument("--down", type=float, default=3.0, help="wall seconds the broker is down")
    ap.add_argument("--drain", type=float, default=180.0, help="wall seconds to wait at the end")
    ap.add_argument(
        "--procs",
        type=int,
        default=4,
        help="worker processes playing the tables (0: in the director's process)",
    )
    ap.add_argument("--quick", action="store_true", help="10 tables, 45 s, cut 5 min")
    ap.add_argument(
        "--keep", action="store_true", help="keep the run's folder (its stores and logs)"
    )
    ap.add_argument(
        "--sign",
        action="store_true",
        help="each table signs its events and status with a key of its own (written by "
        "`feed broker-config`), registered at the director, which checks every one",
    )
    ap.add_argument(
        "--coalesce",
        type=float,
        default=COALESCE,
        metavar="SECONDS",
        help=f"the dashboard's snapshots at most this often (the director's: {COALESCE})",
    )
    ap.add_argument(
        "--switch-interval",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the director's interpreter switch interval (default: the director's own, "
        "1 ms; Python's default is 0.005)",
    )
    ap.add_argument(
        "--tables-switch-interval",
        type=float,
        default=0.001,
        metavar="SECONDS",
        help="the tables' worker processes' interpreter switch interval (default 0.001, as "
        "the director's; Python's is 0.005). A worker holds 64 tables' threads in one "
        "interpreter where a real table has a machine of its own",
    )
    ap.add_argument(
        "--tls",
        action="store_true",
        help="the feed over TLS (a CA and certificate made for the run)",
    )
    ap.add_argument(
        "--database",
        metavar="FILE|URL",
        help="the director's store (default: a new SQLite file); an empty "
        "PostgreSQL database's postgresql://... URL",
    )
    ap.add_argument(
        "--dashboard-tls",
        action="store_true",
        help="serve the dashboard over HTTPS and read its stream as a logged-in "
        "director: the latency to that reader too",
    )
    ap.add_argument(
        "--postgres",
        action="store_true",
        help="the store on a PostgreSQL server started for the run (Debian's "
        "binaries, fsync on, on loopback)",
    )
    args = ap.parse_args()
    if args.quick:
        args.tables, args.seconds, args.cut_minutes = 10, 45.0, 5.0
    if args.seconds * 0.15 + args.cut_minutes * 60 / args.speed > args.seconds * 0.9:
        ap.error(
            f"the cut table ({args.cut_minutes:g} game minutes, "
            f"{args.cut_minutes * 60 / args.speed:g} s at {args.speed:g}x) would still be cut "
            f"when play ends: fewer --cut-minutes or more --seconds"
        )
    sys.exit(run(args))


if __name__ == "__main__":
    main()
