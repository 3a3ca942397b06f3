"""The operator's PIN, stored hashed (PBKDF2-SHA256 with a salt of its own), and the
rate limit on guesses (pure: the clock is passed in).

The page's operator logs in with it and the kiosk's operator unlocks the kiosk with it;
the table's config checks its hash and ``kiosk pin`` makes one: here, below them all."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass, field

ITERATIONS = 120_000
_FORMAT = re.compile(r"^pbkdf2-sha256\$(\d{4,7})\$([0-9a-f]{16,64})\$([0-9a-f]{64})$")
PIN_PATTERN = re.compile(r"^[0-9]{4,12}$")
HASH_FIX = (
    "make one with `table-controller kiosk pin` and paste what it prints as "
    '[kiosk] pin_hash = "pbkdf2-sha256$..."'
)


def hash_pin(pin: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """The text to store for ``pin`` (4 to 12 digits)."""
    if not PIN_PATTERN.match(pin):
        raise ValueError("a PIN is 4 to 12 digits (0-9), for the kiosk's keypad")
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2-sha256${iterations}${salt.hex()}${digest.hex()}"


def pin_hash_problem(stored: str) -> str | None:
    """Why ``stored`` is not a hash ``hash_pin`` makes, or None."""
    if _FORMAT.match(stored) is None:
        return "the PIN's hash is not one `table-controller kiosk pin` makes"
    return None


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN hashed in ``stored`` (compared in constant time)."""
    match = _FORMAT.match(stored)
    if match is None or not isinstance(pin, str) or len(pin) > 64:
        return False
    iterations, salt, want = int(match[1]), bytes.fromhex(match[2]), match[3]
    got = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations).hex()
    return hmac.compare_digest(got, want)


@dataclass
class Guesses:
    """Wrong PINs are rate-limited: after ``free`` wrong guesses each further one locks
    the keypad for ``lock`` seconds, doubled each time (up to ``longest``); a right PIN
    resets it."""

    free: int = 3
    lock: float = 30.0
    longest: float = 600.0
    wrong: int = 0
    locked_until: float = 0.0
    _locks: int = field(default=0, repr=False)

    def wait(self, now: float) -> float:
        """Seconds before another guess is heard (0: now)."""
        return max(0.0, self.locked_until - now)

    def failed(self, now: float) -> None:
        self.wrong += 1
        if self.wrong >= self.free:
            self.locked_until = now + min(self.longest, self.lock * 2**self._locks)
            self._locks += 1

    def succeeded(self) -> None:
        self.wrong = 0
        self._locks = 0
        self.locked_until = 0.0


__all__ = ["HASH_FIX", "Guesses", "hash_pin", "pin_hash_problem", "verify_pin"]
