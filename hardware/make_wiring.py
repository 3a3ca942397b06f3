"""Draw hardware/wiring.png and write the pinout table in hardware/wiring.md from the
pin map in table_controller/devices/pins.py, so the pictures never drift from the code.

    .venv/bin/python hardware/make_wiring.py

Run it after changing the default pin map; tests/test_pins.py fails until you do.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from table_controller.devices.pins import DEFAULT_PIN_MAP, HEADER, OTHER_USE, PinMap, PinUse
from table_controller.seats import Seat

HERE = Path(__file__).parent
BEGIN = "<!-- pinout: made by hardware/make_wiring.py, do not edit by hand -->"
END = "<!-- pinout end -->"

# Resistors in series with each colour of a light (hardware/wiring.md computes them).
RESISTOR = {"red LED": "330 Ω", "green LED": "150 Ω", "blue LED": "150 Ω"}
SEAT_INK = {
    Seat.N: (31, 100, 180),
    Seat.E: (200, 90, 0),
    Seat.S: (20, 130, 100),
    Seat.W: (120, 80, 170),
}
TABLE_INK = (0, 0, 0)
POWER_INK = {"GND": (90, 90, 90), "3V3": (190, 0, 40), "5V": (190, 0, 40)}
FREE_INK = (150, 150, 150)


def wire_to(use: PinUse) -> str:
    if use.function in RESISTOR:
        colour = use.function.split()[0]
        return f"{RESISTOR[use.function]} resistor, then the light's {colour} leg"
    if use.seat is None:
        return "the four seats' director buttons, in parallel; their other side to GND"
    return "the button; its other side to GND"


def pinout_markdown(pin_map: PinMap) -> str:
    """The pinout table of hardware/wiring.md."""
    lines = [
        "| seat | what | GPIO | header pin | wire the GPIO to |",
        "| --- | --- | --- | --- | --- |",
    ]
    for use in pin_map.uses():
        seat = "table" if use.seat is None else str(use.seat)
        also = f" (also {OTHER_USE[use.pin]})" if use.pin in OTHER_USE else ""
        lines.append(
            f"| {seat} | {use.function} | GPIO{use.pin}{also} | {use.physical_pin} "
            f"| {wire_to(use)} |"
        )
    free = ", ".join(f"GPIO{g} (pin {_physical(g)})" for g in pin_map.free_gpios()) or "none"
    lines += ["", f"Free: {free}. Lights: {pin_map.led_wiring.value}."]
    return "\n".join(lines) + "\n"


def _physical(gpio: int) -> int:
    return next(p for p, g in HEADER.items() if g == gpio)


def _label(use: PinUse | None, what: int | str) -> tuple[str, tuple[int, int, int]]:
    if isinstance(what, str):
        return what, POWER_INK[what]
    if use is None:
        if what in (0, 1):
            return f"GPIO{what}  (HAT EEPROM: do not use)", FREE_INK
        return f"GPIO{what}  free", FREE_INK
    who = "table" if use.seat is None else str(use.seat)
    ink = TABLE_INK if use.seat is None else SEAT_INK[use.seat]
    return f"GPIO{use.pin}  {who} {use.function}", ink


def draw(pin_map: PinMap, path: Path) -> None:
    """The header with every pin's job, and how a light and a button are wired."""
    width, height = 1700, 1400
    image = Image.new("RGB", (width, height), "white")
    pen = ImageDraw.Draw(image)
    title = ImageFont.load_default(size=38)
    font = ImageFont.load_default(size=26)
    small = ImageFont.load_default(size=22)
    pen.text(
        (width // 2, 30),
        "Euchre table: seat lights and buttons on the Raspberry Pi header",
        fill="black",
        font=title,
        anchor="mt",
    )
    pen.text(
        (width // 2, 82),
        "GPIO numbers are BCM numbers. Header pin 1 has the square pad, at the end furthest "
        "from the USB ports.",
        fill=(60, 60, 60),
        font=small,
        anchor="mt",
    )
    by_pin = {u.pin: u for u in pin_map.uses()}
    top, row, cx = 140, 46, width // 2
    body = (cx - 70, top - 28, cx + 70, top + 19 * row + 28)
    pen.rounded_rectangle(body, radius=14, fill=(30, 30, 30))
    for physical in range(1, 41):
        r = (physical - 1) // 2
        left = physical % 2 == 1
        x = cx - 32 if left else cx + 32
        y = top + r * row
        what = HEADER[physical]
        text, ink = _label(by_pin.get(what) if isinstance(what, int) else None, what)
        shape = (x - 16, y - 16, x + 16, y + 16)
        if physical == 1:
            pen.rectangle(shape, fill=(230, 190, 60))
        else:
            pen.ellipse(shape, fill=(230, 190, 60))
        pen.text((x, y), str(physical), fill="black", font=small, anchor="mm")
        if left:
            pen.line((x - 18, y, cx - 110, y), fill=ink, width=3)
            pen.text((cx - 120, y), text, fill=ink, font=font, anchor="rm")
        else:
            pen.line((x + 18, y, cx + 110, y), fill=ink, width=3)
            pen.text((cx + 120, y), text, fill=ink, font=font, anchor="lm")
    _legend(pen, pin_map, 60, top + 20 * row + 30, font, small)
    # A small palette keeps the file small: it is line art in a dozen colours.
    image.convert("P", palette=Image.Palette.ADAPTIVE, colors=64).save(path, optimize=True)


def _legend(
    pen: ImageDraw.ImageDraw,
    pin_map: PinMap,
    x: int,
    y: int,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    small: ImageFont.FreeTypeFont | ImageFont.ImageFont,
) -> None:
    """How one seat's light and one button are wired, drawn as short schematics."""
    anode = pin_map.led_wiring.active_high is False
    common = "3V3 (never 5V)" if anode else "GND"
    leg = "long leg (common anode)" if anode else "long leg (common cathode)"
    pen.text((x, y), "Each seat's light (RGB LED):", fill="black", font=font)
    for i, colour in enumerate(("red", "green", "blue")):
        yy = y + 48 + i * 44
        ohms = RESISTOR[f"{colour} LED"].replace("Ω", "ohm")  # the font has no Ω
        pen.text((x, yy), f"{colour} GPIO", fill="black", font=small, anchor="lm")
        pen.line((x + 150, yy, x + 220, yy), fill="black", width=3)
        pen.rectangle((x + 220, yy - 14, x + 340, yy + 14), outline="black", width=3)
        pen.text((x + 280, yy), ohms, fill="black", font=small, anchor="mm")
        pen.line((x + 340, yy, x + 400, yy), fill="black", width=3)
        pen.text((x + 410, yy), f"{colour} leg", fill="black", font=small, anchor="lm")
    pen.line((x + 520, y + 48, x + 520, y + 136), fill="black", width=3)
    pen.text((x + 540, y + 92), f"{leg} to {common}", fill="black", font=small, anchor="lm")
    bx = x + 980
    pen.text((bx, y), "Each button:", fill="black", font=font)
    yy = y + 70
    pen.text((bx, yy), "GPIO", fill="black", font=small, anchor="lm")
    pen.line((bx + 70, yy, bx + 150, yy), fill="black", width=3)
    pen.line((bx + 150, yy, bx + 200, yy - 22), fill="black", width=3)  # the switch, open
    pen.line((bx + 205, yy, bx + 285, yy), fill="black", width=3)
    pen.text((bx + 295, yy), "GND", fill="black", font=small, anchor="lm")
    notes = (
        "No resistor needed: the Pi's pull-up is on.",
        f"Director: four buttons in parallel on GPIO{pin_map.director}.",
        "Seat colours here: N blue, E orange, S green, W purple.",
    )
    for i, note in enumerate(notes):
        pen.text((bx, yy + 50 + i * 34), note, fill=(60, 60, 60), font=small, anchor="lm")


def write_doc(pin_map: PinMap, path: Path) -> bool:
    """Put the pinout table between the markers of wiring.md; True if it changed."""
    text = path.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    new = text[:start] + "\n" + pinout_markdown(pin_map) + text[end:]
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main() -> int:
    draw(DEFAULT_PIN_MAP, HERE / "wiring.png")
    changed = write_doc(DEFAULT_PIN_MAP, HERE / "wiring.md")
    print(f"wrote {HERE / 'wiring.png'}" + (f" and {HERE / 'wiring.md'}" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
