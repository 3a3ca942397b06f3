"""001's team event: 12-hand rounds, losers rotate, the top two play off."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.director.formats import FormatError, RoundsEvent, load


def test_losers_rotate_winners_stay() -> None:
    # 001 s15: "The losing team from each table will rotate after each round."
    ev = RoundsEvent(["A", "B", "C", "D", "E", "F"])
    assert ev.tables(1) == [("A", "B"), ("C", "D"), ("E", "F")]
    with pytest.raises(FormatError, match="still to report"):
        ev.tables(2)
    ev.record(1, 1, (8, 5))  # A wins
    ev.record(1, 2, (3, 9))  # D wins
    ev.record(1, 3, (7, 6))  # E wins
    # winners stay; loser of table i moves to table i + 1 (last to first)
    assert ev.tables(2) == [("A", "F"), ("D", "B"), ("E", "C")]


def test_a_tied_match_needs_its_playoff_winner() -> None:
    # 001 s19: "If a tie occurs, a four (4) hand playoff will take place between the two
    # teams. If the game is still tied, a sudden death hand will occur."
    ev = RoundsEvent(["A", "B"], rounds=1)
    with pytest.raises(FormatError, match="4 more hands"):
        ev.record(1, 1, (6, 6))
    with pytest.raises(FormatError, match="tables 1 to 1"):
        ev.record(1, 2, (6, 5))
    ev.record(1, 1, (6, 6), winner=1)
    table = ev.standings()
    # standings rank by points (s18 "top two scoring teams"): equal points share a place
    assert [(s.place, s.points, s.wins) for s in table] == [(1, 6, 0), (1, 6, 1)]


def _play(ev: RoundsEvent, scores: dict[str, int]) -> None:
    """Record every round with fixed points per team (higher wins)."""
    for r in range(1, ev.rounds + 1):
        for t, (a, b) in enumerate(ev.tables(r), start=1):
            pa, pb = scores[a], scores[b]
            ev.record(r, t, (pa, pb), None if pa != pb else 0)


def test_top_two_play_the_final() -> None:
    # 001 s18: "The top two scoring teams will face off for the championship. Same format
    # will occur."
    ev = RoundsEvent(["A", "B", "C", "D"], rounds=3)
    _play(ev, {"A": 9, "B": 2, "C": 7, "D": 4})
    step = ev.next_step()
    assert step.kind == "final" and set(step.teams) == {"A", "C"} and step.hands == 12


def test_two_tied_for_second_play_four_hands() -> None:
    # 001 s19 (a tie between two teams: four hands, then sudden death).
    ev = RoundsEvent(["A", "B", "C", "D"], rounds=1)
    ev.record(1, 1, (9, 5))
    ev.record(1, 2, (5, 3))
    step = ev.next_step()
    assert step.kind == "tie_playoff" and set(step.teams) == {"B", "C"} and step.hands == 4
    ev.record_playoff("B", "C", (2, 2))
    assert ev.next_step().kind == "sudden_death"
    ev.record_playoff("C", "B", (1, 0))
    final = ev.next_step()
    assert final.kind == "final" and final.teams == ("A", "C")


def test_three_tied_play_a_round_robin() -> None:
    # 001 s20: "If more than two (2) teams are tied at the end of 36 hands, a four (4)
    # hand round robin playoff will occur."
    ev = RoundsEvent(["A", "B", "C", "D", "E", "F"], rounds=1)
    for t in (1, 2, 3):
        ev.record(1, t, (6, 2))
    step = ev.next_step()
    assert step.kind == "round_robin" and set(step.teams) == {"A", "C", "E"}
    assert len(step.matches) == 3 and step.hands == 4
    ev.record_playoff("A", "C", (3, 1))
    ev.record_playoff("A", "E", (2, 2))
    ev.record_playoff("C", "E", (1, 3))
    final = ev.next_step()  # A 5, E 5, C 2: both through
    assert final.kind == "final" and set(final.teams) == {"A", "E"}


def test_odd_teams_sit_out_in_turn_and_rank_by_average() -> None:
    ev = RoundsEvent(["A", "B", "C", "D", "E"], rounds=3)
    assert ev.bye(1) == "E"
    _play(ev, {"A": 9, "B": 1, "C": 5, "D": 6, "E": 4})
    byes = [ev.bye(r) for r in (1, 2, 3)]
    assert len(set(byes)) == 3
    table = ev.standings()
    assert table[0].team == "A"
    assert {s.rounds_played for s in table} == {2, 3}
    assert load(ev.to_json()).to_json() == ev.to_json()


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 15), st.integers(1, 4), st.data())
def test_every_team_seated_once_a_round(n: int, rounds: int, data: st.DataObject) -> None:
    teams = [f"T{i}" for i in range(n)]
    ev = RoundsEvent(teams, rounds=rounds)
    for r in range(1, rounds + 1):
        seated = [t for pair in ev.tables(r) for t in pair]
        bye = ev.bye(r)
        assert sorted(seated + ([bye] if bye else [])) == sorted(teams)
        assert len(seated) == len(set(seated))
        for i in range(1, len(ev.tables(r)) + 1):
            a, b = data.draw(st.tuples(st.integers(0, 20), st.integers(0, 20)))
            ev.record(r, i, (a, b), data.draw(st.sampled_from([0, 1])) if a == b else None)
    assert ev.complete()
    step = ev.next_step()
    assert step.kind in {"final", "tie_playoff", "round_robin"}
