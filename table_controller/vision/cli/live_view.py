"""The annotated camera view of `vision live --view`, served to a browser.

A Pi over a table has no screen of its own, so the person setting up the camera looks
at this page from a laptop or phone on the same network: the camera's frames with the
zones, the sharpness at the corner markers (``calibration.overlay``: the figure to watch
while focusing), each card read and the frame time drawn on them (``watcher.annotate``), as a
Motion-JPEG stream (``multipart/x-mixed-replace``, shown by every browser without a
line of script). The standard library's threading HTTP server is enough: one person
looks at it while setting up, and it never slows the reader: frames are encoded at
most ``fps`` times a second, and a slow viewer gets the latest frame, not a queue.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import cv2

from table_controller import favicon
from table_controller.errors import TableControllerError
from table_controller.vision.camera import Image

BOUNDARY = b"frame"
PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{margin:0;background:#111;color:#eee;font:18px system-ui,sans-serif}}
h1{{font-size:1.2rem;margin:.5rem 1rem}}img{{display:block;max-width:100%;margin:auto}}
p{{margin:.5rem 1rem;color:#bbb}}</style></head>
<body><h1>{title}</h1><img src="/stream.mjpg" alt="the camera's view, annotated">
<p>Green outlines: cards read. Coloured areas: the zones. Top left: the scale, and the
sharpness at the corner markers: focusing the camera, turn until it is green (its
figure, the edges' blur in pixels, as low as it goes). The frame time is at the bottom
left. Nothing shows? Check that <code>vision live</code> is still running.</p>
</body></html>
"""


class ViewError(TableControllerError, OSError):
    """The view's port cannot be opened."""


class LiveView:
    """Serve the latest annotated frame at ``url``: ``/`` (a page), ``/frame.jpg`` (one
    frame) and ``/stream.mjpg`` (the stream). ``show(image)`` hands it a new frame."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, *, fps: float = 10.0, title: str = ""
    ) -> None:
        self.fps = fps
        self.title = title or "The table camera, live"
        self._jpeg: bytes | None = None
        self._count = 0
        self._changed = threading.Condition()
        self._last_encoded = 0.0
        self._closed = False
        view = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                view._answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the command's own output is JSON lines: keep it clean

        try:
            self._server = ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            raise ViewError(
                f"cannot serve the live view on {host}:{port} ({exc.strerror}); "
                "choose another port with --view, e.g. --view 8090"
            ) from None
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="live-view", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/"

    @property
    def frames_shown(self) -> int:
        return self._count

    def due(self, now: float | None = None) -> bool:
        """Is a new frame wanted yet (at most ``fps`` a second)? Saves annotating
        frames nobody will see."""
        now = time.monotonic() if now is None else now
        return now - self._last_encoded >= 1.0 / self.fps

    def show(self, image: Image) -> None:
        """Encode ``image`` (BGR) and hand it to every viewer."""
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return
        self._last_encoded = time.monotonic()
        with self._changed:
            self._jpeg = data.tobytes()
            self._count += 1
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LiveView:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the requests -------------------------------------------------------------

    def _answer(self, req: BaseHTTPRequestHandler) -> None:
        path = req.path.split("?")[0]
        if path == "/":
            body = PAGE.format(title=self.title).encode()
            self._send(req, 200, "text/html; charset=utf-8", body)
        elif path == "/frame.jpg":
            jpeg = self._wait_frame(0, timeout=5.0)
            if jpeg is None:
                self._send(req, 503, "text/plain", b"no frame from the camera yet\n")
            else:
                self._send(req, 200, "image/jpeg", jpeg)
        elif path == "/stream.mjpg":
            self._stream(req)
        elif path in favicon.PATHS:
            self._send(req, 200, favicon.KIND, favicon.icon_bytes())
        else:
            self._send(req, 404, "text/plain", b"not here: try /\n")

    def _wait_frame(self, after: int, timeout: float) -> bytes | None:
        """The latest frame once there is one newer than frame number ``after``."""
        with self._changed:
            self._changed.wait_for(lambda: self._count > after or self._closed, timeout)
            return self._jpeg if self._count > after else None

    def _stream(self, req: BaseHTTPRequestHandler) -> None:
        req.send_response(200)
        req.send_header("Content-Type", "multipart/x-mixed-replace; boundary=" + BOUNDARY.decode())
        req.send_header("Cache-Control", "no-store")
        req.end_headers()
        seen = 0
        try:
            while not self._closed:
                jpeg = self._wait_frame(seen, timeout=1.0)
                if jpeg is None:
                    continue
                seen = self._count
                req.wfile.write(
                    b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                    b"Content-Length: " + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n"
                )
                req.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the viewer closed the page

    @staticmethod
    def _send(req: BaseHTTPRequestHandler, status: int, kind: str, body: bytes) -> None:
        req.send_response(status)
        req.send_header("Content-Type", kind)
        req.send_header("Content-Length", str(len(body)))
        req.send_header("Cache-Control", "no-store")
        req.end_headers()
        req.wfile.write(body)


def parse_view(text: str) -> tuple[str, int]:
    """``PORT`` or ``HOST:PORT`` (``0.0.0.0:8090`` to be seen from other machines)."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"--view {text!r}: give a port (8090) or HOST:PORT") from None
    if not 0 <= number <= 65535:
        raise ValueError(f"--view {text!r}: a port is 0 to 65535")
    return host or "127.0.0.1", number


__all__ = ["LiveView", "ViewError", "parse_view"]
