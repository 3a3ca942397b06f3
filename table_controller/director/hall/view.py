"""The public view: every table's score and current trick for a big screen in the hall,
read-only, no login, held back by ``public_delay`` seconds, and never a card a player
still holds.

Held cards stay out by construction, not by filtering a full picture: a table's public
picture is built from a whitelist of the table page's fields that are public by nature
(scores, the trick on the table, the last trick, trump, the upcard everyone saw), and
the recent outputs shown pass through ``feed.messages.public_outputs`` (a renege spotted
names the card the player still holds; the public learns it when it is played or
proven). The delay is the table's own clock: only events the table recorded at least
``delay`` seconds ago are replayed, so a screen never shows a play sooner than that.
A query's ``delay`` may lengthen the director's setting, never shorten it (up to
``MAX_DELAY``; not a number of seconds in that range, it is refused).

The news shown with a table are the outputs the table sent (only the table knows the
hands, so only it spots a renege), cut by ``feed.messages.public_outputs``; a replay's
problem is said without the rules' words, which may name a card.

The snapshot carries the hall screen's words (``hall.words``): each table's ``title``
and its score, phase and trump as text, the standings (the event's, else the teams at
the tables by games won) and the recent results. Results and the tables' standings are
held back by the delay like the pictures (a game's end is not shown before its last
trick); the event's standings are not (they change when the director records a result).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import NotRequired, TypedDict
from urllib.parse import quote

from table_controller.director.dashboard import stored_review
from table_controller.director.hall.words import (
    BracketLine,
    HallEvent,
    HallSeating,
    HallTable,
    PublicFields,
    PublicPicture,
    PublicSeat,
    bracket_rows,
    news_text,
    round_text,
    seat_names,
    seating_words,
    standings_heading,
    table_title,
    table_words,
    team_names,
)
from table_controller.director.json_value import JSONObject, JSONValue, as_json
from table_controller.director.store import DirectorStore, GameEvent
from table_controller.director.tournament import (
    HallResult,
    HallRow,
    ResultsSource,
    TournamentAdmin,
    hall_results,
    hall_standings,
)
from table_controller.director.words import title_order
from table_controller.errors import TableControllerError
from table_controller.feed.messages import public_outputs
from table_controller.present import table_view
from table_controller.review import Review
from table_controller.rules.errors import RulesError
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import preset
from table_controller.rules.replay import OnError, replay, unbroken

# The table page's fields a spectator may see (never "actions", hands, reneges' proof),
# and a seat's: named once, by the picture's type.
PUBLIC_FIELDS = tuple(PublicFields.__annotations__)
SEAT_FIELDS = tuple(PublicSeat.__annotations__)
NEWS = 6  # the latest outputs shown with each table
RESULTS = 8  # the latest games ended shown under "Recent results"
MAX_DELAY = 86_400.0  # a day: the longest delay a query may ask for


class HallStandings(TypedDict):
    """The hall's standings: the papers' lines, or the bracket's round being played."""

    heading: str
    rows: list[HallRow] | list[BracketLine]


class HallSnapshot(TypedDict):
    """What the hall screen draws (``PublicView.snapshot``), held back by the delay:
    every table's public picture in words, the standings, the seating, the results."""

    standings: HallStandings
    delay: float
    delay_text: str
    round_text: str
    at: float
    tables: list[HallTable]
    seating: HallSeating | None
    results: list[HallResult]
    event: HallEvent
    title: NotRequired[str]  # the dashboard's, added where it is served


class PublicViewError(TableControllerError, ValueError):
    """A public view's query that cannot be answered: what, and what to ask instead."""


