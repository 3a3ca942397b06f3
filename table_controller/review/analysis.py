"""A finished game's decisions, each with its verdict: what it cost against the best
choice with all hands known (exact) and from the player's own view (sampled).

``analyse_game(rules, events, rng)`` replays the game's log as the table did (an event
the rules refuse is left out, as the table left it out at every start) and splits it
into hands. Each hand that ended is then played again on its own, from a game that
starts at its deal, with the hands known: the deal as the log carries it (a kiosk, a
simulated table, the bots), or, at a live table whose deal carries no hands, the deal
put together from the cards each seat played (and the dealer's discard). Before each
decision the position is valued both ways (minimax.py) and the choice made is set
against the best one. Where a seat's cards were never all seen (it sat out, the
discard lay face down), what needs them is not worked out and the decision says so: a
card's exact verdict needs the hands still in play, a bid's all four, the player's view
only the seat's own.

The values are the points of the hand as the preset scores it, the seat's side's minus
the other side's. Exact: both sides play perfectly after the choice, the bidding solved
by minimax with every hand open. Player's view: the mean over the deals sampled, the
cards solved, a bid weighed as the strong bot weighs it (the rest of the bidding by the
rule of thumb), among the calls the strong bot weighs and the one made.

A hand still in play is not analysed at all, so the review never tells a card still in
a hand; the review names it (``GameReview.hand_in_play``). A log that is not a game's
log (an event that does not read) is refused with ``ReviewError``.

Pure: no clock unless one is given (``ReviewOptions``), randomness only from the
``random.Random`` passed in, no IO. Each decision samples with its own generator,
seeded from the one passed in and the decision's key, so one decision's verdict does
not depend on what any other seat's view drew.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_controller.bots.knowledge import SeatView, ViewKeeper
from table_controller.cards import Card
from table_controller.clip import clip
from table_controller.present import SEAT_NAMES
from table_controller.review.errors import ReviewError
from table_controller.review.minimax import (
    Exact,
    Sampled,
    SolverFactory,
    Weighed,
    side,
    solver_factory,
)
from table_controller.review.verdict import (
    Choice,
    Decision,
    GameReview,
    HandReview,
    Kind,
    Verdict,
    View,
    choice_label,
    summarise,
)
from table_controller.rules.codec import CodecError, decode_input
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    HandScored,
    HandStarted,
    HandThrownIn,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Rules
from table_controller.rules.replay import OnError, replay
from table_controller.seats import SEATS, Seat

DEFAULT_DEALS = 24  # deals sampled for a player's-view verdict


@dataclass(frozen=True)
class ReviewOptions:
    """How hard the review works. ``deals``: the deals of the hidden cards sampled for
    each player's-view verdict; ``compiled``: the compiled solver where it was built
    (False: its pure Python); ``clock`` and ``budget`` (seconds a decision, both or
    neither): sampling also stops when the budget is spent, at one deal at least."""

    deals: int = DEFAULT_DEALS
    compiled: bool = True
    clock: Callable[[], float] | None = None
    budget: float | None = None
    solvers: SolverFactory | None = None  # overrides ``compiled`` (tests, benchmarks)
    # The (game, hand) already analysed and kept: not analysed again (a hand's end
    # analyses only the hands not yet done; kept.py ``merge`` joins them).
    done: frozenset[tuple[int, int]] = frozenset()


_BIDS = (Passed, OrderedUp, TrumpCalled, BidMade, TrumpBid)


def is_decision(game: Game, event: InputEvent) -> Kind | None:
    """What kind of decision ``event`` is in ``game`` (the state before it), or None: a
    bid of the seat whose turn it is to bid or name trump, the dealer's discard where its
    card is known, a card of the seat whose turn it is to play."""
    phase, to_act = game.phase, game.to_act
    seat = getattr(event, "seat", None)
    if isinstance(event, _BIDS):
        if phase in (Phase.BIDDING, Phase.NAMING_TRUMP) and seat == to_act:
            return Kind.BID
        return None
    if isinstance(event, DealerDiscarded):
        return Kind.DISCARD if phase is Phase.DISCARDING and event.card is not None else None
    if isinstance(event, CardPlayed) and phase is Phase.PLAYING and seat == to_act:
        hand = game.hand
        return Kind.PLAY if hand is not None and hand.trick is not None else None
    return None


@dataclass(frozen=True)
class _Step:
    """One event of a hand, and, if it is a decision, whose it is and its words."""

    event: InputEvent
    kind: Kind | None = None
    seat: Seat | None = None
    trick: int | None = None
    label: str = ""


@dataclass
class _Hand:
    """One hand of the log: its deal, its events, and whether it ended."""

    game: int
    number: int
    dealer: Seat
    dealt: HandDealt
    steps: list[_Step] = field(default_factory=list)
    end: OutputEvent | None = None  # HandScored or HandThrownIn

    @property
    def events(self) -> list[InputEvent]:
        return [s.event for s in self.steps]


def analyse_game(
    rules: Rules,
    events: Iterable[InputEvent | Mapping[str, Any]],
    rng: random.Random,
    options: ReviewOptions | None = None,
) -> GameReview:
    """The review of a game played under ``rules`` from its log (input events, or the
    JSON objects the codec writes). Hands that ended are analysed; a hand in play is not.
    Raises ReviewError for a log that is not a game's log."""
    opts = options or ReviewOptions()
    if (opts.clock is None) != (opts.budget is None):
        raise ReviewError("a time budget needs a clock, and a clock a budget: give both or neither")
    if opts.deals < 1:
        raise ReviewError(
            f"the player's view needs at least one deal sampled a decision, not {opts.deals}"
        )
    log = _read(events)
    replayed = replay(rules, log, on_error=OnError.SKIP)
    skipped = tuple(f"event {p.index + 1} was left out: {p.text}" for p in replayed.problems)
    hands, in_play = _hands(rules, [s.event for s in replayed.steps])
    hands = [h for h in hands if (h.game, h.number) not in opts.done]
    solvers = opts.solvers or solver_factory(compiled=opts.compiled)
    sampled = Sampled(rules, solvers, opts.deals, opts.clock, opts.budget)
    base = rng.getrandbits(64)
    reviews = tuple(_review_hand(rules, h, solvers, sampled, base) for h in hands)
    return GameReview(
        rules=rules,
        hands=reviews,
        summaries=tuple(summarise(reviews, seat) for seat in SEATS),
        deals=opts.deals,
        hand_in_play=in_play,
        skipped=skipped,
    )


