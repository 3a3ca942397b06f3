"""A deck alert's panel on the dashboard: the picture of the card the game did not take
(a second copy of a card, a card not of this deck, a card turned up in the kitty), the
picture of the card the game did take where there is one, each captioned in words, and
the rule text's own words on it (rules/sources.py ``DECK_RULES``).

Why apart from a renege's (dashboard/history.py): a renege's pictures are two plays of
the same seat; a deck alert's are the event that raised it and the earlier sighting of
its card, whoever laid it. Both come from the stored events alone, as the table sent
them, so the panel is the same after a restart of the director.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from table_controller.director.dashboard.history import Evidence, Picture, RuleQuote, hands_of
from table_controller.director.json_value import JSONValue
from table_controller.director.store import AlertRow, StoredEvent
from table_controller.director.words import face, irregularity_sentence, seat_label
from table_controller.present import IRREGULARITY_WORDS
from table_controller.rules.deck import PRINTED
from table_controller.rules.events import Irregularity, Printing
from table_controller.rules.presets import PRESETS
from table_controller.rules.sources import deck_rule, text_title

DECK_KINDS = ("second_copy", "foreign_card", "wrong_kitty", "short_hand")
# How a deck alert's stored text begins (its irregularity's words): the dashboard offers
# its pictures from the list of alerts.
DECK_HEADS = tuple(IRREGULARITY_WORDS[Irregularity(k)] for k in DECK_KINDS)

Players = Mapping[str, str]


def deck_evidence(
    alert: AlertRow,
    events: Sequence[StoredEvent],
    players: Players,
    title: str,
    rules_name: str,
) -> Evidence | None:
    """The panel of an irregularity alert about the deck: ``offence`` (the event's own
    picture), ``proof`` (the card as the game took it, or None) and ``rule``; None for
    another irregularity, or when the alert's event is not stored."""
    table, game, seq = alert.get("table"), alert.get("game"), alert.get("seq")
    raised = next((e for e in events if e.get("seq") == seq), None)
    if raised is None:
        return None
    found = [
        o
        for o in raised.get("outputs") or []
        if isinstance(o, dict)
        and o.get("event") == "irregularity_found"
        and o.get("kind") in DECK_KINDS
    ]
    out = next((o for o in found if irregularity_sentence(o, {}) == alert.get("text")), None)
    if out is None and found:
        out = found[0]
    if out is None:
        return None

    def picture(e: StoredEvent | None) -> str | None:
        if e is None or not e.get("evidence"):
            return None
        return f"/evidence/{table}/{game}/{e.get('seq')}.png"

    kind, card = str(out.get("kind")), out.get("card")
    where = seat_label(players, out.get("seat"))
    in_square = f", laid in {where}'s square" if where else ""
    captions = {
        "second_copy": f"The second {face(card)}{in_square}: not taken into the game",
        "foreign_card": f"The card {_not_of_this_deck(raised)}{in_square}: not taken into the game",
        "wrong_kitty": f"The {face(card)} turned up in the kitty",
        "short_hand": f"The card turned up in the kitty (the {face(card)})",
    }
    offence: Picture = {"url": picture(raised), "caption": captions[kind], "card": face(card)}
    proof: Picture | None = None
    earlier = _taken(events, seq, card) if card and kind != "short_hand" else None
    if earlier is not None:
        inp = earlier.get("input") or {}
        if inp.get("event") == "card_played":
            how = f"played by {seat_label(players, inp.get('seat'))}"
        else:
            how = "turned up by the dealer"
        caption = f"The {face(card)} the game took: {how}"
        proof = {"url": picture(earlier), "caption": caption, "card": face(card)}
    preset = PRESETS.get(rules_name)
    rule: RuleQuote | None = None
    if preset is not None and (text := deck_rule(preset.source, kind)) is not None:
        rule = {"text": text, "source": text_title(preset.source), "preset": preset.title}
    return {
        "title": title,
        "sentence": irregularity_sentence(out, players),
        "offence": offence,
        "proof": proof,
        "rule": rule,
    }


def _taken(events: Sequence[StoredEvent], seq: int | None, card: JSONValue) -> StoredEvent | None:
    """The event, before ``seq`` in the same hand, in which the game took ``card``: its
    play, or the deal that turned it up."""
    hands = hands_of(events)
    hand = hands.get(seq) if seq is not None else None
    for ev in events:
        if ev.get("seq") == seq:
            break
        if hands.get(ev.get("seq")) != hand:
            continue
        inp = ev.get("input") or {}
        if inp.get("event") == "card_played" and inp.get("card") == card:
            return ev
        if inp.get("event") == "hand_dealt" and inp.get("upcard") == card:
            return ev
    return None


def _not_of_this_deck(raised: StoredEvent) -> str:
    """A foreign card as its alert names it: by how it is printed when that is another
    marker family (the input's ``family``), else as not of this deck."""
    family = (raised.get("input") or {}).get("family")
    try:
        return f"printed with {PRINTED[Printing(family)]} (another deck's)"
    except ValueError:
        return "not of this deck"


__all__ = ["DECK_HEADS", "DECK_KINDS", "deck_evidence"]
