"""The event's format run from the director's store: real simulated progressive games'
results arrive as feed messages and land in the round and table each feed table was
assigned; absentees and substitutes; a director's correction kept in the append-only
history; a bracket advancing from game results; a restarted director loses nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import export_event
import pytest
from playwright.sync_api import Browser, Page, expect
from test_director_web import PASSWORD, Served, log_in_page, post

from table_controller.director.store import DirectorStore, StoreError
from table_controller.director.tournament import ProgressiveEvent
from table_controller.director.tournament.admin import AdminError, TournamentAdmin, summary
from table_controller.director.tournament.final import record_final
from table_controller.director.web import DirectorPage

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def progressive_game(seed: int) -> tuple[dict[str, Any], ...]:
    """A real simulated table playing td-progressive (2 hands a game to keep it short),
    as the feed's event messages (export_event plays it, once a session)."""
    return export_event.progressive_game(seed, False)[0]


def as_table(
    messages: tuple[dict[str, Any], ...], table: str, game: int = 1
) -> list[dict[str, Any]]:
    """A game's messages as table ``table``'s game number ``game``."""
    return [{**m, "table": table, "game": game} for m in messages]


def individual(messages: tuple[dict[str, Any], ...]) -> list[int]:
    ended = [o for m in messages for o in m["outputs"] if o.get("event") == "game_ended"]
    assert len(ended) == 1, "the simulated game did not end"
    return list(ended[0]["individual"])


@pytest.fixture
def store(tmp_path: Path) -> DirectorStore:
    s = DirectorStore(tmp_path / "director.sqlite", rules_name="td-progressive")
    return s


def test_progressive_two_rounds_from_real_games(store: DirectorStore) -> None:
    games = {1: progressive_game(1), 2: progressive_game(2)}
    admin = TournamentAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    event = admin.state.event
    assert isinstance(event, ProgressiveEvent)
    plan = {1: {"hall-a": "1", "hall-b": "2"}, 2: {"hall-a": "2", "hall-b": "1"}}
    # Which real game each feed table plays in each round (the same two games, swapped).
    played = {(1, "hall-a"): 1, (1, "hall-b"): 2, (2, "hall-a"): 2, (2, "hall-b"): 1}
    expected = dict.fromkeys(event.players, 0)
    for round_no in (1, 2):
        admin.assign_round("ann", round_no, plan[round_no])
        for table, place in plan[round_no].items():
            messages = games[played[(round_no, table)]]
            seats = event.tables(round_no)[int(place) - 1]
            for seat, score in zip("NESW", individual(messages), strict=True):
                expected[seats[seat]] += score
            # The game's feed, in order, one message at a time (delivered twice).
            for m in as_table(messages, table, round_no) * 2:
                store.events.add_event(m)
                admin.on_stored("event", table)
        if round_no == 1:
            assert summary(admin.state)["round"] == 2
    standings = admin.summary()["standings"]
    assert {s["player"]: s["total"] for s in standings} == expected
    assert [s["total"] for s in standings] == sorted(expected.values(), reverse=True)
    assert all(s["rounds_played"] == 2 for s in standings)
    assert admin.summary()["round"] is None and admin.state.unplaced == []
    # A restarted director reads the same event back from the store.
    again = TournamentAdmin(store)
    assert again.summary()["standings"] == standings
    # A game from a table no round assigns is kept for the director, not lost.
    for m in as_table(games[1], "hall-c"):
        store.events.add_event(m)
    again.catch_up()
    assert [u["table"] for u in again.state.unplaced] == ["hall-c"]


def test_absentee_with_substitute(store: DirectorStore) -> None:
    admin = TournamentAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    admin.set_absent("ann", "cy", True, "stuck in traffic")
    seat = summary(admin.state)["seating"]
    assert seat["problem"].startswith("Cy is marked absent")
    admin.substitute("ann", 1, "cy", "Zed", "substitute", "Zed plays for Cy")
    seat = summary(admin.state)["seating"]
    names = [n for t in seat["tables"] for n in t["seats"].values()]
    assert "Zed" in names and "Cy" not in names and "problem" not in seat
    event = admin.state.event
    assert isinstance(event, ProgressiveEvent)
    table = next(i for i, t in enumerate(event.tables(1), start=1) if "cy" in t.values())
    seat_of_cy = next(s for s, p in event.tables(1)[table - 1].items() if p == "cy")
    scores = dict(zip("NESW", [4, 3, 4, 3], strict=True))
    admin.record(
        "ann",
        1,
        str(table),
        {"event": "game_ended", "scores": [8, 6], "individual": [scores[s] for s in "NESW"]},
        "score card",
    )
    totals = {s["player"]: s["total"] for s in admin.summary()["standings"]}
    assert totals["zed"] == scores[seat_of_cy] and totals["cy"] == 0
    # A substitute for someone already covered that round is refused, in words.
    with pytest.raises(AdminError, match="already has a substitute"):
        admin.substitute("ann", 1, "cy", "Yves", "absent", "twice")


