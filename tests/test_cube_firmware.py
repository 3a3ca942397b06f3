"""The cube's firmware logic (firmware/cube.py, display.py), driven directly: bytes and
milliseconds in, frames and pixels out, no thread and no clock."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

from table_controller.devices import firmware, frame
from table_controller.devices.emulator import FACE_SUITS, colour_letter
from table_controller.devices.frame import Decoder, Frame, encode

cube_module = firmware.load_cube()
display: ModuleType = importlib.import_module(firmware.PACKAGE + ".display")
SESSION = 0x1234
HEARTS = frame.State(frame.SUIT_HEARTS, frame.SEAT_N, False, 3, 5, 0, 64)


class FakeBoard:
    def __init__(self, accel: tuple[float, float, float] | None = (0.0, 0.0, 1.0)) -> None:
        self.pixels = bytes(display.SIZE)
        self.shows = 0
        self.down = False
        self.accel = accel

    def show(self, pixels: bytearray) -> None:
        self.pixels = bytes(pixels)
        self.shows += 1

    def button_down(self) -> bool:
        return self.down

    def acceleration(self) -> tuple[float, float, float] | None:
        return self.accel

    def text(self) -> str:
        rows = []
        for y in range(8):
            row = ""
            for x in range(8):
                i = (y * 8 + x) * 3
                row += colour_letter((self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]))
            rows.append(row)
        return "\n".join(rows)


class Rig:
    """A cube on a bench: the host's side is a decoder and a clock turned by hand."""

    def __init__(self, accel: tuple[float, float, float] | None = (0.0, 0.0, 1.0)) -> None:
        self.board = FakeBoard(accel)
        self.now = 0
        self.cube = cube_module.Cube(self.board, 0, FACE_SUITS)
        self.host = Decoder()
        self.applied: list[tuple[frame.State, int]] = []
        self.cube.on_state = lambda state, seq: self.applied.append((state, seq))

    def feed(self, data: bytes, advance: int = 1) -> list[Frame]:
        self.now += advance
        self.cube.receive(data, self.now)
        self.cube.tick(self.now)
        return self.host.feed(self.cube.take_output())

    def send(self, seq: int, payload: bytes) -> list[Frame]:
        return self.feed(encode(seq, payload))

    def run(self, ms: int, step: int = 5) -> list[Frame]:
        out: list[Frame] = []
        for _ in range(ms // step):
            out += self.feed(b"", step)
        return out

    def hello(self, session: int = SESSION, timeout_ms: int = 1000) -> list[Frame]:
        return self.send(0, frame.hello(session, timeout_ms))


def kinds(frames: list[Frame]) -> list[tuple[int, int]]:
    return [(f.kind, f.seq) for f in frames]


def test_hello_is_answered_with_version_size_and_features() -> None:
    rig = Rig()
    (reply,) = rig.hello()
    version, session, width, height, features, name = frame.parse_hello_reply(reply.payload)
    assert (version, session, width, height) == (frame.PROTOCOL_VERSION, SESSION, 8, 8)
    assert features == frame.FEATURE_BUTTON | frame.FEATURE_ACCELEROMETER
    assert name.startswith("cube ")
    (reply,) = Rig(accel=None).hello()
    assert frame.parse_hello_reply(reply.payload)[4] == frame.FEATURE_BUTTON


def test_a_state_is_applied_once_and_acked_every_time() -> None:
    rig = Rig()
    rig.hello()
    assert kinds(rig.send(1, HEARTS.to_payload())) == [(frame.KIND_ACK, 1)]
    assert kinds(rig.send(1, HEARTS.to_payload())) == [(frame.KIND_ACK, 1)]  # our ack was lost
    assert rig.applied == [(HEARTS, 1)]
    assert rig.cube.duplicates == 1
    spades = frame.State(frame.SUIT_SPADES)
    rig.send(2, spades.to_payload())
    assert rig.applied == [(HEARTS, 1), (spades, 2)]
    assert rig.cube.state == spades


def test_a_new_session_starts_the_sequence_numbers_again() -> None:
    rig = Rig()
    rig.hello(session=1)
    rig.send(1, HEARTS.to_payload())
    rig.hello(session=1)  # a resent hello of the same session changes nothing
    rig.send(1, HEARTS.to_payload())
    assert len(rig.applied) == 1
    rig.hello(session=2)  # a new host: its first sequence number is 1 again
    rig.send(1, HEARTS.to_payload())
    assert len(rig.applied) == 2


def test_refusals() -> None:
    rig = Rig()
    rig.hello()
    bad = bytes([frame.KIND_SET_STATE, 9, 0, 0, 0, 0, 0, 0])
    (nak,) = rig.send(4, bad)
    assert (nak.kind, nak.seq, frame.parse_nak(nak.payload)) == (frame.KIND_NAK, 4, 3)
    (nak,) = rig.send(5, bytes([0x7F, 1, 2]))  # a kind from a newer host
    assert (nak.seq, frame.parse_nak(nak.payload)) == (5, frame.NAK_UNKNOWN)
    assert rig.send(0, bytes([0x7F])) == []  # unsequenced: nothing to refuse
    assert rig.send(0, HEARTS.to_payload()) == []  # a reliable kind needs a sequence number
    assert rig.applied == []


def test_garbage_is_nakked_once_per_burst() -> None:
    rig = Rig()
    rig.hello()
    out = rig.feed(b"\x00\x01\x02garbage")
    out += rig.feed(b"more garbage")
    assert kinds(out) == [(frame.KIND_NAK, 0)]
    out = rig.feed(encode(0, frame.heartbeat(SESSION)) + b"junk", advance=30)
    assert kinds(out) == [(frame.KIND_NAK, 0)]


def test_a_half_frame_is_dropped_when_the_line_goes_quiet() -> None:
    rig = Rig()
    rig.hello()
    rig.feed(b"\x7e\x40\x01")  # promises 64 bytes, never sends them
    rig.feed(encode(1, HEARTS.to_payload()))  # held behind the promise
    assert rig.applied == []
    out = rig.run(60)
    assert rig.applied == [(HEARTS, 1)]
    assert (frame.KIND_ACK, 1) in kinds(out)


def test_heartbeats_and_link_lost() -> None:
    rig = Rig(accel=None)
    assert rig.run(2000) == []  # nobody there: no heartbeats, the waiting screen
    assert "B" in rig.board.text()
    rig.hello(timeout_ms=400)
    rig.send(1, HEARTS.to_payload())
    out = rig.run(300)
    # an eighth of the 400 ms link timeout: every 50 ms when nothing else is sent
    assert kinds(out).count((frame.KIND_HEARTBEAT, 0)) in (5, 6)
    assert frame.parse_heartbeat(out[0].payload) == SESSION
    assert "R" in rig.board.text() and "W" in rig.board.text()  # hearts, maker N's edge
    rig.run(200)  # 500 ms without a frame: the link is lost
    assert rig.cube.mode(rig.now) == display.MODE_LINK_LOST
    frames = []
    for _ in range(40):
        rig.run(25)
        frames.append(rig.board.text())
    assert any(text.splitlines()[1] == ".R....R." for text in frames)  # a red X ...
    assert any(set(text) <= {".", "\n"} for text in frames)  # ... that blinks
    rig.send(0, frame.heartbeat(SESSION))
    assert rig.cube.mode(rig.now) == display.MODE_PLAY


def test_the_button_is_debounced_and_held_once() -> None:
    rig = Rig(accel=None)
    rig.hello(timeout_ms=5000)
    out: list[Frame] = []
    for i in range(10):  # contacts bouncing for 10 ms
        rig.board.down = i % 2 == 0
        out += rig.feed(b"", 1)
    rig.board.down = True
    out += rig.run(100)
    presses = [f for f in out if f.kind == frame.KIND_BUTTON]
    assert len({f.seq for f in presses}) == 1  # one press (sent again until acked)
    assert frame.parse_button(presses[0].payload) == (0, frame.BUTTON_PRESSED)
    rig.send(presses[0].seq, frame.ack())
    out = rig.run(2000)
    held = [f for f in out if f.kind == frame.KIND_BUTTON]
    assert [frame.parse_button(f.payload)[1] for f in held][:1] == [frame.BUTTON_HELD]
    assert len({f.seq for f in held}) == 1  # resent until acked, never a second hold


def test_events_are_resent_until_acked_with_backoff() -> None:
    rig = Rig(accel=None)
    rig.hello(timeout_ms=10000)
    rig.board.down = True
    out = rig.run(60)
    rig.board.down = False
    out += rig.run(940)
    copies = [f for f in out if f.kind == frame.KIND_BUTTON]
    assert len({f.seq for f in copies}) == 1
    assert 6 <= len(copies) <= 8  # at 0, 50, 150, 350, 550, 750, 950 ms: doubling to 200
    rig.send(copies[0].seq, frame.ack())
    assert not [f for f in rig.run(1000) if f.kind == frame.KIND_BUTTON]


def test_a_nak_makes_the_cube_resend_at_once() -> None:
    rig = Rig(accel=None)
    rig.hello(timeout_ms=10000)
    rig.board.down = True
    (press,) = [f for f in rig.run(40) if f.kind == frame.KIND_BUTTON]
    assert rig.send(0, frame.nak(frame.NAK_BAD_FRAME)) == [press]


def test_a_face_counts_once_it_is_steady() -> None:
    rig = Rig()
    rig.hello(timeout_ms=10000)
    rig.board.accel = (0.0, 1.0, 0.05)  # face 4 (+Y) up: hearts
    assert not [f for f in rig.run(300) if f.kind == frame.KIND_FACE_UP]  # still settling
    event = next(f for f in rig.run(300) if f.kind == frame.KIND_FACE_UP)
    assert frame.parse_face_up(event.payload) == (4, frame.SUIT_HEARTS)
    rig.send(event.seq, frame.ack())
    rig.board.accel = (0.6, 0.6, 0.5)  # in the hand: tilted
    rig.run(1000)
    rig.board.accel = (0.0, 1.0, 0.0)  # put back the same way: nothing new
    assert not [f for f in rig.run(1000) if f.kind == frame.KIND_FACE_UP]


def test_face_of() -> None:
    assert cube_module.face_of((0.0, 0.0, 1.0)) == 0
    assert cube_module.face_of((0.0, 0.0, -0.98)) == 1
    assert cube_module.face_of((-1.0, 0.1, 0.0)) == 3
    assert cube_module.face_of((0.0, -0.9, 0.3)) == 5
    assert cube_module.face_of((0.7, 0.7, 0.0)) == frame.FACE_NONE


def test_a_new_session_drops_stale_events_and_reports_the_face() -> None:
    rig = Rig()
    rig.hello(session=1, timeout_ms=10000)
    rig.board.accel = (-1.0, 0.0, 0.0)  # face 3: diamonds
    rig.run(600)
    rig.board.down = True
    rig.run(100)  # a press and a face, neither acked
    out = rig.hello(session=2, timeout_ms=10000)
    assert out[0].kind == frame.KIND_HELLO_REPLY
    assert [frame.parse_face_up(f.payload) for f in out[1:]] == [(3, frame.SUIT_DIAMONDS)]


def test_stop_is_acked_then_the_loop_ends() -> None:
    rig = Rig()
    rig.hello()
    assert kinds(rig.send(1, frame.stop())) == [(frame.KIND_ACK, 1)]
    assert rig.cube.stopped


# --- what the matrix shows ------------------------------------------------------------


def draw(state: frame.State | None, mode: int = 2, now_ms: int = 0) -> str:
    board = FakeBoard()
    px = bytearray(display.SIZE)
    display.render(px, mode, state, now_ms)
    board.show(px)
    return board.text()


def test_trump_and_maker() -> None:
    assert draw(HEARTS) == "\n".join(
        [
            "WWWWWWWW",
            "..R..R..",
            ".RRRRRR.",
            ".RRRRRR.",
            ".RRRRRR.",
            "..RRRR..",
            "...RR...",
            "........",
        ]
    )
    clubs_east = draw(frame.State(frame.SUIT_CLUBS, frame.SEAT_E))
    assert all(row[-1] == "W" for row in clubs_east.splitlines())
    assert "G" in clubs_east
    assert "B" in draw(frame.State(frame.SUIT_DIAMONDS))
    assert "P" in draw(frame.State(frame.SUIT_NO_TRUMP))


def test_alone_blinks_the_makers_edge_and_marks_the_partner_out() -> None:
    state = frame.State(frame.SUIT_SPADES, frame.SEAT_W, True)
    on, off = draw(state, now_ms=0), draw(state, now_ms=250)
    assert all(row[0] == "O" for row in on.splitlines())  # W's edge, gold
    assert all(row[0] == "." for row in off.splitlines())
    assert all(row[-1] == "R" for row in on.splitlines())  # E sits out


def test_the_score_takes_turns_with_trump() -> None:
    state = frame.State(frame.SUIT_HEARTS, frame.SEAT_N, False, 3, 7)
    text = draw(state, now_ms=display.TRUMP_PAGE_MS + 10)
    rows = text.splitlines()
    assert rows[1] == "CCC..MMM"  # 3 and 7, team colours
    assert rows[7] == "CCC..MMM"
    big = frame.State(frame.SUIT_NONE, score_ns=10, score_ew=-2)
    ns, ew = draw(big, now_ms=0), draw(big, now_ms=display.SCORE_PAGE_MS)
    assert ns.splitlines()[7] == "CCCCCCCC" and ew.splitlines()[7] == "MMMMMMMM"
    assert ew.splitlines()[3].startswith("MMM")  # the minus sign


def test_alerts_blink_over_everything() -> None:
    state = frame.State(frame.SUIT_HEARTS, frame.SEAT_N, alert=frame.ALERT_DIRECTOR)
    on, off = draw(state, now_ms=0), draw(state, now_ms=250)
    assert set(on) == {".", "\n", "Y"}
    assert set(off) == {".", "\n"}


def test_waiting_dot_walks_the_edge() -> None:
    seen = {
        draw(None, display.MODE_WAITING, t).replace("\n", "").index("B")
        for t in range(0, 2800, 100)
    }
    assert len(seen) == 28  # every edge LED once


@pytest.mark.parametrize("brightness", [0, 32, 255])
def test_the_matrix_stays_within_its_power_budget(brightness: int) -> None:
    px = bytearray(display.SIZE)
    state = frame.State(frame.SUIT_SPADES, frame.SEAT_N, True, 88, 88, 0, brightness)
    for t in range(0, 6000, 250):
        display.render(px, display.MODE_PLAY, state, t)
        assert sum(px) <= display.POWER_BUDGET


def test_a_bad_frame_while_waiting_for_an_ack_sends_the_event_again() -> None:
    rig = Rig(accel=None)
    rig.hello(timeout_ms=10000)
    rig.board.down = True
    (press,) = {f for f in rig.run(40) if f.kind == frame.KIND_BUTTON}
    corrupted_ack = bytearray(encode(press.seq, frame.ack()))
    corrupted_ack[3] ^= 0x40
    out = rig.feed(bytes(corrupted_ack), advance=25)
    assert kinds(out) == [(frame.KIND_NAK, 0), (frame.KIND_BUTTON, press.seq)]
