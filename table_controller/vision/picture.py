"""Reading a picture file safely: its size is checked from the header before decoding.

A PNG of a few hundred kilobytes can declare 2^30 pixels: OpenCV then allocates gigabytes
(or raises past its own limit) and Pillow raises ``DecompressionBombError``, neither a
one-line error. A table camera gives at most a few megapixels, so a picture over
``MAX_PIXELS`` is refused from its header (read by Pillow, which decodes nothing yet),
with its size and the limit in the message.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, UnidentifiedImageError

from table_controller.errors import TableControllerError

MAX_PIXELS = 50_000_000  # 50 megapixels: well above any table camera (a Pi HQ is 12)
MAX_BYTES = 256 * 1024 * 1024  # no camera picture of 50 megapixels is larger
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm")


class PictureError(TableControllerError, ValueError):
    """A file that is not a picture the table can use; the message is one line."""


def picture_size(path: Path, *, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """The (width, height) a picture's header declares; ``PictureError`` when it is not
    a picture or declares more than ``max_pixels``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                width, height = img.size
    except Image.DecompressionBombError as exc:
        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
        raise PictureError(
            f"{path} declares {pixels}; a table camera's picture has at most "
            f"{max_pixels:,}: use a picture from the table's camera"
        ) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise PictureError(f"{path} is not a picture that can be read (a PNG or JPEG)") from None
    if width * height > max_pixels:
        raise PictureError(
            f"{path} is {width}x{height} ({width * height:,} pixels); a table camera's "
            f"picture has at most {max_pixels:,}: use a picture from the table's camera"
        )
    return width, height


def read_picture(path: str | Path, *, max_pixels: int = MAX_PIXELS) -> npt.NDArray[np.uint8]:
    """The picture at ``path`` as a BGR image (OpenCV's order), checked before decoding."""
    p = Path(path)
    if not p.exists():
        raise PictureError(f"{p} does not exist (a PNG or JPEG from the table's camera)")
    if p.is_dir():
        raise PictureError(f"{p} is a folder: give one picture")
    picture_size(p, max_pixels=max_pixels)
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise PictureError(f"{p} is {size:,} bytes; a camera picture is under {MAX_BYTES:,}")
    data = np.fromfile(str(p), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise PictureError(f"{p} is not a picture that can be read (corrupt or not an image)")
    return np.asarray(img, np.uint8)
