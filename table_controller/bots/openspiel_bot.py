"""OpenSpiel's information-set MCTS bot as one of our bots, for the strength benchmark.

``OpenSpielBot`` plays a seat of a Euchre preset (000, 001, 003: not Bid Euchre) by
asking OpenSpiel's C++ ``ISMCTSBot`` (information-set Monte Carlo tree search, random
roll-outs) what to do in OpenSpiel's ``euchre`` game. OpenSpiel is imported lazily:
``OpenSpielBot()`` raises ``OpenSpielMissing`` with the install hint if it is not there.

Why ISMCTS: euchre is a game of imperfect information. OpenSpiel's perfect-information
``MCTSBot`` (python/algorithms/mcts.py) searches the state it is given; given the real
state it would see every hidden card (cheating), given one deal of the unseen cards it
would play that one guess as if it were the truth. ``ISMCTSBot`` searches the seat's
information state: every simulation deals the unseen cards again
(``State.resample_from_infostate``, which OpenSpiel's euchre implements) and the tree is
keyed by information states, so it never needs to know the hidden hands. Caveat, measured
(docs/bots.md): OpenSpiel's euchre resampler keeps the information-state string but not
the suits a player showed out of, so about one resampled world in five during the play
is one that could not have happened (a player holds a suit it failed to follow). That is
OpenSpiel's bot as shipped, and we measure it as such.

The state handed to OpenSpiel is rebuilt from the seat's ``SeatView`` only: the dealer,
the upcard, the seat's own hand, the public bidding and plays, the seat's own discard
(the dealer's only); the other hands (and a discard it did not see) come from one deal
of the unseen cards consistent with what the seat knows (``sampling.sample_deal``, with
the decision's ``rng``). The search then resamples them anyway; they only give
OpenSpiel a legal history to start from.

Mapping the two engines (see tests/test_openspiel.py): card ids ``rank * 4 + suit``
(ours ``suit * 6 + rank``); the k-th dealt card goes to seat ``(dealer + k) % 4``, the
21st draw is the upcard; OpenSpiel asks the maker about going alone after the call (and
after the dealer's discard) while ours takes ``alone`` with the call, so for a call the
adapter searches the bid, then plays the bid (and a discard: the seat's own searched one
if it deals, else one from the sampled dealer's hand, which the caller cannot see) on a
copy and searches the alone decision; OpenSpiel's dealer never discards the upcard. A
decision OpenSpiel's euchre does not have (irregularities, remedies), a history it
cannot hold (a dealer who discarded the upcard and then showed it gone), or an answer
that is not legal in our game falls back to the rule-of-thumb bot; ``fallbacks`` counts
them.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from dataclasses import replace
from typing import Any

from table_controller.bots.knowledge import SeatView, knowledge
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.sampling import sample_deal
from table_controller.cards import DECK, Card, Suit
from table_controller.errors import TableControllerError
from table_controller.rules.events import (
    CardPlayed,
    DealerDiscarded,
    HandDealt,
    InputEvent,
    OrderedUp,
    Passed,
    TrumpCalled,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Rules, Variant
from table_controller.seats import SEATS

# Simulations per decision: about 45 ms here (the strong bot's budget per card); see
# docs/benchmarks.md, "Bots", for the measurement.
DEFAULT_SIMULATIONS = 3000
DEFAULT_UCT_C = 2.0  # OpenSpiel's examples' exploration constant

# OpenSpiel card id (rank * 4 + suit) <-> our Card (suit * 6 + rank)
CARD: tuple[Card, ...] = tuple(DECK[(a % 4) * 6 + a // 4] for a in range(24))
OSP_ID: dict[Card, int] = {card: a for a, card in enumerate(CARD)}
PASS = 24  # euchre.PASS_ACTION; 25..28 name clubs, diamonds, hearts, spades
CLUBS = 25  # euchre.CLUBS_TRUMP_ACTION
GO_ALONE = 29  # euchre.GO_ALONE_ACTION (30: play with partner)

_INSTALL_HINT = (
    "OpenSpiel is not installed: `pip install open_spiel` (wheels for x86_64 and aarch64) "
    "to play against its bots"
)


class OpenSpielMissing(TableControllerError, ImportError):
    pass


def load_pyspiel() -> Any:
    """The ``pyspiel`` module, or ``OpenSpielMissing`` with the install hint."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise OpenSpielMissing(_INSTALL_HINT) from exc


