"""What kind of picture a stored evidence image is, from its first bytes.

The camera's evidence was PNG and is JPEG now (a camera's crop is a photograph: about a
sixth of the size, at a fourteenth of the cost in the camera's loop). Logs and stores
keep both, and their addresses still end in ``.png``, so whoever serves or embeds one
asks its bytes what it is rather than trusting the name.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def media_type(picture: bytes) -> str:
    """``image/jpeg`` or ``image/png`` (anything else is served as PNG, as before)."""
    return "image/jpeg" if picture.startswith(JPEG_MAGIC) else "image/png"


def picture_headers(picture: bytes) -> dict[str, str]:
    """The headers an evidence picture is served with. Its address stays, but its bytes
    may change once (the camera's clearer picture replaces the first, seconds later), so
    a browser keeps it only to ask again (``no-cache``) and gets a 304 while the
    ``ETag`` (a hash of the bytes) is the same."""
    return {"Cache-Control": "no-cache", "ETag": f'"{hashlib.sha256(picture).hexdigest()[:32]}"'}


def not_modified(picture: bytes, if_none_match: str | None) -> bool:
    """Whether a browser's ``If-None-Match`` names this picture's ``ETag`` already."""
    if not if_none_match:
        return False
    etag = picture_headers(picture)["ETag"]
    return etag in (t.strip().removeprefix("W/") for t in if_none_match.split(","))


def data_uri(picture: bytes) -> str:
    """The picture inline, so a page needs no file beside it (and fetches nothing)."""
    return f"data:{media_type(picture)};base64," + base64.b64encode(picture).decode("ascii")


def encode_jpeg(image: Any, *, quality: int = 80, max_side: int = 1280) -> bytes:
    """A camera frame (BGR or grey) as JPEG, no side over ``max_side`` pixels: a whole
    frame sent to the director (the fleet view's camera view) stays a few hundred kB.
    ValueError when it cannot be encoded."""
    import cv2

    h, w = image.shape[:2]
    scale = max_side / max(h, w)
    if scale < 1:
        image = cv2.resize(
            image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("the picture could not be encoded as JPEG")
    return bytes(buf)


__all__ = [
    "JPEG_MAGIC",
    "PNG_MAGIC",
    "data_uri",
    "encode_jpeg",
    "media_type",
    "not_modified",
    "picture_headers",
]
