"""The simulated table top and its camera: cards lie where they were laid, and the real
vision path reads the rendered frames back as exactly those cards in those zones."""

from __future__ import annotations

import numpy as np
import pytest

from table_controller.cards import Card, cards
from table_controller.seats import Seat
from table_controller.sim.world import HAND_FRAMES, World, WorldCamera, WorldError
from table_controller.vision.layout import default_zones
from table_controller.vision.synthetic import Effects
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved
from table_controller.vision.watcher import CardWatcher

JH, AS, NINE_C, KD, TS, QH = cards("JH AS 9C KD TS QH")


def test_cards_lie_in_their_zones_well_inside_and_move_between_table_and_hands() -> None:
    world = World(seed=3)
    world.deal({Seat.N: [JH, AS], Seat.E: [NINE_C]})
    world.lay(JH, "play:N")
    world.lay(KD, "kitty", face_up=False)
    assert world.held[Seat.N] == [AS]  # laying a held card takes it from the hand
    assert world.where(JH) == "play:N" and world.where(KD) == "kitty"
    zones = {z.name: z for z in default_zones()}
    for p in world.table:
        assert p.zone is not None and zones[p.zone].contains(p.x, p.y)
        # the centre is well inside: not on a line the tracker would not trust
        assert zones[p.zone].contains(p.x + 15, p.y) and zones[p.zone].contains(p.x - 15, p.y)
    world.remove(KD, to=Seat.S)
    assert world.where(KD) is None and world.held[Seat.S] == [KD]
    world.lay(NINE_C, "play:E")
    world.gather([JH, NINE_C], "tricks:W")
    assert world.in_zone("tricks:W") == [JH, NINE_C] and world.in_zone("play:") == []
    world.clear()
    assert world.empty and world.table == ()


def test_impossible_actions_say_what_is_wrong() -> None:
    world = World()
    world.lay(JH, "play:S")
    with pytest.raises(WorldError, match="JH already lies in play:S: pick it up"):
        world.lay(JH, "play:N")
    with pytest.raises(WorldError, match="no zone 'play:X' on this table"):
        world.lay(AS, "play:X")
    with pytest.raises(WorldError, match="AS is not on the table"):
        world.remove(AS)
    with pytest.raises(WorldError, match="cannot gather AS: not on the table"):
        world.gather([JH, AS], "tricks:N")
    with pytest.raises(WorldError, match="JH is already on the table or in a hand"):
        world.deal({Seat.E: [JH]})
    with pytest.raises(ValueError, match="fps must be positive"):
        WorldCamera(world, fps=0)


def test_a_hand_lays_each_card_and_withdraws_within_a_few_frames() -> None:
    world = World()
    world.lay(JH, "play:W")
    covered = [world.scene().hands for _ in range(HAND_FRAMES + 2)]
    assert all(len(h) == 1 and h[0].over == 0 for h in covered[:HAND_FRAMES])
    assert [h[0].fraction for h in covered[:HAND_FRAMES]] == sorted(
        (h[0].fraction for h in covered[:HAND_FRAMES]), reverse=True
    )
    assert covered[HAND_FRAMES:] == [(), ()]
    # West's card is laid from West's side of the table.
    assert covered[0][0].from_deg == 270.0
    assert World(hands=False).scene().hands == ()


def test_the_camera_is_deterministic_and_carries_the_truth() -> None:
    def frames(seed: int) -> list[np.ndarray]:
        world = World(seed=1)
        world.lay(AS, "play:E")
        with WorldCamera(world, seed=seed, limit=2) as camera:
            out = []
            for frame in camera:
                assert frame.truth.card("AS").zone == "play:E"
                out.append(frame.image)
            return out

    a, b, c = frames(5), frames(5), frames(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[1], c[1])  # fresh noise from another seed


def test_the_real_vision_path_reads_exactly_the_cards_laid_in_their_zones() -> None:
    world = World(seed=2, effects=Effects.realistic())
    camera = WorldCamera(world, seed=2)
    watcher = CardWatcher(camera.calibration())
    events = []

    def run(frames: int) -> None:
        for _ in range(frames):
            frame = camera.read()
            assert frame is not None
            events.extend(
                s.event for s in watcher.process(frame.image, frame.index, frame.timestamp)
            )

    world.lay(Card.parse("9D"), "tricks:N", face_up=False)  # a back is never read
    world.lay(KD, "kitty")
    for card, seat in ((JH, Seat.N), (AS, Seat.E), (NINE_C, Seat.S), (TS, Seat.W)):
        world.lay(card, f"play:{seat}")
        run(HAND_FRAMES + 4)
    world.gather([JH, AS, NINE_C, TS], "tricks:E")
    run(6)
    world.remove(KD)
    run(40)  # its place seen empty: removed
    laid = [(e.card, e.zone) for e in events if isinstance(e, CardLaid)]
    assert laid == [
        (KD, "kitty"),
        (JH, "play:N"),
        (AS, "play:E"),
        (NINE_C, "play:S"),
        (TS, "play:W"),
    ]
    moved = {(e.card, e.source, e.zone) for e in events if isinstance(e, CardMoved)}
    # A card under another in the pile may not be read again; each read one moved.
    assert moved and moved <= {
        (c, f"play:{s}", "tricks:E") for c, s in ((JH, "N"), (AS, "E"), (NINE_C, "S"), (TS, "W"))
    }
    removed = [e.card for e in events if isinstance(e, CardRemoved)]
    assert KD in removed
    assert {e.card for e in events} <= {KD, JH, AS, NINE_C, TS}
