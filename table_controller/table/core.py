"""The table's decisions, with no event loop and no threads: the game, the log's
sequence, and what the sinks show besides the game.

The running table (app.py) owns the queue, the event loop, the threads and the devices;
for each input it asks the core what it means (``interpret``), whether the rules take it
(``accept``), and, once the log has it, shows it (``commit``). Everything a person sees
goes through here: notices (one list, never longer than ``MAX_NOTICES``), refusals, the
director called, faults; ``changed()`` is the one place the shown version moves and the
sinks are driven. A test drives it with a virtual clock and no loop (tests/test_table_core.py).
"""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from table_controller.cards import Suit
from table_controller.devices.seat_events import DirectorCalled
from table_controller.event_log import EventLog, LogError
from table_controller.present import Notice, game_over, review_link, waiting_for
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    DealerChosen,
    ForeignCardSeen,
    GameEnded,
    HandScored,
    HandStarted,
    InputEvent,
    IrregularityFound,
    KittyCardSeen,
    OutputEvent,
    SecondCopySeen,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.across_line import across_lines
from table_controller.table.config import TableConfig
from table_controller.table.health import Device, Fault, Health
from table_controller.table.inputs import InputRefused, from_page, from_press, from_vision
from table_controller.table.log.resume import UnusableRules, resume_last_game
from table_controller.table.noticed import (
    BotMoved,
    CameraClearer,
    CameraSaw,
    Input,
    PageTouched,
    Pressed,
    Refusal,
    Ruled,
    SimTold,
)
from table_controller.table.policy import PlainTable, TablePolicy
from table_controller.table.ports import TableStatus
from table_controller.table.sinks import Shown, Sinks
from table_controller.vision.across import CardAcross

if TYPE_CHECKING:
    from table_controller.feed.signing import Ruling

log = logging.getLogger(__name__)

MAX_NOTICES = 6
# The camera's events about a card the game does not take (rules/deck.py): their
# pictures belong to their irregularities, never to the card of the game.
NOT_TAKEN = (SecondCopySeen, ForeignCardSeen, KittyCardSeen)
LOG_FIX = (
    "check the disk the log is on (full, read-only, unplugged?); the table keeps playing "
    "but cannot record until it is fixed"
)


@dataclass(frozen=True)
class Accepted:
    """An input the rules took, not yet in the log: ``seq`` is its place there."""

    event: InputEvent
    outputs: list[OutputEvent]
    game_no: int
    seq: int
    source: str


