"""Single-elimination brackets, best two of three (000 s4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.director.tournament.formats import Bracket, FormatError, load, seed_order


def test_seed_order_keeps_top_seeds_apart() -> None:
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = seed_order(16)
    assert order[:2] == [1, 16] and sorted(order) == list(range(1, 17))


def test_best_two_of_three() -> None:
    # 000 s4: "single elimination tournament, with opponents playing best
    # two-out-of-three games".
    b = Bracket(["A", "B", "C", "D"])
    assert [(m.top, m.bottom) for m in b.rounds[0]] == [("A", "D"), ("B", "C")]
    b.record_game("R1-M1", "D")
    assert b.match("R1-M1").winner is None
    b.record_game("R1-M1", "A")
    b.record_game("R1-M1", "A")
    assert b.match("R1-M1").winner == "A"
    assert b.match("R2-M1").top == "A"
    # A game too many: the director is told which dashboard form corrects a match.
    with pytest.raises(FormatError, match='already won by A. .* "Correct a match" form') as e:
        b.record_game("R1-M1", "A")
    assert "set_result" not in str(e.value)
    with pytest.raises(FormatError, match="waiting"):
        b.record_game("R2-M1", "A")
    b.record_game("R1-M2", "C")
    b.record_game("R1-M2", "C")
    with pytest.raises(FormatError, match="does not play"):
        b.record_game("R2-M1", "B")
    b.record_game("R2-M1", "C")
    b.record_game("R2-M1", "C")
    assert b.champion() == "C"
    assert [r["name"] for r in b.printable()] == ["Semi-finals", "Final"]


def test_byes_go_to_top_seeds() -> None:
    b = Bracket(["S1", "S2", "S3", "S4", "S5", "S6"])
    assert b.size == 8
    byes = [m for m in b.rounds[0] if m.bye]
    assert [m.winner for m in byes] == ["S1", "S2"]
    assert {m.id for m in b.playable()} == {"R1-M2", "R1-M4"}


def test_correction_and_json_round_trip() -> None:
    b = Bracket(["A", "B", "C"])
    b.record_game("R1-M2", "B")
    b.record_game("R1-M2", "B")
    b.set_result("R1-M2", ["C", "B", "C"])
    assert b.match("R2-M1").bottom == "C"
    again = load(b.to_json())
    assert isinstance(again, Bracket) and again.printable() == b.printable()


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.data())
def test_always_one_champion(n: int, data: st.DataObject) -> None:
    entrants = [f"T{i}" for i in range(n)]
    b = Bracket(entrants)
    games = 0
    while b.champion() is None:
        m = b.playable()[0]
        assert m.top is not None and m.bottom is not None
        b.record_game(m.id, data.draw(st.sampled_from([m.top, m.bottom])))
        games += 1
        assert games <= 3 * n
    assert b.champion() in entrants
    decided = [m for rnd in b.rounds for m in rnd if not m.bye]
    assert len(decided) == n - 1  # every match knocks exactly one entrant out
    assert all(m.games.count(m.winner) == 2 and len(m.games) <= 3 for m in decided)
