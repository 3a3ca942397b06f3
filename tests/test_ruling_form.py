"""The ruling form opened from a renege's alert comes filled with what the alert knows:
the team the penalty moved points for, the points a dismissal moves back, the hand, and
what each choice does, teams named by their players (never NS or EW).

Before, "Dismiss" said "dismissing it takes them back (-2)" but left the team and the
points empty, then refused the ruling: "say which team the points are for: NS or EW".

The rules: 003 RENEGE, "the offending team loses their bid and the non-offending team
scores two points" (a dismissal takes them away again); 000 s3.3 takes the points from
the offenders (a dismissal gives them back).
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from test_director_store import TABLE, real_game, status
from test_director_web import PASSWORD, Served, log_in

from table_controller.cards import Card, Suit
from table_controller.director.dashboard.ruling import renege_penalty, ruling_form, ruling_text
from table_controller.director.session import COOKIE
from table_controller.director.store import DirectorStore
from table_controller.director.web import DirectorPage
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    HandResult,
    HandScored,
    PenaltyScored,
    RenegeClaimed,
    RenegeProven,
)
from table_controller.seats import Seat, Team

PLAYERS = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}
CODES = re.compile(r"\b(NS|EW)\b")


def stored_renege(folder: Path, **where: Any) -> tuple[DirectorStore, dict[str, Any]]:
    """A real simulated game with a renege (Cy, South, reneges in hand 1; 003's rules
    give East–West 2 points), stored as the director stores a table's feed."""
    store = DirectorStore(folder / "director.sqlite")
    messages, _ = real_game()
    for m in messages:
        store.events.add_event(m)
    store.tables.add_status(status(players=PLAYERS, **where))
    (alert,) = [a for a in store.alerts.alerts() if a["kind"] == "renege_proven"]
    return store, alert


def test_a_renege_alert_fills_the_team_the_points_the_hand_and_each_choice(
    tmp_path: Path,
) -> None:
    store, alert = stored_renege(tmp_path, game=1, hand=2)
    form = ruling_form(store, TABLE, alert)
    assert (form["team"], form["points"], form["game"], form["hand"]) == ("EW", -2, 1, 1)
    assert form["fill"]["dismiss_renege"] | {"placeholder": ""} == {
        "team": "EW",
        "points": -2,
        "reason": "",  # why a renege does not stand is the director's own finding
        "placeholder": "",
    }
    # Upholding has its why in the proof: offered, in words, the player by name.
    assert form["fill"]["confirm_renege"]["reason"] == (
        "The renege is proven: Cy (South) did not follow ♣ clubs in trick 1, playing the "
        "J♥ while holding the 10♣ (the 10♣ was played in trick 2)"
    )
    kinds = {k["kind"]: k["text"] for k in form["kinds"]}
    assert kinds["confirm_renege"] == (
        "Uphold: East–West (Bo & Di) keep the 2 points the renege gave them"
    )
    assert kinds["dismiss_renege"] == (
        "Dismiss: East–West (Bo & Di) lose the 2 points the renege gave them (−2)"
    )
    assert kinds["void_hand"].startswith("Void the hand in play (game 1, hand 2)")
    assert form["teams"] == [
        {"team": "NS", "text": "North–South (Ann & Cy)"},
        {"team": "EW", "text": "East–West (Bo & Di)"},
    ]
    assert form["where_text"] == (
        f"The renege: game 1, hand 1. {TABLE} is now at game 1, hand 2: "
        "the points move in this game's score."
    )
    shown = [form["where_text"], *kinds.values(), *(t["text"] for t in form["teams"])]
    assert not [s for s in shown if CODES.search(s)]


def test_a_table_in_its_next_game_is_said_before_the_points_move_there(tmp_path: Path) -> None:
    store, alert = stored_renege(tmp_path, game=2, hand=1)
    where = ruling_form(store, TABLE, alert)["where_text"]
    assert "has started game 2 since: a score ruling now changes game 2's score" in where
    assert "correct it in the event's results" in where


