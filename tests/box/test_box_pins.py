"""A club's table on the box's pins: its seat lights and buttons through the kernel's GPIO
character device (the box's gpio-sim chip, hardware/box/gpio-header.sh), with its real
backend (gpiozero's lgpio factory), as on a Raspberry Pi."""

from __future__ import annotations

import json

import pytest
from box_machine import FIGURES, Box
from box_table import club_table, press, run_club_table, sample_lines, service_use

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


def test_the_table_drives_its_lights_and_reads_its_buttons_through_the_kernel(box: Box) -> None:
    """The table's real backend (gpiozero's lgpio factory) on the box's simulated chip:
    North deals first, so North's light blinks amber (red and green, no blue); no camera is
    plugged in, a device fault, so every other seat blinks purple (red and blue, no
    green) for the players to look at the page; the director button (GPIO 8), pressed by
    pulling its line, reaches the table, whose page says the director was called. With a
    wrong pin in the config (North's red as 7, the director as 7) it fails: checked."""
    run_club_table(box, club_table())
    health = json.loads(box.ssh("curl -sk https://127.0.0.1:8080/health").stdout)
    devices = [fault.get("device") for fault in health["faults"]]
    assert "seats" not in devices, f"the seat lights and buttons did not open: {health}"

    # (red, green, blue) of each seat in the example's pins.
    north, others = (17, 27, 22), [(10, 9, 11), (23, 24, 25), (16, 20, 21)]
    values = sample_lines(box, [n for rgb in (north, *others) for n in rgb], seconds=4)
    red, green, blue = north
    assert values[red] == values[green] == {"0", "1"}, f"North's amber does not blink: {values}"
    assert values[blue] == {"0"}, f"North's blue (GPIO{blue}) is lit: {values}"
    for _red, green, blue in others:
        assert values[blue] == {"0", "1"}, f"GPIO{blue} does not blink purple: {values}"
        assert values[green] == {"0"}, f"GPIO{green} is lit (purple has no green): {values}"

    assert not any("director" in str(n) for n in box.snapshot()["notices"])  # type: ignore[attr-defined]
    press(box, 8)

    def called() -> bool:
        notices = box.snapshot()["notices"]
        return any("called the director" in str(n) for n in notices)  # type: ignore[attr-defined]

    box.wait_for("the director button's press on the page", called, within=120)
    FIGURES.append(f"the club's table's service (real pins, no camera): {service_use(box)}")
