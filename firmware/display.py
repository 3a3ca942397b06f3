"""What the cube's 8x8 LED matrix shows, drawn into a pixel buffer (no hardware here).

Hardware independent, in the subset of Python that MicroPython runs; the emulator runs
this very file on the host. The buffer is ``bytearray(8 * 8 * 3)``: rows top to bottom,
R G B per pixel; the board turns it into LED order.

Screens (docs/cube-protocol.md shows them):

* waiting: one blue dot runs round the edge until a host greets the cube;
* link lost: a red X blinks once a second when the host's frames stop;
* alert: a "!" blinks twice a second in the alert's colour;
* play: the trump suit in its colour (a four-colour deck: hearts red, diamonds blue,
  clubs green, spades white) with the maker's edge lit (top edge = North when the cube
  sits with its N mark toward North); going alone, the maker's edge blinks gold and the
  partner's edge is red (sitting out). Every few seconds the score takes its place.
"""

try:
    from table_controller.devices import frame
except ImportError:  # on the board: frame.py sits next to this file
    import frame  # type: ignore[import-not-found, no-redef]

WIDTH = 8
HEIGHT = 8
SIZE = WIDTH * HEIGHT * 3

MODE_WAITING = 0
MODE_LINK_LOST = 1
MODE_PLAY = 2

# About 400 mA at most through the matrix: a WS2812B draws ~20 mA per channel at 255, so
# the channel values may add up to 400 / 20 * 255 = 5100 (USB gives 500 mA in all).
POWER_BUDGET = 5100
DEFAULT_BRIGHTNESS = 32

SUIT_COLOURS = {
    frame.SUIT_CLUBS: (0, 200, 40),
    frame.SUIT_DIAMONDS: (0, 90, 255),
    frame.SUIT_HEARTS: (255, 0, 0),
    frame.SUIT_SPADES: (200, 200, 200),
    frame.SUIT_NO_TRUMP: (160, 0, 255),
}
ALERT_COLOURS = {
    frame.ALERT_RENEGE: (255, 0, 0),
    frame.ALERT_DIRECTOR: (255, 190, 0),
    frame.ALERT_MISDEAL: (255, 80, 0),
    frame.ALERT_IRREGULARITY: (255, 0, 160),
}
MAKER_COLOUR = (180, 180, 180)
ALONE_COLOUR = (255, 150, 0)
SITTING_OUT_COLOUR = (200, 0, 0)
NS_COLOUR = (0, 200, 200)
EW_COLOUR = (255, 0, 200)
WAITING_COLOUR = (0, 0, 255)
LINK_LOST_COLOUR = (255, 0, 0)

# 6x6 glyphs, drawn at (1, 1) inside the edge that shows the maker.
GLYPHS = {
    frame.SUIT_CLUBS: ("..##..", ".####.", "..##..", "######", "######", "..##.."),
    frame.SUIT_DIAMONDS: ("..##..", ".####.", "######", "######", ".####.", "..##.."),
    frame.SUIT_HEARTS: (".#..#.", "######", "######", "######", ".####.", "..##.."),
    frame.SUIT_SPADES: ("..##..", ".####.", "######", "######", "..##..", ".####."),
    frame.SUIT_NO_TRUMP: (".####.", "#...##", "#..#.#", "#.#..#", "##...#", ".####."),
}
ALERT_GLYPH = ("..##..", "..##..", "..##..", "..##..", "......", "..##..")
LINK_LOST_GLYPH = ("#....#", ".#..#.", "..##..", "..##..", ".#..#.", "#....#")

# 3x5 digits for the score.
DIGITS = (
    ("###", "#.#", "#.#", "#.#", "###"),
    (".#.", "##.", ".#.", ".#.", "###"),
    ("###", "..#", "###", "#..", "###"),
    ("###", "..#", "###", "..#", "###"),
    ("#.#", "#.#", "###", "..#", "..#"),
    ("###", "#..", "###", "..#", "###"),
    ("###", "#..", "###", "#.#", "###"),
    ("###", "..#", "..#", ".#.", ".#."),
    ("###", "#.#", "###", "#.#", "###"),
    ("###", "#.#", "###", "..#", "###"),
)
MINUS = ("...", "...", "###", "...", "...")

TRUMP_PAGE_MS = 3000
SCORE_PAGE_MS = 1500


def scale(colour: tuple[int, int, int], brightness: int) -> tuple[int, int, int]:
    return (
        colour[0] * brightness // 255,
        colour[1] * brightness // 255,
        colour[2] * brightness // 255,
    )


def put(px: bytearray, x: int, y: int, colour: tuple[int, int, int]) -> None:
    i = (y * WIDTH + x) * 3
    px[i] = colour[0]
    px[i + 1] = colour[1]
    px[i + 2] = colour[2]


def get(px: bytes | bytearray, x: int, y: int) -> tuple[int, int, int]:
    i = (y * WIDTH + x) * 3
    return (px[i], px[i + 1], px[i + 2])


def draw(
    px: bytearray, rows: tuple[str, ...], x0: int, y0: int, colour: tuple[int, int, int]
) -> None:
    for dy in range(len(rows)):
        row = rows[dy]
        for dx in range(len(row)):
            if row[dx] == "#":
                put(px, x0 + dx, y0 + dy, colour)


