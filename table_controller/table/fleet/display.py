"""While a table joins an event, its join code shown wherever a person might look: the
table's page (page.py), its seat lights (lights.py) and the trump cube.

The director approves the code the table shows, so a table nobody can see the screen of
still gives its code: counted out by the seat lights, and on the cube as its two scores
(4719: North-South 47, East-West 19), between blinks of the cube's "call the director"
alert, which says this table is waiting for the director. The cube's firmware shows an
alert over everything else, so the two alternate.

Every device comes from the table's config, as the table itself opens them; one that
cannot be had is said in ``problems`` and left out: a table with no cube or no lights
still joins.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import TYPE_CHECKING

from table_controller.closing import Closing
from table_controller.devices.cube_types import Alert, CubeState
from table_controller.devices.gpio import GpioUnavailable, SeatDeviceError
from table_controller.table.config import TableConfig
from table_controller.table.devices import PinFactory, pin_factory_for
from table_controller.table.fleet.identity import MachinePaths, machine_claim
from table_controller.table.fleet.lights import BEAT, LightsPlayer
from table_controller.table.fleet.page import JoinPage, JoinPageError
from table_controller.table.page.tls import PageTls, PageTlsError, prepare, start_words

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from table_controller.devices.cube import TrumpCube
    from table_controller.devices.emulator import CubeEmulator
    from table_controller.devices.seat_leds import SeatLeds
    from table_controller.fleet.discovery import Found
    from table_controller.fleet.sealing import JoinCheck
    from table_controller.table.fleet.membership import Membership

log = logging.getLogger(__name__)

ALERT_SECONDS = 2.0  # the cube's "call the director" alert, then
SCORES_SECONDS = 3.0  # the code as its two scores (two pages of 1.5 s each)


def cube_states(code: str) -> tuple[CubeState, CubeState]:
    """The cube's two pictures of ``code``: the alert, then the scores."""
    ns, ew = int(code[:2]), int(code[2:])
    return (
        CubeState(score_ns=ns, score_ew=ew, alert=Alert.DIRECTOR),
        CubeState(score_ns=ns, score_ew=ew),
    )


