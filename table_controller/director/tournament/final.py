"""The 12-hand rounds' final from the dashboard (001 s18), and its champion.

001 s18: "The top two scoring teams will face off for the championship. Same format will
occur." The format (``RoundsEvent.record_final``, whose docstring says how 001 is read:
a 12-hand match, a tie played off as s19 says) checks the result; this module checks
what only the dashboard knows: the rounds are over, the finalists are named by the
standings (after any playoff), the teams as chosen or typed, a reason, and a final
already recorded is only replaced by a correction that says so. Kept apart from
``tournament/admin.py`` so that module stays readable; the change still goes through
``TournamentAdmin.change``, so it is in the append-only ``format_state`` history and the
audit log (``format_final``, ``format_final_corrected``) with who and why.
"""

from __future__ import annotations

from table_controller.director.tournament.admin import (
    AdminError,
    TournamentAdmin,
    TournamentState,
    current_round,
    playoff_words,
    team_of,
    team_words,
)
from table_controller.director.tournament.formats import FinalResult, RoundsEvent


def final_words(state: TournamentState, final: FinalResult) -> str:
    """The final's result in words: both teams' points, any tie-break, the champion."""
    (a, b), (pa, pb) = final.teams, final.points
    tie = (
        ""
        if final.tiebreak is None
        else (f" (tied; tie-break {final.tiebreak[0]} to {final.tiebreak[1]}, 001 s19)")
    )
    return (
        f"the final: {team_words(state, a)} {pa}, {team_words(state, b)} {pb}{tie}; "
        f"champion {team_words(state, final.winner)}"
    )


def apply_final(
    state: TournamentState,
    a: str,
    b: str,
    points: tuple[int, int] | None,
    tiebreak: tuple[int, int] | None = None,
    *,
    correct: bool = False,
) -> str:
    """Record the final's result (pure), or with ``correct`` replace it; a correction
    with no ``points`` clears it (a round's result or a playoff can then be corrected,
    as they cannot under a recorded final)."""
    ev = state.event
    if not isinstance(ev, RoundsEvent):
        raise AdminError(
            "a final is recorded only in a 12-hand rounds event: "
            + (
                "create it first"
                if ev is None
                else f"this event is a {ev.to_json()['format']} event, whose "
                "standings name its winner"
            )
        )
    rnd = current_round(state)
    if rnd is not None:
        raise AdminError(
            f"the rounds are not over: round {rnd} still has results to come. "
            "The final is between the top two after the last round (001 s18): "
            "record the rounds' results first"
        )
    old = ev.final
    if points is None:
        if not correct:
            raise AdminError(
                "give both finalists' points (no points only clears a final "
                "recorded, as a correction)"
            )
        if old is None:
            raise AdminError("no final is recorded yet, so there is nothing to clear")
        ev.clear_final()
        return f"the final cleared (it was {final_words(state, old)})"
    step = ev.next_step()
    if step.kind != "final":
        raise AdminError(
            f"the finalists are not known yet: the standings call for "
            f"{playoff_words(state, step)} first. Record it with the playoff "
            "form; the final comes after"
        )
    ta = team_of(state, a, step.teams, "in the final")
    tb = team_of(state, b, step.teams, "in the final")
    if ta == tb:
        raise AdminError(
            f"the final is between {team_words(state, step.teams[0])} and "
            f"{team_words(state, step.teams[1])}: choose each one once"
        )
    if old is not None and not correct:
        raise AdminError(
            f"the final is already recorded ({final_words(state, old)}). If it "
            'was recorded wrongly, tick "This corrects the final" on the final '
            "form, give the right points and say why"
        )
    if old is None and correct:
        raise AdminError(
            "no final is recorded yet, so there is nothing to correct: untick "
            '"This corrects the final" to record it'
        )
    ev.record_final(ta, tb, points, tiebreak, correct=correct)  # FormatError: in words
    assert ev.final is not None
    done = final_words(state, ev.final)
    return done if old is None else f"{done} (corrected; it was {final_words(state, old)})"


def record_final(
    admin: TournamentAdmin,
    who: str,
    a: str,
    b: str,
    points: tuple[int, int] | None,
    reason: str,
    *,
    tiebreak: tuple[int, int] | None = None,
    correct: bool = False,
) -> str:
    """The final entered from the score card by ``who``, saved through
    ``TournamentAdmin.change`` (a reason is required: it is kept with the change)."""
    if not reason.strip():
        what = "a correction of the final" if correct else "the final's result"
        raise AdminError(f"{what} needs a reason (e.g. 'score card'): say why")
    return str(
        admin.change(
            who,
            "final_corrected" if correct else "final",
            reason,
            lambda s: apply_final(s, a, b, points, tiebreak, correct=correct),
        )
    )


__all__ = ["apply_final", "final_words", "record_final"]
