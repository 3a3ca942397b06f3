"""The simulated players: their strategy is legal, and at a table that sees only what a
real one sees (camera frames, button presses, the cube) they play whole hands and
games, make the renege they are asked to, and carry on after the table restarts."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import wait_until

from table_controller.cards import DECK, Card, Suit, cards, effective_suit, legal_plays
from table_controller.devices.cube_types import suit_of_wire
from table_controller.devices.emulator import CubeEmulator
from table_controller.devices.seat_events import ButtonPressed, DirectorCalled, SeatButton
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    CardCut,
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    FaceUpCardDealt,
    FirstDealerSet,
    GameEnded,
    HandDealt,
    HandResult,
    HandScored,
    InputEvent,
    OrderedUp,
    OutputEvent,
    Passed,
    RenegeProven,
    TrickWon,
    TrumpCalled,
)
from table_controller.rules.game import Game, Phase
from table_controller.rules.presets import FirstDealer, Rules, preset
from table_controller.seats import SEATS, Seat
from table_controller.sim.players import SimulatedPlayers, cube_face, cube_turner
from table_controller.sim.strategy import (
    choose_play,
    dealer_discard,
    first_round_bid,
    second_round_bid,
    worth_calling,
)
from table_controller.sim.world import World, WorldCamera
from table_controller.table.seat_input import PressRefused, press_to_event
from table_controller.vision.synthetic import Effects
from table_controller.vision.tracker import (
    CardLaid,
    CardMoved,
    CardRead,
    Tracker,
    TrackerEvent,
)
from table_controller.vision.watcher import CardWatcher

TD = preset("td-tournament")
FPS = 30.0

# --- the strategy ------------------------------------------------------------------------


def test_calls_with_three_trumps_or_two_and_an_off_ace() -> None:
    assert worth_calling(cards("JH JD 9H TC QS"), Suit.H) == (True, False)  # bowers count
    assert worth_calling(cards("JD 9H AC TC QS"), Suit.H) == (True, False)
    assert worth_calling(cards("9H TH KC TC QS"), Suit.H) == (False, False)
    assert worth_calling(cards("JH AH KH QH AS"), Suit.H) == (True, True)
    assert first_round_bid(cards("9H TH KC TC QS"), Card.parse("JH"), dealer=True) is (
        SeatButton.CALL
    )  # the dealer counts the upcard it picks up
    assert first_round_bid(cards("9H TH KC TC QS"), Card.parse("JH"), dealer=False) is (
        SeatButton.PASS
    )


def test_second_round_never_names_the_turned_down_suit_and_a_stuck_dealer_names_one() -> None:
    weak = cards("9C TD QS KH 9S")
    assert second_round_bid(weak, Suit.H, stuck=False) is None
    suit, alone = second_round_bid(weak, Suit.S, stuck=True) or (None, None)
    assert suit is not None and suit != Suit.S and alone is False
    assert second_round_bid(cards("JS JC AS 9D TD"), Suit.H, stuck=False) == (Suit.S, False)


def test_the_dealer_throws_away_its_weakest_card() -> None:
    assert dealer_discard(cards("JH 9H AC 9C KS TH"), Suit.H) == Card.parse("9C")
    assert dealer_discard(cards("JH 9H AC KS KH TH"), Suit.H) == Card.parse("KS")


def test_leads_an_off_ace_and_follows_high_only_to_win() -> None:
    hand = cards("AC 9S KD JH QS")
    assert choose_play(hand, [], None, Suit.H) == Card.parse("AC")
    # Following spades: the queen would win over the ten, the nine would not.
    assert choose_play(hand, [(Seat.N, Card.parse("TS"))], Suit.S, Suit.H) == Card.parse("QS")
    assert choose_play(hand, [(Seat.N, Card.parse("AS"))], Suit.S, Suit.H) == Card.parse("9S")
    # The left bower follows trump, not its printed suit.
    assert choose_play(cards("JD 9D AC"), [(Seat.N, Card.parse("9H"))], Suit.H, Suit.H) == (
        Card.parse("JD")
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True),
    st.integers(0, 3),
    st.sampled_from(list(Suit)),
)
def test_every_card_chosen_is_legal(deal: list[Card], played: int, trump: Suit) -> None:
    hand, others = deal[:5], deal[5:]
    plays = [(Seat.N, c) for c in others[:played]]
    led = effective_suit(plays[0][1], trump) if plays else None
    card = choose_play(hand, plays, led, trump)
    assert card in legal_plays(hand, led, trump)


def test_the_cube_faces_are_the_firmware_s() -> None:
    assert [cube_face(s) for s in Suit] == [2, 3, 4, 5]
    with pytest.raises(ValueError, match="no face of this cube carries hearts"):
        cube_face(Suit.H, (0, 0, 1, 2, 0, 4))


def test_turning_the_emulated_cube_shows_the_suit_to_its_firmware() -> None:
    with CubeEmulator() as emulator:
        emulator.start()
        cube_turner(emulator.board)(Suit.D)
        firmware = emulator.cube
        assert firmware is not None
        wait_until("the cube turned", lambda: firmware.face == cube_face(Suit.D))
        assert suit_of_wire(firmware.suit_of(firmware.face)) is Suit.D


def test_bid_euchre_is_refused_with_what_to_do() -> None:
    with pytest.raises(ValueError, match="choose a Euchre rule preset"):
        SimulatedPlayers(
            World(), preset("bid-euchre"), press=lambda s, b: None, turn_cube=None, tell=print
        )


# --- a table that sees what a real one sees ---------------------------------------------------


@dataclass
class Table:
    """The test's glue, as table/inputs.py maps them: tracker events and presses become
    the rules' events per phase; a refused one is kept, never dropped."""

    rules: Rules
    game: Game = field(init=False)
    outputs: list[OutputEvent] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    cube: Suit | None = None
    lose_presses: int = 0  # presses the wiring loses (for the redo test)

    def __post_init__(self) -> None:
        self.game = Game(self.rules)

    def push(self, event: InputEvent) -> None:
        try:
            self.outputs += self.game.push(event)
        except RulesError as exc:
            self.refused.append(f"{event}: {exc}")

    def press(self, seat: Seat, button: SeatButton) -> None:
        if self.lose_presses:
            self.lose_presses -= 1
            return
        game = self.game
        hand = game.hand
        if game.phase is Phase.DISCARDING and hand is not None and seat == hand.dealer:
            self.push(DealerDiscarded(None))
            return
        try:
            event = press_to_event(game, ButtonPressed(seat, button), self.cube)
        except PressRefused as exc:
            self.refused.append(f"{seat} {button}: {exc}")
            return
        assert not isinstance(event, DirectorCalled)
        self.push(event)

    def turn_cube(self, suit: Suit) -> None:
        self.cube = suit

    def seen(self, event: TrackerEvent) -> None:
        game, hand = self.game, self.game.hand
        if isinstance(event, CardLaid | CardMoved):
            zone = event.zone
            if zone.startswith("play:") and (
                isinstance(event, CardLaid) or game.phase is Phase.PLAYING
            ):
                seat = Seat.parse(zone.split(":")[1])
                if game.phase is Phase.CHOOSING_DEALER:
                    how = self.rules.first_dealer
                    cut = how is FirstDealer.HIGH_CUT
                    self.push(
                        CardCut(seat, event.card) if cut else FaceUpCardDealt(seat, event.card)
                    )
                elif game.phase is Phase.PLAYING and hand is not None:
                    trick = hand.trick
                    if trick is not None and (seat, event.card) in trick.plays:
                        return  # the table already has it (seen again after a restart)
                    self.push(CardPlayed(seat, event.card))
                else:
                    self.refused.append(f"{event.card} laid in {zone} during {game.phase}")
            elif zone == "kitty" and isinstance(event, CardLaid) and game.phase is Phase.DEALING:
                self.push(HandDealt(upcard=event.card))