def edge(px: bytearray, seat: int, colour: tuple[int, int, int]) -> None:
    """Light the edge toward a seat: N top, E right, S bottom, W left."""
    for i in range(WIDTH):
        if seat == frame.SEAT_N:
            put(px, i, 0, colour)
        elif seat == frame.SEAT_S:
            put(px, i, HEIGHT - 1, colour)
        elif seat == frame.SEAT_E:
            put(px, WIDTH - 1, i, colour)
        elif seat == frame.SEAT_W:
            put(px, 0, i, colour)


def partner(seat: int) -> int:
    return (seat - 1 + 2) % 4 + 1


def number(px: bytearray, value: int, x0: int, colour: tuple[int, int, int]) -> None:
    """Two characters, 7 pixels wide, at rows 1..5: -9..99 (others are clipped)."""
    value = max(-9, min(99, value))
    if value < 0:
        draw(px, MINUS, x0, 1, colour)
        draw(px, DIGITS[-value], x0 + 4, 1, colour)
    elif value >= 10:
        draw(px, DIGITS[value // 10], x0, 1, colour)
        draw(px, DIGITS[value % 10], x0 + 4, 1, colour)
    else:
        draw(px, DIGITS[value], x0 + 2, 1, colour)


def score_pages(state: frame.State) -> int:
    return 1 if 0 <= state.score_ns <= 9 and 0 <= state.score_ew <= 9 else 2


def score(px: bytearray, state: frame.State, page: int) -> None:
    """Both scores side by side when both are single digits, else one team a page; the
    bottom row is underlined in the team's colour (NS cyan, EW magenta)."""
    ns = scale(NS_COLOUR, state.brightness)
    ew = scale(EW_COLOUR, state.brightness)
    if score_pages(state) == 1:
        draw(px, DIGITS[state.score_ns], 0, 1, ns)
        draw(px, DIGITS[state.score_ew], 5, 1, ew)
        for x in range(3):
            put(px, x, HEIGHT - 1, ns)
            put(px, x + 5, HEIGHT - 1, ew)
        return
    colour = ns if page == 0 else ew
    number(px, state.score_ns if page == 0 else state.score_ew, 0, colour)
    for x in range(WIDTH):
        put(px, x, HEIGHT - 1, colour)


def trump(px: bytearray, state: frame.State, now_ms: int) -> None:
    draw(px, GLYPHS[state.trump], 1, 1, scale(SUIT_COLOURS[state.trump], state.brightness))
    if state.maker == frame.SEAT_NONE:
        return
    if state.alone:
        edge(px, partner(state.maker), scale(SITTING_OUT_COLOUR, state.brightness))
        if (now_ms // 250) % 2 == 0:
            edge(px, state.maker, scale(ALONE_COLOUR, state.brightness))
    else:
        edge(px, state.maker, scale(MAKER_COLOUR, state.brightness))


def play(px: bytearray, state: frame.State, now_ms: int) -> None:
    if state.alert != frame.ALERT_NONE:
        if (now_ms // 250) % 2 == 0:
            colour = ALERT_COLOURS[state.alert]
            draw(px, ALERT_GLYPH, 1, 1, scale(colour, state.brightness))
        return
    pages = score_pages(state)
    if state.trump == frame.SUIT_NONE:
        score(px, state, (now_ms // SCORE_PAGE_MS) % pages)
        return
    cycle = TRUMP_PAGE_MS + pages * SCORE_PAGE_MS
    t = now_ms % cycle
    if t < TRUMP_PAGE_MS:
        trump(px, state, now_ms)
    else:
        score(px, state, (t - TRUMP_PAGE_MS) // SCORE_PAGE_MS)


def waiting(px: bytearray, brightness: int, now_ms: int) -> None:
    """One dot running clockwise round the edge, a step every 100 ms."""
    step = (now_ms // 100) % (2 * (WIDTH + HEIGHT) - 4)
    if step < WIDTH:
        x, y = step, 0
    elif step < WIDTH + HEIGHT - 1:
        x, y = WIDTH - 1, step - WIDTH + 1
    elif step < 2 * WIDTH + HEIGHT - 2:
        x, y = WIDTH - 1 - (step - WIDTH - HEIGHT + 2), HEIGHT - 1
    else:
        x, y = 0, HEIGHT - 1 - (step - 2 * WIDTH - HEIGHT + 3)
    put(px, x, y, scale(WAITING_COLOUR, brightness))


def limit_power(px: bytearray) -> None:
    total = 0
    for value in px:
        total += value
    if total > POWER_BUDGET:
        for i in range(len(px)):
            px[i] = px[i] * POWER_BUDGET // total


def render(px: bytearray, mode: int, state: frame.State | None, now_ms: int) -> None:
    """Fill ``px`` with what the cube shows at ``now_ms`` (blinking and pages follow it)."""
    for i in range(len(px)):
        px[i] = 0
    brightness = state.brightness if state is not None else DEFAULT_BRIGHTNESS
    if mode == MODE_WAITING or (mode == MODE_PLAY and state is None):
        waiting(px, brightness, now_ms)
    elif mode == MODE_LINK_LOST:
        if (now_ms // 500) % 2 == 0:
            draw(px, LINK_LOST_GLYPH, 1, 1, scale(LINK_LOST_COLOUR, brightness))
    elif state is not None:
        play(px, state, now_ms)
    limit_power(px)