def test_correction_is_audited_and_history_append_only(store: DirectorStore) -> None:
    admin = TournamentAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=1)
    res = {"event": "game_ended", "scores": [8, 2], "individual": [5, 1, 3, 1]}
    admin.record("ann", 1, "1", res, "score card")
    with pytest.raises(AdminError, match="needs a reason"):
        admin.record("bob", 1, "1", res, " ")
    fixed = {**res, "individual": [4, 1, 4, 1]}
    admin.record("bob", 1, "1", fixed, "loner scored 4 for the partner, not 3")
    history = store.formats.format_history()
    assert [(h["who"], h["action"]) for h in history] == [
        ("ann", "created"),
        ("ann", "result"),
        ("bob", "result"),
    ]
    assert history[-1]["reason"] == "loner scored 4 for the partner, not 3"
    assert any(a["action"] == "format_result" and a["who"] == "bob" for a in store.accounts.audit())
    with pytest.raises(StoreError, match="format history is append-only"):
        store.db.execute("UPDATE format_state SET who = 'eve'")
    assert TournamentAdmin(store).state.event.results[1][1]["N"] == 4  # type: ignore[union-attr]


def test_bracket_advances_from_game_results(store: DirectorStore) -> None:
    admin = TournamentAdmin(store)
    lines = ["Reds: Ann, Bob", "Blues: Cy, Di", "Greens: Ed, Flo", "Golds"]
    admin.create("ann", "bracket", lines, rounds=1, best_of=3)
    first = summary(admin.state)["bracket"][0]["matches"]
    assert [(m["top"], m["bottom"]) for m in first] == [("reds", "golds"), ("blues", "greens")]
    admin.assign_round("ann", 1, {"t1": "R1-M1", "t2": "R1-M2"})
    admin.assign_round("ann", 2, {"t1": "R2-M1"})
    seq = {"t1": 0, "t2": 0}

    def game_ends(table: str, winner: str) -> None:
        seq[table] += 1
        msg = {
            "v": 1,
            "table": table,
            "game": seq[table],
            "seq": 1,
            "at": 1.0,
            "source": "test",
            "input": {"event": "dealer_chosen", "seat": "N"},
            "outputs": [
                {
                    "event": "game_ended",
                    "game": seq[table],
                    "winner": winner,
                    "scores": [10, 4] if winner == "NS" else [4, 10],
                }
            ],
            "hand": None,
            "evidence": False,
        }
        store.events.add_event(msg)
        admin.on_stored("event", table)

    game_ends("t1", "NS")
    game_ends("t1", "EW")
    game_ends("t1", "NS")  # reds 2-1
    game_ends("t2", "EW")
    game_ends("t2", "EW")  # greens 2-0
    final = admin.state.event.match("R2-M1")  # type: ignore[union-attr]
    assert (final.top, final.bottom) == ("reds", "greens")
    game_ends("t1", "EW")
    game_ends("t1", "EW")
    assert summary(admin.state)["champion"] == "greens"
    assert summary(admin.state)["standings"][0]["name"] == "Greens (Ed & Flo)"


def test_rounds_event_seating_follows_results(store: DirectorStore) -> None:
    admin = TournamentAdmin(store)
    admin.create("ann", "rounds", ["A", "B", "C", "D"], rounds=2)
    assert summary(admin.state)["next"]["problem"].startswith("Round 2 is seated from")
    admin.record("ann", 1, "1", {"scores": [10, 6], "winner": "NS"}, "card")
    admin.record("ann", 1, "2", {"scores": [7, 9], "winner": "EW"}, "card")
    seat = summary(admin.state)["seating"]
    assert seat["round"] == 2
    assert [t["seats"] for t in seat["tables"]] == [{"NS": "a", "EW": "c"}, {"NS": "d", "EW": "b"}]


def test_bad_requests_say_what_to_do(store: DirectorStore) -> None:
    admin = TournamentAdmin(store)
    with pytest.raises(AdminError, match="create it first"):
        admin.set_absent("ann", "x", True, None)
    with pytest.raises(AdminError, match="one of"):
        admin.create("ann", "swiss", PLAYERS, rounds=2)
    with pytest.raises(AdminError, match="at least 4 players"):
        admin.create("ann", "progressive", PLAYERS[:3], rounds=2)
    assert store.formats.format_history() == []