def players_for(table: Table, world: World, **kw: object) -> SimulatedPlayers:
    return SimulatedPlayers(
        world,
        table.rules,
        press=table.press,
        turn_cube=table.turn_cube,
        tell=table.push,
        **kw,  # type: ignore[arg-type]
    )


def read_truth(world: World, tracker: Tracker, table: Table, frame: int) -> None:
    """A perfect camera: every face-up card on the table read where it lies, and the
    place of every card gone from there seen empty."""
    reads = [CardRead(p.card, p.zone, p.x, p.y) for p in world.table if p.face_up]
    read = {r.card for r in reads}
    empty = {c.card for c in tracker.lying() if c.card not in read}
    for event in tracker.update(frame, frame / FPS, reads, empty):
        table.seen(event)


def play_without_frames(
    table: Table,
    players: SimulatedPlayers,
    world: World,
    *,
    until: type[OutputEvent] | None = GameEnded,  # None: until the game (match) is over
    frames: int = 60_000,
    start: int = 0,
    tracker: Tracker | None = None,
) -> int:
    tracker = tracker or Tracker()
    for frame in range(start, start + frames):
        players.act(table.game, frame)
        read_truth(world, tracker, table, frame)
        on_table = [p.card for p in world.table]
        held = [c for cs in world.held.values() for c in cs]
        assert len(set(on_table + held)) == len(on_table) + len(held)  # no card twice
        if until is None and table.game.phase is Phase.OVER:
            return frame
        if until is not None and any(isinstance(o, until) for o in table.outputs):
            return frame
    raise AssertionError(f"not done after {frames} frames: {table.game.expecting()}")


