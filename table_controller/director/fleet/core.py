"""Fleet mode at the director's: what approving tables needs (``Fleet``), and the tables
asking to join, waiting for the director (``JoinRequests``).

Anyone on the network may ask to join, without a login: that is what lets a table with
nothing typed into it ask. So the waiting requests are kept in memory only, each with
the address it came from and when it was first and last seen, at most ``cap`` at once
(50), at most ``per_address`` new ones from one address in ``window`` seconds.

One address may hold only a fair ``share`` of the waiting requests (5), and once the
queue is full a request from an address holding fewer takes the place of the stalest
request of the address holding the most: a few machines asking over and over cannot
keep real tables out (before, six addresses filled the queue and tables got 503). A
waiting request lives while its table polls it, and is forgotten ``expiry`` seconds (15
minutes) after its table last asked (before, it died 15 minutes after it was made, its
table polling or not).

Each request gets a salt drawn here once the table's key is in, so its code and check
(fleet/sealing.py ``join_check``) bind the director's key, the table's key and the salt:
nobody makes a key that shows a given table's code ahead of asking. Nothing is given to
a request until a logged-in director approves the code the table shows
(director/fleet/join.py); two waiting requests that show the same code are both
flagged, so the director never approves a stranger's request thinking it is the table
in front of them.

Each request also keeps the machines that asked with its key (the machine a table
claims, table/fleet/identity.py), heard at its ask and at each poll, at most
``MAX_MACHINES``: several machines asking with one key at once are copies of one SD
card, and the request is not approved while they are (director/fleet/machines.py). In
memory with the request, as the request itself: anyone may ask, so nothing of a
waiting request is written to the store; once approved, the machine that asked is
kept as the table's first (store/fleet_machines.py).
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from table_controller.director.broker import TableCredentials
from table_controller.director.fleet.machines import JOIN_WINDOW, at_once, copied_code_words
from table_controller.director.json_value import JSONValue
from table_controller.director.store import DirectorStore, MachineRow
from table_controller.errors import TableControllerError
from table_controller.fleet.discovery import key_fingerprint, key_text
from table_controller.fleet.sealing import join_check, new_salt

CAP = 50
PER_ADDRESS = 10
SHARE = 5  # waiting requests one address may hold
WINDOW = 60.0
MAX_MACHINES = 8  # machines kept per request (a copied card: two, a few)
EXPIRY = 15 * 60.0
Clock = Callable[[], float]
Machine = tuple[str, str]  # a machine's fingerprint and what it was made from
Publish = Callable[[str, bytes | str, bool], None]  # (topic, payload, retain)


class FleetError(TableControllerError):
    """A fleet request refused: its HTTP status, what went wrong and what to do."""

    def __init__(self, status: int, what: str, fix: str) -> None:
        super().__init__(f"{what}: {fix}")
        self.status = status
        self.what = what
        self.fix = fix


class JoinAnswer(TypedDict):
    """What a table's poll of its request is told (``GET /api/fleet/join/{rid}``):
    ``state`` "waiting" with the request's ``salt`` (base64), "approved" with the
    ``sealed`` bundle (base64), or "refused" with the director's ``reason``."""

    state: str
    salt: NotRequired[str]
    sealed: NotRequired[str | None]
    reason: NotRequired[str | None]


class WaitingRequest(TypedDict):
    """A waiting request as the dashboard lists it (``GET /api/fleet/requests``)."""

    request: str
    code: str
    check: str
    host: str
    address: str
    version: str
    asked_at: float
    last_seen: float
    same_code: bool  # another waiting request shows the same code
    machines: int  # machines asking with this request's key now (2 or more: a copied card)
    copied: str | None  # then, what the director reads, and what to do


@dataclass
class JoinRequest:
    """One table's request to join, as the director sees it."""

    request: str  # its id: random, what the table polls
    key: bytes  # the table's X25519 public key
    salt: bytes  # drawn by the director once it had the key
    code: str
    check: str  # five groups of four digits, the table's page shows the same
    host: str
    address: str
    version: str
    asked_at: float  # first seen
    last_seen: float  # its table's last ask or poll
    state: str = "waiting"  # waiting | approved | refused
    sealed: str | None = None  # base64, once approved
    reason: str | None = None  # once refused
    done_at: float | None = None
    # The machines that asked with its key, by fingerprint (director/fleet/machines.py).
    machines: dict[str, MachineRow] = field(default_factory=dict)

    def heard(self, machine: Machine | None, now: float, gap: float) -> None:
        """``machine`` (fingerprint, source) asked or polled at ``now``; the stalest is
        forgotten past ``MAX_MACHINES``."""
        if machine is None:
            return
        mid, source = machine
        seen = self.machines.get(mid)
        first = now if seen is None or now - seen["last_seen"] > gap else seen["first_seen"]
        self.machines[mid] = {
            "machine": mid,
            "source": source,
            "first_seen": first,
            "last_seen": now,
        }
        while len(self.machines) > MAX_MACHINES:
            stalest = min(self.machines.values(), key=lambda m: m["last_seen"])
            del self.machines[stalest["machine"]]

    def answer(self) -> JoinAnswer:
        """What the table's poll is told (``GET /api/fleet/join/{rid}``)."""
        if self.state == "approved":
            return {"state": "approved", "sealed": self.sealed}
        if self.state == "refused":
            return {"state": "refused", "reason": self.reason}
        return {"state": "waiting", "salt": base64.b64encode(self.salt).decode()}


