"""The table page's snapshot (present/view.py): read from real games, driven through the
transcripts of the rule texts and through simulated games."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from table_controller import simulate, transcript
from table_controller.cards import Card, Suit
from table_controller.present import (
    SEAT_NAMES,
    Action,
    Notice,
    SeatShown,
    TableSnapshot,
    choices,
    game_over,
    in_words,
    table_view,
    waiting_for,
)
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    HandDealt,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    TrumpCalled,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import preset
from table_controller.seats import Seat, Team
from table_controller.table.health import Device, Health

TRANSCRIPTS = Path(__file__).parent / "transcripts"
PLAYERS = {Seat.N: "Ann", Seat.E: "Bo", Seat.S: "Cy", Seat.W: "Di"}


def replay(name: str) -> tuple[Game, list[OutputEvent]]:
    """A transcript played through the engine: the game and every output event."""
    script = transcript.load(TRANSCRIPTS / name)
    game = Game(script.rules())
    out: list[OutputEvent] = []
    for step in script.steps:
        if step.expect_error is not None:
            with pytest.raises(RulesError):
                game.push(step.event)
            continue
        out += game.push(step.event)
    return game, out


def view(game: Game, recent: list[OutputEvent] | None = None, **kw: Any) -> dict[str, Any]:
    snap = table_view(game, table="Table 7", players=PLAYERS, recent=recent or [], **kw)
    json.dumps(snap)  # the page gets it as JSON: it must be JSON-able
    return snap


def seat(snap: dict[str, Any], name: str) -> dict[str, Any]:
    seats = snap["seats"]
    assert isinstance(seats, list)
    return next(s for s in seats if s["seat"] == name)


def live_deal(rules_name: str = "td-tournament", upcard: str = "9H") -> Game:
    """A live table (hands unknown): N deals, the upcard is turned."""
    game = Game(preset(rules_name, {"first_dealer": "chosen"}))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt(Card.parse(upcard)))
    return game


def accepted(game: Game, event: InputEvent) -> bool:
    trial = game.copy()
    trial.push(event)
    return True


# --- seats, turn, trump, the trick, the score --------------------------------------------


def test_a_simulated_game_is_shown_as_the_engine_has_it() -> None:
    rules = preset("td-tournament")
    game = Game(rules)
    recent: list[OutputEvent] = []
    checked_tricks = 0
    for event, out in simulate.play(rules, random.Random(11)):
        game.push(event)
        recent += out
        snap = view(game, recent, version=len(game.log))
        assert snap["version"] == len(game.log)
        assert snap["phase"] == game.phase.value
        # In words, with the players' names: never the engine's codes ("hand_dealt", "N")
        assert snap["expecting"] and "_" not in snap["expecting"]
        if game.to_act is not None:
            assert f"{PLAYERS[game.to_act]} ({SEAT_NAMES[game.to_act]})" in snap["expecting"]
        assert snap["score"]["NS"] == game.scores[0]
        assert snap["score"]["EW"] == game.scores[1]
        to_act = [s["seat"] for s in snap["seats"] if s["to_act"]]
        assert to_act == ([] if game.to_act is None else [game.to_act.name])
        dealers = [s["seat"] for s in snap["seats"] if s["dealer"]]
        assert dealers == ([] if game.dealer is None else [game.dealer.name])
        hand = game.hand
        if hand is None or hand.trick is None:
            continue
        plays = [(p["seat"], p["card"]["code"]) for p in (snap["trick"] or {"plays": []})["plays"]]
        assert plays == [(s.name, c.code) for s, c in hand.trick.plays]
        for s, c in hand.trick.plays:
            assert seat(snap, s.name)["card"]["code"] == c.code
        assert snap["trump"]["suit"] == hand.trump.name
        assert snap["maker"] == hand.maker.name
        won = sum(s["tricks"] for s in snap["seats"])
        assert won == len(hand.tricks) == sum(snap["tricks_won"].values())
        checked_tricks += 1
    assert game.phase is Phase.OVER
    snap = view(game, recent)
    assert snap["winner"]["team"] in ("NS", "EW")
    over = snap["game_over"]
    team = Team[snap["winner"]["team"]]
    a, b = (PLAYERS[s] for s in team.seats)
    assert over["title"] == f"{a} and {b} win"
    assert over["score"] == {"NS": game.scores[0], "EW": game.scores[1]}
    assert "_" not in over["text"] and str(max(game.scores)) in over["text"]
    assert checked_tricks > 20


def test_the_snapshot_has_the_keys_its_type_names() -> None:
    """The page's contract (present's ``TableSnapshot``, a seat's ``SeatShown``) is the
    snapshot's keys, no more and no fewer, all through a game."""
    rules = preset("td-tournament")
    game = Game(rules)
    recent: list[OutputEvent] = []
    table_keys = TableSnapshot.__required_keys__
    assert "kiosk" in TableSnapshot.__optional_keys__  # the kiosk's part, added by it
    for event, out in simulate.play(rules, random.Random(5)):
        game.push(event)
        recent += out
        snap = view(game, recent)
        assert set(snap) == table_keys
        for shown in snap["seats"]:
            assert set(shown) == SeatShown.__required_keys__
        for action in snap["actions"]:
            assert set(action) == Action.__required_keys__


