"""The dashboard's event forms: a form's JSON body turned into the one ``EventsAdmin``
change it asks for. Kept apart from ``web.py`` (serving, logins, the overview) so each
stays readable; every change still goes through ``EventsAdmin.change``, so each is in the
append-only ``format_state`` history and the audit log with who and why.

A bad form raises :class:`AdminError` in words (what is wrong, what to do); the route
answers it as a 400.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

from table_controller.director.event_final import record_final
from table_controller.director.events_admin import AdminError, EventsAdmin

ACTIONS = (
    "create",
    "absent",
    "substitute",
    "assign",
    "result",
    "playoff",
    "final",
    "correct_match",
    "public_delay",
)


async def apply(admin: EventsAdmin, who: str, action: str, body: Mapping[str, Any]) -> str | None:
    """Make the change ``action`` asks for (one of :data:`ACTIONS`), as ``who``; the
    words of what it did, if it has some. Off the event loop: the store's writes wait
    on its lock."""
    reason = str(body.get("reason") or "").strip() or None
    if action == "create":
        lines = str(body.get("entrants") or "").splitlines()
        await asyncio.to_thread(
            admin.create,
            who,
            str(body.get("format")),
            lines,
            rounds=_int(body.get("rounds"), "rounds", 3),
            best_of=_int(body.get("best_of"), "best of", 3),
            reason=reason,
        )
    elif action == "absent":
        await asyncio.to_thread(
            admin.set_absent, who, str(body.get("player")), bool(body.get("absent", True)), reason
        )
    elif action == "substitute":
        await asyncio.to_thread(
            admin.substitute,
            who,
            _int(body.get("round"), "round", 1),
            str(body.get("absent")),
            str(body.get("substitute") or "").strip(),
            str(body.get("credit") or "absent"),
            reason,
        )
    elif action == "assign":
        places = body.get("places")
        if not isinstance(places, dict):
            raise AdminError('give each table\'s place, e.g. {"club-night-3": "1"}')
        await asyncio.to_thread(
            admin.assign_round,
            who,
            _int(body.get("round"), "round", 1),
            {str(k): str(v) for k, v in places.items()},
            reason,
        )
    elif action == "result":
        ended = body.get("result")
        if not isinstance(ended, dict):
            raise AdminError(
                "give the result: scores [NS, EW], and each seat's points in a progressive event"
            )
        return await asyncio.to_thread(
            admin.record,
            who,
            _int(body.get("round"), "round", 1),
            str(body.get("place")),
            ended,
            reason or "",
        )
    elif action == "playoff":
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
        return await asyncio.to_thread(
            admin.record_playoff, who, str(teams[0] or ""), str(teams[1] or ""), pair, reason or ""
        )
    elif action == "final":
        teams, correct = body.get("teams"), bool(body.get("correct"))
        if not (isinstance(teams, list) and len(teams) == 2):
            raise AdminError(
                "give the two finalists and each one's points, e.g. "
                '{"teams": ["reds", "blues"], "points": [9, 7]}'
            )
        points = _pair(body.get("points"), "points", blank_ok=correct)
        tiebreak = _pair(body.get("tiebreak"), "tie-break points", blank_ok=True)
        return await asyncio.to_thread(
            record_final,
            admin,
            who,
            str(teams[0] or ""),
            str(teams[1] or ""),
            points,
            reason or "",
            tiebreak=tiebreak,
            correct=correct,
        )
    elif action == "correct_match":
        games = body.get("games")
        if isinstance(games, str):  # as typed: "reds, blues, reds"
            games = [g for g in re.split(r"[,\n]+", games) if g.strip()]
        if not isinstance(games, list):
            raise AdminError(
                "give the match's games: each game's winning team, in order "
                "(none: the match is cleared)"
            )
        return await asyncio.to_thread(
            admin.correct_match,
            who,
            str(body.get("match") or ""),
            [str(g) for g in games],
            reason or "",
        )
    elif action == "public_delay":
        delay = body.get("seconds")
        try:
            seconds = float(delay)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise AdminError(f"{delay!r} is not a number of seconds") from None
        await asyncio.to_thread(admin.set_public_delay, who, seconds, reason)
    else:
        raise AdminError(f"there is no event action {action!r}: it is one of {', '.join(ACTIONS)}")
    return None


def _pair(value: Any, what: str, *, blank_ok: bool) -> tuple[int, int] | None:
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


def _int(value: Any, what: str, default: int | None) -> int:
    """A whole number from a form's field (None default: the field is required)."""
    if value in (None, ""):
        if default is None:
            raise AdminError(f"{what} is missing: write a whole number")
        return default
    if isinstance(value, bool):
        raise AdminError(f"{what}: {value!r} is not a whole number")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise AdminError(f"{what}: {value!r} is not a whole number") from None


__all__ = ["ACTIONS", "apply"]
