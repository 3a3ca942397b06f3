"""The engine: a whole game (or match) of Euchre as a fold over input events.

``Game.push(event)`` validates the event completely, then applies it and returns the
output events that follow; a rejected event raises a ``RulesError`` saying what was
expected and changes nothing, so one bad event never wedges a table. The state is a
fold over the input log: ``Game.replay(rules, log)`` rebuilds it exactly.

The engine works with hands unknown (a live table sees only the upcard and the cards
played) and with hands known (simulation, kiosk, a dealing machine), seat by seat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from table_controller.cards import (
    DECK,
    Card,
    Rank,
    Suit,
    can_follow,
    cut_rank,
    effective_suit,
    effective_table,
    legal_plays,
    suit_sets,
    trick_winner,
)
from table_controller.rules import deck, scoring
from table_controller.rules.choices import BY_PHASE
from table_controller.rules.claims import certain_tricks
from table_controller.rules.errors import (
    GameOver,
    IllegalAction,
    ImpossibleCard,
    NotYourTurn,
    RulesError,
    WrongPhase,
)
from table_controller.rules.events import (
    AllNinesShown,
    BidMade,
    BidWon,
    CardCut,
    CardDropped,
    CardPlayed,
    CardsExchanged,
    CardTakenBack,
    ClaimJudged,
    CutTied,
    DealerChosen,
    DealerDiscarded,
    FaceUpCardDealt,
    FirstDealerSet,
    ForeignCardSeen,
    GameEnded,
    HandDealt,
    HandLaidDown,
    HandResult,
    HandScored,
    HandStarted,
    HandThrownIn,
    HandVoided,
    HowChosen,
    InputEvent,
    Irregularity,
    IrregularityFound,
    KittyCardSeen,
    MatchWon,
    MisdealDeclared,
    OrderedUp,
    OutputEvent,
    Passed,
    PenaltyAccepted,
    PenaltyScored,
    PlayoffStarted,
    Remedy,
    RenegeClaimed,
    RenegeProven,
    RenegeSpotted,
    ScoreAdjusted,
    ScoreCorrected,
    SecondCopySeen,
    ThrowIn,
    TrickWon,
    TrumpBid,
    TrumpCalled,
    TrumpSet,
    WrongCardCount,
    wrong_field,
)
from table_controller.rules.hand import (
    HAND_PHASES,
    NEXT,
    OUT_OF_PLAY,
    HandState,
    Phase,
    Showing,
    Trick,
    describe,
)
from table_controller.rules.presets import (
    AllPass,
    FirstDealer,
    OutOfTurn,
    RenegePenalty,
    Rules,
    Variant,
)
from table_controller.rules.renege import Proof, check_play
from table_controller.seats import SEATS, Seat, Team

_HOW = {
    FirstDealer.CHOSEN: HowChosen.CHOSEN,
    FirstDealer.HIGH_CUT: HowChosen.HIGH_CUT,
    FirstDealer.FIRST_ACE: HowChosen.FIRST_ACE,
    FirstDealer.FIRST_JACK: HowChosen.FIRST_JACK,
}

Out = list[OutputEvent]


class Game:
    """A game of Euchre under ``rules``: push input events, read the state."""

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules if rules is not None else Rules()
        self.rules.check()
        self._hand_size = self.rules.hand_size
        self.log: list[InputEvent] = []
        self.phase = Phase.CHOOSING_DEALER
        self.game = 1
        self.games_won = [0, 0]
        self.match_winner: Team | None = None
        self._new_game_state()

    def _new_game_state(self) -> None:
        self.scores = [0, 0]
        self.individual = [0, 0, 0, 0]
        self.dealer: Seat | None = None
        self.deals = 0
        self.hands_counted = 0
        self.hands_target = self.rules.hands_per_game
        self.playoff = 0
        self.hand: HandState | None = None
        self.last_hand: HandState | None = None
        self._face_up_last: Seat | None = None
        self._face_up_seen: set[Card] = set()
        self._cuts: dict[Seat, Card] = {}
        self._cutting: tuple[Seat, ...] = SEATS

    # --- the fold -----------------------------------------------------------------

    def push(self, event: InputEvent) -> list[OutputEvent]:
        """Apply one input event; return the output events that follow from it."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise RulesError(f"{event!r} is not an input event", "one of the input events")
        # Field types first (a cheap inline test for the commonest event).
        if not (
            type(event) is CardPlayed and type(event.card) is Card and type(event.seat) is Seat
        ):
            wrong = wrong_field(event)
            if wrong is not None:
                raise IllegalAction(wrong, "an event built from Seat, Card and Suit values")
        if self.phase is Phase.OVER:
            winner = self.match_winner
            raise GameOver(
                "the game is over" + (f": {winner} won" if winner is not None else ""),
                "a new game",
            )
        out: Out = []
        try:
            handler(self, event, out)
        except RulesError:
            raise
        except Exception as exc:  # a bug: rebuild the state so the table goes on
            self._restore()
            raise RulesError(
                f"internal error while applying {event!r} ({exc!r}); the event was not "
                "applied, please report this",
            ) from exc
        self.log.append(event)
        return out

    def push_all(self, events: Iterable[InputEvent]) -> list[OutputEvent]:
        out: list[OutputEvent] = []
        for event in events:
            out.extend(self.push(event))
        return out

    @classmethod
    def replay(cls, rules: Rules, events: Iterable[InputEvent]) -> Game:
        game = cls(rules)
        game.push_all(events)
        return game

    def pop(self) -> InputEvent:
        """Take back the last event (as python-chess's ``Board.pop``)."""
        if not self.log:
            raise IndexError("pop from an empty game")
        last = self.log[-1]
        rebuilt = Game.replay(self.rules, self.log[:-1])
        self.__dict__.update(rebuilt.__dict__)
        return last

    def copy(self) -> Game:
        return Game.replay(self.rules, self.log)

    def refusal(self, event: InputEvent) -> RulesError | None:
        """The rules' answer to ``event`` without applying it: None if they would take
        it, else their refusal (what is wrong, what is expected). The legal events answer
        at once where the hands are known; otherwise (a live table, or a choice the legal
        events do not list) the event is tried on a copy."""
        if event in self.legal_events():
            return None
        try:
            self.copy().push(event)
        except RulesError as exc:
            return exc
        return None

    def _restore(self) -> None:
        self.__dict__.update(Game.replay(self.rules, self.log).__dict__)

    def state_key(self) -> tuple[object, ...]:
        """Everything that makes up the state, for comparing two games."""
        return (
            self.phase,
            self.game,
            tuple(self.games_won),
            self.match_winner,
            tuple(self.scores),
            tuple(self.individual),
            self.dealer,
            self.deals,
            self.hands_counted,
            self.hands_target,
            self.playoff,
            None if self.hand is None else self.hand.key(),
            None if self.last_hand is None else self.last_hand.key(),
            self._face_up_last,
            frozenset(self._face_up_seen),
            tuple(sorted(self._cuts.items())),
            self._cutting,
        )

    def state_digest(self) -> str:
        """``state_key`` as a short hex digest that is the same in every process (sets
        are written in a sorted order, not Python's hash order), so a restarted table
        can show that it resumed exactly where a replay of its log says it was."""
        return hashlib.sha256(_canonical(self.state_key()).encode()).hexdigest()[:16]

    # --- reading the state --------------------------------------------------------

    @property
    def to_act(self) -> Seat | None:
        """The seat whose turn it is, where one seat must act next."""
        hand = self.hand
        if hand is None:
            return None
        phase = self.phase
        if phase is Phase.PLAYING:
            return hand.next_to_play()
        if phase is Phase.BIDDING or phase is Phase.NAMING_TRUMP:
            return hand.turn
        if phase is Phase.DISCARDING:
            return hand.dealer
        if phase is Phase.EXCHANGING:
            return hand.maker
        return None

    def expecting(self) -> str:
        """What the engine will accept next, in words for the players."""
        phase, hand = self.phase, self.hand
        if phase is Phase.CHOOSING_DEALER:
            how = self.rules.first_dealer
            if how is FirstDealer.HIGH_CUT:
                waiting = [s for s in self._cutting if s not in self._cuts]
                return "a cut (card_cut) from " + ", ".join(str(s) for s in waiting)
            if how in (FirstDealer.FIRST_ACE, FirstDealer.FIRST_JACK):
                rank = "an ace" if how is FirstDealer.FIRST_ACE else "a jack"
                nxt = "" if self._face_up_last is None else f", next to {self._face_up_last.left}"
                return f"cards dealt face up until {rank} (face_up_card_dealt{nxt})"
            return "the first dealer (dealer_chosen)"
        if phase is Phase.DEALING:
            return f"the deal by {self.dealer} (hand_dealt)"
        if phase is Phase.OVER:
            return "nothing: the game is over"
        assert hand is not None
        if phase is Phase.BIDDING:
            seat = hand.turn
            if self.rules.variant is Variant.BID_EUCHRE:
                return f"{seat} to bid or pass"
            if hand.round == 1:
                return f"{seat} to pass or order up"
            assert hand.upcard is not None
            barred = hand.upcard.suit
            if seat == hand.dealer and self.rules.stick_the_dealer:
                return f"{seat} (the dealer, stuck) to name a suit other than {barred}"
            return f"{seat} to pass or name a suit other than {barred}"
        if phase is Phase.CHOOSING_REMEDY:
            assert hand.offender is not None
            a, b = hand.offender.team.other.seats
            return (
                f"{a} or {b} to take the penalty (penalty_accepted) or to void the bid and go alone"
            )
        if phase is Phase.NAMING_TRUMP:
            return f"{hand.turn} to name trump"
        if phase is Phase.DISCARDING:
            return f"{hand.dealer} (the dealer) to discard"
        if phase is Phase.EXCHANGING:
            return f"{hand.maker} and partner to exchange a card (cards_exchanged)"
        seat = hand.next_to_play()
        trick = hand.trick
        verb = "lead" if trick is None or trick.led is None else "play"
        return f"{seat} to {verb}"

    @property
    def trump(self) -> Suit | None:
        return self.hand.trump if self.hand is not None else None

    @property
    def current_trick(self) -> Trick | None:
        return self.hand.trick if self.hand is not None else None

    def team_scores(self) -> tuple[int, int]:
        return (self.scores[0], self.scores[1])

    def legal_plays(self, seat: Seat | None = None) -> list[Card]:
        """The cards ``seat`` (default: the seat to play) may play, when its hand is known."""
        hand = self.hand
        if self.phase is not Phase.PLAYING or hand is None or hand.trick is None:
            raise WrongPhase("no card is to be played now", self.expecting())
        seat = hand.next_to_play() if seat is None else seat
        if seat is None:
            raise WrongPhase("no card is to be played now", self.expecting())
        held = hand.known[seat]
        if held is None:
            raise RulesError(f"{seat}'s hand is not known", "a hand dealt with its cards")
        return legal_plays(held, hand.trick.led, hand.trump)

    def legal_events(self) -> list[InputEvent]:
        """Every event the rules allow the seat to act next, where its cards are known:
        what a bot or a simulation chooses from. Empty where the next event is chance
        (a deal) or the seat's hand is unknown. Each phase has its function in
        ``choices.BY_PHASE``; a bot asks this at every step, so it is looked up here."""
        return BY_PHASE[self.phase](self)

    # --- dealer selection ---------------------------------------------------------

    def _on_dealer_chosen(self, ev: DealerChosen, out: Out) -> None:
        self._need(Phase.CHOOSING_DEALER, ev)
        self._set_first_dealer(ev.seat, HowChosen.CHOSEN, out)

    def _on_face_up(self, ev: FaceUpCardDealt, out: Out) -> None:
        self._need(Phase.CHOOSING_DEALER, ev)
        how = self.rules.first_dealer
        if how not in (FirstDealer.FIRST_ACE, FirstDealer.FIRST_JACK):
            raise IllegalAction(
                f"these rules choose the first dealer by {how.value}", self.expecting()
            )
        if ev.card in self._face_up_seen:
            raise ImpossibleCard(f"{ev.card} was already dealt face up", "another card")
        if self._face_up_last is not None and ev.seat != self._face_up_last.left:
            raise NotYourTurn(
                f"cards are dealt face up clockwise: {self._face_up_last} had the last one",
                f"a card to {self._face_up_last.left}",
            )
        self._face_up_seen.add(ev.card)
        self._face_up_last = ev.seat
        wanted = Rank.ACE if how is FirstDealer.FIRST_ACE else Rank.JACK
        if ev.card.rank == wanted:
            self._set_first_dealer(ev.seat, _HOW[how], out)

    def _on_cut(self, ev: CardCut, out: Out) -> None:
        self._need(Phase.CHOOSING_DEALER, ev)
        if self.rules.first_dealer is not FirstDealer.HIGH_CUT:
            raise IllegalAction(
                f"these rules choose the first dealer by {self.rules.first_dealer.value}",
                self.expecting(),
            )
        if ev.seat not in self._cutting or ev.seat in self._cuts:
            raise NotYourTurn(f"{ev.seat} has no cut to make", self.expecting())
        if ev.card in self._cuts.values():
            raise ImpossibleCard(f"{ev.card} was already cut", "another card")
        self._cuts[ev.seat] = ev.card
        if len(self._cuts) < len(self._cutting):
            return
        best = max(cut_rank(c) for c in self._cuts.values())
        tied = tuple(s for s in self._cutting if cut_rank(self._cuts[s]) == best)
        self._cuts = {}
        if len(tied) > 1:
            self._cutting = tied
            out.append(CutTied(tied))
        else:
            self._set_first_dealer(tied[0], HowChosen.HIGH_CUT, out)

    def _set_first_dealer(self, seat: Seat, how: HowChosen, out: Out) -> None:
        self.dealer = seat
        self.phase = Phase.DEALING
        self._face_up_last = None
        self._face_up_seen = set()
        self._cuts = {}
        self._cutting = SEATS
        out.append(FirstDealerSet(seat, how))

    # --- the deal -----------------------------------------------------------------

    def _on_hand_dealt(self, ev: HandDealt, out: Out) -> None:
        self._need(Phase.DEALING, ev)
        rules = self.rules
        if rules.variant is Variant.EUCHRE and ev.upcard is None:
            raise IllegalAction("a Euchre deal turns up a card", "hand_dealt with its upcard")
        if rules.variant is Variant.BID_EUCHRE and ev.upcard is not None:
            raise IllegalAction("Bid Euchre deals every card: there is no upcard", "no upcard")
        hands = ev.hands
        known: list[set[Card] | None] = [None, None, None, None]
        size = rules.hand_size
        total = 0 if ev.upcard is None else 1
        for seat, cards in hands.items():  # (types were checked at the door)
            held = set(cards)
            if len(held) != size or len(cards) != size:
                raise IllegalAction(
                    f"{seat}'s hand has {len(held)} different cards", f"{size} cards in each hand"
                )
            known[seat] = held
            total += size
        every = set().union(*(k for k in known if k is not None))
        if ev.upcard is not None:
            every.add(ev.upcard)
        if len(every) != total:
            counts: dict[Card, int] = {}
            for dealt in [*hands.values(), () if ev.upcard is None else (ev.upcard,)]:
                for c in dealt:
                    counts[c] = counts.get(c, 0) + 1
            twice = sorted(c for c, n in counts.items() if n > 1)
            raise ImpossibleCard(
                "the same card dealt twice: " + " ".join(str(c) for c in twice),
                "24 different cards",
            )
        assert self.dealer is not None
        self.deals += 1
        hand = HandState(self.deals, self.dealer, ev.upcard, known)
        hand.turn = self.dealer.left
        if ev.upcard is not None:
            hand.seen[ev.upcard] = ("turned up", None, 0)
        self.hand = hand
        self.phase = Phase.BIDDING
        out.append(HandStarted(hand.number, hand.dealer, ev.upcard))

    # --- bidding: Euchre ------------------------------------------------------------

    def _on_passed(self, ev: Passed, out: Out) -> None:
        hand = self._need(Phase.BIDDING, ev)
        if self._out_of_turn_bid(hand, ev.seat, is_bid=False, out=out):
            return
        seat = ev.seat
        if self.rules.variant is Variant.BID_EUCHRE:
            minimum = self.rules.dealer_min_bid
            if seat == hand.dealer and minimum is not None and hand.high_bid is None:
                raise IllegalAction(
                    "everyone else passed: the dealer must bid", f"a bid of {minimum} or more"
                )
            self._next_bidder(hand, seat, out)
            return
        if hand.round == 1:
            if seat == hand.dealer:
                hand.round = 2
                assert hand.upcard is not None
                hand.seen[hand.upcard] = ("turned down", None, 0)
                nxt = self._first_bidder(hand, hand.eldest)
                if nxt is None:
                    self._throw_in(ThrowIn.BID_FORFEITED, same_dealer=False, out=out)
                else:
                    hand.turn = nxt
            else:
                hand.turn = seat.left
            return
        if (
            seat == hand.dealer
            and self.rules.stick_the_dealer
            and (hand.dealer.team not in hand.forfeited)
        ):
            raise IllegalAction(
                "the dealer is stuck and cannot pass (stick the dealer)",
                self.expecting(),
            )
        self._next_bidder(hand, seat, out)

    def _first_bidder(self, hand: HandState, start: Seat) -> Seat | None:
        """The first seat from ``start`` up to the dealer whose team may still bid."""
        seat = start
        while True:
            if seat.team not in hand.forfeited:
                return seat
            if seat == hand.dealer:
                return None
            seat = seat.left

    def _next_bidder(self, hand: HandState, seat: Seat, out: Out) -> None:
        """Move the bid on from ``seat``; close the round after the dealer."""
        nxt = None if seat == hand.dealer else self._first_bidder(hand, seat.left)
        if nxt is not None:
            hand.turn = nxt
            return
        if self.rules.variant is Variant.BID_EUCHRE and hand.high_bidder is not None:
            assert hand.high_bid is not None
            out.append(BidWon(hand.high_bidder, hand.high_bid))
            if self.rules.bid_names_trump:
                bid = hand.high_bid
                self._make_trump(
                    hand, hand.high_bidder, hand.bid_trump, scoring.is_shoot(bid), bid, out
                )
                self._start_play(hand, hand.high_bidder)
                return
            hand.turn = hand.high_bidder
            self.phase = Phase.NAMING_TRUMP
            return
        reason = ThrowIn.BID_FORFEITED if hand.forfeited else ThrowIn.ALL_PASSED
        same = self.rules.all_pass is AllPass.SAME_DEALER and not hand.forfeited
        self._throw_in(reason, same_dealer=same, out=out)

    def _out_of_turn_bid(self, hand: HandState, seat: Seat, *, is_bid: bool, out: Out) -> bool:
        """Rule on a pass or bid from a seat whose turn it is not; True if it was one."""
        if seat == hand.turn:
            return False
        if seat.team in hand.forfeited:
            raise IllegalAction(
                f"{seat}'s team has forfeited its right to bid this hand", self.expecting()
            )
        if not is_bid:
            out.append(
                IrregularityFound(
                    Irregularity.PASS_OUT_OF_TURN,
                    seat,
                    Remedy.CANCELLED,
                    f"{seat} passed out of turn; the bid stays with {hand.turn}",
                )
            )
            return True
        if self.rules.bid_out_of_turn is OutOfTurn.CANCELLED:
            out.append(
                IrregularityFound(
                    Irregularity.BID_OUT_OF_TURN,
                    seat,
                    Remedy.CANCELLED,
                    f"{seat} called out of turn; the call is cancelled and the bid reverts "
                    f"to {hand.turn}",
                )
            )
            return True
        hand.offender = seat
        self.phase = Phase.CHOOSING_REMEDY
        a, b = seat.team.other.seats
        out.append(
            IrregularityFound(
                Irregularity.BID_OUT_OF_TURN,
                seat,
                Remedy.AWAITING_CHOICE,
                f"{seat} bid out of turn: play stops and {a}-{b} score "
                f"{self.rules.out_of_turn_points}, unless they void the bid and go alone",
            )
        )
        return True

    def _on_ordered_up(self, ev: OrderedUp, out: Out) -> None:
        hand = self._in_hand(ev)
        if self.phase is Phase.CHOOSING_REMEDY:
            self._remedy_call(hand, ev.seat, ev.alone, round_needed=1)
        elif self._euchre_call(
            hand, ev, 1, "the upcard was turned down: order up is for the first round", out
        ):
            return
        assert hand.upcard is not None
        hand.offender = None
        self._make_trump(hand, ev.seat, hand.upcard.suit, ev.alone, None, out)
        # The dealer picks up the upcard and discards, even when sitting out.
        dealer_hand = hand.known[hand.dealer]
        if dealer_hand is not None:
            dealer_hand.add(hand.upcard)
        hand.seen[hand.upcard] = ("picked up", hand.dealer, 0)
        hand.discard_pending = True
        self.phase = Phase.DISCARDING

    def _on_trump_called(self, ev: TrumpCalled, out: Out) -> None:
        hand = self._in_hand(ev)
        rules = self.rules
        if self.phase is Phase.NAMING_TRUMP:
            self._name_bid_trump(hand, ev, out)
            return
        if self.phase is Phase.CHOOSING_REMEDY:
            self._remedy_call(hand, ev.seat, ev.alone, round_needed=2)
        elif self._euchre_call(
            hand, ev, 2, "in the first round a player passes or orders the upcard up", out
        ):
            return
        if ev.trump is None:
            raise IllegalAction("no-trump is not played in Euchre", "a suit")
        assert hand.upcard is not None
        if ev.trump == hand.upcard.suit:
            if not rules.turned_down_suit_forfeits or self.phase is Phase.CHOOSING_REMEDY:
                raise IllegalAction(
                    f"{ev.trump.word} was turned down and cannot be named",
                    self.expecting(),
                )
            hand.forfeited.add(ev.seat.team)
            a, b = ev.seat.team.seats
            out.append(
                IrregularityFound(
                    Irregularity.TURNED_DOWN_SUIT_NAMED,
                    ev.seat,
                    Remedy.FORFEIT,
                    f"{ev.seat} named the turned-down suit: {a}-{b} lose the right to bid "
                    "this hand",
                )
            )
            self._next_bidder(hand, ev.seat, out)
            return
        hand.offender = None
        self._make_trump(hand, ev.seat, ev.trump, ev.alone, None, out)
        self._start_play(hand, hand.eldest)

    def _euchre_call(
        self, hand: HandState, ev: OrderedUp | TrumpCalled, round_needed: int, wrong: str, out: Out
    ) -> bool:
        """Check a call in the bidding of Euchre; True if it was ruled out of turn."""
        self._need(Phase.BIDDING, ev)
        if self.rules.variant is not Variant.EUCHRE:
            raise WrongPhase("Bid Euchre has no upcard; trump goes with the bid", "a bid")
        if self._out_of_turn_bid(hand, ev.seat, is_bid=True, out=out):
            return True
        if hand.round != round_needed:
            raise IllegalAction(wrong, self.expecting())
        return False

    def _remedy_call(self, hand: HandState, seat: Seat, alone: bool, round_needed: int) -> None:
        """003 BID OUT OF TURN: the other side may void the bid and go alone."""
        assert hand.offender is not None
        if seat.team == hand.offender.team or not alone:
            raise IllegalAction(
                "after a bid out of turn only the other side may call, and only alone",
                self.expecting(),
            )
        if hand.round != round_needed:
            kind = "order up" if hand.round == 1 else "name a suit"
            raise IllegalAction(f"this is bidding round {hand.round}", f"{kind}, alone")

    def _make_trump(
        self,
        hand: HandState,
        maker: Seat,
        trump: Suit | None,
        alone: bool,
        bid: int | None,
        out: Out,
    ) -> None:
        hand.trump = trump
        hand.eff = effective_table(trump)
        hand.follow = suit_sets(trump)
        hand.trump_set = True
        hand.maker = maker
        hand.alone = alone
        hand.sitting_out = maker.partner if alone else None
        hand.bid = bid
        hand.turn = None
        out.append(TrumpSet(trump, maker, alone, bid))

    def _on_penalty_accepted(self, ev: PenaltyAccepted, out: Out) -> None:
        hand = self._need(Phase.CHOOSING_REMEDY, ev)
        assert hand.offender is not None
        if ev.seat.team == hand.offender.team:
            raise IllegalAction("the offending side cannot take the penalty", self.expecting())
        points = self.rules.out_of_turn_points
        self._end_hand_with(hand, ev.seat.team, points, HandResult.PENALTY, out)

    # --- bidding: Bid Euchre --------------------------------------------------------

    def _on_bid(self, ev: BidMade, out: Out) -> None:
        hand = self._need(Phase.BIDDING, ev)
        if self.rules.variant is not Variant.BID_EUCHRE:
            raise WrongPhase("Euchre has no numbered bids", self.expecting())
        if self.rules.bid_names_trump:
            raise IllegalAction(
                "under these rules a bid names its trump (002)", "trump_bid with a suit or NT"
            )
        if self._out_of_turn_bid(hand, ev.seat, is_bid=True, out=out):
            return
        self._check_bid(hand, ev.seat, ev.amount)
        hand.high_bid = ev.amount
        hand.high_bidder = ev.seat
        self._next_bidder(hand, ev.seat, out)

    def _on_trump_bid(self, ev: TrumpBid, out: Out) -> None:
        """002 Bidding: "A bid consists of the number of tricks ... and a trump suit or
        no-trump"; the declarer is held to the trump of the winning bid."""
        hand = self._need(Phase.BIDDING, ev)
        if self.rules.variant is not Variant.BID_EUCHRE or not self.rules.bid_names_trump:
            raise IllegalAction(
                "under these rules a bid is a number; trump is named after the bidding",
                "bid_made",
            )
        if self._out_of_turn_bid(hand, ev.seat, is_bid=True, out=out):
            return
        if ev.trump is None and not self.rules.no_trump:
            raise IllegalAction("these rules have no no-trump", "a suit")
        self._check_bid(hand, ev.seat, ev.amount)
        hand.high_bid = ev.amount
        hand.high_bidder = ev.seat
        hand.bid_trump = ev.trump
        self._next_bidder(hand, ev.seat, out)

    def _check_bid(self, hand: HandState, seat: Seat, amount: int) -> None:
        rules, high = self.rules, hand.high_bid
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise IllegalAction(f"a bid of {amount!r}", "a whole number of tricks")
        if scoring.is_shoot(amount):
            if not rules.shoot_bids:
                raise IllegalAction(
                    f"a bid of {amount}: these rules have no shooting bids",
                    f"a bid from {rules.min_bid} to {rules.hand_size}",
                )
            if amount % 12 or (amount // 12) & (amount // 12 - 1):
                raise IllegalAction(f"a bid of {amount}", "a shoot of 12, 24, 48, 96, ...")
            if amount >= 48 and high != amount // 2:
                # 004: "48 may be bid only to raise an existing bid of 24": never first.
                now = "no bid has been made" if high is None else f"the bid is {high}"
                raise IllegalAction(
                    f"{amount} may only raise a bid of {amount // 2}, and {now}",
                    f"a bid from {rules.min_bid} to {rules.hand_size}, 12 or 24, or a pass"
                    if high is None
                    else "a higher bid or a pass",
                )
            if high is not None and high >= amount:
                raise IllegalAction(f"{amount} does not top {high}", "a higher bid or a pass")
            return
        if not rules.min_bid <= amount <= rules.hand_size:
            raise IllegalAction(
                f"a bid of {amount}", f"a bid from {rules.min_bid} to {rules.hand_size}"
            )
        if high is not None and amount <= high:
            raise IllegalAction(f"{amount} does not top {high}", "a higher bid or a pass")
        minimum = rules.dealer_min_bid
        if seat == hand.dealer and minimum is not None and high is None and amount < minimum:
            raise IllegalAction("the dealer must bid", f"a bid of {minimum} or more")

    def _name_bid_trump(self, hand: HandState, ev: TrumpCalled, out: Out) -> None:
        if ev.seat != hand.turn:
            raise NotYourTurn(f"{hand.turn} won the bid, not {ev.seat}", self.expecting())
        if ev.trump is None and not self.rules.no_trump:
            raise IllegalAction("these rules have no no-trump", "a suit")
        if ev.alone:
            raise IllegalAction("going alone is bid by shooting (12 or 24)", "alone false")
        assert hand.high_bid is not None
        bid = hand.high_bid
        shoot = scoring.is_shoot(bid)
        self._make_trump(hand, ev.seat, ev.trump, shoot, bid, out)
        if bid == 12:
            self.phase = Phase.EXCHANGING
        else:
            self._start_play(hand, ev.seat)

    def _on_exchanged(self, ev: CardsExchanged, out: Out) -> None:
        hand = self._need(Phase.EXCHANGING, ev)
        bidder = hand.maker
        assert bidder is not None
        partner = bidder.partner
        mine, theirs = hand.known[bidder], hand.known[partner]
        if ev.discard is not None:
            self._check_card(hand, bidder, ev.discard)
        elif mine is not None:
            raise IllegalAction(f"{bidder}'s hand is known", "the card given to the partner")
        if ev.received is not None:
            self._check_card(hand, partner, ev.received)
        elif theirs is not None:
            raise IllegalAction(f"{partner}'s hand is known", "the card the partner gave")
        if ev.discard is not None and ev.discard == ev.received:
            raise ImpossibleCard("the same card went both ways", "two different cards")
        if ev.discard is not None:
            self._take(hand, bidder, ev.discard)
            hand.seen[ev.discard] = ("passed", partner, 0)
            if theirs is not None:
                theirs.add(ev.discard)
        if ev.received is not None:
            self._take(hand, partner, ev.received)
            hand.seen[ev.received] = ("given", bidder, 0)
            if mine is not None:
                mine.add(ev.received)
            else:
                hand.exposed[bidder].add(ev.received)
        self._start_play(hand, bidder)

    # --- the discard ----------------------------------------------------------------

    def _on_discard(self, ev: DealerDiscarded, out: Out) -> None:
        hand = self._in_hand(ev)
        late = self.phase is Phase.PLAYING and hand.discard_pending
        if self.phase is not Phase.DISCARDING and not late:
            raise WrongPhase("no discard is due", self.expecting())
        dealer = hand.dealer
        held = hand.known[dealer]
        if ev.card is None:
            if held is not None:
                raise IllegalAction(f"{dealer}'s hand is known", "the card discarded")
        else:
            self._check_card(hand, dealer, ev.card)
        if ev.card is not None:
            self._take(hand, dealer, ev.card)
            hand.seen[ev.card] = ("discarded", None, 0)
            if held is None and hand.upcard is not None and ev.card != hand.upcard:
                hand.exposed[dealer].add(hand.upcard)
        hand.discard_pending = False
        if not late:
            self._start_play(hand, hand.eldest)

    # --- play -----------------------------------------------------------------------

    def _start_play(self, hand: HandState, leader: Seat) -> None:
        self.phase = Phase.PLAYING
        hand.turn = None
        hand.trick = Trick(1, hand.first_active_from(leader))

    def _on_card_played(self, ev: CardPlayed, out: Out) -> None:
        hand = self.hand
        seat, card = ev.seat, ev.card
        if self.phase is Phase.PLAYING and hand is not None:
            # The common case, kept short: a known hand follows suit, in turn.
            trick = hand.trick
            held = hand.known[seat]
            out_seat = hand.sitting_out
            if (
                trick is not None
                and held is not None
                and card in held
                and not hand.has_dropped
                and not hand.discard_pending
                and not hand.spotted
                and NEXT[
                    (trick.leader * 16 + trick.mask) * 5 + (4 if out_seat is None else out_seat)
                ]
                is seat
            ):
                suit = hand.eff[card]
                led = trick.led
                showings = hand.showings[seat]
                void = led is not None and suit != led and not can_follow(held, led, hand.trump)
                if suit not in showings and (led is None or suit == led or void):
                    held.discard(card)
                    hand.seen[card] = ("played", seat, trick.number)
                    trick.plays.append((seat, card))
                    trick.mask |= 1 << seat
                    if led is None:
                        trick.led = suit
                    elif void and led not in showings:
                        showings[led] = [Showing(trick.number, card)]
                    hand.played[seat] += 1
                    if len(trick.plays) >= (3 if out_seat is not None else 4):
                        self._finish_trick(hand, trick, out)
                    return
        hand = self._in_hand(ev)
        if self.phase is Phase.DISCARDING:
            self._lead_before_discard(hand, seat, card, out)
            return
        self._need(Phase.PLAYING, ev)
        trick = hand.trick
        assert trick is not None
        self._check_card(hand, seat, card)
        if trick.has_played(seat):
            raise NotYourTurn(f"{seat} has already played to this trick", self.expecting())
        if seat == hand.dealer and hand.discard_pending and not self.rules.dealer_discard_penalty:
            raise WrongPhase(f"{hand.dealer} (the dealer) must discard first", "the discard")
        if seat == hand.dealer and hand.discard_pending:
            self._dealer_did_not_discard(hand, out)
            return
        if seat == hand.sitting_out:
            if not self.rules.loner_partner_play_cancels:
                raise NotYourTurn(f"{seat} sits out: {hand.maker} is going alone", self.expecting())
            self._loner_partner_played(hand, trick, seat, card, out)
            return
        expected = hand.next_to_play()
        if seat != expected:
            if trick.led is None:
                self._lead_out_of_turn(hand, seat, card, expected, out)
                return
            out.append(
                _on_card(
                    Irregularity.PLAY_OUT_OF_TURN,
                    seat,
                    Remedy.NOTED,
                    f"{seat} played before {expected}; the card stands",
                    card,
                    trick,
                )
            )
        self._play(hand, trick, seat, card, out)

    def _play(self, hand: HandState, trick: Trick, seat: Seat, card: Card, out: Out) -> None:
        if hand.spotted and not trick.plays and self._penalise_spotted(hand, out):
            return
        dropped = hand.dropped[seat]
        if dropped and card not in dropped:
            due = [
                c
                for c in dropped
                if trick.led is None or effective_suit(c, hand.trump) == trick.led
            ]
            if due:
                out.append(
                    _on_card(
                        Irregularity.DROPPED_CARD_NOT_PLAYED,
                        seat,
                        Remedy.NOTED,
                        f"{seat} played {card.pretty} although the dropped "
                        f"{due[0].pretty} could be played",
                        card,
                        trick,
                    )
                )
        proofs, showing = check_play(hand, seat, card, trick.number, trick.led)
        if card in dropped:
            trick.dead.add(card)
        self._take(hand, seat, card)
        hand.seen[card] = ("played", seat, trick.number)
        trick.plays.append((seat, card))
        trick.mask |= 1 << seat
        if trick.led is None:
            trick.led = effective_suit(card, hand.trump)
        hand.played[seat] += 1
        if showing is not None:
            assert trick.led is not None
            hand.showings[seat].setdefault(trick.led, []).append(showing)
        for proof in proofs:
            hand.showings[seat].pop(proof.suit, None)
            if self._renege(hand, proof, out):
                return
        if len(trick.plays) >= hand.active_count():
            self._finish_trick(hand, trick, out)

    def _loner_partner_played(
        self, hand: HandState, trick: Trick, seat: Seat, card: Card, out: Out
    ) -> None:
        """003: "Should A player attempt a lone try and their partner plays a card, the lone
        call is canceled and hand is played as normal hand."

        Played as a normal hand, the card belongs to the trick it was laid on: the trick
        under way; or, laid before the next lead, the trick just completed by three cards,
        which is then won again with four. Leading the first trick is the partner's right
        when the partner sits first; otherwise it is a lead out of turn of the normal hand.
        One ruling says all of it."""
        maker = hand.maker
        hand.alone = False
        hand.sitting_out = None
        cancelled = (
            f"{seat} played {card.pretty} while {maker} was going alone: the lone call is "
            "cancelled and the hand is played as a normal hand"
        )
        target = trick
        if trick.plays:
            where = f"{card.pretty} counts in trick {trick.number}"
        elif hand.tricks:
            target = hand.tricks.pop()
            hand.won[self._winner(hand, target) & 1] -= 1
            hand.trick = target
            where = (
                f"{card.pretty} belongs to trick {target.number}, which is won again with "
                "four cards"
            )
        elif seat == hand.eldest:
            trick.leader = seat
            where = f"{seat} sits first, so {card.pretty} leads"
        else:
            # In the normal hand the lead was the first seat's: a lead out of turn, one
            # ruling that says both (its points those of a normal hand: 2, not 4).
            self._lead_out_of_turn(
                hand, seat, card, hand.eldest, out, Irregularity.LONER_PARTNER_PLAYED, cancelled
            )
            return
        out.append(
            _on_card(
                Irregularity.LONER_PARTNER_PLAYED,
                seat,
                Remedy.LONER_CANCELLED,
                f"{cancelled}; {where}",
                card,
                target,
            )
        )
        self._play(hand, target, seat, card, out)

    def _lead_before_discard(self, hand: HandState, seat: Seat, card: Card, out: Out) -> None:
        """003: "If 1st seat leads a card before dealer discards, the card must remain in
        play... It no longer has any value. The first lead now goes to the second seat.\""""
        leader = hand.first_active_from(hand.eldest)
        if not self.rules.lead_before_discard_dead or seat != leader:
            raise WrongPhase(f"{hand.dealer} (the dealer) has not discarded yet", "the discard")
        self._check_card(hand, seat, card)
        second = hand.first_active_from(seat.left)
        trick = Trick(1, second)
        trick.plays.append((seat, card))
        trick.mask |= 1 << seat
        trick.dead.add(card)
        self._take(hand, seat, card)
        hand.seen[card] = ("led early", seat, 1)
        hand.played[seat] += 1
        hand.trick = trick
        self.phase = Phase.PLAYING
        out.append(
            IrregularityFound(
                Irregularity.LEAD_BEFORE_DISCARD,
                seat,
                Remedy.CARD_DEAD,
                f"{seat} led {card.pretty} before the dealer discarded: the card stays, has no "
                f"value, and {second} leads",
                card,
                1,
                1,
            )
        )

    def _lead_out_of_turn(
        self,
        hand: HandState,
        seat: Seat,
        card: Card,
        expected: Seat | None,
        out: Out,
        kind: Irregularity = Irregularity.LEAD_OUT_OF_TURN,
        first: str | None = None,
    ) -> None:
        """A card led out of turn: it goes back (001) or play stops (003). ``first``, if
        given, is said before it, in the same ruling (a loner's partner who led)."""
        number = hand.trick.number if hand.trick is not None else None
        said = f"{first}; " if first is not None else ""
        if self.rules.lead_out_of_turn is OutOfTurn.CANCELLED:
            if hand.known[seat] is None:
                hand.exposed[seat].add(card)
                hand.seen[card] = ("exposed", seat, 0)
            out.append(
                IrregularityFound(
                    kind,
                    seat,
                    Remedy.CANCELLED,
                    f"{said}{seat} led {card.pretty} out of turn; the card goes back and the "
                    f"lead reverts to {expected}",
                    card,
                    number,
                    1,
                )
            )
            return
        points = (
            self.rules.out_of_turn_points_loner if hand.alone else self.rules.out_of_turn_points
        )
        out.append(
            IrregularityFound(
                kind,
                seat,
                Remedy.PENALTY,
                f"{said}{seat} led {card.pretty} out of turn, the lead being {expected}'s: "
                f"play stops and the other side scores {points}",
                card,
                number,
                1,
            )
        )
        self._end_hand_with(hand, seat.team.other, points, HandResult.PENALTY, out)

    def _dealer_did_not_discard(self, hand: HandState, out: Out) -> None:
        opposition = hand.dealer.team.other
        alone = hand.alone and hand.maker is not None and hand.maker.team == opposition
        points = self.rules.out_of_turn_points_loner if alone else self.rules.out_of_turn_points
        out.append(
            IrregularityFound(
                Irregularity.DEALER_DID_NOT_DISCARD,
                hand.dealer,
                Remedy.PENALTY,
                f"{hand.dealer} played without discarding: the other side scores {points} "
                "and the deal passes",
            )
        )
        self._end_hand_with(hand, opposition, points, HandResult.PENALTY, out)

    @staticmethod
    def _winner(hand: HandState, trick: Trick) -> Seat:
        live = trick.plays if not trick.dead else [p for p in trick.plays if p[1] not in trick.dead]
        return trick_winner(live, hand.trump, trick.led) if live else trick.leader

    def _finish_trick(self, hand: HandState, trick: Trick, out: Out) -> None:
        plays = trick.plays
        winner = (
            trick_winner(plays, hand.trump, trick.led)
            if not trick.dead
            else self._winner(hand, trick)
        )
        hand.won[winner & 1] += 1
        tricks = hand.tricks
        tricks.append(trick)
        out.append(TrickWon(hand.number, trick.number, winner, tuple(plays)))
        last = len(tricks) == self._hand_size
        # 000: a spotted renege is penalised once the next trick (or hand) has begun.
        if last and hand.spotted and self._penalise_spotted(hand, out):
            return
        if last:
            self._score_hand(hand, out)
        else:
            hand.trick = Trick(trick.number + 1, winner)

    def _penalise_spotted(self, hand: HandState, out: Out) -> bool:
        """000 s3.3: "If renegging is caught after the next trick/hand has begun, the
        offending player's team will have two points removed"; True if that ended the hand."""
        spotted, hand.spotted = hand.spotted, []
        for seat, number, suit, played, held in spotted:
            if self._penalise(hand, Proof(seat, number, suit, played, held, number), out):
                return True
        return False

    def _on_taken_back(self, ev: CardTakenBack, out: Out) -> None:
        hand = self._need(Phase.PLAYING, ev)
        if not self.rules.renege_take_back:
            raise IllegalAction("a card laid is a card played", "the next card")
        trick = hand.trick
        assert trick is not None
        play = (ev.seat, ev.card)
        # 000 s3.3: until the next trick has begun, the last trick may be taken up again.
        previous = hand.tricks[-1] if hand.tricks and not trick.plays else None
        reopen = play not in trick.plays and previous is not None and play in previous.plays
        if reopen:
            assert previous is not None
            trick = previous
        elif play not in trick.plays:
            raise IllegalAction(
                f"{ev.seat} has not played {ev.card} to this trick",
                "a card of the open trick, or of the last one before the next lead",
            )
        if trick.plays[0] == play or effective_suit(ev.card, hand.trump) == trick.led:
            raise IllegalAction(
                "only a card that did not follow suit may be taken back", self.expecting()
            )
        if reopen:
            hand.tricks.pop()
            hand.won[self._winner(hand, trick) & 1] -= 1
            hand.trick = trick
        position = trick.plays.index(play) + 1  # 1-based, the lead is 1
        trick.plays.remove(play)
        trick.mask &= ~(1 << ev.seat)
        trick.dead.discard(ev.card)
        hand.played[ev.seat] -= 1
        del hand.seen[ev.card]
        held = hand.known[ev.seat]
        if held is not None:
            held.add(ev.card)
        else:
            hand.exposed[ev.seat].add(ev.card)
            hand.seen[ev.card] = ("exposed", ev.seat, 0)
        assert trick.led is not None
        shown = hand.showings[ev.seat].get(trick.led, [])
        shown[:] = [s for s in shown if s.trick != trick.number]
        if not shown:
            hand.showings[ev.seat].pop(trick.led, None)
        for spot in [s for s in hand.spotted if s[0] == ev.seat]:
            hand.spotted.remove(spot)
            hand.reneged.remove(ev.seat)
            hand.renege_tricks.remove((ev.seat, spot[1]))
        out.append(
            IrregularityFound(
                Irregularity.RENEGE_TAKEN_BACK,
                ev.seat,
                Remedy.CANCELLED,
                f"{ev.seat} took back {ev.card.pretty}, card {position} of trick {trick.number}, "
                "before the next trick began: no penalty"
                + (f" (trick {trick.number} is played again)" if reopen else ""),
                ev.card,
                trick.number,
                position,
            )
        )

    # --- reneges --------------------------------------------------------------------

    def _renege(self, hand: HandState, proof: Proof, out: Out) -> bool:
        """Record a proven renege; True if its penalty ended the hand."""
        hand.reneged.append(proof.seat)
        hand.renege_tricks.append((proof.seat, proof.trick))
        trick = hand.trick
        open_trick = trick is not None and proof.trick == trick.number
        if self.rules.renege_take_back and open_trick:
            hand.spotted.append((proof.seat, proof.trick, proof.suit, proof.played, proof.proof))
            out.append(RenegeSpotted(proof.seat, proof.trick, proof.suit, proof.proof))
            return False
        return self._penalise(hand, proof, out)

    def _penalise(self, hand: HandState, proof: Proof, out: Out) -> bool:
        out.append(
            RenegeProven(
                hand.number,
                proof.seat,
                proof.trick,
                proof.suit,
                proof.played,
                proof.proof,
                proof.proof_trick,
            )
        )
        cost = scoring.renege_cost(self.rules, hand.alone)
        offenders = proof.seat.team
        if cost.penalty is RenegePenalty.AWARD_AND_END:
            self._end_hand_with(hand, offenders.other, cost.points, HandResult.RENEGE, out)
            return True
        if cost.penalty is RenegePenalty.DEDUCT:
            self._add_points(offenders, -cost.points)
            out.append(self._penalty_scored(offenders, -cost.points, HandResult.RENEGE))
        return False

    def _on_claim(self, ev: RenegeClaimed, out: Out) -> None:
        if ev.by.team == ev.against.team:
            raise IllegalAction("a renege is claimed against the other side", "an opponent")
        hand = self.hand
        if self.phase is Phase.PLAYING and hand is not None:
            self._check_claimed_trick(hand, ev.trick)
            hand.claims.append((ev.by, ev.against, ev.trick))
            return
        last = self.last_hand
        if self.phase is Phase.DEALING and last is not None:
            self._check_claimed_trick(last, ev.trick)
            self._settle_claims(last, [(ev.by, ev.against, ev.trick)], out)
            winner = scoring.target_winner(self.rules, self.team_scores(), None, False)
            if winner is not None:
                self._end_game(winner, out)
            return
        raise WrongPhase("a renege can only be claimed once cards are played", "the play")

    @staticmethod
    def _check_claimed_trick(hand: HandState, number: int | None) -> None:
        """A claim naming a trick must name one that has cards on the table."""
        if number is None:
            return
        trick = hand.trick
        played = 0 if trick is None else trick.number if trick.plays else trick.number - 1
        if played == 0:
            raise IllegalAction(
                f"a renege claimed in trick {number}, but no card has been played in hand "
                f"{hand.number}",
                "the claim once the trick has been played, or a claim naming no trick",
            )
        if not 1 <= number <= played:
            raise IllegalAction(
                f"a renege claimed in trick {number}, but hand {hand.number} has "
                + ("only trick 1" if played == 1 else f"tricks 1 to {played}"),
                "the number of a trick played" if played > 1 else "trick 1",
            )

    def _settle_claims(
        self, hand: HandState, claims: Sequence[tuple[Seat, Seat, int | None]], out: Out
    ) -> None:
        """Judge renege claims once the hand is complete (003: "he must however, wait
        until the hand in play is complete"). A claim naming a trick is upheld only by a
        renege proven in that trick; one naming none by any renege of the seat."""
        points = self.rules.false_claim_points
        for by, against, number in claims:
            if number is None:
                if against in hand.reneged:
                    continue
            elif (against, number) in hand.renege_tricks:
                continue
            remedy = Remedy.NOTED if points is None else Remedy.PENALTY
            where = "" if number is None else f" in trick {number}"
            out.append(
                IrregularityFound(
                    Irregularity.FALSE_RENEGE_CLAIM,
                    by,
                    remedy,
                    f"{by} claimed a renege by {against}{where} that the cards do not prove",
                    None,
                    number,
                )
            )
            if points is not None:
                self._add_points(against.team, points)
                out.append(
                    self._penalty_scored(against.team, points, Irregularity.FALSE_RENEGE_CLAIM)
                )

    def _penalty_scored(
        self, team: Team, points: int, reason: Irregularity | HandResult
    ) -> PenaltyScored:
        """The output for points already added: the scores, and the players' totals
        where the rules keep them (003 progressive)."""
        return PenaltyScored(team, points, reason, self.team_scores(), self._individual_totals())

    # --- other irregularities --------------------------------------------------------

    def _on_misdeal(self, ev: MisdealDeclared, out: Out) -> None:
        hand = self._in_hand(ev)
        if hand.started:
            raise WrongPhase("play has begun: it is too late for a misdeal", self.expecting())
        self._throw_in(ThrowIn.MISDEAL, same_dealer=True, out=out)

    def _on_wrong_count(self, ev: WrongCardCount, out: Out) -> None:
        hand = self._in_hand(ev)
        # 003: before the first lead the same person deals; during play the deal passes.
        self._throw_in(ThrowIn.WRONG_CARD_COUNT, same_dealer=not hand.started, out=out)

    def _on_nines(self, ev: AllNinesShown, out: Out) -> None:
        hand = self._in_hand(ev)
        if not self.rules.nines_misdeal:
            raise IllegalAction("these rules have no misdeal for a hand of nines", "play on")
        if hand.started:
            raise WrongPhase("play has begun: it is too late for a misdeal", self.expecting())
        held = hand.known[ev.seat]
        if ev.cards is not None:
            self._check_nines_shown(hand, ev.seat, ev.cards)
        elif held is not None and sum(1 for c in held if c.rank == Rank.NINE) < 4:
            raise IllegalAction(f"{ev.seat}'s hand does not hold all four 9s", "play on")
        self._throw_in(ThrowIn.ALL_NINES, same_dealer=True, out=out)

    def _check_nines_shown(self, hand: HandState, seat: Seat, cards: Sequence[Card]) -> None:
        """The hand shown for a misdeal of nines (004): the whole hand, every card one
        the seat can hold, the four 9s among them, and the known hand where it is known.
        The hand is thrown in at once, so nothing is kept of the cards."""
        size = self._hand_size
        shown = set(cards)
        if len(shown) != len(cards):
            raise IllegalAction("the same card shown twice", f"the {size} cards of the hand")
        if len(shown) != size:
            raise IllegalAction(
                f"{len(shown)} cards shown", f"the whole hand of {size} cards, all four 9s in it"
            )
        held = hand.known[seat]
        if held is not None and shown != held:
            raise ImpossibleCard(
                f"{seat}'s hand is not the cards shown",
                "the cards held: " + " ".join(str(c) for c in sorted(held)),
            )
        for card in cards:
            self._check_card(hand, seat, card)
        nines = sorted(c for c in shown if c.rank == Rank.NINE)
        if len(nines) < 4:
            have = " ".join(str(c) for c in nines) or "none"
            raise IllegalAction(
                f"the cards shown do not hold all four 9s ({len(nines)} of them: {have}): "
                "no misdeal",
                "play on",
            )

    # --- the director's rulings ---------------------------------------------------

    def _on_score_adjusted(self, ev: ScoreAdjusted, out: Out) -> None:
        """A correction at any point of a game; between hands it can decide the game, as
        the hand's own points would have (during a hand, the hand's end decides)."""
        if self.phase is Phase.CHOOSING_DEALER:
            raise WrongPhase("no hand has been played yet", self.expecting())
        self._add_points(ev.team, ev.points)
        out.append(
            ScoreCorrected(
                ev.team, ev.points, ev.reason, self.team_scores(), self._individual_totals()
            )
        )
        if self.phase is Phase.DEALING:
            winner = scoring.target_winner(self.rules, self.team_scores(), None, False)
            if winner is not None:
                self._end_game(winner, out)

    def _on_hand_voided(self, ev: HandVoided, out: Out) -> None:
        self._in_hand(ev)
        self._throw_in(ThrowIn.VOIDED, same_dealer=True, out=out)

    def _on_dropped(self, ev: CardDropped, out: Out) -> None:
        hand = self._in_hand(ev)
        if not self.rules.dropped_cards:
            raise IllegalAction(
                "these rules have no dropped-card rule: a card laid or exposed is played",
                "card_played",
            )
        if self.phase in (Phase.CHOOSING_REMEDY,):
            raise WrongPhase("a ruling is awaited", self.expecting())
        self._check_card(hand, ev.seat, ev.card)
        if ev.card in hand.dropped[ev.seat]:
            raise ImpossibleCard(f"{ev.card} is already on the table", "another card")
        hand.dropped[ev.seat].add(ev.card)
        hand.has_dropped = True
        if hand.known[ev.seat] is None:
            hand.exposed[ev.seat].add(ev.card)
            hand.seen[ev.card] = ("dropped", ev.seat, 0)
        out.append(
            IrregularityFound(
                Irregularity.CARD_DROPPED,
                ev.seat,
                Remedy.CARD_DEAD,
                f"{ev.card.pretty} fell from {ev.seat}'s hand: it is played at the first legal "
                "opportunity and cannot take a trick",
            )
        )

    def _on_laid_down(self, ev: HandLaidDown, out: Out) -> None:
        hand = self._need(Phase.PLAYING, ev)
        if not self.rules.lay_down_claims:
            raise IllegalAction("these rules do not allow laying a hand down", "play on")
        trick = hand.trick
        assert trick is not None
        if trick.plays or ev.seat != trick.leader:
            raise NotYourTurn("only the player about to lead may lay down", self.expecting())
        remaining = self.rules.hand_size - len(hand.tricks)
        claim = tuple(ev.cards)
        if len(set(claim)) != remaining:
            raise IllegalAction(
                f"{len(set(claim))} cards laid down", f"all {remaining} cards of the hand"
            )
        for card in claim:
            self._check_card(hand, ev.seat, card)
        held = hand.known[ev.seat]
        if held is not None and set(claim) != held:
            raise ImpossibleCard(f"{ev.seat}'s hand is not those cards", "the cards held")
        partner_hand = hand.known[ev.seat.partner]
        gone = {c for c, where in hand.seen.items() if where[0] in OUT_OF_PLAY}
        outstanding = [
            c
            for c in DECK
            if c not in gone and c not in claim and (partner_hand is None or c not in partner_hand)
        ]
        certain = certain_tricks(claim, outstanding, hand.trump)
        for card in claim:
            proofs, _ = check_play(hand, ev.seat, card, trick.number, None)
            for proof in proofs:
                hand.showings[ev.seat].pop(proof.suit, None)
                if self._renege(hand, proof, out):
                    return
        team = ev.seat.team
        hand.won[team] += certain
        hand.won[team.other] += remaining - certain
        out.append(ClaimJudged(ev.seat, remaining, certain))
        self._score_hand(hand, out)

    # --- the end of a hand, a game, a match --------------------------------------------

    def _score_hand(self, hand: HandState, out: Out) -> None:
        rules = self.rules
        maker = hand.maker
        assert maker is not None
        makers = maker.team
        if rules.variant is Variant.EUCHRE:
            result, mine, theirs = scoring.euchre_hand(rules, hand.won[makers], hand.alone)
        else:
            assert hand.bid is not None
            result, mine, theirs = scoring.bid_hand(rules, hand.bid, hand.won[makers])
        points = [0, 0]
        points[makers] = mine
        points[makers.other] = theirs
        pts = (points[0], points[1])
        each = (
            scoring.individual(rules, pts, maker, hand.alone, result) if rules.progressive else None
        )
        self._add_hand_points(pts, each)
        out.append(
            HandScored(
                hand.number,
                maker,
                result,
                (hand.won[0], hand.won[1]),
                pts,
                self.team_scores(),
                self._individual_totals(),
            )
        )
        made = result in (HandResult.MADE, HandResult.MARCH)
        self._settle_claims(hand, hand.claims, out)
        self._end_hand(hand, makers, made, out)

    def _end_hand_with(
        self, hand: HandState, team: Team, points: int, result: HandResult, out: Out
    ) -> None:
        """End the hand at once with ``points`` to ``team`` (a penalty)."""
        pts = (points, 0) if team is Team.NS else (0, points)
        self._add_points(team, points)
        out.append(
            HandScored(
                hand.number,
                hand.maker,
                result,
                (hand.won[0], hand.won[1]),
                pts,
                self.team_scores(),
                self._individual_totals(),
            )
        )
        self._settle_claims(hand, hand.claims, out)
        self._end_hand(hand, None, False, out)

    def _add_points(self, team: Team, points: int) -> None:
        """Add to a team's score; under progressive scoring, to both its players too."""
        self.scores[team] += points
        if self.rules.progressive:
            for seat in team.seats:
                self.individual[seat] += points

    def _add_hand_points(
        self, points: tuple[int, int], each: tuple[int, int, int, int] | None
    ) -> None:
        self.scores[0] += points[0]
        self.scores[1] += points[1]
        if each is not None:
            for seat in SEATS:
                self.individual[seat] += each[seat]

    def _individual_totals(self) -> tuple[int, int, int, int] | None:
        if not self.rules.progressive:
            return None
        i = self.individual
        return (i[0], i[1], i[2], i[3])

    def _end_hand(self, hand: HandState, bidders: Team | None, made: bool, out: Out) -> None:
        hand.ended = True
        self.last_hand = hand
        self.hand = None
        self.hands_counted += 1
        self.dealer = hand.dealer.left
        self.phase = Phase.DEALING
        rules = self.rules
        winner = scoring.target_winner(rules, self.team_scores(), bidders, made)
        if winner is not None:
            self._end_game(winner, out)
            return
        target = self.hands_target
        if target is None or self.hands_counted < target:
            return
        a, b = self.scores
        if a != b:
            self._end_game(Team.NS if a > b else Team.EW, out)
        elif self.playoff == 0 and rules.playoff_hands:
            self.playoff = 1
            self.hands_target = target + rules.playoff_hands
            out.append(PlayoffStarted(rules.playoff_hands, False))
        elif rules.sudden_death:
            self.playoff += 1
            self.hands_target = target + 1
            out.append(PlayoffStarted(1, True))
        else:
            self._end_game(None, out)

    def _end_game(self, winner: Team | None, out: Out) -> None:
        out.append(GameEnded(self.game, winner, self.team_scores(), self._individual_totals()))
        best_of = self.rules.best_of
        if best_of > 1 and winner is not None:
            self.games_won[winner] += 1
            if self.games_won[winner] > best_of // 2:
                self.match_winner = winner
                out.append(MatchWon(winner, (self.games_won[0], self.games_won[1])))
                self.phase = Phase.OVER
                return
            self.game += 1
            self._new_game_state()
            self.phase = Phase.CHOOSING_DEALER
            return
        self.match_winner = winner
        self.phase = Phase.OVER

    def _throw_in(self, reason: ThrowIn, *, same_dealer: bool, out: Out) -> None:
        hand = self.hand
        assert hand is not None
        nxt = hand.dealer if same_dealer else hand.dealer.left
        self.dealer = nxt
        self.hand = None
        self.phase = Phase.DEALING
        out.append(HandThrownIn(hand.number, reason, nxt))

    # --- checks -------------------------------------------------------------------

    def _need(self, phase: Phase, ev: InputEvent) -> HandState:
        if self.phase is not phase:
            raise WrongPhase(f"{_name(ev)} does not fit now", self.expecting())
        hand = self.hand
        if hand is None:
            if phase in HAND_PHASES:  # pragma: no cover - the phases keep a hand
                raise WrongPhase("no hand is being played", self.expecting())
            return _NO_HAND
        return hand

    # --- the deck's integrity (rules/deck.py): noted, never taken into the game ---------

    def second_copy_of(self, seat: Seat, card: Card) -> str | None:
        """Where the hand in play saw ``card`` before, in the rules' words, when ``seat``
        laying it now would be a second copy (a live table: hands unknown); else None."""
        hand = self.hand
        if hand is None or self.phase not in HAND_PHASES or hand.known[seat] is not None:
            return None
        seen = deck.earlier_copy(hand, seat, card)
        return None if seen is None else describe(seen)

    def _on_second_copy(self, ev: SecondCopySeen, out: Out) -> None:
        if not ev.at_once:
            hand = self._in_hand(ev)
            if ev.seat is not None and deck.earlier_copy(hand, ev.seat, ev.card) is None:
                raise IllegalAction(
                    f"{ev.card} has not been seen in this hand: it is no second copy",
                    "card_played",
                )
            if ev.seat is None and ev.card not in hand.seen:
                raise IllegalAction(f"{ev.card} has not been seen in this hand", "card_played")
        out.append(deck.second_copy(self.hand, ev))

    def _on_foreign_card(self, ev: ForeignCardSeen, out: Out) -> None:
        out.append(deck.foreign_card(ev))

    def _on_kitty_card(self, ev: KittyCardSeen, out: Out) -> None:
        hand = self.hand
        playing = self.phase is Phase.PLAYING and hand is not None and not hand.discard_pending
        if hand is None or not (playing or self.phase is Phase.DISCARDING or hand.discard_pending):
            raise WrongPhase("the kitty is checked while the hand is played", self.expecting())
        out.extend(deck.kitty_card(hand, ev.card, in_play=playing, hand_size=self._hand_size))

    def _in_hand(self, ev: InputEvent) -> HandState:
        if self.phase not in HAND_PHASES or self.hand is None:
            raise WrongPhase(f"{_name(ev)} does not fit now", self.expecting())
        return self.hand

    def _check_card(self, hand: HandState, seat: Seat, card: Card) -> None:
        """Refuse a card the seat cannot have: the same card seen twice, or one that a
        known hand does not hold."""
        if not isinstance(card, Card):
            raise IllegalAction(f"{card!r} is not a card", "a card such as 'JH'")
        held = hand.known[seat]
        if held is not None:
            if card not in held:
                seen = hand.seen.get(card)
                where = f" ({card} was {describe(seen)})" if seen else ""
                raise ImpossibleCard(
                    f"{seat}'s hand has no {card}{where}",
                    "a card from " + " ".join(str(c) for c in sorted(held)),
                )
            return
        for other in SEATS:
            others = hand.known[other]
            if other != seat and others is not None and card in others:
                raise ImpossibleCard(f"{card} is in {other}'s hand", "another card")
        seen = hand.seen.get(card)
        if seen is None or card in hand.exposed[seat]:
            return
        if hand.upcard == card and seen == ("picked up", seat, 0):
            return
        raise ImpossibleCard(f"{card} was already {describe(seen)}", "another card")

    @staticmethod
    def _take(hand: HandState, seat: Seat, card: Card) -> None:
        held = hand.known[seat]
        if held is not None:
            held.discard(card)
        hand.exposed[seat].discard(card)
        hand.dropped[seat].discard(card)


def _on_card(
    kind: Irregularity, seat: Seat, remedy: Remedy, detail: str, card: Card, trick: Trick
) -> IrregularityFound:
    """A ruling on a card about to be laid to ``trick``: its trick and its place there."""
    return IrregularityFound(kind, seat, remedy, detail, card, trick.number, len(trick.plays) + 1)


def _name(ev: InputEvent) -> str:
    from table_controller.rules.codec import event_name

    return event_name(type(ev))


_NO_HAND = HandState(0, Seat.N, None, [None, None, None, None])

_HANDLERS: dict[type[Any], Callable[[Game, Any, Out], None]] = {
    ScoreAdjusted: Game._on_score_adjusted,
    HandVoided: Game._on_hand_voided,
    DealerChosen: Game._on_dealer_chosen,
    FaceUpCardDealt: Game._on_face_up,
    CardCut: Game._on_cut,
    HandDealt: Game._on_hand_dealt,
    Passed: Game._on_passed,
    OrderedUp: Game._on_ordered_up,
    TrumpCalled: Game._on_trump_called,
    BidMade: Game._on_bid,
    TrumpBid: Game._on_trump_bid,
    DealerDiscarded: Game._on_discard,
    CardsExchanged: Game._on_exchanged,
    CardPlayed: Game._on_card_played,
    CardTakenBack: Game._on_taken_back,
    RenegeClaimed: Game._on_claim,
    MisdealDeclared: Game._on_misdeal,
    WrongCardCount: Game._on_wrong_count,
    AllNinesShown: Game._on_nines,
    CardDropped: Game._on_dropped,
    PenaltyAccepted: Game._on_penalty_accepted,
    HandLaidDown: Game._on_laid_down,
    SecondCopySeen: Game._on_second_copy,
    ForeignCardSeen: Game._on_foreign_card,
    KittyCardSeen: Game._on_kitty_card,
}

__all__ = ["Game", "Phase"]


def _canonical(value: object) -> str:
    """A text for ``value`` that does not depend on hash order."""
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(_canonical(v) for v in value)) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_canonical(v) for v in value) + ")"
    if isinstance(value, dict):
        items = sorted((_canonical(k), _canonical(v)) for k, v in value.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    return repr(value)
