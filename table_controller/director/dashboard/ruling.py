"""What the director's ruling form offers, in words, and what a ruling sent changed.

Why a part of its own: a director called to a renege must not be asked for what the
alert already knows. Opened from a renege's alert, the form comes filled: which team the
penalty moved points for and how many (read from the stored event that proved it, as
the table scored it: given to the other side, or taken from the offenders), the game
and hand, and what each choice does ("Dismiss: East–West (Bo & Di) lose the 2 points
the renege gave them (−2)"). The director still chooses the ruling and may change any
field. Teams are named by their players, never by a code (NS, EW).

A ruling is audited with who decided it and why (``store.rulings``): the reason stays
required. Upholding a proven renege has its why in the proof, so that reason is offered
filled in (the renege's sentence); any other ruling's why is the director's own finding
(a card misread, a claim withdrawn), which no alert knows: the form asks for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict, cast

from table_controller.director.json_value import JSONObject, JSONValue
from table_controller.director.store import AlertRow, DirectorStore, RulingRow, StoredEvent
from table_controller.director.words import (
    TEAM_SEATS,
    TEAM_WORDS,
    renege_event,
    seat_label,
    table_title,
)
from table_controller.errors import TableControllerError
from table_controller.present import RULING_DONE, renege_sentence, signed_points

KINDS = ("confirm_renege", "dismiss_renege", "adjust_score", "void_hand")
RENEGE_ALERTS = ("renege_proven", "renege_claimed")


class RulingError(TableControllerError, ValueError):
    """A ruling that cannot be made as asked: what is missing and what to do. Kept with
    the form it refuses (the service raises it, the dashboard's route answers it), so
    the dashboard's routes need nothing of the service but its sending."""


class TeamChoice(TypedDict):
    team: str  # the value sent (NS, EW); never shown
    text: str  # "North–South (Ann & Cy)"


class KindChoice(TypedDict):
    kind: str
    text: str  # what choosing it does, in words


class Fill(TypedDict):
    """A choice's fields as the form fills them (None: the director gives it)."""

    team: str | None
    points: int | None
    reason: str  # "" when the director must write it
    placeholder: str  # the reason's hint


class RulingForm(TypedDict):
    table: str
    title: str
    alert: int | None
    team: str | None  # what a dismissal moves: the team...
    points: int | None  # ...and its points (negative: taken away)
    game: int | None  # where the alert's event was
    hand: int | None
    where_text: str  # the hand, and where the table is now
    kinds: list[KindChoice]
    teams: list[TeamChoice]
    fill: dict[str, Fill]


@dataclass(frozen=True)
class Penalty:
    """What a renege did to the score, as the table scored it."""

    team: str  # NS or EW: the team whose score it moved
    points: int  # +2: given to them; -2: taken from them
    seat: str  # the offender
    hand: int  # the hand it was in
    sentence: str  # the renege in words, the offender by name


def team_text(players: Mapping[str, str], team: str) -> str:
    """A team in words with its players: "North–South (Ann & Cy)"."""
    names = [players[s] for s in TEAM_SEATS[team] if players.get(s)]
    side = TEAM_WORDS[team]
    return f"{side} ({' & '.join(names)})" if len(names) == 2 else side


def renege_penalty(
    alert: AlertRow, events: Sequence[StoredEvent], players: Mapping[str, str]
) -> Penalty | None:
    """The penalty of the renege an alert is about, from the stored events: a renege
    proven names its own event; a claim is judged when its hand is complete, so its
    renege is found in a later event of the game (None: not proven, or no points)."""
    seq = alert.get("seq")
    accused = None
    start = next((i for i, e in enumerate(events) if e["seq"] == seq), None)
    if start is None:
        return None
    if alert.get("kind") == "renege_claimed":
        accused = events[start]["input"].get("against")
    for ev in events[start:] if accused else events[start : start + 1]:
        outputs = [o for o in ev["outputs"] if isinstance(o, dict)]
        proven = next((o for o in outputs if o.get("event") == "renege_proven"), None)
        if proven is None or (accused and proven.get("seat") != accused):
            continue
        found = renege_event(proven)
        if found is None:
            return None
        seat = found.seat.name
        offenders = "NS" if seat in ("N", "S") else "EW"
        others = "EW" if offenders == "NS" else "NS"
        sentence = renege_sentence(found, seat_label(players, found.seat))
        for o in outputs:
            if o.get("event") == "penalty_scored" and o.get("reason") == "renege":
                team, points = str(o.get("team")), o.get("points")
                if team in TEAM_WORDS and isinstance(points, int) and points:
                    return Penalty(team, points, seat, found.hand, sentence)
            if o.get("event") == "hand_scored":
                # the points as the table sent them: a pair of numbers
                pts = cast("list[JSONValue]", o.get("points") or [0, 0])
                got = pts[0] if others == "NS" else pts[1]
                if isinstance(got, int) and got:
                    return Penalty(others, got, seat, found.hand, sentence)
        return None
    return None


def _kinds(
    penalty: Penalty | None, players: Mapping[str, str], position: tuple[int, int | None] | None
) -> list[KindChoice]:
    in_play = (
        f" (game {position[0]}, hand {position[1]})"
        if position is not None and position[1] is not None
        else ""
    )
    words = {
        "confirm_renege": "Uphold the renege: its penalty stands, the score does not change",
        "dismiss_renege": "Dismiss the renege: give back its penalty (choose the team and "
        "the points)",
        "adjust_score": "Adjust the score: give or take points (choose the team and the points)",
        "void_hand": f"Void the hand in play{in_play}: it is thrown in and the same dealer "
        "deals again",
    }
    if penalty is not None:
        who, n = team_text(players, penalty.team), abs(penalty.points)
        pts = "1 point" if n == 1 else f"{n} points"
        if penalty.points > 0:
            words["confirm_renege"] = f"Uphold: {who} keep the {pts} the renege gave them"
            words["dismiss_renege"] = (
                f"Dismiss: {who} lose the {pts} the renege gave them "
                f"({signed_points(-penalty.points)})"
            )
        else:
            words["confirm_renege"] = f"Uphold: {who} stay {pts} down, the renege's penalty"
            words["dismiss_renege"] = (
                f"Dismiss: {who} get back the {pts} the renege cost them "
                f"({signed_points(-penalty.points)})"
            )
        words["adjust_score"] = "Adjust the score another way: choose the team and the points"
    return [{"kind": k, "text": words[k]} for k in KINDS]


def _where(
    title: str, game: int | None, hand: int | None, position: tuple[int, int | None] | None
) -> str:
    """The hand the alert is about, and where the table is now: a score ruling moves
    points in the game the table is playing, which may no longer be the renege's."""
    said = f"The renege: game {game}, hand {hand}." if game and hand else ""
    if position is None:
        return (
            f"{said} {title} has not said which game and hand it is playing: a ruling "
            "can be sent once it has (its card on the dashboard shows it)."
        ).strip()
    now_game, now_hand = position
    now = f"game {now_game}" + (f", hand {now_hand}" if now_hand is not None else "")
    if game is not None and now_game != game:
        return (
            f"{said} {title} has started game {now_game} since: a score ruling now changes "
            f"game {now_game}'s score, not game {game}'s. To correct game {game}'s result, "
            "correct it in the event's results."
        ).strip()
    at = "still at that hand" if hand is not None and now_hand == hand else f"now at {now}"
    return f"{said} {title} is {at}: the points move in this game's score.".strip()


def ruling_form(store: DirectorStore, table: str, alert: AlertRow | None = None) -> RulingForm:
    """The ruling form for ``table``, filled from ``alert`` when it is opened from one."""
    status = next((t for t in store.tables.tables() if t["table"] == table), None)
    players: dict[str, str] = (status["players"] if status is not None else None) or {}
    title = table_title(table, status["name"] if status is not None else None)
    position = store.tables.table_position(table)
    game = alert.get("game") if alert is not None else None
    penalty = None
    if alert is not None and alert.get("kind") in RENEGE_ALERTS and isinstance(game, int):
        penalty = renege_penalty(alert, store.events.events(table, game), players)
    hand = None if penalty is None else penalty.hand
    ask = "why, in a few words"
    fill: dict[str, Fill] = {
        k: {"team": None, "points": None, "reason": "", "placeholder": ask} for k in KINDS
    }
    fill["dismiss_renege"]["placeholder"] = "why the renege does not stand, e.g. a card misread"
    if penalty is not None:
        fill["confirm_renege"]["reason"] = f"The renege is proven: {penalty.sentence}"
        fill["dismiss_renege"]["team"] = fill["adjust_score"]["team"] = penalty.team
        fill["dismiss_renege"]["points"] = -penalty.points
    return {
        "table": table,
        "title": title,
        "alert": None if alert is None else int(alert["id"]),
        "team": None if penalty is None else penalty.team,
        "points": None if penalty is None else -penalty.points,
        "game": game if isinstance(game, int) else None,
        "hand": hand,
        "where_text": _where(title, game if isinstance(game, int) else None, hand, position)
        if alert is not None
        else _where(title, None, None, position),
        "kinds": [
            k
            for k in _kinds(penalty, players, position)
            if alert is None
            or alert.get("kind") in RENEGE_ALERTS
            or k["kind"] not in ("confirm_renege", "dismiss_renege")
        ],  # an alert of another kind (a card not taken, a table offline): no renege
        "teams": [{"team": t, "text": team_text(players, t)} for t in ("NS", "EW")],
        "fill": fill,
    }


def ruling_text(ruling: RulingRow, players: Mapping[str, str]) -> str:
    """A ruling sent, as the table's detail lists it: what the director did and what it
    changed ("Dismissed the renege: East–West (Bo & Di) −2")."""
    done = RULING_DONE.get(str(ruling.get("kind")), "made a ruling")
    said = done[0].upper() + done[1:]
    found = (ruling.get("payload") or {}).get("event")
    event: JSONObject = found if isinstance(found, dict) else {}
    team, points = event.get("team"), event.get("points")
    if (
        event.get("event") == "score_adjusted"
        and isinstance(team, str)
        and team in TEAM_WORDS
        and isinstance(points, int)
    ):
        return f"{said}: {team_text(players, team)} {signed_points(points)}"
    if event.get("event") == "hand_voided":
        return f"{said}: it was thrown in, the same dealer deals again"
    return f"{said}: the score did not change"


__all__ = [
    "KINDS",
    "Fill",
    "KindChoice",
    "Penalty",
    "RulingError",
    "RulingForm",
    "TeamChoice",
    "renege_penalty",
    "ruling_form",
    "ruling_text",
    "team_text",
]
