"""The kiosk: a real table where one to three visitors play real cards and bots fill
the other seats (docs/kiosk.md).

``Kiosk`` is the policy the running table (table/app.py, table/policy.py) is given to be a
kiosk; ``KioskTable`` is a table given it. The kiosk's ways:

- **The deal.** Bots cannot lay cards, so their hands are virtual. Each visitor takes
  five marked cards and lays them face up in their play zone; once the camera has read
  every visitor's five, the kiosk shuffles the cards left (its own randomness, from
  outside the pure core) and deals the bots' hands and the upcard: one ``HandDealt``
  with every hand known, logged like any event. The visitors then pick their cards up.
- **The bots** play their seats from what their seat may see (bots/knowledge.py),
  with ``StrongBot`` or ``RuleOfThumbBot``, in a worker thread so the page and the
  camera never wait; their cards are shown on the page at their seats, and their seat
  lights light like anyone's (the lights follow the game). They are named as bots, in
  the log too ("Ada (strong bot)"), so a score sheet says who played. A visitor's seat
  light blinks white while the kiosk waits for their five cards.
- **The coach** (teach.py): whose turn, what a visitor may play and why, why a trick
  was won, a renege explained in words. A card a visitor lays that is not theirs, or in
  a bot's zone, is refused with what to do.
- **The look back** (look_back/): when a visitor's game ends, the coach's "your three
  costliest decisions", from the game's review, worked out in a process of its own
  while the page says "Looking over your game..."; shown until the next deal, dropped
  when the visitor walks away.
- **Attract mode** after ``attract_after`` seconds idle: four bots play a demo hand on
  the page (virtual cards only, nothing logged) under a "Touch to play" invitation; a
  touch or a card laid starts a real game. **Walk-away**: a game with no visitor action
  for ``walk_away`` seconds is ended (it stays in the log) and the kiosk goes back to
  attract mode.
- **The operator's PIN** (hashed in the config) to reset the game or leave the kiosk;
  wrong guesses are rate-limited.
- **A covered camera** (dark, blank frames) is the VIEW fault: the page says what to
  do, and play goes on when the table is in view again (cover.py). Cards swept off the
  table lose nothing: the kiosk knows every card played, and a played card laid again is
  ignored. **A restart** resumes the hand in play from the log (restart.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from table_controller.bots.rule_of_thumb import RuleOfThumbBot
from table_controller.bots.strong import StrongBot
from table_controller.cards import DECK, Card
from table_controller.errors import TableControllerError
from table_controller.kiosk.attract import BOT_NAMES, Attract
from table_controller.kiosk.bots import KioskBots
from table_controller.kiosk.cover import COVER_FIX, CoverWatch, covered
from table_controller.kiosk.look_back import Job, LookBack, Looked
from table_controller.kiosk.restart import carry_on
from table_controller.kiosk.teach import HAND_SIZE, cards_words, coach
from table_controller.present import (
    BotShown,
    KioskAlert,
    PageCard,
    TableSnapshot,
    page_card,
    waiting_for,
)
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    GameEnded,
    HandDealt,
    InputEvent,
    OutputEvent,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Variant
from table_controller.seats import SEATS, Seat
from table_controller.table.app import Table
from table_controller.table.config import DEFAULT_PLAYERS, PLAYER_MAX, TableConfig
from table_controller.table.health import Device
from table_controller.table.inputs import InputRefused, from_vision, zone_seat
from table_controller.table.noticed import (
    BotMoved,
    CameraSaw,
    Input,
    PagePayload,
    PageTouched,
    Pressed,
    Refusal,
)
from table_controller.table.options import TableOptions
from table_controller.table.policy import PASS, Pass, PolicyTable
from table_controller.table.sinks import Shown
from table_controller.vision.camera import Frame
from table_controller.vision.foreign import ForeignCardLaid
from table_controller.vision.tracker import CardLaid, CardMoved, CardRemoved, TrackerEvent

if TYPE_CHECKING:
    from table_controller.sim import World

log = logging.getLogger(__name__)

PLAY_AGAIN = "To play again, take five cards from the deck and lay them face up in your play zone."


class KioskError(TableControllerError, ValueError):
    """A configuration the kiosk cannot run with, and what to change."""


def bot_names(config: TableConfig, bots: tuple[Seat, ...]) -> dict[Seat, str]:
    """The players' names with the bots' seats named as bots, with their level: "Ada
    (strong bot)"; a name the config gave a bot's seat is kept, marked as a bot."""
    suffix = f" ({config.kiosk.bot_level} bot)"
    names = dict(config.players)
    for i, seat in enumerate(bots):
        name = names.get(seat, DEFAULT_PLAYERS[seat])
        if name == DEFAULT_PLAYERS[seat]:
            name = BOT_NAMES[i]
        if not re.search(r"\bbot\b", name, re.IGNORECASE):
            name = name[: PLAYER_MAX - len(suffix)].rstrip() + suffix
        names[seat] = name
    return names