class JoinRequests:
    """The requests to join, in memory (thread-safe): waiting ones until approved,
    refused or expired; answered ones until the table had time to fetch the answer."""

    def __init__(
        self,
        *,
        cap: int = CAP,
        per_address: int = PER_ADDRESS,
        share: int = SHARE,
        window: float = WINDOW,
        expiry: float = EXPIRY,
        clock: Clock = time.time,
        director_key: bytes = b"",
        salts: Callable[[], bytes] = new_salt,
        machine_window: float = JOIN_WINDOW,
    ) -> None:
        self.cap = cap
        self.per_address = per_address
        self.share = share
        # The director's public key (DER) the codes bind; Fleet sets it.
        self.director_key = director_key
        self.salts = salts  # a fixed one in tests that need two requests with one code
        self.window = window
        self.machine_window = machine_window  # a machine that asked still asks within it
        self.expiry = expiry
        self.clock = clock
        self._lock = threading.Lock()
        self._requests: dict[str, JoinRequest] = {}
        self._asked: dict[str, deque[float]] = {}

    def ask(
        self,
        key: bytes,
        *,
        host: str,
        address: str,
        version: str,
        machine: Machine | None = None,
    ) -> JoinRequest:
        """A table's request (the same key waiting already: that request again, so a
        table that restarts keeps its place and its code); FleetError when this address
        asked too often, holds its share already, or the queue is full of fair
        shares. ``machine``: the machine the table says it is (None: an older
        table)."""
        now = self.clock()
        with self._lock:
            self._forget(now)
            for r in self._requests.values():
                if r.key == key and r.state == "waiting":
                    r.host, r.version, r.last_seen = host, version, now
                    r.heard(machine, now, self.machine_window)
                    return r  # its address stays the one first seen: what the page shows
            times = self._asked.setdefault(address, deque())
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.per_address:
                raise FleetError(
                    429,
                    f"this address ({address}) asked to join {len(times)} times in the last "
                    f"{self.window:.0f} s",
                    "wait a minute; a table asks again by itself",
                )
            held = self._held()
            if held.get(address, 0) >= self.share:
                raise FleetError(
                    429,
                    f"this address ({address}) has {held[address]} requests to join waiting "
                    "already, as many as one address may have",
                    "the director approves or refuses those first; a table asks again by itself",
                )
            if sum(held.values()) >= self.cap:
                self._make_room(address, held)
            times.append(now)
            salt = self.salts()
            shown = join_check(self.director_key, key, salt)
            r = JoinRequest(
                request=secrets.token_urlsafe(18),
                key=key,
                salt=salt,
                code=shown.code,
                check=shown.check,
                host=host,
                address=address,
                version=version,
                asked_at=now,
                last_seen=now,
            )
            r.heard(machine, now, self.machine_window)
            self._requests[r.request] = r
            return r

    def _held(self) -> dict[str, int]:
        """Waiting requests per address (lock held)."""
        held: dict[str, int] = {}
        for r in self._requests.values():
            if r.state == "waiting":
                held[r.address] = held.get(r.address, 0) + 1
        return held

    def _make_room(self, address: str, held: dict[str, int]) -> None:
        """The queue is full: the stalest request of the address holding the most goes,
        if that address holds more than ``address`` would; else FleetError (lock
        held)."""
        most = max(held, key=lambda a: held[a])
        if held[most] <= held.get(address, 0) + 1:
            raise FleetError(
                503,
                f"{sum(held.values())} tables are already waiting to join, as many as the "
                "director takes at once",
                "the director approves the waiting tables first; this table asks again",
            )
        stalest = min(
            (r for r in self._requests.values() if r.state == "waiting" and r.address == most),
            key=lambda r: r.last_seen,
        )
        del self._requests[stalest.request]

    def poll(self, request: str, machine: str | None = None) -> JoinRequest | None:
        """The table's poll of its request: the request, kept alive while it waits.
        ``machine``: the fingerprint the poll names, one that asked with this key
        already (a poll cannot add a machine: it carries no key)."""
        with self._lock:
            now = self.clock()
            self._forget(now)
            r = self._requests.get(request)
            if r is not None and r.state == "waiting":
                r.last_seen = now
                seen = r.machines.get(machine or "")
                if seen is not None:
                    r.heard((seen["machine"], seen["source"]), now, self.machine_window)
            return r

    def asking(self, request: JoinRequest) -> list[MachineRow]:
        """The machines asking with ``request``'s key at once now: two or more, a
        copied card; [] otherwise."""
        with self._lock:
            rows = list(request.machines.values())
        return at_once(rows, self.clock(), self.machine_window)

    def get(self, request: str) -> JoinRequest | None:
        with self._lock:
            self._forget(self.clock())
            return self._requests.get(request)

    def waiting(self) -> list[WaitingRequest]:
        """The waiting requests, oldest first, as the dashboard lists them;
        ``same_code``: another waiting request shows the same code."""
        with self._lock:
            self._forget(self.clock())
            rows = sorted(
                (r for r in self._requests.values() if r.state == "waiting"),
                key=lambda r: r.asked_at,
            )
        codes = [r.code for r in rows]
        asking = {r.request: len(self.asking(r)) for r in rows}
        now = self.clock()
        recent = {
            r.request: sum(
                1 for m in r.machines.values() if now - m["last_seen"] <= self.machine_window
            )
            for r in rows
        }
        return [
            {
                "request": r.request,
                "code": r.code,
                "check": r.check,
                "host": r.host,
                "address": r.address,
                "version": r.version,
                "asked_at": r.asked_at,
                "last_seen": r.last_seen,
                "same_code": codes.count(r.code) > 1,
                "machines": asking[r.request] or min(1, recent[r.request]),
                "copied": copied_code_words(asking[r.request]) if asking[r.request] else None,
            }
            for r in rows
        ]

    def same_code(self, request: JoinRequest) -> bool:
        """Another waiting request shows ``request``'s code."""
        with self._lock:
            return any(
                r.code == request.code and r.state == "waiting" and r is not request
                for r in self._requests.values()
            )

    def approve(self, request: JoinRequest, sealed: str) -> None:
        with self._lock:
            request.state, request.sealed, request.done_at = "approved", sealed, self.clock()

    def refuse(self, request: JoinRequest, reason: str) -> None:
        with self._lock:
            request.state, request.reason, request.done_at = "refused", reason, self.clock()

    def _forget(self, now: float) -> None:
        """Requests past their time: waiting ones ``expiry`` after their table last
        asked, answered ones ``expiry`` after the answer (lock held)."""
        for rid, r in list(self._requests.items()):
            since = r.last_seen if r.done_at is None else r.done_at
            if now - since > self.expiry:
                del self._requests[rid]
        for address, times in list(self._asked.items()):
            if not times or times[-1] <= now - self.window:
                del self._asked[address]