def test_seats_names_teams_and_the_seat_to_act() -> None:
    game = live_deal()
    snap = view(game)
    assert [s["name"] for s in snap["seats"]] == ["Ann", "Bo", "Cy", "Di"]
    assert [s["team"] for s in snap["seats"]] == ["NS", "EW", "NS", "EW"]
    assert seat(snap, "N")["dealer"] is True
    assert seat(snap, "E")["to_act"] is True
    assert snap["to_act"] == "E"
    assert snap["upcard"] == {
        "card": {"code": "9H", "rank": "9", "suit": "H", "symbol": "♥", "red": True, "text": "9♥"},
        "status": "up",
    }
    assert snap["trump"] is None
    assert snap["table"] == "Table 7"
    assert snap["rules"]["name"] is None  # td-tournament, changed


def test_a_missing_or_blank_name_is_the_seat_in_words() -> None:
    snap = table_view(live_deal(), table="T", players={Seat.N: "  ", Seat.E: "Bo"})
    assert [s["name"] for s in snap["seats"]] == ["North", "Bo", "South", "West"]


def test_the_rules_preset_is_named() -> None:
    snap = view(Game(preset("bicycle-head-to-head")))
    assert snap["rules"]["name"] == "bicycle-head-to-head"
    assert snap["score"]["to_win"] == 10
    assert snap["score"]["games"] == {"NS": 0, "EW": 0}  # best of three
    named = table_view(Game(preset("td-tournament")), table="T", players={}, rules_name="mine")
    assert named["rules"]["name"] == "mine"


def test_going_alone_greys_the_partner_and_shows_the_upcard_picked_up() -> None:
    game = live_deal()
    out = game.push(OrderedUp(Seat.E, alone=True))
    snap = view(game, out)
    assert seat(snap, "W")["sitting_out"] is True
    assert snap["alone"] is True
    assert snap["maker"] == "E"
    assert snap["trump"] == {"suit": "H", "symbol": "♥", "name": "Hearts", "red": True}
    assert snap["upcard"]["status"] == "picked up"


def test_the_last_trick_and_its_winner() -> None:
    game, out = replay("000_follow_suit.jsonl")
    hand = game.hand if game.hand is not None else game.last_hand
    assert hand is not None and hand.tricks
    snap = view(game, out)
    last = snap["last_trick"]
    assert last["number"] == hand.tricks[-1].number
    assert [p["card"]["code"] for p in last["plays"]] == [c.code for _, c in hand.tricks[-1].plays]
    assert last["winner"] in ("N", "E", "S", "W")