class JoinDisplay(Closing):
    """The join shown on ``config``'s page port, seat lights and cube, until ``close()``.

    ``pin_factory`` and ``emulator`` replace the ones the config names (tests);
    ``beat`` paces the lights and ``cube_times`` the cube's (alert, scores) seconds."""

    def __init__(
        self,
        config: TableConfig,
        *,
        pin_factory: PinFactory | None = None,
        emulator: CubeEmulator | None = None,
        beat: float = BEAT,
        lights_wait: Callable[[float], bool] | None = None,
        cube_times: tuple[float, float] = (ALERT_SECONDS, SCORES_SECONDS),
    ) -> None:
        self.config = config
        self.problems: list[str] = []  # the devices left out, in words
        self.code: str | None = None
        self.page: JoinPage | None = None
        self.leds: SeatLeds | None = None
        self.lights: LightsPlayer | None = None
        self.cube: TrumpCube | None = None
        self.emulator = emulator
        self._own_emulator = False
        self._factory = pin_factory
        self._own_factory = pin_factory is None
        self._cube_times = cube_times
        self._stop = threading.Event()
        self._cube_thread: threading.Thread | None = None
        self.tls: PageTls | None = None  # the page's HTTPS (table/page/tls.py)
        try:
            self.tls = prepare(config)
            self.page = JoinPage(
                config.web.host,
                config.web.port,
                tls_cert=None if self.tls is None else str(self.tls.cert),
                tls_key=None if self.tls is None else str(self.tls.key),
            )
        except (JoinPageError, PageTlsError) as exc:  # never served in clear instead
            self._problem(str(exc))
        self._open_lights(beat, lights_wait)
        self._open_cube()

    @property
    def url(self) -> str | None:
        """The join page's address, if it is served."""
        return None if self.page is None else self.page.url

    def show_code(self, code: str, event: str, key_fingerprint: str, check: str = "") -> None:
        """Show ``code`` for joining ``event``, whose director's key is ``key_fingerprint``;
        ``check``: the digits the director's Fleet page shows beside this request (the
        page only: lights and cube give the code)."""
        self.code = code
        if self.page is not None:
            self.page.update(code=code, event=event, key=key_fingerprint, check=check)
        if self.lights is not None:
            self.lights.show(code)
        if self.cube is not None:
            if self._cube_thread is None:
                self._cube_thread = threading.Thread(
                    target=self._cycle_cube, name="join-cube", daemon=True
                )
                self._cube_thread.start()
            else:
                self.cube.show(cube_states(code)[0])

    def say(self, words: str) -> None:
        """How the join is going, in words (shown under the code)."""
        log.info("%s", words)
        if self.page is not None:
            self.page.update(words=words[:1].upper() + words[1:])

    def close(self) -> None:
        """Stop showing: the page stops, the lights go dark, the cube is blank again."""
        self._stop.set()
        if self.lights is not None:
            self.lights.stop()
            self.lights = None
        if self.leds is not None:
            self.leds.close()
            self.leds = None
        if self._cube_thread is not None:
            self._cube_thread.join(timeout=10)
            self._cube_thread = None
        if self.cube is not None:
            if self.cube.is_connected:  # blank again; a cube not there is not waited for
                with contextlib.suppress(Exception):
                    self.cube.show(CubeState())
                    self.cube.wait_shown(2)
            self.cube.close()
            self.cube = None
        if self._own_emulator and self.emulator is not None:
            self.emulator.close()
            self.emulator = None
        if self._own_factory and self._factory is not None:
            with contextlib.suppress(Exception):
                self._factory.close()
            self._factory = None
        if self.page is not None:
            self.page.close()
            self.page = None

    # --- the devices --------------------------------------------------------------------

    def _problem(self, words: str) -> None:
        log.warning("%s", words)
        self.problems.append(words)

    def _open_lights(self, beat: float, wait: Callable[[float], bool] | None) -> None:
        from table_controller.devices.seat_leds import SeatLeds

        try:
            if self._factory is None:
                self._factory = pin_factory_for(self.config.gpio)
            self.leds = SeatLeds(self.config.pins, self._factory)
        except (GpioUnavailable, SeatDeviceError, ValueError) as exc:
            self._problem(f"the seat lights cannot show the code: {exc}")
            return
        self.lights = LightsPlayer(self.leds.set_colour, beat=beat, wait=wait)

    def _open_cube(self) -> None:
        from table_controller.devices.cube import TrumpCube
        from table_controller.devices.cube_backend import (
            CubeBackend,
            EmulatorBackend,
            cube_backend,
        )
        from table_controller.devices.emulator import CubeEmulator

        cube = self.config.cube
        if cube is None:
            return
        backend: CubeBackend
        if cube.port == "emulator":
            if self.emulator is None:
                self.emulator = CubeEmulator()
                self.emulator.start()
                self._own_emulator = True
            backend = EmulatorBackend(self.emulator)
        else:
            backend = cube_backend(cube)
        self.cube = TrumpCube(backend, cube)
        self.cube.start()  # it connects, and reconnects, by itself

    def _cycle_cube(self) -> None:
        alert_time, scores_time = self._cube_times
        while not self._stop.is_set() and self.cube is not None and self.code is not None:
            alert, scores = cube_states(self.code)
            self.cube.show(alert)
            if self._stop.wait(alert_time):
                return
            self.cube.show(scores)
            if self._stop.wait(scores_time):
                return


def join_showing(
    config: TableConfig,
    folder: Path,
    *,
    director: Found | None = None,
    fingerprint: str | None = None,
    stop: threading.Event | None = None,
    say: Callable[[str], None] | None = None,
    machine_paths: MachinePaths | None = None,
) -> Membership:
    """``fleet.join.join`` with the code shown on ``config``'s page, lights and cube
    while it waits; ``say`` hears every sentence for a person (a terminal, the
    journal). ``fingerprint``: the director's key as given by a person (pinned). The
    table's devices are free again when it returns (or raises). ``machine_paths``:
    where this machine's identity is read (table/fleet/identity.py), told to the
    director with the request."""
    from table_controller.table.fleet.join import join

    def tell(words: str) -> None:
        if say is not None:
            say(words[:1].upper() + words[1:])

    with JoinDisplay(config) as display:
        for problem in display.problems:
            tell(f"note: {problem}")
        if display.url is not None:
            tell(f"The join code is shown on this table's page: {display.url}")
            for line in start_words(config, display.url, display.tls):
                tell(line)

        def on_code(shown: JoinCheck, found: Found) -> None:
            display.show_code(shown.code, found.event, found.key_fingerprint, shown.check)
            tell(
                f"Join code {shown.code}: on the dashboard's Fleet page, the director "
                f"approves this code and names the table. Before approving, compare aloud: "
                f"the check {shown.check} is beside this table's request there, and the "
                f"director's key {found.key_fingerprint} (the same on every table of the "
                "event) is on the director's screen"
            )

        def on_words(words: str) -> None:
            display.say(words)
            tell(words)

        return join(
            folder,
            director=director,
            fingerprint=fingerprint,
            on_code=on_code,
            on_words=on_words,
            stop=stop,
            machine=machine_claim(machine_paths or MachinePaths()),
        )


__all__ = ["ALERT_SECONDS", "SCORES_SECONDS", "JoinDisplay", "cube_states", "join_showing"]
