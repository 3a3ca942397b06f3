"""Progressive events (003): rotation charts, individual scores, standings."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.director.tournament.formats import (
    FormatError,
    ProgressiveEvent,
    Roster,
    load,
    rotation_chart,
    scores_from_game_ended,
)
from table_controller.rules.codec import encode
from table_controller.rules.events import HandScored
from table_controller.transcript import load as load_transcript
from table_controller.transcript import replay

TRANSCRIPTS = Path(__file__).parent / "transcripts"


@pytest.mark.parametrize("n", [8, 12, 16, 20, 24, 32])
def test_full_cycle_partners_everyone_once(n: int) -> None:
    """n - 1 rounds: every pair of players partners exactly once, nobody sits out, and
    opponents spread (each pair meets as opponents at most 4 times; 2 on average)."""
    bal = rotation_chart(n, n - 1).balance()
    assert set(bal.partners.values()) == {1}
    assert set(bal.byes) == {0}
    _, hi = bal.opponent_range
    assert hi <= 4
    assert sum(bal.opponents.values()) == 2 * len(bal.opponents)  # 2 per pair on average


@pytest.mark.parametrize("n", [8, 12, 16, 20, 24, 40])
def test_an_evening_of_8_rounds(n: int) -> None:
    """The usual evening: 8 rounds, all different partners when there are enough players,
    and for 16 or more nobody meets the same opponent three times."""
    bal = rotation_chart(n, 8).balance()
    if n > 8:
        assert bal.max_partner == 1
        assert min(bal.distinct_partners) == 8
    if n >= 16:
        assert bal.opponent_range[1] <= 2


@pytest.mark.parametrize("n", [5, 6, 7, 9, 10, 11, 13, 14, 15])
def test_byes_when_not_a_multiple_of_four(n: int) -> None:
    chart = rotation_chart(n, 8)
    for plan in chart.rounds:
        assert len(plan.byes) == n % 4  # as few as possible
    bal = chart.balance()
    assert max(bal.byes) - min(bal.byes) <= 2
    assert bal.max_partner <= 2


@settings(max_examples=40, deadline=None)
@given(st.integers(4, 41), st.integers(1, 12))
def test_every_round_seats_every_player_once_or_a_bye(n: int, rounds: int) -> None:
    chart = rotation_chart(n, rounds)
    assert len(chart.rounds) == rounds
    for plan in chart.rounds:
        seated = [p for t in plan.tables for p in t] + list(plan.byes)
        assert sorted(seated) == list(range(n))
        assert len(plan.byes) == n % 4
    bal = chart.balance()
    # nobody partners anyone twice until the cycle of partners has run out
    cycle = n - 1 if n % 2 == 0 else n
    if rounds <= cycle:
        assert bal.max_partner == 1


def test_individual_scores_from_a_real_progressive_game() -> None:
    # 003 Scoring: "In a standard progressive event (see definition below), on a lone
    # call, the person making the lone scores 5 points and his partner scores 4 points."
    # The table's engine scores each player; the event adds the players' totals up.
    transcript = load_transcript(TRANSCRIPTS / "003_progressive_loner_5_4.jsonl")
    # The transcript stops after two hands; its last hand_scored carries the running
    # individual totals exactly as game_ended does at the end of the 8 hands.
    scored = [o for _, out in replay(transcript) for o in out if isinstance(o, HandScored)]
    seats = scores_from_game_ended(encode(scored[-1]))
    assert seats == {"N": 1, "E": 5, "S": 1, "W": 4}
    ev = ProgressiveEvent([f"p{i}" for i in range(8)], rounds=7)
    ev.record(1, 1, seats)
    t1 = ev.tables(1)[0]
    totals = {s.player: s.total for s in ev.standings()}
    assert {seat: totals[t1[seat]] for seat in "NESW"} == seats
    with pytest.raises(FormatError, match="td-progressive"):
        scores_from_game_ended({"event": "game_ended", "winner": "NS", "scores": [10, 4]})


def test_standings_and_errors() -> None:
    ev = ProgressiveEvent(["a", "b", "c", "d", "e", "f", "g", "h"], rounds=2)
    with pytest.raises(FormatError, match="tables 1 to 2"):
        ev.record(1, 3, {"N": 1, "E": 1, "S": 1, "W": 1})
    with pytest.raises(FormatError, match="each seat"):
        ev.record(1, 1, {"N": 1, "E": 1})
    with pytest.raises(FormatError, match="rounds 1 to 2"):
        ev.tables(3)
    with pytest.raises(FormatError, match="twice"):
        ProgressiveEvent(["a", "a", "b", "c"], rounds=1)
    ev.record(1, 1, {"N": 5, "E": 2, "S": 4, "W": 2})
    ev.record(1, 2, {"N": 3, "E": 6, "S": 3, "W": 6})
    assert ev.missing(1) == [] and ev.missing(2) == [1, 2]
    table = ev.standings()
    assert [s.total for s in table] == sorted((s.total for s in table), reverse=True)
    assert table[0].total == 6 and table[0].place == table[1].place == 1
    again = load(ev.to_json())
    assert isinstance(again, ProgressiveEvent) and again.standings() == ev.standings()


def test_substitute_credit() -> None:
    roster = Roster()
    for p in "abcdefgh":
        roster.add_player(p, p.upper())
    roster.add_player("z", "Zed")
    ev = ProgressiveEvent(list("abcdefgh"), rounds=2, roster=roster)
    north = ev.tables(1)[0]["N"]
    roster.mark_absent(north)
    with pytest.raises(FormatError, match="set a substitute"):
        ev.seating(1)
    roster.substitute(1, north, "z")
    assert ev.seating(1)[0]["N"] == "z"
    ev.record(1, 1, {"N": 7, "E": 1, "S": 7, "W": 1})
    totals = {s.player: s.total for s in ev.standings()}
    # documented default: the points of the seat go to the absent player's entry
    assert totals[north] == 7
    assert "z" not in totals
