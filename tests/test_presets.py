"""Presets: one per rule text, each naming its source; options a director can change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_controller.rules import PRESETS, RulesError, preset
from table_controller.rules.presets import FirstDealer, RenegePenalty, Rules

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def test_every_preset_names_a_rule_text_that_exists() -> None:
    texts = {p.source for p in PRESETS.values()}
    assert len(texts) == 5, "one preset (at least) for each of the five rule texts"
    if SEEDS.is_dir():
        for source in texts:
            assert (SEEDS / source).is_file(), source


def test_the_presets_differ_where_the_texts_differ() -> None:
    assert preset("bicycle-head-to-head").first_dealer is FirstDealer.HIGH_CUT  # 000 s2.1
    assert preset("nmu-tournament").first_dealer is FirstDealer.FIRST_ACE  # 001 s6
    assert preset("td-tournament").first_dealer is FirstDealer.FIRST_JACK  # 003 The Deal
    assert not preset("bicycle-head-to-head").stick_the_dealer  # 000 s2.2
    assert preset("nmu-tournament").stick_the_dealer  # 001 s9
    assert preset("bicycle-head-to-head").renege_penalty is RenegePenalty.DEDUCT  # 000 s3.3
    assert preset("nmu-tournament").hands_per_game == 12  # 001 s5
    assert preset("td-progressive").hands_per_game == 8  # 003 Scoring


def test_options_change_and_are_checked() -> None:
    rules = preset("td-tournament", {"points_to_win": 11, "stick-the-dealer": False})
    assert rules.points_to_win == 11 and not rules.stick_the_dealer
    assert (
        preset("nmu-tournament", {"first_dealer": "high_cut"}).first_dealer is FirstDealer.HIGH_CUT
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"points_to_wn": 11}, "unknown rule option 'points_to_wn'"),
        ({"stick_the_dealer": "yes"}, "true or false"),
        ({"points_to_win": "ten"}, "a whole number"),
        ({"first_dealer": "coin"}, "'high_cut'"),
        ({"points_to_win": None, "hands_per_game": None}, "never end"),
        ({"best_of": 2}, "an odd number"),
        ({"shoot_bids": True}, "Bid Euchre"),
    ],
)
def test_bad_options_say_what_is_allowed(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        preset("td-tournament", options)


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match="one of: bicycle-head-to-head"):
        preset("whist")


def test_options_round_trip_as_json() -> None:
    for p in PRESETS.values():
        assert Rules().with_options(p.rules.options()) == p.rules


def test_each_rule_texts_renege_rule_is_quoted_word_for_word() -> None:
    """The dashboard quotes each text's rule on a renege beside the evidence: the quote
    is the text's own words (white space aside), for every preset's text."""
    from table_controller.rules.sources import RENEGE_RULES, renege_rule

    assert {p.source for p in PRESETS.values()} <= set(RENEGE_RULES)
    if not SEEDS.is_dir():
        pytest.skip("the rule texts are not beside the project")
    for source, quote in RENEGE_RULES.items():
        text = " ".join((SEEDS / source).read_text(encoding="utf-8").split())
        assert renege_rule(source) == quote and " ".join(quote.split()) in text, source


def test_each_rule_texts_words_on_the_deck_are_quoted_word_for_word() -> None:
    """Beside a deck alert's picture (a second copy, a card not of the deck, a hand ended
    short, a wrong kitty) the dashboard quotes the text's own words; a quote may join two
    passages of its text, each word for word."""
    from table_controller.rules.sources import DECK_RULES, deck_rule

    assert {p.source for p in PRESETS.values()} <= set(DECK_RULES)
    if not SEEDS.is_dir():
        pytest.skip("the rule texts are not beside the project")
    for source, kinds in DECK_RULES.items():
        text = " ".join((SEEDS / source).read_text(encoding="utf-8").replace("*", "").split())
        assert set(kinds) == {"second_copy", "foreign_card", "short_hand", "wrong_kitty"}
        for kind, quote in kinds.items():
            assert deck_rule(source, kind) == quote
            for passage in re.split(r"(?<=\.) (?=\d+\. )|(?<=it\.) (?=When)", quote):
                assert " ".join(passage.split()) in text, (source, kind, passage)
