"""A simulated visitor at the simulated kiosk: a person with real (simulated-world)
cards at one seat, and the simulated kiosk table built around them.

The visitor does what a person at the kiosk does, and nothing else: takes five cards
from the deck and lays them face up in their play zone, one by one, picking each up
once the kiosk has read it; touches the page to bid (the touch goes through the page's
own input path); as the dealer takes the upcard from the deck and lays the discard in
the play zone; lays each card to play, and gathers their cards of a finished trick into
their tricks pile. ``renege=True`` reneges once (a card of another suit while holding
the suit led). ``blunder=True`` throws a trick away once: playing last to a trick the
other side holds, with a trump in hand that would take it, lays a card that loses it
(``blundered`` says which, and the trump held). ``asleep`` makes the visitor walk away;
``hold(game)`` True makes them wait (a test looks at the page meanwhile);
``sweep_when(game)`` True makes them sweep every card off the table once, then lay back
their card of the trick in play.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from table_controller.bots.knowledge import seat_view
from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.cards import DECK, Card, effective_suit, legal_plays, trick_winner
from table_controller.kiosk.kiosk import KioskTable
from table_controller.kiosk.teach import HAND_SIZE
from table_controller.rules.codec import encode
from table_controller.rules.events import CardPlayed
from table_controller.rules.game import Game
from table_controller.rules.hand import HAND_PHASES, Phase
from table_controller.seats import SEATS, Seat
from table_controller.sim import World, WorldCamera
from table_controller.table.config import TableConfig
from table_controller.table.noticed import PageTouched
from table_controller.table.options import TableOptions
from table_controller.table.simulated import FAST, Pace
from table_controller.vision.synthetic import Effects


class SimulatedVisitor:
    def __init__(
        self,
        table: KioskTable,
        world: World,
        seat: Seat,
        *,
        seed: int = 0,
        renege: bool = False,
        blunder: bool = False,
        frames_per_action: int = 4,
        redo_frames: int = 60,
        settle_frames: int = 40,
    ) -> None:
        self.table = table
        self.world = world
        self.seat = seat
        self.rng = random.Random(seed)
        self.renege = renege
        self.reneged: tuple[Card, Card] | None = None  # (played, held of the suit led)
        self.blunder = blunder
        self.blundered: tuple[Card, Card] | None = None  # (played, the trump that took it)
        self.frames_per_action = frames_per_action
        self.redo_frames = redo_frames
        self.settle_frames = settle_frames  # a card lifted stays off this long (seen gone)
        self._frame = 0
        self._quiet_until = 0
        self.asleep = False
        self.hold: Callable[[Game], bool] | None = None  # True: thinking, does nothing now
        # True (once, with cards on the table): sweeps every card off the table, then
        # lays back those of the trick in play, as they were.
        self.sweep_when: Callable[[Game], bool] | None = None
        self.swept: list[Card] = []
        self._lay_back: list[Card] = []
        self.touched = 0
        self._due = 0
        self._waiting: tuple[int, int, Card | None] | None = None  # (log length, frame, card)
        self._reading: Card | None = None  # a card laid for the kiosk to read
        self._laid_at = 0
        self._took: tuple[int, int] | None = None  # (game, deal) the five cards were for

    def _lift(self, card: Card, *, keep: bool = True) -> None:
        """Pick ``card`` up off the table (into the hand, or aside); nothing is laid
        again until the camera has seen it gone."""
        if self.world.where(card) is not None:
            self.world.remove(card, to=self.seat if keep else None)
        self._quiet_until = self._frame + self.settle_frames

    def act(self, game: Game, frame: int) -> None:
        self._frame = frame
        if self.asleep or frame < self._due:
            return
        if self.table.kiosk.mode == "attract":  # walking up to the kiosk: touch the screen
            self.table.submit(PageTouched({"event": "kiosk_touch"}))
            self._due = frame + self.redo_frames
            return
        if self.table.kiosk.mode != "play":
            return
        if self.sweep_when is not None and self.world.table and self.sweep_when(game):
            self.sweep_when = None
            self._sweep(game)
            return
        if self.hold is not None and self.hold(game):
            return
        if self._lay_back:
            self._put_back(game)
            return
        waiting = self._waiting
        if waiting is not None:
            length, since, card = waiting
            if len(game.log) != length:
                self._waiting = None
            elif frame - since >= self.redo_frames:  # not taken: lift the card, lay it again
                self._waiting = None
                if card is not None:
                    self._lift(card)
                return
            else:
                return
        self._due = frame + self.frames_per_action
        phase = game.phase
        card = self._reading
        if card is not None and phase is not Phase.DEALING:  # the deal is done: pick it up
            self._lift(card)
            self._reading = None
            return
        if phase is Phase.DEALING:
            self._deal(game, frame)
            return
        hand = game.hand
        if hand is None or phase is Phase.OVER:
            return
        me = self.seat
        if phase is Phase.DISCARDING and hand.dealer == me:
            self._discard(game, frame)
        elif phase is Phase.PLAYING and game.to_act == me:
            self._play(game, frame)
        elif game.to_act == me and phase in (Phase.BIDDING, Phase.NAMING_TRUMP):
            view = seat_view(game, me)
            event = RuleOfThumbBot().choose(view, self.rng)
            self.table.submit(PageTouched({**encode(event), "seat": me.name}))
            self.touched += 1
            self._waiting = (len(game.log), frame, None)
        else:
            self._tidy(game)

    # --- a sweep ----------------------------------------------------------------------------

    def _sweep(self, game: Game) -> None:
        """Every card off the table at once (an arm across the table, a tidy-up); a card
        of the visitor's not yet played goes back into their hand."""
        hand = game.hand
        trick = {c for s, c in hand.trick.plays if s == self.seat} if hand and hand.trick else set()
        held = (hand.known[self.seat] if hand is not None else None) or set()
        swept = [p.card for p in self.world.table]
        for card in swept:
            self.world.remove(card, to=self.seat if card in held else None)
        self._waiting = None
        self._lay_back = [c for c in swept if c in trick]
        self._quiet_until = self._frame + self.settle_frames
        # Last: another thread (a test) takes ``swept`` as the sweep done, table empty.
        self.swept = swept

    def _put_back(self, game: Game) -> None:
        """The swept cards of the trick in play laid back as they were (the kiosk knows
        they were played: they are not played again)."""
        if self._frame < self._quiet_until:
            return
        hand = game.hand
        trick = {c for s, c in hand.trick.plays if s == self.seat} if hand and hand.trick else set()
        for card in self._lay_back:
            if card in trick and self.world.where(card) is None:
                self.world.lay(card, f"play:{self.seat}")
        self._lay_back = []

    # --- the deal -------------------------------------------------------------------------

    def _deal(self, game: Game, frame: int) -> None:
        world, me = self.world, self.seat
        read = self.table.kiosk.collected.get(me, [])
        card = self._reading
        if card is not None:
            if card in read or len(read) >= HAND_SIZE:
                self._lift(card)
                self._reading = None
            elif world.where(card) is None:
                world.lay(card, f"play:{me}")
                self._laid_at = frame
            elif frame - self._laid_at >= self.redo_frames:  # not read: lift, lay again
                self._lift(card)
                self._reading = None
            return
        held = world.held[me]
        if self._took != (self.table.game_no, game.deals):
            # Put away what is left of the last hand, and take five cards from the deck
            # (the cards nobody else holds or has laid).
            self._took = (self.table.game_no, game.deals)
            for gone in world.in_zone(f"play:{me}") + world.in_zone(f"tricks:{me}"):
                world.remove(gone)
            world.held[me].clear()
            busy = {p.card for p in world.table} | {c for cs in world.held.values() for c in cs}
            busy |= {c for cs in self.table.kiosk.collected.values() for c in cs}
            deck = [c for c in DECK if c not in busy]
            self.rng.shuffle(deck)
            world.deal({me: deck[:HAND_SIZE]})
            held = world.held[me]
        todo = [c for c in held if c not in read]
        if todo and frame >= self._quiet_until:
            self._reading = todo[0]
            world.lay(todo[0], f"play:{me}")
            self._laid_at = frame

    # --- the discard and the play ----------------------------------------------------------

    def _discard(self, game: Game, frame: int) -> None:
        hand = game.hand
        assert hand is not None and hand.upcard is not None
        world, me = self.world, self.seat
        if hand.upcard not in world.held[me] and world.where(hand.upcard) is None:
            world.deal({me: [hand.upcard]})  # taken from the rest of the deck
            return
        view = seat_view(game, me)
        event = RuleOfThumbBot().choose(view, self.rng)
        card = getattr(event, "card", None)
        if card is None:
            return
        world.lay(card, f"play:{me}")
        self._waiting = (len(game.log), frame, card)

    def _tidy(self, game: Game) -> None:
        """Cards of this seat left in the play zone from a finished trick: gathered; a
        discard laid for the camera: put aside."""
        hand = game.hand
        current = {c for _, c in hand.trick.plays} if hand and hand.trick else set()
        held = (hand.known[self.seat] if hand is not None else None) or set()
        for card in self.world.in_zone(f"play:{self.seat}"):
            if card not in current:  # back in the hand if still held, else put aside
                self._lift(card, keep=card in held)

    def _play(self, game: Game, frame: int) -> None:
        self._tidy(game)
        if frame < self._quiet_until:
            return
        hand = game.hand
        assert hand is not None and hand.trick is not None
        me = self.seat
        view = seat_view(game, me)
        event = RuleOfThumbBot().choose(view, self.rng)
        assert isinstance(event, CardPlayed)
        card = event.card
        led, trump = hand.trick.led, hand.trump
        held = hand.known[me] or set()
        if self.renege and self.reneged is None and led is not None:
            follow = [c for c in held if effective_suit(c, trump) == led]
            other = [c for c in held if effective_suit(c, trump) != led]
            if follow and other:
                card = min(other)
                self.reneged = (card, max(follow))
        if self.blunder and self.blundered is None:
            thrown = thrown_away(game, me)
            if thrown is not None:
                card = thrown[0]
                self.blundered = thrown
        if card not in self.world.held[me]:  # the world and the kiosk disagree: say so
            raise RuntimeError(f"{me} is to play {card} but holds {self.world.held[me]}")
        self.world.lay(card, f"play:{me}")
        self._waiting = (len(game.log), frame, card)