# --- reneges, irregularities, results -------------------------------------------------------


def test_a_proven_renege_with_its_evidence() -> None:
    game, out = replay("000_renege_deducted.jsonl")
    urls = {Card.parse("9S"): "/evidence/1/9.png", Card.parse("9C"): "/evidence/1/14.png"}
    snap = view(game, out, evidence_urls=urls)
    (renege,) = snap["reneges"]
    assert renege["status"] == "proven"
    assert (renege["seat"], renege["name"], renege["trick"], renege["suit"]) == ("S", "Cy", 1, "C")
    assert renege["played"]["code"] == "9S"
    assert renege["proof"]["code"] == "9C"
    assert renege["proof_trick"] == 2
    assert renege["evidence"] == [
        {"card": "9S", "face": "9♠", "url": "/evidence/1/9.png"},
        {"card": "9C", "face": "9♣", "url": "/evidence/1/14.png"},
    ]
    assert "Cy (South) did not follow" in renege["text"] and "9♣" in renege["text"]
    assert snap["result"]["result"] == "march"
    assert (snap["score"]["NS"], snap["score"]["EW"]) == (-2, 2)


def test_reneges_of_an_earlier_hand_are_not_shown_after_the_next_deal() -> None:
    game, out = replay("000_renege_deducted.jsonl")
    out += game.push(HandDealt(Card.parse("9D")))
    snap = view(game, out)
    assert snap["reneges"] == []
    assert snap["result"] is None


def test_a_renege_spotted_in_the_open_trick() -> None:
    game, out = replay("000_renege_taken_back.jsonl")
    spotted = [e for e in out if type(e).__name__ == "RenegeSpotted"]
    assert spotted, "the transcript spots a renege"
    cut = out.index(spotted[0]) + 1
    snap = view(game, out[:cut])
    statuses = [r["status"] for r in snap["reneges"]]
    assert statuses == ["spotted"]


def test_irregularities_of_the_hand() -> None:
    game, out = replay("001_call_out_of_turn.jsonl")
    snap = view(game, out)
    kinds = [(i["kind"], i["seat"], i["remedy"]) for i in snap["irregularities"]]
    assert ("bid_out_of_turn", "S", "cancelled") in kinds
    assert ("pass_out_of_turn", "W", "cancelled") in kinds
    first = snap["irregularities"][0]
    assert first["title"] == "Bid out of turn" and first["name"] == "Cy"
    # The rules core's detail, with the seats in words ("S called out of turn...")
    assert first["text"].startswith("South called out of turn")
    assert all(not re.search(r"\b[NESW]\b", i["text"]) for i in snap["irregularities"])


def test_the_rules_core_s_letters_and_codes_read_in_words() -> None:
    assert in_words("N passed out of turn; the bid stays with E") == (
        "North passed out of turn; the bid stays with East"
    )
    assert in_words("JH is already on the table; E-W score 2") == (
        "J♥ is already on the table; East-West score 2"
    )
    assert in_words("TC laid in S's play zone") == "10♣ laid in South's play zone"
    notice = Notice("refused", Seat.S, "it is N's turn, not S's", "wait for E", 1.0)
    (shown,) = view(live_deal(), notices=[notice])["notices"]
    assert (shown["text"], shown["fix"]) == ("it is North's turn, not South's", "wait for East")


# --- faults and notices -------------------------------------------------------------------


def test_faults_and_notices() -> None:
    health = Health()
    snap = view(live_deal())
    assert snap["faults"] == [] and snap["devices_ok"] is True
    health.raise_fault(Device.CUBE, "unplugged", "plug the cube's cable back in", 12.5)
    notice = Notice("refused", Seat.E, "a pass out of turn", "wait for your light", 13.0)
    snap = view(live_deal(), faults=health.faults, notices=[notice])
    assert snap["devices_ok"] is False
    assert snap["faults"] == [
        {
            "device": "cube",
            "what": "the trump cube",
            "problem": "unplugged",
            "fix": "plug the cube's cable back in",
            "since": 12.5,
        }
    ]
    assert snap["notices"] == [
        {
            "kind": "refused",
            "seat": "E",
            "text": "a pass out of turn",
            "fix": "wait for your light",
            "at": 13.0,
        }
    ]


