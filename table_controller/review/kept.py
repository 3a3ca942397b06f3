"""A game's verdicts as they are kept and drawn: what the review page shows beside each
decision, in a person's words, and what the table and the director keep of an analysis
so that nobody waits for it twice.

Why a form of its own rather than the analysis's ``GameReview``: the analysis is worked
out once, in a process of its own, when a hand or a game ends (``runner.py``), and its
result is kept with the game's log (at the table) or in the store (at the director) and
read back long after, by another version of the program maybe. So what is kept is small,
plain and versioned: each decision's two verdicts as words and numbers (the better
choice with its cards drawn as the page draws them, "play the A♠"), and each seat's
costliest decisions by their keys. ``KeptReview.to_json`` and ``from_json`` are its one
written form; ``from_json`` refuses, in words, what it cannot read.

A ``KeptReview`` also says where the analysis stands for the page: ``ready`` (its
verdicts), ``working`` ("The verdicts are being worked out..."), or ``failed`` (why, in
words): the page never waits for it and always shows the replay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from table_controller.cards import Card
from table_controller.present import SEAT_NAMES, suit_text
from table_controller.review.errors import ReviewError
from table_controller.review.verdict import GameReview, Verdict, View, points_words
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
from table_controller.seats import Seat

FORMAT = 1  # the written form's version: a form not known is refused, never misread
LEAST = 0.05  # a cost under this is the samples' noise: shown as no cost
WORKING = "The verdicts are being worked out..."

Key = tuple[int, int, int]  # (game of the match, hand, decision)
State = Literal["ready", "working", "failed"]


@dataclass(frozen=True, slots=True)
class KeptVerdict:
    """One view's verdict on a decision (satisfies the page's ``PageVerdict``): the
    points it cost, the best choice in words ("play the A♠"), the view in words, and
    the deals sampled (1 with all hands known)."""

    cost: float
    best: str
    view: str
    deals: int
    exact: bool  # worked out with all hands known

    @property
    def costly(self) -> bool:
        return self.cost >= LEAST

    @property
    def words(self) -> str:
        """The verdict in a sentence: "With all hands known: cost 2 points; better: play
        the A♠." or "From the player's own view, over 24 deals sampled: no cost, the
        best choice." """
        how = self.view[0].upper() + self.view[1:]
        if not self.exact:
            how += f", over {self.deals} deal{'s' * (self.deals != 1)} sampled"
        if not self.costly:
            return f"{how}: no cost, the best choice."
        return f"{how}: cost {points_words(self.cost)}; better: {self.best}."


@dataclass(frozen=True, slots=True)
class KeptDecision:
    """One decision and its verdicts, as kept: its key, whose it was, what was done in
    words ("played the 9♣"), the trick (None for a bid or a discard)."""

    game: int
    hand: int
    index: int
    seat: Seat
    did: str
    trick: int | None
    exact: KeptVerdict | None
    player: KeptVerdict | None
    unanalysed: str = ""

    @property
    def key(self) -> Key:
        return (self.game, self.hand, self.index)

    @property
    def cost(self) -> float:
        """The points it cost with all hands known, else from the player's view."""
        verdict = self.exact or self.player
        return 0.0 if verdict is None else verdict.cost

    @property
    def costly(self) -> bool:
        return self.cost >= LEAST

    def where(self, match: bool) -> str:
        """ "Hand 3, trick 2", "Game 2, hand 1, the bidding"."""
        at = f"Game {self.game}, hand {self.hand}" if match else f"Hand {self.hand}"
        if self.trick is not None:
            return f"{at}, trick {self.trick}"
        return f"{at}, {'the discard' if self.did.startswith('discarded') else 'the bidding'}"


