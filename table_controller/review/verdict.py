"""What the review says of a game: each decision, its two verdicts, and each seat's
costliest decisions (the types, and their words).

Everything here is a frozen dataclass: the review page, the dashboard, the export and
the kiosk's coach read it, none of them changes it. A decision keeps the rules' own
event (``chosen``) beside its words (``label``), so a reader can draw the card or the
call and a person reads the sentence; no label carries a code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from table_controller.cards import Card
from table_controller.present import SEAT_NAMES, card_words, suit_name
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    DealerDiscarded,
    InputEvent,
    OrderedUp,
    Passed,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.presets import Rules
from table_controller.seats import Seat


class View(Enum):
    """Which cards a verdict was worked out with."""

    EXACT = "exact"  # every hand known, once the hand is over: the solver's answer
    PLAYER = "player"  # what the seat knew then: the hidden cards sampled


VIEW_WORDS = {
    View.EXACT: "with all hands known",
    View.PLAYER: "from the player's own view",
}


class Kind(Enum):
    """What sort of decision it was."""

    BID = "bid"  # pass, order up, call or name a suit, a Bid Euchre bid
    DISCARD = "discard"  # the dealer's discard after picking up
    PLAY = "play"  # a card played to a trick


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice the seat had, and what it was worth: the points the seat's side gains
    on the other side in this hand (its points minus theirs, as the preset scores the
    hand), with perfect play after it (exact) or on average over the deals sampled."""

    event: InputEvent
    label: str
    points: float


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verdict on one decision from one view.

    ``best`` is the choice worth the most (the first of equals, the one made if it is
    among them); ``cost`` is how many points the choice made was worth less than it
    (never below 0: 0 means the choice made was as good as any); ``deals`` how many
    deals of the hidden cards it was worked out on (1 for the exact view). ``choices``
    lists every choice weighed, best first."""

    view: View
    best: Choice
    cost: float
    deals: int
    choices: tuple[Choice, ...]

    @property
    def words(self) -> str:
        """How the verdict was reached, for a person: "with all hands known" or "from
        the player's own view, over 24 deals"."""
        if self.view is View.EXACT:
            return VIEW_WORDS[self.view]
        deals = "1 deal" if self.deals == 1 else f"{self.deals} deals"
        return f"{VIEW_WORDS[self.view]}, over {deals}"


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a seat: a bid, the dealer's discard, or a card played.

    Its key is ``(hand, index)``: ``hand`` the 1-based number of the hand in the game,
    as the rules number it (``HandStarted.hand``: every deal counts, a deal thrown in
    too), and ``index`` its 0-based position among that hand's decisions, in the order
    they happened. In a match of several games (best of three) hands are numbered
    afresh in each game, so there the key is ``(game, hand, index)``; ``game`` is 1 in a
    single game. What counts as a decision: an event of the seat whose turn it was,
    applied by the rules, that is a bid (pass, order up, a suit called or named, a bid),
    the dealer's discard (when its card is known) or a card played; an act out of turn,
    a card taken back, a claim or a ruling is not one (``is_decision`` in analysis.py).

    ``exact`` and ``player`` are the two verdicts; either is None when it could not be
    worked out, and ``unanalysed`` then says why, in words."""

    game: int
    hand: int
    index: int
    seat: Seat
    kind: Kind
    chosen: InputEvent
    label: str
    trick: int | None  # the 1-based trick a card was played to; None for a bid
    exact: Verdict | None
    player: Verdict | None
    unanalysed: str = ""

    @property
    def key(self) -> tuple[int, int]:
        """``(hand, index)``, the key the review page joins on."""
        return (self.hand, self.index)

    @property
    def cost(self) -> float:
        """The points it cost: the exact verdict's where there is one, else the player's
        view's, else 0."""
        return self.cost_from(View.EXACT)

    def verdict(self, view: View = View.EXACT) -> Verdict | None:
        """The verdict from ``view``, or from the other view where that one is missing."""
        first, other = (
            (self.exact, self.player) if view is View.EXACT else (self.player, self.exact)
        )
        return first if first is not None else other

    def cost_from(self, view: View) -> float:
        """The points it cost from ``view`` (the other view's where that one is missing;
        0 where neither could be worked out)."""
        verdict = self.verdict(view)
        return 0.0 if verdict is None else verdict.cost


@dataclass(frozen=True, slots=True)
class HandReview:
    """The decisions of one hand that ended, in the order they happened."""

    game: int
    hand: int
    dealer: Seat
    decisions: tuple[Decision, ...]
    note: str = ""  # a word on the hand as a whole (thrown in, not analysed, ...)
    upcard: Card | None = None  # the card turned up (what an order-up takes)


@dataclass(frozen=True, slots=True)
class Costly:
    """One of a seat's costliest decisions, with the sentence a person reads."""

    decision: Decision
    text: str


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """A seat's costliest decisions (at most three, costliest first; only decisions that
    cost points), and the points all its decisions cost, from ``view`` (a decision
    without that view's verdict counts by the other's)."""

    seat: Seat
    costliest: tuple[Costly, ...]
    total_cost: float
    decisions: int
    view: View = View.EXACT

    @property
    def text(self) -> str:
        """The summary in one paragraph, for the coach's panel and the review page."""
        name = SEAT_NAMES[self.seat]
        if not self.costliest:
            return f"{name}: no decision cost points."
        lines = "; ".join(c.text for c in self.costliest)
        return f"{name}'s costliest decisions: {lines}."