class CannotMap(TableControllerError):
    """The seat's history has no counterpart in OpenSpiel's euchre."""


class OpenSpielBot:
    """OpenSpiel's ``ISMCTSBot`` deciding from one seat's view (see the module doc)."""

    name = "openspiel-ismcts"

    def __init__(
        self,
        rules: Rules,
        simulations: int = DEFAULT_SIMULATIONS,
        uct_c: float = DEFAULT_UCT_C,
    ) -> None:
        if rules.variant is not Variant.EUCHRE:
            raise ValueError(f"OpenSpiel's euchre has no {rules.variant.value} variant")
        self.pyspiel = load_pyspiel()
        self.rules = rules
        self.game = self.pyspiel.load_game(
            "euchre",
            {"stick_the_dealer": rules.stick_the_dealer, "allow_lone_defender": False},
        )
        self.simulations = simulations
        self.uct_c = uct_c
        self.fallback = RuleOfThumbBot()
        # decisions left to the rule-of-thumb bot, by reason, for the benchmark
        self.fallbacks: Counter[str] = Counter()

    # --- deciding ------------------------------------------------------------------

    def choose(self, view: SeatView, rng: random.Random) -> InputEvent:
        game = view.game
        legal = game.legal_events()
        event: InputEvent | None = None
        reason = f"no such decision in OpenSpiel's euchre ({game.phase.value})"
        if game.phase in (Phase.BIDDING, Phase.DISCARDING, Phase.PLAYING):
            try:
                state = self.state_of(view, rng)
                event = self._decide(view, state, rng)
                reason = f"not legal here: {event}"
            except CannotMap as exc:
                reason = str(exc)
        if event is None or event not in legal:
            self.fallbacks[reason.split(":")[0]] += 1
            return self.fallback.choose(view, rng)
        return event

    def search(self, state: Any, rng: random.Random) -> int:
        """OpenSpiel's ISMCTS's action at ``state``, seeded from ``rng``. (OpenSpiel's
        search is not reproducible from its seed in the play: the same state and seed can
        give different cards. The state it is given is: tests/test_bots_openspiel.py.)"""
        ps = self.pyspiel
        seed = rng.getrandbits(31)
        evaluator = ps.RandomRolloutEvaluator(1, seed)
        bot = ps.ISMCTSBot(
            seed,
            evaluator,
            self.uct_c,
            self.simulations,
            -1,  # a new world sample every simulation
            ps.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,  # key the tree by information states
            False,
        )
        return int(bot.step(state))

    def _decide(self, view: SeatView, state: Any, rng: random.Random) -> InputEvent | None:
        me = view.seat
        hand = view.game.hand
        assert hand is not None
        if state.is_terminal() or state.current_player() != me:
            raise CannotMap(f"OpenSpiel expects {state.current_player()}, not {me}")
        legal = state.legal_actions()
        action = int(legal[0]) if len(legal) == 1 else self.search(state, rng)
        if view.game.phase is Phase.PLAYING:
            return CardPlayed(me, CARD[action])
        if view.game.phase is Phase.DISCARDING:
            return DealerDiscarded(CARD[action])
        if action == PASS:
            return Passed(me)
        # a call: OpenSpiel asks about going alone after it (and after the discard)
        after = state.clone()
        after.apply_action(action)
        if after.current_phase() == self.pyspiel.euchre.Phase.DISCARD:
            if after.current_player() == me:
                after.apply_action(self.search(after, rng))
            else:  # the sampled dealer's discard: the caller does not see it
                after.apply_action(after.legal_actions()[0])
        alone = False
        if after.current_phase() == self.pyspiel.euchre.Phase.GO_ALONE:
            alone = self.search(after, rng) == GO_ALONE
        if hand.round == 1:
            return OrderedUp(me, alone)
        return TrumpCalled(me, Suit(action - CLUBS), alone)

    # --- the OpenSpiel state from the seat's view ------------------------------------

    def state_of(self, view: SeatView, rng: random.Random) -> Any:
        """An OpenSpiel euchre state with the seat's information state, from its view
        alone (the hidden hands dealt consistently with what it knows, using ``rng``)."""
        game, me = view.game, view.seat
        hand = game.hand
        if hand is None or hand.upcard is None:
            raise CannotMap("no Euchre hand in play")
        events = _hand_events(game)
        dealer = hand.dealer
        upcard = hand.upcard
        k = knowledge(view)
        taken = any(type(e) is OrderedUp for e in events)
        if taken and not hand.active(dealer) and upcard in k.unseen:
            # the dealer sits out (its partner alone) holding the upcard: out of play
            k = replace(k, unseen=k.unseen - {upcard}, kitty=max(k.kitty - 1, 0))
        sampled = sample_deal(k, rng)
        if sampled is None:
            raise CannotMap("no deal of the unseen cards meets the constraints")
        held: list[set[Card]] = [set(sampled[s]) for s in SEATS]
        held[me] = set(view.cards)
        kitty = [c for c in sorted(sampled[4]) if c != upcard]
        played: list[set[Card]] = [set(), set(), set(), set()]
        discard: Card | None = None
        discarded = picked_up = False
        for e in events:
            if type(e) is CardPlayed:
                played[e.seat].add(e.card)
            elif type(e) is OrderedUp:
                picked_up = True
            elif type(e) is DealerDiscarded:
                discarded = True
                discard = e.card
        dealt: list[set[Card]] = [held[s] | played[s] for s in SEATS]
        for s in SEATS:
            if s != dealer and upcard in dealt[s]:
                raise CannotMap("the sampled deal gave the taken upcard to another seat")
        if picked_up:
            # the dealer's five dealt cards: what it holds and played less the upcard it
            # took, plus its discard (its own, or an unseen one out of the kitty)
            if hand.active(dealer) and discarded and upcard not in dealt[dealer]:
                raise CannotMap("the dealer discarded the upcard (OpenSpiel forbids it)")
            dealt[dealer].discard(upcard)
            if discarded:
                if discard is None:
                    if not kitty:
                        raise CannotMap("no card left for the dealer's unseen discard")
                    discard = kitty.pop(0)
                if discard == upcard:
                    raise CannotMap("the dealer discarded the upcard (OpenSpiel forbids it)")
                dealt[dealer].add(discard)
        for s in SEATS:  # a seat sitting out: its hand lies unseen with the kitty
            while len(dealt[s]) < 5 and kitty:
                dealt[s].add(kitty.pop(0))
        if any(len(dealt[s]) != 5 for s in SEATS):
            raise CannotMap(f"not five cards a seat: {[len(d) for d in dealt]}")

        state = self.game.new_initial_state()
        state.apply_action(int(dealer))
        order = [sorted(OSP_ID[c] for c in dealt[s]) for s in SEATS]
        for i in range(20):
            state.apply_action(order[(dealer + i) % 4][i // 4])
        state.apply_action(OSP_ID[upcard])
        alone: bool | None = None
        euchre = self.pyspiel.euchre
        try:
            for e in events:
                if type(e) is Passed:
                    state.apply_action_with_legality_check(PASS)
                elif type(e) is OrderedUp:
                    state.apply_action_with_legality_check(CLUBS + int(upcard.suit))
                    alone = e.alone
                elif type(e) is TrumpCalled and e.trump is not None:
                    state.apply_action_with_legality_check(CLUBS + int(e.trump))
                    alone = e.alone
                elif type(e) is DealerDiscarded:
                    assert discard is not None
                    state.apply_action_with_legality_check(OSP_ID[discard])
                elif type(e) is CardPlayed:
                    state.apply_action_with_legality_check(OSP_ID[e.card])
                else:
                    raise CannotMap(f"{type(e).__name__} has no counterpart in OpenSpiel")
                if state.current_phase() == euchre.Phase.GO_ALONE:
                    if alone is None:  # pragma: no cover - a call always comes first
                        raise CannotMap("going alone before a call")
                    state.apply_action_with_legality_check(GO_ALONE if alone else GO_ALONE + 1)
        except Exception as exc:  # pyspiel.SpielError on an illegal action
            if isinstance(exc, CannotMap):
                raise
            raise CannotMap(f"OpenSpiel refused the history: {exc}") from exc
        return state


def _hand_events(game: Game) -> list[InputEvent]:
    """The events since the hand in play was dealt."""
    log = game.log
    for i in range(len(log) - 1, -1, -1):
        if type(log[i]) is HandDealt:
            return list(log[i + 1 :])
    return []


__all__ = ["CARD", "OSP_ID", "OpenSpielBot", "OpenSpielMissing", "load_pyspiel"]
