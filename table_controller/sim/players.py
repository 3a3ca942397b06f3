"""Four simulated players at the simulated table: what people do with their hands.

They never speak to the rules. They lay cards in the world (which the camera sees),
press their seat buttons, turn the trump cube, and, only where a real table has no
sensor (the players agreeing on the first dealer), tell the table an event. The table
(table/inputs.py) makes of those actions what it makes of real ones:

- choosing the first dealer: cards dealt face up into the seats' play zones (first
  jack or ace), one cut card per seat (high cut), or ``tell(DealerChosen)``;
- the deal: five cards to each hand (unseen) and the upcard face up in the kitty;
- bidding: PASS, CALL or ALONE; in the second round the cube is turned to the suit
  first; the dealer then takes the upcard and presses PASS (the discard goes down
  face down);
- play: a card laid in the player's play zone; a finished trick is gathered face up
  into the winner's trick pile; a finished hand is picked up.

The live game does not know anyone's cards (a live deal has no hands), so the players
keep their own in the world and play legally themselves: a simple strategy, legal by
the effective suit. With ``renege=True`` one player, once a game (the first chance in
hand 1 or 2), keeps a card of the suit led and plays another, and later plays the kept
card, so the rules prove the renege from what the camera saw.

``act(game, frame)`` is called once a frame. A player acts only when the action is due
(``frames_per_action`` after the last) and the table has taken the last one (the game's
log grew); if nothing happens for ``redo_frames``, the action is done again (a card
lifted and laid again, a button pressed again). Everything random comes from ``seed``.
When the game and the world disagree (the table restarted mid-hand and replayed its
log, the world is new), the players set the table out as the game says it is and
carry on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from table_controller.cards import (
    DECK,
    Card,
    Suit,
    effective_suit,
    power,
    trick_winner,
)
from table_controller.devices.cube_types import CubeState
from table_controller.devices.emulator import FACE_SUITS, EmulatedBoard
from table_controller.devices.seat_events import SeatButton
from table_controller.rules.events import (
    CardCut,
    DealerChosen,
    FaceUpCardDealt,
    InputEvent,
    TrumpCalled,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.hand import HAND_PHASES, HandState
from table_controller.rules.presets import FirstDealer, Rules, Variant
from table_controller.seats import SEATS, Seat
from table_controller.sim.strategy import (
    choose_play,
    dealer_discard,
    first_round_bid,
    second_round_bid,
    strength,
)
from table_controller.sim.world import World

Press = Callable[[Seat, SeatButton], None]
TurnCube = Callable[[Suit], None]
Tell = Callable[[InputEvent], None]


# --- the trump cube --------------------------------------------------------------------


def cube_face(suit: Suit, face_suits: Sequence[int] = FACE_SUITS) -> int:
    """The face of the cube that carries ``suit`` (``face_suits`` as the firmware's
    board has them: the wire suit printed on each face)."""
    wire = CubeState(trump=suit).to_wire().trump
    for face, printed in enumerate(face_suits):
        if printed == wire:
            return face
    raise ValueError(f"no face of this cube carries {suit.word}: its faces are {face_suits}")


def cube_turner(board: EmulatedBoard, face_suits: Sequence[int] = FACE_SUITS) -> TurnCube:
    """``turn_cube`` for the emulated cube: lay it down with the suit's face up (the
    firmware reports the face once it has lain still)."""

    def turn(suit: Suit) -> None:
        board.turn_face_up(cube_face(suit, face_suits))

    return turn


# --- the players -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Renege:
    """A renege the players made on purpose: ``seat`` kept ``kept`` (of ``suit``) and
    played ``played`` in ``trick`` of ``hand`` of ``game``."""

    game: int
    hand: int
    trick: int
    seat: Seat
    suit: Suit
    played: Card
    kept: Card


@dataclass
class _Waiting:
    log_length: int  # the game's log when the action was done
    frame: int
    undo: Callable[[int], None]  # takes the action back before it is done again


class SimulatedPlayers:
    """The four players (see the module's doc). ``press(seat, button)`` presses a seat
    button, ``turn_cube(suit)`` turns the trump cube (None: no cube, and a second-round
    call is told as the page would tell it), ``tell(event)`` is for what a table has no
    sensor for. ``settle_frames`` is how long the table is left as it is after it was
    picked up (the camera must see the cards gone before the same cards come back), and
    ``redo_frames`` how long a player waits for the table before doing it again, and
    ``cube_frames`` how long a player lets the cube lie before pressing CALL (the cube
    reports a face once it has lain still for 0.4 s; ``frames_per_action`` by default)."""

    def __init__(
        self,
        world: World,
        rules: Rules,
        *,
        press: Press,
        turn_cube: TurnCube | None,
        tell: Tell,
        seed: int = 0,
        renege: bool = False,
        frames_per_action: int = 10,
        settle_frames: int = 45,
        redo_frames: int = 90,
        cube_frames: int | None = None,
    ) -> None:
        if rules.variant is not Variant.EUCHRE:
            raise ValueError(
                f"the simulated players play Euchre (five cards and an upcard), not "
                f"{rules.variant.value}: choose a Euchre rule preset for the simulated table"
            )
        if frames_per_action < 1 or settle_frames < 0 or redo_frames < 1:
            raise ValueError(
                "frames_per_action and redo_frames must be at least 1 and settle_frames "
                f"not negative (got {frames_per_action}, {redo_frames}, {settle_frames})"
            )
        self.world = world
        self.rules = rules
        self.press = press
        self.turn_cube = turn_cube
        self.tell = tell
        self.renege = renege
        self.frames_per_action = frames_per_action
        self.settle_frames = settle_frames
        self.redo_frames = redo_frames
        # the firmware reports a face after it has lain still 400 ms: wait that long
        self.cube_frames = frames_per_action if cube_frames is None else cube_frames
        self.rng = random.Random(seed)
        self.reneges: list[Renege] = []
        self.redone = 0  # actions done again because the table did not take them
        self._due = 0
        self._waiting: _Waiting | None = None
        self._log_before = 0
        self._cube: Suit | None = None  # the suit the cube shows, as we turned it
        self._dealt: tuple[int, int] | None = None  # (game, hand) dealt in this world
        self._decks: dict[tuple[int, str], list[Card]] = {}
        self._plans: dict[tuple[int, int, int, Seat], Card] = {}
        self._owed: tuple[int, int, Seat, Suit] | None = None  # a renege to prove

    # --- the loop ---------------------------------------------------------------------

    def act(self, game: Game, frame: int) -> None:
        """One frame: at most one physical action, when it is due and the table has
        taken the last one. ``game`` is only read."""
        waiting = self._waiting
        if waiting is not None:
            if len(game.log) != waiting.log_length:
                self._waiting = None
                self._due = max(self._due, frame + self.frames_per_action // 2)
            elif frame - waiting.frame >= self.redo_frames:
                self._waiting = None
                self.redone += 1
                waiting.undo(frame)
                return
            else:
                return
        if frame < self._due:
            return
        # The log's length before acting: a press may reach the rules before it returns.
        self._log_before = len(game.log)
        self._decide(game, frame)

    def _expect(self, frame: int, undo: Callable[[int], None] | None = None) -> None:
        """An action the table should turn into an event: wait for it."""
        self._waiting = _Waiting(self._log_before, frame, undo or (lambda _frame: None))
        self._due = frame + self.frames_per_action

    def _pause(self, frame: int, frames: int | None = None) -> None:
        """An action the table makes nothing of: just wait before the next."""
        self._due = frame + (self.frames_per_action if frames is None else frames)

    def _lay(self, game: Game, frame: int, card: Card, zone: str) -> None:
        holder = self.world.holder(card)
        self.world.lay(card, zone)

        def lift(at: int) -> None:  # lift it for long enough that the camera sees it gone
            if self.world.where(card) is not None:
                self.world.remove(card, to=holder)
            self._pause(at, self.settle_frames)

        self._expect(frame, lift)

    def _decide(self, game: Game, frame: int) -> None:
        phase = game.phase
        if phase is Phase.CHOOSING_DEALER:
            self._choose_dealer(game, frame)
        elif phase is Phase.DEALING:
            self._deal(game, frame)
        elif phase in HAND_PHASES:
            hand = game.hand
            assert hand is not None
            if self._dealt != (game.game, hand.number):
                self._restore(game, hand)
                self._pause(frame, self.settle_frames)
            elif phase is Phase.BIDDING:
                self._bid(game, hand, frame)
            elif phase is Phase.DISCARDING:
                self._discard(game, hand, frame)
            elif phase is Phase.PLAYING:
                self._play(game, hand, frame)
            # CHOOSING_REMEDY, NAMING_TRUMP, EXCHANGING: a bid out of turn or Bid Euchre
            # came from elsewhere (the page, the director); the players wait.

    def _clear_first(self, frame: int, keep: Sequence[Card] = ()) -> bool:
        """Pick up whatever lies on the table (or is held) that should not be there."""
        stray = [p.card for p in self.world.table if p.card not in keep]
        if stray or any(self.world.held.values()):
            self.world.clear()
            self._pause(frame, self.settle_frames)
            return True
        return False

    def _deck(self, game: Game, what: str) -> list[Card]:
        key = (game.game, what)
        if key not in self._decks:
            deck = list(DECK)
            self.rng.shuffle(deck)
            self._decks = {k: v for k, v in self._decks.items() if k[0] == game.game}
            self._decks[key] = deck
        return self._decks[key]

    # --- the first dealer ---------------------------------------------------------------

    def _choose_dealer(self, game: Game, frame: int) -> None:
        how = self.rules.first_dealer
        if how is FirstDealer.CHOSEN:
            if self._clear_first(frame):
                return
            self.tell(DealerChosen(self.rng.choice(SEATS)))
            self._expect(frame, lambda _at: None)
            return
        if how is FirstDealer.HIGH_CUT:
            self._cut(game, frame)
            return
        dealt: list[FaceUpCardDealt] = []
        for logged in reversed(game.log):
            if not isinstance(logged, FaceUpCardDealt):
                break
            dealt.insert(0, logged)
        shown = [e.card for e in dealt]
        if self._clear_first(frame, keep=shown):
            return
        # The dealer of the face-up cards starts at a seat that stays the same on a redo.
        start = SEATS[int(self._deck(game, "face-up")[-1]) % 4]
        seat = dealt[-1].seat.left if dealt else start
        on_table = {p.card for p in self.world.table}
        card = next(c for c in self._deck(game, "face-up") if c not in shown and c not in on_table)
        self._lay(game, frame, card, f"play:{seat}")

    def _cut(self, game: Game, frame: int) -> None:
        cuts: list[CardCut] = []
        for event in reversed(game.log):
            if not isinstance(event, CardCut):
                break
            cuts.insert(0, event)
        cutting: tuple[Seat, ...] = SEATS
        round_: dict[Seat, Card] = {}
        for cut in cuts:  # the rules' own reckoning of rounds and ties
            round_[cut.seat] = cut.card
            if len(round_) == len(cutting):
                best = max(c.rank for c in round_.values())
                cutting = tuple(s for s in cutting if round_[s].rank == best)
                round_ = {}
        if self._clear_first(frame, keep=list(round_.values())):
            return
        seat = next(s for s in cutting if s not in round_)
        on_table = {p.card for p in self.world.table}
        deck = self._deck(game, f"cut-{len(cuts)}")
        card = next(c for c in deck if c not in on_table and c not in round_.values())
        self._lay(game, frame, card, f"play:{seat}")

    # --- the deal ---------------------------------------------------------------------------

    def _deal(self, game: Game, frame: int) -> None:
        if self._clear_first(frame):
            return
        assert game.dealer is not None
        deck = list(DECK)
        self.rng.shuffle(deck)
        order = game.dealer.left.clockwise_from()
        self.world.deal({seat: deck[i * 5 : i * 5 + 5] for i, seat in enumerate(order)})
        for card in deck[21:]:
            self.world.lay(card, "kitty", face_up=False)
        upcard = deck[20]
        self.world.lay(upcard, "kitty")
        self._dealt = (game.game, game.deals + 1)

        def gather_up(at: int) -> None:  # the table did not see the deal: deal again
            self.world.clear()
            self._pause(at, self.settle_frames)

        self._expect(frame, gather_up)

    # --- bidding and the discard -------------------------------------------------------------

    def _bid(self, game: Game, hand: HandState, frame: int) -> None:
        seat = game.to_act
        assert seat is not None and hand.upcard is not None
        held = self.world.held[seat]
        if hand.round == 1:
            button = first_round_bid(held, hand.upcard, dealer=seat == hand.dealer)
            self.press(seat, button)
            self._expect(frame)
            return
        stuck = seat == hand.dealer and self.rules.stick_the_dealer
        call = second_round_bid(held, hand.upcard.suit, stuck=stuck)
        if call is None:
            self.press(seat, SeatButton.PASS)
            self._expect(frame)
            return
        suit, alone = call
        if self.turn_cube is None:
            self.tell(TrumpCalled(seat, suit, alone))
            self._expect(frame)
            return
        if self._cube != suit:
            self.turn_cube(suit)
            self._cube = suit
            self._pause(frame, self.cube_frames)
            return
        self.press(seat, SeatButton.ALONE if alone else SeatButton.CALL)

        def turn_again(_at: int) -> None:  # perhaps the cube was not read: turn it again
            self._cube = None

        self._expect(frame, turn_again)

    def _discard(self, game: Game, hand: HandState, frame: int) -> None:
        dealer = hand.dealer
        upcard = hand.upcard
        assert upcard is not None and hand.trump is not None
        if self.world.where(upcard) is not None:
            self.world.remove(upcard, to=dealer)
            self._pause(frame)
            return
        held = self.world.held[dealer]
        if len(held) > 5:
            self.world.lay(dealer_discard(held, hand.trump), "kitty", face_up=False)
            self._pause(frame)
            return
        self.press(dealer, SeatButton.PASS)
        self._expect(frame)

    # --- play ----------------------------------------------------------------------------------

    def _play(self, game: Game, hand: HandState, frame: int) -> None:
        trick = hand.trick
        assert trick is not None
        current = [c for _, c in trick.plays]
        finished = [c for c in self.world.in_zone("play:") if c not in current]
        if finished:  # the last trick still lies in the play zones: gather it
            self.world.gather(finished, f"tricks:{trick.leader}")
            self._pause(frame)
            return
        seat = game.to_act
        assert seat is not None
        card = self._card_to_play(game, hand, seat)
        self._lay(game, frame, card, f"play:{seat}")

    def _card_to_play(self, game: Game, hand: HandState, seat: Seat) -> Card:
        trick = hand.trick
        assert trick is not None
        key = (game.game, hand.number, trick.number, seat)
        if key in self._plans and self._plans[key] in self.world.held[seat]:
            return self._plans[key]
        held = self.world.held[seat]
        if not held:
            raise RuntimeError(
                f"{seat} holds no cards but is to play: the simulated table lost track"
            )
        trump, led = hand.trump, trick.led
        card = self._prove_renege(game, hand, seat, held, led)
        if card is None:
            card = self._renege_now(game, hand, seat, held, led)
        if card is None:
            card = choose_play(held, trick.plays, led, trump)
        self._plans = {k: v for k, v in self._plans.items() if k[:2] == key[:2]}
        self._plans[key] = card
        return card

    def _renege_now(
        self, game: Game, hand: HandState, seat: Seat, held: list[Card], led: Suit | None
    ) -> Card | None:
        """The planned renege: the first chance in hand 1 or 2 of the game, early enough
        in the hand that the kept card is still to be played."""
        trick = hand.trick
        assert trick is not None
        if (
            not self.renege
            or led is None
            or hand.number > 2
            or trick.number > self.rules.hand_size - 1
            or any(r.game == game.game for r in self.reneges)
        ):
            return None
        trump = hand.trump
        following = [c for c in held if effective_suit(c, trump) == led]
        others = [c for c in held if effective_suit(c, trump) != led]
        if not following or not others:
            return None
        played = min(others, key=lambda c: (strength(c, trump, led), int(c)))
        kept = max(following, key=lambda c: (power(c, trump), int(c)))
        self.reneges.append(Renege(game.game, hand.number, trick.number, seat, led, played, kept))
        self._owed = (game.game, hand.number, seat, led)
        return played

    def _prove_renege(
        self, game: Game, hand: HandState, seat: Seat, held: list[Card], led: Suit | None
    ) -> Card | None:
        """After reneging, play the kept suit at the first chance that looks innocent
        (leading, following it, or void in the suit led), so the rules see the proof."""
        owed = self._owed
        if owed is None or owed[:3] != (game.game, hand.number, seat):
            return None
        trump = hand.trump
        kept = [c for c in held if effective_suit(c, trump) == owed[3]]
        if not kept:
            self._owed = None
            return None
        void = led is not None and all(effective_suit(c, trump) != led for c in held)
        if led is None or led == owed[3] or void:
            self._owed = None
            return max(kept, key=lambda c: (power(c, trump), int(c)))
        return None

    # --- setting the table out again -----------------------------------------------------------

    def _restore(self, game: Game, hand: HandState) -> None:
        """The table as the game says it is: tricks won in their piles, the trick in
        play in the play zones, the upcard where the bidding left it, and the cards not
        yet seen dealt so that each seat holds as many as it should and none of a suit
        it has shown out of."""
        world = self.world
        world.clear()
        trump = hand.trump
        upcard = hand.upcard
        assert upcard is not None
        played: set[Card] = set()
        for done in hand.tricks:
            cards = [c for _, c in done.plays]
            played.update(cards)
            live = [p for p in done.plays if p[1] not in done.dead] or done.plays
            zone = f"tricks:{trick_winner(live, trump, done.led)}"
            for card in cards:
                world.lay(card, zone)
            world.gather(cards, zone)
        current = hand.trick.plays if hand.trick is not None else []
        played.update(c for _, c in current)
        counts = {seat: self.rules.hand_size - hand.played[seat] for seat in SEATS}
        # What the rules saw go to the kitty (turned down, a known discard) stays there;
        # the dealer holds the upcard only when it was picked up and is not played yet.
        kitty = {c for c, (kind, _, _) in hand.seen.items() if kind in ("turned down", "discarded")}
        picked_up = hand.seen.get(upcard, ("", None, 0))[0] == "picked up"
        upcard_held = game.phase is Phase.PLAYING and picked_up and upcard not in played
        if upcard_held:
            counts[hand.dealer] -= 1
        pool = [c for c in DECK if c not in played and c != upcard and c not in kitty]
        hands = self._share(pool, counts, hand)
        if upcard_held:
            hands[hand.dealer].append(upcard)
        world.deal(hands)
        dealt = {c for cards in hands.values() for c in cards}
        for card in [*pool, *sorted(kitty - {upcard})]:
            if card not in dealt:
                world.lay(card, "kitty", face_up=False)
        if not upcard_held and upcard not in played:
            face_up = game.phase is Phase.DISCARDING or (hand.round == 1 and not hand.trump_set)
            world.lay(upcard, "kitty", face_up=face_up)
        for seat, card in current:
            world.lay(card, f"play:{seat}")
        self._dealt = (game.game, hand.number)

    def _share(
        self, pool: list[Card], counts: dict[Seat, int], hand: HandState
    ) -> dict[Seat, list[Card]]:
        """Deal ``pool`` out by ``counts``, giving no seat a card of a suit it has shown
        out of (else its next play of that suit would prove a renege it never made)."""
        trump = hand.trump
        barred = {s: set(hand.showings[s]) for s in SEATS}
        order = sorted(SEATS, key=lambda s: -len(barred[s]))
        for attempt in range(201):
            strict = attempt < 200  # the last try ignores the suits shown out of
            deck = list(pool)
            self.rng.shuffle(deck)
            out: dict[Seat, list[Card]] = {}
            for seat in order:
                ok = [c for c in deck if not strict or effective_suit(c, trump) not in barred[seat]]
                if len(ok) < counts[seat]:
                    break
                out[seat] = ok[: counts[seat]]
                deck = [c for c in deck if c not in out[seat]]
            else:
                return out
        raise RuntimeError(
            f"cannot set the table out again: {len(pool)} unseen cards for hands of "
            f"{sum(counts.values())}; the game's log does not fit a Euchre deal"
        )


__all__ = ["Renege", "SimulatedPlayers", "cube_face", "cube_turner"]
