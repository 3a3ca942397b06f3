"""The tournament: the event's format run from the dashboard (``admin.py``, its forms in
``forms.py``, the 12-hand rounds' final in ``final.py``), the events a store holds and
which games belong to each (``catalog.py``), the formats of the rule texts (``formats/``,
pure), the results every screen and paper renders (``results/``), and the dashboard's
routes for the event and its final results (``web.py``, ``TournamentWeb``).

"Tournament" names the folder and not "event", which also means a game's event; the
code keeps the rule texts' and the dashboard's word ("the event") for one tournament.
"""

from __future__ import annotations

from table_controller.director.tournament.admin import (
    AdminError,
    ResultsFinal,
    Seating,
    SeatingTable,
    StandingRow,
    TeamChoice,
    TournamentAdmin,
    TournamentRules,
    TournamentState,
    TournamentStateJSON,
    TournamentSummary,
    UnplacedResult,
    current_round,
    slug,
)
from table_controller.director.tournament.catalog import TournamentChoiceError
from table_controller.director.tournament.formats import (
    Bracket,
    BracketRound,
    FormatError,
    ProgressiveEvent,
    RoundsEvent,
)
from table_controller.director.tournament.forms import ACTIONS as FORM_ACTIONS
from table_controller.director.tournament.forms import apply as apply_form
from table_controller.director.tournament.results import (
    ExportError,
    GameRow,
    HallResult,
    HallRow,
    NoGames,
    ResultsSource,
    ResultsView,
    StandingsView,
    check_folder,
    collect,
    export_files,
    hall_results,
    hall_standings,
    review_files,
    write_all,
)
from table_controller.director.tournament.web import TournamentWeb

__all__ = [
    "FORM_ACTIONS",
    "AdminError",
    "Bracket",
    "BracketRound",
    "ExportError",
    "FormatError",
    "GameRow",
    "HallResult",
    "HallRow",
    "NoGames",
    "ProgressiveEvent",
    "ResultsFinal",
    "ResultsSource",
    "ResultsView",
    "RoundsEvent",
    "Seating",
    "SeatingTable",
    "StandingRow",
    "StandingsView",
    "TeamChoice",
    "TournamentAdmin",
    "TournamentChoiceError",
    "TournamentRules",
    "TournamentState",
    "TournamentStateJSON",
    "TournamentSummary",
    "TournamentWeb",
    "UnplacedResult",
    "apply_form",
    "check_folder",
    "collect",
    "current_round",
    "export_files",
    "hall_results",
    "hall_standings",
    "review_files",
    "slug",
    "write_all",
]
