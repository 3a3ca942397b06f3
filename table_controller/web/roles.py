"""Who may enter which event at a table (pure): the seats, the camera, the director.

A table trusts what it can witness. Each input event has one way in:

- **A seat's choice** (``SEAT``): what the seat buttons, the cube and the page's touch
  buttons give (a pass, an order up, a call, a bid, the dealer's face-down discard, the
  exchange, the remedy after a bid out of turn, the first dealer where the players
  choose), and the one claim the rules texts let a player make at the table: a renege.
  003 RENEGE: "If a renege is alleged but ultimately not proven, the team falsely
  accused by their opponent's scores 2 points"; 000 s1: "If renegging is caught after the
  next trick/hand has begun..."; the rules then judge it from the cards played.
- **A card** (``CAMERA``): a card played, cut, dealt face up, dropped, taken back, laid
  down, the upcard of a deal; and what the camera alone can see of the deck (a second
  copy of a card, a card not of this deck, a card turned up in the kitty). Only the
  camera may say a card was laid: it is the table's witness, and its picture is the
  evidence a renege is proven with (001 s22: "All revokes must be supported by evidence
  of cards played"). A card tapped on a page proves nothing and has no picture, so the
  page never plays one, not even on a simulated table (its simulated players lay their
  cards before its simulated camera).
- **The director's** (``DIRECTOR``): a score adjusted, a hand voided, a misdeal, a
  wrong card count, a hand of nines. They change a score or throw a hand in on someone's
  word, so they come only as a ruling the director signed (feed/signing.py), or from the
  table's own operator after the operator's PIN on this table.

An event kind the table does not know is left to the codec, which names the kinds.
"""

from __future__ import annotations

from table_controller.rules.codec import INPUT_BY_NAME

SEAT = frozenset(
    {
        "dealer_chosen",
        "passed",
        "ordered_up",
        "trump_called",
        "bid_made",
        "trump_bid",
        "dealer_discarded",
        "cards_exchanged",
        "penalty_accepted",
        "renege_claimed",
    }
)
CAMERA = frozenset(
    {
        "face_up_card_dealt",
        "card_cut",
        "hand_dealt",
        "card_played",
        "card_taken_back",
        "card_dropped",
        "hand_laid_down",
        "second_copy_seen",
        "foreign_card_seen",
        "kitty_card_seen",
    }
)
DIRECTOR = frozenset(
    {"score_adjusted", "hand_voided", "misdeal_declared", "wrong_card_count", "all_nines_shown"}
)

OPERATOR_FIX = (
    "the director rules it from the dashboard (a signed ruling), or the table's operator "
    "enters it on this page after the operator's PIN"
)
NO_OPERATOR_FIX = (
    "the director rules it from the dashboard (a signed ruling); for an operator at this "
    "table, set [web] operator_pin_hash in its config (`table-controller kiosk pin` makes one)"
)


def page_refusal(kind: object, *, operator: bool, operator_pin: bool) -> tuple[str, str] | None:
    """Why the page may not enter an event of ``kind`` (problem, what to do), or None.
    ``operator``: the request carries an operator session; ``operator_pin``: the table
    has an operator PIN at all."""
    if not isinstance(kind, str) or kind in SEAT or kind not in INPUT_BY_NAME:
        return None
    if kind in CAMERA:
        return (
            f"{kind} is a card, and cards are read by the camera, never taken from the page",
            "lay the card in its zone under the camera; if the camera cannot read it, call "
            "the director",
        )
    if operator:
        return None
    problem = f"{kind} is the director's to enter, not a player's"
    return (problem, OPERATOR_FIX if operator_pin else NO_OPERATOR_FIX)


__all__ = ["CAMERA", "DIRECTOR", "NO_OPERATOR_FIX", "OPERATOR_FIX", "SEAT", "page_refusal"]
