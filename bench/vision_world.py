"""The venues the vision benchmark's sections 5 and 6 run in: the one place that knows
whether the camera model of ``table_controller.vision.optics`` is there.

With it, a venue is ``optics.random_setup`` (pose, lens, scene effects and the camera
module's sensor) and the good baseline is the "pi3" preset; without it, a venue is one of
``realistic_cameras()`` with random ``Effects`` and no sensor (the old pipeline).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np

from table_controller.vision.synthetic import (
    Camera,
    CardPlacement,
    Effects,
    Hand,
    Scene,
    realistic_cameras,
)

# The softest defocus (Gaussian sigma, px at 1280x720) a venue gets in section 5, when
# ``focus.SOFTEST_BLUR_PX`` (what `calibrate` accepts) is not there to say.
DEFOCUS_LIMIT_PX = 1.4

# Light levels: (exposure, noise sigma in grey levels) for the old pipeline, and the
# electrons a white card gives a pixel (``Sensor.white_e``: photon noise) with the sensor.
LIGHTS: dict[str, tuple[float, float, float]] = {
    "bright": (1.10, 1.5, 6000.0),
    "club": (1.00, 2.5, 2000.0),
    "dim": (0.60, 5.0, 400.0),
    "very dim": (0.35, 9.0, 120.0),
}
_SCENE_FIELDS = {f.name for f in dataclasses.fields(Scene)}
_HAND_FIELDS = {f.name for f in dataclasses.fields(Hand)}


def optics() -> ModuleType | None:
    """``table_controller.vision.optics`` when it exists."""
    try:
        return importlib.import_module("table_controller.vision.optics")
    except ImportError:
        return None


def defocus_limit() -> tuple[float, str]:
    """The softest defocus a venue may have, and where that figure comes from."""
    try:
        focus = importlib.import_module("table_controller.vision.focus")
    except ImportError:
        return (DEFOCUS_LIMIT_PX, "the bench's default")
    value = getattr(focus, "SOFTEST_BLUR_PX", None)
    if value is None:
        return (DEFOCUS_LIMIT_PX, "the bench's default")
    return (float(value), "focus.SOFTEST_BLUR_PX")


def glare_warned(image: np.ndarray, calibration: Any) -> str | None:
    """What ``table-controller calibrate`` warns of glare on this empty-mat picture (the
    largest spot), or None: a venue so warned is not played (its director moves the lamp)."""
    from table_controller.vision.calibration import find_fiducials
    from table_controller.vision.glare import find_glare

    _, markers = find_fiducials(image, "aruco")
    spots = find_glare(image, calibration, markers)
    return spots[0].describe() if spots else None


def model_name() -> str:
    return (
        "optics.random_setup (camera, effects, sensor)"
        if optics() is not None
        else "realistic_cameras() with random Effects, no sensor (optics.py not there)"
    )


def world(
    rng: np.random.Generator, size: tuple[int, int] | None = None, sharp: bool = True
) -> tuple[Camera, Effects, Any | None]:
    """A random venue: its camera, the scene's effects and the sensor (None: the old
    pipeline). ``sharp``: no motion blur; the venue keeps its own focus (defocus up to a
    3 px disc), and ``calibrate``'s focus check decides whether it is sharp enough
    (:func:`refusal`): a venue it refuses is refocused by its director, not played."""
    mod = optics()
    if mod is not None:
        camera, effects, sensor = mod.random_setup(rng, size=size, sharp=sharp)
        return camera, effects, sensor
    limit = defocus_limit()[0] if sharp else 3.0
    cameras = [c for c in realistic_cameras() if size is None or c.size == size]
    if not cameras:
        cameras = [replace(c, width=size[0], height=size[1]) for c in realistic_cameras()[:4]]
    camera = cameras[int(rng.integers(len(cameras)))]
    effects = Effects(
        blur=float(rng.uniform(0.3, limit)),
        lighting=float(rng.uniform(0.0, 0.5)),
        cast=(float(rng.uniform(0.95, 1.12)), 1.0, float(rng.uniform(0.82, 1.03))),
        exposure=float(rng.uniform(0.75, 1.1)),
        noise=float(rng.uniform(1.5, 6.0)),
        # The Pi camera gives YUV420; a USB camera's MJPEG is JPEG.
        jpeg=int(rng.integers(75, 96)) if rng.random() < 0.3 else 0,
    )
    return camera, effects, None


def good(size: tuple[int, int] = (1280, 720)) -> tuple[list[Camera], Effects, Any | None]:
    """The good baseline of section 6: the 1280x720 ``realistic_cameras()`` at ``size``,
    club light, a little soft, and the Pi Camera Module 3 when the sensor is modelled."""
    cameras = [replace(c, width=size[0], height=size[1]) for c in realistic_cameras()[:4]]
    mod = optics()
    if mod is None:
        return cameras, Effects.realistic(), None
    return cameras, Effects(lighting=0.25, cast=(1.04, 1.0, 0.94)), mod.preset("pi3")


def lit(effects: Effects, sensor: Any | None, light: str) -> tuple[Effects, Any | None]:
    """The look under one of ``LIGHTS``: the sensor's light level when it models one,
    otherwise the picture's exposure and noise."""
    exposure, noise, white_e = LIGHTS[light]
    if sensor is not None and hasattr(sensor, "white_e"):
        return effects, replace(sensor, white_e=white_e)
    return replace(effects, exposure=exposure, noise=noise), sensor


def scene(
    cards: tuple[CardPlacement, ...],
    hands: tuple[Hand, ...],
    camera: Camera,
    effects: Effects,
    seed: int,
    sensor: Any | None,
) -> Scene:
    """A Scene, with the sensor when there is one (and Scene has the field)."""
    extra = {"sensor": sensor} if sensor is not None and "sensor" in _SCENE_FIELDS else {}
    return Scene(cards, hands, camera, effects, seed, **extra)


def moving(hand: Hand, motion_px: tuple[float, float]) -> Hand:
    """The hand blurred along its motion in the frame, when the renderer can."""
    if "motion_px" in _HAND_FIELDS and any(motion_px):
        return replace(hand, motion_px=(float(motion_px[0]), float(motion_px[1])))
    return hand


def hands_blurred() -> bool:
    return "motion_px" in _HAND_FIELDS


def sensor_label(sensor: Any | None) -> str:
    if sensor is None:
        return "no sensor"
    name = getattr(sensor, "name", None)
    return f"sensor {name}" if name else f"sensor {type(sensor).__name__}"
