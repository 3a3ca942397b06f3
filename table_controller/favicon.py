"""The project's one icon (a card with a spade), for the browser's tab on every page:
the table's page and the kiosk, the director's dashboard and public view, and the
camera's live view. Each page links it in its <head>, and each server answers
``/favicon.svg`` and ``/favicon.ico`` with it (a browser asks for the latter unbidden),
so no page leaves a 404 in the log."""

from __future__ import annotations

from importlib import resources
from typing import Any

PATHS = ("/favicon.svg", "/favicon.ico")
KIND = "image/svg+xml"
LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'
CACHE = "public, max-age=86400"


def icon_bytes() -> bytes:
    # Through the package's root: no import of the web server (the live view has none).
    return resources.files("table_controller").joinpath("web", "static", "favicon.svg").read_bytes()


def icon_routes() -> list[Any]:
    """Starlette routes answering both of ``PATHS`` with the icon."""
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    body = icon_bytes()

    async def icon(_request: Request) -> Response:
        return Response(body, media_type=KIND, headers={"Cache-Control": CACHE})

    return [Route(path, icon, methods=["GET"]) for path in PATHS]


__all__ = ["CACHE", "KIND", "LINK", "PATHS", "icon_bytes", "icon_routes"]
