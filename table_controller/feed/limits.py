"""The director's limits on each table, in one place: what a table may send (a rate of
messages and of bytes, the largest status, event picture and camera view) and what the
director keeps of it (its status history and its pictures, by count and by bytes), and
the broker's largest message, which follows from them (docs/director.md, "Limits").

Why one dataclass, in a director's units (messages, KB, MB) and a director's names:
the limits are set by a tournament director, not a programmer, in the settings file's
``[limits]`` (``director --config``) or with ``--limit NAME=VALUE`` (``director
start``, kept in its folder). A value that makes no sense (a rate of 0, a history that
cannot hold one status, a byte allowance smaller than the largest message a table may
send) is refused when the director starts, in words that say what is wrong and what
range is fine: refused later, it would drop a table's messages in the middle of an
event with nothing to show why. The rate guard (guard.py) and the store's parts
take what they need from here, given to them; none reads a module constant.

A KB is 1,024 bytes and a MB 1,024 KB, as the fleet view's figures (store/usage.py).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from table_controller.errors import TableControllerError
from table_controller.feed.guard import FeedLimits

KB = 1024
MB = 1024 * KB
# A camera view goes in base64 inside a JSON answer: the text around it (its kind, id,
# time and a problem in words) is far less than this.
CAMERA_WRAPPING = 8 * KB
MQTT_LARGEST = 268_435_455  # the largest packet MQTT can carry at all (its length field)
DEFAULT = "default"  # ``--limit NAME=default``: the limit back to its default


class LimitsError(TableControllerError, ValueError):
    """A limit that cannot be used: which (``name``), as given (``value``), and what is
    wrong with what to give instead (``problem``). Each caller says where it came from
    (the settings file's line, the ``--limit`` flag) before ``name``."""

    def __init__(self, name: str, value: Any, problem: str, *, given: str | None = None) -> None:
        self.name, self.value, self.problem = name, value, problem
        self.given = given  # as the director wrote it: ``--limit``'s NAME=VALUE
        super().__init__(f"limits.{name} {shown(value)}: {problem}")


@dataclass(frozen=True)
class Bound:
    """What a limit counts, in words ("messages a second"), the range that makes sense,
    and whether it is a whole number (a count, KB) or may have a fraction (MB)."""

    what: str
    low: float
    high: float
    whole: bool = True


def _limit(default: float, bound: Bound) -> Any:
    return field(default=default, metadata={"bound": bound})


@dataclass(frozen=True)
class Limits:
    """Every limit the director puts on each table; the defaults are far above what a
    real table sends (a few messages a second, an event's picture about 30 KB, a
    heartbeat every 2 s of about 1 KB)."""

    # sustained, and at once: a table's backlog sent again after it reconnects
    messages_per_second: float = _limit(100, Bound("messages a second", 1, 10_000, whole=False))
    messages_at_once: int = _limit(3000, Bound("messages at once", 1, 1_000_000))
    # the same in bytes: at once, at least the largest message (checked below)
    mb_per_second: float = _limit(2, Bound("MB a second", 0.1, 1000, whole=False))
    mb_at_once: float = _limit(40, Bound("MB at once", 1, 100_000, whole=False))
    # a bigger one is refused: a status is about 1 KB, an event's picture about 30 KB
    status_kb: int = _limit(64, Bound("KB a status", 4, 4096))
    picture_kb: int = _limit(1024, Bound("KB an event's picture", 64, 16 * 1024))
    # the fleet view's whole camera frame as JPEG: a bigger one is not kept
    camera_kb: int = _limit(2048, Bound("KB a camera view", 256, 16 * 1024))
    # the status history, its oldest dropped beyond either (2,000: an hour of heartbeats)
    history_statuses: int = _limit(2000, Bound("statuses kept per table", 200, 10_000_000))
    history_mb: float = _limit(4, Bound("MB of statuses kept per table", 1, 100_000, whole=False))
    # the event's pictures (some 80 games by default): beyond either a new one is refused,
    # the older kept, since they are evidence
    pictures_kept: int = _limit(20_000, Bound("pictures kept per table", 100, 100_000_000))
    pictures_mb: float = _limit(
        800, Bound("MB of pictures kept per table", 10, 10_000_000, whole=False)
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(f.name, getattr(self, f.name), f.metadata["bound"])
        largest = self.largest_message
        if self.mb_at_once * MB < largest:
            raise LimitsError(
                "mb_at_once",
                self.mb_at_once,
                f"a table could never send its largest message ({size_words(largest)}: "
                f"{self._largest_words()}); give at least {math.ceil(largest / MB)}",
            )
        if self.history_bytes < self.status_bytes:
            raise LimitsError(
                "history_mb",
                self.history_mb,
                f"the history could not hold one status of status_kb = {self.status_kb}; give "
                f"at least {math.ceil(self.status_bytes / MB)}, or a smaller status_kb",
            )
        if self.pictures_bytes < self.picture_bytes:
            raise LimitsError(
                "pictures_mb",
                self.pictures_mb,
                f"it could not hold one picture of picture_kb = {self.picture_kb}; give at "
                f"least {math.ceil(self.picture_bytes / MB)}, or a smaller picture_kb",
            )

    # --- in bytes, for the parts that enforce them -------------------------------------

    @property
    def status_bytes(self) -> int:
        return int(self.status_kb) * KB

    @property
    def picture_bytes(self) -> int:
        return int(self.picture_kb) * KB

    @property
    def camera_bytes(self) -> int:
        return int(self.camera_kb) * KB

    @property
    def history_bytes(self) -> int:
        return int(self.history_mb * MB)

    @property
    def pictures_bytes(self) -> int:
        return int(self.pictures_mb * MB)

    @property
    def feed(self) -> FeedLimits:
        """What the rate guard and the service check of each message, in bytes."""
        return FeedLimits(
            rate=float(self.messages_per_second),
            burst=float(self.messages_at_once),
            byte_rate=float(self.mb_per_second * MB),
            byte_burst=float(self.mb_at_once * MB),
            status_bytes=self.status_bytes,
            picture_bytes=self.picture_bytes,
        )

    @property
    def camera_message(self) -> int:
        """The largest camera view as a table sends it: base64 in a JSON answer."""
        return 4 * math.ceil(self.camera_bytes / 3) + CAMERA_WRAPPING

    @property
    def largest_message(self) -> int:
        """The largest message a table may send: a status, a picture or a camera view."""
        return max(self.status_bytes, self.picture_bytes, self.camera_message)

    def _largest_words(self) -> str:
        if self.largest_message == self.camera_message:
            return f"a camera view of camera_kb = {self.camera_kb}, in base64"
        if self.largest_message == self.picture_bytes:
            return f"a picture of picture_kb = {self.picture_kb}"
        return f"a status of status_kb = {self.status_kb}"

    @property
    def max_packet(self) -> int:
        """The broker's ``max_packet_size``: the largest message a table may send, in
        whole MB, and a MB more for its topic and headers. The broker must carry what
        the director takes (a bigger limit here than there would cut off a table that
        keeps to it: the broker disconnects a client sending more), and refuses what
        no table should send before it reaches the director. 4 MB by default."""
        return min(MQTT_LARGEST, (math.ceil(self.largest_message / MB) + 1) * MB)

    # --- as a director writes them ------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """Every limit by its name, as the settings file and ``--limit`` write it."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def changed(self) -> dict[str, Any]:
        """The limits that differ from their defaults, by name."""
        default = Limits()
        return {k: v for k, v in self.settings().items() if getattr(default, k) != v}

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> Limits:
        """The limits as given by name (the rest their defaults); LimitsError in words
        for a name that is no limit, a value that is not a number, or out of range."""
        names = [f.name for f in fields(cls)]
        for name, value in given.items():
            if name not in names:
                near = difflib.get_close_matches(name, names, n=1)
                hint = f"did you mean {near[0]!r}? " if near else ""
                raise LimitsError(
                    name, value, f"there is no such limit; {hint}the limits are {', '.join(names)}"
                )
        return cls(**dict(given))


def _check(name: str, value: Any, bound: Bound) -> None:
    unit = bound.what
    span = f"from {number_words(bound.low)} to {number_words(bound.high)}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LimitsError(name, value, f"give a number of {unit} {span}")
    if not math.isfinite(value):
        raise LimitsError(name, value, f"give a number of {unit} {span}")
    if bound.whole and value != int(value):
        raise LimitsError(name, value, f"give a whole number of {unit} {span}")
    if not bound.low <= value <= bound.high:
        raise LimitsError(name, value, f"give {unit} {span}")


def bounds() -> dict[str, Bound]:
    """Each limit's name and its bound, in the order the settings file shows them."""
    return {f.name: f.metadata["bound"] for f in fields(Limits)}


def parse_limit_args(given: Sequence[str]) -> dict[str, Any]:
    """``--limit picture_kb=2048`` (repeated), as the limits' names and numbers;
    ``NAME=default`` as None (that limit back to its default). Each is checked alone
    (its name, its range); LimitsError in words, its ``given`` the flag's text."""
    out: dict[str, Any] = {}
    every = bounds()
    for text in given:
        name, sep, value = text.partition("=")
        name, value = name.strip().replace("-", "_"), value.strip()
        try:
            if not sep or not name or not value:
                raise LimitsError(
                    name,
                    value,
                    'give NAME=VALUE, e.g. --limit picture_kb=2048 (docs/director.md, "Limits")',
                )
            if name not in every:
                Limits.of({name: value})  # says there is no such limit, and the near one
            number = None if value.lower() == DEFAULT else _number(value)
            if number is not None:
                _check(name, number, every[name])
        except LimitsError as exc:
            raise LimitsError(exc.name, exc.value, exc.problem, given=text) from None
        out[name] = number
    return out


def _number(text: str) -> Any:
    """A number as written ("100", "0.5", "2_000"), else the text itself (refused as
    not a number by the limit's check, in its words)."""
    plain = text.replace("_", "").replace(",", "")
    if re.fullmatch(r"-?\d+", plain):
        return int(plain)
    if re.fullmatch(r"-?(\d+\.\d*|\.\d+)", plain):
        return float(plain)
    return text


def number_words(x: float) -> str:
    """A number as a person reads it: "10,000", "0.1", "2.5"."""
    return f"{int(x):,}" if float(x) == int(x) else f"{x:g}"


def shown(value: Any) -> str:
    """A value as given, in a message: a number as written, anything else quoted."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_words(value) if math.isfinite(value) else str(value)
    return repr(value)


def size_words(size: int) -> str:
    """Bytes as a limit is read: "64 KB", "1 MB", "2.5 MB"."""
    if size < MB:
        return f"{number_words(round(size / KB, 1))} KB"
    return f"{number_words(round(size / MB, 1))} MB"


def limits_words(limits: Limits) -> str:
    """The limits in force in a director's words (the fleet view, ``director start``)."""
    n = number_words
    return (
        f"Each table may send up to {n(limits.messages_per_second)} messages a second "
        f"({n(limits.messages_at_once)} at once) and {n(limits.mb_per_second)} MB a second "
        f"({n(limits.mb_at_once)} MB at once); a status up to "
        f"{size_words(limits.status_bytes)}, an event's picture up to "
        f"{size_words(limits.picture_bytes)}, a camera view up to "
        f"{size_words(limits.camera_bytes)}. The director keeps each table's last "
        f"{n(limits.history_statuses)} statuses ({size_words(limits.history_bytes)} at most) "
        f"and up to {n(limits.pictures_kept)} of its pictures "
        f"({size_words(limits.pictures_bytes)}). The broker takes no message over "
        f"{size_words(limits.max_packet)}."
    )


__all__ = [
    "DEFAULT",
    "KB",
    "MB",
    "Bound",
    "Limits",
    "LimitsError",
    "bounds",
    "limits_words",
    "number_words",
    "parse_limit_args",
    "size_words",
]