class Kiosk:
    """The kiosk's ways (see the module's doc), given to a ``Table`` as its policy.
    ``seed`` makes the deals and the bots repeatable (tests); ``demo_step`` is the
    seconds between two moves of the attract mode's demo hand; ``covered_after`` how
    long the lens must be dark before the page says so."""

    page_extra = frozenset({"kiosk_touch", "kiosk_pin"})

    def __init__(
        self,
        config: TableConfig,
        *,
        seed: int | None = None,
        demo_step: float = 1.2,
        covered_after: float = 1.0,
        attract: bool = True,
    ) -> None:
        if config.rules.variant is not Variant.EUCHRE:
            raise KioskError(
                f"the kiosk deals Euchre (five cards and an upcard), not "
                f"{config.rules.variant.value}: choose a Euchre preset under [rules]"
            )
        k = config.kiosk
        self.settings = k
        self.operator_pin = k.pin_hash  # the page's operator PIN too, unless [web] has one
        self.visitors = frozenset(k.visitors)
        self.bot_seats = tuple(s for s in SEATS if s not in self.visitors)
        self.rng = random.Random(seed if seed is not None else int.from_bytes(os.urandom(8)))
        self.collected: dict[Seat, list[Card]] = {s: [] for s in self.visitors}
        self.mode = "play"
        self.exited = False
        self.alert: KioskAlert | None = None
        self.attract_wanted = attract
        self.cover = CoverWatch(covered_after)
        # One worker thread works out the bots' and the demo's moves.
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="kiosk-bot")
        bot = (
            StrongBot(budget=k.think_time, bid_by_search=k.bid_by_search)
            if k.bot_level == "strong"
            else RuleOfThumbBot()
        )
        self.bots = KioskBots(self, bot, self._pool)
        self.attract = Attract(self, demo_step, self._pool)
        self.look_back = LookBack(self._looked_back)
        self._last_visitor = 0.0
        self._table: PolicyTable | None = None

    @property
    def table(self) -> PolicyTable:
        if self._table is None:
            raise RuntimeError("the kiosk is not attached to a table")
        return self._table

    def attach(self, table: PolicyTable) -> None:
        self._table = table

    def page_names(self, players: Mapping[Seat, str]) -> dict[Seat, str]:
        """On the page, where a BOT badge marks them, the bots go by their names alone
        ("Ada"), in the coach's and the results' sentences too; the log keeps "Ada
        (strong bot)", so a score sheet says who played."""
        level = f" ({self.settings.bot_level} bot)"
        return {s: n.replace(level, "") or n for s, n in players.items()}

    # --- games -----------------------------------------------------------------------

    def resumed(self) -> None:
        """After the table's resume (the log replayed), the kiosk's (restart.py)."""
        carry_on(self)
        self._choose_dealer()  # resumed before the kiosk chose
        self._last_visitor = self.table.clock()

    def game_started(self) -> None:
        self.collected = {s: [] for s in self.visitors}
        self._choose_dealer()

    def _choose_dealer(self) -> None:
        if self.table.game.phase is Phase.CHOOSING_DEALER:
            self.table.record_now(DealerChosen(self.rng.choice(SEATS)), "kiosk")

    def new_game(self) -> None:
        self.table.start_game()

    def record(self, line: str) -> None:
        """A line in the log's records."""
        self.table.record(line)

    def say(self, text: str, fix: str) -> None:
        """A notice on the page."""
        self.table.notice("info", None, text, fix)

    def _in_a_game(self) -> bool:
        return self.table.game.deals > 0 or any(self.collected.values())

    def _visitor_acted(self) -> None:
        self._last_visitor = self.table.clock()
        if self.mode == "attract":
            self._leave_attract()

    # --- the inputs --------------------------------------------------------------------

    async def take(self, item: Input) -> Refusal | Pass | None:
        table = self.table
        match item:
            case CameraSaw(seen):
                try:
                    event = self.from_camera(seen.event)
                except InputRefused as refused:
                    return table.refuse(refused.seat, refused.problem, refused.what_to_do, "camera")
                if event is None:
                    return None
                if isinstance(event, HandDealt):  # the kiosk's deal, once the visitors' are read
                    return await table.apply(event, "kiosk")
                return await table.apply(event, "camera", item.evidence)
            case PageTouched(payload):
                return await self._touched(payload)
            case Pressed(press) if press.seat in self.visitors:
                self._visitor_acted()
            case BotMoved(event):
                refusal = await table.apply(event, "bot")
                if refusal is not None:  # the bot's choice was refused: never wedge
                    log.warning("a bot's %r was refused: %s", event, refusal)
                    self.bots.refused()
                    table.drive()
                return refusal
        return PASS

    async def _touched(self, payload: PagePayload) -> Refusal | Pass | None:
        """A touch on the page: the kiosk's own (a touch to play, the operator's PIN), or
        a choice, refused for a bot's seat."""
        kind = payload.get("event")
        if kind == "kiosk_touch":
            self._visitor_acted()
            if payload.get("do") == "again":
                return self.start_over()
            self.table.changed()
            return None
        if kind == "kiosk_pin":
            return await self._operator(payload)
        seat_text = payload.get("seat")
        seat = Seat.parse(seat_text) if seat_text in ("N", "E", "S", "W") else None
        if seat is not None and seat not in self.visitors:
            return self.table.refuse(
                None,
                f"{seat} is a bot's seat: the bots choose for themselves",
                "touch the choices for your own seat",
                "page",
            )
        self._visitor_acted()
        return PASS

    def from_camera(self, event: TrackerEvent | ForeignCardLaid) -> InputEvent | None:
        """What a camera event is at the kiosk (see the module's doc)."""
        game = self.table.game
        if isinstance(event, CardRemoved):
            if self.cover.dark or self.blind():  # hidden by a cover, not gone
                self.cover.hid(event.card, event.zone)
            else:
                unseen = 0.0 if event.last_read is None else event.time - event.last_read
                self._removed(event.card, event.time, unseen)
            return None
        if isinstance(event, CardLaid) and self.cover.seen_again(event.card, event.zone):
            return None  # a card lying there all along, seen again now the view is back
        if not isinstance(event, CardLaid | CardMoved):
            return from_vision(game, event)
        seat = zone_seat(event.zone)
        if seat is None:
            return None  # the kitty, a tricks pile: nothing to the kiosk
        card = event.card
        if seat not in self.visitors:
            name = self.table.page_names.get(seat, seat)
            raise InputRefused(
                f"{card} was laid in the play zone of {name}, a bot",
                "the bots' cards are only on the screen: lay your cards in your own play "
                "zone (the box in front of you)",
            )
        self._visitor_acted()
        if self.alert is not None and self.alert.get("kind") == "swept":
            self.alert = None
        phase = game.phase
        hand = game.hand
        if phase is Phase.DEALING:
            return self._collect(seat, card)
        if hand is not None and phase in (Phase.PLAYING, Phase.DISCARDING):
            sighting = hand.seen.get(card)
            if sighting is not None and sighting[1] == seat and sighting[0] != "picked up":
                return None  # a card already played, put back on the table
            held = hand.known[seat]
            discarding = phase is Phase.DISCARDING or hand.discard_pending
            if discarding and seat == hand.dealer and held is not None and card in held:
                return DealerDiscarded(card)
            if held is not None and card not in held:
                raise InputRefused(
                    f"{card.pretty} is not one of your cards",
                    f"your cards are {cards_words(held)}: lay one of them",
                    seat,
                )
            return CardPlayed(seat, card)
        return from_vision(game, event)

    def _collect(self, seat: Seat, card: Card) -> InputEvent | None:
        """A visitor's card read during the deal; the deal once every visitor has five."""
        mine = self.collected.setdefault(seat, [])
        if card in mine:
            return None
        self._drop_look_back()  # the next game begins: the last one's look back is over
        for other, cards in self.collected.items():
            if other != seat and card in cards:
                name = self.table.page_names.get(other, other)
                raise InputRefused(
                    f"{card.pretty} was already read for {name}",
                    "lay your own five cards",
                    seat,
                )
        if len(mine) >= HAND_SIZE:
            raise InputRefused(
                f"you have five cards already ({cards_words(mine)}); {card.pretty} is a sixth",
                "put it back in the deck: a hand is five cards",
                seat,
            )
        mine.append(card)
        if any(len(self.collected.get(s, [])) < HAND_SIZE for s in self.visitors):
            self.table.changed()
            return None
        taken = {c for cards in self.collected.values() for c in cards}
        rest = [c for c in DECK if c not in taken]
        self.rng.shuffle(rest)
        hands: dict[Seat, tuple[Card, ...]] = {s: tuple(self.collected[s]) for s in self.visitors}
        for i, bot in enumerate(self.bot_seats):
            hands[bot] = tuple(rest[i * HAND_SIZE : (i + 1) * HAND_SIZE])
        upcard = rest[len(self.bot_seats) * HAND_SIZE]
        return HandDealt(upcard=upcard, hands=hands)

    def start_over(self) -> Refusal | None:
        """The cards read for the deal are forgotten (a wrong card was laid): the
        visitors lay their five again."""
        if self.table.game.phase is not Phase.DEALING:
            return ("the cards are dealt already", "play on: the screen shows your cards")
        self.collected = {s: [] for s in self.visitors}
        self.record("kiosk: the cards read for the deal were cleared")
        self.table.changed()
        return None

    def _removed(self, card: Card, at: float, unseen: float) -> None:
        """A card gone from the table (reported at camera time ``at``, last read
        ``unseen`` seconds before): a visitor's card of the trick in play swept off (one,
        or all of them at once) loses nothing, but the page says so and what to do
        (cover.py tells a sweep from a tidy-up)."""
        game = self.table.game
        hand = game.hand
        if hand is None or game.phase is not Phase.PLAYING:
            return
        if self.cover.in_trick(hand, card, at, unseen) not in self.visitors:
            return
        alert = self.alert
        gone = [card]
        if alert is not None and alert.get("kind") == "swept":
            gone = [Card.parse(code) for code in alert["cards"].split()] + gone
        words = cards_words(gone)
        self.alert = {
            "kind": "swept",
            "cards": " ".join(c.code for c in gone),
            "text": f"The {words} {'was' if len(gone) == 1 else 'were'} taken off the table.",
            "fix": "Nothing is lost: the screen shows every card played. Put the cards "
            "back as they were (the screen shows where), or just play on.",
        }
        self.table.changed()

    def accepted(self, event: InputEvent, outputs: list[OutputEvent]) -> None:
        if isinstance(event, HandDealt):
            self.collected = {s: [] for s in self.visitors}
        game = self.table.game
        if any(isinstance(o, GameEnded) for o in outputs) and game.phase is Phase.OVER:
            self._look_back()

    # --- the look back at a game that ended (look_back/) ----------------------------------

    def _look_back(self) -> None:
        """The game is over: look back at the visitors' decisions, off the event loop."""
        table = self.table
        seats = tuple(sorted(self.visitors))
        self.look_back.begin(Job(table.game_no, table.config.rules, tuple(table.game.log), seats))
        table.changed()

    def _looked_back(self, looked: Looked) -> None:
        """The look back's answer is in: shown, and the visitor has ``attract_after``
        seconds from now to read it before the demo comes back."""
        if looked.problem:
            self.record(f"kiosk: the look back at game {looked.game} failed: {looked.problem}")
        self._last_visitor = self.table.clock()
        self.table.changed()

    def _drop_look_back(self) -> None:
        if self.look_back.game is not None:
            self.look_back.drop()
            self.table.changed()

    # --- the operator --------------------------------------------------------------------

    async def _operator(self, payload: PagePayload) -> Refusal | None:
        table = self.table
        refusal = await table.pin_refusal(
            payload.get("pin"), self.settings.pin_hash, "at the kiosk"
        )
        if refusal is not None:
            return refusal
        action = payload.get("do")
        if action == "exit":
            self.record("kiosk: the operator left the kiosk")
            self.exited = True
            self.mode = "stopped"
            table.changed()
            asyncio.get_running_loop().call_later(0.5, table.stop)
            return None
        if action == "reset":
            self._end_game("the operator reset the game")
            return None
        return None  # the PIN alone: the operator's panel opens

    # --- attract mode and walk-away -------------------------------------------------------

    def _end_game(self, why: str) -> None:
        """End the game in play (it stays in the log) and go back to attract mode."""
        self.record(f"kiosk: {why}; game {self.table.game_no} ended")
        self._drop_look_back()
        self.table.start_game()
        self.alert = None
        self.say(f"The last game was ended: {why}.", "")
        self._enter_attract()

    def check(self, now: float) -> None:
        if self.mode != "play" or not self.attract_wanted:
            return
        idle = self.table.clock() - self._last_visitor
        if self._in_a_game():
            walk_away = self.settings.walk_away
            if idle >= walk_away and self.table.game.phase is not Phase.OVER:
                self._end_game(f"nobody played for {walk_away:g} s")
        elif idle >= self.settings.attract_after:
            self._enter_attract()

    def _enter_attract(self) -> None:
        if self.mode == "attract":
            return
        self._drop_look_back()  # never shown to the next visitor
        self.mode = "attract"
        self.attract.fresh()
        if self.table.started:
            self.attract.start()
        self.table.changed()

    def _leave_attract(self) -> None:
        self.mode = "play"
        self.attract.stop()
        self.table.changed()

    def blind(self) -> bool:
        """The camera cannot see the table (covered, lost): the bots wait, so the
        visitors miss nothing and play goes on where it was when the view is back."""
        health = self.table.health
        return any(health.fault(d) is not None for d in (Device.VIEW, Device.CAMERA))

    # --- what the page shows ----------------------------------------------------------------

    def showing(self, game: Game, shown: Shown) -> tuple[Game, Shown]:
        shown.laying = self._laying()
        demo, demo_shown = self.attract.game, self.attract.shown
        if self.mode == "attract" and demo is not None and demo_shown is not None:
            demo_shown.faults = shown.faults
            demo_shown.version = shown.version
            return demo, demo_shown
        return game, shown

    def driven(self) -> None:
        self.bots.schedule()

    def _laying(self) -> frozenset[Seat]:
        """The visitors the kiosk waits for to lay their five cards (their seat lights
        blink white: the rules know nothing of this deal, so the lights must be told)."""
        if self.mode != "play" or self.table.game.phase is not Phase.DEALING:
            return frozenset()
        return frozenset(s for s in self.visitors if len(self.collected.get(s, ())) < HAND_SIZE)

    def annotate(self, game: Game, snapshot: TableSnapshot) -> None:
        """The kiosk's part of the page's snapshot: its mode, the coach, the bots."""
        attract = self.mode == "attract" and game is self.attract.game
        visitors = () if attract else self.visitors
        demo_shown = self.attract.shown
        names = demo_shown.players if attract and demo_shown is not None else self.table.page_names
        recent: list[OutputEvent] = (
            (demo_shown.recent if demo_shown is not None else []) if attract else self.table.recent
        )
        hand = game.hand
        bots: dict[str, BotShown] = {}
        for seat in SEATS if attract else self.bot_seats:
            held = hand.known[seat] if hand is not None else None
            bots[seat.name] = {"count": len(held) if held is not None else 0}
        taught = coach(game, visitors, names, recent, collected=self.collected)
        if attract:
            taught = {**taught, "title": "Touch to play", "lines": []}
        else:
            taught["review"] = review = self.look_back.review(self.table.page_names)
            if review is not None and not any(self.collected.values()):
                # Between games: the look back first, then how to play again.
                taught = {**taught, "title": "Game over", "lines": [PLAY_AGAIN]}
        hands: dict[str, list[PageCard]] = {}
        if not attract and hand is not None:
            for seat in self.visitors:
                held = hand.known[seat]
                if held is not None:
                    hands[seat.name] = [
                        page_card(c) for c in sorted(held, key=lambda c: (c.suit, -c.rank))
                    ]
        for shown_seat in snapshot["seats"]:
            if shown_seat["seat"] in bots:  # named once, marked by the page's badge
                shown_seat["bot"] = True
        snapshot["actions"] = [
            a for a in snapshot["actions"] if not attract and Seat.parse(a["seat"]) in self.visitors
        ]
        if taught["title"] and not attract:
            snapshot["expecting"] = taught["title"]
        else:  # the bots by name alone: "Cog (South) to play"
            snapshot["expecting"] = waiting_for(game, names)
        snapshot["kiosk"] = {
            "mode": self.mode,
            "visitors": sorted(s.name for s in self.visitors),
            "bots": bots,
            "coach": taught,
            "hands": hands,
            "collected": {
                s.name: [page_card(c) for c in cards] for s, cards in self.collected.items()
            },
            "alert": self.alert,
            "pin_wait": round(self.table.pin_wait(), 1),
        }

    # --- the camera's view --------------------------------------------------------------

    def noted(self, outputs: list[OutputEvent]) -> None:
        self.cover.played(outputs)

    def look(self, frame: Frame, read_at: float) -> None:
        """Each camera frame: a covered lens is the VIEW fault (cover.py)."""
        seen = self.cover.look(frame, read_at)
        health = self.table.health
        if seen:
            health.raise_fault(
                Device.VIEW, "the camera sees nothing: something is covering it", COVER_FIX, read_at
            )
        elif seen is False:
            health.clear(Device.VIEW)

    # --- running ----------------------------------------------------------------------------

    def starting(self) -> None:
        if self.attract_wanted and not self._in_a_game():
            self.mode = "attract"
            self.attract.fresh()
            asyncio.get_running_loop().call_soon(self._start_demo)

    async def stopped(self) -> None:
        await self.attract.close()
        await self.bots.close()
        await self.look_back.close()
        self._pool.shutdown(wait=True)

    def _start_demo(self) -> None:
        if self.mode == "attract":
            self.attract.start()