def _read(events: Iterable[InputEvent | Mapping[str, Any]]) -> list[InputEvent]:
    if isinstance(events, str | bytes | Mapping) or not isinstance(events, Iterable):
        raise ReviewError(
            "a game's log is a list of its events; this is not one. Export the game's "
            "log from the table again (table-controller log export) and review that"
        )
    out: list[InputEvent] = []
    for i, item in enumerate(events):
        if isinstance(item, InputEvent):
            out.append(item)
            continue
        try:
            if not isinstance(item, Mapping):
                raise CodecError(f"{type(item).__name__} is not an event")
            out.append(decode_input(item))
        except CodecError as exc:
            raise ReviewError(
                f"event {i + 1} of the log cannot be read ({exc}), so the game cannot be "
                "reviewed: export the game's log from the table again and review that"
            ) from None
    return out


def _hands(
    rules: Rules, applied: Sequence[InputEvent]
) -> tuple[list[_Hand], tuple[int, int] | None]:
    """The log's hands that ended, and the (game, hand) still in play, if any."""
    whole = Game(rules)
    done: list[_Hand] = []
    current: _Hand | None = None
    for event in applied:
        if type(event) is HandDealt:
            assert whole.dealer is not None
            current = _Hand(whole.game, whole.deals + 1, whole.dealer, event)
            outputs = whole.push(event)
            started = next(o for o in outputs if isinstance(o, HandStarted))
            current.number = started.hand
            continue
        step = _step(whole, event) if current is not None else None
        outputs = whole.push(event)
        if current is None or step is None:
            continue
        current.steps.append(step)
        for out in outputs:
            if isinstance(out, HandScored | HandThrownIn) and out.hand == current.number:
                current.end = out
        if current.end is not None:
            done.append(current)
            current = None
    in_play = None if current is None else (current.game, current.number)
    return done, in_play


