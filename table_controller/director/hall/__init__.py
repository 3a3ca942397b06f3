"""The hall's big screen: every table's score and trick, the results and the standings,
for spectators, without a login, held back by the public delay and never showing a card
a player still holds (``view.py``), in the words the screen reads (``words.py``), and
its routes (``web.py``, ``HallWeb``: ``/public``, ``/api/public``).
"""

from __future__ import annotations

from table_controller.director.hall.view import (
    HallSnapshot,
    HallStandings,
    PublicView,
    PublicViewError,
    parse_delay,
)
from table_controller.director.hall.web import HallWeb

__all__ = [
    "HallSnapshot",
    "HallStandings",
    "HallWeb",
    "PublicView",
    "PublicViewError",
    "parse_delay",
]
