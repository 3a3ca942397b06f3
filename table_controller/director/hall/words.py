"""The hall screen's words: a table's public picture, a game's result and the standings as
the screen reads them ("Ann & Cy 7", "Trump: Hearts", "Bidding"), made here so the page
only lays text out and never maps a code (``NS``, ``choosing_dealer``, ``JH``) itself.

Pure: it reads a picture that ``public.public_picture`` already cut down to what a
spectator may see, and the outputs ``feed.messages.public_outputs`` let through, so no
sentence here can name a card a player still holds (a renege spotted is said without the
card; the card is public once the renege is proven).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from typing import NotRequired, TypedDict, TypeVar

from table_controller.cards import Card, Suit
from table_controller.director import words as director_words
from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.tournament import BracketRound, Seating, StandingRow, TeamChoice
from table_controller.present import (
    IRREGULARITY_WORDS,
    REMEDY_WORDS,
    RESULT_WORDS,
    SEAT_NAMES,
    THROW_IN_WORDS,
    card_face,
    event_words,
    phase_words,
    suit_name,
)
from table_controller.rules.events import HandResult, Irregularity, Remedy, ThrowIn
from table_controller.seats import Seat

TEAMS = ("NS", "EW")
TEAM_WORDS = {"NS": "North–South", "EW": "East–West"}
E = TypeVar("E", bound=Enum)


class FaceWords(TypedDict):
    """A card as the hall screen draws it: its face, and whether it is red."""

    text: str
    red: bool


class PublicSeat(TypedDict):
    """A seat as a spectator sees it: the table page's values for the seat, its
    ``words`` and player's ``name``, ``team``, ``dealer``, the ``card`` it has played,
    its ``tricks`` and whether it is ``sitting_out``."""

    seat: JSONValue
    words: JSONValue
    name: JSONValue
    team: JSONValue
    dealer: JSONValue
    card: JSONValue
    tricks: JSONValue
    sitting_out: JSONValue


class NewsLine(TypedDict):
    """A public output shown with a table: its event's name and the sentence."""

    event: JSONValue
    text: str


class PublicFields(TypedDict, total=False):
    """The table page's fields a spectator may see, as the page has them (never
    "actions", hands, reneges' proof): ``view.PUBLIC_FIELDS`` is their names."""

    table: JSONValue
    game: JSONValue
    phase: JSONValue
    hand: JSONValue
    dealer: JSONValue
    trump: JSONValue
    maker: JSONValue
    alone: JSONValue
    bid: JSONValue
    upcard: JSONValue
    trick: JSONValue
    last_trick: JSONValue
    tricks_won: JSONValue
    score: JSONValue
    result: JSONValue
    winner: JSONValue


class PublicPicture(PublicFields, total=False):
    """A table's public picture (``view.public_picture``): its public fields, its seats
    and news, and the replay's ``problem``. When the table's rules are unknown, only
    ``table``, ``game`` and ``problem``: so each field may be missing."""

    seats: list[PublicSeat]
    news: list[NewsLine]
    problem: str | None


class TeamWords(TypedDict):
    """A partnership's line on a table's card: its players, score, tricks and games."""

    team: str
    names: str
    score: JSONValue
    tricks: JSONValue
    games: JSONValue
    won: bool


class TrumpWords(TypedDict):
    """Trump as the hall screen says it, and who called it."""

    text: str
    symbol: str
    red: bool
    by: str


class UpcardWords(FaceWords):
    """The bidding's upcard, and whether it is still up (``status``)."""

    status: str


class PlayWords(FaceWords):
    """A card played to the trick, and who played it."""

    who: str


class TableWords(TypedDict):
    """The words the hall shows for a table (``table_words``), added to its picture."""

    title: str
    phase_text: str
    hand_text: str
    dealer_text: str
    goal_text: str
    teams: list[TeamWords]
    trump_words: TrumpWords | None
    upcard_words: UpcardWords | None
    trick_text: str
    plays: list[PlayWords]
    names: dict[str, str]
    team_names: dict[str, str]


class HallTable(PublicPicture, TableWords):
    """A table on the hall screen: its public picture and its words."""


