"""What the table's sources notice, each kind its own frozen dataclass: the running table
(app.py), its core (core.py) and its policy (policy.py, the kiosk) tell them apart with
``match``, never by comparing a source's name.

``Input`` is the union of what goes on the table's one queue: the camera saw a card (or
a clearer picture of one), a button was pressed (a seat's, or the trump cube's held for
the director), the page was touched, the director ruled, a bot or a simulated player
moved. Each says its ``source``, the word the log and the recording keep for it, as
before these types: "camera", "button", "cube", "page", "operator", "director", "bot",
"sim". ``CubeTurned`` is noticed, for a recording, but never queued.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from table_controller.cards import Suit
from table_controller.devices.seat_events import ButtonPressed, SeatButton
from table_controller.rules.events import InputEvent
from table_controller.vision.evidence import Clearer, Seen

if TYPE_CHECKING:
    from table_controller.feed.signing import Ruling

Refusal = tuple[str, str]  # (what went wrong, what to do)

# Who put an event in the log: the sources of the inputs, and the kiosk's own deal.
Source = Literal["camera", "button", "cube", "page", "operator", "director", "bot", "sim", "kiosk"]

# A touch's payload as the page posts it (JSON: one of the snapshot's actions, a renege
# claimed, the kiosk's touch or PIN). inputs.py ``from_page`` reads it, strictly.
PagePayload = Mapping[str, object]


@dataclass(frozen=True)
class CameraSaw:
    """A tracker event (a card laid, moved, removed, seen twice; a card not of the
    deck), with its evidence picture."""

    seen: Seen
    source: ClassVar[Source] = "camera"

    @property
    def evidence(self) -> bytes | None:
        return self.seen.evidence


@dataclass(frozen=True)
class CameraClearer:
    """A clearer picture of a card the log has already (written over the first)."""

    clearer: Clearer
    source: ClassVar[Source] = "camera"
    evidence: ClassVar[bytes | None] = None  # the picture goes over the logged one


@dataclass(frozen=True)
class Pressed:
    """A button pressed: a seat's, or (``cube``) the trump cube's held 1.5 s, a call for
    the director."""

    press: ButtonPressed
    cube: bool = False
    evidence: ClassVar[bytes | None] = None

    @property
    def source(self) -> Source:
        return "cube" if self.cube else "button"

    @classmethod
    def cube_held(cls) -> Pressed:
        return cls(ButtonPressed(None, SeatButton.DIRECTOR), cube=True)


@dataclass(frozen=True)
class PageTouched:
    """A touch on the page (``operator``: after the operator's PIN), from ``address``."""

    payload: PagePayload
    operator: bool = False
    address: str = ""
    evidence: ClassVar[bytes | None] = None

    @property
    def source(self) -> Source:
        return "operator" if self.operator else "page"


@dataclass(frozen=True)
class Ruled:
    """The director's event: a signed ``ruling`` from the feed, or (None) one handed to
    the table directly (a director at the table, a test)."""

    event: InputEvent
    ruling: Ruling | None = None
    source: ClassVar[Source] = "director"
    evidence: ClassVar[bytes | None] = None


@dataclass(frozen=True)
class BotMoved:
    """A kiosk bot's choice."""

    event: InputEvent
    source: ClassVar[Source] = "bot"
    evidence: ClassVar[bytes | None] = None


@dataclass(frozen=True)
class SimTold:
    """What a simulated player tells the table with no sensor for it (the first dealer
    agreed, a call as the page would send it)."""

    event: InputEvent
    source: ClassVar[Source] = "sim"
    evidence: ClassVar[bytes | None] = None


Input = CameraSaw | CameraClearer | Pressed | PageTouched | Ruled | BotMoved | SimTold


@dataclass(frozen=True)
class CubeTurned:
    """The trump cube turned a suit up (None: no suit): kept by the table for a call,
    noticed for a recording, not queued."""

    suit: Suit | None
    source: ClassVar[str] = "cube-face"


Noticed = Input | CubeTurned


__all__ = [
    "BotMoved",
    "CameraClearer",
    "CameraSaw",
    "CubeTurned",
    "Input",
    "Noticed",
    "PagePayload",
    "PageTouched",
    "Pressed",
    "Refusal",
    "Ruled",
    "SimTold",
    "Source",
]