# --- the 12-hand rounds' playoff and a bracket's corrections -----------------------------------

TEAMS = ["Reds: Ann, Bob", "Blues: Cy, Di", "Greens: Ed, Flo", "Golds: Gus, Hal"]


def rounds_tied_for_second(admin: TournamentAdmin) -> None:
    """One round of four teams, Reds 12, Blues 8, Greens 8, Golds 4: Blues and Greens tied
    for the second place in the final."""
    admin.create("ann", "rounds", TEAMS, rounds=1)
    admin.record("ann", 1, "1", {"scores": [12, 8], "winner": "NS"}, "score card")  # reds v blues
    admin.record("ann", 1, "2", {"scores": [8, 4], "winner": "NS"}, "score card")  # greens v golds


def test_playoff_hands_settle_a_tie_for_the_final(store: DirectorStore) -> None:
    # 001 s18: "The top two scoring teams will face off for the championship."
    # 001 s19: "If a tie occurs, a four (4) hand playoff will take place between the two
    # teams. If the game is still tied, a sudden death hand will occur."
    admin = TournamentAdmin(store)
    admin.create("ann", "rounds", TEAMS, rounds=1)
    with pytest.raises(AdminError, match="rounds are not over: round 1 still has results"):
        admin.record_playoff("ann", "blues", "greens", (3, 1), "score card")
    rounds_tied_for_second(admin)
    step = admin.summary()["playoff"]
    assert (step["kind"], step["teams"], step["hands"]) == ("tie_playoff", ["blues", "greens"], 4)
    # Bad entries are refused in words, and change nothing.
    versions = len(store.formats.format_history())
    with pytest.raises(AdminError, match="no team 'Purples' in this event: it is one of Reds"):
        admin.record_playoff("ann", "Purples", "greens", (3, 1), "score card")
    with pytest.raises(AdminError, match="Reds .* v Blues .* is not a playoff the standings"):
        admin.record_playoff("ann", "reds", "blues", (3, 1), "score card")
    with pytest.raises(AdminError, match="two different teams"):
        admin.record_playoff("ann", "blues", "Blues", (3, 1), "score card")
    with pytest.raises(AdminError, match="0 to 0 records no hand"):
        admin.record_playoff("ann", "blues", "greens", (0, 0), "score card")
    with pytest.raises(AdminError, match="whole numbers 0 or more"):
        admin.record_playoff("ann", "blues", "greens", (-1, 3), "score card")
    with pytest.raises(AdminError, match="needs a reason"):
        admin.record_playoff("ann", "blues", "greens", (2, 2), " ")
    assert len(store.formats.format_history()) == versions
    # Still tied after the 4 hands: sudden death, added up (names as typed work too).
    words = admin.record_playoff("bob", "Blues", "greens", (2, 2), "score card")
    assert "next, sudden-death hands (001 s19)" in words
    assert admin.summary()["playoff"]["kind"] == "sudden_death"
    admin.record_playoff("bob", "greens", "blues", (1, 0), "sudden death hand")
    step = admin.summary()["playoff"]
    assert (step["kind"], step["teams"]) == ("final", ["reds", "greens"])
    assert step["played"] == [{"teams": ["blues", "greens"], "points": [2, 3]}]
    with pytest.raises(AdminError, match="no tie-break is needed: .* the final \\(001 s18\\)"):
        admin.record_playoff("bob", "blues", "greens", (1, 0), "one more")
    history = store.formats.format_history()
    assert [(h["who"], h["action"]) for h in history[-2:]] == [("bob", "playoff")] * 2
    assert history[-1]["reason"] == "sudden death hand"
    assert [a["who"] for a in store.accounts.audit() if a["action"] == "format_playoff"] == [
        "bob"
    ] * 2
    # A restarted director reads the playoff back.
    assert TournamentAdmin(store).summary()["playoff"] == step


def test_round_robin_playoff_takes_each_match_once(store: DirectorStore) -> None:
    # 001 s20: "If more than two (2) teams are tied at the end of 36 hands, a four (4) hand
    # round robin playoff will occur."
    admin = TournamentAdmin(store)
    admin.create("ann", "rounds", ["A", "B", "C", "D", "E", "F"], rounds=1)
    for table in ("1", "2", "3"):
        admin.record("ann", 1, table, {"scores": [9, 3], "winner": "NS"}, "score card")
    step = admin.summary()["playoff"]
    assert (step["kind"], step["teams"]) == ("round_robin", ["a", "c", "e"])
    admin.record_playoff("ann", "a", "c", (3, 1), "score card")
    with pytest.raises(AdminError, match="4 playoff hands are already recorded"):
        admin.record_playoff("ann", "c", "a", (3, 1), "entered twice")
    admin.record_playoff("ann", "a", "e", (2, 2), "score card")
    admin.record_playoff("ann", "c", "e", (1, 3), "score card")
    assert admin.summary()["playoff"]["teams"] == ["a", "e"]  # A 5, E 5, C 2