def play_through_frames(table: Table, players: SimulatedPlayers, world: World, seed: int) -> None:
    """The table's real camera path: each frame rendered, read by the CardWatcher."""
    camera = WorldCamera(world, seed=seed)
    watcher = CardWatcher(camera.calibration())
    for _ in range(1500):
        players.act(table.game, camera.index)
        frame = camera.read()
        assert frame is not None
        for seen in watcher.process(frame.image, frame.index, frame.timestamp):
            table.seen(seen.event)
        if any(isinstance(o, HandScored) for o in table.outputs):
            return
    raise AssertionError(f"the hand did not end: {table.game.expecting()}")


def test_a_whole_hand_through_rendered_frames_read_by_the_real_camera_path() -> None:
    table = Table(TD)
    world = World(seed=11, effects=Effects())  # clean frames: test_world reads realistic ones
    players = players_for(table, world, seed=11, frames_per_action=4)
    play_through_frames(table, players, world, 11)
    assert table.refused == [] and players.redone == 0
    log = table.game.log
    # The first jack was found by dealing face up, clockwise, one card at a time.
    face_up = [e for e in log if isinstance(e, FaceUpCardDealt)]
    assert face_up and face_up[-1].card.code[0] == "J"
    assert all(b.seat == a.seat.left for a, b in itertools.pairwise(face_up))
    first = next(o for o in table.outputs if isinstance(o, FirstDealerSet))
    assert first.seat == face_up[-1].seat
    dealt = next(e for e in log if isinstance(e, HandDealt))
    assert dealt.hands == {}  # a live deal: only the upcard is seen
    assert any(isinstance(e, OrderedUp | TrumpCalled) for e in log)
    assert DealerDiscarded(None) in log or not any(isinstance(e, OrderedUp) for e in log)
    tricks = [o for o in table.outputs if isinstance(o, TrickWon)]
    assert len(tricks) == 5
    plays = [e for e in log if isinstance(e, CardPlayed)]
    assert [(e.seat, e.card) for e in plays] == [p for t in tricks for p in t.plays]
    scored = next(o for o in table.outputs if isinstance(o, HandScored))
    assert sum(scored.points) > 0 and table.game.team_scores() == scored.scores


def test_an_injected_renege_goes_from_frames_to_proof_to_penalty() -> None:
    table = Table(TD)
    world = World(seed=7, effects=Effects())
    players = players_for(table, world, seed=7, renege=True, frames_per_action=4)
    play_through_frames(table, players, world, 7)
    [made] = players.reneges
    proven = next(o for o in table.outputs if isinstance(o, RenegeProven))
    assert (proven.seat, proven.trick, proven.suit, proven.played, proven.proof) == (
        made.seat,
        made.trick,
        made.suit,
        made.played,
        made.kept,
    )
    scored = next(o for o in table.outputs if isinstance(o, HandScored))
    assert scored.result is HandResult.RENEGE
    assert scored.points[made.seat.team.other] in (TD.renege_points, TD.renege_points_loner)
    assert table.refused == []


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_game_to_ten(seed: int) -> None:
    table = Table(TD)
    world = World(seed=seed)
    players = players_for(table, world, seed=seed, frames_per_action=3, settle_frames=35)
    play_without_frames(table, players, world)
    assert table.refused == [] and players.redone == 0
    ended = next(o for o in table.outputs if isinstance(o, GameEnded))
    assert max(ended.scores) >= 10 and table.game.phase is Phase.OVER
    hands = [o for o in table.outputs if isinstance(o, HandScored)]
    assert len(hands) >= 3 and players.reneges == []
    assert not any(isinstance(o, RenegeProven) for o in table.outputs)
    # Each hand's plays followed suit as the players held them: no renege is provable.
    assert all(h.result is not HandResult.RENEGE for h in hands)


