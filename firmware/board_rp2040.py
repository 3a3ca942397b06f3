"""The cube's hardware: a Raspberry Pi Pico (RP2040), an 8x8 WS2812B matrix, a button and
an optional LIS3DH or ADXL345 accelerometer. MicroPython only (``machine``, ``neopixel``).

Wiring (hardware/cube.md has the parts and a picture in words):

=============  =========  =====================================================
Pico pin       GPIO       to
=============  =========  =====================================================
4              GP2        matrix DIN (through the 74AHCT125 level shifter)
6              GP4        accelerometer SDA (I2C0)
7              GP5        accelerometer SCL (I2C0)
20             GP15       button, other leg to GND (internal pull-up)
36             3V3(OUT)   accelerometer VIN
40             VBUS       matrix 5V and the level shifter's VCC
3, 8, 38 ...   GND        matrix GND, accelerometer GND, button
=============  =========  =====================================================

Change the constants below if your build differs; nothing else needs to.
"""

import machine
import neopixel

MATRIX_PIN = 2
BUTTON_PIN = 15
I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5
WIDTH = 8
HEIGHT = 8
SERPENTINE = False  # Adafruit's NeoMatrix 8x8 (1487) is wired row by row, left to right
ROTATE_180 = False  # the matrix mounted upside down in the box

# The suit printed on each face (cube.FACE_AXES numbers them: 0 the matrix up, 1 the
# matrix down, 2 +X, 3 -X, 4 +Y, 5 -Y). 0 is no suit.
FACE_SUITS = (0, 0, 1, 2, 3, 4)  # +X clubs, -X diamonds, +Y hearts, -Y spades

LIS3DH_ADDRESSES = (0x18, 0x19)
ADXL345_ADDRESSES = (0x53, 0x1D)


def _int16(low: int, high: int) -> int:
    value = low | (high << 8)
    return value - 65536 if value & 0x8000 else value


class Lis3dh:
    """ST LIS3DH: 100 Hz, +-2 g, high resolution (12 bits, 1 mg a count)."""

    def __init__(self, i2c: "machine.I2C", address: int) -> None:
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, 0x20, b"\x57")  # CTRL_REG1: 100 Hz, X Y Z on
        i2c.writeto_mem(address, 0x23, b"\x88")  # CTRL_REG4: block update, high res

    def read(self) -> tuple[float, float, float]:
        b = self.i2c.readfrom_mem(self.address, 0x28 | 0x80, 6)  # OUT_X_L, auto-increment
        return (
            (_int16(b[0], b[1]) >> 4) / 1000,
            (_int16(b[2], b[3]) >> 4) / 1000,
            (_int16(b[4], b[5]) >> 4) / 1000,
        )


class Adxl345:
    """Analog Devices ADXL345: full resolution, +-2 g (256 counts a g)."""

    def __init__(self, i2c: "machine.I2C", address: int) -> None:
        self.i2c = i2c
        self.address = address
        i2c.writeto_mem(address, 0x31, b"\x08")  # DATA_FORMAT: full resolution, +-2 g
        i2c.writeto_mem(address, 0x2D, b"\x08")  # POWER_CTL: measure

    def read(self) -> tuple[float, float, float]:
        b = self.i2c.readfrom_mem(self.address, 0x32, 6)  # DATAX0..DATAZ1
        return (
            _int16(b[0], b[1]) / 256,
            _int16(b[2], b[3]) / 256,
            _int16(b[4], b[5]) / 256,
        )


def find_accelerometer(i2c: "machine.I2C") -> "Lis3dh | Adxl345 | None":
    """The accelerometer on the bus, by its identity register, or None: the cube works
    without one (it just never reports a face)."""
    try:
        found = i2c.scan()
    except OSError:
        return None
    for address in LIS3DH_ADDRESSES:
        if address in found and i2c.readfrom_mem(address, 0x0F, 1)[0] == 0x33:  # WHO_AM_I
            return Lis3dh(i2c, address)
    for address in ADXL345_ADDRESSES:
        if address in found and i2c.readfrom_mem(address, 0x00, 1)[0] == 0xE5:  # DEVID
            return Adxl345(i2c, address)
    return None


class Board:
    def __init__(self) -> None:
        self.matrix = neopixel.NeoPixel(machine.Pin(MATRIX_PIN), WIDTH * HEIGHT)
        self.button = machine.Pin(BUTTON_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        i2c = machine.I2C(I2C_ID, sda=machine.Pin(I2C_SDA), scl=machine.Pin(I2C_SCL))
        self.accelerometer = find_accelerometer(i2c)

    def button_down(self) -> bool:
        return self.button.value() == 0

    def acceleration(self) -> "tuple[float, float, float] | None":
        if self.accelerometer is None:
            return None
        try:
            return self.accelerometer.read()
        except OSError:  # a loose wire: no face rather than a crash
            return None

    def led_index(self, x: int, y: int) -> int:
        if ROTATE_180:
            x, y = WIDTH - 1 - x, HEIGHT - 1 - y
        if SERPENTINE and y % 2 == 1:
            x = WIDTH - 1 - x
        return y * WIDTH + x

    def show(self, pixels: bytearray) -> None:
        """``pixels``: rows top to bottom, R G B each (display.py draws them)."""
        i = 0
        for y in range(HEIGHT):
            for x in range(WIDTH):
                self.matrix[self.led_index(x, y)] = (pixels[i], pixels[i + 1], pixels[i + 2])
                i += 3
        self.matrix.write()

    def blank(self) -> None:
        self.matrix.fill((0, 0, 0))
        self.matrix.write()

    def safe_mode(self) -> None:
        """A dim yellow frame: the firmware did not start (the button was held at boot)."""
        self.blank()
        for i in range(WIDTH):
            for x, y in ((i, 0), (i, HEIGHT - 1), (0, i), (WIDTH - 1, i)):
                self.matrix[self.led_index(x, y)] = (16, 12, 0)
        self.matrix.write()