def test_final_names_the_champion_audited(store: DirectorStore) -> None:
    # 001 s18: "The top two scoring teams will face off for the championship. Same format
    # will occur." 001 s19: "If a tie occurs, a four (4) hand playoff will take place
    # between the two teams. If the game is still tied, a sudden death hand will occur."
    admin = TournamentAdmin(store)
    admin.create("ann", "rounds", TEAMS, rounds=1)
    with pytest.raises(AdminError, match="rounds are not over: round 1 still has results"):
        record_final(admin, "ann", "reds", "blues", (10, 8), "score card")
    rounds_tied_for_second(admin)
    with pytest.raises(
        AdminError,
        match=r"finalists are not known yet: the standings call "
        r"for a 4-hand playoff \(001 s19\)",
    ):
        record_final(admin, "ann", "reds", "blues", (10, 8), "score card")
    admin.record_playoff("ann", "blues", "greens", (1, 3), "score card")  # Greens through
    assert admin.summary()["champion"] is None and admin.summary()["final"] is None
    # Bad entries are refused in words, and change nothing.
    versions = len(store.formats.format_history())
    bad: list[tuple[tuple[Any, ...], dict[str, Any], str]] = [
        (
            ("reds", "blues", (10, 8), "card"),
            {},
            "no team 'blues' in the final: it is one of Reds .*, Greens",
        ),
        (("reds", "Reds", (10, 8), "card"), {}, "choose each one once"),
        (("reds", "greens", (-1, 14), "card"), {}, "whole numbers 0 or more"),
        (("reds", "greens", (5, 4), "card"), {}, "add up to 12 to 48"),
        (("reds", "greens", (12, 12), "card"), {}, "tied at 12: 001 s19 plays a four-hand"),
        (("reds", "greens", (12, 12), "card"), {"tiebreak": (2, 2)}, "sudden-death hand"),
        (("reds", "greens", (10, 8), " "), {}, "needs a reason"),
        (("reds", "greens", (10, 8), "card"), {"correct": True}, "nothing to correct"),
        (("reds", "greens", None, "card"), {}, "give both finalists' points"),
        (("reds", "greens", None, "card"), {"correct": True}, "nothing to clear"),
    ]
    for args, kw, words in bad:
        with pytest.raises(AdminError, match=words):
            record_final(admin, "ann", *args, **kw)
    assert len(store.formats.format_history()) == versions
    # Tied after 12 hands: the tie-break's points (4 hands, then a sudden-death hand).
    words = record_final(admin, "ann", "Greens", "reds", (12, 12), "score card", tiebreak=(3, 2))
    assert words.endswith("champion Greens (Ed & Flo)") and "tie-break 2 to 3" in words
    out = admin.summary()
    assert out["champion"] == "greens"
    assert out["final"] == {
        "teams": ["reds", "greens"],
        "points": [12, 12],
        "tiebreak": [2, 3],
        "winner": "greens",
    }
    assert [(s["place"], s["team"], s["final"]) for s in out["standings"]] == [
        (1, "greens", "champion"),
        (2, "reds", "runner-up"),
        (3, "blues", None),
        (4, "golds", None),
    ]
    # Recorded twice: refused, saying how to correct it; a correction needs a reason.
    with pytest.raises(
        AdminError,
        match=r"already recorded \(the final: Reds .* champion "
        r"Greens .*\)\. If it was recorded wrongly, tick "
        r"\"This corrects the final\"",
    ):
        record_final(admin, "ann", "reds", "greens", (13, 11), "score card")
    with pytest.raises(AdminError, match="a correction of the final needs a reason"):
        record_final(admin, "bob", "reds", "greens", (13, 11), "", correct=True)
    words = record_final(
        admin, "bob", "reds", "greens", (13, 11), "tie-break misread", correct=True
    )
    assert "champion Reds (Ann & Bob) (corrected; it was the final: Reds" in words
    # The standings the final came from stay as they were until the final is cleared.
    with pytest.raises(AdminError, match="Clear the final first"):
        admin.record("bob", 1, "2", {"scores": [9, 4], "winner": "NS"}, "card")
    with pytest.raises(AdminError, match="no tie-break is needed"):
        admin.record_playoff("bob", "blues", "greens", (1, 0), "one more")
    history = store.formats.format_history()
    assert [(h["who"], h["action"]) for h in history[-2:]] == [
        ("ann", "final"),
        ("bob", "final_corrected"),
    ]
    assert any(
        a["action"] == "format_final_corrected"
        and a["who"] == "bob"
        and a["reason"] == "tie-break misread"
        for a in store.accounts.audit()
    )
    again = TournamentAdmin(store).summary()  # a restarted director reads the final back
    assert (again["champion"], again["final"]) == ("reds", admin.summary()["final"])
    assert "cleared" in record_final(admin, "bob", "", "", None, "wrong card", correct=True)
    assert (admin.summary()["champion"], admin.summary()["final"]) == (None, None)
    admin.record("bob", 1, "2", {"scores": [9, 4], "winner": "NS"}, "card")  # Greens 9
    assert admin.summary()["playoff"]["teams"] == ["reds", "greens"]
    # The final belongs to the 12-hand rounds.
    admin.create("ann", "bracket", TEAMS, rounds=1)
    with pytest.raises(AdminError, match="only in a 12-hand rounds event: this event is a bracket"):
        record_final(admin, "ann", "reds", "blues", (10, 8), "score card")