class TableCore:
    """The game of ``config``'s table, its log and what its sinks show. ``on_logged(game,
    seq, event)`` after each event the log has; ``on_new_game()`` when a game starts in
    the log (before its first dealer is chosen); ``on_health()`` after a fault is raised
    or cleared."""

    def __init__(
        self,
        config: TableConfig,
        log: EventLog,
        sinks: Sinks,
        *,
        clock: Callable[[], float],
        policy: TablePolicy | None = None,
        notice_seconds: float = 30.0,
        on_logged: Callable[[int, int, InputEvent], None] | None = None,
        on_new_game: Callable[[], None] | None = None,
        on_health: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.log = log
        self.sinks = sinks
        self.clock = clock
        self.policy: TablePolicy = policy if policy is not None else PlainTable()
        self.notice_seconds = notice_seconds
        self.on_logged = on_logged
        self.on_new_game = on_new_game
        self.on_health = on_health
        self.health = Health(self._health_changed)
        self.shown = Shown(table=config.name, players=self.policy.page_names(config.players))
        self.game = Game(config.rules)
        self.game_no = 0
        self.seq = 1
        self.over_since: float | None = None  # when the game in the log ended
        self.ready = False  # the log is replayed: changes are driven to the sinks

    # --- games in the log ---------------------------------------------------------------

    def resume(self) -> None:
        """Replay the last game in the log (resume.py), or start the first."""
        try:
            resumed = resume_last_game(self.log)
        except UnusableRules as exc:
            old = self.log.last_game()
            n = 0 if old is None else old.game
            log = shlex.quote(str(self.config.log))
            self.health.raise_fault(
                Device.LOG,
                str(exc),
                "a new game was started; export the old one with "
                f"`table-controller log export {log} --game {n} --transcript game-{n}.jsonl`",
                self.clock(),
            )
            resumed = None
        if resumed is None:
            self.start_game()
        else:
            number = resumed.record.game
            self.shown.recent, self.shown.last = [], []
            for step in resumed.steps:
                self.note(number, step.seq, step.event, step.outputs, step.has_evidence)
            self.game, self.game_no = resumed.game, number
            self.shown.game_no = number
            self.seq = self.log.next_seq(number)
            if resumed.problem is not None:
                self.health.raise_fault(
                    Device.LOG,
                    resumed.problem,
                    "the game goes on without them; check it with "
                    f"`table-controller log check {shlex.quote(str(self.config.log))}`",
                    self.clock(),
                )
            if self.game.phase is Phase.OVER:
                self.start_game()
        self.policy.resumed()

    def start_game(self) -> None:
        """A new game in the log, its first dealer chosen when the config names one."""
        config = self.config
        shown = self.shown
        ended = game_over(self.game, shown.recent, shown.players, shown.ended)
        if ended is not None and "review" not in ended:  # the game that ended, by its number
            ended["review"] = review_link(self.game_no)
        shown.ended = ended
        self.game = Game(config.rules)
        self.game_no = self.log.start_game(config.rules_name, config.options, config.players)
        shown.game_no = self.game_no
        self.seq = 1
        self.shown.recent, self.shown.last = [], []
        self.shown.evidence_urls = {}
        self.shown.pictured = []
        self.over_since = None
        if self.on_new_game is not None:
            self.on_new_game()
        if config.first_dealer is not None:
            self.record_now(DealerChosen(config.first_dealer), "director")
        self.policy.game_started()

    def record_now(self, event: InputEvent, source: str) -> None:
        """Push an event the table itself decided (the first dealer) and log it at once;
        raises ``RulesError`` or ``LogError``."""
        outputs = self.game.push(event)
        game_no, seq = self.game_no, self.seq
        self.log.append(game_no, seq, event, source=source, evidence=None)
        self.seq = seq + 1
        if self.on_logged is not None:
            self.on_logged(game_no, seq, event)
        self.note(game_no, seq, event, outputs, False)

    def note(
        self,
        game_no: int,
        seq: int,
        event: InputEvent,
        outputs: list[OutputEvent],
        evidence: bool,
    ) -> None:
        """Keep what the sinks show besides the game: this hand's outputs, the last
        event's, the evidence pictures of the cards."""
        shown = self.shown
        for out in outputs:
            if isinstance(out, HandStarted):
                shown.recent = []  # the view shows this hand's; memory stays flat
                shown.pictured = []
        shown.recent.extend(outputs)
        shown.last = list(outputs)
        url = f"/evidence/{game_no}/{seq}.png"
        card = getattr(event, "card", None)
        if isinstance(event, NOT_TAKEN):
            if evidence:  # the copy's picture is its own, not the card's in the game
                shown.pictured.extend((o, url) for o in outputs if isinstance(o, IrregularityFound))
        elif evidence and card is not None:
            shown.evidence_urls[card] = url
        self.policy.noted(outputs)

    # --- an input -------------------------------------------------------------------------

    def interpret(
        self, item: Input, *, cube_suit: Suit | None, operator_pin: bool
    ) -> InputEvent | Refusal | None:
        """What ``item`` means now (inputs.py): the event, a refusal (shown), or None when
        it means nothing to the rules (a card picked up, the director called)."""
        game = self.game
        try:
            match item:
                case CameraSaw(seen):
                    return from_vision(game, seen.event)
                case Pressed(press):
                    meant = from_press(game, press, cube_suit)
                    if isinstance(meant, DirectorCalled):
                        self.director_called(meant.seat)
                        return None
                    return meant
                case PageTouched(payload, operator):
                    return from_page(game, payload, operator=operator, operator_pin=operator_pin)
                case Ruled(event) | BotMoved(event) | SimTold(event):
                    return event
                case CameraClearer():
                    return None  # a picture of a card logged already: nothing to the rules
                case _:
                    assert_never(item)
        except InputRefused as refused:
            where: str = item.source
            if isinstance(item, PageTouched) and item.address:
                where = f"{where} from {item.address}"
            return self.refuse(refused.seat, refused.problem, refused.what_to_do, where)

    def accept(self, event: InputEvent, source: str) -> Accepted | Refusal:
        """Push ``event`` into the game: ``Accepted`` (to be logged, then ``commit``ted
        or ``undo``ne), or the rules' refusal, shown."""
        try:
            outputs = self.game.push(event)
        except RulesError as exc:
            seat = _seat_of(event)
            fix = exc.expected or "ask the director"
            if fix == self.game.expecting():  # the engine's line: for people, in words
                fix = "now: " + waiting_for(self.game, self.shown.players)
            return self.refuse(seat, exc.message, fix, source)
        return Accepted(event, outputs, self.game_no, self.seq, source)

    def undo(self, accepted: Accepted, error: LogError) -> Refusal:
        """The log could not take ``accepted``: out of the game again, the LOG fault."""
        self.game.pop()
        self.health.raise_fault(Device.LOG, str(error), LOG_FIX, self.clock())
        problem = "the table could not record this, so it did not count"
        return self.refuse(_seat_of(accepted.event), problem, LOG_FIX, accepted.source)

    def commit(self, accepted: Accepted, evidence: bool) -> None:
        """The log has ``accepted``: count it and show it."""
        event = accepted.event
        self.seq = accepted.seq + 1
        self.health.clear(Device.LOG)
        if self.on_logged is not None:
            self.on_logged(accepted.game_no, accepted.seq, event)
        self.note(accepted.game_no, accepted.seq, event, accepted.outputs, evidence)
        seat = _seat_of(event)
        if seat is not None:
            self.shown.refused.discard(seat)
        self.shown.director_called = False
        self.changed()

    def hands_scored(self, outputs: list[OutputEvent]) -> int:
        """How many hands ``outputs`` score; notes when the game ended."""
        scored = 0
        for out in outputs:
            if isinstance(out, HandScored):
                scored += 1
            elif isinstance(out, GameEnded) and self.game.phase is Phase.OVER:
                self.over_since = self.clock()
        return scored

    def ruling_refusal(self, ruling: Ruling) -> Refusal | None:
        """A ruling for another game or hand than this table's: refused, in words."""
        from table_controller.feed.signing import position_problem

        hand = self.game.hand or self.game.last_hand
        problem = position_problem(
            ruling, game=self.game_no, hand=hand.number if hand is not None else None
        )
        fix = "the director should look at the table and make the ruling again"
        return None if problem is None else (problem, fix)

    # --- what people see -------------------------------------------------------------------

    def notice(self, kind: str, seat: Seat | None, text: str, fix: str) -> None:
        """A notice on the page (the newest ``MAX_NOTICES`` are kept); not yet driven."""
        notices = self.shown.notices
        notices.append(Notice(kind, seat, text, fix, self.clock()))
        del notices[:-MAX_NOTICES]

    def refuse(self, seat: Seat | None, problem: str, fix: str, source: str) -> Refusal:
        """An input refused: on the page, the seat's light, and in the log."""
        self.notice("refused", seat, problem, fix)
        if seat is not None:
            self.shown.refused.add(seat)
        where = f"{source}, seat {seat}" if seat is not None else source
        self.record("notice", f"refused ({where}): {problem}", fix)
        self.changed()
        return (problem, fix)

    def director_called(self, seat: Seat | None) -> None:
        who = f"seat {seat}" if seat is not None else "a player"
        self.shown.director_called = True
        self.notice("director", seat, f"{who} called the director", "the director is coming")
        self.record("notice", f"{who} called the director", "")
        self.changed()

    def across(self, cards: tuple[CardAcross, ...]) -> None:
        """The cards the camera sees lying across a zone's line now (``()``: none): the
        page says whose and where to push each, the seat's light pulses. Nothing the
        rules see, so nothing for the log: the camera sees it again after a restart."""
        self.shown.across = cards
        self.changed()

    def record(self, device: str, problem: str | None, fix: str) -> None:
        """A line in the log's fault list; a log that cannot take it is already a fault."""
        try:
            self.log.record_fault(device, problem, fix, time.time())
        except LogError as exc:
            log.warning("could not record %s in the log: %s", device, exc)

    def drive(self) -> None:
        """Show the whole state on every sink (idempotent)."""
        self.shown.faults = self.health.faults
        game, shown = self.policy.showing(self.game, self.shown)
        self.sinks.drive(game, shown, self.policy.annotate)
        self.policy.driven()

    def changed(self) -> None:
        """Something shown changed: a new version, on every sink."""
        self.shown.version += 1
        self.drive()

    def expire(self, now: float) -> bool:
        """Notices older than ``notice_seconds`` go (and the seat lights they flashed);
        whether any went. Not driven."""
        notices = self.shown.notices
        kept = [n for n in notices if now - n.at < self.notice_seconds]
        if len(kept) == len(notices):
            return False
        self.shown.notices = kept
        self.shown.refused &= {n.seat for n in kept if n.kind == "refused"}
        return True

    def _health_changed(self, fault: Fault | None, device: Device) -> None:
        if fault is None:
            self.record(device.value, None, "")
        else:
            self.record(device.value, fault.problem, fault.fix)
        if self.on_health is not None:
            self.on_health()
        if self.ready:
            self.changed()

    def status(self) -> TableStatus:
        """The table in a few fields: the director's feed sends it as a heartbeat."""
        game = self.game
        hand = game.hand or game.last_hand
        return {
            "name": self.config.name,
            "game": self.game_no,
            "hand": hand.number if hand is not None else None,
            "phase": game.phase.value,
            "scores": list(game.team_scores()),
            "players": {s.name: n for s, n in self.config.players.items()},
            "faults": [f.to_json() for f in self.health.faults],
            "across": [a.status() for a in across_lines(game, self.shown.across)],
        }


def _seat_of(event: InputEvent) -> Seat | None:
    seat = getattr(event, "seat", None)
    return seat if isinstance(seat, Seat) else None


__all__ = ["LOG_FIX", "MAX_NOTICES", "Accepted", "TableCore"]
