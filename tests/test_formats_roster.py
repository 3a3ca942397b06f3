"""Players, teams, absentees and substitutes."""

from __future__ import annotations

import pytest

from table_controller.director.tournament.formats import FormatError, Roster


def roster() -> Roster:
    r = Roster()
    for i, name in enumerate(["Ann", "Bob", "Cy", "Di", "Ed"]):
        r.add_player(f"p{i}", name)
    return r


def test_teams_need_two_different_free_players() -> None:
    r = roster()
    r.add_team("t1", "Aces", ("p0", "p1"))
    with pytest.raises(FormatError, match="already plays in team 't1'"):
        r.add_team("t2", "Kings", ("p1", "p2"))
    with pytest.raises(FormatError, match="twice"):
        r.add_team("t3", "Q", ("p2", "p2"))
    with pytest.raises(FormatError, match="add them to the roster"):
        r.add_team("t4", "J", ("p2", "zz"))
    assert r.team_of("p0") is not None and r.team_of("p4") is None


def test_substitute_takes_the_seat_for_one_round() -> None:
    r = roster()
    r.mark_absent("p0")
    assert r.present() == ["p1", "p2", "p3", "p4"]
    with pytest.raises(FormatError, match="marked absent"):
        r.check_seating(1, ["p0", "p1"])
    r.substitute(1, "p0", "p4")
    r.check_seating(1, ["p0", "p1"])
    assert r.sitting(1, "p0") == "p4" and r.sitting(2, "p0") == "p0"
    assert r.credited(1, "p0") == "p0"  # the documented default
    with pytest.raises(FormatError, match="sit twice"):
        r.check_seating(1, ["p0", "p4"])
    with pytest.raises(FormatError, match="already has a substitute"):
        r.substitute(1, "p0", "p3")
    r.remove_substitute(1, "p0")
    r.substitute(1, "p0", "p3", credit="substitute")
    assert r.credited(1, "p0") == "p3"


def test_json_round_trip() -> None:
    r = roster()
    r.add_team("t1", "Aces", ("p0", "p1"))
    r.mark_absent("p2")
    r.substitute(3, "p2", "p4", credit="substitute")
    assert Roster.from_json(r.to_json()).to_json() == r.to_json()
    with pytest.raises(FormatError, match="malformed"):
        Roster.from_json({"players": [{"name": "x"}]})