def test_bracket_match_corrected_with_a_reason(store: DirectorStore) -> None:
    # 000 s4: "single elimination tournament, with opponents playing best two-out-of-three
    # games": a match's games corrected, and the later match it fed follows.
    admin = TournamentAdmin(store)
    admin.create("ann", "bracket", TEAMS, rounds=1, best_of=3)
    with pytest.raises(AdminError, match="R1-M1 has no game recorded yet, so nothing to"):
        admin.correct_match("ann", "R1-M1", ["reds"], "wrong card")
    with pytest.raises(AdminError, match="R2-M1 has not been played: it waits"):
        admin.correct_match("ann", "R2-M1", ["reds"], "wrong card")
    for _ in range(2):
        admin.record("ann", 1, "R1-M1", {"scores": [10, 4], "winner": "NS"}, "score card")
    assert admin.state.event.match("R1-M1").winner == "reds"  # type: ignore[union-attr]
    with pytest.raises(AdminError, match="needs a reason"):
        admin.correct_match("ann", "R1-M1", ["golds", "golds"], "")
    with pytest.raises(AdminError, match="no team 'Blues' in match R1-M1: it is one of Reds"):
        admin.correct_match("ann", "R1-M1", ["golds", "Blues"], "wrong card")
    with pytest.raises(AdminError, match="There is no match 'R9-M1'"):
        admin.correct_match("ann", "R9-M1", ["golds"], "wrong card")
    with pytest.raises(AdminError, match="best of 3: give at most 3 games"):
        admin.correct_match("ann", "R1-M1", ["golds"] * 4, "wrong card")
    with pytest.raises(AdminError, match="already won by golds"):
        admin.correct_match("ann", "R1-M1", ["golds", "golds", "reds"], "wrong card")
    with pytest.raises(AdminError, match="games already: nothing to correct"):
        admin.correct_match("ann", "R1-M1", ["reds", "reds"], "wrong card")
    words = admin.correct_match("bob", "r1-m1", ["Golds", "golds"], "NS and EW swapped")
    assert "won by Golds (Gus & Hal)" in words
    final = admin.state.event.match("R2-M1")  # type: ignore[union-attr]
    assert final.top == "golds"
    # Once the final has started, the semi-final is corrected only after clearing it.
    for _ in range(2):
        admin.record("ann", 1, "R1-M2", {"scores": [10, 4], "winner": "NS"}, "score card")
    admin.record("ann", 2, "R2-M1", {"scores": [10, 4], "winner": "NS"}, "score card")
    with pytest.raises(AdminError, match="R2-M1 has started from this result: correct R2-M1"):
        admin.correct_match("bob", "R1-M1", ["reds", "reds"], "it was right after all")
    admin.correct_match("bob", "R2-M1", [], "played from a wrong semi-final")
    admin.correct_match("bob", "R1-M1", ["reds", "reds"], "it was right after all")
    final = admin.state.event.match("R2-M1")  # type: ignore[union-attr]
    assert (final.top, final.bottom, final.games) == ("reds", "blues", [])
    history = store.formats.format_history()
    assert [(h["who"], h["action"]) for h in history[-2:]] == [("bob", "match_corrected")] * 2
    assert sum(h["action"] == "match_corrected" for h in history) == 3
    assert any(
        a["action"] == "format_match_corrected" and a["reason"] == "NS and EW swapped"
        for a in store.accounts.audit()
    )
    again = TournamentAdmin(store).state.event
    assert again.match("R1-M1").winner == "reds"  # type: ignore[union-attr]
    # Each form belongs to its format; a bye has nothing to correct.
    with pytest.raises(AdminError, match="only in a 12-hand rounds event: this event is a bracket"):
        admin.record_playoff("ann", "reds", "blues", (1, 0), "score card")
    admin.create("ann", "bracket", TEAMS[:3], rounds=1)
    with pytest.raises(AdminError, match="R1-M1 is a bye \\(Reds .*\\) goes through"):
        admin.correct_match("ann", "R1-M1", ["reds"], "x")
    rounds_tied_for_second(admin)
    with pytest.raises(AdminError, match="only a bracket's matches are corrected here"):
        admin.correct_match("ann", "R1-M1", ["reds"], "x")


