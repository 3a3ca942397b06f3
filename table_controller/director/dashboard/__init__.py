"""The director's dashboard: what it draws of every table from the store, in words (the
overview's lines, a table's detail and history, a renege's and a deck alert's evidence),
the stream that sends each snapshot as what changed, a game's hand review from the
store (``review.py``: the hall and the export take it too) and its verdicts, worked out as
hands end and kept in the store (``verdicts.py``), the ruling form (and its refusal,
``RulingError``, which the service raises), and its routes (``web.py``, ``DashboardWeb``),
which the director's composition (``director/web.py``) mounts. The results take the
words of a ruling sent from here (``ruling_text``), so the papers say what the dashboard
said.
"""

from __future__ import annotations

from table_controller.director.dashboard.review import stored_review, table_name
from table_controller.director.dashboard.ruling import RulingError, ruling_form, ruling_text
from table_controller.director.dashboard.stream import OverviewStream
from table_controller.director.dashboard.verdicts import StoredVerdicts
from table_controller.director.dashboard.view import (
    AlertCard,
    DashboardView,
    TableCard,
    TableLine,
    json_text,
)
from table_controller.director.dashboard.web import DashboardWeb, RulingDesk

__all__ = [
    "AlertCard",
    "DashboardView",
    "DashboardWeb",
    "OverviewStream",
    "RulingDesk",
    "RulingError",
    "StoredVerdicts",
    "TableCard",
    "TableLine",
    "json_text",
    "ruling_form",
    "ruling_text",
    "stored_review",
    "table_name",
]