def test_the_same_seed_plays_the_same_game() -> None:
    logs = []
    for _ in range(2):
        table = Table(TD)
        world = World(seed=4)
        players = players_for(table, world, seed=4, frames_per_action=3, settle_frames=35)
        play_without_frames(table, players, world, until=HandScored)
        logs.append(table.game.log)
    assert logs[0] == logs[1]


def test_an_injected_renege_is_proven_from_the_cards_seen_and_penalised() -> None:
    table = Table(TD)
    world = World(seed=7)
    players = players_for(table, world, seed=7, renege=True, frames_per_action=3, settle_frames=35)
    play_without_frames(table, players, world, until=RenegeProven)
    [made] = players.reneges
    proven = next(o for o in table.outputs if isinstance(o, RenegeProven))
    assert (proven.seat, proven.trick, proven.suit, proven.played) == (
        made.seat,
        made.trick,
        made.suit,
        made.played,
    )
    assert proven.proof == made.kept and proven.proof_trick > made.trick
    assert proven.hand == made.hand <= 2
    penalty = next(o for o in table.outputs if isinstance(o, HandScored))
    assert penalty.result is HandResult.RENEGE
    assert (
        penalty.points[made.seat.team.other] == TD.renege_points
        or penalty.points[made.seat.team.other] == TD.renege_points_loner
    )
    # Once a game: the rest of the game is played clean.
    play_without_frames(table, players, world, start=100_000)
    assert len(players.reneges) == 1 and table.refused == []
    assert sum(isinstance(o, RenegeProven) for o in table.outputs) == 1


@pytest.mark.parametrize(
    ("name", "how"),
    [
        ("bicycle-head-to-head", FirstDealer.HIGH_CUT),  # best of three, renege deducted
        ("nmu-tournament", FirstDealer.FIRST_ACE),  # twelve hands
        ("td-progressive", FirstDealer.FIRST_JACK),
    ],
)
def test_other_presets_play_to_the_end_with_one_renege_a_game(name: str, how: FirstDealer) -> None:
    rules = preset(name)
    table = Table(rules)
    world = World(seed=3)
    players = players_for(table, world, seed=3, renege=True, frames_per_action=3, settle_frames=35)
    play_without_frames(table, players, world, until=None)
    assert table.refused == [] and players.redone == 0
    firsts = [o for o in table.game.log if isinstance(o, CardCut | FaceUpCardDealt)]
    assert firsts and all(
        isinstance(e, CardCut if how is FirstDealer.HIGH_CUT else FaceUpCardDealt) for e in firsts
    )
    proven = [o for o in table.outputs if isinstance(o, RenegeProven)]
    assert len(proven) == len(players.reneges) == table.game.game
    assert [(p.seat, p.played, p.proof) for p in proven] == [
        (r.seat, r.played, r.kept) for r in players.reneges
    ]


def test_without_a_cube_a_second_round_call_is_told_and_a_chosen_dealer_too() -> None:
    rules = Rules(stick_the_dealer=True)  # chosen first dealer; the dealer must call
    table = Table(rules)
    world = World(seed=9)
    players = SimulatedPlayers(
        world,
        rules,
        press=table.press,
        turn_cube=None,
        tell=table.push,
        seed=9,  # a game with second-round calls
        frames_per_action=3,
        settle_frames=35,
    )
    play_without_frames(table, players, world)
    assert table.refused == [] and table.game.phase is Phase.OVER
    assert isinstance(table.game.log[0], DealerChosen)
    # The second-round calls were told (no cube to turn).
    assert any(isinstance(e, TrumpCalled) for e in table.game.log)


