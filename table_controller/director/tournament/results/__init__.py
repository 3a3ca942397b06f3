"""The tournament's results: one model (``model.py``: each game as its table recorded it,
the director's corrections, the standings in the format's own terms, ``standings.py``)
that every screen (``view.py``) and paper (``as_csv.py``, ``as_pdf.py``, written into a
folder all or nothing by ``files.py``) renders, so no two of them can disagree.
"""

from __future__ import annotations

from table_controller.director.tournament.results.files import (
    check_folder,
    export_files,
    review_files,
    write_all,
)
from table_controller.director.tournament.results.model import ExportError, NoGames, collect
from table_controller.director.tournament.results.view import (
    GameRow,
    HallResult,
    HallRow,
    ResultsSource,
    ResultsView,
    StandingsView,
    hall_results,
    hall_standings,
)

__all__ = [
    "ExportError",
    "GameRow",
    "HallResult",
    "HallRow",
    "NoGames",
    "ResultsSource",
    "ResultsView",
    "StandingsView",
    "check_folder",
    "collect",
    "export_files",
    "hall_results",
    "hall_standings",
    "review_files",
    "write_all",
]
