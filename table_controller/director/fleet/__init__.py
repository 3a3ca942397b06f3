"""Fleet mode at the director's: tables that join the event from the network and are
approved on the dashboard (``core.py``, ``join.py``, their routes in ``web.py``), the
config each is pushed (``config.py``), the fleet view of every table's machine and its
camera (``view.py``, ``view_web.py``, ``camera.py``), two machines acting as one table,
a copied SD card (``machines.py``, the words; ``copied.py``, each status's machine kept
and the alert), what the tables answer (``replies.py``), new releases rolled out one
table at a time (``update.py``), and the event's own certificate authority (``tls.py``).

The protocol both sides speak is ``table_controller.fleet``; the table's side is
``table_controller.table.fleet``.

The fleet's rows stay in ``store/`` (``store/fleet*.py``) and not here: while
``DirectorStore`` gathers every part of the store, a part kept here would make the store
import the fleet and the fleet the store. Once the features take only the store parts
they need, those parts can move in.
"""

from __future__ import annotations

from table_controller.director.fleet.camera import CameraCommands
from table_controller.director.fleet.config import attach
from table_controller.director.fleet.copied import CopiedCards
from table_controller.director.fleet.core import Fleet
from table_controller.director.fleet.machines import TWIN_WINDOW
from table_controller.director.fleet.replies import handle as handle_reply
from table_controller.director.fleet.tls import EventTls, prepare
from table_controller.director.fleet.update import (
    add_release,
    releases_folder,
    serve_updates,
    status_words,
)
from table_controller.director.fleet.view_web import FleetWeb
from table_controller.director.fleet.web import routes

__all__ = [
    "TWIN_WINDOW",
    "CameraCommands",
    "CopiedCards",
    "EventTls",
    "Fleet",
    "FleetWeb",
    "add_release",
    "attach",
    "handle_reply",
    "prepare",
    "releases_folder",
    "routes",
    "serve_updates",
    "status_words",
]
