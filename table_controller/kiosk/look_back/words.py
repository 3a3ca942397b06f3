"""The look back in the words a visitor reads on the page (``CoachReview``): for each of
their costliest decisions, which hand, what they did, what was better, what it cost their
side in points, and which view says so ("from what you could see" or "with every hand
known"). The cards are drawn beside the words as the page draws cards; no seat letter,
code or internal name is shown.
"""

from __future__ import annotations

from collections.abc import Mapping

from table_controller.kiosk.look_back.work import Looked
from table_controller.present import (
    SEAT_NAMES,
    CoachReview,
    CostlyShown,
    PageCard,
    SeatLookBack,
    page_card,
)
from table_controller.review import Choice, Decision, Kind, SeatSummary, View
from table_controller.rules.events import CardPlayed, DealerDiscarded, InputEvent
from table_controller.seats import Seat

LOOKING = "Looking over your game..."
FAILED = (
    "Your game could not be looked over this time. Play another game and the coach will "
    "look over that one."
)
VIEW_SAID = {
    View.PLAYER: "from what you could see",
    View.EXACT: "with every hand known",
}
NUMBERS = {1: "one", 2: "two", 3: "three"}
LEAST = 0.05  # a cost under this shows as 0 points: it is the samples' noise, not a lesson
_VERBS = (  # a choice's words (review/verdict.py choice_label): what was done, what to do
    ("Ordered up", "order up"),
    ("Discarded", "discard"),
    ("Played", "play"),
    ("Passed", "pass"),
    ("Called", "call"),
    ("Named", "name"),
    ("Bid", "bid"),
)


def looking() -> CoachReview:
    """While the game is being looked over."""
    return {"state": "looking", "text": LOOKING, "seats": []}


def failed() -> CoachReview:
    """When it could not be (the kiosk's records say why, for the operator)."""
    return {"state": "failed", "text": FAILED, "seats": []}


def review_shown(looked: Looked, names: Mapping[Seat, str]) -> CoachReview:
    """``looked`` for the page: each visitor's costliest decisions, named as the page
    names them (one visitor is "you")."""
    if looked.problem or not looked.summaries:
        return failed()
    alone = len(looked.summaries) == 1
    seats = [_seat(s, names.get(s.seat, SEAT_NAMES[s.seat]), alone) for s in looked.summaries]
    whose = "what you could see" if alone else "what each of you could see"
    deals = "1 way" if looked.deals == 1 else f"{looked.deals} ways"
    text = (
        f"Each decision is weighed from {whose} when you made it: your cards and the cards "
        f"played. The bots' hidden cards were tried {deals}, so the points are an average."
    )
    return {"state": "ready", "text": text, "seats": seats}


def _seat(summary: SeatSummary, name: str, alone: bool) -> SeatLookBack:
    view = summary.view
    costly = [c for c in summary.costliest if _cost(c.decision, view) >= LEAST]
    who, whose = ("You", "Your") if alone else (name, f"{name}'s")
    count = NUMBERS.get(len(costly), str(len(costly)))
    if len(costly) == 3:
        title = f"{whose} three costliest decisions"
    elif costly:
        title = f"{whose} {count} decision{'s' if len(costly) > 1 else ''} that cost points"
    else:
        title = f"{whose} decisions"
    none = f"{who} made no decision that cost points. Well played." if not costly else ""
    side = "your side" if alone else f"{name}'s side"
    shown = [_costly(c.decision, view, who, side) for c in costly]
    return {"title": title, "costly": shown, "none": none}


def _cost(decision: Decision, view: View) -> float:
    verdict = decision.verdict(view)
    return 0.0 if verdict is None else verdict.cost


def _costly(decision: Decision, view: View, who: str, side: str) -> CostlyShown:
    verdict = decision.verdict(view)
    assert verdict is not None  # a costly decision has the verdict it was ranked by
    return {
        "where": where(decision),
        "did": f"{who} {did(decision.label)}.",
        "better": better(decision.label, verdict.best),
        "cost": cost_words(verdict.cost, verdict.view, side),
        "view": VIEW_SAID[verdict.view],
        "card": _card(decision.chosen),
        "best": _card(verdict.best.event),
    }


def where(decision: Decision) -> str:
    """Which hand, and which trick or part of it: "Hand 2, trick 3"."""
    at = f"Hand {decision.hand}"
    if decision.game > 1:
        at = f"Game {decision.game}, hand {decision.hand}"
    if decision.trick is not None:
        return f"{at}, trick {decision.trick}"
    return f"{at}, {'the discard' if decision.kind is Kind.DISCARD else 'the bidding'}"


def _split(label: str) -> tuple[str, bool, str]:
    """A choice's label as (its verb's rest, alone, the verb's infinitive): "Called
    Spades, alone" is ("called Spades as trump", True, "call Spades as trump")."""
    alone = label.endswith(", alone")
    base = label.removesuffix(", alone")
    for past, to in _VERBS:
        if base.startswith(past):
            rest = base[len(past) :]
            trump = " as trump" if past in ("Called", "Named") and "no trump" not in rest else ""
            return f"{past[0].lower()}{past[1:]}{rest}{trump}", alone, f"{to}{rest}{trump}"
    return base[0].lower() + base[1:], alone, base[0].lower() + base[1:]


def did(label: str) -> str:
    """What was done, after "You": "played the King of Hearts", "ordered up the Nine of
    Spades and went alone"."""
    done, alone, _ = _split(label)
    return done + (" and went alone" if alone else "")


def better(label: str, best: Choice) -> str:
    """What was better, as a sentence."""
    done, alone, _ = _split(label)
    best_done, best_alone, best_to = _split(best.label)
    if best_done == done and alone and not best_alone:
        return "It was better to play it with your partner, not alone."
    if best_done == done and best_alone and not alone:
        return "It was better to go alone."
    return f"It was better to {best_to}{' and go alone' if best_alone else ''}."


def points(cost: float) -> str:
    """Points as a person reads them: "1 point", "3 points", "1.3 points"."""
    value = round(cost, 1)
    if value == int(value):
        return "1 point" if int(value) == 1 else f"{int(value)} points"
    return f"{value} points"


def cost_words(cost: float, view: View, side: str) -> str:
    """What it cost: an average of the deals tried from the player's view, exact with
    every hand known."""
    if view is View.PLAYER:
        return f"That cost {side} {points(cost)} on average."
    return f"That cost {side} {points(cost)}."


def _card(event: InputEvent) -> PageCard | None:
    card = event.card if isinstance(event, CardPlayed | DealerDiscarded) else None
    return None if card is None else page_card(card)


__all__ = [
    "FAILED",
    "LOOKING",
    "VIEW_SAID",
    "better",
    "cost_words",
    "did",
    "failed",
    "looking",
    "points",
    "review_shown",
    "where",
]