@dataclass
class Fleet:
    """Fleet mode: the director's store, the broker's table logins, what a new table is
    given (the event, its topics, the broker's port, the director's key, the rules) and
    how the director publishes (``publish``: None when not connected)."""

    store: DirectorStore
    credentials: TableCredentials
    event: str
    topic: str
    prefix: str
    broker_port: int
    public_pem: bytes
    private_pem: bytes
    rules: str
    options: dict[str, JSONValue]
    publish: Publish | None = None
    # The event's CA (PEM) a table checks the broker and dashboard against ("": clear).
    ca_pem: str = ""
    # Called (table id, name) once a table is approved: its first config is pushed.
    on_approved: Callable[[str, str], None] | None = None
    requests: JoinRequests = field(default_factory=JoinRequests)
    # One approval or removal at a time: two at once could both find a name free.
    changing: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not self.requests.director_key:  # the codes bind this director's key
            self.requests.director_key = base64.b64decode(key_text(self.public_pem))

    @property
    def key_fingerprint(self) -> str:
        """This director's key as every joining table shows it."""
        return key_fingerprint(self.public_pem)


__all__ = [
    "CAP",
    "EXPIRY",
    "MAX_MACHINES",
    "SHARE",
    "Fleet",
    "FleetError",
    "JoinAnswer",
    "JoinRequest",
    "JoinRequests",
    "Machine",
    "TableCredentials",
    "WaitingRequest",
]
