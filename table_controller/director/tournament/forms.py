"""The dashboard's event forms: a form's JSON body turned into the one ``TournamentAdmin``
change it asks for. Kept apart from ``web.py`` (serving, logins, the overview) so each
stays readable; every change still goes through ``TournamentAdmin.change``, so each is in the
append-only ``format_state`` history and the audit log with who and why.

A bad form raises :class:`AdminError` in words (what is wrong, what to do); the route
answers it as a 400.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping

from table_controller.director.json_value import JSONValue
from table_controller.director.tournament.admin import AdminError, TournamentAdmin
from table_controller.director.tournament.final import record_final

Form = Mapping[str, JSONValue]  # a form's JSON body, each field checked as it is read


def _create(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    lines = str(body.get("entrants") or "").splitlines()
    admin.create(
        who,
        str(body.get("format")),
        lines,
        rounds=_int(body.get("rounds"), "rounds", 3),
        best_of=_int(body.get("best_of"), "best of", 3),
        reason=reason,
        name=str(body.get("name") or ""),
    )
    return None


def _absent(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    admin.set_absent(who, str(body.get("player")), bool(body.get("absent", True)), reason)
    return None


def _substitute(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    admin.substitute(
        who,
        _int(body.get("round"), "round", 1),
        str(body.get("absent")),
        str(body.get("substitute") or "").strip(),
        str(body.get("credit") or "absent"),
        reason,
    )
    return None


def _assign(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    places = body.get("places")
    if not isinstance(places, dict):
        raise AdminError('give each table\'s place, e.g. {"club-night-3": "1"}')
    admin.assign_round(
        who,
        _int(body.get("round"), "round", 1),
        {str(k): str(v) for k, v in places.items()},
        reason,
    )
    return None


def _result(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    ended = body.get("result")
    if not isinstance(ended, dict):
        raise AdminError(
            "give the result: scores [NS, EW], and each seat's points in a progressive event"
        )
    return admin.record(
        who, _int(body.get("round"), "round", 1), str(body.get("place")), ended, reason or ""
    )


def _playoff(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    teams, points = body.get("teams"), body.get("points")
    if not (
        isinstance(teams, list)
        and isinstance(points, list)
        and len(teams) == 2
        and len(points) == 2
    ):
        raise AdminError(
            "give the two teams and each one's points, e.g. "
            '{"teams": ["reds", "blues"], "points": [3, 1]}'
        )
    pair = (
        _int(points[0], "the first team's points", None),
        _int(points[1], "the second team's points", None),
    )
    return admin.record_playoff(who, str(teams[0] or ""), str(teams[1] or ""), pair, reason or "")


def _final(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    teams, correct = body.get("teams"), bool(body.get("correct"))
    if not (isinstance(teams, list) and len(teams) == 2):
        raise AdminError(
            "give the two finalists and each one's points, e.g. "
            '{"teams": ["reds", "blues"], "points": [9, 7]}'
        )
    points = _pair(body.get("points"), "points", blank_ok=correct)
    tiebreak = _pair(body.get("tiebreak"), "tie-break points", blank_ok=True)
    return record_final(
        admin,
        who,
        str(teams[0] or ""),
        str(teams[1] or ""),
        points,
        reason or "",
        tiebreak=tiebreak,
        correct=correct,
    )


def _correct_match(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    games = body.get("games")
    if isinstance(games, str):  # as typed: "reds, blues, reds"
        games = [g for g in re.split(r"[,\n]+", games) if g.strip()]
    if not isinstance(games, list):
        raise AdminError(
            "give the match's games: each game's winning team, in order "
            "(none: the match is cleared)"
        )
    return admin.correct_match(
        who, str(body.get("match") or ""), [str(g) for g in games], reason or ""
    )


def _public_delay(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    delay = body.get("seconds")
    try:
        if not isinstance(delay, int | float | str):
            raise TypeError(delay)
        seconds = float(delay)
    except (TypeError, ValueError):
        raise AdminError(f"{delay!r} is not a number of seconds") from None
    admin.set_public_delay(who, seconds, reason)
    return None


def _round_time(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    hands = body.get("hands")
    return admin.set_round_time(
        who,
        _int(body.get("minutes"), "the minutes a round", None),
        None if hands in (None, "") else _int(hands, "the hands a round", None),
        reason,
    )


def _round_start(admin: TournamentAdmin, who: str, body: Form, reason: str | None) -> str | None:
    return admin.start_round_clock(
        who, _int(body.get("minutes_ago"), "how many minutes ago the round began", 0), reason
    )


# Each form's action and what it does; a new form is one function and one line here.
FORMS: dict[str, Callable[[TournamentAdmin, str, Form, str | None], str | None]] = {
    "create": _create,
    "absent": _absent,
    "substitute": _substitute,
    "assign": _assign,
    "result": _result,
    "playoff": _playoff,
    "final": _final,
    "correct_match": _correct_match,
    "public_delay": _public_delay,
    "round_time": _round_time,
    "round_start": _round_start,
}
ACTIONS = tuple(FORMS)


async def apply(admin: TournamentAdmin, who: str, action: str, body: Form) -> str | None:
    """Make the change ``action`` asks for (one of :data:`ACTIONS`), as ``who``; the
    words of what it did, if it has some. Off the event loop: the store's writes wait
    on its lock."""
    form = FORMS.get(action)
    if form is None:
        raise AdminError(f"there is no event action {action!r}: it is one of {', '.join(ACTIONS)}")
    reason = str(body.get("reason") or "").strip() or None
    return await asyncio.to_thread(form, admin, who, body, reason)


def _pair(value: JSONValue, what: str, *, blank_ok: bool) -> tuple[int, int] | None:
    """Two teams' points from a form (None: both left empty, where that is allowed)."""
    if value is None or (isinstance(value, list) and all(v in (None, "") for v in value)):
        if blank_ok:
            return None
        raise AdminError(f"the {what} are missing: write each team's")
    if not (isinstance(value, list) and len(value) == 2):
        raise AdminError(f"give the {what} as two numbers, the first team's then the second's")
    return (
        _int(value[0], f"the first team's {what}", None),
        _int(value[1], f"the second team's {what}", None),
    )


def _int(value: JSONValue, what: str, default: int | None) -> int:
    """A whole number from a form's field (None default: the field is required)."""
    if value in (None, ""):
        if default is None:
            raise AdminError(f"{what} is missing: write a whole number")
        return default
    if isinstance(value, bool):
        raise AdminError(f"{what}: {value!r} is not a whole number")
    try:
        if not isinstance(value, int | float | str):
            raise TypeError(value)
        return int(value)
    except (TypeError, ValueError):
        raise AdminError(f"{what}: {value!r} is not a whole number") from None


__all__ = ["ACTIONS", "apply"]
