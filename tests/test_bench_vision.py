"""Smoke test of the vision benchmark: ``bench/vision.py --quick`` runs and prints every
section. No timing is asserted (the machine is shared; the figures are for the docs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow(budget=60)  # the benchmark itself, in its quick form
def test_the_vision_benchmark_runs_quickly_and_prints_its_sections() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "vision.py"), "--quick", "--seed", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("command: .venv/bin/python bench/vision.py --quick --seed 3")
    for line in (
        "CPU: ",
        "OpenCV ",
        "== 1. Cost per frame, 1280x720, one core ==",
        "whole path",
        "ArUco's default detector",
        "== 2. Cards read in a single frame",
        "qr-zxing",
        "qr-zbar",
        "aruco at 2304x1296",
        "qr-zxing at 2304x1296",
        "== 3. Wrong cards (ArUco)",
        "wrong cards: ",
        "== 4. Latency",
        "never reported: ",
        "== 5. Cards laid and left still: 1 s at 30 fps through CardWatcher ==",
        "reported within 1 s of the hand leaving: ",
        "declared removed while lying there: ",
        "wrong cards: ",
        "== 6. Read rate by condition: one frame, each condition varied alone ==",
        "| Condition | Value | Cards | Read in one frame |",
        "| lens k1 | -0.15, with calibrate lens |",
        "| occlusion | 50% of the card |",
        "== 7. The other marker family: QR cards at an ArUco table ==",
        "QR cards found in one look: ",
        "false alarms (a QR card listed where none lies): ",
    ):
        assert line in out, f"{line!r} missing from:\n{out}"


def test_the_still_cards_script_keeps_each_card_under_its_hand_then_leaves_it_a_second() -> None:
    sys.path[:0] = [str(ROOT / "bench")]
    try:
        import numpy as np
        from vision_sequences import STILL, build_script

        from table_controller.vision.synthetic import realistic_cameras
    finally:
        del sys.path[0]
    camera = realistic_cameras()[0]
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = 4 + seed % 5
        script = build_script(rng, camera, n)
        lays = script.lays
        assert len(lays) == len(script.cards) == n
        assert len({lay.card for lay in lays}) == n
        assert [lay.laid for lay in lays] == sorted(lay.laid for lay in lays)
        assert all(lay.laid < lay.left for lay in lays)
        assert script.frames == max(lay.left for lay in lays) + STILL + 1
        for frame, hands in script.hands.items():
            laid = sum(lay.laid <= frame for lay in lays)
            for hand in hands:
                assert hand.over is None or 0 <= int(hand.over) < laid
        for k, lay in enumerate(lays):  # under its player's hand until ``left``
            for frame in range(lay.laid, lay.left):
                assert any(h.over == k for h in script.hands[frame])


@pytest.mark.slow(budget=60)  # the benchmark itself, on three venues
def test_the_placement_benchmark_runs_and_prints_every_case() -> None:
    import os

    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "placement.py"), "--setups", "3", "--size", "720"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("command: PYTHONPATH=. .venv/bin/python bench/placement.py --setups 3")
    for line in (
        "1280x720: ",
        "  table (",
        "  overhang (",
        "    in one zone, placed there: ",
        "      by the share alone (before): ",
        "  across (",
        "    across two zones: ",
        "  foreign (",
        "    another deck's card read as one of this deck's: 0",
        "  twin (",
        "    both copies read, each where it lies: ",
        "  sharp unoccluded cards in one zone, overhanging ones included: ",
    ):
        assert line in out, line