class HallEvent(TypedDict):
    """The event as the hall screen reads it (from ``TournamentAdmin.summary``): only
    ``format`` (None) when there is no event."""

    format: str | None
    round: NotRequired[int | None]
    rounds: NotRequired[int | None]
    standings: NotRequired[Sequence[StandingRow] | None]
    seating: NotRequired[Seating | None]
    bracket: NotRequired[list[BracketRound] | None]
    champion: NotRequired[str | None]
    teams: NotRequired[list[TeamChoice]]  # the bracket's names, when given


def _fields(value: JSONValue) -> JSONObject:
    """A part of the picture that is an object on the page ({} when it is not there)."""
    return value if isinstance(value, dict) else {}


def _items(value: JSONValue) -> list[JSONValue]:
    """A part of the picture or an output that is a list ([] when it is not there)."""
    return value if isinstance(value, list) else []


class SeatedTable(TypedDict):
    """One of the round's tables on the hall screen, and who sits there."""

    title: str
    text: str


class HallSeating(TypedDict):
    """The round's seating as the hall screen shows it (``seating_words``)."""

    heading: str
    tables: list[SeatedTable]
    byes: str


class BracketLine(TypedDict):
    """A match of the bracket's round being played, as a standings line (the same keys
    as the results' ``HallRow``)."""

    place: str
    name: str
    detail: str
    value: str
    more: str


def table_title(table: Mapping[str, object]) -> str:
    """A table's row (``title`` or ``name``, and ``table``) as people read it."""
    return director_words.table_title(
        str(table.get("table") or ""), table.get("title") or table.get("name")
    )


def seat_names(picture: PublicPicture) -> dict[str, str]:
    """Each seat's player ("N" -> "Ann"; the seat's word when no one is named)."""
    names = {s.name: SEAT_NAMES[s] for s in Seat}
    for seat in picture.get("seats") or []:
        code = seat.get("seat")
        if isinstance(code, str) and code in names and seat.get("name"):
            names[code] = str(seat["name"])
    return names


def team_names(names: Mapping[str, str]) -> dict[str, str]:
    """Each partnership by its players ("Ann & Cy"), or "North–South" when unnamed."""
    out = {}
    for team, (a, b) in (("NS", ("N", "S")), ("EW", ("E", "W"))):
        first, second = names.get(a, ""), names.get(b, "")
        unnamed = {first, second} <= set(SEAT_NAMES.values())
        out[team] = TEAM_WORDS[team] if unnamed else f"{first} & {second}"
    return out


def _face(code: object) -> FaceWords | None:
    try:
        card = Card.parse(str(code))
    except ValueError:
        return None
    return {"text": card_face(card), "red": card.suit in (Suit.D, Suit.H)}


def _suit(code: object) -> Suit | None:
    try:
        return Suit.parse(str(code))
    except ValueError:
        return None


def _enum_words(words: Mapping[E, str], enum: type[E], code: object) -> str:
    try:
        return words[enum(code)]
    except ValueError:
        return str(code).replace("_", " ")


