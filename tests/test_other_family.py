"""Cards printed in the other marker family (issue 31, "a marker that is none of this
deck's (another deck's family)"): a QR-coded card laid at a table whose deck has ArUco
markers, and an ArUco card at a table of QR cards, are another deck's cards. Through the
camera model (the Camera Module 3 at 1280x720, its lens, noise, Bayer and JPEG), read by
the watcher frame by frame as the table reads them: reported once lying still, once
only, with its picture, in words that say how it is printed; and a clean game, on felt,
wood and a cluttered table, in glare, reports none."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import cv2
import numpy as np
import pytest

from table_controller.cards import Card
from table_controller.present import in_words
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    ForeignCardSeen,
    HandDealt,
    IrregularityFound,
    OrderedUp,
    Printing,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.inputs import from_vision
from table_controller.vision.calibration import calibrate, image_to_table
from table_controller.vision.evidence import Seen
from table_controller.vision.foreign import ForeignCardLaid
from table_controller.vision.optics import Sensor, camera_for, preset
from table_controller.vision.other_family import OTHER_EVERY
from table_controller.vision.qr_look import card_shapes
from table_controller.vision.synthetic import (
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Scene,
    Step,
    TableRenderer,
    demo_script,
    place,
)
from table_controller.vision.tracker import CardLaid
from table_controller.vision.watcher import CardWatcher

PI3 = preset("pi3")
QH = Card.parse("QH")


def watch(
    renderer: TableRenderer, camera: Camera, sensor: Sensor | None, steps: Iterable[Step]
) -> tuple[CardWatcher, list[Seen], dict[int, str]]:
    """The watcher of a table calibrated from its own empty mat, fed ``steps`` at 30
    frames a second; (watcher, what it reported, which step each frame showed)."""
    empty = Scene(camera=camera, seed=1, sensor=sensor)
    watcher = CardWatcher(calibrate(renderer.render(empty).image, renderer.family))
    seen: list[Seen] = []
    shown: dict[int, str] = {}
    frame = 0
    for n, step in enumerate(steps):
        for _ in range(step.frames):
            scene = replace(step.scene, seed=1000 * n + frame, sensor=sensor)
            seen += watcher.process(renderer.render(scene).image, frame, frame / 30)
            shown[frame] = f"step {n}"
            frame += 1
    return watcher, seen, shown


def laid_then_left(card: CardPlacement, camera: Camera, still: int) -> list[Step]:
    """An empty table, then ``card`` carried in under a hand (a new spot each frame),
    laid with the hand still over it, then left lying for ``still`` frames."""
    steps = [Step(Scene(camera=camera), 3)]
    for k in range(4):
        moving = replace(card, x=card.x - 30.0 * (4 - k), y=card.y + 12.0 * (4 - k))
        steps.append(Step(Scene((moving,), (Hand(over=0, fraction=0.5),), camera), 1))
    steps.append(Step(Scene((card,), (Hand(over=0, fraction=0.3),), camera), 2))
    steps.append(Step(Scene((card,), (), camera), still))
    return steps


def in_play() -> Game:
    """A hand in play: West deals the 9♥, North orders it up, West discards."""
    game = Game()
    for ev in (DealerChosen(Seat.W), HandDealt(Card.parse("9H")), OrderedUp(Seat.N)):
        game.push(ev)
    game.push(DealerDiscarded())
    assert game.phase is Phase.PLAYING
    return game


def test_a_qr_card_at_an_aruco_table_is_reported_once_lying_still_with_its_picture() -> None:
    camera = camera_for(PI3)
    renderer = TableRenderer()
    qr = replace(place(QH, "play:W", np.random.default_rng(7)), family="qr-zxing")
    steps = laid_then_left(qr, camera, still=40)
    watcher, seen, _ = watch(renderer, camera, PI3, steps)
    first_still = 3 + 4 + 2  # the first frame with no hand over it
    (report,) = [s for s in seen if isinstance(s.event, ForeignCardLaid)]  # once only
    event = report.event
    assert isinstance(event, ForeignCardLaid)
    assert (event.family, event.zone) == (Printing.QR, "play:W")
    assert event.marker in (None, int(QH))  # its text, where the camera can read it
    # Never while carried; reported at the second look that finds it lying there: the
    # looks come one frame in OTHER_EVERY, and the hand covers it for two frames.
    assert 3 + 4 <= event.frame <= first_still + 2 * OTHER_EVERY
    assert abs(event.x - qr.x) < 5.0 and abs(event.y - qr.y) < 5.0
    assert watcher.reader.other is not None and watcher.reader.other.looks >= 10
    # The card is never read as one of this deck's.
    assert not [s for s in seen if isinstance(s.event, CardLaid)]
    # Its picture: a JPEG of the card, as a card of another deck's is pictured.
    assert report.evidence is not None and report.evidence[:2] == b"\xff\xd8"
    picture = cv2.imdecode(np.frombuffer(report.evidence, np.uint8), cv2.IMREAD_COLOR)
    assert max(picture.shape[:2]) >= 480
    # The table's input, the alert and its words on the page.
    game = in_play()
    seen_by_rules = from_vision(game, event)
    assert seen_by_rules == ForeignCardSeen(Seat.W, event.marker, Printing.QR)
    (alert,) = [o for o in game.push(seen_by_rules) if isinstance(o, IrregularityFound)]
    assert alert.kind.value == "foreign_card" and alert.seat is Seat.W
    words = in_words(alert.detail)
    assert words == (
        "a card printed with QR codes (another deck's) was laid in West's square; "
        "it is not taken into the game"
    )
    assert game.phase is Phase.PLAYING  # the card is not taken into the game
    assert not [e for e in game.log if isinstance(e, CardPlayed)]


def test_an_aruco_card_at_a_qr_table_is_reported_as_another_decks() -> None:
    """A table of QR cards (its camera at 2304x1296, which QR decks need) laid an ArUco
    card, the 9♣ of an ArUco deck: a number its own deck has, but printed the other way."""
    camera = Camera(width=2304, height=1296, hfov_deg=75.0, position=(0.0, 60.0, 1000.0))
    renderer = TableRenderer(marker_family="qr-zxing")
    nine, jack = Card.parse("9C"), Card.parse("JD")
    rng = np.random.default_rng(8)
    aruco = replace(place(nine, "play:S", rng), family="aruco")
    ours = place(jack, "play:E", rng)  # a QR card of the table's own deck
    steps = [Step(Scene(camera=camera), 2), Step(Scene((aruco, ours), (), camera), 12)]
    _, seen, _ = watch(renderer, camera, None, steps)
    (report,) = [s for s in seen if isinstance(s.event, ForeignCardLaid)]
    event = report.event
    assert isinstance(event, ForeignCardLaid)
    assert (event.family, event.marker, event.zone) == (Printing.ARUCO, int(nine), "play:S")
    assert report.evidence is not None
    laid = [s.event for s in seen if isinstance(s.event, CardLaid)]
    assert [(e.card, e.zone) for e in laid] == [(jack, "play:E")]
    game = in_play()
    seen_by_rules = from_vision(game, event)
    assert seen_by_rules == ForeignCardSeen(Seat.S, int(nine), Printing.ARUCO)
    (alert,) = [o for o in game.push(seen_by_rules) if isinstance(o, IrregularityFound)]
    assert in_words(alert.detail) == (
        "a card printed with ArUco markers (another deck's) was laid in South's square; "
        "it is not taken into the game"
    )


@pytest.mark.slow(budget=60)
@pytest.mark.parametrize(
    ("surface", "effects"),
    [
        ("felt", Effects()),
        ("wood", Effects(glare=0.8, glare_spots=3)),
        ("photo", Effects(glare=0.6, lighting=0.4)),
    ],
    ids=["felt", "wood-glare", "photo-glare"],
)
def test_a_clean_game_raises_no_foreign_alert(surface: str, effects: Effects) -> None:
    """A deal and a trick of this deck's cards (the kitty face down, hands laying each
    card, the trick gathered face down), three times over: every card laid is reported,
    no card of another deck is, though the other family is looked for all along. And
    were the reader blind to every card, the look would still take none of them, nor
    the mat, the felt or the glare, for a QR card: each card shape it finds is checked."""
    camera = camera_for(PI3)
    renderer = TableRenderer(surface=surface)
    steps = [s for seed in (3, 4, 5) for s in demo_script(seed, camera, effects)]
    watcher, seen, _ = watch(renderer, camera, PI3, steps)
    assert not [s for s in seen if isinstance(s.event, ForeignCardLaid)]
    assert len([s for s in seen if isinstance(s.event, CardLaid)]) >= 12
    frames = sum(s.frames for s in steps)
    reader, other = watcher.reader, watcher.reader.other
    assert other is not None and other.looks == -(-frames // OTHER_EVERY)
    checked = 0
    x0, y0 = reader.roi[:2]

    def to_mm(p: np.ndarray) -> np.ndarray:
        return image_to_table(reader.calibration, p + np.array([x0, y0]))

    for n, step in enumerate(steps):
        box = np.ascontiguousarray(
            reader.full_size(renderer.render(replace(step.scene, seed=n, sensor=PI3)).image)
        )
        checked += len(card_shapes(box, other.px_per_mm, to_mm))
        assert other.qr_cards(box, (x0, y0), read=[]) == []
    assert checked >= len(steps)  # the cards lying, looked at as if unread