def test_a_notice_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="refused, director, info"):
        Notice("shout", None, "x", "y", 0.0)


# --- the touchscreen's actions ---------------------------------------------------------------


def labels(snap: dict[str, Any]) -> list[str]:
    return [a["label"] for a in snap["actions"]]


def assert_actions_are_legal(game: Game, snap: dict[str, Any]) -> None:
    for action in snap["actions"]:
        event = decode_input(action["event"])
        assert encode(event) == action["event"]
        assert accepted(game, event), action


def test_first_round_bidding_at_a_live_table() -> None:
    game = live_deal()
    snap = view(game)
    assert labels(snap) == ["Pass", "Order up", "Order up alone"]
    assert {a["seat"] for a in snap["actions"]} == {"E"}
    assert snap["actions"][0]["event"] == {"event": "passed", "seat": "E"}
    assert_actions_are_legal(game, snap)
    for s in (Seat.E, Seat.S, Seat.W):
        game.push(Passed(s))
    assert labels(view(game)) == ["Pass", "Pick it up", "Pick it up alone"]  # the dealer


def test_second_round_names_the_suits_but_the_turned_down_one() -> None:
    game = live_deal(upcard="9H")
    for s in (Seat.E, Seat.S, Seat.W, Seat.N):
        game.push(Passed(s))
    snap = view(game)
    assert labels(snap) == [
        "Pass",
        "Call Clubs",
        "Call Clubs alone",
        "Call Diamonds",
        "Call Diamonds alone",
        "Call Spades",
        "Call Spades alone",
    ]
    assert_actions_are_legal(game, snap)
    for s in (Seat.E, Seat.S, Seat.W):
        game.push(Passed(s))
    stuck = view(game)  # td-tournament sticks the dealer: no Pass
    assert "Pass" not in labels(stuck) and len(labels(stuck)) == 6
    assert_actions_are_legal(game, stuck)


def test_the_dealers_discard_is_one_button() -> None:
    game = live_deal()
    game.push(OrderedUp(Seat.E))
    snap = view(game)
    assert snap["actions"] == [
        {"label": "Discarded", "seat": "N", "event": {"event": "dealer_discarded"}}
    ]
    assert_actions_are_legal(game, snap)


def test_no_actions_while_cards_are_played() -> None:
    rules = preset("td-tournament")
    game = Game(rules)
    for event, _ in simulate.play(rules, random.Random(5)):
        game.push(event)
        if game.phase is Phase.PLAYING:
            break
    assert any(isinstance(e, CardPlayed) for e in game.legal_events())
    assert view(game)["actions"] == []


def test_a_known_hand_discards_a_named_card() -> None:
    rules = preset("td-tournament")
    game = Game(rules)
    for event, _ in simulate.play(rules, random.Random(1)):
        game.push(event)
        if game.phase is Phase.DISCARDING:
            break
    assert game.phase is Phase.DISCARDING
    snap = view(game)
    assert len(snap["actions"]) == 6  # five cards and the upcard
    assert all(label.startswith("Discard ") for label in labels(snap))
    assert_actions_are_legal(game, snap)


def test_the_remedy_after_a_bid_out_of_turn() -> None:
    game = live_deal("td-tournament")
    game.push(OrderedUp(Seat.W))  # E is to bid: W bids out of turn
    assert game.phase is Phase.CHOOSING_REMEDY
    snap = view(game)
    assert set(labels(snap)) == {"Take the penalty", "Void the bid: order up alone"}
    assert {a["seat"] for a in snap["actions"]} == {"N", "S"}
    assert_actions_are_legal(game, snap)


