"""A rule option and its value as a director reads them: "points to win: no target (the
game ends after its hands)", never ``points_to_win None``.

Why one place: the options are shown by the director's start command, the Fleet page and
the score sheets; each said them its own way (and "None" reached the screen). Every
option of :class:`~table_controller.rules.presets.Rules` has its words here, its values
as the option means them (a test checks that none is missing).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any

from table_controller.rules.presets import PRESETS

Said = Callable[[Any], str]


def _flag(value: Any) -> str:
    return "yes" if value is True else "no" if value is False else _plain(value)


def _count(one: str, many: str, none: str = "none") -> Said:
    """A whole number with its unit ("2 points", "1 hand"); None in the option's words."""

    def say(value: Any) -> str:
        if value is None:
            return none
        if isinstance(value, int) and not isinstance(value, bool):
            unit = one if value == 1 else many
            return f"{value} {unit}" if unit else str(value)
        return _plain(value)

    return say


def _number(none: str) -> Said:
    """A whole number its label already names ("points to win: 11"); None in words."""
    return _count("", "", none)


def _choice(words: Mapping[str, str]) -> Said:
    def say(value: Any) -> str:
        key = value.value if isinstance(value, Enum) else value
        return words.get(str(key), _plain(value))

    return say


def _best_of(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        return _plain(value)
    return "one game" if value == 1 else f"best of {value}"


def _plain(value: Any) -> str:
    """A value no option's words foresaw: still no code on the screen."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Enum):
        value = value.value
    return str(value).replace("_", " ")


_POINTS = _count("point", "points")
_TRICKS = _count("trick", "tricks")

# Each option: its label, and its value in words (the rule texts' meaning, presets.py).
OPTIONS: dict[str, tuple[str, Said]] = {
    "variant": (
        "game",
        _choice({"euchre": "Euchre (5 cards each)", "bid_euchre": "Bid Euchre (6 cards each)"}),
    ),
    "first_dealer": (
        "first dealer",
        _choice(
            {
                "chosen": "chosen by the players",
                "high_cut": "the high cut",
                "first_ace": "the first ace dealt",
                "first_jack": "the first jack dealt",
            }
        ),
    ),
    "stick_the_dealer": ("stick the dealer", _flag),
    "all_pass": (
        "when all pass",
        _choice(
            {
                "next_dealer": "the next player deals",
                "same_dealer": "the same dealer deals again",
            }
        ),
    ),
    "turned_down_suit_forfeits": ("naming the turned-down suit costs the bid", _flag),
    "min_bid": ("lowest bid", _TRICKS),
    "no_trump": ("no-trump bids", _flag),
    "bid_names_trump": ("a bid names its trump", _flag),
    "shoot_bids": ("shoot bids", _flag),
    "dealer_min_bid": (
        "the dealer's lowest bid when all pass",
        _count("trick", "tricks", "as any bid"),
    ),
    "nines_misdeal": ("four nines are a misdeal", _flag),
    "lay_down_claims": ("a hand may be laid down", _flag),
    "points_made": ("making the bid scores", _POINTS),
    "points_march": ("a march scores", _POINTS),
    "points_loner_made": ("a loner making it scores", _POINTS),
    "points_loner_march": ("a loner's march scores", _POINTS),
    "points_euchre": ("a euchre scores", _POINTS),
    "points_euchre_loner": ("euchring a loner scores", _POINTS),
    "progressive": ("scored for each player (progressive)", _flag),
    "progressive_loner": ("a loner's march scores the loner", _POINTS),
    "progressive_partner": ("and the loner's partner", _POINTS),
    "points_to_win": (
        "points to win",
        _number("no target (the game ends after its hands)"),
    ),
    "hands_per_game": (
        "hands a game",
        _number("no limit (the game ends at its target)"),
    ),
    "playoff_hands": ("more hands when tied", _number("none")),
    "sudden_death": ("sudden death when still tied", _flag),
    "win": (
        "who wins",
        _choice(
            {
                "first_to_target": "the first side to the target",
                "bid_euchre": "only by making or setting a bid",
                "bidder_first": "the first to the target (both there: the bidders)",
            }
        ),
    ),
    "best_of": ("a match", _best_of),
    "renege_penalty": (
        "a renege",
        _choice(
            {
                "award_and_end": "ends the hand, points to the other side",
                "deduct": "costs the offenders points, play goes on",
                "reported": "is reported, the players decide",
            }
        ),
    ),
    "renege_points": ("a renege costs", _POINTS),
    "renege_points_loner": ("a renege on a loner costs", _POINTS),
    "renege_take_back": ("a renege may be taken back", _flag),
    "false_claim_points": (
        "a false renege claim",
        _count("point to the accused", "points to the accused", "costs nothing"),
    ),
    "bid_out_of_turn": (
        "a bid out of turn",
        _choice(
            {
                "cancelled": "is cancelled (the proper player bids)",
                "penalty": "stops play, the other side scores",
            }
        ),
    ),
    "lead_out_of_turn": (
        "a lead out of turn",
        _choice(
            {
                "cancelled": "is taken back (the proper player leads)",
                "penalty": "stops play, the other side scores",
            }
        ),
    ),
    "out_of_turn_points": ("acting out of turn costs", _POINTS),
    "out_of_turn_points_loner": ("acting out of turn on a loner costs", _POINTS),
    "lead_before_discard_dead": ("a lead before the dealer's discard is dead", _flag),
    "dealer_discard_penalty": ("a dealer who does not discard gives points", _flag),
    "loner_partner_play_cancels": ("a loner's partner playing cancels the loner", _flag),
    "dropped_cards": ("a dropped card is played without value", _flag),
}


def option_words(name: str, value: Any) -> str:
    """One option in words: "points to win: 11", "stick the dealer: yes"."""
    key = name.replace("-", "_")
    label, say = OPTIONS.get(key, (key.replace("_", " "), _plain))
    return f"{label}: {say(value)}"


def options_words(options: Mapping[str, Any]) -> str:
    """Changed options in words, in the order the rules list them ("" for none)."""
    order = {k: i for i, k in enumerate(OPTIONS)}
    keys = sorted(options, key=lambda k: (order.get(k.replace("-", "_"), len(order)), k))
    return "; ".join(option_words(k, options[k]) for k in keys)


def rules_words(rules_name: str, options: Mapping[str, Any]) -> str:
    """An event's rules: the preset's title, then its changed options ("Tournament director
    rules, progressive event; hands a game: 2 hands"). A title's target ("games to 10")
    is left out when the options change it ("Tournament director rules; points to win: 11")."""
    preset = PRESETS.get(rules_name)
    title = preset.title if preset is not None else rules_name.replace("-", " ")
    if "points_to_win" in options:  # the title's own target would contradict the option
        title = re.sub(r", games to \d+\b", "", title)
    said = options_words(options)
    return f"{title}; {said}" if said else title


__all__ = ["OPTIONS", "option_words", "options_words", "rules_words"]