# --- the same through the dashboard: HTTP, then the real page -----------------------------------


@pytest.fixture
def served(store: DirectorStore) -> Iterator[Served]:
    store.accounts.add_login("ann", PASSWORD)
    s = Served(DirectorPage(store, None, title="Spring Open"))
    yield s
    s.close()


def log_in(url: str) -> str:
    req = urllib.request.Request(
        url + "api/login",
        json.dumps({"name": "ann", "password": PASSWORD}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        cookie = r.headers["Set-Cookie"]
    return str(cookie.split(";")[0].split("=", 1)[1])


def round_one(url: str, cookie: str, scores: dict[str, list[int]]) -> None:
    """Round 1's result at each table, as the director records it from the score card."""
    for table, card in scores.items():
        body = {"round": 1, "place": table, "reason": "card", "result": {"scores": card}}
        assert post(url + "api/event/result", body, cookie)[0] == 200


def test_playoff_and_correction_over_http(served: Served) -> None:
    url, store = served.url, served.page.store
    admin = served.page.admin
    playoff = {"teams": ["blues", "greens"], "points": [2, 1], "reason": "score card"}
    fix = {"match": "R1-M1", "games": "golds, golds", "reason": "NS and EW swapped"}
    for action, body in (("playoff", playoff), ("correct_match", fix)):
        status, answer = post(url + f"api/event/{action}", body)
        assert status == 401 and "not logged in" in answer["problem"]
    cookie = log_in(url)
    assert post(url + "api/event/swiss", {}, cookie)[0] == 404
    status, answer = post(
        url + "api/event/create",
        {"format": "rounds", "rounds": 1, "entrants": "\n".join(TEAMS)},
        cookie,
    )
    assert status == 200
    status, answer = post(url + "api/event/playoff", playoff, cookie)
    assert status == 400 and "rounds are not over" in answer["problem"] and answer["fix"]
    round_one(url, cookie, {"1": [12, 8], "2": [8, 4]})
    bad = [
        ({**playoff, "teams": ["blues", "purples"]}, "no team 'purples'"),
        ({**playoff, "points": [2, ""]}, "second team's points is missing"),
        ({**playoff, "points": [2, "two"]}, "'two' is not a whole number"),
        ({**playoff, "teams": "blues v greens"}, "give the two teams"),
        ({**playoff, "reason": ""}, "needs a reason"),
    ]
    for body, words in bad:
        status, answer = post(url + "api/event/playoff", body, cookie)
        assert status == 400 and words in answer["problem"], answer
    status, answer = post(url + "api/event/playoff", playoff, cookie)
    assert status == 200 and "next, the final (001 s18)" in answer["done"]
    assert answer["event"]["playoff"]["teams"] == ["reds", "blues"]
    assert store.formats.format_history()[-1]["who"] == "ann"
    # A bracket: a game recorded for the wrong team, corrected.
    # a new event in the same store: a name of its own (the first one has results)
    bracket = {"format": "bracket", "entrants": "\n".join(TEAMS), "name": "The cup"}
    assert post(url + "api/event/create", bracket, cookie)[0] == 200
    status, answer = post(url + "api/event/correct_match", fix, cookie)
    assert status == 400 and "no game recorded yet" in answer["problem"]
    for _ in range(2):
        post(
            url + "api/event/result",
            {"place": "R1-M1", "reason": "card", "result": {"scores": [10, 4], "winner": "NS"}},
            cookie,
        )
    for body, words in (
        ({**fix, "match": "R2-M1"}, "R2-M1 has not been played"),
        ({**fix, "games": "golds, greens"}, "no team 'greens' in match R1-M1"),
        ({**fix, "games": 3}, "give the match's games"),
    ):
        status, answer = post(url + "api/event/correct_match", body, cookie)
        assert status == 400 and words in answer["problem"], answer
    status, answer = post(url + "api/event/correct_match", fix, cookie)
    assert status == 200 and "won by Golds (Gus & Hal)" in answer["done"]
    first = answer["event"]["bracket"][0]["matches"][0]
    assert (first["games"], first["winner"]) == (["golds", "golds"], "golds")
    assert admin.state.event.match("R2-M1").top == "golds"  # type: ignore[union-attr]
    assert store.formats.format_history()[-1]["reason"] == "NS and EW swapped"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def test_director_records_playoff_and_corrects_a_match_in_the_page(
    page: Page, served: Served
) -> None:
    admin = served.page.admin
    rounds_tied_for_second(admin)  # 001 s19: Blues and Greens play off for the final
    served.page.changed("event")  # as the service's listener does: the pushed overview too
    page.goto(served.url)
    log_in_page(page)
    expect(page.locator("#event-playoff")).to_be_visible()
    expect(page.locator("#event-correct")).to_be_hidden()
    step = page.locator("#event-playoff-step .playoff-step")
    expect(step).to_have_attribute("data-kind", "tie_playoff")
    expect(step).to_contain_text("Blues (Cy & Di) v Greens (Ed & Flo), 4 hands")
    # The form starts on the playoff the standings call for; a wrong pair is refused.
    expect(page.locator("#playoff-a")).to_have_value("blues")
    expect(page.locator("#playoff-b")).to_have_value("greens")
    page.select_option("#playoff-b", "reds")
    page.fill("#playoff-a-points", "2")
    page.fill("#playoff-b-points", "2")
    page.fill("#playoff-reason", "score card")
    page.click("#playoff-button")
    expect(page.locator("#event-problem")).to_contain_text("is not a playoff the standings")
    page.select_option("#playoff-b", "greens")
    page.click("#playoff-button")
    expect(step).to_have_attribute("data-kind", "sudden_death")
    expect(page.locator("#event-playoff-step .playoff-played")).to_have_text(
        "Played: Blues (Cy & Di) 2 – Greens (Ed & Flo) 2"
    )
    expect(page.locator("#event-problem")).to_have_text("")
    page.fill("#playoff-a-points", "0")
    page.fill("#playoff-b-points", "1")
    page.fill("#playoff-reason", "sudden death hand")
    page.click("#playoff-button")
    expect(step).to_have_attribute("data-kind", "final")
    expect(step).to_contain_text("Final (rule 18): Reds (Ann & Bob) v Greens (Ed & Flo)")
    expect(page.locator("#event-history")).to_contain_text("ann: playoff – sudden death hand")
    # A bracket: R1-M1's games were entered for the wrong team.
    admin.create("ann", "bracket", TEAMS, rounds=1, name="The cup")  # another event
    for _ in range(2):
        admin.record("ann", 1, "R1-M1", {"scores": [10, 4], "winner": "NS"}, "score card")
    served.page.changed("event")
    page.reload()
    expect(page.locator("#event-correct")).to_be_visible()
    expect(page.locator("#event-playoff")).to_be_hidden()
    expect(page.locator("#event-bracket")).to_contain_text(
        "match 1, Reds v Golds (games won: Reds, Reds), won by Reds"
    )
    expect(page.locator("#correct-match option").first).to_have_text(
        "Semi-finals, match 1: Reds v Golds"
    )
    page.select_option("#correct-match", "R1-M1")
    page.fill("#correct-games", "golds, golds")
    page.click("#correct-button")
    expect(page.locator("#event-problem")).to_contain_text("needs a reason")
    page.fill("#correct-reason", "NS and EW swapped on the score card")
    page.click("#correct-button")
    expect(page.locator("#event-bracket")).to_contain_text(
        "match 1, Reds v Golds (games won: Golds, Golds), won by Golds"
    )
    expect(page.locator("#event-bracket")).to_contain_text("Final: match 1, Golds v to come")
    expect(page.locator("#event-bracket")).not_to_contain_text("R1-M")
    expect(page.locator("#event-done")).to_contain_text("won by Golds (Gus & Hal)")
    expect(page.locator("#event-history")).to_contain_text(
        "ann: match corrected – NS and EW swapped on the score card"
    )


def test_final_over_http(served: Served) -> None:
    # 001 s18: "The top two scoring teams will face off for the championship."
    url, store = served.url, served.page.store
    final = {"teams": ["reds", "greens"], "points": [14, 9], "reason": "score card"}
    status, answer = post(url + "api/event/final", final)
    assert status == 401 and "not logged in" in answer["problem"]
    cookie = log_in(url)
    post(
        url + "api/event/create",
        {"format": "rounds", "rounds": 1, "entrants": "\n".join(TEAMS)},
        cookie,
    )
    status, answer = post(url + "api/event/final", final, cookie)
    assert status == 400 and "rounds are not over" in answer["problem"] and answer["fix"]
    round_one(url, cookie, {"1": [12, 8], "2": [9, 4]})  # Reds 12, Greens 9: the final
    bad = [
        ({**final, "teams": "reds v greens"}, "give the two finalists"),
        ({**final, "teams": ["reds", "blues"]}, "no team 'blues' in the final"),
        ({**final, "points": [14, ""]}, "second team's points is missing"),
        ({**final, "points": ["", ""]}, "the points are missing"),
        ({**final, "points": [14, -2]}, "whole numbers 0 or more"),
        ({**final, "points": [12, 12]}, "give the tie-break's points too"),
        (
            {**final, "points": [12, 12], "tiebreak": [3, ""]},
            "second team's tie-break points is missing",
        ),
        ({**final, "reason": ""}, "needs a reason"),
    ]
    for body, words in bad:
        status, answer = post(url + "api/event/final", body, cookie)
        assert status == 400 and words in answer["problem"], answer
    status, answer = post(url + "api/event/final", {**final, "tiebreak": ["", ""]}, cookie)
    assert status == 200 and answer["done"].endswith("champion Reds (Ann & Bob)")
    assert answer["event"]["champion"] == "reds"
    assert answer["event"]["standings"][0]["final"] == "champion"
    status, answer = post(url + "api/event/final", final, cookie)
    assert status == 400 and "This corrects the final" in answer["problem"]
    fixed = {**final, "points": [9, 14], "correct": True, "reason": "points swapped"}
    status, answer = post(url + "api/event/final", fixed, cookie)
    assert status == 200 and answer["event"]["champion"] == "greens"
    assert [(h["who"], h["action"], h["reason"]) for h in store.formats.format_history()[-2:]] == [
        ("ann", "final", "score card"),
        ("ann", "final_corrected", "points swapped"),
    ]


def test_director_records_the_final_in_the_page(page: Page, served: Served) -> None:
    # 001 s18 (the final, "Same format": 12 hands) and s19 (a tie: 4 hands, then a
    # sudden-death hand).
    admin = served.page.admin
    rounds_tied_for_second(admin)
    admin.record_playoff("ann", "blues", "greens", (1, 3), "score card")  # Greens through
    served.page.changed("event")  # as the service's listener does: the pushed overview too
    page.goto(served.url)
    log_in_page(page)
    expect(page.locator("#event-final")).to_be_visible()
    # The form starts on the finalists the standings name.
    expect(page.locator("#final-a")).to_have_value("reds")
    expect(page.locator("#final-b")).to_have_value("greens")
    page.fill("#final-a-points", "12")
    page.fill("#final-b-points", "12")
    page.fill("#final-reason", "score card")
    page.click("#final-button")
    expect(page.locator("#event-problem")).to_contain_text(
        "tied at 12: 001 s19 plays a four-hand playoff"
    )
    page.fill("#final-a-tiebreak", "2")
    page.fill("#final-b-tiebreak", "3")
    page.click("#final-button")
    expect(page.locator("#event-final-result .final-result")).to_have_text(
        "Final: Reds (Ann & Bob) 12 – Greens (Ed & Flo) 12 (tied; tie-break 2 – 3)"
    )
    expect(page.locator("#event-final-result .champion")).to_have_text(
        "Champion: Greens (Ed & Flo)"
    )
    first = page.locator("#event-standings tbody tr").first.locator("td")
    expect(first).to_have_text(["1", "Greens (Ed & Flo)", "8", "1", "1", "8.00", "champion"])
    expect(page.locator("#event-problem")).to_have_text("")
    expect(page.locator("#event-history")).to_contain_text("ann: final – score card")
    # Entered again: refused, saying how to correct it; then corrected.
    page.fill("#final-a-points", "13")
    page.fill("#final-b-points", "11")
    page.fill("#final-reason", "score card")
    page.click("#final-button")
    expect(page.locator("#event-problem")).to_contain_text(
        "already recorded (the final: Reds (Ann & Bob) 12, Greens (Ed & Flo) 12"
    )
    expect(page.locator("#event-problem")).to_contain_text('tick "This corrects the final"')
    page.check("#final-correct")
    page.fill("#final-reason", "the tie-break was misread")
    page.click("#final-button")
    expect(page.locator("#event-final-result .champion")).to_have_text("Champion: Reds (Ann & Bob)")
    expect(page.locator("#event-done")).to_contain_text("(corrected; it was the final")
    expect(page.locator("#final-correct")).not_to_be_checked()
    expect(page.locator("#event-history")).to_contain_text(
        "ann: final corrected – the tie-break was misread"
    )
