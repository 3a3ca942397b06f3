"""001's team event: 12-hand rounds, losers rotate, the top two play off."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.director.tournament.formats import FormatError, RoundsEvent, load


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


def _four_teams_ready_for_the_final() -> RoundsEvent:
    """One round: A 9, B 5, C 7, D 4, so the final is A v C."""
    ev = RoundsEvent(["A", "B", "C", "D"], rounds=1)
    ev.record(1, 1, (9, 5))
    ev.record(1, 2, (7, 4))
    assert ev.next_step().teams == ("A", "C")
    return ev


def test_final_names_the_champion() -> None:
    # 001 s18: "The top two scoring teams will face off for the championship. Same format
    # will occur." (s5: "Each match consists of 12 hands.")
    ev = _four_teams_ready_for_the_final()
    assert ev.champion() is None and ev.placings() == ev.standings()
    ev.record_final("C", "A", (14, 10))  # either order; kept in the standings' order
    assert ev.final is not None and ev.final.points == (10, 14)
    assert ev.champion() == "C" and ev.final.runner_up == "A"
    table = ev.placings()
    assert [(s.place, s.team, s.final) for s in table] == [
        (1, "C", "champion"),
        (2, "A", "runner-up"),
        (3, "B", None),
        (4, "D", None),
    ]
    assert [s.team for s in ev.standings()] == ["A", "C", "B", "D"]  # the rounds' own
    again = load(ev.to_json())
    assert isinstance(again, RoundsEvent) and again.champion() == "C"
    assert again.to_json() == ev.to_json()


def test_a_tied_final_is_played_off_as_s19_says() -> None:
    # 001 s19: "If a tie occurs, a four (4) hand playoff will take place between the two
    # teams. If the game is still tied, a sudden death hand will occur." (after s18's
    # final, "Same format will occur")
    ev = _four_teams_ready_for_the_final()
    with pytest.raises(FormatError, match="tied at 12: 001 s19 plays a four-hand playoff"):
        ev.record_final("A", "C", (12, 12))
    with pytest.raises(FormatError, match="still tied at 2: .* sudden-death hand"):
        ev.record_final("A", "C", (12, 12), (2, 2))
    with pytest.raises(FormatError, match=r"not tied \(13 to 11\), so there is no tie-break"):
        ev.record_final("A", "C", (13, 11), (3, 1))
    with pytest.raises(FormatError, match="add up to 4 to 20"):
        ev.record_final("A", "C", (12, 12), (1, 0))  # 4 hands score at least 4
    assert ev.final is None
    ev.record_final("A", "C", (12, 12), (8, 12))  # 8-8 (loners), then C's loner
    assert ev.champion() == "C"
    assert ev.final is not None and ev.final.to_json() == {
        "teams": ["A", "C"],
        "points": [12, 12],
        "tiebreak": [8, 12],
        "winner": "C",
    }
    assert load(ev.to_json()).to_json() == ev.to_json()


def test_final_refuses_bad_entries_in_words() -> None:
    ev = RoundsEvent(["A", "B", "C", "D"], rounds=1)
    with pytest.raises(FormatError, match="rounds are not all recorded"):
        ev.record_final("A", "C", (10, 8))
    ev.record(1, 1, (9, 5))
    ev.record(1, 2, (5, 3))  # B and C tied for second
    with pytest.raises(FormatError, match="finalists are not known yet: B, C are tied"):
        ev.record_final("A", "B", (10, 8))
    ev.record_playoff("B", "C", (3, 1))
    with pytest.raises(FormatError, match="'C' is not in the final: it is A v B"):
        ev.record_final("A", "C", (10, 8))
    with pytest.raises(FormatError, match="between two teams"):
        ev.record_final("A", "A", (10, 8))
    with pytest.raises(FormatError, match="whole numbers 0 or more"):
        ev.record_final("A", "B", (-1, 14))
    with pytest.raises(FormatError, match="add up to 12 to 48"):
        ev.record_final("A", "B", (5, 4))  # every hand scores: 12 hands, 12 points or more
    with pytest.raises(FormatError, match="nothing to correct"):
        ev.record_final("A", "B", (10, 8), correct=True)
    ev.record_final("A", "B", (10, 8))
    with pytest.raises(FormatError, match="already recorded"):
        ev.record_final("A", "B", (8, 10))
    with pytest.raises(FormatError, match="as recorded already"):
        ev.record_final("B", "A", (8, 10), correct=True)
    ev.record_final("A", "B", (8, 10), correct=True)
    assert ev.champion() == "B"
    # Under a recorded final the standings it came from cannot change, until it is cleared.
    with pytest.raises(FormatError, match="Clear the final first"):
        ev.record(1, 2, (5, 2))
    with pytest.raises(FormatError, match="Clear the final first"):
        ev.record_playoff("B", "C", (0, 1))
    ev.clear_final()
    assert ev.champion() is None
    with pytest.raises(FormatError, match="nothing to clear"):
        ev.clear_final()
    ev.record(1, 2, (5, 2))


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
