"""The director's dashboard in words, without a browser: every event of every rule
text's transcript as a history line, every alert as a sentence, each table's line of
the overview; never an event's or a card's code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from table_controller import transcript
from table_controller.director.dashboard.history import (
    claimed_trick,
    hands_of,
    history_entry,
    input_line,
    output_line,
    renege_evidence,
)
from table_controller.director.words import (
    CLOCK_LIMIT,
    alert_sentence,
    clock_texts,
    clock_words,
    seat_label,
    table_title,
    table_words,
    title_order,
)
from table_controller.rules.codec import encode
from table_controller.rules.errors import RulesError
from table_controller.rules.game import Game

TRANSCRIPTS = sorted((Path(__file__).parent / "transcripts").glob("*.jsonl"))
CODES = re.compile(r"\b[a-z]+_[a-z_]+\b|\b(?:[9TJQKA]|10)[CDHS]\b")
PLAYERS = {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"}


def encoded_game(path: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """A transcript through the engine: each accepted input and its outputs, encoded
    as the feed sends them."""
    script = transcript.load(path)
    game = Game(script.rules())
    out = []
    for step in script.steps:
        try:
            outputs = game.push(step.event)
        except RulesError:
            continue
        out.append((encode(step.event), [encode(o) for o in outputs]))
    return out


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.stem)
def test_every_event_of_every_transcript_reads_as_words(path: Path) -> None:
    for inp, outputs in encoded_game(path):
        for line in [input_line(inp, PLAYERS), *(output_line(o, PLAYERS) for o in outputs)]:
            assert line and not CODES.search(line), (inp, outputs, line)


def test_a_history_entry_names_the_players_and_links_its_picture() -> None:
    ev = {
        "game": 2,
        "seq": 7,
        "hand": 1,
        "evidence": True,
        "input": {"event": "card_played", "seat": "S", "card": "JH"},
        "outputs": [
            {"event": "trick_won", "hand": 1, "trick": 1, "winner": "N", "plays": []},
        ],
    }
    entry = history_entry(ev, PLAYERS, "table-3")
    assert entry["text"] == "Cy (South) plays the J♥"
    assert entry["then"] == ["Trick 1 won by Ann (North)"]
    assert entry["picture"] == "/evidence/table-3/2/7.png"


def test_each_events_hand_is_the_hand_it_was_part_of() -> None:
    events = [
        {"seq": 1, "outputs": [{"event": "first_dealer_set"}]},
        {"seq": 2, "outputs": [{"event": "hand_started", "hand": 1}]},
        {"seq": 3, "outputs": []},
        {"seq": 4, "outputs": [{"event": "hand_scored", "hand": 1}]},
        {"seq": 5, "outputs": [{"event": "hand_started", "hand": 2}]},
    ]
    assert hands_of(events) == {1: None, 2: 1, 3: 1, 4: 1, 5: 2}


def test_alerts_are_sentences_beginning_with_the_tables_name() -> None:
    renege = {
        "input": {"event": "card_played", "seat": "S", "card": "TC"},
        "outputs": [
            {"event": "renege_proven", "hand": 1, "seat": "S", "trick": 3, "suit": "C",
             "played": "JH", "proof": "TC", "proof_trick": 5},
        ],
    }  # fmt: skip
    alert = {"kind": "renege_proven", "table": "table-2", "text": "S did not follow C"}
    assert alert_sentence(alert, "Table 2", PLAYERS, renege) == (
        "Table 2: Cy (South) did not follow ♣ clubs in trick 3, playing the J♥ while "
        "holding the 10♣ (the 10♣ was played in trick 5)"
    )
    claim = {"input": {"event": "renege_claimed", "by": "N", "against": "E", "trick": 2}}
    assert alert_sentence({"kind": "renege_claimed", "table": "t"}, "Maple", PLAYERS, claim) == (
        "Maple: Ann (North) claims Bo (East) reneged in trick 2"
    )
    irregular = {
        "outputs": [
            {"event": "irregularity_found", "kind": "lead_out_of_turn", "seat": "W",
             "remedy": "penalty", "detail": "W led out of turn", "card": "9D", "trick": 2},
        ]
    }  # fmt: skip
    said = alert_sentence({"kind": "irregularity_found", "table": "t"}, "T", PLAYERS, irregular)
    assert said == "T: Lead out of turn by Di (West), the 9♦ in trick 2: penalty"
    offline = {"kind": "table_offline", "table": "table-4", "text": "table-4 is offline: gone."}
    assert alert_sentence(offline, "Table 4", {}, None) == "Table 4 is offline: gone."
    fault = {"kind": "camera_fault", "table": "table-4", "text": "the camera: unplugged"}
    assert alert_sentence(fault, "Table 4", {}, None) == "Table 4: the camera: unplugged"


def test_a_tables_line_in_words_from_its_replayed_game() -> None:
    (path,) = [p for p in TRANSCRIPTS if p.stem == "003_renege_ends_hand"]
    script = transcript.load(path)
    game = Game(script.rules())
    for step in script.steps[:6]:
        game.push(step.event)
    status = {"table": "table-7", "name": "Table 7", "online": True, "players": PLAYERS}
    words = table_words(status, game)
    assert words["title"] == "Table 7" and words["online_text"] == "Online"
    assert [t["names"] for t in words["teams"]] == ["Ann & Cy", "Bo & Di"]
    assert words["phase_text"] and not CODES.search(words["phase_text"])
    assert not CODES.search(words["turn_text"]) and not CODES.search(words["trump_text"])
    # Without a game: the status's phase, in words.
    idle = table_words({"table": "t-1", "phase": "choosing_dealer", "players": {}}, None)
    assert idle["phase_text"] == "Choosing the first dealer" and idle["title"] == "t-1"
    assert [t["names"] for t in idle["teams"]] == ["North–South", "East–West"]


def test_names_seats_and_their_order() -> None:
    assert table_title("table-1", "Table 1") == "Table 1"
    assert table_title("table-1", None) == table_title("table-1", "  ") == "table-1"
    assert seat_label(PLAYERS, "E") == "Bo (East)" and seat_label({}, "E") == "East"
    titles = ["Table 10", "Table 2", "Maple", "Table 1"]
    assert sorted(titles, key=title_order) == ["Maple", "Table 1", "Table 2", "Table 10"]


def renege_events(proof_played: bool) -> list[dict[str, Any]]:
    """A hand in which South reneges: the J♥ on a club lead, holding the 10♣ (the upcard,
    South dealing, or a card South plays in trick 2)."""
    proven = {"event": "renege_proven", "hand": 1, "seat": "S", "trick": 1, "suit": "C",
              "played": "JH", "proof": "TC", "proof_trick": 2 if proof_played else 1}  # fmt: skip
    events: list[dict[str, Any]] = [
        {"seq": 1, "evidence": True, "input": {"event": "hand_dealt", "upcard": "TC"},
         "outputs": [{"event": "hand_started", "hand": 1, "dealer": "S", "upcard": "TC"}]},
        {"seq": 2, "evidence": True, "input": {"event": "card_played", "seat": "E", "card": "AC"},
         "outputs": []},
        {"seq": 3, "evidence": True, "input": {"event": "card_played", "seat": "S", "card": "JH"},
         "outputs": [] if proof_played else [proven]},
    ]  # fmt: skip
    if proof_played:
        events.append(
            {"seq": 4, "evidence": True,
             "input": {"event": "card_played", "seat": "S", "card": "TC"}, "outputs": [proven]}
        )  # fmt: skip
    return events


def test_a_reneges_evidence_is_the_play_and_its_proof_with_the_rule() -> None:
    events = renege_events(proof_played=True)
    alert = {"table": "table-3", "game": 1, "seq": 4, "kind": "renege_proven"}
    ev = renege_evidence(alert, events, PLAYERS, "Table 3", "td-tournament")
    assert ev is not None
    assert ev["offence"] == {
        "url": "/evidence/table-3/1/3.png",
        "caption": "Trick 1: Cy played the J♥",
        "card": "J♥",
    }
    assert ev["proof"]["url"] == "/evidence/table-3/1/4.png"
    assert ev["proof"]["caption"] == "Proof: trick 2, Cy played the 10♣"
    assert ev["rule"]["text"].startswith("RENEGE: - There are no exceptions")
    assert ev["rule"]["source"] == "Tournament director rules"
    # The proof known in the hand because it was the upcard South picked up: the deal's
    # picture shows it.
    known = renege_events(proof_played=False)
    alert = {**alert, "seq": 3}
    ev = renege_evidence(alert, known, PLAYERS, "Table 3", "nmu-tournament")
    assert ev is not None and ev["proof"]["url"] == "/evidence/table-3/1/1.png"
    assert ev["proof"]["caption"] == "Proof: the 10♣ was the upcard, picked up by Cy"
    assert ev["rule"]["text"].startswith('22. A "Revoke" (or "Renege")')
    assert renege_evidence({**alert, "seq": 2}, known, PLAYERS, "T", "td-tournament") is None


def test_a_renege_claims_trick_is_shown_card_by_card() -> None:
    plays = [["E", "AC"], ["S", "JH"], ["W", "QC"], ["N", "JS"]]
    events: list[dict[str, Any]] = [
        {"seq": 1, "evidence": True, "input": {"event": "hand_dealt", "upcard": "QS"},
         "outputs": [{"event": "hand_started", "hand": 1, "dealer": "N", "upcard": "QS"}]},
    ]  # fmt: skip
    for n, (seat, card) in enumerate(plays):
        done = n == len(plays) - 1
        events.append(
            {"seq": 2 + n, "evidence": True,
             "input": {"event": "card_played", "seat": seat, "card": card},
             "outputs": [{"event": "trick_won", "hand": 1, "trick": 1, "winner": "N",
                          "plays": plays}] if done else []}
        )  # fmt: skip
    events.append(
        {"seq": 6, "evidence": False, "outputs": [],
         "input": {"event": "renege_claimed", "by": "E", "against": "S", "trick": 1}}
    )  # fmt: skip
    alert = {"table": "table-3", "game": 1, "seq": 6, "kind": "renege_claimed"}
    shown = claimed_trick(alert, events, PLAYERS)
    assert [p["caption"] for p in shown] == [
        "Trick 1: Bo (East) led the A♣",
        "Trick 1: Cy (South) played the J♥",
        "Trick 1: Di (West) played the Q♣",
        "Trick 1: Ann (North) played the J♠",
    ]
    assert [p["accused"] for p in shown] == [False, True, False, False]
    assert shown[1]["url"] == "/evidence/table-3/1/3.png"
    no_trick = {**events[-1], "input": {"event": "renege_claimed", "by": "E", "against": "S"}}
    assert claimed_trick(alert, [*events[:-1], no_trick], PLAYERS) == []


def test_a_tables_clock_offset_in_words() -> None:
    """The card says the clock only when it is over the limit; the detail always."""
    assert clock_words(47.2) == "47 s ahead" and clock_words(-0.24) == "0.2 s behind"
    assert clock_words(0.01) == "the same"
    late = table_words({"table": "table-3", "name": "Table 3", "clock_offset": 47.0}, None)
    assert late["clock_text"] == "Clock 47 s ahead"
    assert late["clock_detail"] == "Clock: 47 s ahead of the director's"
    right = table_words({"table": "table-3", "clock_offset": -0.2}, None)
    assert right["clock_text"] == ""
    assert right["clock_detail"] == "Clock: 0.2 s behind the director's"
    assert clock_texts(None) == {"clock_text": "", "clock_detail": ""}
    assert clock_texts(CLOCK_LIMIT)["clock_text"] == ""  # at the limit: not over it
    alert = {"kind": "clock", "table": "table-3", "text": "table-3's clock is 47 s ahead"}
    assert alert_sentence(alert, "Table 3", {}, None) == "Table 3's clock is 47 s ahead"