def _step(game: Game, event: InputEvent) -> _Step:
    """``event`` as a step of the hand in ``game`` (the state before it)."""
    kind = is_decision(game, event)
    hand = game.hand
    if kind is None or hand is None:
        return _Step(event)
    seat = hand.dealer if isinstance(event, DealerDiscarded) else game.to_act
    assert seat is not None
    trick = hand.trick.number if kind is Kind.PLAY and hand.trick is not None else None
    naming = game.phase is Phase.NAMING_TRUMP
    return _Step(event, kind, seat, trick, choice_label(event, upcard=hand.upcard, naming=naming))


def _review_hand(
    rules: Rules, hand: _Hand, solvers: SolverFactory, sampled: Sampled, base: int
) -> HandReview:
    deal, missing = complete_deal(rules, hand.dealer, hand.dealt, hand.events)
    why = _replays_alike(rules, hand, deal)  # "": the hand can be followed
    game = Game(rules)
    keeper = ViewKeeper(rules)
    for event in [DealerChosen(hand.dealer), deal]:
        keeper.push(event, game.push(event))
    exact = Exact(rules, solvers)
    decisions: list[Decision] = []
    for step in hand.steps:
        event = step.event
        if step.kind is not None:
            assert step.seat is not None
            index = len(decisions)
            decision = Decision(
                hand.game,
                hand.number,
                index,
                step.seat,
                step.kind,
                event,
                step.label,
                step.trick,
                None,
                None,
                why,
            )
            if not why:
                rng = random.Random(f"{base}:{hand.game}:{hand.number}:{index}")
                view = keeper.view(step.seat)
                try:
                    decision = _decide(decision, game, view, exact, sampled, rng, missing)
                except Exception as exc:  # a bug: this decision unanalysed, the rest goes on
                    why_not = f"it could not be analysed ({clip(exc)}); please report this"
                    decision = dataclasses.replace(decision, unanalysed=why_not)
            decisions.append(decision)
        if why:
            continue
        try:
            outputs = game.push(event)
        except RulesError as exc:
            why = f"the rest of the hand could not be followed ({exc.message})"
            continue
        keeper.push(event, outputs)
    said = why or missing
    notes = ["Thrown in: nobody scored this deal."] if isinstance(hand.end, HandThrownIn) else []
    notes += [f"{said[0].upper()}{said[1:]}."] if said else []
    note = " ".join(notes)
    return HandReview(
        hand.game, hand.number, hand.dealer, tuple(decisions), note, hand.dealt.upcard
    )


def _decide(
    decision: Decision,
    game: Game,
    view: SeatView,
    exact: Exact,
    sampled: Sampled,
    rng: random.Random,
    missing: str,
) -> Decision:
    """``decision`` with both verdicts, from ``game`` just before it and ``view``, the
    seat's view then. ``missing``: which hands the game lacks, in words ("" if none): a
    card's exact verdict needs the hands still in play, a bid's or a discard's all four,
    the player's view only the seat's own."""
    event, seat, kind = decision.chosen, decision.seat, decision.kind
    hand = game.hand
    assert hand is not None
    if hand.known[seat] is None:
        return dataclasses.replace(decision, unanalysed=f"{missing}, so it is not analysed")
    if event not in game.legal_events():
        why = (
            "not a choice the rules allowed at that moment (a renege or an irregularity), "
            "so it is not costed"
        )
        return dataclasses.replace(decision, unanalysed=why)
    upcard, naming = hand.upcard, game.phase is Phase.NAMING_TRUMP

    def label_of(e: InputEvent) -> str:
        return choice_label(e, upcard=upcard, naming=naming)

    ns_values: dict[InputEvent, float] | None = None
    if kind is Kind.PLAY:
        if all(hand.known[s] is not None for s in SEATS if hand.active(s)):
            ns_values = exact.card_values(game)
        weighed = sampled.card_values(view, rng)
    else:
        if not missing:
            ns_values = exact.call_values(game)
        if kind is Kind.DISCARD:
            weighed = sampled.discard_values(view, rng)
        else:
            weighed = sampled.call_values(view, event, rng)
    whys = []
    exact_verdict = None
    if ns_values is not None:
        mine = {e: side(seat, v) for e, v in ns_values.items()}
        exact_verdict = verdict(View.EXACT, event, mine, 1, label_of)
    else:
        whys.append(f"with all hands known: {missing}")
    player = _player_verdict(event, weighed, label_of)
    if player is None:
        whys.append(f"from the player's own view: {weighed.why}")
    return dataclasses.replace(
        decision, exact=exact_verdict, player=player, unanalysed="; ".join(whys)
    )