def test_a_lost_press_is_pressed_again() -> None:
    table = Table(TD)
    table.lose_presses = 1
    world = World(seed=2)
    players = players_for(table, world, seed=2, frames_per_action=3, settle_frames=35)
    play_without_frames(table, players, world, until=HandScored)
    assert players.redone >= 1 and table.refused == []
    assert any(isinstance(e, Passed | OrderedUp) for e in table.game.log)


def test_after_a_restart_mid_hand_fresh_players_set_the_table_out_and_play_on() -> None:
    table = Table(TD)
    world = World(seed=9)
    players = players_for(table, world, seed=9, frames_per_action=3, settle_frames=35)
    # Play into the second trick of a hand, then "restart": a new world, new players,
    # the game replayed from its log.
    tracker = Tracker()
    for frame in range(60_000):
        players.act(table.game, frame)
        read_truth(world, tracker, table, frame)
        hand = table.game.hand
        if (
            hand is not None
            and hand.trick is not None
            and hand.trick.number == 2
            and len(hand.trick.plays) == 2
        ):
            break
    replayed = Game.replay(TD, table.game.log)
    assert replayed.state_key() == table.game.state_key()
    table.game = replayed
    held_before = {s: len(world.held[s]) for s in SEATS}
    world = World(seed=10)
    players = players_for(table, world, seed=10, frames_per_action=3, settle_frames=35)
    players.act(table.game, 0)  # the first look sets the table out
    assert {s: len(world.held[s]) for s in SEATS} == held_before
    hand = table.game.hand
    assert hand is not None and hand.trick is not None
    assert [world.where(c) for _, c in hand.trick.plays] == [
        f"play:{s}" for s, _ in hand.trick.plays
    ]
    play_without_frames(table, players, world)
    assert table.refused == [] and table.game.phase is Phase.OVER


def test_a_restart_at_any_event_of_a_game_sets_the_table_out_and_plays_the_hand_out() -> None:
    """Killed after any event, the table replays its log and the players set the cards
    out from the game alone. A turned-down upcard stays in the kitty: given to the dealer,
    the rules refused it as already seen, and the dealer ran out of cards to play."""
    table = Table(TD)
    world = World(seed=1)
    players = players_for(table, world, seed=1, renege=True, frames_per_action=2, settle_frames=35)
    play_without_frames(table, players, world, until=None)
    log = list(table.game.log)
    turned_down = 0
    for n in range(1, len(log)):
        game = Game.replay(TD, log[:n])
        hand = game.hand
        if game.phase not in (Phase.BIDDING, Phase.DISCARDING, Phase.PLAYING) or hand is None:
            continue
        again = Table(TD)
        again.game = game
        world = World(seed=n)
        players = players_for(again, world, seed=n, frames_per_action=2, settle_frames=35)
        players.act(game, 0)  # the first look sets the table out
        upcard = hand.upcard
        assert upcard is not None
        if game.phase is Phase.PLAYING and hand.seen[upcard][0] == "turned down":
            turned_down += 1
            assert world.where(upcard) == "kitty" and upcard not in world.held[hand.dealer]
        for seat in SEATS:  # the dealer about to discard takes the upcard up first
            assert len(world.held[seat]) == TD.hand_size - hand.played[seat]
        play_without_frames(again, players, world, until=HandScored, start=1, frames=20_000)
        assert again.refused == [], (n, again.refused)
    assert turned_down > 0  # the game had a hand made in the second round


def test_bad_pacing_is_refused() -> None:
    with pytest.raises(ValueError, match="frames_per_action and redo_frames must be at least 1"):
        SimulatedPlayers(
            World(), TD, press=lambda s, b: None, turn_cube=None, tell=print, frames_per_action=0
        )


def test_random_seeds_never_lose_a_card() -> None:
    rng = random.Random(0)
    for _ in range(2):
        seed = rng.randrange(1000)
        table = Table(TD)
        world = World(seed=seed)
        players = players_for(
            table, world, seed=seed, renege=True, frames_per_action=2, settle_frames=35
        )
        play_without_frames(table, players, world)
        assert table.refused == []