def test_choosing_the_first_dealer_from_the_page() -> None:
    game = Game(preset("td-tournament", {"first_dealer": "chosen"}))
    snap = view(game)
    assert labels(snap) == ["Ann deals", "Bo deals", "Cy deals", "Di deals"]
    assert_actions_are_legal(game, snap)


def test_bid_euchre_bids_at_a_live_table() -> None:
    game = Game(preset("bid-euchre", {"first_dealer": "chosen"}))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt())
    snap = view(game)
    assert labels(snap)[0] == "Pass"
    assert "Bid 3 Hearts" in labels(snap) and "Bid 6 no trump" in labels(snap)
    assert_actions_are_legal(game, snap)


def test_every_choice_of_a_simulated_game_is_legal_and_labelled() -> None:
    """Every action the page offers, in every non-card phase of whole games, is accepted."""
    offered = 0
    for name in ("td-tournament", "family-bid-euchre"):
        rules = preset(name)
        game = Game(rules)
        for event, _ in simulate.play(rules, random.Random(7)):
            if game.phase is not Phase.PLAYING:
                for ev in choices(game):
                    assert accepted(game, ev)
                    offered += 1
                snap = view(game)
                assert all(a["label"] and a["seat"] in "NESW" for a in snap["actions"])
            game.push(event)
    assert offered > 100


def test_a_trump_call_event_round_trips_through_the_page() -> None:
    game = live_deal(upcard="9H")
    for s in (Seat.E, Seat.S, Seat.W, Seat.N):
        game.push(Passed(s))
    action = next(a for a in view(game)["actions"] if a["label"] == "Call Spades alone")
    assert decode_input(action["event"]) == TrumpCalled(Seat.E, Suit.S, True)


# --- the page's sentences (present/announce.py) ---------------------------------------------------


def test_what_the_table_waits_for_in_words() -> None:
    game = Game(preset("td-tournament", {"first_dealer": "chosen"}))
    assert waiting_for(game, PLAYERS) == "Choose the first dealer"
    game.push(DealerChosen(Seat.N))
    assert waiting_for(game, PLAYERS) == "Ann (North) deals"
    game.push(HandDealt(Card.parse("9H")))
    assert waiting_for(game, PLAYERS) == "Bo (East) to pass or order up"
    for who in (Seat.E, Seat.S, Seat.W, Seat.N):
        game.push(Passed(who))
    assert waiting_for(game, PLAYERS) == "Bo (East) to pass or name a suit (not ♥ hearts)"
    game.push(TrumpCalled(Seat.E, Suit.S, False))
    assert waiting_for(game, PLAYERS) == "Bo (East) to lead"
    game.push(CardPlayed(Seat.E, Card.parse("9S")))
    assert waiting_for(game, PLAYERS) == "Cy (South) to play"
    # A seat with no name given is named by its seat alone.
    assert waiting_for(game, {}) == "South to play"


def test_a_tricks_count_has_its_label() -> None:
    game = live_deal()
    assert view(game)["tricks_text"] == "Tricks: N–S 0 · E–W 0"
    assert view(Game(preset("td-tournament")))["tricks_text"] == ""


def test_the_end_of_a_game_is_held_until_the_next_deal() -> None:
    rules = preset("td-tournament")
    game = Game(rules)
    recent: list[OutputEvent] = []
    for event, out in simulate.play(rules, random.Random(3)):
        game.push(event)
        recent += out
    ended = game_over(game, recent, PLAYERS)
    assert ended is not None and view(game, recent)["game_over"] == ended
    # The table's next game: the ending shows until its first hand is dealt.
    nxt = Game(preset("td-tournament", {"first_dealer": "chosen"}))
    assert view(nxt, ended=ended)["game_over"] == ended
    nxt.push(DealerChosen(Seat.E))
    assert view(nxt, ended=ended)["game_over"] == ended
    nxt.push(HandDealt(Card.parse("9D")))
    assert view(nxt, ended=ended)["game_over"] is None