def news_text(
    out: Mapping[str, JSONValue], names: Mapping[str, str], teams: Mapping[str, str]
) -> str:
    """One public output as a sentence for the hall ("Hand 3: Ann & Cy +1")."""
    event = str(out.get("event") or "")
    who = names.get(str(out.get("seat")), "")
    if event == "hand_started":
        return f"Hand {out.get('hand')}: {names.get(str(out.get('dealer')), '')} deals"
    if event == "first_dealer_set":
        return f"{who} deals first"
    if event == "trump_set":
        suit = _suit(out.get("trump"))
        alone = " and goes alone" if out.get("alone") else ""
        return f"{names.get(str(out.get('maker')), '')} called {suit_name(suit)}{alone}"
    if event == "trick_won":
        return f"{names.get(str(out.get('winner')), '')} took trick {out.get('trick')}"
    if event == "hand_scored":
        return hand_text(out, names, teams)
    if event == "hand_thrown_in":
        reason = _enum_words(THROW_IN_WORDS, ThrowIn, out.get("reason"))
        return f"Hand {out.get('hand')} thrown in ({reason})"
    if event == "renege_spotted":  # the held card stays out: the table checks it
        return f"Possible renege by {who} in trick {out.get('trick')}: the table checks it"
    if event == "renege_proven":
        played, proof = _face(out.get("played")), _face(out.get("proof"))
        cards = (
            f": played {played['text']} while holding {proof['text']}" if played and proof else ""
        )
        return f"Renege by {who} in trick {out.get('trick')}{cards}"
    if event == "irregularity_found":
        title = _enum_words(IRREGULARITY_WORDS, Irregularity, out.get("kind"))
        remedy = _enum_words(REMEDY_WORDS, Remedy, out.get("remedy"))
        return f"{title}{f' by {who}' if who else ''}: {remedy}"
    if event in ("penalty_scored", "score_corrected"):
        points = out.get("points")
        team = teams.get(str(out.get("team")), "")
        label = "Penalty" if event == "penalty_scored" else "The director's correction"
        return f"{label}: {team} {points:+d}" if isinstance(points, int) else label
    if event == "game_ended":
        return game_text(out, teams)
    if event == "match_won":
        return f"{teams.get(str(out.get('winner')), '')} won the match"
    return event_words(event)


def hand_text(
    out: Mapping[str, JSONValue], names: Mapping[str, str], teams: Mapping[str, str]
) -> str:
    """A scored hand, the points first: "Hand 3: Ann & Cy +2 (euchred)"."""
    result = _enum_words(RESULT_WORDS, HandResult, out.get("result"))
    points = _items(out.get("points") or [0, 0])
    scored = [f"{teams[t]} +{p}" for t, p in zip(TEAMS, points, strict=False) if p]
    return f"Hand {out.get('hand')}: {', '.join(scored) or 'no points'} ({result})"


def game_text(out: Mapping[str, JSONValue], teams: Mapping[str, str]) -> str:
    """A game's end: "Ann & Cy won 10–7 against Bo & Di" (or a tie)."""
    a, b = [*_items(out.get("scores")), 0, 0][:2]
    winner = out.get("winner")
    if winner not in TEAMS:
        return f"A tie, {a}–{b}"
    loser = "EW" if winner == "NS" else "NS"
    high, low = (a, b) if winner == "NS" else (b, a)
    return f"{teams[str(winner)]} won {high}–{low} against {teams[loser]}"


def table_words(picture: PublicPicture, title: str) -> TableWords:
    """The words the hall shows for one table's public picture (added to it)."""
    names = seat_names(picture)
    teams = team_names(names)
    score = _fields(picture.get("score"))
    tricks = _fields(picture.get("tricks_won"))
    games = _fields(score.get("games"))
    winner = _fields(picture.get("winner"))
    code = picture.get("phase")
    phase = phase_words(code if isinstance(code, str) else None)
    if code == "over":
        team = winner.get("team")
        phase = f"{teams[team]} won" if isinstance(team, str) and team in teams else "Game over"
    hand = picture.get("hand")
    dealer = picture.get("dealer")
    trump = _fields(picture.get("trump"))
    trump_words: TrumpWords | None = None
    if trump:
        suit = _suit(trump.get("suit"))
        maker = names.get(str(picture.get("maker")), "")
        trump_words = {
            "text": suit_name(suit),
            "symbol": "" if suit is None else suit.symbol,
            "red": bool(trump.get("red")),
            "by": (f"{maker} alone" if picture.get("alone") else f"by {maker}") if maker else "",
        }
    upcard = _fields(picture.get("upcard"))
    up_words: UpcardWords | None = None
    if upcard and not trump:  # the bidding's card: everyone at the table saw it
        face = _face(_fields(upcard.get("card")).get("code"))
        if face is not None:
            up_words = {**face, "status": str(upcard.get("status") or "up")}
    trick = _fields(picture.get("trick"))
    plays: list[PlayWords] = []
    for play in _items(trick.get("plays")):
        face = _face(_fields(_fields(play).get("card")).get("code"))
        if face is not None:
            plays.append({"who": names.get(str(_fields(play).get("seat")), ""), **face})
    to_win = score.get("to_win")
    per_game = score.get("hands_per_game")
    return {
        "title": title,
        "phase_text": phase,
        "hand_text": f"Hand {hand}" if hand else "",
        "dealer_text": f"{names[dealer]} deals"
        if isinstance(dealer, str) and dealer in names and hand
        else "",
        "goal_text": f"Game to {to_win}"
        if to_win
        else (f"{per_game} hands a game" if per_game else ""),
        "teams": [
            {
                "team": t,
                "names": teams[t],
                "score": score.get(t, 0),
                "tricks": tricks.get(t, 0),
                "games": games.get(t) if games else None,
                "won": winner.get("team") == t,
            }
            for t in TEAMS
        ],
        "trump_words": trump_words,
        "upcard_words": up_words,
        "trick_text": f"Trick {trick.get('number')}" if trick.get("number") else "",
        "plays": plays,
        "names": names,
        "team_names": teams,
    }


