"""The simulated table's physical side: which cards lie where, what each player holds,
and the camera over it.

The demo and the tests run the table's real path (camera frames, vision, the rules) with
no real cards. ``World`` is the table top: cards laid in zones (face up or down), trick
piles, the players' hands. ``World.scene()`` is what a camera would see at this moment
(a ``synthetic.Scene``: the cards in the order they were laid, a hand over a card that is
being laid), and ``WorldCamera`` renders one such scene per frame as a ``FrameSource``,
so the table reads it exactly as it reads a real camera. ``SimulatedPlayers``
(players.py) are the only ones who change the world.

The world is shared between threads (the players act in the event loop, the camera is
read in a worker thread), so every change and every snapshot holds its lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from table_controller.cards import Card
from table_controller.errors import TableControllerError
from table_controller.seats import SEATS, Seat
from table_controller.vision.camera import Frame, FrameSource
from table_controller.vision.layout import Calibration, Zone, default_zones
from table_controller.vision.synthetic import (
    SEAT_BEARING,
    SKIN,
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Scene,
    TableRenderer,
    pile,
    place,
)

HAND_FRAMES = 3  # frames a player's hand stays over a card it has just laid


class WorldError(TableControllerError, ValueError):
    """A physical action that cannot happen (a card in two places, a zone that does not
    exist): a bug in whoever drives the world, said in the table's words."""


class World:
    """The physical table: the cards on it (with their placements) and in the hands.

    ``camera`` and ``effects`` are how the table is seen (``Effects.realistic()`` by
    default; ``Effects()`` for clean frames); ``hands`` puts a player's hand over each
    card for the first few frames after it is laid, withdrawing, as at a real table.
    Everything random comes from ``seed``.
    """

    def __init__(
        self,
        *,
        camera: Camera | None = None,
        effects: Effects | None = None,
        seed: int = 0,
        hands: bool = True,
        zones: Sequence[Zone] | None = None,
    ) -> None:
        self.camera = camera or Camera()
        self.effects = effects if effects is not None else Effects.realistic()
        self.seed = seed
        self.hands = hands
        self.zones = tuple(zones or default_zones())
        self._names = {z.name for z in self.zones}
        self.held: dict[Seat, list[Card]] = {seat: [] for seat in SEATS}
        self._table: list[CardPlacement] = []
        self.covered = False  # something over the camera: its frames are dark
        self._rng = np.random.default_rng([seed, 5150])
        self._lock = threading.RLock()
        self._frame = 0
        # the card being laid now: (card, the frame it was laid at, whose hand)
        self._laying: tuple[Card, int, Seat | None] | None = None

    # --- looking at it --------------------------------------------------------------

    @property
    def table(self) -> tuple[CardPlacement, ...]:
        """The cards on the table, in the order they were laid (the last on top)."""
        with self._lock:
            return tuple(self._table)

    def where(self, card: Card) -> str | None:
        """The zone the card lies in, or None when it is not on the table."""
        with self._lock:
            found = self._find(card)
            return None if found is None else self._table[found].zone

    def in_zone(self, prefix: str) -> list[Card]:
        """The cards lying in the zones whose names start with ``prefix`` ("play:",
        "kitty", "tricks:N"), in the order they were laid."""
        with self._lock:
            return [p.card for p in self._table if (p.zone or "").startswith(prefix)]

    def holder(self, card: Card) -> Seat | None:
        with self._lock:
            return next((s for s in SEATS if card in self.held[s]), None)

    @property
    def empty(self) -> bool:
        """Nothing on the table and nothing in anyone's hand."""
        with self._lock:
            return not self._table and not any(self.held.values())

    # --- changing it -----------------------------------------------------------------

    def deal(self, hands: Mapping[Seat, Sequence[Card]]) -> None:
        """Give each seat its cards (added to what it holds)."""
        with self._lock:
            for seat, cards in hands.items():
                for card in cards:
                    self._check_free(card)
                    self.held[seat].append(card)

    def lay(self, card: Card, zone: str, *, face_up: bool = True) -> None:
        """Lay ``card`` at a random spot well inside ``zone`` (away from its lines). A
        card held by a player leaves that player's hand."""
        with self._lock:
            self._check_zone(zone)
            seat = self._from_hand(card)
            self._table.append(place(card, zone, self._rng, face_up=face_up, zones=self.zones))
            if face_up:
                self._laying = (card, self._frame, seat)

    def _from_hand(self, card: Card) -> Seat | None:
        """``card``, about to be laid, leaves the hand holding it (its seat, or None);
        refused when it already lies on the table."""
        if self._find(card) is not None:
            raise WorldError(
                f"{card} already lies in {self.where(card)}: pick it up before laying it"
            )
        seat = self.holder(card)
        if seat is not None:
            self.held[seat].remove(card)
        return seat

    def lay_at(self, card: Card, x: float, y: float, angle: float = 0.0) -> None:
        """Lay ``card`` face up with its centre at (``x``, ``y``) table mm, turned
        ``angle`` degrees: anywhere, across a zone's line too (a card laid carelessly).
        A card held by a player leaves that player's hand."""
        with self._lock:
            self._from_hand(card)
            self._table.append(CardPlacement(card, float(x), float(y), float(angle) % 360.0))

    def slide(self, card: Card, x: float, y: float) -> None:
        """Push a card lying on the table to a new centre (table mm), as it lay
        otherwise; it stays where it is in the order of the cards."""
        with self._lock:
            found = self._find(card)
            if found is None:
                raise WorldError(f"{card} is not on the table: there is nothing to push")
            p = self._table[found]
            self._table[found] = CardPlacement(p.card, float(x), float(y), p.angle, p.face_up)

    def remove(self, card: Card, *, to: Seat | None = None) -> None:
        """Pick ``card`` up from the table; into ``to``'s hand if given."""
        with self._lock:
            found = self._find(card)
            if found is None:
                raise WorldError(f"{card} is not on the table: there is nothing to pick up")
            del self._table[found]
            if self._laying is not None and self._laying[0] == card:
                self._laying = None
            if to is not None:
                self.held[to].append(card)

    def gather(self, cards: Sequence[Card], zone: str) -> None:
        """Pick ``cards`` up and stack them face up in ``zone`` (a trick won)."""
        with self._lock:
            self._check_zone(zone)
            missing = [c for c in cards if self._find(c) is None]
            if missing:
                raise WorldError(
                    "cannot gather " + " ".join(str(c) for c in missing) + ": not on the table"
                )
            for card in cards:
                del self._table[self._find(card)]  # type: ignore[arg-type]
            self._table.extend(pile(cards, zone, self._rng, zones=self.zones))
            self._laying = None

    def clear(self) -> None:
        """Everything is picked up: the table and the players' hands."""
        with self._lock:
            self._table.clear()
            for cards in self.held.values():
                cards.clear()
            self._laying = None

    # --- what a camera sees -------------------------------------------------------------

    def scene(self) -> Scene:
        """The table now, as a scene to render; each call is one frame (a hand laying a
        card withdraws over a few frames)."""
        with self._lock:
            self._frame += 1
            cards = tuple(self._table)
            hands: tuple[Hand, ...] = ()
            if self.hands and self._laying is not None:
                card, since, seat = self._laying
                age = self._frame - since
                index = self._find(card)
                if age > HAND_FRAMES or index is None:
                    self._laying = None
                else:
                    zone_seat = self._zone_seat(cards[index].zone)
                    who = seat if seat is not None else zone_seat
                    hands = (
                        Hand(
                            over=index,
                            fraction=0.4 * (1.0 - age / (HAND_FRAMES + 1)),
                            from_deg=None if who is None else SEAT_BEARING[who],
                            skin=(0 if who is None else int(who)) % len(SKIN),
                        ),
                    )
            return Scene(cards, hands, self.camera, self.effects, seed=self.seed)

    # --- helpers ---------------------------------------------------------------------

    def _find(self, card: Card) -> int | None:
        for i, p in enumerate(self._table):
            if p.card == card:
                return i
        return None

    def _check_zone(self, zone: str) -> None:
        if zone not in self._names:
            raise WorldError(f"no zone {zone!r} on this table: zones are {sorted(self._names)}")

    def _check_free(self, card: Card) -> None:
        if self._find(card) is not None or self.holder(card) is not None:
            raise WorldError(f"{card} is already on the table or in a hand")

    def _zone_seat(self, name: str | None) -> Seat | None:
        zone = next((z for z in self.zones if z.name == name), None)
        return None if zone is None else zone.seat