def test_the_defaults_over_http_need_a_login_and_carry_the_words(tmp_path: Path) -> None:
    store, alert = stored_renege(tmp_path, game=1, hand=2)
    store.accounts.add_login("ann", PASSWORD)
    served = Served(DirectorPage(store))
    try:

        def get(path: str, cookie: str | None = None) -> tuple[int, Any]:
            req = urllib.request.Request(served.url + path)
            if cookie:
                req.add_header("Cookie", f"{COOKIE}={cookie}")
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        path = f"api/alerts/{alert['id']}/defaults"
        assert get(path)[0] == 401
        cookie = log_in(served.url)
        code, form = get(path, cookie)
        assert code == 200
        assert (form["team"], form["points"], form["hand"]) == ("EW", -2, 1)
        kinds = {k["kind"]: k["text"] for k in form["kinds"]}
        assert kinds["dismiss_renege"].startswith("Dismiss: East–West (Bo & Di) lose the 2")
        assert form["fill"]["dismiss_renege"]["team"] == "EW"
        # From a table's detail: the teams and choices in words, nothing filled.
        code, form = get(f"api/tables/{TABLE}/ruling", cookie)
        assert code == 200 and form["team"] is None and form["points"] is None
        assert [t["text"] for t in form["teams"]] == [
            "North–South (Ann & Cy)",
            "East–West (Bo & Di)",
        ]
        assert get("api/tables/nowhere/ruling", cookie)[0] == 404
    finally:
        served.close()


def _event(seq: int, inp: Any, *outs: Any) -> dict[str, Any]:
    return {"seq": seq, "input": encode(inp), "outputs": [encode(o) for o in outs]}


PROVEN = RenegeProven(3, Seat.S, 1, Suit.C, Card.parse("JH"), Card.parse("TC"), 2)


def test_a_penalty_taken_from_the_offenders_is_given_back() -> None:
    """000 s3.3: the renege costs the offenders 2; dismissing it gives them back +2."""
    played = RenegeClaimed(Seat.E, Seat.S, 1)  # any input: only the outputs are read
    ev = _event(9, played, PROVEN, PenaltyScored(Team.NS, -2, HandResult.RENEGE, (4, 6)))
    penalty = renege_penalty({"kind": "renege_proven", "seq": 9}, [ev], PLAYERS)
    assert penalty is not None and (penalty.team, penalty.points, penalty.hand) == ("NS", -2, 3)


def test_a_claim_is_filled_from_the_event_that_proved_it_when_the_hand_ended() -> None:
    """003: a renege claimed is judged once the hand is complete, in a later event."""
    claim = _event(5, RenegeClaimed(Seat.E, Seat.S, 1))
    scored = HandScored(3, Seat.N, HandResult.RENEGE, (1, 2), (0, 2), (4, 8))
    proved = _event(9, RenegeClaimed(Seat.E, Seat.S, 1), PROVEN, scored)
    penalty = renege_penalty({"kind": "renege_claimed", "seq": 5}, [claim, proved], PLAYERS)
    assert penalty is not None and (penalty.team, penalty.points) == ("EW", 2)
    assert penalty.sentence.startswith("Cy (South) did not follow ♣ clubs in trick 1")
    # A claim against someone else is not this renege.
    other = _event(5, RenegeClaimed(Seat.S, Seat.W, 1))
    assert renege_penalty({"kind": "renege_claimed", "seq": 5}, [other, proved], PLAYERS) is None


def test_a_ruling_sent_is_listed_with_what_it_changed() -> None:
    payload = {"event": {"event": "score_adjusted", "team": "EW", "points": -2, "reason": "x"}}
    ruling = {"kind": "dismiss_renege", "payload": payload}
    assert ruling_text(ruling, PLAYERS) == "Dismissed the renege: East–West (Bo & Di) −2"
    confirm = {"kind": "confirm_renege", "payload": {"event": None}}
    assert ruling_text(confirm, PLAYERS) == "Upheld the renege: the score did not change"


def test_an_alert_that_is_no_renege_offers_no_renege_to_uphold_or_dismiss(
    tmp_path: Path,
) -> None:
    """Opened from an irregularity's alert (a card not taken into the game) or a table
    gone offline, the form offers what applies: a score adjusted, the hand voided."""
    store, renege = stored_renege(tmp_path, game=1, hand=2)
    try:
        for kind in ("irregularity_found", "table_offline"):
            other = {**renege, "kind": kind}
            kinds = [k["kind"] for k in ruling_form(store, TABLE, other)["kinds"]]
            assert kinds == ["adjust_score", "void_hand"]
        assert len(ruling_form(store, TABLE, renege)["kinds"]) == 4
        assert len(ruling_form(store, TABLE)["kinds"]) == 4  # a ruling not from an alert
    finally:
        store.close()