def _player_verdict(
    event: InputEvent, weighed: Weighed, label_of: Callable[[InputEvent], str]
) -> Verdict | None:
    if not weighed.values or event not in weighed.values:
        return None
    return verdict(View.PLAYER, event, weighed.values, weighed.deals, label_of)


def verdict(
    view: View,
    chosen: InputEvent,
    values: Mapping[InputEvent, float],
    deals: int,
    label_of: Callable[[InputEvent], str],
) -> Verdict:
    """The verdict from each choice's value for the seat's side: the best choice (the
    one made, if it is among the best to rounding) and what the one made cost."""
    top = max(values.values())
    made = values[chosen]
    cost = max(0.0, top - made)
    if cost < 1e-9:
        cost = 0.0
    best = chosen if cost == 0.0 else max(values, key=lambda e: values[e])
    order = sorted(values, key=lambda e: -values[e])
    choices = tuple(Choice(e, label_of(e), values[e]) for e in order)
    return Verdict(view, Choice(best, label_of(best), values[best]), cost, deals, choices)


# --- the deal, where the log does not carry it -------------------------------------


def complete_deal(
    rules: Rules, dealer: Seat, dealt: HandDealt, events: Sequence[InputEvent]
) -> tuple[HandDealt, str]:
    """The hand's deal with every seat's cards that can be known: as dealt, where the
    log has them all; else put together from the cards each seat played and the
    dealer's discard (a live table's log: the camera sees cards played, not hands).
    With it, "" when every seat's cards are in it, else which are not, in words (a seat
    that sat out, a discard not seen, a hand that ended early)."""
    if len(dealt.hands) == len(SEATS):
        return dealt, ""
    played: dict[Seat, set[Card]] = {s: set() for s in SEATS}
    discarded: Card | None = None
    unseen_discard = False
    for e in events:
        if isinstance(e, CardPlayed):
            played[e.seat].add(e.card)
        elif isinstance(e, DealerDiscarded):
            discarded, unseen_discard = e.card, e.card is None
    if discarded is not None:
        if dealt.upcard is not None:
            played[dealer].discard(dealt.upcard)
        played[dealer].add(discarded)
    hands = dict(dealt.hands)
    missing: list[Seat] = []
    for s in SEATS:
        if s in hands:
            continue
        if len(played[s]) == rules.hand_size and not (s == dealer and unseen_discard):
            hands[s] = tuple(sorted(played[s]))
        else:
            missing.append(s)
    deal = HandDealt(dealt.upcard, hands)
    if not missing:
        return deal, ""
    if not any(played.values()):
        return deal, "no card was played in this deal, so its hands were never seen"
    names = [SEAT_NAMES[s] for s in missing]
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if missing == [dealer] and unseen_discard:
        why = "the dealer's discard was not seen"
    else:
        why = (
            f"not all of {who}'s cards were seen (a seat that sat out, a discard not seen, "
            "or a hand that ended early)"
        )
    return deal, why


def _replays_alike(rules: Rules, hand: _Hand, deal: HandDealt) -> str:
    """ "" when the hand replays from ``deal`` to the same end as at the table; else why
    not, in words."""
    game = Game(rules)
    end: OutputEvent | None = None
    try:
        game.push(DealerChosen(hand.dealer))
        for event in [deal, *hand.events]:
            for out in game.push(event):
                if isinstance(out, HandScored | HandThrownIn):
                    end = end or out
    except RulesError as exc:
        return (
            f"the hand does not replay with the cards seen ({exc.message}), so it is not analysed"
        )
    if _end_key(end) != _end_key(hand.end):
        return "the hand replays to another end with the cards seen, so it is not analysed"
    return ""


def _end_key(end: OutputEvent | None) -> tuple[object, ...]:
    if isinstance(end, HandScored):
        return ("scored", end.maker, end.result, end.tricks, end.points)
    if isinstance(end, HandThrownIn):
        return ("thrown in", end.reason)
    return ("none",)


__all__ = [
    "DEFAULT_DEALS",
    "ReviewError",
    "ReviewOptions",
    "analyse_game",
    "complete_deal",
    "is_decision",
    "verdict",
]