@dataclass(frozen=True, slots=True)
class GameReview:
    """A game reviewed: each finished hand with the verdict on every decision, and each
    seat's costliest decisions.

    Only hands that ended are reviewed: while a hand is being played nothing of it is
    analysed, so the review never tells a card still held. ``hand_in_play`` names that
    hand (None when none is); ``skipped`` lists, in words, the events of the log the
    rules refused and that were left out, as the table itself left them out."""

    rules: Rules
    hands: tuple[HandReview, ...]
    summaries: tuple[SeatSummary, ...]  # one per seat, North first
    deals: int  # the deals sampled for each player's-view verdict, at most
    hand_in_play: tuple[int, int] | None = None  # (game, hand) not yet over
    skipped: tuple[str, ...] = ()

    def decision(self, hand: int, index: int, game: int = 1) -> Decision:
        """The decision with that key (KeyError if there is none)."""
        for h in self.hands:
            if h.game == game and h.hand == hand:
                for d in h.decisions:
                    if d.index == index:
                        return d
        raise KeyError((game, hand, index))

    def summary(self, seat: Seat, view: View = View.EXACT) -> SeatSummary:
        """The seat's costliest decisions, ranked by the exact verdicts (as in
        ``summaries``) or from the player's own view (what the seat could have known:
        the kiosk's coach may prefer it)."""
        if view is View.EXACT:
            return self.summaries[seat]
        return summarise(self.hands, seat, view)

    @property
    def in_play_text(self) -> str:
        """A sentence on the hand still in play, or ""."""
        if self.hand_in_play is None:
            return ""
        _, hand = self.hand_in_play
        return f"Hand {hand} is still being played: it is reviewed once it ends."


# --- words -------------------------------------------------------------------------


def choice_label(event: InputEvent, *, upcard: Card | None = None, naming: bool = False) -> str:
    """A choice in words, as a person would say it: "Passed", "Ordered up the Jack of
    Hearts, alone", "Called Spades", "Bid 3 in Hearts", "Played the Ace of Clubs".
    ``upcard``: the card turned up (for an order up); ``naming``: a suit named by the
    winner of the bidding (Bid Euchre), not called in the second round."""
    alone = ", alone" if getattr(event, "alone", False) else ""
    if isinstance(event, Passed):
        return "Passed"
    if isinstance(event, OrderedUp):
        what = f" the {card_words(upcard)}" if upcard is not None else ""
        return f"Ordered up{what}{alone}"
    if isinstance(event, TrumpCalled):
        if naming:
            return "Named no trump" if event.trump is None else f"Named {suit_name(event.trump)}"
        return f"Called {suit_name(event.trump)}{alone}"
    if isinstance(event, TrumpBid):
        return f"Bid {event.amount} in {suit_name(event.trump)}"
    if isinstance(event, BidMade):
        return f"Bid {event.amount}"
    if isinstance(event, DealerDiscarded):
        return "Discarded" if event.card is None else f"Discarded the {card_words(event.card)}"
    if isinstance(event, CardPlayed):
        return f"Played the {card_words(event.card)}"
    return "Acted"


def points_words(points: float) -> str:
    """A cost in points: "1 point", "2 points", "0.4 points"."""
    value = round(points, 1)
    if value == int(value):
        n = int(value)
        return "1 point" if n == 1 else f"{n} points"
    return f"{value} points"


TOP = 3  # costliest decisions named per seat


def summarise(hands: Sequence[HandReview], seat: Seat, view: View = View.EXACT) -> SeatSummary:
    """A seat's costliest decisions from ``view`` (those that cost points, costliest
    first, at most three; ties go to the one the other view finds costlier, then the
    earlier) and the points its decisions cost in all."""
    other = View.PLAYER if view is View.EXACT else View.EXACT
    mine = [d for h in hands for d in h.decisions if d.seat == seat]
    costly = sorted(
        (d for d in mine if d.cost_from(view) > 0.0),
        key=lambda d: (-d.cost_from(view), -d.cost_from(other), d.game, d.hand, d.index),
    )[:TOP]
    total = sum(d.cost_from(view) for d in mine)
    texts = tuple(Costly(d, costly_text(d, view)) for d in costly)
    return SeatSummary(seat, texts, total, len(mine), view)


def costly_text(decision: Decision, view: View = View.EXACT) -> str:
    """One costly decision in a sentence (without a full stop): "hand 3, trick 2: played
    the Nine of Clubs, cost 2 points (best: played the Ace of Spades, with all hands
    known)"."""
    where = f"hand {decision.hand}"
    if decision.game > 1:
        where = f"game {decision.game}, {where}"
    if decision.trick is not None:
        where += f", trick {decision.trick}"
    verdict = decision.verdict(view)
    what = decision.label[0].lower() + decision.label[1:]
    if verdict is None:
        return f"{where}: {what}"
    best = verdict.best.label[0].lower() + verdict.best.label[1:]
    return f"{where}: {what}, cost {points_words(verdict.cost)} (best: {best}, {verdict.words})"


__all__ = [
    "VIEW_WORDS",
    "Choice",
    "Costly",
    "Decision",
    "GameReview",
    "HandReview",
    "Kind",
    "SeatSummary",
    "Verdict",
    "View",
    "choice_label",
    "costly_text",
    "points_words",
    "summarise",
]