@dataclass(frozen=True)
class KeptReview:
    """A game's analysis as kept: the verdict on each decision of the hands analysed,
    each seat's costliest decisions (keys, costliest first, at most three, with all
    hands known where that view was worked out), and the deals sampled a decision.
    ``hands``: the (game, hand) analysed, so a reader knows what is still to do."""

    state: State
    decisions: tuple[KeptDecision, ...] = ()
    costliest: Mapping[Seat, tuple[Key, ...]] = field(default_factory=dict)
    deals: int = 0
    hands: tuple[tuple[int, int], ...] = ()
    problem: str = ""  # why the analysis failed, in words

    @classmethod
    def working(cls, done: KeptReview | None = None) -> KeptReview:
        """Being worked out (with what is already done, if anything)."""
        if done is None:
            return cls("working")
        return KeptReview(
            "working", done.decisions, done.costliest, done.deals, done.hands, done.problem
        )

    @classmethod
    def failed(cls, problem: str) -> KeptReview:
        return cls("failed", problem=problem)

    def by_key(self) -> dict[Key, KeptDecision]:
        return {d.key: d for d in self.decisions}

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "state": self.state,
                "deals": self.deals,
                "problem": self.problem,
                "hands": [list(h) for h in self.hands],
                "costliest": {s.name: [list(k) for k in ks] for s, ks in self.costliest.items()},
                "decisions": [_decision_json(d) for d in self.decisions],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> KeptReview:
        """The analysis kept as ``text``; ReviewError, in words, when it cannot be read."""
        try:
            raw = json.loads(text)
            if raw.get("format") != FORMAT:
                raise ValueError(f"its form is {raw.get('format')!r}, this program reads {FORMAT}")
            state = raw["state"]
            if state not in ("ready", "working", "failed"):
                raise ValueError(f"unknown state {state!r}")
            return cls(
                state,
                tuple(_decision_from(d) for d in raw["decisions"]),
                {Seat[s]: tuple(_key(k) for k in ks) for s, ks in raw["costliest"].items()},
                int(raw["deals"]),
                tuple((int(g), int(h)) for g, h in raw["hands"]),
                str(raw["problem"]),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ReviewError(
                f"the verdicts kept for this game cannot be read ({exc}); they are worked out again"
            ) from None


def merge(old: KeptReview | None, new: KeptReview) -> KeptReview:
    """``new``'s hands added to ``old``'s (a hand analysed in both: ``new``'s), and each
    seat's costliest decisions ranked again over them all."""
    if old is None or old.state != "ready":
        return new
    if new.state != "ready":
        return new
    fresh = set(new.hands)
    decisions = [d for d in old.decisions if (d.game, d.hand) not in fresh]
    decisions += new.decisions
    decisions.sort(key=lambda d: d.key)
    hands = tuple(sorted(set(old.hands) | fresh))
    return KeptReview("ready", tuple(decisions), _costliest(decisions), new.deals, hands)


def kept_review(review: GameReview) -> KeptReview:
    """The analysis's ``GameReview`` in its kept form."""
    decisions: list[KeptDecision] = []
    for hand in review.hands:
        for d in hand.decisions:
            decisions.append(
                KeptDecision(
                    d.game,
                    d.hand,
                    d.index,
                    d.seat,
                    _did(d.chosen, hand.upcard),
                    d.trick,
                    _verdict(d.exact, hand.upcard),
                    _verdict(d.player, hand.upcard),
                    d.unanalysed,
                )
            )
    hands = tuple((h.game, h.hand) for h in review.hands)
    return KeptReview("ready", tuple(decisions), _costliest(decisions), review.deals, hands)


TOP = 3


def _costliest(decisions: Iterable[KeptDecision]) -> dict[Seat, tuple[Key, ...]]:
    """Each seat's costliest decisions: by the exact cost (the player's view where that
    is missing), ties to the one the player's view finds costlier, then the earlier."""

    def rank(d: KeptDecision) -> tuple[float, float, Key]:
        player = d.player.cost if d.player is not None else 0.0
        return (-d.cost, -player, d.key)

    out: dict[Seat, tuple[Key, ...]] = {}
    for seat in Seat:
        mine = sorted((d for d in decisions if d.seat is seat and d.costly), key=rank)
        out[seat] = tuple(d.key for d in mine[:TOP])
    return out


def _verdict(verdict: Verdict | None, upcard: Card | None) -> KeptVerdict | None:
    if verdict is None:
        return None
    exact = verdict.view is View.EXACT
    view = "with all hands known" if exact else "from the player's own view"
    return KeptVerdict(verdict.cost, _to(verdict.best.event, upcard), view, verdict.deals, exact)


def _alone(event: InputEvent) -> str:
    return ", alone" if getattr(event, "alone", False) else ""


def _did(event: InputEvent, upcard: Card | None) -> str:
    """What was done, cards as the page draws them: "played the 9♣", "passed"."""
    if isinstance(event, Passed):
        return "passed"
    if isinstance(event, OrderedUp):
        up = f" the {upcard.pretty}" if upcard is not None else ""
        return f"ordered up{up}{_alone(event)}"
    if isinstance(event, TrumpCalled):
        return f"called {suit_text(event.trump)}{_alone(event)}"
    if isinstance(event, TrumpBid):
        return f"bid {event.amount} in {suit_text(event.trump)}"
    if isinstance(event, BidMade):
        return f"bid {event.amount}"
    if isinstance(event, DealerDiscarded):
        return "discarded" if event.card is None else f"discarded the {event.card.pretty}"
    if isinstance(event, CardPlayed):
        return f"played the {event.card.pretty}"
    return "acted"


def _to(event: InputEvent, upcard: Card | None) -> str:
    """The better choice, as advice: "play the A♠", "order up the J♥, alone", "pass"."""
    did = _did(event, upcard)
    for past, to in (
        ("passed", "pass"),
        ("ordered up", "order up"),
        ("called", "call"),
        ("bid", "bid"),
        ("discarded", "discard"),
        ("played", "play"),
    ):
        if did.startswith(past):
            return to + did[len(past) :]
    return did


def costly_words(decision: KeptDecision, match: bool) -> str:
    """A costly decision in a line for the summary: "Hand 3, trick 2: played the 9♣,
    cost 2 points with all hands known; better: play the A♠"."""
    verdict = decision.exact or decision.player
    where = decision.where(match)
    if verdict is None:
        return f"{where}: {decision.did}"
    how = verdict.view if verdict.exact else f"{verdict.view} ({verdict.deals} deals sampled)"
    return (
        f"{where}: {decision.did}, cost {points_words(verdict.cost)} {how}; better: {verdict.best}"
    )


def seat_heading(seat: Seat, name: str) -> str:
    return f"{name} ({SEAT_NAMES[seat]})" if name else SEAT_NAMES[seat]


# --- the written form ------------------------------------------------------------------


def _verdict_json(v: KeptVerdict | None) -> object:
    if v is None:
        return None
    return {"cost": v.cost, "best": v.best, "view": v.view, "deals": v.deals, "exact": v.exact}


def _verdict_from(raw: object) -> KeptVerdict | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TypeError("a verdict is not an object")
    return KeptVerdict(
        float(raw["cost"]),
        str(raw["best"]),
        str(raw["view"]),
        int(raw["deals"]),
        bool(raw["exact"]),
    )


def _decision_json(d: KeptDecision) -> object:
    return {
        "key": list(d.key),
        "seat": d.seat.name,
        "did": d.did,
        "trick": d.trick,
        "exact": _verdict_json(d.exact),
        "player": _verdict_json(d.player),
        "unanalysed": d.unanalysed,
    }


def _key(raw: object) -> Key:
    if not isinstance(raw, list) or len(raw) != 3:
        raise ValueError("a decision's key is three numbers")
    g, h, i = (int(x) for x in raw)
    return (g, h, i)


def _decision_from(raw: dict[str, object]) -> KeptDecision:
    g, h, i = _key(raw["key"])
    trick = raw["trick"]
    return KeptDecision(
        g,
        h,
        i,
        Seat[str(raw["seat"])],
        str(raw["did"]),
        None if trick is None else int(trick),  # type: ignore[call-overload]
        _verdict_from(raw["exact"]),
        _verdict_from(raw["player"]),
        str(raw["unanalysed"]),
    )


__all__ = [
    "WORKING",
    "KeptDecision",
    "KeptReview",
    "KeptVerdict",
    "Key",
    "costly_words",
    "kept_review",
    "merge",
    "seat_heading",
]
