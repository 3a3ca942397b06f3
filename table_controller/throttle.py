"""Failed tries counted under several keys at once, each key kind with its own brake.

Why a module of its own: the director's logins and a table's operator PIN both need it,
and both had the same flaw: failures counted for the whole name (or the whole table)
from any address, so a stranger guessing kept the real owner out. Here the tight brake
is on the pair (who, from where) and on the address; the brake on a name from every
address, and on everything at once, is a short slow-down that forgets quickly, so a
swarm of addresses is slowed without anyone being locked out for long. A pair that has
got in before (``trust``) passes those wide brakes.

Memory is bounded: at most ``most`` keys are kept, the least recently touched dropped
first (an attacker's own keys are the ones kept fresh), and a key quiet for its rule's
``forget`` seconds starts again from nothing. The clock is passed in, so tests drive it.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

Key = tuple[str, str]  # (the rule's kind, the key under it), e.g. ("address", "10.0.0.7")


@dataclass(frozen=True)
class Rule:
    """``free`` failures go unchecked; then each one makes the next try wait ``base`` s,
    doubled per further failure up to ``ceiling``. ``forget`` s with no failure and the
    count starts again."""

    free: int
    base: float
    ceiling: float
    forget: float


@dataclass
class _Tries:
    failures: int = 0
    last: float = 0.0


class Throttle:
    """Failures per key, a wait per key, and the keys that have got in before."""

    def __init__(
        self,
        rules: Mapping[str, Rule],
        *,
        most: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rules = dict(rules)
        self.most = most
        self.clock = clock
        self._tries: OrderedDict[Key, _Tries] = OrderedDict()
        self._trusted: OrderedDict[Key, None] = OrderedDict()

    def __len__(self) -> int:
        """How many keys are held (tests check it stays bounded)."""
        return len(self._tries) + len(self._trusted)

    def _live(self, key: Key, now: float) -> _Tries | None:
        tries = self._tries.get(key)
        if tries is not None and now - tries.last >= self.rules[key[0]].forget:
            del self._tries[key]  # quiet long enough: forgotten
            return None
        return tries

    def wait(self, keys: Iterable[Key]) -> tuple[float, str]:
        """(seconds still to wait, the kind of key that makes it); (0, "") when a try may
        go ahead now."""
        now = self.clock()
        worst = (0.0, "")
        for key in keys:
            tries = self._live(key, now)
            if tries is None:
                continue
            rule = self.rules[key[0]]
            extra = tries.failures - rule.free
            if extra < 0:
                continue
            left = tries.last + min(rule.base * 2.0 ** min(extra, 60), rule.ceiling) - now
            if left > worst[0]:
                worst = (left, key[0])
        return worst

    def failed(self, keys: Iterable[Key]) -> None:
        """A failure under each of ``keys`` (counted from the try's start, so parallel
        guesses cannot all slip in before the first one is judged)."""
        now = self.clock()
        for key in keys:
            tries = self._live(key, now) or _Tries()
            tries.failures += 1
            tries.last = now
            self._tries[key] = tries
            self._tries.move_to_end(key)
        while len(self._tries) > self.most:
            self._tries.popitem(last=False)

    def forgive(self, keys: Iterable[Key]) -> None:
        """The count under ``keys`` starts again (a right password or PIN)."""
        for key in keys:
            self._tries.pop(key, None)

    def undo(self, keys: Iterable[Key]) -> None:
        """The last try counted under ``keys`` was not a failure after all (it got in):
        one failure fewer, the rest kept."""
        for key in keys:
            tries = self._tries.get(key)
            if tries is not None:
                tries.failures = max(0, tries.failures - 1)

    def trust(self, key: Key) -> None:
        """``key`` got in: from now on it passes the wide brakes (see ``trusted``)."""
        self._trusted[key] = None
        self._trusted.move_to_end(key)
        while len(self._trusted) > self.most:
            self._trusted.popitem(last=False)

    def trusted(self, key: Key) -> bool:
        return key in self._trusted


def address_key(address: str) -> str:
    """The part of a client's address the brake counts: an IPv6 address by its /64 (one
    machine is usually given a whole /64, so counting each address would let it rotate
    through billions); an IPv4 address, or anything else, as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:100]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else str(ip)


__all__ = ["Rule", "Throttle", "address_key"]
