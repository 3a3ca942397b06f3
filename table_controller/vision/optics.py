"""The camera module and its image processor, applied to the synthetic table's ideal image.

:mod:`synthetic` draws what is on the table as a perfect pinhole would see it. A real
camera does worse, and in ways a marker reader feels: the lens is soft (a sharp core, a
wider halo, softer toward the corners) and may be out of focus (a disc, not a Gaussian);
a dim room means few photons per pixel, so shot noise that grows with the signal, read
noise and analogue gain on top; the sensor sees one colour per pixel (a Bayer mosaic,
RGGB) that the processor demosaics back; the white balance misjudges tungsten or cool
LED light; a tone curve, sharpening with its halos, and JPEG follow. The sensor reads its
rows one after the other, so a shaking camera bends the picture (rolling shutter).

A :class:`Sensor` holds all of that; :data:`PRESETS` names a few real set-ups, and
:func:`random_setup` draws a whole venue (camera pose, lens, light, moment, sensor) for
the benchmarks. ``Scene(sensor=...)`` in :mod:`synthetic` switches the model on; without
one the renderer is exactly as before.

Lengths are image pixels at the frame's own size. The sensor's geometry (``hfov_deg``,
``distortion``) is the lens's: :func:`camera_for` mounts a camera with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.layout import Zone, default_zones, fiducial_corners
from table_controller.vision.markers import FIDUCIALS

# synthetic refers to Sensor only for typing, so importing it here makes no cycle.
from table_controller.vision.synthetic import Camera, Effects, motion_kernel

Bgr = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]

_GAMMA = 2.2  # the ideal image is taken as gamma-2.2 encoded scene light
_BANK_PAD = 64
_BANK: dict[tuple[int, int], FloatImage] = {}

# Light colour by correlated colour temperature: linear RGB relative to green, what a
# white card reflects under it (blackbody, rounded).
_CCT = np.array([2000.0, 2500.0, 3000.0, 4000.0, 5000.0, 6500.0, 8000.0, 10000.0])
_CCT_RGB = np.array(
    [
        [2.20, 1.0, 0.20],
        [1.75, 1.0, 0.36],
        [1.46, 1.0, 0.53],
        [1.22, 1.0, 0.76],
        [1.09, 1.0, 0.90],
        [1.00, 1.0, 1.00],
        [0.93, 1.0, 1.08],
        [0.88, 1.0, 1.15],
    ]
)


def light_rgb(kelvin: float) -> tuple[float, float, float]:
    """The colour of light at ``kelvin`` (linear R, G, B with G = 1), interpolated in
    mired as colour temperature is perceived."""
    mired = 1e6 / np.clip(kelvin, _CCT[0], _CCT[-1])
    xs = 1e6 / _CCT[::-1]
    r, g, b = (float(np.interp(mired, xs, _CCT_RGB[::-1, i])) for i in range(3))
    return (r, g, b)


@dataclass(frozen=True)
class Sensor:
    """A camera module (lens and sensor) and its image processor.

    Lens: ``sharp_sigma`` the Gaussian core of the lens's blur at the centre (px);
    ``halo``/``halo_sigma`` the share of light spread into a wide halo and its width;
    ``corner_sigma`` extra blur reached in the picture's corners (growing with the
    square of the distance from the centre); ``defocus_px`` the radius of the disc a
    point spreads to when out of focus (0: in focus).

    Light: ``white_e`` electrons a white card gives a pixel at this light and exposure
    (thousands in good light, a hundred or two in a dim bar at high gain; 0: no photon
    noise); ``read_noise_e`` the read noise in electrons (in the same units, after the
    analogue gain that ``white_e`` implies); ``light_k`` the light's colour temperature
    and ``awb_k`` what the auto white balance settles on: their difference is the colour
    cast, and weak raw channels (blue under tungsten) get amplified noise.

    Processing: ``bayer`` an RGGB mosaic demosaiced by ``demosaic`` ("bilinear", "ea" or
    "vng", OpenCV's); ``gamma`` the tone curve's (with ``contrast`` an S-curve on top);
    ``sharpen``/``sharpen_sigma`` the unsharp mask the processor adds (halos at edges);
    ``readout_ms``/``exposure_ms`` the rolling shutter: rows are read one after the
    other over ``readout_ms`` while the camera shakes by ``Effects.motion`` px per
    exposure, which shears the picture; ``jpeg`` the quality of the JPEG (or MJPEG)
    the camera delivers (0: raw frames).

    Geometry: ``hfov_deg`` the pinhole field of view the lens model is built on and
    ``distortion`` its OpenCV coefficients (k1, k2, p1, p2, k3), in normalised image
    coordinates, so the same at any frame size of the same field of view. The renderer
    takes the geometry from ``Scene.camera``: :func:`camera_for` mounts a camera with
    the sensor's (None and (): a 75 deg pinhole).

    ``isp`` False keeps only the old pipeline's camera knobs (Gaussian blur
    ``sharp_sigma``, colour ``cast``, additive grey ``noise``, ``jpeg``): the "legacy"
    preset renders exactly as ``Effects.realistic()`` did.
    """

    name: str = "custom"
    sharp_sigma: float = 0.6
    halo: float = 0.0
    halo_sigma: float = 6.0
    corner_sigma: float = 0.0
    defocus_px: float = 0.0
    white_e: float = 0.0
    read_noise_e: float = 0.0
    full_well_e: float = 0.0  # 0: white_e * 1.25 (the exposure leaves a little headroom)
    light_k: float = 5000.0
    awb_k: float = 5000.0
    bayer: bool = True
    demosaic: str = "ea"
    gamma: float = 2.2
    contrast: float = 0.0
    sharpen: float = 0.0
    sharpen_sigma: float = 1.0
    readout_ms: float = 0.0
    exposure_ms: float = 16.0
    jpeg: int = 0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # isp=False only: RGB gains
    noise: float = 0.0  # isp=False only: grey-level sigma
    isp: bool = True
    hfov_deg: float | None = None
    distortion: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.demosaic not in _DEMOSAIC:
            raise ValueError(
                f"unknown demosaic {self.demosaic!r}; choose one of {', '.join(_DEMOSAIC)}"
            )

    @property
    def gain(self) -> float:
        """The analogue gain the light level implies (1 at 6000 e- for white)."""
        return 6000.0 / self.white_e if self.white_e > 0 else 1.0

    def legacy_effects(self, fx: Effects) -> Effects:
        """The old pipeline's effects for ``isp=False``: the venue and the moment from
        ``fx``, the camera's own knobs from the sensor."""
        blur = math.hypot(self.sharp_sigma, fx.blur)
        return replace(fx, blur=blur, cast=self.cast, noise=self.noise, jpeg=self.jpeg)

    # -- the lens, on the undistorted canvas

    def lens(
        self, img: Bgr, extra_sigma: float = 0.0, motion: tuple[float, float] = (0.0, 0.0)
    ) -> Bgr:
        """The lens's blur: core Gaussian (with ``extra_sigma`` from the scene, e.g.
        ``Effects.blur``), defocus disc, the camera's shake during the exposure
        (``motion``, px x and y), softer corners, halo. Defocus and shake are one
        convolution, their kernels combined."""
        out = img
        core = math.hypot(self.sharp_sigma, extra_sigma)
        if core > 0:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), core), np.uint8)
        defocus = round(self.defocus_px, 2)
        if defocus > 0 or any(motion):
            kernel = _psf(defocus, motion)
            out = np.asarray(cv2.filter2D(out, -1, kernel), np.uint8)
        if self.corner_sigma > 0:
            out = _soften_corners(out, self.corner_sigma)
        if self.halo > 0:
            h, w = out.shape[:2]
            k = 4
            small = cv2.resize(out, (w // k, h // k), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), self.halo_sigma / k)
            wide = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
            out = np.asarray(cv2.addWeighted(out, 1.0 - self.halo, wide, self.halo, 0.0), np.uint8)
        return out

    def shear(self, height: int, motion: float, motion_deg: float) -> npt.NDArray[np.float32]:
        """Rolling shutter: each row's shift (x, y px, rows x 2) while the camera moves
        ``motion`` px per exposure along ``motion_deg``, rows read over ``readout_ms``."""
        if self.readout_ms <= 0 or motion <= 0:
            return np.zeros((height, 2), np.float32)
        speed = motion / max(self.exposure_ms, 1e-3)  # px per ms
        t = (np.arange(height, dtype=np.float32) / max(1, height - 1) - 0.5) * self.readout_ms
        a = math.radians(motion_deg)
        return np.stack([t * speed * math.cos(a), t * speed * math.sin(a)], axis=1).astype(
            np.float32
        )

    # -- the sensor and the processor, on the final frame

    def develop(self, img: Bgr, rng: np.random.Generator) -> Bgr:
        """Light on the sensor (``img``, the scene as gamma-encoded BGR) to the frame the
        camera delivers: photons, noise, mosaic, white balance, tone, sharpening, JPEG."""
        h, w = img.shape[:2]
        plane = mosaic(img) if self.bayer else img
        lin = cv2.LUT(plane, _LINEAR_LUT)  # float32 linear light, white = 1
        # What the raw sensor collects: the light's colour (blue is weak under tungsten)
        # times the electrons a white card gives; then the processor's white balance
        # divides by the light it believes in, and maps white to the 12-bit top.
        raw = np.array(light_rgb(self.light_k)[::-1], np.float32)  # BGR
        awb = 1.0 / np.array(light_rgb(self.awb_k)[::-1], np.float32)
        if self.white_e > 0:
            electrons = cv2.multiply(lin, self._sites(raw * self.white_e, h, w))
            sigma = np.sqrt(electrons + np.float32(self.read_noise_e**2))
            electrons = cv2.add(electrons, cv2.multiply(sigma, self._normal(lin.shape, rng)))
            full = self.full_well_e or self.white_e * 1.25
            np.clip(electrons, 0.0, full, out=electrons)
            balanced = cv2.multiply(electrons, self._sites(awb * 4095.0 / self.white_e, h, w))
        else:
            balanced = cv2.multiply(lin, self._sites(raw * awb * 4095.0, h, w))
        np.clip(balanced, 0.0, 4095.0, out=balanced)
        out = self._tone_lut()[balanced.astype(np.uint16)]
        if self.bayer:
            out = np.asarray(cv2.cvtColor(out, _DEMOSAIC[self.demosaic]), np.uint8)
        if self.sharpen > 0:
            soft = cv2.GaussianBlur(out, (0, 0), self.sharpen_sigma)
            out = np.asarray(
                cv2.addWeighted(out, 1.0 + self.sharpen, soft, -self.sharpen, 0.0), np.uint8
            )
        return jpeg(out, self.jpeg)

    def _sites(self, bgr: npt.NDArray[np.floating[Any]], h: int, w: int) -> FloatImage:
        """Per-pixel gains: per mosaic site with a Bayer filter, else per channel."""
        gains = _cfa_cached(tuple(float(v) for v in bgr), h, w, self.bayer)
        return gains

    def _normal(self, shape: tuple[int, ...], rng: np.random.Generator) -> FloatImage:
        """Unit Gaussian noise: a crop of a bank drawn once, at a random offset and sign
        (fresh noise for every pixel would cost more than the rest of the frame)."""
        key = (shape[0], shape[1] * (shape[2] if len(shape) > 2 else 1))
        if key not in _BANK:
            bank_rng = np.random.default_rng([18, *key])
            _BANK[key] = bank_rng.standard_normal(
                (key[0] + _BANK_PAD, key[1] + _BANK_PAD), np.float32
            )
        dy, dx = (int(v) for v in rng.integers(0, _BANK_PAD, 2))
        crop = _BANK[key][dy : dy + key[0], dx : dx + key[1]].reshape(shape)
        return crop if rng.random() < 0.5 else -crop

    def _tone_lut(self) -> npt.NDArray[np.uint8]:
        return _tone(self.gamma, self.contrast)


# --- the stages, each usable alone -----------------------------------------------------

_DEMOSAIC = {
    # OpenCV names Bayer patterns by the second row: an RGGB sensor is its "BG".
    "bilinear": cv2.COLOR_BayerBG2BGR,
    "ea": cv2.COLOR_BayerBG2BGR_EA,
    "vng": cv2.COLOR_BayerBG2BGR_VNG,
}
_LINEAR_LUT = ((np.arange(256, dtype=np.float32) / 255.0) ** _GAMMA).astype(np.float32)


def mosaic(img: npt.NDArray[np.float32] | Bgr) -> npt.NDArray[np.float32] | Bgr:
    """An RGGB Bayer mosaic of a BGR image: each pixel keeps only the colour its filter
    passes (R at even rows and columns, B at odd ones, G elsewhere)."""
    out = np.empty(img.shape[:2], img.dtype)
    out[0::2, 0::2] = img[0::2, 0::2, 2]
    out[0::2, 1::2] = img[0::2, 1::2, 1]
    out[1::2, 0::2] = img[1::2, 0::2, 1]
    out[1::2, 1::2] = img[1::2, 1::2, 0]
    return out


def demosaic(raw: Bgr, method: str = "ea") -> Bgr:
    """BGR from an RGGB mosaic (uint8), as the camera's processor would."""
    return np.asarray(cv2.cvtColor(raw, _DEMOSAIC[method]), np.uint8)


@lru_cache(maxsize=8)
def _cfa_cached(bgr: tuple[float, ...], h: int, w: int, bayer: bool) -> FloatImage:
    """Gains per pixel from BGR gains: per site of the mosaic, or per channel."""
    b, g, r = bgr
    if not bayer:
        return np.tile(np.array(bgr, np.float32), (h, w, 1))
    cell = np.array([[r, g], [g, b]], np.float32)
    return np.tile(cell, ((h + 1) // 2, (w + 1) // 2))[:h, :w].copy()


@lru_cache(maxsize=16)
def _tone(gamma: float, contrast: float) -> npt.NDArray[np.uint8]:
    """12-bit linear -> 8-bit tone curve: gamma, then a gentle S-curve."""
    x = np.arange(4096, dtype=np.float64) / 4095.0
    y = x ** (1.0 / gamma)
    if contrast:
        y = np.clip(y + contrast * y * (1 - y) * (2 * y - 1) * 2.0, 0.0, 1.0)
    return np.asarray(np.round(y * 255.0), np.uint8)


_TILES = 6  # the picture is softened tile by tile, each by its distance from the centre


def _soften_corners(img: Bgr, sigma: float) -> Bgr:
    """Extra blur growing toward the corners: the blur's variance grows with the square
    of the distance from the centre, reaching ``sigma`` in the corners. Applied per tile
    of a 6 x 6 grid (one Gaussian each), which costs about one blur of the frame."""
    h, w = img.shape[:2]
    out = img.copy()
    ys = np.linspace(0, h, _TILES + 1).astype(int)
    xs = np.linspace(0, w, _TILES + 1).astype(int)
    pad = math.ceil(3 * sigma) + 1
    for i in range(_TILES):
        for j in range(_TILES):
            y0, y1, x0, x1 = ys[i], ys[i + 1], xs[j], xs[j + 1]
            dy = ((y0 + y1) / 2 - h / 2) / (h / 2)
            dx = ((x0 + x1) / 2 - w / 2) / (w / 2)
            s = sigma * math.sqrt(min(1.0, (dx * dx * w * w + dy * dy * h * h) / (w * w + h * h)))
            if s < 0.3:
                continue
            py0, py1 = max(0, y0 - pad), min(h, y1 + pad)
            px0, px1 = max(0, x0 - pad), min(w, x1 + pad)
            soft = cv2.GaussianBlur(img[py0:py1, px0:px1], (0, 0), s)
            out[y0:y1, x0:x1] = soft[y0 - py0 : y1 - py0, x0 - px0 : x1 - px0]
    return out


@lru_cache(maxsize=32)
def pillbox(radius: float) -> FloatImage:
    """A defocus kernel: a uniform disc of ``radius`` px (edge pixels weighted by how
    much of them the disc covers), summing to 1."""
    n = math.ceil(radius - 0.5) if radius > 0.5 else 0
    size = 2 * n + 1
    sub = 8
    coords = (np.arange(size * sub, dtype=np.float64) + 0.5) / sub - (size / 2)
    yy, xx = np.meshgrid(coords, coords, indexing="ij")
    inside = (xx**2 + yy**2 <= radius**2).astype(np.float64)
    k = inside.reshape(size, sub, size, sub).mean(axis=(1, 3))
    if k.sum() <= 0:
        k[n, n] = 1.0
    return np.asarray(k / k.sum(), np.float32)


@lru_cache(maxsize=64)
def _psf(defocus: float, motion: tuple[float, float]) -> FloatImage:
    """One kernel for a defocus disc and a motion streak together (the Gaussian core
    goes separately: separable, it is cheaper alone)."""
    parts = []
    if defocus > 0:
        parts.append(pillbox(defocus))
    if any(motion):
        parts.append(motion_kernel(*motion))
    kernel = parts[0]
    for k in parts[1:]:
        kernel = _convolve(kernel, k)
    return np.asarray(kernel / kernel.sum(), np.float32)


def _convolve(a: FloatImage, b: FloatImage) -> FloatImage:
    """The full 2-D convolution of two small odd-sized kernels."""
    ha, wa = a.shape
    hb, wb = b.shape
    out = np.zeros((ha + hb - 1, wa + wb - 1), np.float32)
    for y in range(hb):
        for x in range(wb):
            if b[y, x]:
                out[y : y + ha, x : x + wa] += b[y, x] * a
    return out


def jpeg(img: Bgr, quality: int) -> Bgr:
    """The frame through a JPEG encoder at ``quality`` (0: unchanged)."""
    if not quality:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR frame
        return img
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


# --- presets -----------------------------------------------------------------------

PI3_WIDE_DISTORTION = (-0.15, 0.02, 0.0, 0.0, 0.0)

PRESETS: dict[str, Sensor] = {
    # Effects.realistic()'s camera: Gaussian 0.6, a warm cast, noise 2.5, JPEG 90.
    "legacy": Sensor(
        "legacy", sharp_sigma=0.6, cast=(1.04, 1.0, 0.94), noise=2.5, jpeg=90, isp=False
    ),
    # Camera Module 3 (IMX708), 66 deg, club lighting: sharp, clean, mild sharpening.
    "pi3": Sensor(
        "pi3",
        sharp_sigma=0.55,
        halo=0.04,
        corner_sigma=0.5,
        white_e=5000.0,
        read_noise_e=2.5,
        light_k=4000.0,
        awb_k=4300.0,
        sharpen=0.5,
        readout_ms=18.0,
        exposure_ms=10.0,
        jpeg=90,
        hfov_deg=66.0,
    ),
    # Camera Module 3 Wide: 102 deg, barrel k1 -0.15 (k2 keeps the corners in order).
    "pi3-wide": Sensor(
        "pi3-wide",
        sharp_sigma=0.6,
        halo=0.05,
        corner_sigma=1.0,
        white_e=5000.0,
        read_noise_e=2.5,
        light_k=4000.0,
        awb_k=4300.0,
        sharpen=0.5,
        readout_ms=18.0,
        exposure_ms=10.0,
        jpeg=90,
        hfov_deg=90.6,  # the model's pinhole angle; with the barrel, 102 deg edge to edge
        distortion=PI3_WIDE_DISTORTION,
    ),
    # A cheap USB webcam: 78 deg, soft plastic lens, small pixels, MJPEG at 70.
    "webcam": Sensor(
        "webcam",
        sharp_sigma=0.9,
        halo=0.1,
        halo_sigma=8.0,
        corner_sigma=1.2,
        white_e=1800.0,
        read_noise_e=4.0,
        light_k=4000.0,
        awb_k=4800.0,
        demosaic="bilinear",
        contrast=0.15,
        sharpen=0.9,
        readout_ms=30.0,
        exposure_ms=20.0,
        jpeg=70,
        hfov_deg=78.0,
        distortion=(-0.05, 0.0, 0.0, 0.0, 0.0),
    ),
    # A dim venue: high gain, few photons, long exposure.
    "low-light": Sensor(
        "low-light",
        sharp_sigma=0.6,
        halo=0.05,
        corner_sigma=0.6,
        white_e=180.0,
        read_noise_e=3.0,
        light_k=3000.0,
        awb_k=3400.0,
        sharpen=0.4,
        readout_ms=18.0,
        exposure_ms=33.0,
        jpeg=85,
        hfov_deg=66.0,
    ),
    # Tungsten bulbs the white balance does not fully correct: warm, noisy blue.
    "tungsten": Sensor(
        "tungsten",
        sharp_sigma=0.6,
        halo=0.04,
        corner_sigma=0.5,
        white_e=1500.0,
        read_noise_e=2.5,
        light_k=2700.0,
        awb_k=3600.0,
        sharpen=0.5,
        readout_ms=18.0,
        exposure_ms=20.0,
        jpeg=85,
        hfov_deg=66.0,
    ),
    # Cool LED panels: bluish, the balance overshooting the other way.
    "cool-led": Sensor(
        "cool-led",
        sharp_sigma=0.6,
        halo=0.04,
        corner_sigma=0.5,
        white_e=3000.0,
        read_noise_e=2.5,
        light_k=6500.0,
        awb_k=5000.0,
        sharpen=0.5,
        readout_ms=18.0,
        exposure_ms=12.0,
        jpeg=85,
        hfov_deg=66.0,
    ),
}


def preset(name: str) -> Sensor:
    """A named sensor preset (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown camera model {name!r}; models: {', '.join(PRESETS)}") from None


def camera_for(
    sensor: Sensor,
    size: tuple[int, int] = (1280, 720),
    *,
    offset: tuple[float, float] = (0.0, 60.0),
    roll_deg: float = 0.0,
    margin_px: float = 8.0,
) -> Camera:
    """A camera with the sensor's lens at ``size``, mounted ``offset`` mm from the mat's
    centre, looking at the centre, as low as it can hang with all four corner markers
    ``margin_px`` inside the frame (a lens with no field of view of its own: 75 deg).
    """
    hfov = sensor.hfov_deg if sensor.hfov_deg is not None else 75.0
    dist = tuple(sensor.distortion)
    corners = np.concatenate([fiducial_corners(m) for m in FIDUCIALS])
    cam = Camera(size[0], size[1], hfov, (offset[0], offset[1], 900.0), (0.0, 0.0), roll_deg, dist)
    for height in np.arange(900.0, 3000.0, 10.0):
        cam = replace(cam, position=(offset[0], offset[1], float(height)))
        if cam.sees(corners, margin_px):
            return cam
    return cam


# --- how finely a camera sees the cards ------------------------------------------------


def cell_px(camera: Camera, zones: tuple[Zone, ...] | None = None, cells: int = 6) -> float:
    """px per card-marker cell in the worst spot of any zone, through the true lens
    (the smaller singular value of the table -> image map, as calibration.scale)."""
    from table_controller.vision.deck import MARKER_MM

    pts = np.array([p for z in zones or default_zones() for p in z.polygon], np.float64)
    pts = np.vstack([pts, [[0.0, 0.0]]])
    d = 1.0
    base = camera.project(pts)
    px = camera.project(pts + np.array([d, 0.0]))
    py = camera.project(pts + np.array([0.0, d]))
    worst = math.inf
    for a, bx, by in zip(base, px, py, strict=True):
        jac = np.column_stack([bx - a, by - a]) / d
        worst = min(worst, float(np.linalg.svd(jac, compute_uv=False).min()))
    return worst * MARKER_MM / cells


# --- a random venue -----------------------------------------------------------------

SIZES = ((1280, 720), (1920, 1080))
_POSES_SEED = 1818


@lru_cache(maxsize=4)
def venue_cameras(size: tuple[int, int] = (1280, 720)) -> tuple[Camera, ...]:
    """Twelve camera mountings at ``size`` as found in venues: 0.9-1.2 m up, off centre
    by up to 12 cm, tilted toward the middle, rolled up to 4 deg, lenses from nearly
    straight to the Camera Module 3 Wide's barrel (k1 -0.02 to -0.15). The field of view
    is set so that a 1280x720 frame gets 3.2-3.6 px per marker cell in the worst zone
    (1920x1080: 1.5 times that), with the four corner markers in view. The same twelve
    poses at either size."""
    rng = np.random.default_rng(_POSES_SEED)
    corners = np.concatenate([fiducial_corners(m) for m in FIDUCIALS])
    out: list[Camera] = []
    k1s = np.linspace(-0.02, -0.15, 12)
    while len(out) < 12:
        k1 = float(k1s[len(out)])
        dist = (k1, 0.8 * k1 * k1, 0.0, 0.0, 0.0)  # k2 keeps a wide lens's corners in order
        height = float(rng.uniform(900.0, 1200.0))
        off = rng.uniform(-120.0, 120.0, 2)
        tilt = rng.uniform(-0.5, 0.5, 2) * off  # look back toward the middle, partly
        roll = float(rng.uniform(-4.0, 4.0))
        target_cell = float(rng.uniform(3.2, 3.6))
        probe = Camera(
            1280,
            720,
            75.0,
            (float(off[0]), float(off[1]), height),
            (float(tilt[0]), float(tilt[1])),
            roll,
            dist,
        )
        # px per cell scales with the focal length: solve for it, then check the view.
        hfov = 75.0
        for _ in range(6):
            cam = replace(probe, hfov_deg=hfov)
            f = cam.focal_px * target_cell / cell_px(cam)
            hfov = math.degrees(2 * math.atan(640.0 / f))
        cam = replace(probe, hfov_deg=hfov)
        if not cam.sees(corners, 6.0):
            continue
        out.append(cam)
    w, h = size
    if (w, h) == (1280, 720):
        return tuple(out)
    return tuple(replace(c, width=w, height=h) for c in out)


def random_setup(
    rng: np.random.Generator,
    *,
    size: tuple[int, int] | None = None,
    sharp: bool = False,
    max_defocus_px: float | None = None,
) -> tuple[Camera, Effects, Sensor]:
    """A random venue: one of :func:`venue_cameras` at ``size`` (1280x720 or 1920x1080
    at random when None), the light (tungsten, cool LED or daylight-ish; gradients;
    dim rooms at high gain; glare), the moment (camera shake 1-8 px) and the sensor
    (lens softness, defocus 1-3 px disc radius, white balance error, sharpening, JPEG
    60-95).

    ``sharp``: no motion blur (the camera and the hands still; the "sharp unoccluded
    cards" of the issue's figures, whose venues were still out of focus by 1-3 px half
    the time). ``max_defocus_px``: a defocus radius of at most that (px at 1280x720; a
    disc of radius R blurs about like a Gaussian of sigma R/2), e.g. what ``calibrate``
    accepts."""
    if size is None:
        size = SIZES[int(rng.integers(len(SIZES)))]
    cams = venue_cameras((size[0], size[1]))
    camera = cams[int(rng.integers(len(cams)))]
    scale = size[0] / 1280.0

    light = rng.choice(["tungsten", "cool-led", "mixed"], p=[0.4, 0.35, 0.25])
    if light == "tungsten":
        light_k = float(rng.uniform(2500.0, 3200.0))
        awb_k = light_k + float(rng.uniform(200.0, 900.0))
    elif light == "cool-led":
        light_k = float(rng.uniform(5500.0, 7500.0))
        awb_k = light_k - float(rng.uniform(300.0, 1500.0))
    else:
        light_k = float(rng.uniform(3500.0, 5000.0))
        awb_k = light_k + float(rng.normal(0.0, 400.0))
    dim = rng.random() < 0.3
    white_e = float(rng.uniform(120.0, 500.0) if dim else rng.uniform(800.0, 6000.0))
    exposure_ms = float(rng.uniform(25.0, 40.0) if dim else rng.uniform(8.0, 25.0))

    motion = 0.0 if sharp else float(rng.uniform(1.0, 8.0)) if rng.random() < 0.6 else 0.0
    defocus = float(rng.uniform(1.0, 3.0)) if rng.random() < 0.5 else float(rng.uniform(0.0, 1.0))
    if max_defocus_px is not None and defocus > max_defocus_px:
        defocus = float(rng.uniform(0.0, max_defocus_px))  # refocused until accepted
    glare = rng.random() < 0.35
    effects = Effects(
        motion=motion * scale,
        motion_deg=float(rng.uniform(0.0, 180.0)),
        glare=float(rng.uniform(0.3, 0.9)) if glare else 0.0,
        glare_spots=int(rng.integers(1, 4)),
        glare_px=float(rng.uniform(20.0, 60.0)) * scale,
        lighting=float(rng.uniform(0.1, 0.6)),
        exposure=float(rng.uniform(0.7, 1.05)),
    )
    sensor = Sensor(
        "venue",
        sharp_sigma=float(rng.uniform(0.5, 0.9)) * scale,
        halo=float(rng.uniform(0.0, 0.12)),
        halo_sigma=float(rng.uniform(4.0, 10.0)) * scale,
        corner_sigma=float(rng.uniform(0.3, 1.3)) * scale,
        defocus_px=defocus * scale,
        white_e=white_e,
        read_noise_e=float(rng.uniform(1.5, 4.0)),
        light_k=light_k,
        awb_k=awb_k,
        demosaic=str(rng.choice(["bilinear", "ea"])),  # vng costs 8 ms a frame
        contrast=float(rng.uniform(0.0, 0.2)),
        sharpen=float(rng.uniform(0.0, 0.9)),
        sharpen_sigma=float(rng.uniform(0.8, 1.4)) * scale,
        readout_ms=float(rng.uniform(12.0, 30.0)),
        exposure_ms=exposure_ms,
        jpeg=int(rng.integers(60, 96)),
        hfov_deg=camera.hfov_deg,
        distortion=camera.distortion,
    )
    return camera, effects, sensor


__all__ = [
    "PRESETS",
    "SIZES",
    "Sensor",
    "camera_for",
    "cell_px",
    "demosaic",
    "jpeg",
    "light_rgb",
    "mosaic",
    "pillbox",
    "preset",
    "random_setup",
    "venue_cameras",
]
