"""Tournament formats from the rule texts (docs/formats.md): pure, JSON-serialisable.

Progressive rounds with individual scores (003), 12-hand team rounds with losers
rotating and a final (001), single-elimination brackets of best two of three (000), and
the roster of players, teams, absentees and substitutes behind them. Results come in as
data; nothing here reads a clock, a file or a random source.
"""

from __future__ import annotations

from collections.abc import Mapping

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.formats.bracket import (
    Bracket,
    BracketJSON,
    BracketRound,
    Match,
    MatchJSON,
    seed_order,
)
from table_controller.director.tournament.formats.progressive import (
    Balance,
    Chart,
    ProgressiveEvent,
    ProgressiveJSON,
    RoundPlan,
    Standing,
    StandingJSON,
    rotation_chart,
    scores_from_game_ended,
)
from table_controller.director.tournament.formats.roster import (
    FormatError,
    Player,
    Roster,
    RosterJSON,
    Team,
)
from table_controller.director.tournament.formats.rounds import (
    FinalResult,
    FinalResultJSON,
    Playoff,
    PlayoffJSON,
    RoundsEvent,
    RoundsJSON,
    TeamStanding,
    TeamStandingJSON,
)
from table_controller.director.tournament.formats.saved import (
    as_float,
    as_int,
    as_list,
    as_object,
    as_pair,
    as_text,
    as_texts,
)

Event = ProgressiveEvent | RoundsEvent | Bracket
EventJSON = ProgressiveJSON | RoundsJSON | BracketJSON  # an event as saved, by its format


def load(obj: Mapping[str, JSONValue]) -> Event:
    """An event from its ``to_json()`` form, by its ``"format"`` field."""
    kind = obj.get("format")
    if kind == "progressive":
        return ProgressiveEvent.from_json(obj)
    if kind == "rounds":
        return RoundsEvent.from_json(obj)
    if kind == "bracket":
        return Bracket.from_json(obj)
    raise FormatError(
        f"Unknown event format {kind!r}: it is one of 'progressive', 'rounds', 'bracket'."
    )


__all__ = [
    "Balance",
    "Bracket",
    "BracketJSON",
    "BracketRound",
    "Chart",
    "Event",
    "EventJSON",
    "FinalResult",
    "FinalResultJSON",
    "FormatError",
    "Match",
    "MatchJSON",
    "Player",
    "Playoff",
    "PlayoffJSON",
    "ProgressiveEvent",
    "ProgressiveJSON",
    "Roster",
    "RosterJSON",
    "RoundPlan",
    "RoundsEvent",
    "RoundsJSON",
    "Standing",
    "StandingJSON",
    "Team",
    "TeamStanding",
    "TeamStandingJSON",
    "as_float",
    "as_int",
    "as_list",
    "as_object",
    "as_pair",
    "as_text",
    "as_texts",
    "load",
    "rotation_chart",
    "scores_from_game_ended",
    "seed_order",
]