def parse_delay(text: str) -> float:
    """A query's ``delay``: seconds, finite, 0 to ``MAX_DELAY``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= MAX_DELAY:  # NaN fails this too
        raise PublicViewError(
            f"delay={text[:20]!r} is not a number of seconds from 0 to {MAX_DELAY:.0f}"
        )
    return value


def public_picture(view: Mapping[str, JSONValue], outputs: Sequence[JSONObject]) -> PublicPicture:
    """A table page's snapshot cut down to what a spectator may see (pure): the
    ``PUBLIC_FIELDS`` and each seat's ``SEAT_FIELDS``, named one by one so the picture's
    type says which."""
    out: PublicPicture = {
        "table": view.get("table"),
        "game": view.get("game"),
        "phase": view.get("phase"),
        "hand": view.get("hand"),
        "dealer": view.get("dealer"),
        "trump": view.get("trump"),
        "maker": view.get("maker"),
        "alone": view.get("alone"),
        "bid": view.get("bid"),
        "upcard": view.get("upcard"),
        "trick": view.get("trick"),
        "last_trick": view.get("last_trick"),
        "tricks_won": view.get("tricks_won"),
        "score": view.get("score"),
        "result": view.get("result"),
        "winner": view.get("winner"),
    }
    seats = view.get("seats") or []
    out["seats"] = [
        {
            "seat": s.get("seat"),
            "words": s.get("words"),
            "name": s.get("name"),
            "team": s.get("team"),
            "dealer": s.get("dealer"),
            "card": s.get("card"),
            "tricks": s.get("tricks"),
            "sitting_out": s.get("sitting_out"),
        }
        for s in (seats if isinstance(seats, list) else [])
        if isinstance(s, dict)
    ]
    names = seat_names(out)
    teams = team_names(names)
    out["news"] = [
        {"event": o.get("event"), "text": news_text(o, names, teams)}
        for o in public_outputs(outputs)[-NEWS:]
    ]
    return out


def delay_text(delay: float) -> str:
    """How far behind play the hall's screen is, as its header says it."""
    if delay <= 0:
        return "Live"
    minutes, seconds = divmod(round(delay), 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{hours} h"] * bool(hours) + [f"{minutes} min"] * bool(minutes)
    parts += [f"{seconds} s"] * bool(seconds or not parts)
    return "Shown " + " ".join(parts) + " behind play"


class PublicView:
    """Every table's public picture, delayed; ``clock`` is the hall's time (unix)."""

    def __init__(
        self,
        store: DirectorStore,
        admin: TournamentAdmin | None = None,
        *,
        delay: float | None = None,
        clock: Callable[[], float] = time.time,
        results: ResultsSource | None = None,
    ) -> None:
        self.store = store
        self.admin = admin
        # The standings and the games ended: the results model, as the papers print them.
        self.results = results if results is not None else ResultsSource(store, "")
        self._delay = delay
        self._clock = clock
        self._cache: dict[tuple[str, int, int], PublicPicture] = {}

    def delay(self, asked: float | None = None) -> float:
        """The director's setting (constructor, else the event's), lengthened by ``asked``."""
        base = self._delay
        if base is None:
            base = self.admin.state.public_delay if self.admin is not None else 0.0
        return max(base, asked or 0.0)

    def snapshot(self, asked_delay: float | None = None) -> HallSnapshot:
        delay = self.delay(asked_delay)
        until = self._clock() - delay
        tables: list[HallTable] = []
        titles: dict[str, str] = {}
        for t in self.store.tables.tables():
            titles[t["table"]] = table_title(t)
            pic = self._table(t["table"], until)
            if pic is None:
                continue
            tables.append({**pic, **table_words(pic, titles[t["table"]])})
        tables.sort(key=lambda t: title_order(t["title"]))
        model = self.results.results()
        event: HallEvent = {"format": None}
        if self.admin is not None:
            full = self.admin.summary()
            event = {
                "format": full["format"],
                "round": full.get("round"),
                "rounds": full.get("rounds"),
                "standings": full.get("standings"),
                "seating": full.get("seating"),
                "bracket": full.get("bracket"),
                "champion": full.get("champion"),
            }
            if "teams" in full:  # the bracket's matches named by their teams
                event["teams"] = full["teams"]
        rows: list[HallRow] | list[BracketLine] = (
            [] if model is None else list(hall_standings(model))
        )
        if event.get("format") == "bracket" and not rows:
            rows = bracket_rows(event)
        return {
            "standings": {"heading": standings_heading(event), "rows": rows},
            "delay": delay,
            "delay_text": delay_text(delay),
            "round_text": round_text(event),
            "at": until,
            "tables": tables,
            "seating": seating_words(event, titles),
            "results": [] if model is None else self._reviewed(hall_results(model, until, RESULTS)),
            "event": event,
        }

    def _reviewed(self, results: list[HallResult]) -> list[HallResult]:
        """The results, each whose whole game is over with the address of its review."""
        for r in results:
            if self._replayable(r["table"], r["game"]) is not None:
                r["review"] = f"/public/review/{quote(r['table'], safe='')}/{r['game']}"
        return results

    def _replayable(self, table: str, game: int) -> str | None:
        """The table's title, when the hall may replay the game: its end held back by
        the delay like every result, and the whole game over (never a hand in play, nor
        a match with a game still to play). None otherwise."""
        until = self._clock() - self.delay()
        model = self.results.results()
        if model is None:
            return None
        for g in model.games:
            if g.table != table or g.game != game or g.ended_at is None or g.ended_at > until:
                continue
            state = g.sheet.game
            if state is not None and state.phase is Phase.OVER:
                return g.title
        return None

    def review(self, table: str, game: int) -> Review | None:
        """A finished game's hand review for the hall (None: not one the hall may show)."""
        title = self._replayable(table, game)
        if title is None:
            return None
        review = stored_review(self.store, table, game, title)
        return review if review is not None and review.finished else None

    def _table(self, table: str, until: float) -> PublicPicture | None:
        games = self.store.events.games(table)
        for game in reversed(games):
            events = self.store.events.stored_events(table, game, until=until)
            if not events:
                continue
            key = (table, game, events[-1]["seq"])
            pic = self._cache.get(key)
            if pic is None:
                pic = self._replay(table, game, events)
                if len(self._cache) > 4096:
                    self._cache.clear()
                self._cache[key] = pic
            return pic
        return None

    def _replay(self, table: str, game: int, events: list[GameEvent]) -> PublicPicture:
        name, options = self.store.projections.rules_of(table, game)
        try:
            g = Game(preset(name, options))
        except RulesError:
            return {"table": table, "game": game, "problem": "the table's rules are unknown"}
        # Up to a gap (the rest when it arrives), and no further than an event the rules
        # refuse (the director rules on it).
        ahead = unbroken([ev["seq"] for ev in events], 1)
        done = replay(g, [ev["input"] for ev in events[:ahead]], OnError.STOP)
        recent = done.outputs
        outputs: list[JSONObject] = [
            o for s in done.steps for o in events[s.index]["outputs"] if isinstance(o, dict)
        ]
        problem = None
        if done.problems:
            stop = events[done.problems[0].index]["seq"]
            problem = f"the game stops at event {stop}, which the director rules on"
        elif ahead < len(events):
            problem = f"event {ahead + 1} has not arrived yet"
        view = table_view(
            g, table=table, players=self.store.tables.players(table), recent=recent, rules_name=name
        )
        shown = as_json(view)  # read as the page reads it: values narrowed where used
        pic = public_picture(shown if isinstance(shown, dict) else {}, _since_hand(outputs))
        pic["game"] = game
        pic["problem"] = problem
        return pic


def _since_hand(outputs: list[JSONObject]) -> list[JSONObject]:
    for i in range(len(outputs) - 1, -1, -1):
        if outputs[i].get("event") == "hand_started":
            return outputs[i:]
    return outputs


__all__ = [
    "PUBLIC_FIELDS",
    "PublicView",
    "PublicViewError",
    "delay_text",
    "parse_delay",
    "public_picture",
]
