"""The operator's PIN, stored hashed (PBKDF2-SHA256 with a salt of its own); the brake
on guessing it is the table's door's (table/page/door.py, per address).

The page's operator logs in with it and the kiosk's operator unlocks the kiosk with it;
the table's config checks its hash and ``kiosk pin`` makes one: here, below them all."""

from __future__ import annotations

import hashlib
import hmac
import os
import re

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


__all__ = ["HASH_FIX", "hash_pin", "pin_hash_problem", "verify_pin"]