def thrown_away(game: Game, seat: Seat) -> tuple[Card, Card] | None:
    """A trick ``seat`` could throw away now: it plays last to a trick the other side
    holds and has a trump that would take it, and a card that would not. Then (the lowest
    card that loses the trick, the lowest trump that takes it); else None."""
    hand = game.hand
    if hand is None or hand.trick is None or hand.trump is None:
        return None
    trick, trump = hand.trick, hand.trump
    plays = list(trick.plays)
    if trick.led is None or len(plays) != sum(hand.active(s) for s in SEATS) - 1:
        return None
    if trick_winner(plays, trump, trick.led).team is seat.team:
        return None
    legal = sorted(legal_plays(hand.known[seat] or set(), trick.led, trump))

    def takes(card: Card) -> bool:
        return trick_winner([*plays, (seat, card)], trump, trick.led) == seat

    taking = [c for c in legal if takes(c) and effective_suit(c, trump) is trump]
    losing = [c for c in legal if not takes(c)]
    return (losing[0], taking[0]) if taking and losing else None


def simulated_kiosk(
    config: TableConfig,
    *,
    seed: int = 0,
    renege: bool = False,
    blunder: bool = False,
    pace: Pace = FAST,
    visitors: bool = True,
    demo_step: float = 1.2,
    attract: bool = True,
    **options: Any,
) -> tuple[KioskTable, World, dict[Seat, SimulatedVisitor]]:
    """The kiosk of ``config`` over a simulated world, with a simulated visitor at each
    visitor seat (``visitors=False``: the seats stay empty, for attract mode). On a log
    with a hand in play (a restart) the visitors hold their cards as they were.
    ``renege`` and ``blunder`` are the first visitor's.
    ``demo_step`` and ``attract`` are the kiosk's; ``options`` the table's
    (``TableOptions``: ``new_game_after`` the pace's unless given)."""
    world = World(seed=seed, effects=Effects() if pace.clean else None)
    options.setdefault("new_game_after", pace.new_game_after)
    table = KioskTable(
        config,
        TableOptions(
            camera=lambda: WorldCamera(world, seed=seed, realtime=pace.realtime), **options
        ),
        seed=seed,
        demo_step=demo_step,
        attract=attract,
        world=world,
    )
    people = {
        seat: SimulatedVisitor(
            table,
            world,
            seat,
            seed=seed + int(seat),
            renege=renege and i == 0,
            blunder=blunder and i == 0,
            frames_per_action=pace.frames_per_action,
            settle_frames=max(40, pace.settle_frames),
            redo_frames=max(60, pace.redo_frames),
        )
        for i, seat in enumerate(sorted(table.kiosk.visitors))
    }

    class _All:
        def act(self, game: Game, frame: int) -> None:
            for person in people.values():
                person.act(game, frame)

    table.players = _All() if visitors else None
    if visitors:
        _as_they_were(table, world)
    return table, world, people


def _as_they_were(table: KioskTable, world: World) -> None:
    """A kiosk restarted mid-hand (its log resumed): the visitors still hold the cards
    they have not played, and their cards of the trick in play still lie in their play
    zones (the camera sees them again: the kiosk knows they were played)."""
    game, hand = table.game, table.game.hand
    if game.phase not in HAND_PHASES or hand is None:
        return
    for seat in table.kiosk.visitors:
        if hand.trick is not None:
            for who, card in hand.trick.plays:
                if who == seat:
                    world.lay(card, f"play:{seat}")
        world.deal({seat: sorted(hand.known[seat] or ())})


__all__ = ["SimulatedVisitor", "simulated_kiosk"]
