"""A card lying across a zone's line on the synthetic table's camera: the watcher keeps
it across a line (not laid, no event for the rules) until it is pushed into a zone, when
the tracker lays it there and the mark goes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import cv2

from table_controller.cards import Card
from table_controller.cli import main
from table_controller.rules.events import CardPlayed
from table_controller.seats import Seat
from table_controller.vision.calibration import calibrate
from table_controller.vision.synthetic import Camera, CardPlacement, Effects, Scene, render
from table_controller.vision.tracker import CardLaid, to_input_event
from table_controller.vision.watcher import CardWatcher

CAMERA = Camera()
C9S = Card.parse("9S")
# The kitty ends at y = 60 mm and South's play zone begins at 65: a card centred at 62,
# its long side across both lines, lies about half in each.
ACROSS = CardPlacement(C9S, 0.0, 62.0, 0.0)
PUSHED = CardPlacement(C9S, 0.0, 150.0, 0.0)


def scene(*cards: CardPlacement) -> Scene:
    return Scene(cards=cards, camera=CAMERA, effects=Effects.realistic(), seed=2)


def test_a_card_across_a_line_is_marked_until_pushed_into_its_zone() -> None:
    calibration = calibrate(render(scene()).image)
    watcher = CardWatcher(calibration)
    frames = [scene(), scene(ACROSS), scene(ACROSS), scene(ACROSS)]
    frames += [scene(PUSHED), scene(PUSHED), scene(PUSHED)]
    events, marked, changed = [], [], []
    for i, s in enumerate(frames):
        events += [x.event for x in watcher.process(render(s).image, i, i / 30)]
        marked.append([(a.card, set(a.zones)) for a in watcher.across])
        changed.append(watcher.across_changed)
    across = [(C9S, {"play:S", "kitty"})]
    # Read across the line in its second frame there: marked, never laid meanwhile.
    assert marked[:4] == [[], [], across, across]
    assert changed[:4] == [False, False, True, False]
    # Pushed in: laid in South's zone (South's card played) and no longer marked.
    assert marked[5:] == [[], []] and changed[5]
    (laid,) = events
    assert isinstance(laid, CardLaid) and laid.zone == "play:S" and laid.frame == 5
    assert to_input_event(laid) == CardPlayed(Seat.S, C9S)
    assert watcher.across == ()


def test_a_card_across_a_line_picked_up_is_no_longer_marked() -> None:
    calibration = calibrate(render(scene()).image)
    watcher = CardWatcher(calibration)
    empty, lying = render(scene()).image, render(scene(ACROSS)).image
    shown = [empty] * 20 + [lying] * 2 + [empty] * 3  # the mat learned, then the card
    marked = []
    for i, frame in enumerate(shown):
        watcher.process(frame, i, i / 30)
        marked.append(bool(watcher.across))
    assert marked[21]  # marked while it lay there
    # Picked up: its place seen empty three frames running, long before it is forgotten.
    assert marked[22:] == [True, True, False]


def test_vision_live_says_when_a_card_lies_across_a_line_and_when_it_is_pushed_in(
    tmp_path: Path,
) -> None:
    """`vision live` prints the cards across a line each time they change, and the card
    played once it is pushed into the zone."""
    empty = render(scene()).image
    calibrate(empty).save(tmp_path / "cal.json")
    shown = [scene()] + [scene(ACROSS)] * 3 + [scene(PUSHED)] * 3
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, s in enumerate(shown):
        cv2.imwrite(str(folder / f"{i:03d}.png"), render(s).image)
    out = io.StringIO()
    argv = ["vision", "live", "--camera", f"folder:{folder},loop=false"]
    assert main([*argv, "--calibration", str(tmp_path / "cal.json")], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    said = [(line["frame"], line.get("across"), line.get("input")) for line in lines]
    across = [(frame, a) for frame, a, _ in said if a is not None]
    assert [frame for frame, _ in across] == [2, 5]
    (card,) = across[0][1]
    assert card["card"] == "9S" and set(card["shares"]) == {"play:S", "kitty"}
    assert across[1][1] == []
    assert [(frame, i) for frame, _, i in said if i is not None] == [
        (5, {"event": "card_played", "seat": "S", "card": "9S"})
    ]