class KioskTable(Table):
    """The table of ``config`` run as a kiosk: a ``Table`` (run as ``options`` say) given
    a ``Kiosk`` (``kiosk``) as its policy, the bots' seats named as bots; ``seed``,
    ``demo_step``, ``covered_after`` and ``attract`` are the kiosk's."""

    def __init__(
        self,
        config: TableConfig,
        options: TableOptions | None = None,
        *,
        seed: int | None = None,
        demo_step: float = 1.2,
        covered_after: float = 1.0,
        attract: bool = True,
        world: World | None = None,
    ) -> None:
        kiosk = Kiosk(
            config, seed=seed, demo_step=demo_step, covered_after=covered_after, attract=attract
        )
        options = options if options is not None else TableOptions()
        on_frame = options.on_frame

        def looked(frame: Frame, read_at: float) -> None:
            kiosk.look(frame, read_at)
            if on_frame is not None:
                on_frame(frame, read_at)

        # The bots' seats are named as bots in the log too, so a score sheet exported
        # from it says who played.
        config = dataclasses.replace(config, players=bot_names(config, kiosk.bot_seats))
        self.kiosk = kiosk
        options = dataclasses.replace(options, on_frame=looked)
        super().__init__(config, options, world=world, policy=kiosk)


__all__ = ["Kiosk", "KioskError", "KioskTable", "bot_names", "covered"]