class WorldCamera(FrameSource):
    """A camera over the simulated table: every frame renders ``world.scene()`` (with
    fresh sensor noise, the same on every run with the same ``seed``) and carries the
    truth (``Frame.truth``, a ``synthetic.Rendered``). ``realtime`` paces the frames to
    ``fps``; otherwise they come as fast as they are read."""

    def __init__(
        self,
        world: World,
        *,
        fps: float = 30.0,
        seed: int = 0,
        realtime: bool = False,
        limit: int | None = None,
        marker_family: str = "aruco",
    ) -> None:
        super().__init__(limit=limit, realtime=realtime)
        if fps <= 0:
            raise ValueError(f"fps must be positive, not {fps}")
        self.name = "synthetic:world"
        self.world = world
        self.fps = fps
        self.seed = seed
        self.renderer = TableRenderer(marker_family, zones=world.zones)

    def _next(self) -> Frame | None:
        rendered = self.renderer.render(self.world.scene(), seed=self.seed * 100003 + self.index)
        image = rendered.image
        if self.world.covered:  # a hand or a bag over the lens: a dark, blank picture
            image = np.full_like(image, 14)
        return Frame(self.index, self.index / self.fps, image, truth=rendered)

    def calibration(self) -> Calibration:
        """The table calibrated as `table-controller calibrate` would: from a frame of
        the empty mat, its four corner markers found in the picture."""
        from table_controller.vision.calibration import calibrate

        w = self.world
        empty = Scene((), (), w.camera, w.effects, seed=w.seed)
        return calibrate(self.renderer.render(empty).image, self.renderer.family_name, w.zones)


def cards_text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


__all__ = ["HAND_FRAMES", "World", "WorldCamera", "WorldError", "cards_text"]