# --- standings ------------------------------------------------------------------------


def bracket_rows(event: HallEvent) -> list[BracketLine]:
    """A bracket before its champion: the matches of the round being played."""
    names = {t["id"]: t["name"] for t in event.get("teams") or []}
    for rnd in event.get("bracket") or []:
        matches = rnd["matches"]
        if any(m["winner"] is None and not m["bye"] for m in matches):
            out: list[BracketLine] = []
            for m in matches:
                top, bottom = m["top"], m["bottom"]
                top_name = None if top is None else names.get(top)
                bottom_name = None if bottom is None else names.get(bottom)
                won = (m["games"].count(top or ""), m["games"].count(bottom or ""))
                out.append(
                    {
                        "place": "",
                        "name": f"{top_name or 'to be decided'} v {bottom_name or 'to be decided'}",
                        "detail": rnd["name"],
                        "value": f"{won[0]}–{won[1]}",
                        "more": "",
                    }
                )
            return out
    return []


def seating_words(event: HallEvent, titles: Mapping[str, str]) -> HallSeating | None:
    """The round's seating, for the players looking for their table: each of the
    event's tables ("Table 2", or the table that plays it by its name) and who sits
    where; ``titles`` the tables' names by id. None before an event or its seating."""
    seating = event.get("seating")
    tables = [] if seating is None else seating["tables"]
    if seating is None or not tables:
        return None
    rows: list[SeatedTable] = []
    for t in tables:
        feed = t["feed"]
        title = titles.get(feed, feed) if feed else f"Table {t['table']}"
        seats = t["seats"]
        if set(seats) <= set(TEAMS):
            text = " v ".join(str(seats[k]) for k in TEAMS if k in seats)
        else:
            text = ", ".join(
                f"{SEAT_NAMES[Seat.parse(k)]} {v}"
                for k, v in seats.items()
                if k in {s.name for s in Seat}
            )
        rows.append({"title": title, "text": text})
    byes = [str(b) for b in seating["byes"]]
    return {
        "heading": f"Round {seating['round']}: where to sit",
        "tables": rows,
        "byes": f"Sitting out: {', '.join(byes)}" if byes else "",
    }


def standings_heading(event: Mapping[str, object]) -> str:
    if event.get("format") == "bracket":
        return "Champion" if event.get("champion") else "The bracket"
    return "Standings"


def round_text(event: Mapping[str, object]) -> str:
    """The event's round for the screen's header ("Round 2 of 4"), "" when none."""
    rnd, rounds = event.get("round"), event.get("rounds")
    return f"Round {rnd} of {rounds}" if rnd and rounds else ""


__all__ = [
    "BracketLine",
    "FaceWords",
    "HallEvent",
    "HallSeating",
    "HallTable",
    "NewsLine",
    "PlayWords",
    "PublicFields",
    "PublicPicture",
    "PublicSeat",
    "SeatedTable",
    "TableWords",
    "TeamWords",
    "TrumpWords",
    "UpcardWords",
    "bracket_rows",
    "game_text",
    "hand_text",
    "news_text",
    "round_text",
    "seat_names",
    "seating_words",
    "standings_heading",
    "table_title",
    "table_words",
    "team_names",
]
